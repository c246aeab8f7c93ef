//! `Analysis`: the editor's handle on one revision, cheap to clone and to send to another
//! thread. Every query is a one-line delegation to the module that answers it
//! (`crate::features`, `crate::explain`, `crate::resolve`) with the [`Snapshot`], as rust-analyzer's `ide` does.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use model::version::SaltVersion;
use syntax::line_index::LineIndex;

use crate::explain::top_files;
use crate::features::call_hierarchy::{HierarchyCall, HierarchyItem};
use crate::features::completion::CompletionItem;
use crate::features::fleet::FleetCheck;
use crate::features::impact::{ImpactBase, ImpactReport};
use crate::features::inlay_hints::{InlayConfig, InlayHint};
use crate::features::{
    call_hierarchy, code_actions, completion, diagnostics, fleet, folding, highlight, hover, impact, inlay_hints, links, navigation, rename, rename_files,
    selection, semantic_tokens, signature_help, symbols,
};
use crate::index::semantic::IndexStats;
use crate::snapshot::Snapshot;
use crate::types::*;

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
        self.snap.is_stale()
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        self.snap.root()
    }

    /// The text of a file: the open buffer, else the disk's.
    pub fn text(&self, path: &Path) -> Option<Arc<str>> {
        self.snap.text(path)
    }

    /// The editor's version of an open document.
    pub fn document_version(&self, path: &Path) -> Option<i32> {
        self.snap.document_version(path)
    }

    /// The open documents, sorted.
    pub fn open_documents(&self) -> Vec<PathBuf> {
        self.snap.open_documents()
    }

    /// The line index of a file's current text (built once per open-document revision).
    pub fn line_index(&self, path: &Path) -> Option<Arc<LineIndex>> {
        self.snap.line_index(path)
    }

    /// Every SLS and top file of the workspace, in every environment.
    pub fn workspace_files(&self) -> Vec<PathBuf> {
        self.snap.workspace_files()
    }

    /// Syntax errors of an open document, from its incremental tree (immediate, no index).
    pub fn syntax_diagnostics(&self, path: &Path) -> Vec<Diagnostic> {
        diagnostics::syntax(&self.snap, path)
    }

    /// Cross-file diagnostics of a file: those of every include closure that renders it, the
    /// top-file checks, the selected minion's highstate, and configuration errors.
    pub fn diagnostics(&self, path: &Path) -> Cancellable<Vec<Diagnostic>> {
        diagnostics::semantic(&self.snap, path)
    }

    /// Brings the index up to date and returns the files whose diagnostics may have changed
    /// since the last call (every file with diagnostics, the first time), the selected
    /// minion's highstate included (so selecting another minion reports the files whose
    /// highstate diagnostics come or go).
    pub fn take_changed_files(&self) -> Cancellable<Vec<PathBuf>> {
        self.snap.take_changed_files()
    }

    /// Where the item at `offset` leads: an include or top entry to its file, a requisite
    /// to the declarations it names, an extend key to the extended ID, a URL to its file.
    pub fn goto_definition(&self, path: &Path, offset: usize) -> Cancellable<Vec<NavTarget>> {
        navigation::goto_definition(&self.snap, path, offset)
    }

    /// Everything that refers to the state ID or SLS at `offset`.
    pub fn references(&self, path: &Path, offset: usize, include_declaration: bool) -> Cancellable<Vec<FileRange>> {
        navigation::references(&self.snap, path, offset, include_declaration)
    }

    /// The state declared or named at `offset`, as call hierarchy items (see
    /// `features/call_hierarchy.rs`).
    pub fn call_hierarchy_prepare(&self, path: &Path, offset: usize) -> Cancellable<Vec<HierarchyItem>> {
        call_hierarchy::prepare(&self.snap, path, offset)
    }

    /// The states that depend on `item` by requisite (and the extends of it).
    pub fn call_hierarchy_incoming(&self, item: &HierarchyItem) -> Cancellable<Vec<HierarchyCall>> {
        call_hierarchy::incoming(&self.snap, item)
    }

    /// The states `item` depends on by requisite.
    pub fn call_hierarchy_outgoing(&self, item: &HierarchyItem) -> Cancellable<Vec<HierarchyCall>> {
        call_hierarchy::outgoing(&self.snap, item)
    }

    /// The range of the state ID at `offset` and the ID, when it can be renamed there; else
    /// why not (see `features/rename.rs`).
    pub fn prepare_rename(&self, path: &Path, offset: usize) -> Cancellable<Result<(Range<usize>, String), String>> {
        rename::prepare_rename(&self.snap, path, offset)
    }

    /// The edits that rename the state ID at `offset`, or why it cannot be renamed.
    pub fn rename(&self, path: &Path, offset: usize, new_name: &str) -> Cancellable<Result<SourceChange, String>> {
        rename::rename(&self.snap, path, offset, new_name)
    }

    /// The edits that keep every reference to the files and directories that move (each
    /// `(old, new)`) loading them, to apply before the move (see `features/rename_files.rs`).
    pub fn will_rename_files(&self, moves: &[(PathBuf, PathBuf)]) -> Cancellable<SourceChange> {
        rename_files::rename_files(&self.snap, moves)
    }

    /// The outline of a file.
    pub fn document_symbols(&self, path: &Path) -> Vec<DocumentSymbol> {
        symbols::document_symbols(&self.snap, path)
    }

    /// IDs and SLS names of every environment matching `query` (case-insensitive, in order).
    pub fn workspace_symbols(&self, query: &str) -> Vec<WorkspaceSymbol> {
        symbols::workspace_symbols(&self.snap, query)
    }

    /// What the item at `offset` is and where it comes from.
    pub fn hover(&self, path: &Path, offset: usize) -> Cancellable<Option<HoverResult>> {
        hover::hover(&self.snap, path, offset)
    }

    /// The rendered values of the Jinja blocks of `path` that end in `range`, for the selected
    /// minion (see `features/inlay_hints.rs`).
    pub fn inlay_hints(&self, path: &Path, range: Range<usize>, config: InlayConfig) -> Cancellable<Vec<InlayHint>> {
        inlay_hints::inlay_hints(&self.snap, path, range, config)
    }

    /// What may be typed at `offset` (see `features/completion.rs` for the contexts).
    pub fn completions(&self, path: &Path, offset: usize) -> Cancellable<Vec<CompletionItem>> {
        completion::completions(&self.snap, path, offset)
    }

    /// What each word of a file is, for colouring (`range`: only the tokens meeting it).
    pub fn semantic_tokens(&self, path: &Path, range: Option<Range<usize>>) -> Vec<SemanticToken> {
        semantic_tokens::semantic_tokens(&self.snap, path, range)
    }

    /// The places of a file that open another file: `salt://` URLs, includes, top entries,
    /// template imports.
    pub fn document_links(&self, path: &Path) -> Vec<DocumentLink> {
        links::document_links(&self.snap, path)
    }

    /// The YAML and Jinja blocks and comments of a file that can be folded.
    pub fn folding_ranges(&self, path: &Path) -> Vec<Fold> {
        folding::folding_ranges(&self.snap, path)
    }

    /// For each offset, the ranges around it, innermost first.
    pub fn selection_ranges(&self, path: &Path, offsets: &[usize]) -> Vec<Vec<Range<usize>>> {
        selection::selection_ranges(&self.snap, path, offsets)
    }

    /// The places of the file that name what is at `offset`.
    pub fn document_highlight(&self, path: &Path, offset: usize) -> Vec<Highlight> {
        highlight::document_highlight(&self.snap, path, offset)
    }

    /// The signature of the state function whose arguments are typed at `offset`.
    pub fn signature_help(&self, path: &Path, offset: usize) -> Option<SignatureHelp> {
        signature_help::signature_help(&self.snap, path, offset)
    }

    /// Mechanical fixes available in `range`.
    pub fn code_actions(&self, path: &Path, range: Range<usize>) -> Cancellable<Vec<CodeAction>> {
        code_actions::code_actions(&self.snap, path, range)
    }

    /// The minion profiles of the workspace, with the selected one.
    pub fn minions(&self) -> Vec<MinionInfo> {
        top_files::minions(&self.snap)
    }

    /// The Salt release the workspace answers for and where it came from (`{"version": "3008",
    /// "source": ...}`; a minion's own `saltversioninfo` grain may go over it: [`Self::minions`]).
    pub fn salt_release(&self) -> serde_json::Value {
        let opts = &self.snap.world().ws.opts;
        serde_json::json!({"version": opts.version.to_string(), "source": opts.version_source.to_string()})
    }

    /// What zero configuration found for this workspace, in one line (`None`: the workspace
    /// file or a Salt configuration says where the states are).
    pub fn discovery(&self) -> Option<String> {
        let world = self.snap.world();
        world.ws.discovery.as_ref().map(|d| d.summary(&world.root))
    }

    /// The file and pillar roots zero configuration found, when it was used.
    #[allow(clippy::type_complexity)]
    pub fn discovered_roots(&self) -> Option<(Vec<(String, Vec<PathBuf>)>, Vec<(String, Vec<PathBuf>)>)> {
        let world = self.snap.world();
        let pairs = |r: &model::workspace::discover::Roots| r.iter().map(|(e, d)| (e.clone(), d.clone())).collect();
        world.ws.discovery.as_ref().map(|d| (pairs(&world.ws.opts.file_roots), pairs(&d.pillar_roots)))
    }

    /// The `top --explain` text for a minion (`None`: the selected one).
    pub fn top_explain(&self, minion: Option<&str>) -> String {
        top_files::explain(&self.snap, minion)
    }

    /// Every minion's highstate at `base` against this snapshot's files, grouped; with `to`,
    /// the snapshot's side compiles on that Salt release.
    pub fn impact(&self, base: &ImpactBase, to: Option<SaltVersion>) -> Cancellable<Arc<ImpactReport>> {
        impact::report(&self.snap, base, to)
    }

    /// The impact code lens of a file that differs from `base` (`None` when it does not).
    pub fn impact_lens(&self, path: &Path, base: &ImpactBase, to: Option<SaltVersion>) -> Cancellable<Option<String>> {
        impact::lens(&self.snap, path, base, to)
    }

    /// The fleet's code lenses of a file (byte offset, title): how many fleet minions each
    /// top-file target matches, or get an SLS file from the top.
    pub fn fleet_lenses(&self, path: &Path) -> Cancellable<Vec<(usize, String)>> {
        fleet::lenses(&self.snap, path)
    }

    /// Every fleet minion's highstate checked, findings by file (the "Check Fleet" command).
    pub fn check_fleet(&self) -> Cancellable<FleetCheck> {
        fleet::check(&self.snap)
    }

    /// How many roots the cross-file index has checked from scratch and rechecked from a kept
    /// session so far, without bringing it up to this snapshot first (for tests and debugging).
    pub fn index_stats(&self) -> IndexStats {
        self.snap.index_stats()
    }
}
