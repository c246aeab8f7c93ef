//! `Analysis`: a cheap, read-only snapshot of one revision, and every query the editor asks
//! of it. Each query lives in its own module; this file only dispatches and owns the
//! snapshot's shared helpers (texts, line indexes, the cross-file index).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use syntax::document::SyntaxError;
use syntax::line_index::LineIndex;

use crate::files::Files;
use crate::host::Shared;
use crate::semantic::{Index, IndexStats, Input};
use crate::summaries::FileSummary;
use crate::types::*;
use crate::world::World;

/// An open document as a snapshot sees it.
pub(crate) struct DocSnapshot {
    pub(crate) version: i32,
    pub(crate) text: Arc<str>,
    pub(crate) syntax: Vec<SyntaxError>,
    pub(crate) line_index: OnceLock<Arc<LineIndex>>,
}

pub(crate) struct Snapshot {
    pub(crate) revision: u64,
    pub(crate) world: Arc<World>,
    pub(crate) files: Files,
    pub(crate) docs: HashMap<PathBuf, Arc<DocSnapshot>>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) current: Arc<AtomicU64>,
    pub(crate) minion: Option<String>,
    pub(crate) state_docs: Arc<crate::statedocs::DocsStatus>,
}

/// A snapshot of the analysis at one revision. Cloning is cheap; it can be sent to another
/// thread. Queries that need the cross-file index return [`Cancelled`] once a newer revision
/// has brought the index past this one.
#[derive(Clone)]
pub struct Analysis {
    pub(crate) snap: Arc<Snapshot>,
}

impl Analysis {
    pub(crate) fn new(snap: Snapshot) -> Analysis {
        Analysis { snap: Arc::new(snap) }
    }

    /// The revision this snapshot is of.
    pub fn revision(&self) -> u64 {
        self.snap.revision
    }

    /// Whether the host has moved on since this snapshot was taken.
    pub fn is_stale(&self) -> bool {
        self.snap.current.load(Ordering::SeqCst) > self.snap.revision
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.snap.world.root
    }

    /// The text of a file: the open buffer, else the disk's.
    pub fn text(&self, path: &Path) -> Option<Arc<str>> {
        self.snap.files.text(path)
    }

    /// The editor's version of an open document.
    pub fn document_version(&self, path: &Path) -> Option<i32> {
        self.snap.docs.get(path).map(|d| d.version)
    }

    /// The open documents, sorted.
    pub fn open_documents(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.snap.docs.keys().cloned().collect();
        v.sort();
        v
    }

    /// The line index of a file's current text (built once per open-document revision).
    pub fn line_index(&self, path: &Path) -> Option<Arc<LineIndex>> {
        if let Some(doc) = self.snap.docs.get(path) {
            return Some(doc.line_index.get_or_init(|| Arc::new(LineIndex::new(&doc.text))).clone());
        }
        let text = self.text(path)?;
        Some(Arc::new(LineIndex::new(&text)))
    }

    /// Every SLS and top file of the workspace, in every environment.
    pub fn workspace_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.snap.world.roots.iter().map(|(_, _, p)| p.clone()).collect();
        v.sort();
        v.dedup();
        v
    }

    /// Syntax errors of an open document, from its incremental tree (immediate, no index).
    pub fn syntax_diagnostics(&self, path: &Path) -> Vec<Diagnostic> {
        crate::diagnostics::syntax(self, path)
    }

    /// Cross-file diagnostics of a file: those of every include closure that renders it, the
    /// top-file checks, the selected minion's highstate, and configuration errors.
    pub fn diagnostics(&self, path: &Path) -> Cancellable<Vec<Diagnostic>> {
        crate::diagnostics::semantic(self, path)
    }

    /// Brings the index up to date and returns the files whose diagnostics may have changed
    /// since the last call (every file with diagnostics, the first time), the selected
    /// minion's highstate included (so selecting another minion reports the files whose
    /// highstate diagnostics come or go).
    pub fn take_changed_files(&self) -> Cancellable<Vec<PathBuf>> {
        let mut out = self.with_index_mut(true, |idx| idx.take_unreported())?;
        if let Some(e) = &self.snap.world.config_error {
            out.push(e.path.clone());
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Where the item at `offset` leads: an include or top entry to its file, a requisite
    /// to the declarations it names, an extend key to the extended ID, a URL to its file.
    pub fn goto_definition(&self, path: &Path, offset: usize) -> Cancellable<Vec<NavTarget>> {
        crate::navigation::goto_definition(self, path, offset)
    }

    /// Everything that refers to the state ID or SLS at `offset`.
    pub fn references(&self, path: &Path, offset: usize, include_declaration: bool) -> Cancellable<Vec<FileRange>> {
        crate::navigation::references(self, path, offset, include_declaration)
    }

    /// The outline of a file.
    pub fn document_symbols(&self, path: &Path) -> Vec<DocumentSymbol> {
        crate::symbols::document_symbols(self, path)
    }

    /// IDs and SLS names of every environment matching `query` (case-insensitive, in order).
    pub fn workspace_symbols(&self, query: &str) -> Vec<WorkspaceSymbol> {
        crate::symbols::workspace_symbols(self, query)
    }

    /// What the item at `offset` is and where it comes from.
    pub fn hover(&self, path: &Path, offset: usize) -> Cancellable<Option<HoverResult>> {
        crate::hover::hover(self, path, offset)
    }

    /// What may be typed at `offset` (see `completion.rs` for the contexts).
    pub fn completions(&self, path: &Path, offset: usize) -> Cancellable<Vec<crate::completion::CompletionItem>> {
        crate::completion::completions(self, path, offset)
    }

    /// Mechanical fixes available in `range`.
    pub fn code_actions(&self, path: &Path, range: Range<usize>) -> Vec<CodeAction> {
        crate::code_actions::code_actions(self, path, range)
    }

    /// The minion profiles of the workspace, with the selected one.
    pub fn minions(&self) -> Vec<MinionInfo> {
        crate::top::minions(self)
    }

    /// The `top --explain` text for a minion (`None`: the selected one).
    pub fn top_explain(&self, minion: Option<&str>) -> String {
        crate::top::explain(self, minion)
    }

    /// Every minion's highstate at `base` against this snapshot's files, grouped.
    pub fn impact(&self, base: &crate::impact::ImpactBase) -> Cancellable<Arc<crate::impact::ImpactReport>> {
        crate::impact::report(self, base)
    }

    /// The impact code lens of a file that differs from `base` (`None` when it does not).
    pub fn impact_lens(&self, path: &Path, base: &crate::impact::ImpactBase) -> Cancellable<Option<String>> {
        crate::impact::lens(self, path, base)
    }

    /// The fleet's code lenses of a file (byte offset, title): how many fleet minions each
    /// top-file target matches, or get an SLS file from the top.
    pub fn fleet_lenses(&self, path: &Path) -> Cancellable<Vec<(usize, String)>> {
        crate::fleet::lenses(self, path)
    }

    /// Every fleet minion's highstate checked, findings by file (the "Check Fleet" command).
    pub fn check_fleet(&self) -> Cancellable<crate::fleet::FleetCheck> {
        crate::fleet::check(self)
    }

    /// How many roots the cross-file index has checked from scratch and rechecked from a kept
    /// session so far, without bringing it up to this snapshot first (for tests and debugging).
    pub fn index_stats(&self) -> IndexStats {
        match self.snap.shared.index.lock() {
            Ok(idx) => idx.stats,
            Err(poisoned) => poisoned.into_inner().stats,
        }
    }

    // Helpers for the query modules.

    /// `minion` (a profile or a fleet minion; `None`: the selected one) compiled for `scope`
    /// through the one pipeline, reading `files` (the snapshot's, or a fork a query changed),
    /// with the workspace's memo.
    pub(crate) fn compile_for(&self, minion: Option<&str>, files: Files, scope: model::pipeline::Scope) -> model::pipeline::Compiled {
        let world = self.world();
        let name = minion.map(str::to_string).or_else(|| crate::top::selected(self));
        let req = model::pipeline::Request { minion: world.who(name.as_deref()), saltenv: None, scope };
        model::pipeline::compile_with(Arc::new(files), &world.ws, &world.ctx.roots, &req, &world.ctx.memo)
    }

    /// The selected minion compiled for `scope` over this snapshot's files.
    pub(crate) fn compile(&self, scope: model::pipeline::Scope) -> model::pipeline::Compiled {
        self.compile_for(None, self.snap.files.fork(), scope)
    }

    pub(crate) fn world(&self) -> &World {
        &self.snap.world
    }

    pub(crate) fn summary(&self, path: &Path) -> Option<Arc<FileSummary>> {
        self.snap.shared.summaries.get(&self.snap.world, &self.snap.files, path)
    }

    /// Runs `f` on the index brought up to this snapshot's revision.
    pub(crate) fn with_index<T>(&self, f: impl FnOnce(&Index) -> T) -> Cancellable<T> {
        self.with_index_mut(false, |idx| f(idx))
    }

    /// [`Analysis::with_index`], with the highstate diagnostics brought up to this snapshot's
    /// minion too (only diagnostics and the run order of a state-ID hover need them: other
    /// queries never wait for a compile).
    pub(crate) fn with_highstate<T>(&self, f: impl FnOnce(&mut Index) -> T) -> Cancellable<T> {
        self.with_index_mut(true, f)
    }

    /// The index as the last query left it, without bringing it up to this snapshot: for
    /// answers that may lag a keystroke (which files include which, for completion), where
    /// waiting for a recheck would cost more than the answer is worth.
    pub(crate) fn with_index_as_is<T>(&self, f: impl FnOnce(&Index) -> T) -> T {
        let idx = self.snap.shared.index.lock().unwrap_or_else(|p| p.into_inner());
        f(&idx)
    }

    fn with_index_mut<T>(&self, highstate: bool, f: impl FnOnce(&mut Index) -> T) -> Cancellable<T> {
        let snap = &self.snap;
        let mut idx = match snap.shared.index.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                // A query panicked while updating the index: its state may be half-updated, so
                // start again from nothing rather than answer from it.
                let mut guard = poisoned.into_inner();
                *guard = Index::default();
                snap.shared.index.clear_poison();
                guard
            }
        };
        let input = Input {
            revision: snap.revision,
            world: &snap.world,
            files: &snap.files,
            summaries: &snap.shared.summaries,
            log: &snap.shared.log,
            current: &snap.current,
            minion: snap.minion.as_deref(),
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
