//! salt-lint's whole-text rules (`Rule.matchtext`): the file extension (205), `context` and
//! `defaults` mappings not over-indented (219) and `- quiet` on `cmd.run` (901). A finding is
//! at the last line of what matched, counted as Python's `splitlines` counts (901's `\s?.*`
//! after `- quiet` may run over the line break, and the finding is then on the next line, as
//! salt-lint's is); `# noqa NNN` on any line of the match skips it (205 honours none, as
//! salt-lint's does not).

use std::path::Path;
use std::sync::OnceLock;

use super::rule::{noqa, PyLines, Rule, Test, RE_MULTILINE, SLS};
use crate::diagnostic::Code;
use crate::py::re::PySearch;

/// 205 (`FileExtensionRule`): any file it is given whose extension is not exactly `.sls`.
pub(super) const SLS_EXTENSION: Rule = Rule {
    id: "205",
    code: Code::SlsExtension,
    only: None,
    test: Test::Text(|path, _, _| if path.extension().is_some_and(|e| e == "sls") { Vec::new() } else { vec![0] }),
    message: "Use \".sls\" as a Salt State file extension: Salt loads states only from `.sls` files",
};

/// 219 (`NestedDictRule`).
pub(super) const NESTED_DICT_INDENT: Rule = Rule {
    id: "219",
    code: Code::NestedDictIndent,
    only: SLS,
    test: Test::Text(nested_dict),
    message: "Nested dictionaries (in context or defaults) should be over-indented: indented only as far as `context`, YAML makes the keys below siblings of `context` in the list item, so the template gets `context: None` and the state gets them as arguments",
};

/// 901 (`CmdRunQuietRule`).
pub(super) const CMD_RUN_QUIET: Rule = Rule {
    id: "901",
    code: Code::CmdRunQuiet,
    only: SLS,
    test: Test::Text(cmd_run_quiet),
    message:
        "cmd.run has no `quiet` argument any more: Salt passes it on and ignores it, so the command's output is still logged. Use `output_loglevel: quiet`",
};

fn pattern(cell: &'static OnceLock<Option<PySearch>>, pattern: &str) -> Option<&'static PySearch> {
    cell.get_or_init(|| PySearch::compile(pattern, RE_MULTILINE).ok()).as_ref()
}

/// The 0-based line of a match ending at byte `end`, unless a `# noqa ID` in the matched
/// section skips it.
fn finding(lines: &mut PyLines, start: usize, end: usize, id: &str) -> Option<usize> {
    let section = &lines.text[start..end];
    if section.contains("# noqa") && section.lines().any(|l| noqa(l).contains(&id)) {
        return None;
    }
    Some(lines.count(end).saturating_sub(1))
}

fn nested_dict(_: &Path, text: &str, id: &str) -> Vec<usize> {
    static RE: OnceLock<Option<PySearch>> = OnceLock::new();
    if !text.contains("context:") && !text.contains("defaults:") {
        return Vec::new();
    }
    let Some(re) = pattern(&RE, r"^(\s+)-\s+(context|defaults):[^{[\n]*\n^\1\s{0,3}[^-{[\s]*:\s.+") else { return Vec::new() };
    // The pattern's match spans the `- context:` line and the next one (after any blank lines
    // its leading `\s+` takes in), so each candidate line is searched in that window alone:
    // the backreference makes a search over the whole text slow.
    let mut lines = PyLines::new(text);
    let mut out = Vec::new();
    let mut done = 0;
    let mut line_start = 0;
    let mut window_start = 0;
    for line in text.split_inclusive('\n') {
        let at = line_start;
        line_start += line.len();
        let body = line.trim_start();
        if !body.starts_with('-') || !(body.contains("context:") || body.contains("defaults:")) {
            if !line.trim().is_empty() {
                window_start = line_start;
            }
            continue;
        }
        let from = window_start.max(done);
        window_start = line_start;
        if at < from {
            continue;
        }
        let next_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i + 1);
        let window = &text[from..next_end];
        if let Ok(Some(g)) = re.search(window, 0) {
            if let Some(Some(r)) = g.first() {
                let (start, end) = (from + r.start, from + r.end);
                done = end;
                out.extend(finding(&mut lines, start, end, id));
            }
        }
    }
    out
}

fn cmd_run_quiet(_: &Path, text: &str, id: &str) -> Vec<usize> {
    static RE: OnceLock<Option<PySearch>> = OnceLock::new();
    if !text.contains("cmd.run:") || !text.contains("- quiet") {
        return Vec::new();
    }
    let Some(re) = pattern(&RE, r"^.+\n^\s{2}cmd\.run:(?:\n.+)+\n^\s{4}- quiet\s?.*") else { return Vec::new() };
    // `re.finditer` over the text (rare: it needs both words).
    let mut lines = PyLines::new(text);
    let mut out = Vec::new();
    let mut pos = 0;
    while let Ok(Some(g)) = re.search(text, pos) {
        let Some(Some(r)) = g.first().cloned() else { break };
        out.extend(finding(&mut lines, r.start, r.end, id));
        pos = if r.end > r.start { r.end } else { r.end + 1 };
        if pos > text.len() {
            break;
        }
    }
    out
}
