//! What one Jinja block of a file evaluates to for a minion: the template is rendered with the
//! block instrumented (`{{ x }}` becomes `{{ __salt_probe(x) }}`; after `{% set a = ... %}` or
//! `{% from ... import a %}` the names it binds are recorded), and every value the block took
//! while rendering (a loop visits it several times) is kept. The rewrite stays on the block's
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
}
