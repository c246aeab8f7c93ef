//! The vocabulary of recorded reads, below the [`Vfs`](crate::workspace::vfs::Vfs) that hands
//! out its log: what was asked ([`Read`], [`Lookup`]), the list a computation read ([`Reads`]),
//! the [`ReadLog`] a recorder keeps, and the one fingerprint of the crate's caches ([`hash`]).
//! Asking the reads again (is a result still right?) and the recorder itself are
//! `workspace::reads`'s, which needs the file roots.

use std::collections::HashSet;
use std::hash::Hash;
use std::io;
use std::path::PathBuf;
use std::sync::Mutex;

/// A question asked of the file roots (answered from their listing, not from a file read).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Lookup {
    /// `Client.get_state(sls, env)`: which file an SLS name loads, and whether
    /// `Client.list_states(env)` lists it.
    State { env: String, sls: String },
    /// A `salt://` relative path (a top file, a Jinja import): which root has it.
    File { env: String, rel: String },
    /// The SLS names of an environment that a pattern (a glob include, a name) matches.
    Names { env: String, pattern: String },
}

/// One recorded read and the fingerprint of what it saw.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Read {
    /// A file's text (or the error reading it).
    Text(PathBuf, u64),
    /// Whether a path is a file.
    IsFile(PathBuf, bool),
    /// A directory's listing.
    Walk(PathBuf, u64),
    /// A question to the file roots.
    Roots(Lookup, u64),
}

/// Everything one computation read, in order, without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Reads {
    pub list: Vec<Read>,
}

/// The log behind a [`Recorder`](crate::workspace::reads::Recorder). Besides the whole computation's reads it keeps those of
/// the parts in progress ([`ReadLog::begin`] .. [`ReadLog::end`], nested), so that one part's
/// result (a rendered file) can be memoised by what that part read.
#[derive(Default)]
pub struct ReadLog {
    reads: Mutex<(Vec<Read>, HashSet<u64>)>,
    parts: Mutex<Vec<Vec<Read>>>,
    /// The paths read while no part was in progress (the top file, the pillar, the minion's
    /// profile): a change there is not one a part's result can absorb.
    outside: Mutex<HashSet<PathBuf>>,
}

impl ReadLog {
    pub(crate) fn push(&self, read: Read) {
        if let Ok(mut parts) = self.parts.lock() {
            for part in parts.iter_mut() {
                part.push(read.clone());
            }
            if parts.is_empty() {
                if let Read::Text(p, _) | Read::IsFile(p, _) | Read::Walk(p, _) = &read {
                    if let Ok(mut outside) = self.outside.lock() {
                        if !outside.contains(p) {
                            outside.insert(p.clone());
                        }
                    }
                }
            }
        }
        let key = hash(&read);
        if let Ok(mut r) = self.reads.lock() {
            if r.1.insert(key) {
                r.0.push(read);
            }
        }
    }

    /// Everything read so far, in order, without repeats.
    pub(crate) fn all(&self) -> Vec<Read> {
        self.reads.lock().map(|r| r.0.clone()).unwrap_or_default()
    }

    /// The paths read while no part was in progress.
    pub(crate) fn outside(&self) -> HashSet<PathBuf> {
        self.outside.lock().map(|o| o.clone()).unwrap_or_default()
    }

    /// Starts recording a part of the computation (parts nest: a read counts for every part
    /// in progress).
    pub fn begin(&self) {
        if let Ok(mut parts) = self.parts.lock() {
            parts.push(Vec::new());
        }
    }

    /// Ends the part begun last and returns what it read, in order, without repeats.
    pub fn end(&self) -> Reads {
        let list = self.parts.lock().ok().and_then(|mut p| p.pop()).unwrap_or_default();
        let mut seen = HashSet::new();
        Reads { list: list.into_iter().filter(|r| seen.insert(hash(r))).collect() }
    }

    /// Records `reads` as read now: a memoised part's reads, checked unchanged, count for
    /// the computation (and the parts in progress) as if the part had run again.
    pub fn replay(&self, reads: &Reads) {
        for r in &reads.list {
            self.push(r.clone());
        }
    }
}

/// A fingerprint: fast (every text a compile reads is hashed once), fixed-seeded so that two
/// runs agree. The one fingerprint of the crate's caches (the render memo keys by it too).
pub fn hash<T: Hash + ?Sized>(v: &T) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x5a17).hash_one(v)
}

/// The fingerprint of a read's result (its text, or the error).
pub fn text_fingerprint(r: &io::Result<String>) -> u64 {
    match r {
        Ok(t) => hash(t.as_str()),
        Err(e) => hash(&(e.kind() as u32, e.to_string())),
    }
}
