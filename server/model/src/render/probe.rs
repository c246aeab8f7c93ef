//! What the Jinja blocks of a file evaluate to for a minion. One block ([`instrument`], for a
//! hover): the template is rendered with the block instrumented (`{{ x }}` becomes
//! `{{ __salt_probe(x) }}`; after `{% set a = ... %}` or `{% from ... import a %}` the names it
//! binds are recorded), and every value the block took while rendering (a loop visits it
//! several times) is kept. Every block at once ([`trace`], for inlay hints): each expression,
//! `if`/`elif` condition, `for` sequence (and its `if` filter) and `set` value is wrapped in
//! `__salt_trace(k, (...))`, which hands the value back unchanged, so the render's output is
//! the same, and a [`Tally`] of what each took is kept. Either rewrite stays on the block's
//! line, so every other line renders as it does without it.

use std::ops::Range;

use syntax::jinja::{mask, JinjaKind};

/// The name of the recording function the rewrite calls.
pub const PROBE: &str = "__salt_probe";

/// What is probed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The block's range in the source, delimiters included.
    pub block: Range<usize>,
    /// For an expression, its text; for a statement, the names it binds.
    pub what: Vec<String>,
}

/// The block at `offset` and the source rewritten to record its values, when the block is an
/// expression or a statement that binds names (`set`, `from ... import`, `import ... as`).
pub fn instrument(source: &str, offset: usize) -> Option<(Probe, String)> {
    let masked = mask(source);
    let block = masked.block_at(offset)?.clone();
    let range = block.range.clone();
    let text = source.get(range.clone())?;
    match block.kind {
        JinjaKind::Expression => {
            let open = if text[2..].starts_with(['-', '+']) { 3 } else { 2 };
            let close = if text.len() >= 3 && text[..text.len() - 2].ends_with(['-', '+']) { 3 } else { 2 };
            let inner = text.get(open..text.len().checked_sub(close)?)?;
            if inner.trim().is_empty() {
                return None;
            }
            let new = format!("{}{PROBE}(0, ({inner})){}", &text[..open], &text[text.len() - close..]);
            let out = format!("{}{new}{}", &source[..range.start], &source[range.end..]);
            Some((Probe { block: range, what: vec![inner.trim().to_string()] }, out))
        }
        JinjaKind::Statement => {
            let names = bound_names(text, block.keyword.as_deref()?)?;
            let record: String = names.iter().enumerate().map(|(i, n)| format!("{{{{ '' if {PROBE}({i}, {n}) else '' }}}}")).collect();
            let out = format!("{}{record}{}", &source[..range.end], &source[range.end..]);
            Some((Probe { block: range, what: names }, out))
        }
        JinjaKind::Comment => None,
    }
}

/// The name of the recording function [`trace`]'s rewrite calls.
pub const TRACE: &str = "__salt_trace";

/// Which of the render's values a traced block shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TraceKind {
    /// `{{ expr }}`: the value it printed.
    Value,
    /// `{% if cond %}`, `{% elif cond %}`: whether the condition held.
    Condition,
    /// `{% for x in seq %}`: how many times the body ran. `filter` is the index of the
    /// loop's `if` filter (`{% for x in seq if cond %}`), whose true answers are the runs.
    Loop { filter: Option<usize> },
    /// `{% set a = expr %}`: the value bound.
    Set,
}

/// One traced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracePoint {
    /// The block's range in the source, delimiters included.
    pub block: Range<usize>,
    pub kind: TraceKind,
    /// The index its value is recorded under (a loop's sequence, for a loop).
    pub index: usize,
}

/// What one traced expression took over a render.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// How many times it was evaluated.
    pub count: usize,
    /// How many of those were true (Jinja's truth, Python's).
    pub truthy: usize,
    /// The distinct values it took, as Salt prints them (`str()`), first seen first: at most
    /// [`Tally::MAX_VALUES`], each cut at [`Tally::MAX_CHARS`] characters.
    pub values: Vec<String>,
    /// The lengths summed, of the values that have one (a loop's sequence: its runs).
    pub len_total: usize,
}

impl Tally {
    pub const MAX_VALUES: usize = 8;
    pub const MAX_CHARS: usize = 200;

    /// Counts one evaluation: its truth, its length and its text.
    pub fn record(&mut self, truthy: bool, len: Option<usize>, text: impl FnOnce() -> String) {
        self.count += 1;
        self.truthy += usize::from(truthy);
        self.len_total += len.unwrap_or(0);
        if self.values.len() < Self::MAX_VALUES {
            let mut t = text();
            if let Some((cut, _)) = t.char_indices().nth(Self::MAX_CHARS) {
                t.truncate(cut);
                t.push('…');
            }
            if !self.values.contains(&t) {
                self.values.push(t);
            }
        }
    }
}

/// The source rewritten so that rendering it records what every block took (see the module
/// documentation), with the blocks traced; `None` when nothing is to be traced.
pub fn trace(source: &str) -> Option<(Vec<TracePoint>, String)> {
    let masked = mask(source);
    let mut points = Vec::new();
    let mut out = String::with_capacity(source.len() + masked.blocks.len() * 24);
    let mut copied = 0;
    let mut next = 0;
    for block in &masked.blocks {
        let range = block.range.clone();
        let Some(text) = source.get(range.clone()) else { continue };
        let Some((open, close)) = delimiters(text) else { continue };
        let inner = &text[open..text.len() - close];
        // (where in `inner` the wrapped expression starts and ends, what it is)
        let mut wraps: Vec<(Range<usize>, TraceKind)> = Vec::new();
        match (block.kind, block.keyword.as_deref()) {
            (JinjaKind::Expression, _) if !inner.trim().is_empty() => wraps.push((0..inner.len(), TraceKind::Value)),
            (JinjaKind::Statement, Some(kw @ ("if" | "elif"))) => {
                let start = inner.find(kw).map_or(0, |i| i + kw.len());
                if !inner[start..].trim().is_empty() {
                    wraps.push((start..inner.len(), TraceKind::Condition));
                }
            }
            (JinjaKind::Statement, Some("for")) => {
                let Some(seq) = for_sequence(inner) else { continue };
                let end = strip_recursive(inner, seq.clone());
                let filter_at = top_level_word(&inner[..end], seq.start, "if");
                let seq = seq.start..filter_at.unwrap_or(end);
                if inner[seq.clone()].trim().is_empty() {
                    continue;
                }
                wraps.push((seq, TraceKind::Loop { filter: filter_at.map(|_| next + 1) }));
                if let Some(at) = filter_at {
                    wraps.push((at + 2..end, TraceKind::Condition));
                }
            }
            (JinjaKind::Statement, Some("set")) => {
                let Some(eq) = top_level_char(inner, '=') else { continue };
                if inner[eq + 1..].trim().is_empty() {
                    continue;
                }
                wraps.push((eq + 1..inner.len(), TraceKind::Set));
            }
            _ => continue,
        }
        if wraps.is_empty() {
            continue;
        }
        out.push_str(&source[copied..range.start + open]);
        let mut at = 0;
        for (i, (r, kind)) in wraps.iter().enumerate() {
            out.push_str(&inner[at..r.start]);
            out.push_str(&format!(" {TRACE}({}, ({})) ", next, &inner[r.clone()]));
            at = r.end;
            // A loop's filter is recorded, not shown on its own.
            if i == 0 {
                points.push(TracePoint { block: range.clone(), kind: *kind, index: next });
            }
            next += 1;
        }
        out.push_str(&inner[at..]);
        copied = range.start + open + inner.len();
    }
    if points.is_empty() {
        return None;
    }
    out.push_str(&source[copied..]);
    Some((points, out))
}

/// The lengths of a block's opening and closing delimiters, whitespace control included
/// (`{{-` is 3); `None` for an unterminated block.
fn delimiters(text: &str) -> Option<(usize, usize)> {
    if text.len() < 4 || !(text.ends_with("}}") || text.ends_with("%}") || text.ends_with("#}")) {
        return None;
    }
    let open = if text[2..].starts_with(['-', '+']) { 3 } else { 2 };
    let close = if text.len() >= open + 3 && text[..text.len() - 2].ends_with(['-', '+']) { 3 } else { 2 };
    (open + close <= text.len()).then_some((open, close))
}

/// The range of a `for` statement's sequence in its content (`for x, y in SEQ ...`): from after
/// the first top-level ` in ` to the end.
fn for_sequence(inner: &str) -> Option<Range<usize>> {
    let start = inner.find("for")? + 3;
    let at = top_level_word(inner, start, "in")?;
    Some(at + 2..inner.len())
}

/// The end of `r` in `inner`, without a trailing top-level `recursive`.
fn strip_recursive(inner: &str, r: Range<usize>) -> usize {
    let text = inner[r.clone()].trim_end();
    match text.strip_suffix("recursive") {
        Some(rest) if rest.ends_with(char::is_whitespace) || rest.ends_with(')') => r.start + rest.trim_end().len(),
        _ => r.start + text.len(),
    }
}

/// Where the first `word` at bracket depth 0, outside strings, and between blanks (or
/// brackets) is in `inner`, at or after `from`.
fn top_level_word(inner: &str, from: usize, word: &str) -> Option<usize> {
    let bytes = inner.as_bytes();
    scan_top_level(inner, from, |i| {
        inner[i..].starts_with(word)
            && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r' | b')' | b']' | b'}'))
            && bytes.get(i + word.len()).is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'(' | b'[' | b'{'))
    })
}

/// Where the first top-level `c` is (a `=` not part of `==`, `!=`, `<=`, `>=`).
fn top_level_char(inner: &str, c: char) -> Option<usize> {
    let bytes = inner.as_bytes();
    scan_top_level(inner, 0, |i| {
        inner[i..].starts_with(c) && !(c == '=' && (bytes.get(i + 1) == Some(&b'=') || (i > 0 && matches!(bytes[i - 1], b'=' | b'!' | b'<' | b'>'))))
    })
}

/// The first offset at or after `from`, at bracket depth 0 and outside string literals, where
/// `hit` holds.
fn scan_top_level(inner: &str, from: usize, hit: impl Fn(usize) -> bool) -> Option<usize> {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut chars = inner.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                chars.next();
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if depth == 0 && i >= from && hit(i) => return Some(i),
            _ => {}
        }
    }
    None
}

/// The names a `set` (not a block `set`), `from ... import` or `import ... as` statement binds.
fn bound_names(text: &str, keyword: &str) -> Option<Vec<String>> {
    let inner = text.trim_start_matches("{%").trim_start_matches(['-', '+']).trim_end_matches("%}").trim_end_matches(['-', '+']).trim();
    let rest = inner.strip_prefix(keyword)?.trim();
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_') && !s.starts_with(|c: char| c.is_ascii_digit());
    let names: Vec<String> = match keyword {
        "set" => {
            let (lhs, _) = rest.split_once('=')?;
            lhs.split(',').map(|n| n.trim().to_string()).collect()
        }
        "from" => {
            let (_, imports) = rest.split_once(" import ")?;
            let imports = imports.trim().trim_end_matches("with context").trim_end_matches("without context").trim();
            imports.split(',').map(|n| n.rsplit(" as ").next().unwrap_or(n).trim().to_string()).collect()
        }
        "import" | "import_yaml" | "import_json" | "import_text" => vec![rest.rsplit_once(" as ")?.1.trim().to_string()],
        _ => return None,
    };
    names.iter().all(|n| ident(n)).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_and_bindings_are_instrumented_on_their_line() {
        let src = "{% from 'map.jinja' import a, b as c with context %}\nx: {{- pkg.name | upper }}\n{% set n, m = 1, 2 %}";
        let (p, out) = instrument(src, src.find("pkg").unwrap()).unwrap();
        assert_eq!(p.what, ["pkg.name | upper"]);
        assert_eq!(out.lines().nth(1), Some("x: {{-__salt_probe(0, ( pkg.name | upper ))}}"));
        let (p, out) = instrument(src, 3).unwrap();
        assert_eq!(p.what, ["a", "c"]);
        assert!(
            out.starts_with(
                "{% from 'map.jinja' import a, b as c with context %}{{ '' if __salt_probe(0, a) else '' }}{{ '' if __salt_probe(1, c) else '' }}\n"
            ),
            "{out}"
        );
        let (p, _) = instrument(src, src.len() - 3).unwrap();
        assert_eq!(p.what, ["n", "m"]);
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(instrument("{% if x %}", 3).is_none());
    }

    #[test]
    fn every_block_is_traced_in_place() {
        let src = "{%- set ß = {'a': 1} | tojson -%}\n{% if grains.os == 'ℝ' and x in [1] %}\n{% for k, v in d.items() if v != '💣' recursive %}\n{{- k ~ '}}' }}\n{% elif y %}{% endfor %}{% set a %}x{% endset %}{# c #}{% for i in range(3) %}{% endfor %}{{ }}";
        let (points, out) = trace(src).unwrap();
        expect_test::expect![[r#"
            {%- set ß = __salt_trace(0, ( {'a': 1} | tojson )) -%}
            {% if __salt_trace(1, ( grains.os == 'ℝ' and x in [1] )) %}
            {% for k, v in __salt_trace(2, ( d.items() )) if __salt_trace(3, ( v != '💣'))  recursive %}
            {{- __salt_trace(4, ( k ~ '}}' )) }}
            {% elif __salt_trace(5, ( y )) %}{% endfor %}{% set a %}x{% endset %}{# c #}{% for i in __salt_trace(6, ( range(3)))  %}{% endfor %}{{ }}"#]]
        .assert_eq(&out);
        let kinds: Vec<(TraceKind, usize)> = points.iter().map(|p| (p.kind, p.index)).collect();
        assert_eq!(
            kinds,
            [
                (TraceKind::Set, 0),
                (TraceKind::Condition, 1),
                (TraceKind::Loop { filter: Some(3) }, 2),
                (TraceKind::Value, 4),
                (TraceKind::Condition, 5),
                (TraceKind::Loop { filter: None }, 6)
            ]
        );
        assert_eq!(&src[points[3].block.clone()], "{{- k ~ '}}' }}");
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(trace("a: 1\n{# only #}\n").is_none());
    }
}
