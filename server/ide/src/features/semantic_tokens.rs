//! Semantic tokens (`textDocument/semanticTokens/full`, `/range`; the edge computes deltas):
//! every word of an SLS or top file classified (`crate::classify`), so any theme colours Salt.

use std::ops::Range;
use std::path::Path;

use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn semantic_tokens(snap: &Snapshot, path: &Path, range: Option<Range<usize>>) -> Vec<SemanticToken> {
    crate::classify::classify(snap, path, range)
}

#[cfg(test)]
mod tests;
