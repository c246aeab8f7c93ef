//! salt-lint's rules, ported (salt-lint 0.9.2, `saltlint/rules/`): every rule it ships, each a
//! code of ours in the `style` category with the salt-lint ID it replaces
//! ([`Code::salt_lint`]), matched over a file's text as written, as salt-lint matches it:
//! line rules (`lines`: a line whose first non-blank is `#` is skipped, `# noqa NNN` on a line
//! skips rule NNN there), Jinja rules (`jinja`: the same over the text with `{% raw %}` blocks
//! blanked) and whole-text rules (`text`: `# noqa NNN` anywhere in the matched section).
//! Patterns go through `py::re`, so they keep Python's meaning. Files are taken by their
//! extension as salt-lint does: `.sls` gets every rule, `.jinja`, `.jinja2` and `.j2` the Jinja
//! rules and those for any file (201, 204, 205, 212). 214 (a period in an SLS file name) is
//! `dotted-sls-name`, which the check reports from what Salt resolves.
//!
//! Defaults, for a user who has never heard of salt-lint:
//! - On, as warnings, where Salt does something the author did not mean: an unquoted
//!   `mode: 0644` or `0022` (YAML 1.1 reads octal: 207, 210), `pillar.get[...]` (the render
//!   fails: 211), irregular spaces that YAML does not read as spaces (212), `onchange:` or
//!   `requires:`, which Salt passes to the function as an argument and so never order
//!   anything (216, 217), a `context:` mapping not indented past its `-` (its keys become the
//!   state's arguments: 219), `- quiet` on `cmd.run` (Salt ignores it: 901).
//! - On, as a hint: `cmd.wait`, which Salt's own documentation asks to replace (213).
//! - Off: formatting Salt reads the same either way (201 to 206, 208, 209), and the state
//!   deprecations (902 to 915), which the compile reports better and per Salt release
//!   (`unknown-function`, `not-in-core`, `deprecated-function`). A hint when on.
//!
//! `rules: enable:`/`select:`, `check --select` or a `.salt-lint` file (salt-lint runs all its
//! rules, so a team moving from it keeps every finding) turn them on, per code; `.salt-lint`'s
//! `skip_list`, `exclude_paths`, `tags` and per-rule `ignore` skip them per salt-lint ID.

mod jinja;
mod lines;
mod rule;
mod text;

pub use rule::{lang, Lang};
use rule::{noqa, py_lstrip, search, Rule, Test};

use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use crate::diagnostic::{Code, Diagnostic};
use crate::py::re::PySearch;
use crate::workspace::rules::Rules;

const RULES: &[Rule] = &[
    lines::TRAILING_WHITESPACE,
    jinja::STATEMENT_SPACING,
    lines::TABS,
    lines::LINE_TOO_LONG,
    text::SLS_EXTENSION,
    jinja::VARIABLE_SPACING,
    lines::FILE_MODE_UNQUOTED,
    lines::FILE_MODE_LEADING_ZERO,
    jinja::COMMENT_SPACING,
    lines::OCTAL_UNQUOTED,
    jinja::PILLAR_GET_SUBSCRIPT,
    lines::IRREGULAR_WHITESPACE,
    lines::CMD_WAIT,
    lines::ONCHANGES_TYPO,
    lines::REQUIRE_TYPO,
    text::NESTED_DICT_INDENT,
    text::CMD_RUN_QUIET,
    lines::deprecated("902", "elasticsearch_index.absent", "2017.7.0", "elasticsearch.index_absent"),
    lines::deprecated("903", "virt.reverted", "2016.3.0", ""),
    lines::deprecated("904", "virt.saved", "2016.3.0", "virt.snapshot"),
    lines::deprecated("905", "virt.unpowered", "2016.3.0", "virt.powered_off"),
    lines::deprecated("906", "docker.absent", "2017.7.0", "docker_container.absent"),
    lines::deprecated("907", "docker.image_absent", "2017.7.0", "docker_image.absent"),
    lines::deprecated("908", "docker.image_present", "2017.7.0", "docker_image.present"),
    lines::deprecated("909", "docker.mod_watch", "2017.7.0", "docker_container.mod_watch"),
    lines::deprecated("910", "docker.network_absent", "2017.7.0", "docker_network.absent"),
    lines::deprecated("911", "docker.network_present", "2017.7.0", "docker_network.present"),
    lines::deprecated("912", "docker.running", "2017.7.0", "docker_container.running"),
    lines::deprecated("913", "docker.stopped", "2017.7.0", "docker_container.stopped"),
    lines::deprecated("914", "docker.volume_absent", "2017.7.0", "docker_volume.absent"),
    lines::deprecated("915", "docker.volume_present", "2017.7.0", "docker_volume.present"),
];

/// Each rule's compiled pattern, by its place in [`RULES`] (`None` for rules without one, or a
/// pattern the engine refuses, which then matches nothing).
fn compiled() -> &'static [Option<PySearch>] {
    static RES: OnceLock<Vec<Option<PySearch>>> = OnceLock::new();
    RES.get_or_init(|| {
        RULES
            .iter()
            .map(|r| match r.test {
                Test::Pattern { pattern, flags, .. } => PySearch::compile(pattern, flags).ok(),
                Test::Jinja { pattern, .. } => PySearch::compile(pattern, 0).ok(),
                Test::Deprecated { state, .. } => PySearch::compile(&format!(r"^\s{{2}}{}(?=:|$)", state.replace('.', r"\.")), 0).ok(),
                _ => None,
            })
            .collect()
    })
}

/// The style findings of the file `path` (its text `text`, `rel` its path relative to the
/// workspace root) that `rules` turns on, at the severity they give.
pub fn lint(path: &Path, text: &str, rules: &Rules, rel: &str) -> Vec<Diagnostic> {
    let Some(lang) = lang(path) else { return Vec::new() };
    // What is on for this file, asked once.
    let on: Vec<Option<crate::diagnostic::Severity>> = RULES
        .iter()
        .map(|r| {
            if r.only.is_some_and(|l| !l.contains(&lang)) || rules.salt_lint_skips(r.id, rel) {
                return None;
            }
            rules.judge(r.code, rel, r.code.severity())
        })
        .collect();
    if on.iter().all(Option::is_none) {
        return Vec::new();
    }
    let mut found: Vec<(usize, Option<Range<usize>>, usize)> = Vec::new();
    let res = compiled();
    let line_rules = |i: usize| matches!(RULES[i].test, Test::Line(_) | Test::Pattern { .. } | Test::Deprecated { .. });
    if (0..RULES.len()).any(|i| on[i].is_some() && line_rules(i)) {
        for (n, line) in text.split('\n').enumerate() {
            if py_lstrip(line).starts_with('#') {
                continue;
            }
            let skips = noqa(line);
            for (i, rule) in RULES.iter().enumerate() {
                if on[i].is_none() || skips.contains(&rule.id) {
                    continue;
                }
                let hit = match rule.test {
                    Test::Line(f) => f(line),
                    Test::Pattern { cheap, .. } if cheap(line) => search(res[i].as_ref(), line),
                    Test::Deprecated { state, .. } if line.contains(state) => search(res[i].as_ref(), line),
                    _ => None,
                };
                if let Some(r) = hit {
                    found.push((n, Some(r), i));
                }
            }
        }
    }
    if (0..RULES.len()).any(|i| on[i].is_some() && matches!(RULES[i].test, Test::Jinja { .. })) {
        found.extend(jinja::lint(text, RULES, &|i| on[i].is_some(), res));
    }
    for (i, rule) in RULES.iter().enumerate() {
        if let (Some(_), Test::Text(f)) = (on[i], rule.test) {
            found.extend(f(path, text, rule.id).into_iter().map(|n| (n, None, i)));
        }
    }
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    found.sort_by_key(|(n, _, i)| (*n, *i));
    found
        .into_iter()
        .filter_map(|(n, range, i)| {
            let rule = &RULES[i];
            let at = *starts.get(n)?;
            let line = &text[at..starts.get(n + 1).map_or(text.len(), |e| e - 1)];
            let content = line.trim_end_matches('\r');
            let lead = content.len() - content.trim_start().len();
            let span = match range {
                Some(r) if r.end > r.start && r.end <= line.len() => at + r.start..at + r.end,
                _ => at + lead..at + content.len(),
            };
            Some(Diagnostic { file: path.to_path_buf(), span, severity: on[i]?, code: rule.code, message: message(rule), related: Vec::new(), fix: Vec::new() })
        })
        .collect()
}

/// The compile's findings that name a state function the way salt-lint's state deprecations
/// (902-915) do, for the minion's release: where one is reported, the deprecation is not.
pub const SAYS_BETTER: [Code; 3] = [Code::UnknownFunction, Code::NotInCore, Code::DeprecatedFunction];

/// Whether `d` is salt-lint's state deprecation (902-915) where one of the findings `shown`
/// already names the same state function as `unknown-function`, `not-in-core` or
/// `deprecated-function`, for the minion's Salt release and in Salt's words: then it is not
/// said twice. Asked of what is reported, after the codes are chosen.
pub fn said_better(d: &Diagnostic, shown: &[&Diagnostic]) -> bool {
    d.code == Code::DeprecatedState
        && shown.iter().any(|o| SAYS_BETTER.contains(&o.code) && o.file == d.file && o.span.start < d.span.end && d.span.start < o.span.end)
}

/// A rule's message, naming the salt-lint rule it replaces.
fn message(rule: &Rule) -> String {
    match rule.test {
        Test::Deprecated { state, since, instead } => {
            let gone = if state.starts_with("docker.") { ", and Salt 2019.2.0 removed the `docker` state module: no release since has it" } else { "" };
            let instead = if instead.is_empty() { String::new() } else { format!("; use `{instead}`") };
            format!("`{state}` is deprecated since Salt {since}{gone}{instead} (salt-lint {})", rule.id)
        }
        _ => format!("{} (salt-lint {})", rule.message, rule.id),
    }
}

#[cfg(test)]
mod tests;
