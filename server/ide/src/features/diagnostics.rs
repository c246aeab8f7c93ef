//! Diagnostics as the editor shows them: syntax errors from the open document's tree, the
//! cross-file checks from the index, configuration errors, and moving old diagnostics along
//! with the edits made since they were computed.

use std::ops::Range;
use std::path::Path;

use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn syntax(snap: &Snapshot, path: &Path) -> Vec<Diagnostic> {
    // A custom module (`_states/*.py`) is read for its signatures, never as YAML.
    if path.extension().is_some_and(|e| e == "py") {
        return Vec::new();
    }
    let Some(doc) = snap.docs.get(path) else { return Vec::new() };
    doc.syntax
        .iter()
        .map(|e| Diagnostic {
            range: e.range.clone(),
            severity: Severity::Error,
            code: "syntax".to_string(),
            message: format!("YAML syntax: {}", e.message),
            related: Vec::new(),
            fix: Vec::new(),
        })
        .collect()
}

/// The cross-file findings of a file for the selected minion (`crate::findings::of_file`).
pub(crate) fn semantic(snap: &Snapshot, path: &Path) -> Cancellable<Vec<Diagnostic>> {
    crate::findings::of_file(snap, path)
}

/// Moves diagnostics computed for an older text along with `edits` (applied in order, as
/// [`crate::AnalysisHost::change`] takes them), so they can be shown until fresh ones arrive.
/// A diagnostic inside a replaced range shrinks to the replacement's start; a whole-text
/// replacement drops them all.
pub fn shift_diagnostics(diagnostics: &mut Vec<Diagnostic>, edits: &[(Option<Range<usize>>, String)]) {
    for (range, text) in edits {
        let Some(range) = range else {
            diagnostics.clear();
            return;
        };
        let removed = range.end.saturating_sub(range.start);
        let map = |o: usize| -> usize {
            if o <= range.start {
                o
            } else if o >= range.end {
                o - removed + text.len()
            } else {
                range.start
            }
        };
        for d in diagnostics.iter_mut() {
            d.range = map(d.range.start)..map(d.range.end);
            for (r, _) in &mut d.fix {
                *r = map(r.start)..map(r.end);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifting_follows_edits() {
        let d = |r: Range<usize>| Diagnostic {
            range: r,
            severity: Severity::Error,
            code: "x".into(),
            message: String::new(),
            related: Vec::new(),
            fix: Vec::new(),
        };
        let mut ds = vec![d(0..2), d(5..8), d(10..12)];
        shift_diagnostics(&mut ds, &[(Some(3..3), "ab".into()), (Some(7..9), String::new())]);
        let ranges: Vec<_> = ds.iter().map(|d| d.range.clone()).collect();
        assert_eq!(ranges, [0..2, 7..8, 10..12]);
        shift_diagnostics(&mut ds, &[(None, "new".into())]);
        assert!(ds.is_empty());
    }
}
