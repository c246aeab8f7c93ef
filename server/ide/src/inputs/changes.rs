//! The change log: what changed at each revision (an edit, files created or deleted, a new
//! configuration), kept until the cross-file index has replayed it.

use std::path::PathBuf;

/// What changed at a revision.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    /// The text of a file changed (an edit, an open with other text, a save on disk).
    Content(PathBuf),
    /// Files were created or deleted.
    Layout(Vec<PathBuf>),
    /// The configuration changed: everything is recomputed.
    Reset,
    /// Nothing to recompute, but how diagnostics are shown changed (Salt's docs arrived):
    /// every file with diagnostics is reported again.
    Republish,
    /// The pillars were forgotten (the refresh command): the minions' compiles are redone,
    /// the per-file checks (which no pillar reaches) are kept.
    Pillar,
}

/// Changes not yet replayed into the index, by revision.
#[derive(Default)]
pub(crate) struct ChangeLog {
    entries: Vec<(u64, Change)>,
}

impl ChangeLog {
    pub(crate) fn push(&mut self, revision: u64, change: Change) {
        self.entries.push((revision, change));
    }
    pub(crate) fn between(&self, after: u64, upto: u64) -> Vec<Change> {
        self.entries.iter().filter(|(r, _)| *r > after && *r <= upto).map(|(_, c)| c.clone()).collect()
    }
    pub(crate) fn trim(&mut self, upto: u64) {
        self.entries.retain(|(r, _)| *r > upto);
    }
}
