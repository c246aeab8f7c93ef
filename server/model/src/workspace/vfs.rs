//! The file-system view the model reads: the disk, optionally overlaid with editor buffers,
//! and the table of files (id, path, text) that diagnostics point into.

use std::collections::{HashMap, HashSet};
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use syntax::line_index::{LineIndex, PositionEncoding};

use crate::value::FileId;

/// What the model may ask of a file system. It never writes and never executes.
pub trait Vfs: Send + Sync {
    fn read(&self, path: &Path) -> io::Result<String>;
    /// A file's bytes, for the binary files the model reads (the master's msgpack minion data
    /// cache); a file system that keeps texts only gives a text's bytes.
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.read(path).map(String::into_bytes)
    }
    fn is_file(&self, path: &Path) -> bool;
    /// Every regular file below `root`, as paths relative to it with `/` separators,
    /// following symlinks but never looping.
    fn walk(&self, root: &Path) -> Vec<String>;
    /// [`Vfs::walk`] down to files `depth` path components deep (`a/b/c.sls` is 3), without
    /// hidden directories: what zero configuration looks through, which must stay quick when
    /// the workspace is a home directory.
    fn walk_shallow(&self, root: &Path, depth: usize) -> Vec<String> {
        self.walk(root).into_iter().filter(|f| f.split('/').count() <= depth && !f.split('/').any(|c| c.starts_with('.'))).collect()
    }
    /// Where questions to the file roots are recorded, for a [`Recorder`](crate::workspace::reads::Recorder).
    fn log(&self) -> Option<&crate::workspace::readlog::ReadLog> {
        None
    }
    /// The fingerprint of what [`Vfs::read`] gives ([`crate::workspace::readlog::text_fingerprint`]):
    /// what a compile checks to know a file is unchanged. A file system that keeps texts
    /// keeps their fingerprints too, so checking 2,000 files copies none.
    fn fingerprint(&self, path: &Path) -> u64 {
        crate::workspace::readlog::text_fingerprint(&self.read(path))
    }
}

/// A shared file system is one too (a recorder that a Jinja loader owns reads through one), and
/// so is a borrowed one: both forward every call.
macro_rules! forward_vfs {
    ($($ty:ty),*) => {$(
        impl<T: Vfs + ?Sized> Vfs for $ty {
            fn read(&self, path: &Path) -> io::Result<String> {
                (**self).read(path)
            }
            fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
                (**self).read_bytes(path)
            }
            fn is_file(&self, path: &Path) -> bool {
                (**self).is_file(path)
            }
            fn walk(&self, root: &Path) -> Vec<String> {
                (**self).walk(root)
            }
            fn walk_shallow(&self, root: &Path, depth: usize) -> Vec<String> {
                (**self).walk_shallow(root, depth)
            }
            fn log(&self) -> Option<&crate::workspace::readlog::ReadLog> {
                (**self).log()
            }
            fn fingerprint(&self, path: &Path) -> u64 {
                (**self).fingerprint(path)
            }
        }
    )*};
}
forward_vfs!(std::sync::Arc<T>, &T);

/// The real disk.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealFs;

/// The largest file read: a state tree's files are far smaller, and a larger one (generated
/// data, a file dropped in by mistake) would cost the check and the editor seconds on every
/// compile. A larger file is an unreadable file, with this reason, wherever it is read.
pub const MAX_FILE_BYTES: usize = 10 * 1024 * 1024;

/// The error for a text over [`MAX_FILE_BYTES`].
pub fn too_large(len: usize) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{len} bytes, over salt-analyzer's limit of {MAX_FILE_BYTES} bytes per file; not analysed"))
}

impl Vfs for RealFs {
    fn read(&self, path: &Path) -> io::Result<String> {
        use std::io::Read;
        let file = std::fs::File::open(path)?;
        // Room for the whole file at once (one read, not a doubling series of small ones);
        // never more than the limit, whatever the length says.
        let len = file.metadata().map_or(0, |m| m.len() as usize);
        let mut bytes = Vec::with_capacity(len.min(MAX_FILE_BYTES) + 1);
        // Never more than the limit in memory, whatever the file's length says.
        file.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes)?;
        if bytes.len() > MAX_FILE_BYTES {
            let len = std::fs::metadata(path).map_or(bytes.len(), |m| m.len() as usize);
            return Err(too_large(len));
        }
        String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to())))
    }
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        walk_dir(root, "", &mut seen, &mut out);
        out.sort();
        out
    }
    fn walk_shallow(&self, root: &Path, depth: usize) -> Vec<String> {
        fn go(dir: &Path, prefix: &str, left: usize, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for entry in entries.filter_map(Result::ok) {
                let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
                let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
                match std::fs::metadata(entry.path()) {
                    Ok(m) if m.is_dir() && left > 1 && !name.starts_with('.') && name != "node_modules" => go(&entry.path(), &rel, left - 1, out),
                    Ok(m) if m.is_file() => out.push(rel),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        go(root, "", depth, &mut out);
        out.sort();
        out
    }
}

fn walk_dir(dir: &Path, prefix: &str, seen: &mut HashSet<PathBuf>, out: &mut Vec<String>) {
    // `seen` holds the canonical paths of the directories being walked (this one's ancestors):
    // a link to one of them would loop, and is not followed. A directory reached by two names
    // (apache-formula's `apache/certificates -> config/certificates/`) is listed under both, as
    // Salt's `os.walk(followlinks=True)` lists it.
    let Ok(canon) = std::fs::canonicalize(dir) else { return };
    if !seen.insert(canon.clone()) {
        return;
    }
    walk_entries(dir, prefix, seen, out);
    seen.remove(&canon);
}

fn walk_entries(dir: &Path, prefix: &str, seen: &mut HashSet<PathBuf>, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
        let path = entry.path();
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        // `metadata` follows symlinks, as Salt's fileserver does by default.
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => walk_dir(&path, &rel, seen, out),
            Ok(m) if m.is_file() => out.push(rel),
            _ => {}
        }
    }
}

/// Editor buffers over another file system: open documents shadow the disk.
#[derive(Default)]
pub struct Overlay<F: Vfs> {
    pub base: F,
    pub buffers: RwLock<HashMap<PathBuf, Arc<str>>>,
}

impl<F: Vfs> Overlay<F> {
    pub fn new(base: F) -> Self {
        Overlay { base, buffers: RwLock::new(HashMap::new()) }
    }
}

impl<F: Vfs> Vfs for Overlay<F> {
    fn read(&self, path: &Path) -> io::Result<String> {
        if let Some(text) = self.buffers.read().ok().and_then(|b| b.get(path).cloned()) {
            if text.len() > MAX_FILE_BYTES {
                return Err(too_large(text.len()));
            }
            return Ok(text.to_string());
        }
        self.base.read(path)
    }
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        if let Some(text) = self.buffers.read().ok().and_then(|b| b.get(path).cloned()) {
            return Ok(text.as_bytes().to_vec());
        }
        self.base.read_bytes(path)
    }
    fn fingerprint(&self, path: &Path) -> u64 {
        if let Some(h) = self.buffers.read().ok().and_then(|b| b.get(path).map(|t| crate::workspace::readlog::hash(&**t))) {
            return h;
        }
        self.base.fingerprint(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        self.buffers.read().map(|b| b.contains_key(path)).unwrap_or(false) || self.base.is_file(path)
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        let mut files = self.base.walk(root);
        if let Ok(b) = self.buffers.read() {
            for p in b.keys() {
                if let Ok(rel) = p.strip_prefix(root) {
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    if !files.contains(&rel) {
                        files.push(rel);
                    }
                }
            }
        }
        files.sort();
        files
    }
}

/// Files the analysis has read, by id: diagnostics carry a [`FileId`] and a byte span.
///
/// It is also where those spans become the positions the commands print, in the two
/// conventions of [`syntax::line_index`]: [`FileTable::human`] for people and
/// [`FileTable::range_json`] for JSON.
#[derive(Debug, Default, Clone)]
pub struct FileTable {
    files: Vec<TableFile>,
    by_path: HashMap<PathBuf, FileId>,
}

#[derive(Debug, Clone)]
struct TableFile {
    path: PathBuf,
    text: Arc<str>,
    /// Built on the first position asked of the file, then kept: a report converts one
    /// position per diagnostic, and indexing the text for each was quadratic.
    index: OnceLock<LineIndex>,
}

impl FileTable {
    pub fn add(&mut self, path: PathBuf, text: Arc<str>) -> FileId {
        if let Some(&id) = self.by_path.get(&path) {
            self.files[id as usize] = TableFile { path, text, index: OnceLock::new() };
            return id;
        }
        let id = self.files.len() as FileId;
        self.by_path.insert(path.clone(), id);
        self.files.push(TableFile { path, text, index: OnceLock::new() });
        id
    }
    pub fn len(&self) -> usize {
        self.files.len()
    }
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    pub fn path(&self, id: FileId) -> &Path {
        &self.files[id as usize].path
    }
    pub fn text(&self, id: FileId) -> &str {
        &self.files[id as usize].text
    }
    /// The text of the file at `path`, shared.
    pub fn shared_text(&self, path: &Path) -> Option<Arc<str>> {
        self.id(path).map(|id| self.files[id as usize].text.clone())
    }
    /// Every file's path, in the order they were added.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|f| f.path.as_path())
    }
    pub fn id(&self, path: &Path) -> Option<FileId> {
        self.by_path.get(path).copied()
    }
    /// The line index of a file's text, built once.
    pub fn line_index(&self, id: FileId) -> &LineIndex {
        let file = &self.files[id as usize];
        file.index.get_or_init(|| LineIndex::new(&file.text))
    }
    /// The 1-based line and 1-based character column of an offset, as the command line prints
    /// them ([`LineIndex::human`]).
    pub fn human(&self, id: FileId, offset: usize) -> (usize, usize) {
        self.line_index(id).human(offset)
    }
    /// A byte span as every JSON output gives it: LSP's `Range`,
    /// `{"start": {"line", "character"}, "end": {...}}`, 0-based lines and UTF-16 columns.
    pub fn range_json(&self, id: FileId, span: &Range<usize>) -> serde_json::Value {
        let index = self.line_index(id);
        let pos = |offset: usize| {
            let w = index.wide_line_col(PositionEncoding::Utf16, offset);
            serde_json::json!({"line": w.line, "character": w.col})
        };
        serde_json::json!({"start": pos(span.start), "end": pos(span.end)})
    }
}

/// An in-memory file system, for tests and fixtures.
#[derive(Debug, Default, Clone)]
pub struct MemFs {
    pub files: std::collections::BTreeMap<PathBuf, String>,
    /// Files that are not text (read with [`Vfs::read_bytes`] only).
    pub blobs: std::collections::BTreeMap<PathBuf, Vec<u8>>,
}

impl MemFs {
    /// Parse a fixture: files introduced by `#- path` header lines, relative to `/ws`.
    pub fn from_fixture(text: &str) -> MemFs {
        let mut fs = MemFs::default();
        let mut current: Option<(PathBuf, String)> = None;
        for line in text.split_inclusive('\n') {
            if let Some(path) = line.strip_prefix("#- ") {
                if let Some((p, t)) = current.take() {
                    fs.files.insert(p, t);
                }
                current = Some((Path::new("/ws").join(path.trim()), String::new()));
            } else if let Some((_, t)) = current.as_mut() {
                t.push_str(line);
            }
        }
        if let Some((p, t)) = current {
            fs.files.insert(p, t);
        }
        fs
    }
}

impl Vfs for MemFs {
    fn read(&self, path: &Path) -> io::Result<String> {
        self.files.get(path).cloned().ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.blobs.get(path) {
            Some(b) => Ok(b.clone()),
            None => self.read(path).map(String::into_bytes),
        }
    }
    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path) || self.blobs.contains_key(path)
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        let mut all: Vec<String> =
            self.files.keys().chain(self.blobs.keys()).filter_map(|p| p.strip_prefix(root).ok()).map(|r| r.to_string_lossy().replace('\\', "/")).collect();
        all.sort();
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_for_people_and_utf16_units_for_json() {
        let mut files = FileTable::default();
        let path = PathBuf::from("/ws/a.sls");
        let id = files.add(path.clone(), Arc::from("a: 1\nß ℝ 💣 x: [\n"));
        // `x` is byte 12 of line 2: its 7th character, UTF-16 column 7.
        let x = 5 + 12;
        assert_eq!(files.human(id, x), (2, 7));
        assert_eq!(files.range_json(id, &(x..x + 1)), serde_json::json!({"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 8}}));
        // New text for the same path gets a new index, not the old one's positions.
        assert_eq!(files.add(path, Arc::from("💣x")), id);
        assert_eq!(files.human(id, 4), (1, 2));
        assert_eq!(files.range_json(id, &(4..5))["start"], serde_json::json!({"line": 0, "character": 2}));
    }

    #[test]
    fn a_directory_linked_under_two_names_is_listed_under_both_and_a_loop_is_not_followed() {
        // apache-formula ships `apache/certificates -> config/certificates/`; Salt's roots
        // backend (`os.walk(followlinks=True)`) serves both `apache.certificates` and
        // `apache.config.certificates`.
        let dir = std::env::temp_dir().join(format!("sa-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("apache/config/certificates")).unwrap();
        std::fs::write(dir.join("apache/config/certificates/init.sls"), "x: {test.nop: []}\n").unwrap();
        std::os::unix::fs::symlink("config/certificates/", dir.join("apache/certificates")).unwrap();
        std::os::unix::fs::symlink("..", dir.join("apache/config/up")).unwrap();
        let listed = RealFs.walk(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        // `up -> ..` is an ancestor of itself: not followed.
        assert_eq!(listed, ["apache/certificates/init.sls", "apache/config/certificates/init.sls"]);
    }
}
