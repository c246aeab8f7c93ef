//! Jinja-aware masking: hides the template layer of an SLS file so a YAML parser sees its static structure, and keeps the span of every Jinja block.
//!
//! The masked text always has the same byte length as the source and keeps
//! every `\n` and `\r` byte at the same offset, so byte offsets and line
//! numbers computed on the masked text are valid in the source. Statements
//! (`{% ... %}`) and comments (`{# ... #}`) become spaces. Expressions
//! (`{{ ... }}`) become a run of `_` placeholders when they sit inside other
//! text on their line, so `name: {{ x }}` still reads as a key with a scalar
//! value, and become spaces when they are the only content of their line(s).
//! Only Salt's default delimiters are recognised; line statements are not.

use std::ops::Range;

/// The result of [`mask`]: the masked text and every Jinja block found, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Masked {
    /// The source with every Jinja block blanked out; same length and line breaks as the source.
    pub text: String,
    /// Every Jinja block of the source, sorted by start offset and never overlapping.
    pub blocks: Vec<JinjaBlock>,
}

/// One Jinja block (a statement, an expression or a comment), delimiters included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JinjaBlock {
    /// Byte range in the source, from the opening `{` to just after the closing `}`
    /// (or to the end of the file when the block is unterminated).
    pub range: Range<usize>,
    /// What kind of block this is.
    pub kind: JinjaKind,
    /// The first word of a statement (`if`, `for`, `endif`, `set`, `include`, ...);
    /// `None` for expressions, comments and empty statements.
    pub keyword: Option<String>,
}

/// The three kinds of Jinja block Salt's default delimiters produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JinjaKind {
    /// `{% ... %}`
    Statement,
    /// `{{ ... }}`
    Expression,
    /// `{# ... #}`
    Comment,
}

/// Masks the Jinja layer of `src`; see the module documentation for the rules.
pub fn mask(src: &str) -> Masked {
    let blocks = lex(src);
    let text = render(src, &blocks);
    Masked { text, blocks }
}

/// Whether `src` contains any Jinja opening delimiter (`{%`, `{{` or `{#`).
pub fn is_templated(src: &str) -> bool {
    src.as_bytes().windows(2).any(|w| w[0] == b'{' && matches!(w[1], b'%' | b'{' | b'#'))
}

impl Masked {
    /// Whether the source contained any Jinja block.
    pub fn is_templated(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// The block whose range contains `offset` (start inclusive, end exclusive).
    pub fn block_at(&self, offset: usize) -> Option<&JinjaBlock> {
        // Blocks are sorted and disjoint, so the candidate is the last block starting at or before `offset`.
        let idx = self.blocks.partition_point(|b| b.range.start <= offset);
        let block = self.blocks.get(idx.checked_sub(1)?)?;
        (offset < block.range.end).then_some(block)
    }

    /// Whether any block intersects `range`. An empty range `o..o` counts as
    /// overlapping when a block contains the offset `o`, so an insertion point
    /// inside a block is reported.
    pub fn overlaps(&self, range: Range<usize>) -> bool {
        if range.start >= range.end {
            return self.block_at(range.start).is_some();
        }
        let idx = self.blocks.partition_point(|b| b.range.end <= range.start);
        self.blocks.get(idx).is_some_and(|b| b.range.start < range.end)
    }

    /// Whether `offset` lies inside the body of a control-flow block: between
    /// the end of a `{% if %}`, `{% for %}`, `{% macro %}`, `{% call %}`,
    /// `{% filter %}` or `{% block %}` tag and the start of its matching
    /// `{% end... %}` tag. `elif` and `else` branches stay inside. An opener
    /// without a matching end tag extends to the end of the file.
    pub fn in_control_flow(&self, offset: usize) -> bool {
        self.control_flow_regions().iter().any(|r| r.start <= offset && offset < r.end)
    }

    /// The bodies of all control-flow blocks (see [`Masked::in_control_flow`]),
    /// in the order their opening tags appear; nested regions are all listed.
    pub fn control_flow_regions(&self) -> Vec<Range<usize>> {
        let end_of_text = self.text.len();
        let opens = |b: &JinjaBlock| b.keyword.as_deref().is_some_and(|k| CONTROL_FLOW_OPENERS.contains(&k));
        self.pairs_where(opens).into_iter().map(|(open, end)| self.body(open, end, end_of_text)).collect()
    }

    /// Every statement that opens a body closed by an `end` tag (`if`, `for`, `macro`,
    /// `call`, `filter`, `block`, `with`, `raw`, `autoescape`, `trans` and the block form of
    /// `set`), as indexes into `blocks`, with the index of its end tag (`None`: never closed),
    /// in the order the openers appear. `src` is the text that was masked.
    pub fn block_pairs(&self, src: &str) -> Vec<(usize, Option<usize>)> {
        self.pairs_where(|b| match b.keyword.as_deref() {
            Some("set") => src.get(b.range.clone()).is_some_and(is_block_set),
            Some(k) => CONTROL_FLOW_OPENERS.contains(&k) || matches!(k, "with" | "raw" | "autoescape" | "trans"),
            None => false,
        })
    }

    /// The body between opener `open` and end tag `end` (to `end_of_text` when unclosed).
    fn body(&self, open: usize, end: Option<usize>, end_of_text: usize) -> Range<usize> {
        let start = self.blocks[open].range.end;
        let stop = end.map_or(end_of_text, |e| self.blocks[e].range.start);
        start..stop.max(start)
    }

    /// The statements `opens` accepts, each with its end tag: the innermost unclosed opener of
    /// the same word takes an `end` tag, and openers left unclosed above it (a template
    /// error) are closed by the same tag, like a forgiving parser would read them.
    fn pairs_where(&self, opens: impl Fn(&JinjaBlock) -> bool) -> Vec<(usize, Option<usize>)> {
        let mut pairs: Vec<(usize, Option<usize>)> = Vec::new();
        // Each stack entry is (opening keyword, index into `pairs`).
        let mut stack: Vec<(&str, usize)> = Vec::new();
        for (i, block) in self.blocks.iter().enumerate() {
            let Some(keyword) = block.keyword.as_deref() else { continue };
            if block.kind != JinjaKind::Statement {
                continue;
            }
            if opens(block) {
                pairs.push((i, None));
                stack.push((keyword, pairs.len() - 1));
            } else if let Some(opener) = keyword.strip_prefix("end") {
                if let Some(pos) = stack.iter().rposition(|(k, _)| *k == opener) {
                    for (_, idx) in stack.drain(pos..) {
                        pairs[idx].1 = Some(i);
                    }
                }
            }
        }
        pairs
    }
}

impl Masked {
    /// The bodies whose text is not output where it stands: `{% macro %}` (output where the
    /// macro is called), `{% call %}` (handed to the macro as `caller()`) and a block
    /// `{% set x %}...{% endset %}` (assigned). `src` is the text that was masked. An opener
    /// without its end tag runs to the end of the file.
    pub fn detached_bodies(&self, src: &str) -> Vec<Range<usize>> {
        let opens = |b: &JinjaBlock| match b.keyword.as_deref() {
            Some("macro" | "call") => true,
            Some("set") => src.get(b.range.clone()).is_some_and(is_block_set),
            _ => false,
        };
        let regions: Vec<Range<usize>> = self.pairs_where(opens).into_iter().map(|(open, end)| self.body(open, end, src.len())).collect();
        // Nested bodies lie inside their outermost one.
        let mut outer: Vec<Range<usize>> = Vec::new();
        for r in regions {
            match outer.last() {
                Some(last) if r.start < last.end => {}
                _ => outer.push(r),
            }
        }
        outer
    }

    /// Blanks the [`Masked::detached_bodies`] of the masked text (line breaks kept), so that
    /// what is read as YAML is only what the file outputs where it stands.
    pub fn blank_detached_bodies(&mut self, src: &str) {
        let regions = self.detached_bodies(src);
        if regions.is_empty() {
            return;
        }
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        for r in regions {
            for b in &mut bytes[r] {
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
        }
        // Only ASCII bytes were written over whole runs between line breaks and statements.
        self.text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    }
}

/// Whether a `{% set ... %}` statement is the block form (`{% set x %}`, `{% set x | f %}`),
/// which has no `=` after its targets.
fn is_block_set(stmt: &str) -> bool {
    let inner = stmt.trim_start_matches("{%").trim_start_matches(['-', '+']).trim_start();
    let Some(rest) = inner.strip_prefix("set") else { return false };
    let rest = rest.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == ',' || c.is_whitespace());
    !rest.starts_with('=')
}

/// Statement keywords that open a body closed by `end<keyword>`.
const CONTROL_FLOW_OPENERS: &[&str] = &["if", "for", "macro", "call", "filter", "block"];

/// Finds every Jinja block of `src`, in order.
fn lex(src: &str) -> Vec<JinjaBlock> {
    let bytes = src.as_bytes();
    let mut blocks = Vec::new();
    let mut scanner = Scanner::new(bytes);
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != b'{' {
            i += 1;
            continue;
        }
        let kind = match bytes[i + 1] {
            b'%' => JinjaKind::Statement,
            b'{' => JinjaKind::Expression,
            b'#' => JinjaKind::Comment,
            _ => {
                i += 1;
                continue;
            }
        };
        let end = scanner.block_end(i + 2, kind);
        let keyword = match kind {
            JinjaKind::Statement => statement_keyword(&bytes[i + 2..end]),
            _ => None,
        };
        let is_raw = keyword.as_deref() == Some("raw") && is_bare_raw(&bytes[i + 2..end]);
        blocks.push(JinjaBlock { range: i..end, kind, keyword });
        i = end;
        if is_raw {
            // The body of `{% raw %}` is literal text; only the closing tag is a block.
            // Without a closing tag the rest of the file is literal, as Jinja would
            // have nothing else to lex it as.
            match find_endraw(bytes, i) {
                Some(tag) => {
                    i = tag.end;
                    blocks.push(JinjaBlock { range: tag, kind: JinjaKind::Statement, keyword: Some("endraw".to_owned()) });
                }
                None => i = bytes.len(),
            }
        }
    }
    blocks
}

/// Scans the inside of Jinja blocks; remembers where a quote was found to
/// have no closing partner so that scanning stays linear on broken input.
struct Scanner<'a> {
    bytes: &'a [u8],
    /// For `'` and `"`: the smallest offset after which no closing quote of that kind exists.
    unclosed_from: [Option<usize>; 2],
}

impl<'a> Scanner<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Scanner { bytes, unclosed_from: [None, None] }
    }

    /// The end offset (exclusive) of a block whose content starts at `from`;
    /// the end of the text when the block is unterminated.
    fn block_end(&mut self, from: usize, kind: JinjaKind) -> usize {
        let bytes = self.bytes;
        let len = bytes.len();
        if kind == JinjaKind::Comment {
            // Comments end at the first `#}`; quotes mean nothing inside them.
            return find(bytes, from, b"#}").map_or(len, |p| p + 2);
        }
        let close = if kind == JinjaKind::Statement { b'%' } else { b'}' };
        // Jinja only accepts the end delimiter while brackets are balanced, so
        // `{{ {'a': {'b': 1}} }}` ends at the last `}}`.
        let mut depth: usize = 0;
        let mut j = from;
        while j < len {
            let b = bytes[j];
            if depth == 0 && b == close && bytes.get(j + 1) == Some(&b'}') {
                return j + 2;
            }
            match b {
                b'\'' | b'"' => {
                    if let Some(end) = self.string_end(j) {
                        j = end;
                        continue;
                    }
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            j += 1;
        }
        len
    }

    /// For a quote at `start`, the offset just after its closing quote, honouring
    /// backslash escapes like Jinja's string token; `None` when it never closes,
    /// in which case the quote is an ordinary character (Jinja would reject it).
    fn string_end(&mut self, start: usize) -> Option<usize> {
        let quote = self.bytes[start];
        let slot = usize::from(quote == b'"');
        if self.unclosed_from[slot].is_some_and(|p| start >= p) {
            return None;
        }
        let mut j = start + 1;
        while j < self.bytes.len() {
            match self.bytes[j] {
                b'\\' => j += 2,
                b if b == quote => return Some(j + 1),
                _ => j += 1,
            }
        }
        self.unclosed_from[slot] = Some(start);
        None
    }
}

/// The first word of a statement's content (after the opening `{%`).
fn statement_keyword(content: &[u8]) -> Option<String> {
    let rest = content.strip_prefix(b"-").or_else(|| content.strip_prefix(b"+")).unwrap_or(content);
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let word: Vec<u8> = rest[start..].iter().copied().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').collect();
    if word.is_empty() || word[0].is_ascii_digit() {
        return None;
    }
    // The word is ASCII by construction, so this never loses anything.
    Some(String::from_utf8_lossy(&word).into_owned())
}

/// Whether a statement's content (after `{%`, through its end) is exactly `raw`,
/// as Jinja requires for a raw block: `{% raw %}`, `{%- raw -%}`, `{%+ raw +%}`.
fn is_bare_raw(content: &[u8]) -> bool {
    let inner = content.strip_suffix(b"%}").unwrap_or(content);
    let inner = inner.strip_prefix(b"-").or_else(|| inner.strip_prefix(b"+")).unwrap_or(inner);
    let inner = inner.strip_suffix(b"-").or_else(|| inner.strip_suffix(b"+")).unwrap_or(inner);
    inner.trim_ascii() == b"raw"
}

/// The range of the first `{% endraw %}` tag (with optional `-`/`+` markers) at or after `from`.
fn find_endraw(bytes: &[u8], from: usize) -> Option<Range<usize>> {
    let mut at = from;
    while let Some(start) = find(bytes, at, b"{%") {
        let mut j = start + 2;
        if matches!(bytes.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        if bytes.get(j..).is_some_and(|r| r.starts_with(b"endraw")) {
            j += b"endraw".len();
            while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                j += 1;
            }
            if matches!(bytes.get(j), Some(b'-' | b'+')) {
                j += 1;
            }
            if bytes.get(j..).is_some_and(|r| r.starts_with(b"%}")) {
                return Some(start..j + 2);
            }
        }
        at = start + 2;
    }
    None
}

/// The first occurrence of `needle` in `bytes` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

/// How the bytes of one block are replaced.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    Spaces,
    /// `_` on the block's first line and spaces on any later line, so that a
    /// multi-line expression does not leave placeholder text at the start of a
    /// line where YAML would read it as a new, unindented node.
    Placeholder,
}

/// Builds the masked text for `src` given its blocks.
fn render(src: &str, blocks: &[JinjaBlock]) -> String {
    let fills = fills(src, blocks);
    let mut out = String::with_capacity(src.len());
    let mut next = 0; // Index of the first block that does not end before the current offset.
    let mut past_first_line = false;
    for (offset, ch) in src.char_indices() {
        while blocks.get(next).is_some_and(|b| b.range.end <= offset) {
            next += 1;
            past_first_line = false;
        }
        let inside = blocks.get(next).is_some_and(|b| b.range.start <= offset && offset < b.range.end);
        if !inside || ch == '\n' || ch == '\r' {
            if inside && ch == '\n' {
                past_first_line = true;
            }
            out.push(ch);
            continue;
        }
        let fill = fills.get(next).copied().unwrap_or(Fill::Spaces);
        let replacement = if fill == Fill::Placeholder && !past_first_line { '_' } else { ' ' };
        // Every byte of the character becomes one ASCII byte, so the length is kept.
        for _ in 0..ch.len_utf8() {
            out.push(replacement);
        }
    }
    out
}

/// Decides the fill of each block: expressions that share a line with
/// non-Jinja, non-whitespace text get placeholders; everything else spaces.
fn fills(src: &str, blocks: &[JinjaBlock]) -> Vec<Fill> {
    let bytes = src.as_bytes();
    // `line_starts[k]` is the offset of line k; `has_text[k]` is whether line k
    // has any non-whitespace byte outside every block.
    let mut line_starts = vec![0usize];
    let mut has_text = vec![false];
    let mut next = 0;
    for (offset, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            line_starts.push(offset + 1);
            has_text.push(false);
            continue;
        }
        while blocks.get(next).is_some_and(|blk| blk.range.end <= offset) {
            next += 1;
        }
        let inside = blocks.get(next).is_some_and(|blk| blk.range.start <= offset && offset < blk.range.end);
        if !inside && !matches!(b, b' ' | b'\t' | b'\r') {
            if let Some(flag) = has_text.last_mut() {
                *flag = true;
            }
        }
    }
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
    blocks
        .iter()
        .map(|block| {
            if block.kind != JinjaKind::Expression {
                return Fill::Spaces;
            }
            let first = line_of(block.range.start);
            let last = line_of(block.range.end.saturating_sub(1).max(block.range.start));
            let shares_line = has_text.get(first..=last).is_some_and(|lines| lines.iter().any(|&t| t));
            if shares_line {
                Fill::Placeholder
            } else {
                Fill::Spaces
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};
    use proptest::prelude::*;

    /// Renders the masked text (with `|` marking line ends so trailing spaces
    /// are visible) followed by one line per block.
    fn check(src: &str, expect: Expect) {
        let masked = mask(src);
        assert_invariants(src, &masked);
        let mut out = String::new();
        for line in masked.text.split('\n') {
            out.push_str(&line.replace('\r', "\\r"));
            out.push_str("|\n");
        }
        for b in &masked.blocks {
            out.push_str(&format!("{:?} {:?} {:?} {:?}\n", b.range, b.kind, b.keyword, &src[b.range.clone()]));
        }
        expect.assert_eq(&out);
    }

    fn assert_invariants(src: &str, masked: &Masked) {
        assert_eq!(masked.text.len(), src.len());
        for (i, (a, b)) in src.bytes().zip(masked.text.bytes()).enumerate() {
            if a == b'\n' || a == b'\r' {
                assert_eq!(a, b, "line break moved at {i}");
            } else if b == b'\n' || b == b'\r' {
                panic!("line break invented at {i}");
            }
        }
        let mut prev_end = 0;
        for b in &masked.blocks {
            assert!(b.range.start >= prev_end && b.range.start < b.range.end);
            assert!(b.range.end <= src.len());
            prev_end = b.range.end;
        }
    }

    #[test]
    fn plain_yaml_is_untouched() {
        let src = "a: 1\nb:\n  - c\n";
        let masked = mask(src);
        assert_eq!(masked.text, src);
        assert!(!masked.is_templated());
        assert!(!is_templated(src));
        assert!(is_templated("x {# y"));
    }

    #[test]
    fn statements_comments_and_expressions() {
        check(
            r#"{% set os = grains['os'] %}
{# a comment #}
{{ id }}_pkg:
  pkg.installed:
    - name: {{ pillar.get("pkg", "vim") }}
    - text: "{{ a }}"
{{ macro() }}
  {{- x -}}
"#,
            expect![[r#"
                                           |
                               |
                _________pkg:|
                  pkg.installed:|
                    - name: ______________________________|
                    - text: "_______"|
                             |
                           |
                |
                0..27 Statement Some("set") "{% set os = grains['os'] %}"
                28..43 Comment None "{# a comment #}"
                44..52 Expression None "{{ id }}"
                87..117 Expression None "{{ pillar.get(\"pkg\", \"vim\") }}"
                131..138 Expression None "{{ a }}"
                140..153 Expression None "{{ macro() }}"
                156..165 Expression None "{{- x -}}"
            "#]],
        );
    }

    #[test]
    fn expression_alone_with_other_blocks_is_blank() {
        check(
            "{% if a %}{{ x }}{% endif %}\nk: {{ a }}{{ b }}\n",
            expect![[r#"
                                            |
                k: ______________|
                |
                0..10 Statement Some("if") "{% if a %}"
                10..17 Expression None "{{ x }}"
                17..28 Statement Some("endif") "{% endif %}"
                32..39 Expression None "{{ a }}"
                39..46 Expression None "{{ b }}"
            "#]],
        );
    }

    #[test]
    fn delimiters_inside_strings_and_brackets() {
        check(
            r#"a: {{ "}}" }} b
{% set x = '%}' %}c
d: {{ {'k': {'v': 1}} }} e
f: {{ 'it\'s }}' }}
"#,
            expect![[r#"
                a: __________ b|
                                  c|
                d: _____________________ e|
                f: ________________|
                |
                3..13 Expression None "{{ \"}}\" }}"
                16..34 Statement Some("set") "{% set x = '%}' %}"
                39..60 Expression None "{{ {'k': {'v': 1}} }}"
                66..82 Expression None "{{ 'it\\'s }}' }}"
            "#]],
        );
    }

    #[test]
    fn unclosed_quote_is_an_ordinary_character() {
        // No second `'` exists, so Jinja could not lex a string; the block still ends at `}}`.
        check(
            "a: {{ it's }}\nb: 1\n",
            expect![[r#"
                a: __________|
                b: 1|
                |
                3..13 Expression None "{{ it's }}"
            "#]],
        );
    }

    #[test]
    fn raw_blocks_keep_their_body() {
        check(
            "{% raw %}a: {{ x }}{% endraw %}\n{%- raw -%}\n{# kept #}\n{%- endraw %}\nb: {{ y }}\n",
            expect![[r#"
                         a: {{ x }}            |
                           |
                {# kept #}|
                             |
                b: _______|
                |
                0..9 Statement Some("raw") "{% raw %}"
                19..31 Statement Some("endraw") "{% endraw %}"
                32..43 Statement Some("raw") "{%- raw -%}"
                55..68 Statement Some("endraw") "{%- endraw %}"
                72..79 Expression None "{{ y }}"
            "#]],
        );
        // A raw tag without an end tag leaves the rest of the file literal.
        check(
            "{% raw %}\n{{ x }}\n",
            expect![[r#"
                         |
                {{ x }}|
                |
                0..9 Statement Some("raw") "{% raw %}"
            "#]],
        );
        // `{% raw x %}` is not a raw block.
        let masked = mask("{% raw x %}{{ y }}");
        assert_eq!(masked.blocks.len(), 2);
    }

    #[test]
    fn unterminated_blocks_run_to_the_end() {
        check(
            "a: 1\nb: {{ x\nc: 2\n",
            expect![[r#"
                a: 1|
                b: ____|
                    |
                |
                8..18 Expression None "{{ x\nc: 2\n"
            "#]],
        );
        check(
            "{% if \"x %}\n",
            expect![[r#"
                           |
                |
                0..11 Statement Some("if") "{% if \"x %}"
            "#]],
        );
        for src in ["{", "{%", "{{", "{#", "{{-", "{% '", "a {{ (", "{{ }", "}}%}#}"] {
            let masked = mask(src);
            assert_invariants(src, &masked);
        }
    }

    #[test]
    fn non_ascii_and_crlf_are_preserved() {
        check(
            "k: {{ 'ß💣' }}\r\n{# ℝ\r\n #}\r\nv: ß\r\n",
            expect![[r#"
                k: ______________\r|
                      \r|
                   \r|
                v: ß\r|
                |
                3..17 Expression None "{{ 'ß💣' }}"
                19..30 Comment None "{# ℝ\r\n #}"
            "#]],
        );
    }

    #[test]
    fn multi_line_expression_fills_only_its_first_line() {
        check(
            "a: {{ f(1,\n       2) }}\nb: 1\n",
            expect![[r#"
                a: _______|
                            |
                b: 1|
                |
                3..23 Expression None "{{ f(1,\n       2) }}"
            "#]],
        );
    }

    #[test]
    fn keywords() {
        let masked = mask("{%- if x %}{%+for y in z%}{%endfor-%}{% %}{%  set_x %}{% 1 %}{{ if }}{# if #}");
        let kw: Vec<_> = masked.blocks.iter().map(|b| b.keyword.as_deref()).collect();
        assert_eq!(kw, [Some("if"), Some("for"), Some("endfor"), None, Some("set_x"), None, None, None]);
    }

    #[test]
    fn detached_bodies_are_blanked() {
        let src = "{% macro m(a) -%}\nNone\n{%- endmacro %}\n{% set b %}\n- ß\n{% endset %}\n{% set c = 1 %}\nk: {{ c }}\n{% call m(1) %}\nTrue\n{% endcall %}\nz: 1\n{% set open %}\nx\n";
        let mut masked = mask(src);
        masked.blank_detached_bodies(src);
        assert_invariants(src, &masked);
        expect![[r#"
            "                 \n    \n               \n           \n    \n            \n               \nk: _______\n               \n    \n             \nz: 1\n              \n \n"
        "#]]
        .assert_debug_eq(&masked.text);
        assert!(is_block_set("{%- set x | upper -%}") && !is_block_set("{% set ns.a, b = 1, 2 %}"));
    }

    #[test]
    fn block_queries() {
        let src = "a: {{ x }}\n{% if y %}\nb: 1\n{% endif %}\n";
        let masked = mask(src);
        assert_eq!(masked.block_at(2), None);
        assert_eq!(masked.block_at(3).map(|b| b.range.clone()), Some(3..10));
        assert_eq!(masked.block_at(9).map(|b| b.range.clone()), Some(3..10));
        assert_eq!(masked.block_at(10), None);
        assert_eq!(masked.block_at(usize::MAX), None);
        assert!(masked.overlaps(0..4));
        assert!(!masked.overlaps(0..3));
        assert!(!masked.overlaps(10..11));
        assert!(masked.overlaps(5..5));
        assert!(!masked.overlaps(3..3) || masked.block_at(3).is_some());
        assert!(masked.overlaps(0..usize::MAX));
        assert!(!masked.overlaps(usize::MAX..usize::MAX));
    }

    #[test]
    fn control_flow_nesting() {
        let src = "\
a: 1
{% if x %}
b: 1
{% for i in l %}
c: {{ i }}
{% else %}
d: 1
{% endfor %}
{% elif y %}
e: 1
{% endif %}
f: 1
{% macro m() %}g{% endmacro %}
{% if z %}
h: 1
";
        let masked = mask(src);
        let at = |needle: &str| src.find(needle).unwrap_or(usize::MAX);
        assert!(!masked.in_control_flow(at("a:")));
        assert!(masked.in_control_flow(at("b:")));
        assert!(masked.in_control_flow(at("c:")));
        assert!(masked.in_control_flow(at("d:")));
        assert!(masked.in_control_flow(at("e:")));
        assert!(!masked.in_control_flow(at("f:")));
        assert!(masked.in_control_flow(at("g{")));
        assert!(masked.in_control_flow(at("h:")), "unterminated if runs to the end");
        assert!(!masked.in_control_flow(at("{% if x")));
        let regions: Vec<_> = masked.control_flow_regions().into_iter().map(|r| src[r].replace('\n', "/")).collect();
        expect![[r#"
            [
                "/b: 1/{% for i in l %}/c: {{ i }}/{% else %}/d: 1/{% endfor %}/{% elif y %}/e: 1/",
                "/c: {{ i }}/{% else %}/d: 1/",
                "g",
                "/h: 1/",
            ]
        "#]]
        .assert_debug_eq(&regions);
        // A stray end tag is ignored, and `endset` does not close an `if`.
        let masked = mask("{% endif %}{% if a %}{% set x %}1{% endset %}b{% endif %}");
        assert_eq!(masked.control_flow_regions(), vec![21..46]);
    }

    /// Fragments that exercise every delimiter, quote and bracket rule.
    const NOISE: &[&str] = &[
        "{%",
        "%}",
        "{{",
        "}}",
        "{#",
        "#}",
        "'",
        "\"",
        "\\",
        "(",
        ")",
        "{",
        "}",
        "\n",
        "\r\n",
        "\r",
        "ß",
        "💣",
        "{% raw %}",
        "{% endraw %}",
        "{% if a %}",
        "{% endif %}",
        " ",
        "x",
        ": ",
    ];

    proptest! {
        /// Any text keeps the length and line-break invariants, and block ranges
        /// stay on character boundaries.
        #[test]
        fn invariants_hold_for_any_text(
            parts in prop::collection::vec(
                prop_oneof![prop::sample::select(NOISE).prop_map(str::to_owned), any::<String>()],
                0..40,
            )
        ) {
            let src = parts.concat();
            let masked = mask(&src);
            assert_invariants(&src, &masked);
            for b in &masked.blocks {
                prop_assert!(src.is_char_boundary(b.range.start) && src.is_char_boundary(b.range.end));
            }
            let _ = masked.control_flow_regions();
        }
    }

    #[test]
    fn never_panics_on_odd_input() {
        let big = "{{ x }}ß\r\n{% if 💣 %}".repeat(10_000);
        for src in ["", "\n", "\r", "{{{{{{", "{%%}", "{#}", "{#}#}", "ß{{ℝ}}💣", "{{ '\\", "{{ \"\\\"", "{% raw %}{% endraw", big.as_str()] {
            let masked = mask(src);
            assert_invariants(src, &masked);
            let _ = masked.in_control_flow(src.len());
            let _ = masked.overlaps(0..src.len());
        }
    }
}
