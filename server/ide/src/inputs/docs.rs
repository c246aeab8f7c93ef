//! Salt's documentation of the state functions, an input of the snapshot: the edge asks the
//! user's Salt (`sys.state_doc`) and hands the answer to the host.

use std::collections::HashMap;
use std::sync::Arc;

/// Salt's documentation of the state functions of one Salt installation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateDocs {
    /// The Salt version that answered, such as `3008.4`.
    pub salt_version: String,
    /// `sys.state_doc`'s answer: `"pkg.installed"` (and `"pkg"`, the module) to its docstring.
    pub docs: HashMap<String, String>,
}

/// Where the documentation stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocsStatus {
    /// Not asked for; the text says why and how to get it.
    Off(String),
    /// Being asked of Salt (the text says how).
    Loading(String),
    Ready(Arc<StateDocs>),
    /// Salt could not answer; the text says what failed.
    Failed(String),
}

impl Default for DocsStatus {
    fn default() -> DocsStatus {
        DocsStatus::Off("no Salt was asked for documentation".into())
    }
}
