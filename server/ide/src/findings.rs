//! A model finding as the editor shows it (its range trimmed, its severity), and what the team
//! decided about it: suppression comments and `rules:`, as `check` applies them. Diagnostics
//! and the fleet check share it.

use std::ops::Range;
use std::path::Path;

use model::diagnostic::Code;
use model::diagnostic::Severity as ModelSeverity;

use crate::snapshot::Snapshot;
use crate::types::*;

/// What the team decided about the findings `out` of the file `path` (its text `text`), as
/// `check` applies it: `# salt-analyzer: disable=CODE` directives in the file silence theirs
/// (with `unknown`, a directive naming no code is reported), and `rules:` in
/// salt-analyzer.yaml drops or re-weighs a code under the file's path.
pub(crate) fn apply_policy(snap: &Snapshot, path: &Path, text: &str, out: &mut Vec<Diagnostic>, unknown: bool) {
    let mut suppressions = model::check::suppress::Suppressions::scan(text);
    if !suppressions.is_empty() {
        out.retain(|d| !suppressions.silences(&d.code, d.range.start));
        if unknown {
            out.extend(suppressions.unknown(path).iter().map(|d| from_model(text, d, String::new())));
        }
    }
    let world = snap.world();
    if !world.ws.rules.is_empty() {
        out.retain_mut(|d| {
            let Some(code) = Code::ALL.iter().copied().find(|c| c.as_str() == d.code) else { return true };
            match world.ws.rules.judge_at(code, path, &world.root, to_model(d.severity)) {
                Some(s) => {
                    d.severity = from_model_severity(s);
                    true
                }
                None => false,
            }
        });
    }
}

/// The editor's severity of a model severity.
fn from_model_severity(s: ModelSeverity) -> Severity {
    match s {
        ModelSeverity::Error => Severity::Error,
        ModelSeverity::Warning => Severity::Warning,
        ModelSeverity::Hint => Severity::Hint,
    }
}

/// The model's severity of an editor severity.
fn to_model(s: Severity) -> ModelSeverity {
    match s {
        Severity::Error => ModelSeverity::Error,
        Severity::Warning => ModelSeverity::Warning,
        Severity::Hint => ModelSeverity::Hint,
    }
}

/// A model diagnostic as the editor shows it, its message after `prefix` (the minions that
/// share it, for a fleet's findings).
pub(crate) fn from_model(text: &str, d: &model::diagnostic::Diagnostic, prefix: String) -> Diagnostic {
    Diagnostic {
        range: trim(text, d.span.clone()),
        severity: from_model_severity(d.severity),
        code: d.code.as_str().to_string(),
        message: prefix + &d.message,
        related: d.related.iter().map(|r| (FileRange { path: r.file.clone(), range: r.span.clone() }, r.message.clone())).collect(),
    }
}

/// A span without the line break and indentation a YAML node's span ends with.
fn trim(text: &str, range: Range<usize>) -> Range<usize> {
    let Some(inner) = text.get(range.clone()) else { return range };
    let end = range.start + inner.trim_end().len();
    range.start..end.max(range.start)
}
