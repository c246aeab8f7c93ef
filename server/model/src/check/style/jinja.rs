//! salt-lint's Jinja rules (`JinjaRule`: SLS and Jinja files, each line of the text with the
//! `{% raw %}`...`{% endraw %}` block blanked): the spacing inside `{% %}` (202), `{{ }}` (206)
//! and `{# #}` (209), and `pillar.get[...]` (211).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

use super::rule::{noqa, py_line_count, py_lstrip, search, Rule, Test, JINJA};
use crate::diagnostic::Code;
use crate::py::re::PySearch;

/// 202 (`JinjaStatementHasSpacesRule`).
pub(super) const STATEMENT_SPACING: Rule = Rule {
    id: "202",
    code: Code::JinjaStatementSpacing,
    only: JINJA,
    test: Test::Jinja { cheap: |l| l.contains("{%") || l.contains("%}"), pattern: r"{%[^ \-\+]|{%[\-\+][^ ]|[^ \-\+]%}|[^ ][\-\+]%}" },
    message: "Jinja statement should have spaces before and after: '{% statement %}'",
};

/// 206 (`JinjaVariableHasSpacesRule`).
pub(super) const VARIABLE_SPACING: Rule = Rule {
    id: "206",
    code: Code::JinjaVariableSpacing,
    only: JINJA,
    test: Test::Jinja { cheap: |l| l.contains("{{") || l.contains("}}"), pattern: r"{{[^ {}\-\+\d]|{{[-\+][^ {}]|[^ {}\-\+\d]}}|[^ {}][-\+\d]}}" },
    message: "Jinja variables should have spaces before and after: '{{ var_name }}'",
};

/// 209 (`JinjaCommentHasSpacesRule`).
pub(super) const COMMENT_SPACING: Rule = Rule {
    id: "209",
    code: Code::JinjaCommentSpacing,
    only: JINJA,
    test: Test::Jinja { cheap: |l| l.contains("{#") || l.contains("#}"), pattern: r"{#[^ \-\+]|{#[\-\+][^ ]|[^ \-\+]#}|[^ ][\-\+]#}" },
    message: "Jinja comment should have spaces before and after: '{# comment #}'",
};

/// 211 (`JinjaPillarGrainsGetFormatRule`).
pub(super) const PILLAR_GET_SUBSCRIPT: Rule = Rule {
    id: "211",
    code: Code::PillarGetSubscript,
    only: JINJA,
    test: Test::Jinja { cheap: |l| l.contains(".get["), pattern: r"{{( |\-|\+)?.(pillar|grains).get\[.+}}" },
    message: "`pillar.get[...]` subscripts the function instead of calling it, and the render fails: write `salt['pillar.get']('item')`, `pillar.get('item')` or `pillar['item']` (the same for grains)",
};

/// `JinjaRule.jinja_escape_regex` (`re.DOTALL | re.MULTILINE`): greedy, so from the first
/// `{% raw %}` to the last `{% endraw %}`.
fn raw_block() -> Option<&'static PySearch> {
    static RE: OnceLock<Option<PySearch>> = OnceLock::new();
    RE.get_or_init(|| PySearch::compile(r"(?s){%[+-]?\s?raw\s?[+-]?%}.*{%[+-]?\s?endraw\s?[+-]?%}", crate::py::re::MULTILINE).ok()).as_ref()
}

/// The text as the Jinja rules see it: the raw block replaced by as many line breaks as Python's
/// `splitlines` counts in it, so the lines after keep their numbers.
fn escaped(text: &str) -> Cow<'_, str> {
    if !text.contains("raw") {
        return Cow::Borrowed(text);
    }
    let Some(re) = raw_block() else { return Cow::Borrowed(text) };
    let Ok(Some(groups)) = re.search(text, 0) else { return Cow::Borrowed(text) };
    let Some(Some(r)) = groups.first().cloned() else { return Cow::Borrowed(text) };
    let breaks = py_line_count(&text[r.clone()]).saturating_sub(1);
    Cow::Owned(format!("{}{}{}", &text[..r.start], "\n".repeat(breaks), &text[r.end..]))
}

/// The Jinja rules' findings: (0-based line, range in the line when the line is as written,
/// the rule's place in `rules`, the whole table).
pub(super) fn lint(text: &str, rules: &[Rule], on: &dyn Fn(usize) -> bool, res: &[Option<PySearch>]) -> Vec<(usize, Option<Range<usize>>, usize)> {
    let seen = escaped(text);
    let as_written = matches!(seen, Cow::Borrowed(_));
    let mut out = Vec::new();
    for (n, line) in seen.split('\n').enumerate() {
        if !line.contains(['{', '}', '%', '#']) || py_lstrip(line).starts_with('#') {
            continue;
        }
        let skips = noqa(line);
        for (i, rule) in rules.iter().enumerate() {
            let Test::Jinja { cheap, .. } = rule.test else { continue };
            if !on(i) || skips.contains(&rule.id) || !cheap(line) {
                continue;
            }
            if let Some(r) = search(res[i].as_ref(), line) {
                out.push((n, as_written.then_some(r), i));
            }
        }
    }
    out
}
