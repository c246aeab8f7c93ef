//! `Snapshot`: one revision of the analysis, read-only, and what every query reads from it:
//! the files (open buffers over the disk), the world, per-file summaries, the cross-file index
//! brought up to this revision, and the selected minion compiled through the one pipeline
//! ([`Snapshot::compile`]). Queries (`crate::resolve`, `crate::explain`, `crate::features`) take a `&Snapshot`;
//! [`crate::Analysis`] only hands it to them.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use syntax::document::{SyntaxError, YamlTree};
use syntax::line_index::LineIndex;

use crate::index::semantic::{Index, IndexStats, Input};
use crate::inputs::changes::ChangeLog;
use crate::inputs::docs::DocsStatus;
use crate::inputs::document::BlockDocument;
use crate::inputs::files::Files;
use crate::inputs::summaries::{FileSummary, Summaries};
use crate::inputs::world::World;
use crate::types::*;

/// An open document as a snapshot sees it.
pub(crate) struct DocSnapshot {
    pub(crate) version: i32,
    pub(crate) text: Arc<str>,
    pub(crate) syntax: Vec<SyntaxError>,
    pub(crate) line_index: OnceLock<Arc<LineIndex>>,
    /// The YAML tree of each block (`inputs::document`), with the block's start offset.
    pub(crate) trees: Arc<[(usize, Arc<YamlTree>)]>,
}

/// State shared by the host and its snapshots.
pub(crate) struct Shared {
    pub(crate) log: Mutex<ChangeLog>,
    pub(crate) index: Mutex<Index>,
    pub(crate) summaries: Summaries,
    /// What queries keep from one revision to the next (the fleet's tops, the last impact
    /// report), one value of each type, made on first use.
    pub(crate) caches: Caches,
}

/// One value of each type, made on first use: the queries' own caches, which this layer
/// does not need to know.
#[derive(Default)]
pub(crate) struct Caches(Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl Shared {
    /// The cache of type `T`.
    pub(crate) fn cache<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let mut map = self.caches.0.lock().unwrap_or_else(|p| p.into_inner());
        let any = map.entry(TypeId::of::<T>()).or_insert_with(|| Arc::new(T::default())).clone();
        any.downcast::<T>().unwrap_or_else(|_| Arc::new(T::default()))
    }
}

pub(crate) struct Snapshot {
    pub(crate) revision: u64,
    pub(crate) world: Arc<World>,
    pub(crate) files: Files,
    pub(crate) docs: HashMap<PathBuf, Arc<DocSnapshot>>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) current: Arc<AtomicU64>,
    pub(crate) minion: Option<String>,
    pub(crate) state_docs: Arc<DocsStatus>,
}

impl DocSnapshot {
    pub(crate) fn new(doc: &BlockDocument, version: i32) -> DocSnapshot {
        let text: Arc<str> = Arc::from(doc.text());
        let syntax: Vec<SyntaxError> = doc.syntax_errors();
        DocSnapshot { version, text, syntax, line_index: OnceLock::<Arc<LineIndex>>::new(), trees: doc.yaml_trees().into() }
    }
}

impl Snapshot {
    /// Whether the host has moved on since this snapshot was taken.
    pub(crate) fn is_stale(&self) -> bool {
        self.current.load(Ordering::SeqCst) > self.revision
    }

    /// The workspace root.
    pub(crate) fn root(&self) -> &Path {
        &self.world.root
    }

    /// The text of a file: the open buffer, else the disk's.
    pub(crate) fn text(&self, path: &Path) -> Option<Arc<str>> {
        self.files.text(path)
    }

    /// Whether `path` is over the file size limit: the analysis reads it as unreadable
    /// (`model::workspace::vfs::MAX_FILE_BYTES`), and the queries on it answer nothing.
    pub(crate) fn too_large(&self, path: &Path) -> bool {
        self.text(path).is_some_and(|t| t.len() > model::workspace::vfs::MAX_FILE_BYTES)
    }

    /// The editor's version of an open document.
    pub(crate) fn document_version(&self, path: &Path) -> Option<i32> {
        self.docs.get(path).map(|d| d.version)
    }

    /// The open documents, sorted.
    pub(crate) fn open_documents(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.docs.keys().cloned().collect();
        v.sort();
        v
    }

    /// The line index of a file's current text (built once per open-document revision).
    pub(crate) fn line_index(&self, path: &Path) -> Option<Arc<LineIndex>> {
        if let Some(doc) = self.docs.get(path) {
            return Some(doc.line_index.get_or_init(|| Arc::new(LineIndex::new(&doc.text))).clone());
        }
        let text = self.text(path)?;
        Some(Arc::new(LineIndex::new(&text)))
    }

    /// The YAML trees of a file's top-level blocks, each with the offset where its block
    /// starts: an open document's as its edits left them, another file's parsed now.
    pub(crate) fn yaml_trees(&self, path: &Path) -> Arc<[(usize, Arc<YamlTree>)]> {
        if let Some(doc) = self.docs.get(path) {
            return doc.trees.clone();
        }
        match self.text(path) {
            Some(text) => BlockDocument::new(&text).yaml_trees().into(),
            None => Arc::from(Vec::new()),
        }
    }

    /// Every SLS and top file of the workspace, in every environment.
    pub(crate) fn workspace_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.world.roots.iter().map(|(_, _, p)| p.clone()).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The profile id in force: the one selected, else the workspace default.
    pub(crate) fn selected_minion(&self) -> Option<String> {
        self.minion.clone().or_else(|| self.world.ws.default_minion.clone())
    }

    /// `minion` (a profile or a fleet minion; `None`: the selected one) compiled for `scope`
    /// through the one pipeline, reading `files` (the snapshot's, or a fork a query changed),
    /// with the workspace's memo.
    pub(crate) fn compile_for(&self, minion: Option<&str>, files: Files, scope: model::pipeline::Scope) -> model::pipeline::Compiled {
        self.compile_in(minion, files, scope, &self.world().ctx.memo)
    }

    /// [`Snapshot::compile_for`] keeping what it computes in `memo` (a run over the fleet:
    /// one that shares compiles between its minions, on this snapshot only).
    pub(crate) fn compile_in(
        &self,
        minion: Option<&str>,
        files: Files,
        scope: model::pipeline::Scope,
        memo: &model::pipeline::Memo,
    ) -> model::pipeline::Compiled {
        let world = self.world();
        let name = minion.map(str::to_string).or_else(|| self.selected_minion());
        let req = model::pipeline::Request { minion: world.who(name.as_deref()), saltenv: None, scope };
        model::pipeline::compile_with(Arc::new(files), &world.ws, &world.ctx.roots, &req, memo)
    }

    /// The selected minion compiled for `scope` over this snapshot's files.
    pub(crate) fn compile(&self, scope: model::pipeline::Scope) -> model::pipeline::Compiled {
        self.compile_for(None, self.files.fork(), scope)
    }

    pub(crate) fn world(&self) -> &World {
        &self.world
    }

    pub(crate) fn summary(&self, path: &Path) -> Option<Arc<FileSummary>> {
        self.shared.summaries.get(&self.world, &self.files, path)
    }

    /// How many roots the cross-file index has checked from scratch and rechecked from a kept
    /// session so far, without bringing it up to this snapshot first (for tests and debugging).
    pub(crate) fn index_stats(&self) -> IndexStats {
        match self.shared.index.lock() {
            Ok(idx) => idx.stats,
            Err(poisoned) => poisoned.into_inner().stats,
        }
    }

    /// Brings the index up to date and returns the files whose diagnostics may have changed
    /// since the last call (every file with diagnostics, the first time), the selected
    /// minion's highstate included (so selecting another minion reports the files whose
    /// highstate diagnostics come or go).
    pub(crate) fn take_changed_files(&self) -> Cancellable<Vec<PathBuf>> {
        let mut out = self.with_index_mut(true, |idx| idx.take_unreported())?;
        if let Some(e) = &self.world.config_error {
            out.push(e.path.clone());
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Runs `f` on the index brought up to this snapshot's revision.
    pub(crate) fn with_index<T>(&self, f: impl FnOnce(&Index) -> T) -> Cancellable<T> {
        self.with_index_mut(false, |idx| f(idx))
    }

    /// [`Snapshot::with_index`], with the highstate diagnostics brought up to this snapshot's
    /// minion too (only diagnostics and the run order of a state-ID hover need them: other
    /// queries never wait for a compile).
    pub(crate) fn with_highstate<T>(&self, f: impl FnOnce(&mut Index) -> T) -> Cancellable<T> {
        self.with_index_mut(true, f)
    }

    /// The index as the last query left it, without bringing it up to this snapshot: for
    /// answers that may lag a keystroke (which files include which, for completion), where
    /// waiting for a recheck would cost more than the answer is worth.
    pub(crate) fn with_index_as_is<T>(&self, f: impl FnOnce(&Index) -> T) -> T {
        let idx = self.shared.index.lock().unwrap_or_else(|p| p.into_inner());
        f(&idx)
    }

    fn with_index_mut<T>(&self, highstate: bool, f: impl FnOnce(&mut Index) -> T) -> Cancellable<T> {
        let mut idx = match self.shared.index.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                // A query panicked while updating the index: its state may be half-updated, so
                // start again from nothing rather than answer from it.
                let mut guard = poisoned.into_inner();
                *guard = Index::default();
                self.shared.index.clear_poison();
                guard
            }
        };
        let input = Input {
            revision: self.revision,
            world: &self.world,
            files: &self.files,
            summaries: &self.shared.summaries,
            log: &self.shared.log,
            current: &self.current,
            minion: self.minion.as_deref(),
        };
        idx.update(&input)?;
        if highstate && !idx.highstate_is_current(&input) {
            if self.is_stale() {
                // A newer revision will compile the highstate it needs; this one's would be
                // thrown away.
                return Err(Cancelled);
            }
            idx.refresh_highstate(&input);
        }
        Ok(f(&mut idx))
    }
}
