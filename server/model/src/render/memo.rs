//! Rendered SLS files kept across compiles: each is reused while it has the same text, is
//! rendered with the same minion data (the setup's fingerprint) and everything its render
//! read (imports, `map.data` layers, `salt://` files, questions to the file roots) is
//! unchanged. An edit to one templated file then re-renders that file, not the highstate.
//! Plain files ([`ParseMemo`]) are kept by their text alone: their data is every minion's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::diagnostic::SaltError;
use crate::value::{FileId, Val};
use crate::workspace::reads::{hash, Reads};

/// One file's render: its data, its hints and what it read. Only successful renders are
/// kept (an error is placed through the compile's file table, which a later compile does
/// not share).
#[derive(Debug, Clone)]
pub struct Entry {
    pub val: Val,
    pub hints: Vec<SaltError>,
    pub reads: Reads,
    /// What the render left for the files rendered after it ([`crate::render::carry`]).
    pub carry: crate::render::carry::Carry,
}

/// Which render: the file `path` as `env:sls`, with id `id` in the compile's file table and
/// text `text`, rendered with the setup whose fingerprint is `setup`, after files that left
/// the carry whose fingerprint is `carry`.
pub struct Key<'a> {
    pub setup: u64,
    pub carry: u64,
    pub env: &'a str,
    pub sls: &'a str,
    pub path: &'a Path,
    pub id: FileId,
    pub text: &'a str,
}

/// Where an entry may be reused: the same file under the same name, with the same id in the
/// compile's file table (the data's locations carry it) and the same text.
struct Stored {
    id: FileId,
    carry: u64,
    text: u64,
    entry: Arc<Entry>,
}

type Files = HashMap<(String, String, PathBuf), Stored>;

#[derive(Default)]
struct Inner {
    tick: u64,
    /// How many renders were kept (tests count what an edit re-renders).
    kept: u64,
    /// By setup fingerprint: when it was last used and its files.
    setups: HashMap<u64, (u64, Files)>,
}

/// The memo a caller owns (the editor one per workspace, `check` one per run); cloning shares
/// it.
#[derive(Clone, Default)]
pub struct RenderMemo(Arc<Mutex<Inner>>);

/// How many minion setups the memo keeps renders for (the selected minion, a few others the
/// user switched between).
const KEEP_SETUPS: usize = 4;

impl RenderMemo {
    /// The kept render `key` names, when its id and text match. The caller checks its reads
    /// before using it.
    pub fn get(&self, key: &Key) -> Option<Arc<Entry>> {
        let mut inner = self.0.lock().ok()?;
        inner.tick += 1;
        let tick = inner.tick;
        let (used, files) = inner.setups.get_mut(&key.setup)?;
        *used = tick;
        let stored = files.get(&(key.env.to_string(), key.sls.to_string(), key.path.to_path_buf()))?;
        (stored.id == key.id && stored.carry == key.carry && stored.text == hash(key.text)).then(|| stored.entry.clone())
    }

    /// Keeps a render (replacing the file's earlier one under this setup), and returns it.
    pub fn put(&self, key: &Key, entry: Entry) -> Arc<Entry> {
        let setup = key.setup;
        let entry = Arc::new(entry);
        let Ok(mut inner) = self.0.lock() else { return entry };
        inner.tick += 1;
        let tick = inner.tick;
        if !inner.setups.contains_key(&setup) && inner.setups.len() >= KEEP_SETUPS {
            if let Some(oldest) = inner.setups.iter().min_by_key(|(_, (used, _))| *used).map(|(k, _)| *k) {
                inner.setups.remove(&oldest);
            }
        }
        inner.kept += 1;
        let (used, files) = inner.setups.entry(setup).or_default();
        *used = tick;
        let stored = Stored { id: key.id, carry: key.carry, text: hash(key.text), entry: entry.clone() };
        files.insert((key.env.to_string(), key.sls.to_string(), key.path.to_path_buf()), stored);
        entry
    }

    /// How many renders were kept since the memo was made: each is a file rendered afresh.
    pub fn renders(&self) -> u64 {
        self.0.lock().map(|i| i.kept).unwrap_or(0)
    }
}

/// Plain SLS files (no template) parsed once for every minion of a run (a fleet): their data
/// does not depend on the minion. Kept under the path and `env:sls` with the text they were
/// parsed from, so a file whose text differs is parsed again. Located in the file id the
/// caller parses with (the compile relocates it).
#[derive(Clone, Default)]
pub struct ParseMemo(Arc<Mutex<HashMap<ParseKey, Arc<Parsed>>>>);

/// A plain file's path and the `env:sls` it was loaded as.
type ParseKey = (PathBuf, String, String);

/// One plain file's parse: its text, its data or error, and the SLS its `include:` names.
pub struct Parsed {
    pub text: Arc<str>,
    pub data: Result<Val, SaltError>,
    pub includes: Vec<(String, String)>,
}

impl ParseMemo {
    /// The parse of `path` as `env:sls` when it was parsed from `text`.
    pub fn get(&self, path: &Path, env: &str, sls: &str, text: &str) -> Option<Arc<Parsed>> {
        let memo = self.0.lock().ok()?;
        memo.get(&(path.to_path_buf(), env.to_string(), sls.to_string())).filter(|p| &*p.text == text).cloned()
    }

    pub fn put(&self, path: &Path, env: &str, sls: &str, parsed: Arc<Parsed>) {
        if let Ok(mut memo) = self.0.lock() {
            memo.insert((path.to_path_buf(), env.to_string(), sls.to_string()), parsed);
        }
    }
}
