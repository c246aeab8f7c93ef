//! The cross-file index: one cached [`RootCheck`](model::check::RootCheck) per root SLS file
//! (its diagnostics and what its check read), the top-file check, and a reverse index from
//! files to the roots that read them, so that a change recomputes only the roots it can
//! affect.
//!
//! The index is brought up to a snapshot's revision by replaying the change log since the
//! revision it was last brought to: a changed file dirties the roots that read it; a created or
//! deleted file dirties the roots whose recorded questions to the file roots (which file an
//! include loads, which names a glob include matches) now have another answer, as
//! [`Reads`](model::workspace::reads::Reads) records them. A snapshot older than the index is
//! cancelled rather than answered.
//!
//! The index also holds the selected minion's highstate diagnostics
//! ([`Highstate`](crate::index::highstate::Highstate)): every replayed change is noted there, and the
//! queries that report diagnostics bring it up to the snapshot's minion.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use model::check::normalize;
use model::check::recheck::Session;
use model::diagnostic::Code;
use model::diagnostic::Diagnostic;
use model::workspace::reads::{Reads, Recorder};
use model::workspace::vfs::FileTable;
use model::workspace::vfs::Vfs;

use crate::index::highstate::Highstate;
use crate::inputs::changes::{Change, ChangeLog};
use crate::inputs::files::Files;
use crate::inputs::summaries::Summaries;
use crate::inputs::world::{RootKey, World};
use crate::types::{Cancellable, Cancelled};

/// One root's cached check.
pub(crate) struct RootEntry {
    pub(crate) path: PathBuf,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The files the root's include closure rendered, root first.
    pub(crate) closure: Vec<PathBuf>,
    /// The files the check read, plus the files diagnostics point into.
    deps: Vec<PathBuf>,
    /// What the check read and asked of the file roots.
    reads: Reads,
    /// What rechecking the root after an edit inside one of its states needs (large roots
    /// only: a small one is checked from scratch in well under a millisecond).
    session: Option<Box<Session>>,
}

impl RootEntry {
    /// The files this root's diagnostics can be in (its closure and whatever they point
    /// into): what to republish when the entry comes or goes. The other files it read (a
    /// `_states` listing, a custom module) only make it recompute.
    fn reported_files(&self) -> impl Iterator<Item = PathBuf> + '_ {
        std::iter::once(&self.path).chain(&self.closure).chain(self.diagnostics.iter().map(|d| &d.file)).cloned()
    }
}

/// Roots whose high data has at least this many states keep a [`Session`] between checks.
/// Every root does in unit tests, so that they exercise the recheck path.
const KEEP_FROM: usize = if cfg!(test) { 0 } else { 200 };

/// What an update needs from the snapshot.
pub(crate) struct Input<'a> {
    pub(crate) revision: u64,
    pub(crate) world: &'a std::sync::Arc<World>,
    pub(crate) files: &'a Files,
    pub(crate) summaries: &'a Summaries,
    pub(crate) log: &'a Mutex<ChangeLog>,
    /// The host's newest revision: work for an older one stops early.
    pub(crate) current: &'a AtomicU64,
    /// The minion the host selected (`None`: the workspace default).
    pub(crate) minion: Option<&'a str>,
}

/// How the index brought its roots up to date, since it was created: the cheap count that lets
/// a test tell reuse from recomputation.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct IndexStats {
    /// Roots checked from scratch.
    pub checked: usize,
    /// Roots rechecked from the session their previous check kept.
    pub rechecked: usize,
}

#[derive(Default)]
pub(crate) struct Index {
    revision: u64,
    pub(crate) stats: IndexStats,
    /// The world the entries were computed in (`None` until the first update).
    world: Option<std::sync::Arc<World>>,
    pub(crate) roots: HashMap<RootKey, RootEntry>,
    pub(crate) by_file: HashMap<PathBuf, HashSet<RootKey>>,
    tops: Vec<Diagnostic>,
    tops_deps: HashSet<PathBuf>,
    /// The formulas' `parameters/` checks (`model::check::params`), and what they read.
    params: Vec<Diagnostic>,
    params_reads: Option<Reads>,
    /// The selected minion's highstate diagnostics.
    pub(crate) highstate: Highstate,
    /// Files whose diagnostics may have changed since they were last taken.
    unreported: BTreeSet<PathBuf>,
}

impl Index {
    /// Brings the index up to `input.revision`.
    pub(crate) fn update(&mut self, input: &Input<'_>) -> Cancellable<()> {
        if self.revision > input.revision {
            return Err(Cancelled);
        }
        if self.revision == input.revision && self.world.is_some() {
            return Ok(());
        }
        let world = input.world;
        let changes = input.log.lock().map_err(|_| Cancelled)?.between(self.revision, input.revision);
        let reset = self.world.is_none() || changes.iter().any(|c| matches!(c, Change::Reset));
        let mut dirty: HashSet<RootKey> = HashSet::new();
        let mut tops_dirty = reset;
        let mut layout = false;
        if reset {
            self.unreported.extend(self.by_file.keys().cloned());
            self.unreported.extend(self.tops.iter().map(|d| d.file.clone()));
            let unreported = std::mem::take(&mut self.unreported);
            // The highstate result is kept (marked stale), so that its next refresh reports
            // exactly the files whose highstate diagnostics changed.
            let mut highstate = std::mem::take(&mut self.highstate);
            highstate.note(&Change::Reset);
            *self = Index { unreported, highstate, stats: self.stats, ..Index::default() };
            input.summaries.clear();
        } else {
            for change in &changes {
                self.highstate.note(change);
                match change {
                    Change::Content(p) => {
                        self.dirty_file(world, p, &mut dirty);
                        if self.tops_deps.contains(p) || world.is_top(p) {
                            tops_dirty = true;
                        }
                        if self.params_reads.as_ref().is_some_and(|r| r.touches(p)) {
                            self.params_reads = None;
                        }
                    }
                    Change::Layout(paths) => {
                        self.params_reads = None;
                        for p in paths {
                            self.dirty_file(world, p, &mut dirty);
                        }
                        layout = true;
                        tops_dirty = true;
                    }
                    Change::Reset => {}
                    Change::Pillar => {}
                    Change::Republish => {
                        let files: Vec<PathBuf> = self.roots.values().flat_map(RootEntry::reported_files).collect();
                        self.unreported.extend(files);
                        self.unreported.extend(self.tops.iter().map(|d| d.file.clone()));
                        self.unreported.extend(self.highstate.files().cloned());
                    }
                }
            }
        }
        if layout {
            // Files were created or deleted: `world` has the new listing. A root is dirty when a
            // question its check asked of the old listing has another answer now.
            for (key, entry) in &self.roots {
                if !dirty.contains(key) && !entry.reads.lookups_unchanged(&world.ctx.roots) {
                    dirty.insert(key.clone());
                }
            }
        }
        // Roots that appeared, moved (another root now shadows them) or disappeared.
        let mut live: HashSet<RootKey> = HashSet::with_capacity(world.roots.len());
        for (env, rel, path) in &world.roots {
            let key = (env.clone(), rel.clone());
            if self.roots.get(&key).is_none_or(|e| e.path != *path) {
                dirty.insert(key.clone());
            }
            live.insert(key);
        }
        let gone: Vec<RootKey> = self.roots.keys().filter(|k| !live.contains(*k)).cloned().collect();
        for key in gone {
            self.remove(&key);
        }

        // A root's session survives text edits only: a created or deleted file may change
        // what its includes resolve to.
        let edits_only = !reset && changes.iter().all(|c| matches!(c, Change::Content(_)));
        let mut todo: Vec<Todo> = Vec::new();
        for (env, rel, path) in &world.roots {
            let key = (env.clone(), rel.clone());
            if !dirty.contains(&key) {
                continue;
            }
            let session = match self.roots.get_mut(&key) {
                Some(e) if edits_only && e.path == *path => e.session.take().map(|s| (s, e.reads.clone())),
                _ => None,
            };
            todo.push(Todo { key, path: path.clone(), session });
        }
        let cancelled = || input.current.load(Ordering::Relaxed) > input.revision;
        let wanted = todo.len();
        let results = compute_all(input, todo, &cancelled);
        let complete = results.len() == wanted;
        for (key, entry, rechecked) in results {
            if rechecked {
                self.stats.rechecked += 1;
            } else {
                self.stats.checked += 1;
            }
            self.remove(&key);
            self.insert(key, entry);
        }
        if !complete {
            return Err(Cancelled);
        }
        if tops_dirty {
            let mut table = FileTable::default();
            let mut out = Vec::new();
            model::check::tops::check_tops(input.files, &world.ws.opts, &world.ctx.roots, &mut table, &mut out);
            self.unreported.extend(self.tops.iter().map(|d| d.file.clone()));
            self.unreported.extend(out.iter().map(|d| d.file.clone()));
            self.tops_deps = (0..table.len() as u32).map(|id| table.path(id).to_path_buf()).collect();
            self.tops_deps.extend(world.top_files().into_iter().map(|(_, p)| p));
            self.tops = out;
        }
        if self.params_reads.is_none() {
            // What a formula's layer files say; recomputed when a file it read changes or
            // files come and go.
            let recorder = Recorder::new(input.files as &dyn Vfs);
            let mut table = FileTable::default();
            let mut out = Vec::new();
            model::check::params::check_parameters(&recorder, &world.ctx.roots, &mut table, &mut out);
            model::check::normalize(&mut out);
            self.unreported.extend(self.params.iter().map(|d| d.file.clone()));
            self.unreported.extend(out.iter().map(|d| d.file.clone()));
            self.params = out;
            self.params_reads = Some(recorder.reads());
        }
        if cancelled() {
            // The entries are kept (each is right for the changes it saw); the revision is not
            // advanced, so the next update replays the same changes.
            return Err(Cancelled);
        }
        self.revision = input.revision;
        self.world = Some(world.clone());
        if let Ok(mut log) = input.log.lock() {
            log.trim(input.revision);
        }
        Ok(())
    }

    fn dirty_file(&self, world: &World, path: &Path, dirty: &mut HashSet<RootKey>) {
        if let Some(keys) = self.by_file.get(path) {
            dirty.extend(keys.iter().cloned());
        }
        if let Some(keys) = world.roots_by_path.get(path) {
            dirty.extend(keys.iter().cloned());
        }
    }

    fn remove(&mut self, key: &RootKey) {
        let Some(old) = self.roots.remove(key) else { return };
        for f in &old.deps {
            if let Some(set) = self.by_file.get_mut(f) {
                set.remove(key);
                if set.is_empty() {
                    self.by_file.remove(f);
                }
            }
        }
        self.unreported.extend(old.reported_files());
    }

    fn insert(&mut self, key: RootKey, entry: RootEntry) {
        for f in &entry.deps {
            self.by_file.entry(f.clone()).or_default().insert(key.clone());
        }
        self.unreported.extend(entry.reported_files());
        self.roots.insert(key, entry);
    }

    /// Whether the highstate diagnostics are those of the input's minion, with no change since.
    pub(crate) fn highstate_is_current(&self, input: &Input<'_>) -> bool {
        self.highstate.is_current(input.world, input.minion)
    }

    /// Brings the highstate diagnostics up to the input's minion (after [`Index::update`]).
    pub(crate) fn refresh_highstate(&mut self, input: &Input<'_>) {
        self.highstate.refresh(input.world, input.files, input.minion, &mut self.unreported);
    }

    /// The semantic diagnostics of one file, normalised: those of every root whose closure
    /// renders it, the top-file checks, and the highstate's that neither already reports (the
    /// same code at the same place).
    pub(crate) fn diagnostics(&self, path: &Path) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = Vec::new();
        for key in self.by_file.get(path).into_iter().flatten() {
            if let Some(entry) = self.roots.get(key) {
                out.extend(entry.diagnostics.iter().filter(|d| d.file == path).cloned());
            }
        }
        out.extend(self.tops.iter().filter(|d| d.file == path).cloned());
        out.extend(self.params.iter().filter(|d| d.file == path).cloned());
        let highstate = self.highstate.diagnostics(path);
        if !highstate.is_empty() {
            let known: HashSet<(usize, Code)> = out.iter().map(|d| (d.span.start, d.code)).collect();
            out.extend(highstate.iter().filter(|d| !known.contains(&(d.span.start, d.code))).cloned());
        }
        normalize(&mut out);
        out
    }

    /// Files whose diagnostics may differ from when this was last called.
    pub(crate) fn take_unreported(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.unreported).into_iter().collect()
    }

    /// Every file that shares an include closure with `path` (itself included).
    /// Whether some root's check has read `path`.
    pub(crate) fn knows(&self, path: &Path) -> bool {
        self.by_file.contains_key(path)
    }

    pub(crate) fn neighbourhood(&self, path: &Path) -> Vec<PathBuf> {
        let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
        seen.insert(path.to_path_buf());
        for key in self.by_file.get(path).into_iter().flatten() {
            if let Some(e) = self.roots.get(key) {
                seen.extend(e.closure.iter().cloned());
            }
        }
        seen.into_iter().collect()
    }

    /// The entry of a root file in an environment.
    pub(crate) fn root(&self, env: &str, rel: &str) -> Option<&RootEntry> {
        self.roots.get(&(env.to_string(), rel.to_string()))
    }
}

/// A root to check, with the session (and the reads) of its last check when it can be
/// rechecked.
struct Todo {
    key: RootKey,
    path: PathBuf,
    session: Option<(Box<Session>, Reads)>,
}

/// Checks the given roots, on every core when there are many (rayon's pool: its threads, and
/// their allocator caches, outlive one update). Stops early (returning fewer results) when
/// `cancelled` turns true. Each result says whether the root was rechecked from its session.
fn compute_all(input: &Input<'_>, todo: Vec<Todo>, cancelled: &(dyn Fn() -> bool + Sync)) -> Vec<(RootKey, RootEntry, bool)> {
    use rayon::prelude::*;
    let one = |t: Todo| {
        if cancelled() {
            return None;
        }
        // A panicking check loses its root; the result is then incomplete, which callers
        // treat like a cancellation and retry.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (entry, rechecked) = compute_root(input, &t.key, &t.path, t.session);
            (t.key.clone(), entry, rechecked)
        }))
        .ok()
    };
    if todo.len() < 2 {
        return todo.into_iter().filter_map(one).collect();
    }
    todo.into_par_iter().with_max_len(1).filter_map(one).collect()
}

/// The root's entry, and whether it came from a recheck of `session`.
fn compute_root(input: &Input<'_>, key: &RootKey, path: &Path, session: Option<(Box<Session>, Reads)>) -> (RootEntry, bool) {
    let world = input.world;
    let (env, rel) = key;
    // A recheck changes one state's body: what the root's includes resolve to, hence what its
    // first check asked of the file roots, stays as it was.
    let rechecked = session.and_then(|(mut s, reads)| world.ctx.recheck_root(input.files, &world.ws, &mut s).map(|check| (check, s, reads)));
    let (check, session, reads, rechecked) = match rechecked {
        Some((check, s, reads)) => (check, Some(s), reads, true),
        None => {
            let recorder = Recorder::new(input.files as &dyn Vfs);
            let (check, s) = world.ctx.check_root_kept(&recorder, &world.ws, env, rel, path, KEEP_FROM);
            (check, s.map(Box::new), recorder.reads(), false)
        }
    };
    let mut deps: Vec<PathBuf> = check.closure.clone();
    for p in reads.paths().chain(std::iter::once(path)).chain(check.diagnostics.iter().map(|d| d.file.as_path())) {
        if !deps.iter().any(|d| d == p) {
            deps.push(p.to_path_buf());
        }
    }
    (RootEntry { path: path.to_path_buf(), diagnostics: check.diagnostics, closure: check.closure, deps, reads, session }, rechecked)
}
