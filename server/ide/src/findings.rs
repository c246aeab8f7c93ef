//! A file's findings as the editor shows them (`of_file`), a model finding as a diagnostic
//! (its range trimmed, its severity, its fix placed), and what the team decided about them:
//! suppression comments and `rules:`, as `check` applies them. Diagnostics, code actions and
//! the fleet check share it.

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
        fix: fix_in(text, &d.fix),
    }
}

/// A fix whose spans are of rendered text (a template's state, which the minion's highstate
/// reports at its ID, `range`): each replacement placed where the state's declaration, from
/// its ID to the next line indented no deeper, writes what the finding saw as a word, once.
pub(crate) fn fix_by_declaration(text: &str, fix: &[(Range<usize>, String, String)], range: &Range<usize>) -> Vec<(Range<usize>, String)> {
    let Some(line_start) = text.get(..range.start).map(|t| t.rfind('\n').map_or(0, |i| i + 1)) else { return Vec::new() };
    let indent = |l: &str| l.len() - l.trim_start().len();
    let own = indent(&text[line_start..]);
    let mut end = text[range.start..].find('\n').map_or(text.len(), |i| range.start + i + 1);
    while end < text.len() {
        let next = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
        let line = &text[end..next];
        let t = line.trim();
        if !t.is_empty() && !t.starts_with(['#', '{']) && indent(line) <= own {
            break;
        }
        end = next;
    }
    let block = &text[range.start..end];
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = Vec::new();
    for (_, old, new) in fix {
        let found: Vec<usize> = block
            .match_indices(old.as_str())
            .map(|(i, _)| i)
            .filter(|&i| !word(block[..i].chars().next_back()) && !word(block[i + old.len()..].chars().next()))
            .collect();
        let [at] = found[..] else { return Vec::new() };
        out.push((range.start + at..range.start + at + old.len(), new.clone()));
    }
    out
}

/// A finding's fix as the text now reads: each replacement where its span reads what the
/// finding saw, or where that text is written once inside the span (a key whose span is the
/// whole `pkg.instaled` shorthand); none when any part cannot be placed.
fn fix_in(text: &str, fix: &[(Range<usize>, String, String)]) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    for (span, old, new) in fix {
        let Some(written) = text.get(span.clone()) else { return Vec::new() };
        let at = if written == old {
            span.start
        } else if !old.is_empty() && written.matches(old.as_str()).count() == 1 {
            span.start + written.find(old.as_str()).unwrap_or(0)
        } else {
            return Vec::new();
        };
        out.push((at..at + old.len(), new.clone()));
    }
    out
}

/// A span without the line break and indentation a YAML node's span ends with.
fn trim(text: &str, range: Range<usize>) -> Range<usize> {
    let Some(inner) = text.get(range.clone()) else { return range };
    let end = range.start + inner.trim_end().len();
    range.start..end.max(range.start)
}

/// A file's findings as the editor shows them: the index's cross-file checks and the selected
/// minion's (what applying a templated file alone would say outside its highstate), remote and
/// configuration problems, salt-lint's text rules, less what suppression and `rules:` drop, a
/// deprecated state once. The diagnostics and the code actions read them.
pub(crate) fn of_file(snap: &Snapshot, path: &Path) -> Cancellable<Vec<Diagnostic>> {
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
        .map(|d| {
            let mut out = from_model(&text, &d, String::new());
            if out.fix.is_empty() && !d.fix.is_empty() {
                out.fix = fix_by_declaration(&text, &d.fix, &out.range);
            }
            out
        })
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
                    fix: Vec::new(),
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
    let says_better = |d: &Diagnostic| model::check::style::SAYS_BETTER.iter().any(|c| c.as_str() == d.code);
    let better: Vec<Range<usize>> = out.iter().filter(|d| says_better(d)).map(|d| d.range.clone()).collect();
    out.retain(|d| d.code != Code::DeprecatedState.as_str() || !better.iter().any(|s| s.start < d.range.end && d.range.start < s.end));
    Ok(out)
}

/// The byte range of a configuration error's 1-based line, without its break (`0`, meaning
/// no line is known, or past the end: the start of the text).
fn config_line_range(snap: &Snapshot, path: &Path, line: usize) -> Range<usize> {
    let zero_based = line.checked_sub(1).and_then(|l| u32::try_from(l).ok());
    zero_based.and_then(|l| snap.line_index(path)?.line_range(l)).unwrap_or(0..0)
}
