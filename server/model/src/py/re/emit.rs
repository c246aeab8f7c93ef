//! A parsed Python pattern written out as fancy-regex.

use super::parse::*;

/// Writes the fancy-regex equivalent of a parsed pattern. Anchors, `.` and character
/// categories are written out explicitly for the flags in effect, so that Python's meaning
/// (`$` also before a final newline, Unicode `\w` = letters, numbers and `_`) survives.
pub(super) struct Emitter<'o> {
    pub(super) out: &'o mut String,
}

pub(super) const WORD: &str = r"\p{L}\p{N}_";
pub(super) const WORD_ASCII: &str = "0-9A-Za-z_";
pub(super) const SPACE: &str = r"\s\x{1c}-\x{1f}";
pub(super) const SPACE_ASCII: &str = r"\x{20}\t\n\r\x{0b}\x{0c}";

impl Emitter<'_> {
    pub(super) fn seq(&mut self, nodes: &[Node], flags: u32) {
        for node in nodes {
            self.node(node, flags);
        }
    }

    pub(super) fn lit(&mut self, c: char) {
        if c.is_ascii_alphanumeric() {
            self.out.push(c);
        } else {
            self.out.push_str(&format!("\\x{{{:x}}}", c as u32));
        }
    }

    pub(super) fn casei_open(&mut self, flags: u32) {
        if flags & FLAG_I != 0 {
            self.out.push_str("(?i:");
        } else {
            self.out.push_str("(?-i:");
        }
    }

    pub(super) fn node(&mut self, node: &Node, flags: u32) {
        let ascii = flags & FLAG_A != 0;
        match node {
            Node::Literal(c) => {
                self.casei_open(flags);
                self.lit(*c);
                self.out.push(')');
            }
            Node::Any => {
                self.out.push_str(if flags & FLAG_S != 0 { "(?s:.)" } else { "(?-s:.)" });
            }
            Node::In { negate, items } => {
                self.casei_open(flags);
                self.out.push('[');
                if *negate {
                    self.out.push('^');
                }
                for item in items {
                    match item {
                        SetItem::Literal(c) => self.lit(*c),
                        SetItem::Range(a, b) => {
                            self.lit(*a);
                            self.out.push('-');
                            self.lit(*b);
                        }
                        SetItem::Category(cat) => self.category(*cat, ascii),
                    }
                }
                self.out.push_str("])");
            }
            Node::At(at) => {
                let w = if ascii { WORD_ASCII } else { WORD };
                let s = match at {
                    At::Beginning if flags & FLAG_M != 0 => "(?m:^)".to_string(),
                    At::Beginning | At::BeginningString => "\\A".to_string(),
                    At::End if flags & FLAG_M != 0 => "(?m:$)".to_string(),
                    At::End => "(?=\\n?\\z)".to_string(),
                    At::EndString => "\\z".to_string(),
                    At::Boundary => format!("(?:(?<=[{w}])(?![{w}])|(?<![{w}])(?=[{w}]))"),
                    // SRE never finds a non-boundary in an empty string.
                    At::NonBoundary => {
                        format!("(?:(?<=(?s:.))|(?=(?s:.)))(?:(?<=[{w}])(?=[{w}])|(?<![{w}])(?![{w}]))")
                    }
                };
                self.out.push_str(&s);
            }
            Node::Branch(alts) => {
                self.out.push_str("(?:");
                for (i, alt) in alts.iter().enumerate() {
                    if i > 0 {
                        self.out.push('|');
                    }
                    self.seq(alt, flags);
                }
                self.out.push(')');
            }
            Node::Repeat { kind, min, max, item } if only_assertions(item) => {
                // fancy-regex refuses to repeat an assertion or nothing. Repeating a
                // zero-width item changes nothing but whether it is tried at all.
                self.out.push_str(if *kind == RepeatKind::Possessive { "(?>" } else { "(?:" });
                match (*min, kind) {
                    (0, RepeatKind::Lazy) => {
                        self.out.push('|');
                        self.seq(item, flags);
                    }
                    (0, _) => {
                        self.seq(item, flags);
                        self.out.push('|');
                    }
                    _ => self.seq(item, flags),
                }
                self.out.push(')');
            }
            Node::Repeat { kind, min, max, item } => {
                self.out.push_str("(?:");
                self.seq(item, flags);
                self.out.push(')');
                if *max == MAXREPEAT {
                    self.out.push_str(&format!("{{{min},}}"));
                } else {
                    self.out.push_str(&format!("{{{min},{max}}}"));
                }
                match kind {
                    RepeatKind::Greedy => {}
                    RepeatKind::Lazy => self.out.push('?'),
                    RepeatKind::Possessive => self.out.push('+'),
                }
            }
            Node::Subpattern { group, add, del, body } => {
                let inner = (flags | add) & !del;
                self.out.push_str(if group.is_some() { "(" } else { "(?:" });
                self.seq(body, inner);
                self.out.push(')');
            }
            Node::Atomic(body) => {
                self.out.push_str("(?>");
                self.seq(body, flags);
                self.out.push(')');
            }
            Node::Assert { behind, negate, body } => {
                self.out.push_str(match (behind, negate) {
                    (false, false) => "(?=",
                    (false, true) => "(?!",
                    (true, false) => "(?<=",
                    (true, true) => "(?<!",
                });
                self.seq(body, flags);
                self.out.push(')');
            }
            Node::GroupRef(g) => self.out.push_str(&format!("\\k<{g}>")),
            Node::GroupRefExists { group, yes, no } => {
                self.out.push_str(&format!("(?({group})"));
                self.out.push_str("(?:");
                self.seq(yes, flags);
                self.out.push(')');
                self.out.push('|');
                self.out.push_str("(?:");
                if let Some(no) = no {
                    self.seq(no, flags);
                }
                self.out.push_str("))");
            }
        }
    }

    /// A category inside a set (a bare class body, or a nested negated class).
    pub(super) fn category(&mut self, cat: Cat, ascii: bool) {
        let (word, space, digit) = if ascii { (WORD_ASCII, SPACE_ASCII, "0-9") } else { (WORD, SPACE, r"\d") };
        let s = match cat {
            Cat::Digit => digit.to_string(),
            Cat::NotDigit => format!("[^{digit}]"),
            Cat::Space => space.to_string(),
            Cat::NotSpace => format!("[^{space}]"),
            Cat::Word => word.to_string(),
            Cat::NotWord => format!("[^{word}]"),
        };
        self.out.push_str(&s);
    }
}
