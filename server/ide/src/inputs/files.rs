//! The file layer: the disk, read once and cached until the host is told a file changed,
//! under the editor's open buffers (a [`model::workspace::vfs::Overlay`]), as one snapshot sees it.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use model::workspace::vfs::{Overlay, Vfs};

/// Disk contents and directory listings, cached. Shared by the host and every snapshot:
/// a snapshot that reads a file after it changed on disk sees the new text, which is harmless
/// because the change is also in the change log and every result is tagged with a revision.
/// A file's text, or why it could not be read (kept so a missing file is asked once).
type Cached = Result<Arc<str>, (io::ErrorKind, String)>;

/// A map by path with a fast hasher (the disk cache is asked for every file a compile read).
type Map<V> = HashMap<PathBuf, V, foldhash::fast::RandomState>;

pub(crate) struct DiskCache {
    base: Arc<dyn Vfs>,
    texts: RwLock<Map<Cached>>,
    /// `walk(root)` results, sorted.
    walks: RwLock<Map<Vec<String>>>,
    /// The fingerprints of cached texts, made once each.
    fingerprints: RwLock<Map<u64>>,
    /// How many texts were read from `base`: a cheap count that lets tests tell a cache hit
    /// from a read.
    pub(crate) reads: AtomicUsize,
}

impl DiskCache {
    pub(crate) fn new(base: Arc<dyn Vfs>) -> DiskCache {
        DiskCache {
            base,
            texts: RwLock::new(Map::default()),
            walks: RwLock::new(Map::default()),
            fingerprints: RwLock::new(Map::default()),
            reads: AtomicUsize::new(0),
        }
    }

    pub(crate) fn read_shared(&self, path: &Path) -> io::Result<Arc<str>> {
        if let Some(hit) = self.texts.read().ok().and_then(|t| t.get(path).cloned()) {
            return hit.map_err(|(kind, msg)| io::Error::new(kind, msg));
        }
        let result = self.base.read(path).map(Arc::<str>::from).map_err(|e| (e.kind(), e.to_string()));
        self.reads.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut t) = self.texts.write() {
            t.insert(path.to_path_buf(), result.clone());
        }
        result.map_err(|(kind, msg)| io::Error::new(kind, msg))
    }

    /// Forgets what is known about `paths` and returns the files that were created or deleted
    /// below any directory walked so far (a changed directory is walked again).
    pub(crate) fn invalidate(&self, paths: &[PathBuf]) -> Vec<PathBuf> {
        if let Ok(mut t) = self.texts.write() {
            for p in paths {
                t.retain(|k, _| !k.starts_with(p));
            }
        }
        if let Ok(mut f) = self.fingerprints.write() {
            for p in paths {
                f.retain(|k, _| !k.starts_with(p));
            }
        }
        let mut changed = Vec::new();
        let Ok(mut walks) = self.walks.write() else { return changed };
        for (root, listing) in walks.iter_mut() {
            for p in paths {
                let Ok(rel) = p.strip_prefix(root) else { continue };
                let rel = rel.to_string_lossy().replace('\\', "/");
                let exists_now = self.base.is_file(p);
                let listed = listing.binary_search(&rel);
                let prefix = format!("{rel}/");
                let below = listing.iter().any(|f| f.starts_with(&prefix));
                if rel.is_empty() || below || (!exists_now && listed.is_err() && is_dir_on(&*self.base, p, root)) {
                    // A directory: compare a fresh walk of the root with the old listing.
                    let fresh = sorted(self.base.walk(root));
                    for f in diff(listing, &fresh) {
                        changed.push(root.join(f));
                    }
                    *listing = fresh;
                    continue;
                }
                match (exists_now, listed) {
                    (true, Err(at)) => {
                        listing.insert(at, rel);
                        changed.push(p.clone());
                    }
                    (false, Ok(at)) => {
                        listing.remove(at);
                        changed.push(p.clone());
                    }
                    _ => {}
                }
            }
        }
        changed.sort();
        changed.dedup();
        changed
    }
}

/// Whether `p` is a directory with files below it (a directory that was just created).
fn is_dir_on(fs: &dyn Vfs, p: &Path, _root: &Path) -> bool {
    !fs.walk(p).is_empty()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

/// Entries in exactly one of two sorted lists.
fn diff(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                out.push(x.clone());
                i += 1;
            }
            (Some(_), Some(y)) => {
                out.push(y.clone());
                j += 1;
            }
            (Some(x), None) => {
                out.push(x.clone());
                i += 1;
            }
            (None, Some(y)) => {
                out.push(y.clone());
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// The disk cache as a [`Vfs`].
#[derive(Clone)]
pub(crate) struct Disk(pub(crate) Arc<DiskCache>);

impl Vfs for Disk {
    fn read(&self, path: &Path) -> io::Result<String> {
        self.0.read_shared(path).map(|t| t.to_string())
    }
    /// Bytes that need not be text (the fleet's msgpack cache): from the disk, not cached.
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.0.base.read_bytes(path)
    }
    fn fingerprint(&self, path: &Path) -> u64 {
        if let Some(&h) = self.0.fingerprints.read().ok().and_then(|f| f.get(path).copied()).as_ref() {
            return h;
        }
        let h = match self.0.read_shared(path) {
            Ok(text) => model::workspace::reads::hash(&*text),
            Err(e) => model::workspace::reads::text_fingerprint(&Err(e)),
        };
        if let Ok(mut f) = self.0.fingerprints.write() {
            f.insert(path.to_path_buf(), h);
        }
        h
    }
    fn is_file(&self, path: &Path) -> bool {
        if let Some(hit) = self.0.texts.read().ok().and_then(|t| t.get(path).map(|r| r.is_ok())) {
            return hit;
        }
        self.0.base.is_file(path)
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        if let Some(hit) = self.0.walks.read().ok().and_then(|w| w.get(root).cloned()) {
            return hit;
        }
        let listing = sorted(self.0.base.walk(root));
        if let Ok(mut w) = self.0.walks.write() {
            w.insert(root.to_path_buf(), listing.clone());
        }
        listing
    }
}

/// What one snapshot reads: its open buffers over the disk.
pub(crate) struct Files {
    pub(crate) overlay: Overlay<Disk>,
}

impl Files {
    pub(crate) fn new(disk: Arc<DiskCache>, buffers: HashMap<PathBuf, Arc<str>>) -> Files {
        let overlay = Overlay::new(Disk(disk));
        if let Ok(mut b) = overlay.buffers.write() {
            *b = buffers;
        }
        Files { overlay }
    }

    /// Another handle on the same texts (the same disk cache, a copy of the buffer map), for
    /// closures that must own what they read.
    pub(crate) fn fork(&self) -> Files {
        let buffers = self.overlay.buffers.read().map(|b| b.clone()).unwrap_or_default();
        Files::new(self.overlay.base.0.clone(), buffers)
    }

    /// The text of a file, shared: the open buffer, else the disk's.
    pub(crate) fn text(&self, path: &Path) -> Option<Arc<str>> {
        if let Some(t) = self.overlay.buffers.read().ok().and_then(|b| b.get(path).cloned()) {
            return Some(t);
        }
        self.overlay.base.0.read_shared(path).ok()
    }
}

impl Vfs for Files {
    fn read(&self, path: &Path) -> io::Result<String> {
        self.overlay.read(path)
    }
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.overlay.read_bytes(path)
    }
    fn fingerprint(&self, path: &Path) -> u64 {
        self.overlay.fingerprint(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        self.overlay.is_file(path)
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        self.overlay.walk(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::memory::MemoryDisk;

    #[test]
    fn reads_are_cached_until_invalidated() {
        let fs = Arc::new(MemoryDisk::from_fixture("#- a.sls\na: test.nop\n"));
        let cache = Arc::new(DiskCache::new(fs.clone()));
        let disk = Disk(cache.clone());
        let reads = || cache.reads.load(Ordering::Relaxed);
        assert_eq!(disk.read(Path::new("/ws/a.sls")).unwrap(), "a: test.nop\n");
        assert_eq!(disk.read(Path::new("/ws/a.sls")).unwrap(), "a: test.nop\n");
        // A missing file is asked once too.
        assert!(disk.read(Path::new("/ws/gone.sls")).is_err());
        assert!(disk.read(Path::new("/ws/gone.sls")).is_err());
        assert_eq!(reads(), 2);
        // Until the host is told, the cached text stands; then the new one is read.
        fs.write(Path::new("/ws/a.sls"), "a: test.fail_without_changes\n");
        assert_eq!(disk.read(Path::new("/ws/a.sls")).unwrap(), "a: test.nop\n");
        // Fingerprints are kept with the texts: the same as the text's, made without a read.
        let print = |p: &str| disk.fingerprint(Path::new(p));
        let of = |p: &str| model::workspace::reads::text_fingerprint(&disk.read(Path::new(p)));
        assert_eq!((print("/ws/a.sls"), print("/ws/gone.sls")), (of("/ws/a.sls"), of("/ws/gone.sls")));
        assert_eq!(reads(), 2);
        assert!(cache.invalidate(&[PathBuf::from("/ws/a.sls")]).is_empty());
        assert_eq!(disk.read(Path::new("/ws/a.sls")).unwrap(), "a: test.fail_without_changes\n");
        assert_eq!(reads(), 3);
        assert_eq!(print("/ws/a.sls"), of("/ws/a.sls"));
        // An open buffer's fingerprint is its text's.
        let files = Files::new(cache.clone(), HashMap::from([(PathBuf::from("/ws/a.sls"), Arc::from("ß: ℝ💣\n"))]));
        assert_eq!(files.fingerprint(Path::new("/ws/a.sls")), model::workspace::reads::text_fingerprint(&Ok("ß: ℝ💣\n".to_string())));
    }

    #[test]
    fn invalidation_reports_created_and_deleted_files() {
        let fs = Arc::new(MemoryDisk::from_fixture("#- a.sls\na: test.nop\n#- d/b.sls\nb: test.nop\n"));
        let cache = Arc::new(DiskCache::new(fs.clone()));
        let disk = Disk(cache.clone());
        assert_eq!(disk.walk(Path::new("/ws")), ["a.sls", "d/b.sls"]);
        // Nothing on disk changed: nothing is reported.
        assert!(cache.invalidate(&[PathBuf::from("/ws/a.sls")]).is_empty());
        assert!(cache.invalidate(&[PathBuf::from("/ws/new.sls")]).is_empty());
        // A created file, a deleted one, and a new directory named by itself.
        fs.write(Path::new("/ws/new.sls"), "n: test.nop\n");
        fs.remove(Path::new("/ws/d/b.sls"));
        fs.write(Path::new("/ws/e/c.sls"), "c: test.nop\n");
        let changed = cache.invalidate(&[PathBuf::from("/ws/new.sls"), PathBuf::from("/ws/d/b.sls"), PathBuf::from("/ws/e")]);
        assert_eq!(changed, [PathBuf::from("/ws/d/b.sls"), PathBuf::from("/ws/e/c.sls"), PathBuf::from("/ws/new.sls")]);
        assert_eq!(disk.walk(Path::new("/ws")), ["a.sls", "e/c.sls", "new.sls"]);
    }
}
