//! The tokens inside one Jinja block that [`crate::jinja`] found: delimiters, keywords, names,
//! attributes, filters, tests, literals and operators, each with its byte range in the source.
//!
//! This is Jinja2's own lexical layer (`jinja2/lexer.py`: names, strings with backslash
//! escapes, numbers with `_` separators, operators) plus the two places its parser gives a
//! name a role from the token before it: a name after `|` is a filter, a name after `is`
//! (or `is not`) is a test. Nothing is evaluated and no Salt meaning is attached; a block that
//! is not valid Jinja still yields one token per word, so a half-typed block keeps its colours.

use std::ops::Range;

use crate::jinja::{JinjaBlock, JinjaKind};

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// `{{`, `}}`, `{%-`, `-%}`, ...
    Delimiter,
    /// A statement's first word (`if`, `endfor`, `set`), or one of Jinja's keyword operators
    /// (`in`, `not`, `and`, `or`, `is`, `if`, `else`, `import`, `as`, `with`, ...).
    Keyword,
    /// A name that is not an attribute, filter or test.
    Name,
    /// A name after `.` (`grains.os`).
    Attribute,
    /// A name after `|`.
    Filter,
    /// A name after `is` or `is not`.
    Test,
    /// `true`, `false`, `none` (any case Jinja accepts).
    Constant,
    String,
    Number,
    Operator,
    /// A whole `{# ... #}` block.
    Comment,
}

/// One token of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub range: Range<usize>,
    pub kind: TokenKind,
}

/// Words that are keywords wherever they stand inside a block (Jinja's `operators` that are
/// words, and the words of its statements' grammar).
const KEYWORDS: &[&str] =
    &["in", "not", "and", "or", "is", "if", "else", "elif", "import", "from", "as", "with", "without", "context", "recursive", "ignore", "missing"];

/// The tokens of `block` (found by [`crate::jinja::mask`] in `src`), in order.
pub fn tokens(src: &str, block: &JinjaBlock) -> Vec<Token> {
    let Some(text) = src.get(block.range.clone()) else { return Vec::new() };
    let base = block.range.start;
    if block.kind == JinjaKind::Comment {
        return vec![Token { range: block.range.clone(), kind: TokenKind::Comment }];
    }
    let close: &[u8] = if block.kind == JinjaKind::Statement { b"%}" } else { b"}}" };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // The opening delimiter, with its whitespace-control sign.
    let mut i = 2;
    if matches!(bytes.get(2), Some(b'-' | b'+')) {
        i = 3;
    }
    out.push(Token { range: base..base + i, kind: TokenKind::Delimiter });
    // The closing delimiter, when the block has one.
    let mut end = bytes.len();
    let mut closing = None;
    if bytes.len() >= i + 2 && bytes.ends_with(close) {
        let mut start = bytes.len() - 2;
        if start > i && matches!(bytes[start - 1], b'-' | b'+') {
            start -= 1;
        }
        end = start;
        closing = Some(base + start..base + bytes.len());
    }
    let mut first_word = block.kind == JinjaKind::Statement;
    // The role the previous significant token gives the next name.
    #[derive(PartialEq)]
    enum After {
        Nothing,
        Dot,
        Pipe,
        Is,
    }
    let mut after = After::Nothing;
    while i < end {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let kind;
        if b == b'_' || b.is_ascii_alphabetic() || b >= 0x80 {
            // A name: Jinja2 takes Python identifiers, non-ASCII letters included.
            while i < end {
                let c = text[i..].chars().next().unwrap_or(' ');
                if c == '_' || c.is_alphanumeric() {
                    i += c.len_utf8();
                } else {
                    break;
                }
            }
            if i == start {
                // A non-ASCII character that is not a letter: one operator-like token.
                i += text[i..].chars().next().map_or(1, char::len_utf8);
                out.push(Token { range: base + start..base + i, kind: TokenKind::Operator });
                after = After::Nothing;
                continue;
            }
            let word = &text[start..i];
            kind = if first_word {
                TokenKind::Keyword
            } else if after == After::Dot {
                TokenKind::Attribute
            } else if after == After::Pipe {
                TokenKind::Filter
            } else if after == After::Is && word != "not" {
                TokenKind::Test
            } else if matches!(word, "true" | "false" | "none" | "True" | "False" | "None") {
                TokenKind::Constant
            } else if KEYWORDS.contains(&word) {
                TokenKind::Keyword
            } else {
                TokenKind::Name
            };
            after = match (kind, word) {
                (TokenKind::Keyword, "is") => After::Is,
                // `is not x`: the test comes after `not`.
                (TokenKind::Keyword, "not") if after == After::Is => After::Is,
                _ => After::Nothing,
            };
            first_word = false;
        } else if b.is_ascii_digit() {
            while i < end && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.') {
                // `1.5`, `1_000`, `1e3`; a `.` followed by a name is an attribute access.
                if bytes[i] == b'.' && !bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    break;
                }
                i += 1;
            }
            kind = TokenKind::Number;
            after = After::Nothing;
            first_word = false;
        } else if b == b'\'' || b == b'"' {
            i += 1;
            while i < end && bytes[i] != b {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(end);
            kind = TokenKind::String;
            after = After::Nothing;
            first_word = false;
        } else {
            // Operators: Jinja's two-character ones first.
            let two = bytes.get(i..i + 2).unwrap_or(&[]);
            i += if matches!(two, b"//" | b"**" | b"==" | b"!=" | b">=" | b"<=") { 2 } else { 1 };
            after = match b {
                b'.' => After::Dot,
                b'|' => After::Pipe,
                _ => After::Nothing,
            };
            kind = TokenKind::Operator;
            first_word = false;
        }
        // A string cut short by the block's end keeps the bytes up to it, on a boundary.
        let mut stop = i.min(end);
        while !text.is_char_boundary(stop) {
            stop -= 1;
        }
        if stop > start {
            out.push(Token { range: base + start..base + stop, kind });
        }
        i = i.max(stop);
    }
    out.extend(closing.map(|range| Token { range, kind: TokenKind::Delimiter }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jinja::mask;
    use expect_test::{expect, Expect};
    use proptest::prelude::*;

    proptest! {
        /// Any text: tokens lie inside their block, in order, disjoint, on character boundaries.
        #[test]
        fn tokens_stay_inside_their_blocks(src in r#"([{}%#|.'"\\ a-zß💣ℝ0-9=\n-]){0,80}"#) {
            for block in &mask(&src).blocks {
                let mut last = block.range.start;
                for t in tokens(&src, block) {
                    prop_assert!(t.range.start >= last && t.range.start < t.range.end && t.range.end <= block.range.end, "{t:?} in {block:?}");
                    prop_assert!(src.is_char_boundary(t.range.start) && src.is_char_boundary(t.range.end));
                    last = t.range.end;
                }
            }
        }
    }

    fn check(src: &str, expect: Expect) {
        let mut out = String::new();
        for block in &mask(src).blocks {
            for t in tokens(src, block) {
                out.push_str(&format!("{:?} {:?}\n", t.kind, &src[t.range]));
            }
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn expressions_filters_tests_and_attributes() {
        check(
            r#"{{- pillar.get('ß:ℝ', 'x') | default(1.5) | yaml -}} {% if grains.os is not defined and x is ℝ_test %}{# 💣 #}{% endif %}"#,
            expect![[r#"
                Delimiter "{{-"
                Name "pillar"
                Operator "."
                Attribute "get"
                Operator "("
                String "'ß:ℝ'"
                Operator ","
                String "'x'"
                Operator ")"
                Operator "|"
                Filter "default"
                Operator "("
                Number "1.5"
                Operator ")"
                Operator "|"
                Filter "yaml"
                Delimiter "-}}"
                Delimiter "{%"
                Keyword "if"
                Name "grains"
                Operator "."
                Attribute "os"
                Keyword "is"
                Keyword "not"
                Test "defined"
                Keyword "and"
                Name "x"
                Keyword "is"
                Test "ℝ_test"
                Delimiter "%}"
                Comment "{# 💣 #}"
                Delimiter "{%"
                Keyword "endif"
                Delimiter "%}"
            "#]],
        );
    }

    #[test]
    fn statements_strings_and_broken_blocks() {
        check(
            r#"{% from "map.jinja" import nginx as 💣 with context %}{% set a = [1_000, none, "q\"uote"] %}{{ x['it's"#,
            expect![[r#"
                Delimiter "{%"
                Keyword "from"
                String "\"map.jinja\""
                Keyword "import"
                Name "nginx"
                Keyword "as"
                Operator "💣"
                Keyword "with"
                Keyword "context"
                Delimiter "%}"
                Delimiter "{%"
                Keyword "set"
                Name "a"
                Operator "="
                Operator "["
                Number "1_000"
                Operator ","
                Constant "none"
                Operator ","
                String "\"q\\\"uote\""
                Operator "]"
                Delimiter "%}"
                Delimiter "{{"
                Name "x"
                Operator "["
                String "'it'"
                Name "s"
            "#]],
        );
    }
}
