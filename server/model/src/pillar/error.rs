//! A pillar error: what Salt puts under `_errors`, and the diagnostic with its place. Below
//! the compile and the top files, which both report them.

use crate::diagnostic::SaltError;

/// A pillar error: the text Salt puts under `_errors` (none for what Salt does not report,
/// such as a renderer salt-analyzer never runs), and the diagnostic with its place.
#[derive(Debug, Clone)]
pub struct PillarError {
    pub salt: Option<String>,
    pub diag: SaltError,
    /// `salt` arrived in the pillar data (an `_errors` a git_pillar remote's own compile
    /// returned), not in this compile's errors: it is the pillar's `_errors` only while this
    /// compile has none of its own.
    pub carried: bool,
}

impl PillarError {
    pub fn new(salt: impl Into<String>, diag: SaltError) -> PillarError {
        PillarError { salt: Some(salt.into()), diag, carried: false }
    }
}
