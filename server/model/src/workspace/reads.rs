//! What a result depends on, recorded as it is computed: a [`Recorder`] is a [`Vfs`] that logs
//! every file read (with a hash of the text it saw), every existence test and directory walk,
//! and every question asked of the file roots (which file is SLS `web` in `base`, which names
//! a glob include matches). The finished [`Reads`] answers "is this result still right?" by
//! asking the same questions again, so no caller keeps a list of dependencies by hand.

use std::io;
use std::path::{Path, PathBuf};

use crate::py::fnmatch;
pub use crate::workspace::readlog::{hash, text_fingerprint, Lookup, Read, ReadLog, Reads};
use crate::workspace::roots::{FileRoots, StateFile};
use crate::workspace::vfs::Vfs;

impl Lookup {
    /// The answer's fingerprint under `roots`.
    fn answer(&self, roots: &FileRoots) -> u64 {
        match self {
            // Whether the name is listed matters too: a listed name that loads nothing is a
            // file with a dot in its name, which the checker reports as such.
            Lookup::State { env, sls } => state_answer(roots, env, sls, roots.get_state(env, sls).as_ref()),
            Lookup::File { env, rel } => hash(&roots.find_file(env, rel)),
            Lookup::Names { env, pattern } => hash(&fnmatch::filter_sorted(&roots.list_states_shared(env), pattern)),
        }
    }
}

/// The fingerprint of `get_state(env, sls)`'s answer `got`, with whether the listing has the
/// name.
fn state_answer(roots: &FileRoots, env: &str, sls: &str, got: Option<&StateFile>) -> u64 {
    hash(&(got.map(|f| &f.path), roots.list_states_shared(env).binary_search_by(|n| n.as_str().cmp(sls)).is_ok()))
}

impl Read {
    /// Whether the read gets the answer it got: asked of `fs` (a text, an existence test, a
    /// walk) and of `roots` (a question to the file roots); what neither is given for counts
    /// as the same.
    fn answers_as_before(&self, fs: Option<&dyn Vfs>, roots: Option<&FileRoots>) -> bool {
        match self {
            Read::Text(p, h) => fs.is_none_or(|fs| fs.fingerprint(p) == *h),
            Read::IsFile(p, b) => fs.is_none_or(|fs| fs.is_file(p) == *b),
            Read::Walk(p, h) => fs.is_none_or(|fs| hash(&fs.walk(p)) == *h),
            Read::Roots(l, h) => roots.is_none_or(|roots| l.answer(roots) == *h),
        }
    }
}

impl Reads {
    /// The files (and directories) the computation looked at.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.list.iter().filter_map(|r| match r {
            Read::Text(p, _) | Read::IsFile(p, _) | Read::Walk(p, _) => Some(p.as_path()),
            Read::Roots(..) => None,
        })
    }

    /// The questions the computation asked of the file roots.
    pub fn lookups(&self) -> impl Iterator<Item = &Lookup> {
        self.list.iter().filter_map(|r| match r {
            Read::Roots(l, _) => Some(l),
            _ => None,
        })
    }

    /// Whether `path` (a file, or a directory above files) is something the computation read.
    pub fn touches(&self, path: &Path) -> bool {
        self.paths().any(|p| p == path || p.starts_with(path))
    }

    /// Whether every file read still has the text it had.
    pub fn files_unchanged(&self, fs: &dyn Vfs) -> bool {
        self.list.iter().all(|r| r.answers_as_before(Some(fs), None))
    }

    /// The files whose text changed, when nothing else did (every existence test, directory
    /// walk and question to `roots` has its answer; no `roots`: the listing the questions
    /// were asked of, which answers them as it did): `None` when something else changed.
    pub fn changed_texts(&self, fs: &dyn Vfs, roots: Option<&FileRoots>) -> Option<Vec<PathBuf>> {
        let mut changed = Vec::new();
        for r in &self.list {
            if r.answers_as_before(Some(fs), roots) {
                continue;
            }
            match r {
                Read::Text(p, _) => changed.push(p.clone()),
                _ => return None,
            }
        }
        Some(changed)
    }

    /// Takes each of the `changed` files' text as `fs` has it now, and adds `more` (the reads
    /// of parts computed again).
    pub fn refresh(&mut self, fs: &dyn Vfs, changed: &[PathBuf], more: &Reads) {
        for r in &mut self.list {
            if let Read::Text(p, h) = r {
                if changed.contains(p) {
                    *h = fs.fingerprint(p);
                }
            }
        }
        for r in &more.list {
            if !self.list.contains(r) {
                self.list.push(r.clone());
            }
        }
    }

    /// Whether every question asked of the file roots has the same answer under `roots` (a new
    /// listing after files were created or deleted).
    pub fn lookups_unchanged(&self, roots: &FileRoots) -> bool {
        self.list.iter().all(|r| r.answers_as_before(None, Some(roots)))
    }

    /// Whether a result computed from these reads is still right: the same texts on `fs`, the
    /// same answers from `roots`.
    pub fn unchanged(&self, fs: &dyn Vfs, roots: &FileRoots) -> bool {
        self.files_unchanged(fs) && self.lookups_unchanged(roots)
    }
}

/// A [`Vfs`] that records what is read through it (`F`: an owned `Arc<dyn Vfs>` when the
/// recorder must outlive a borrow, as Jinja loaders do; a `&dyn Vfs` otherwise). Model code
/// that asks the file roots a question records it with [`state`], [`find_file`] and [`names`],
/// which go to [`Vfs::log`].
pub struct Recorder<F: Vfs> {
    inner: F,
    log: ReadLog,
}

impl ReadLog {
    /// Records a question to the file roots and its answer.
    pub fn lookup(&self, lookup: Lookup, roots: &FileRoots) {
        let answer = lookup.answer(roots);
        self.push(Read::Roots(lookup, answer));
    }
}

impl<F: Vfs> Recorder<F> {
    pub fn new(inner: F) -> Recorder<F> {
        Recorder { inner, log: ReadLog::default() }
    }

    /// What was read so far.
    pub fn reads(&self) -> Reads {
        Reads { list: self.log.all() }
    }

    /// The paths read outside every part (see [`ReadLog::begin`]).
    pub fn read_outside_parts(&self) -> std::collections::HashSet<PathBuf> {
        self.log.outside()
    }
}

impl<F: Vfs> Vfs for Recorder<F> {
    fn read(&self, path: &Path) -> io::Result<String> {
        let r = self.inner.read(path);
        self.log.push(Read::Text(path.to_path_buf(), text_fingerprint(&r)));
        r
    }
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        let r = self.inner.read_bytes(path);
        // Recorded as the check of an unchanged file will see it.
        self.log.push(Read::Text(path.to_path_buf(), self.inner.fingerprint(path)));
        r
    }
    fn is_file(&self, path: &Path) -> bool {
        let b = self.inner.is_file(path);
        self.log.push(Read::IsFile(path.to_path_buf(), b));
        b
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        let l = self.inner.walk(root);
        self.log.push(Read::Walk(root.to_path_buf(), hash(&l)));
        l
    }
    fn log(&self) -> Option<&ReadLog> {
        Some(&self.log)
    }
    fn fingerprint(&self, path: &Path) -> u64 {
        let h = self.inner.fingerprint(path);
        self.log.push(Read::Text(path.to_path_buf(), h));
        h
    }
}

/// Reads through `F` (whose recorder logs every file read and directory walk) without logging
/// questions to roots: for roots other than the file roots, such as `pillar_roots`, which
/// [`Reads::unchanged`] could not ask again. Scanning those roots through it records their
/// walks, so a created or deleted file there still counts as a change.
pub struct OtherRoots<F: Vfs>(pub F);

impl<F: Vfs> Vfs for OtherRoots<F> {
    fn read(&self, path: &Path) -> io::Result<String> {
        self.0.read(path)
    }
    fn read_bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.0.read_bytes(path)
    }
    fn fingerprint(&self, path: &Path) -> u64 {
        self.0.fingerprint(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        self.0.is_file(path)
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        self.0.walk(root)
    }
}

/// `roots.get_state(env, sls)`, recorded in `fs`'s log when it has one.
pub fn state(fs: &dyn Vfs, roots: &FileRoots, env: &str, sls: &str) -> Option<StateFile> {
    let got = roots.get_state(env, sls);
    if let Some(log) = fs.log() {
        let answer = state_answer(roots, env, sls, got.as_ref());
        log.push(Read::Roots(Lookup::State { env: env.to_string(), sls: sls.to_string() }, answer));
    }
    got
}

/// `roots.find_file(env, rel)`, recorded in `fs`'s log when it has one.
pub fn find_file(fs: &dyn Vfs, roots: &FileRoots, env: &str, rel: &str) -> Option<PathBuf> {
    let got = roots.find_file(env, rel);
    if let Some(log) = fs.log() {
        // The answer's fingerprint as `Lookup::answer` takes it.
        log.push(Read::Roots(Lookup::File { env: env.to_string(), rel: rel.to_string() }, hash(&got)));
    }
    got
}

/// Records that a computation depends on which of `env`'s SLS names match `pattern` (a
/// glob include, an include checked by name).
pub fn names(fs: &dyn Vfs, roots: &FileRoots, env: &str, pattern: &str) {
    if let Some(log) = fs.log() {
        log.lookup(Lookup::Names { env: env.to_string(), pattern: pattern.to_string() }, roots);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::vfs::MemFs;

    fn fixture() -> MemFs {
        MemFs::from_fixture("#- base/a.sls\na: test.nop\n#- base/b/init.sls\nb: test.nop\n#- base/ß💣.sls\nx: test.nop\n")
    }

    fn roots(fs: &MemFs) -> FileRoots {
        let file_roots = indexmap::IndexMap::from([("base".to_string(), vec![PathBuf::from("/ws/base")])]);
        FileRoots::scan(fs, &file_roots)
    }

    #[test]
    fn a_result_is_stale_only_when_what_it_read_changed() {
        let mut fs = fixture();
        let r = roots(&fs);
        let rec = Recorder::new(fs.clone());
        assert_eq!(rec.read(Path::new("/ws/base/a.sls")).unwrap(), "a: test.nop\n");
        assert!(state(&rec, &r, "base", "b").is_some());
        assert!(state(&rec, &r, "base", "c").is_none());
        assert!(state(&rec, &r, "base", "d.e").is_none());
        names(&rec, &r, "base", "ß*");
        assert!(find_file(&rec, &r, "base", "a.sls").is_some());
        assert!(find_file(&rec, &r, "base", "ℝ.jinja").is_none());
        let reads = rec.reads();
        assert_eq!(reads.paths().collect::<Vec<_>>(), [Path::new("/ws/base/a.sls")]);
        assert_eq!(reads.lookups().count(), 6);
        assert!(reads.unchanged(&fs, &r));

        // A file it did not read changes: still right.
        fs.files.insert("/ws/base/b/init.sls".into(), "b: test.fail_without_changes\n".into());
        assert!(reads.unchanged(&fs, &r));
        // A file it read changes: stale; the same text again: right again.
        fs.files.insert("/ws/base/a.sls".into(), "a: test.fail_without_changes\n".into());
        assert!(!reads.unchanged(&fs, &r));
        fs.files.insert("/ws/base/a.sls".into(), "a: test.nop\n".into());
        assert!(reads.unchanged(&fs, &r));

        // A created file no lookup can see: still right.
        fs.files.insert("/ws/base/other.sls".into(), "o: test.nop\n".into());
        assert!(reads.lookups_unchanged(&roots(&fs)));
        // A file that answers `c`: stale. One that shadows `b/init.sls`: stale.
        let mut with_c = fs.clone();
        with_c.files.insert("/ws/base/c.sls".into(), "c: test.nop\n".into());
        assert!(!reads.lookups_unchanged(&roots(&with_c)));
        let mut shadow = fs.clone();
        shadow.files.insert("/ws/base/b.sls".into(), "b: test.nop\n".into());
        assert!(!reads.lookups_unchanged(&roots(&shadow)));
        // A file listed as `d.e` that still loads nothing (a dot in its name): stale, since the
        // checker then says why the include fails.
        let mut dotted = fs.clone();
        dotted.files.insert("/ws/base/d.e.sls".into(), "d: test.nop\n".into());
        let d = roots(&dotted);
        assert!(d.get_state("base", "d.e").is_none());
        assert!(!reads.lookups_unchanged(&d));
        // A name the glob matches: stale.
        let mut glob = fs.clone();
        glob.files.insert("/ws/base/ßℝ.sls".into(), "y: test.nop\n".into());
        assert!(!reads.lookups_unchanged(&roots(&glob)));
    }

    #[test]
    fn a_part_records_what_it_read_even_when_read_before() {
        let fs = fixture();
        let rec = Recorder::new(fs);
        let log = rec.log().expect("a recorder logs");
        let _ = rec.read(Path::new("/ws/base/a.sls"));
        log.begin();
        let _ = rec.read(Path::new("/ws/base/a.sls"));
        log.begin();
        let _ = rec.read(Path::new("/ws/base/ß💣.sls"));
        let inner = log.end();
        let _ = rec.read(Path::new("/ws/base/ß💣.sls"));
        let outer = log.end();
        let paths = |r: &Reads| r.paths().map(|p| p.to_string_lossy().into_owned()).collect::<Vec<_>>();
        assert_eq!(paths(&inner), ["/ws/base/ß💣.sls"]);
        assert_eq!(paths(&outer), ["/ws/base/a.sls", "/ws/base/ß💣.sls"]);
        assert_eq!(paths(&rec.reads()), ["/ws/base/a.sls", "/ws/base/ß💣.sls"]);
        // Replayed reads count for the parts in progress and the whole.
        let other = Recorder::new(fixture());
        let olog = other.log().expect("a recorder logs");
        olog.begin();
        olog.replay(&outer);
        assert_eq!(paths(&olog.end()), paths(&outer));
        assert_eq!(other.reads(), outer);
    }

    #[test]
    fn repeats_are_recorded_once() {
        let fs = fixture();
        let rec = Recorder::new(fs);
        for _ in 0..3 {
            let _ = rec.read(Path::new("/ws/base/a.sls"));
            let _ = rec.read(Path::new("/ws/nope.sls"));
        }
        assert_eq!(rec.reads().list.len(), 2);
    }
}
