//! Diagnostics as the editor shows them: syntax errors from the open document's tree, the
//! cross-file checks from the index, configuration errors, and moving old diagnostics along
//! with the edits made since they were computed.

use std::ops::Range;
use std::path::Path;

use model::diagnostic::Code;

use crate::findings::{apply_policy, from_model};
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
        })
        .collect()
}

pub(crate) fn semantic(snap: &Snapshot, path: &Path) -> Cancellable<Vec<Diagnostic>> {
    let found = snap.with_highstate(|idx| {
        let mut found = idx.diagnostics(path);
        // A templated file outside the minion's highstate: what applying it alone would say.
        found.extend(idx.highstate.alone(&snap.world, &snap.files, snap.minion.as_deref(), path));
        found
    })?;
    // The YAML loader and the incremental tree report the same broken text; when the tree
    // already reports it at once, the loader's copy is noise.
    let has_syntax = snap.docs.get(path).is_some_and(|d| !d.syntax.is_empty());
    let text = snap.text(path).unwrap_or_default();
    let mut out: Vec<Diagnostic> = found
        .into_iter()
        .filter(|d| !(has_syntax && d.code == Code::YamlSyntax))
        .filter(|d| !crate::explain::state_docs::known_to_salt(snap, d))
        .map(|d| from_model(&text, &d, String::new()))
        .collect();
    // A remote that is not served, at its line of the configuration.
    out.extend(snap.world().remote_problems.iter().filter(|d| d.file == path).map(|d| from_model(&text, d, String::new())));
    if let Some(e) = &snap.world().config_error {
        if e.path == path {
            let range = config_line_range(snap, path, e.line);
            out.insert(
                0,
                Diagnostic {
                    range,
                    severity: Severity::Error,
                    code: "config".to_string(),
                    message: format!("{}; the workspace root is analysed as `base` until this is fixed", e.message),
                    related: Vec::new(),
                },
            );
        }
    }
    // salt-lint's text rules, on the file as written.
    let world = snap.world();
    let rel = path.strip_prefix(&world.root).unwrap_or(path).to_string_lossy().replace('\\', "/");
    out.extend(model::check::style::lint(path, &text, &world.ws.rules, &rel).iter().map(|d| from_model(&text, d, String::new())));
    // `# salt-analyzer: disable=CODE` directives and `rules:`. The editor sees the picked
    // minion's findings only, so of the codes that silence nothing it reports those that are
    // no code (`check` judges them all).
    apply_policy(snap, path, &text, &mut out, true);
    // A deprecated state once, as `check` says it (`style::said_better`): not salt-lint's
    // deprecation where a reported compile finding already names the state function.
    let better: Vec<Range<usize>> =
        out.iter().filter(|d| matches!(d.code.as_str(), "unknown-function" | "not-in-core" | "deprecated-function")).map(|d| d.range.clone()).collect();
    out.retain(|d| d.code != Code::DeprecatedState.as_str() || !better.iter().any(|s| s.start < d.range.end && d.range.start < s.end));
    Ok(out)
}

/// The byte range of a configuration error's 1-based line, without its break (`0`, meaning
/// no line is known, or past the end: the start of the text).
fn config_line_range(snap: &Snapshot, path: &Path, line: usize) -> Range<usize> {
    let zero_based = line.checked_sub(1).and_then(|l| u32::try_from(l).ok());
    zero_based.and_then(|l| snap.line_index(path)?.line_range(l)).unwrap_or(0..0)
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifting_follows_edits() {
        let d = |r: Range<usize>| Diagnostic { range: r, severity: Severity::Error, code: "x".into(), message: String::new(), related: Vec::new() };
        let mut ds = vec![d(0..2), d(5..8), d(10..12)];
        shift_diagnostics(&mut ds, &[(Some(3..3), "ab".into()), (Some(7..9), String::new())]);
        let ranges: Vec<_> = ds.iter().map(|d| d.range.clone()).collect();
        assert_eq!(ranges, [0..2, 7..8, 10..12]);
        shift_diagnostics(&mut ds, &[(None, "new".into())]);
        assert!(ds.is_empty());
    }
}
