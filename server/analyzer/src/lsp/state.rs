//! The server's mutable state and how it is reached: [`State`] behind one mutex ([`lock`],
//! never held across an `.await`), what the client negotiated ([`ClientFlags`]) and the user's
//! settings ([`Settings`], [`SaltCall`]).

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use ide::AnalysisHost;
use syntax::line_index::PositionEncoding;

/// What the client told us in `initialize` that changes how we answer.
#[derive(Debug, Clone, Copy)]
pub struct ClientFlags {
    pub encoding: PositionEncoding,
    pub work_done_progress: bool,
    pub dynamic_watchers: bool,
    pub resource_create: bool,
    /// The client applies file renames in an edit's document changes.
    pub resource_rename: bool,
    pub status_notification: bool,
    /// Say in a `window/showMessage` what zero configuration found (initialization option
    /// `firstRunMessage`, on unless `false`: the VS Code extension says it with its own offer).
    pub first_run_message: bool,
    pub pull_diagnostics: bool,
    /// The client takes `workspace/inlayHint/refresh` (sent when the minion changes).
    pub inlay_refresh: bool,
    pub hierarchical_symbols: bool,
}

/// The user's settings (initialization options or the `salt-analyzer` configuration section).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub minion: Option<String>,
    pub salt_config: Option<PathBuf>,
    /// `impact.toSaltVersion`: the release the impact lens and report compile the changes on.
    pub impact_to: Option<model::version::SaltVersion>,
    /// `inlayHints.{values,conditions,loops,sets}`: which rendered values are shown inline.
    pub inlay: ide::InlayConfig,
    /// Settings given with a value the server cannot use, said once in the log.
    pub problems: Vec<String>,
    /// Which `salt-call` to ask for Salt's documentation (read at start).
    pub salt_call: SaltCall,
}

/// The `saltCall` setting.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SaltCall {
    /// `salt-call` on the `PATH`.
    #[default]
    OnPath,
    /// A path the user gave.
    At(PathBuf),
    /// `false`: never run Salt.
    Off,
}

/// Mutable server state; the lock is never held across an `.await`.
pub(crate) struct State {
    pub(crate) host: Option<AnalysisHost>,
    pub(crate) flags: ClientFlags,
    /// The semantic diagnostics last published per file, in byte ranges of the text they were
    /// computed for, moved along with every edit since (shown with fresh syntax errors until
    /// the next round replaces them).
    pub(crate) semantic: std::collections::HashMap<PathBuf, Vec<ide::Diagnostic>>,
    /// The last "Check Fleet" findings by file, published with each file's own diagnostics
    /// until the command runs again.
    pub(crate) fleet: std::collections::HashMap<PathBuf, Vec<ide::Diagnostic>>,
    pub(crate) initial_settings: Settings,
    /// The impact lens's and report's target release (the `impact.toSaltVersion` setting).
    pub(crate) impact_to: Option<model::version::SaltVersion>,
    /// Which inlay hints are shown (the `inlayHints` settings).
    pub(crate) inlay: ide::InlayConfig,
    /// The semantic tokens last sent for each document, with their result id (a delta
    /// request is answered against them).
    pub(crate) tokens: std::collections::HashMap<PathBuf, (String, Vec<tower_lsp::lsp_types::SemanticToken>)>,
    /// The last result id given out.
    pub(crate) tokens_id: u64,
}

pub(crate) fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A handler that panicked while holding the lock left the host as it was mid-change;
    // serving from it beats refusing every later message.
    state.lock().unwrap_or_else(|p| p.into_inner())
}
