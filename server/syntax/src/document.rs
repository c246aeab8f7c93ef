//! The incremental document: the source text as a rope, its Jinja mask, and a tree-sitter YAML tree of the masked text that is edited and reparsed in place on every change.
//!
//! Masking is not local: typing `{%` changes the mask of everything after it.
//! So a change is applied to the rope, the whole text is masked again, and the
//! edit given to tree-sitter is the smallest byte range where the old and new
//! masked texts differ (common prefix and suffix). That keeps the incremental
//! tree equal to a fresh parse of the new masked text, at O(n) per change.

use std::ops::Range;
use std::sync::OnceLock;

use ropey::Rope;
use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

use crate::jinja::{mask, Masked};
use crate::line_index::LineIndex;

/// A YAML syntax error found in the masked text, located in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte range in the source (and the masked text), on character boundaries.
    pub range: Range<usize>,
    /// A short description such as "unexpected `]`" or "missing `]`".
    pub message: String,
}

/// One open document. Every accessor reflects the text after the last change.
pub struct Document {
    rope: Rope,
    masked: Masked,
    tree: Tree,
    parser: Parser,
    /// Built on first use after each change, so a burst of keystrokes costs one index.
    line_index: OnceLock<LineIndex>,
    version: u64,
}

impl Document {
    /// Creates a document holding `text`, at version 0.
    pub fn new(text: &str) -> Document {
        let mut parser = yaml_parser();
        let masked = mask(text);
        let tree = parse(&mut parser, &masked.text, None);
        Document { rope: Rope::from_str(text), masked, tree, parser, line_index: OnceLock::new(), version: 0 }
    }

    /// Replaces the byte `range` of the current text with `new_text` (`None`
    /// replaces the whole text) and bumps the version. A range past the end is
    /// clamped to the end, a reversed range is treated as empty at its start,
    /// and ends inside a character are rounded down to its start, so no input
    /// can panic.
    pub fn apply_change(&mut self, range: Option<Range<usize>>, new_text: &str) {
        let len = self.rope.len_bytes();
        let range = range.unwrap_or(0..len);
        let start = self.floor_char_boundary(range.start.min(len));
        let end = self.floor_char_boundary(range.end.clamp(range.start.min(len), len)).max(start);
        let start_char = self.rope.byte_to_char(start);
        let end_char = self.rope.byte_to_char(end);
        self.rope.remove(start_char..end_char);
        self.rope.insert(start_char, new_text);

        let new_masked = mask(&self.rope.to_string());
        if let Some(edit) = masked_edit(&self.masked.text, &new_masked.text) {
            self.tree.edit(&edit);
            self.tree = parse(&mut self.parser, &new_masked.text, Some(&self.tree));
        }
        self.masked = new_masked;
        self.line_index = OnceLock::new();
        self.version += 1;
    }

    /// The current text.
    pub fn text(&self) -> String {
        self.rope.to_string()
    }

    /// The current text as a rope.
    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    /// The YAML tree of the current masked text.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The YAML tree of the current masked text, to keep after the document changes.
    pub fn yaml_tree(&self) -> YamlTree {
        YamlTree { tree: self.tree.clone() }
    }

    /// The current mask and Jinja blocks.
    pub fn masked(&self) -> &Masked {
        &self.masked
    }

    /// The line index of the current text, built on first use after a change.
    pub fn line_index(&self) -> &LineIndex {
        self.line_index.get_or_init(|| LineIndex::new(&self.rope.to_string()))
    }

    /// How many changes have been applied since [`Document::new`].
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The YAML syntax errors of the current tree, in source order: one per
    /// ERROR node (its nested errors are part of it), one per MISSING node, and
    /// one for the first token after the end of the tree when tree-sitter gave
    /// up before the end of the text.
    pub fn syntax_errors(&self) -> Vec<SyntaxError> {
        let root = self.tree.root_node();
        // Whitespace in the masked text is either YAML whitespace or masked Jinja.
        let masked = self.masked.text.as_bytes();
        let significant_end = masked.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |p| p + 1);
        let trailing = masked.get(root.end_byte()..).and_then(|rest| rest.iter().position(|b| !b.is_ascii_whitespace())).map(|p| p + root.end_byte());
        if !root.has_error() && trailing.is_none() {
            return Vec::new();
        }
        let source = self.text();
        let mut errors = Vec::new();
        let mut walk = ErrorWalk { source: &source, significant_end, out: &mut errors };
        if let Some(at) = trailing {
            // The parser stopped at this token, so it, not the partial tree before
            // it, is what the user needs to look at.
            walk.unexpected_token_at(at);
            let mut cursor = root.walk();
            for child in root.children(&mut cursor) {
                walk.visit(child);
            }
        } else {
            walk.visit(root);
        }
        errors.sort_by_key(|e| (e.range.start, e.range.end));
        errors
    }

    /// Rounds a byte offset (at most the length) down to a character start.
    fn floor_char_boundary(&self, offset: usize) -> usize {
        let char_idx = self.rope.byte_to_char(offset);
        self.rope.char_to_byte(char_idx)
    }
}

/// A YAML tree kept apart from its document (cloning is cheap: tree-sitter shares the nodes),
/// for the structure queries: which nodes span several lines, and which enclose an offset.
/// Offsets are those of the text the tree was parsed from.
#[derive(Clone)]
pub struct YamlTree {
    tree: Tree,
}

impl YamlTree {
    /// The byte ranges of the mapping pairs, sequence items and flow collections that span
    /// more than one line, outermost first; each ends at its last non-blank byte.
    pub fn multiline_nodes(&self) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut cursor = self.tree.walk();
        // A cursor walk rather than recursion, so deep nesting cannot overflow the stack.
        loop {
            let node = cursor.node();
            let folds = matches!(node.kind(), "block_mapping_pair" | "block_sequence_item" | "flow_mapping" | "flow_sequence");
            if folds && node.start_position().row < node.end_position().row {
                out.push(node.start_byte()..node.end_byte());
            }
            if node.start_position().row < node.end_position().row && cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return out;
                }
            }
        }
    }

    /// The ranges of the named nodes that contain `offset`, innermost first (a node ending
    /// at `offset` counts, so a cursor just after a word is on it).
    pub fn enclosing(&self, offset: usize) -> Vec<Range<usize>> {
        let root = self.tree.root_node();
        let mut node = root.named_descendant_for_byte_range(offset, offset);
        let mut out: Vec<Range<usize>> = Vec::new();
        while let Some(n) = node {
            let r = n.start_byte()..n.end_byte();
            if r.start <= offset && offset <= r.end && r.start < r.end && out.last() != Some(&r) {
                out.push(r);
            }
            node = n.parent();
        }
        out
    }
}

/// A YAML node as the structure queries read it: what tree-sitter recovered, so a file that is
/// mid-edit or only partly static YAML still has its mappings, sequences and scalars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YamlNode {
    /// Key and value pairs in order (a missing value is [`YamlNode::Empty`]).
    Mapping(Vec<(YamlNode, YamlNode)>),
    Sequence(Vec<YamlNode>),
    /// A scalar as written (quotes included), in the parsed text's offsets.
    Scalar(Range<usize>),
    /// Nothing, an alias, or nesting deeper than [`MAX_DEPTH`].
    Empty,
}

/// How deep [`YamlTree::documents`] follows nesting (the conversion recurses).
pub const MAX_DEPTH: usize = 48;

impl YamlTree {
    /// The top node of each document of the tree.
    pub fn documents(&self) -> Vec<YamlNode> {
        let root = self.tree.root_node();
        let mut cursor = root.walk();
        let docs: Vec<Node<'_>> =
            if root.kind() == "stream" { root.named_children(&mut cursor).filter(|n| n.kind() == "document").collect() } else { vec![root] };
        docs.into_iter()
            .filter_map(|d| {
                let mut c = d.walk();
                let top = d.named_children(&mut c).find(|n| n.kind() != "comment");
                top.map(|n| convert(n, 0))
            })
            .collect()
    }
}

/// A tree-sitter node as a [`YamlNode`].
fn convert(node: Node<'_>, depth: usize) -> YamlNode {
    if depth > MAX_DEPTH {
        return YamlNode::Empty;
    }
    let mut cursor = node.walk();
    match node.kind() {
        "block_node" | "flow_node" => {
            // Past tags and anchors, to the content.
            let content = node.named_children(&mut cursor).find(|n| !matches!(n.kind(), "tag" | "anchor" | "comment"));
            content.map_or(YamlNode::Empty, |n| convert(n, depth + 1))
        }
        "block_mapping" | "flow_mapping" => YamlNode::Mapping(
            node.named_children(&mut cursor)
                .filter(|n| matches!(n.kind(), "block_mapping_pair" | "flow_pair"))
                .map(|pair| {
                    let part = |field: &str| pair.child_by_field_name(field).map_or(YamlNode::Empty, |n| convert(n, depth + 1));
                    (part("key"), part("value"))
                })
                .collect(),
        ),
        "block_sequence" | "flow_sequence" => YamlNode::Sequence(
            node.named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|item| {
                    if item.kind() == "block_sequence_item" {
                        let mut c = item.walk();
                        let inner = item.named_children(&mut c).find(|n| n.kind() != "comment");
                        inner.map_or(YamlNode::Empty, |n| convert(n, depth + 1))
                    } else {
                        convert(item, depth + 1)
                    }
                })
                .collect(),
        ),
        // `{a: 1}` items of a flow sequence.
        "flow_pair" => {
            let part = |field: &str| node.child_by_field_name(field).map_or(YamlNode::Empty, |n| convert(n, depth + 1));
            YamlNode::Mapping(vec![(part("key"), part("value"))])
        }
        "plain_scalar" | "single_quote_scalar" | "double_quote_scalar" | "block_scalar" => YamlNode::Scalar(node.start_byte()..node.end_byte()),
        _ => YamlNode::Empty,
    }
}

impl std::fmt::Debug for YamlTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("YamlTree").field("root", &self.tree.root_node().kind()).finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("version", &self.version)
            .field("len", &self.rope.len_bytes())
            // Not the whole S-expression: it is as long as the text and built recursively.
            .field("root", &self.tree.root_node().kind())
            .field("has_error", &self.tree.root_node().has_error())
            .finish_non_exhaustive()
    }
}

/// A parser for tree-sitter-yaml.
fn yaml_parser() -> Parser {
    let mut parser = Parser::new();
    // This only fails when the grammar was generated for an ABI the tree-sitter
    // library does not support: a build problem, never a property of the input.
    parser.set_language(&tree_sitter_yaml::LANGUAGE.into()).expect("tree-sitter-yaml is ABI-compatible with the tree-sitter crate");
    parser
}

/// Parses `text`, reusing `old` (already edited) when given.
fn parse(parser: &mut Parser, text: &str, old: Option<&Tree>) -> Tree {
    // `parse` returns None only without a language, or after a timeout or a
    // cancellation; none of them is ever configured here.
    parser.parse(text, old).expect("a parser with a language, no timeout and no cancellation always yields a tree")
}

/// The tree-sitter edit turning `old` into `new`: the common prefix and suffix
/// are kept, the middle is replaced. `None` when the texts are equal.
fn masked_edit(old: &str, new: &str) -> Option<InputEdit> {
    let (a, b) = (old, new);
    let crate::text_diff::Changed { start: prefix, old_end, new_end } = crate::text_diff::changed(old, new)?;
    Some(InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_at(a, prefix),
        old_end_position: point_at(a, old_end),
        new_end_position: point_at(b, new_end),
    })
}

/// The tree-sitter point of `offset`: rows count `\n` only and columns count bytes,
/// exactly as tree-sitter's lexer does (so not the rope's or the line index's lines).
fn point_at(text: &str, offset: usize) -> Point {
    let (row, column) = crate::line_index::byte_point(text, offset);
    Point { row, column }
}

/// Collects syntax errors from the parts of the tree that contain them.
struct ErrorWalk<'a> {
    source: &'a str,
    /// The end of the last non-whitespace byte of the masked text.
    significant_end: usize,
    out: &'a mut Vec<SyntaxError>,
}

impl ErrorWalk<'_> {
    /// Reports ERROR and MISSING nodes at or below `node`. The walk uses a
    /// cursor rather than recursion, so deeply nested input cannot overflow the stack.
    fn visit(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        loop {
            let current = cursor.node();
            let descend = if current.is_missing() {
                self.missing_node(current);
                false
            } else if current.is_error() {
                self.error_node(current);
                false
            } else {
                current.has_error()
            };
            if descend && cursor.goto_first_child() {
                continue;
            }
            // Move to the next node in document order that is not below the current one.
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    fn missing_node(&mut self, node: Node<'_>) {
        let at = floor_char_boundary(self.source, node.start_byte());
        let end = floor_char_boundary(self.source, node.end_byte()).max(at);
        self.out.push(SyntaxError { range: at..end, message: format!("missing `{}`", node.kind()) });
    }

    fn error_node(&mut self, node: Node<'_>) {
        let start = floor_char_boundary(self.source, node.start_byte());
        let end = ceil_char_boundary(self.source, node.end_byte()).max(start);
        if start == end {
            // An empty ERROR node marks a position; name the token found there.
            self.unexpected_token_at(start);
            return;
        }
        let message = if end >= self.significant_end {
            // The error runs into the end of the text: something was left open.
            "unexpected end of file".to_owned()
        } else {
            let snippet = self.source.get(start..end).map(first_token).unwrap_or_default();
            format!("unexpected `{snippet}`")
        };
        self.out.push(SyntaxError { range: start..end, message });
    }

    /// Reports the whitespace-separated token starting at (or after) `offset`.
    fn unexpected_token_at(&mut self, offset: usize) {
        let start = floor_char_boundary(self.source, offset);
        let rest = self.source.get(start..).unwrap_or("");
        let skipped = rest.len() - rest.trim_start().len();
        let token = first_token(rest);
        let start = start + skipped;
        if token.is_empty() {
            self.out.push(SyntaxError { range: start..start, message: "unexpected end of file".to_owned() });
            return;
        }
        let token_len = rest.split_whitespace().next().map_or(0, str::len);
        self.out.push(SyntaxError { range: start..start + token_len, message: format!("unexpected `{token}`") });
    }
}

/// The first whitespace-separated word of `text`, cut to at most 40 characters.
fn first_token(text: &str) -> String {
    let word = text.split_whitespace().next().unwrap_or("");
    let mut out: String = word.chars().take(40).collect();
    if word.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

/// Rounds `offset` down to a character boundary of `text` (and to its length).
fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Rounds `offset` up to a character boundary of `text` (and down to its length).
fn ceil_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use proptest::prelude::*;

    #[test]
    fn documents_as_plain_nodes() {
        let src = "ß:\n  pkg.installed:\n    - names: [a, {b: c}]\n    - 💣\n  x: &a 'ℝ'\n";
        let docs = Document::new(src).yaml_tree().documents();
        fn show(src: &str, n: &YamlNode) -> String {
            match n {
                YamlNode::Mapping(pairs) => {
                    format!("{{{}}}", pairs.iter().map(|(k, v)| format!("{}: {}", show(src, k), show(src, v))).collect::<Vec<_>>().join(", "))
                }
                YamlNode::Sequence(items) => format!("[{}]", items.iter().map(|i| show(src, i)).collect::<Vec<_>>().join(", ")),
                YamlNode::Scalar(r) => src[r.clone()].to_string(),
                YamlNode::Empty => "~".to_string(),
            }
        }
        let shown: Vec<String> = docs.iter().map(|d| show(src, d)).collect();
        expect![[r#"
            [
                "{ß: {pkg.installed: [{names: [a, {b: c}]}, 💣], x: 'ℝ'}}",
            ]
        "#]]
        .assert_debug_eq(&shown);
    }

    #[test]
    fn multiline_nodes_and_enclosing_ranges() {
        let src = "ß_id:\n  pkg.installed:\n    - names: [a,\n        b]\n{% if x %}\n    - ℝ: 💣\n{% endif %}\none: line\n";
        let tree = Document::new(src).yaml_tree();
        let folds: Vec<&str> = tree.multiline_nodes().into_iter().map(|r| &src[r]).collect();
        expect![[r#"
            [
                "ß_id:\n  pkg.installed:\n    - names: [a,\n        b]\n{% if x %}\n    - ℝ: 💣",
                "pkg.installed:\n    - names: [a,\n        b]\n{% if x %}\n    - ℝ: 💣",
                "- names: [a,\n        b]",
                "names: [a,\n        b]",
                "[a,\n        b]",
            ]
        "#]]
        .assert_debug_eq(&folds);
        let at = src.find("💣").unwrap();
        let chain: Vec<&str> = tree.enclosing(at).into_iter().map(|r| &src[r]).take(4).collect();
        expect![[r#"
            [
                "💣",
                "ℝ: 💣",
                "- ℝ: 💣",
                "- names: [a,\n        b]\n{% if x %}\n    - ℝ: 💣",
            ]
        "#]]
        .assert_debug_eq(&chain);
    }

    /// Every node with its kind and byte range, so trees compare by position too.
    fn dump(tree: &Tree) -> String {
        let mut out = String::new();
        let mut cursor = tree.walk();
        let mut depth = 0usize;
        loop {
            let node = cursor.node();
            out.push_str(&format!(
                "{:indent$}{} {:?}{}\n",
                "",
                node.kind(),
                node.byte_range(),
                if node.is_missing() { " MISSING" } else { "" },
                indent = depth * 2
            ));
            if cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return out;
                }
                depth -= 1;
            }
        }
    }

    fn assert_same_as_fresh(doc: &Document, expected_text: &str) {
        assert_eq!(doc.text(), expected_text);
        let fresh = Document::new(expected_text);
        assert_eq!(doc.masked(), fresh.masked());
        assert_eq!(doc.tree().root_node().to_sexp(), fresh.tree().root_node().to_sexp());
        assert_eq!(dump(doc.tree()), dump(fresh.tree()));
        assert_eq!(doc.syntax_errors(), fresh.syntax_errors());
        assert_eq!(doc.line_index(), fresh.line_index());
    }

    #[test]
    fn parses_the_masked_text() {
        let doc = Document::new("{% if x %}\n{{ id }}_pkg:\n  pkg.installed:\n    - name: {{ n }}\n{% endif %}\n");
        expect!["(stream (document (block_node (block_mapping (block_mapping_pair key: (flow_node (plain_scalar (string_scalar))) value: (block_node (block_mapping (block_mapping_pair key: (flow_node (plain_scalar (string_scalar))) value: (block_node (block_sequence (block_sequence_item (block_node (block_mapping (block_mapping_pair key: (flow_node (plain_scalar (string_scalar))) value: (flow_node (plain_scalar (string_scalar)))))))))))))))))"]
            .assert_eq(&doc.tree().root_node().to_sexp());
        assert!(doc.syntax_errors().is_empty());
        assert_eq!(doc.version(), 0);
    }

    #[test]
    fn an_edit_that_opens_a_block_remasks_what_follows() {
        let mut doc = Document::new("a: 1\nb: [1\n");
        assert!(!doc.syntax_errors().is_empty());
        // Opening a comment before the broken flow sequence hides it entirely.
        doc.apply_change(Some(5..5), "{#");
        assert_same_as_fresh(&doc, "a: 1\n{#b: [1\n");
        assert!(doc.syntax_errors().is_empty());
        assert_eq!(doc.version(), 1);
        doc.apply_change(Some(5..7), "");
        assert_same_as_fresh(&doc, "a: 1\nb: [1\n");
        doc.apply_change(None, "x: y\n");
        assert_same_as_fresh(&doc, "x: y\n");
        assert_eq!(doc.version(), 3);
    }

    #[test]
    fn syntax_error_messages() {
        let mut out = String::new();
        for src in ["[1, 2", "a: 'x\nb: 1", "- a\nb: 1", "a:\n  - b\n c: 1", "]", "a: 1\n]\nb: 2\n", "key: [a, b}\n", "k: {{ x }}\n  ]: ß\n", "ß: [ℝ, 💣}\r\n"]
        {
            let doc = Document::new(src);
            out.push_str(&format!("{src:?}\n"));
            for e in doc.syntax_errors() {
                out.push_str(&format!("  {:?} {}\n", e.range, e.message));
            }
        }
        expect![[r#"
            "[1, 2"
              0..5 unexpected end of file
            "a: 'x\nb: 1"
              3..5 unexpected `'x`
            "- a\nb: 1"
              5..6 unexpected `:`
            "a:\n  - b\n c: 1"
              10..12 unexpected `c:`
            "]"
              0..1 unexpected `]`
            "a: 1\n]\nb: 2\n"
              5..6 unexpected `]`
            "key: [a, b}\n"
              10..11 unexpected `}`
            "k: {{ x }}\n  ]: ß\n"
              0..14 unexpected `k:`
            "ß: [ℝ, 💣}\r\n"
              14..15 unexpected `}`
        "#]]
        .assert_eq(&out);
        for valid in ["", "\n", "a: 1\n# c\n", "a: 1\n---\nb: 2\n...\n", "{# x #}\n", "a: 1\n{% endif %}\n  \n"] {
            assert_eq!(Document::new(valid).syntax_errors(), vec![], "{valid:?}");
        }
    }

    #[test]
    fn crlf_and_non_ascii_survive() {
        let text = "ß: 💣\r\nℝ:\r\n  - {{ 'ß' }}\r\n";
        let mut doc = Document::new(text);
        assert_eq!(doc.text(), text);
        assert_eq!(doc.masked().text, "ß: 💣\r\nℝ:\r\n  - __________\r\n");
        assert!(doc.syntax_errors().is_empty());
        let index = doc.line_index();
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.wide_line_col(crate::line_index::PositionEncoding::Utf16, text.len() - 2), crate::line_index::WideLineCol { line: 2, col: 13 });
        // Replace 💣 (4 bytes) with ℝ (3 bytes), then insert before the last CRLF.
        doc.apply_change(Some(4..8), "ℝ");
        doc.apply_change(Some(doc.text().len() - 2..doc.text().len() - 2), " 💣");
        let expected = "ß: ℝ\r\nℝ:\r\n  - {{ 'ß' }} 💣\r\n";
        assert_same_as_fresh(&doc, expected);
        assert_eq!(doc.rope().len_lines(), 4);
    }

    #[test]
    fn odd_ranges_never_panic() {
        let mut doc = Document::new("ß💣");
        doc.apply_change(Some(1..3), "x"); // Both ends inside characters.
        assert_eq!(doc.text(), "x💣");
        doc.apply_change(Some(100..200), "!");
        assert_eq!(doc.text(), "x💣!");
        #[allow(clippy::reversed_empty_ranges)]
        doc.apply_change(Some(3..1), "?");
        assert_eq!(doc.text(), "x?💣!");
        doc.apply_change(Some(0..usize::MAX), "");
        assert_same_as_fresh(&doc, "");
        assert!(doc.syntax_errors().is_empty());
    }

    #[test]
    fn deep_and_large_input() {
        let deep = "[".repeat(50_000);
        let mut doc = Document::new(&deep);
        assert!(!doc.syntax_errors().is_empty());
        doc.apply_change(Some(0..0), "{{ (");
        let _ = doc.syntax_errors();
        let big = "- {{ x }}: ß\r\n  {% if y %}k: [1, 2]{% endif %}\n".repeat(5_000);
        let mut doc = Document::new(&big);
        doc.apply_change(Some(0..0), "{#");
        doc.apply_change(Some(0..2), "");
        assert_same_as_fresh(&doc, &big);
    }

    /// Text fragments that stress both the YAML and the Jinja layers.
    const FRAGMENTS: &[&str] = &[
        "{% if x %}",
        "{% endif %}",
        "{{ y }}",
        "{#",
        "#}",
        "{%",
        "%}",
        "{{",
        "}}",
        "- ",
        ": ",
        "\n",
        "\r\n",
        "ß",
        "💣",
        "ℝ",
        "a",
        "key",
        "  ",
        "\"",
        "'",
        "[",
        "]",
        "{",
        "}",
        ",",
        "#",
        "|",
        ">",
        "&a",
        "*a",
        "---",
        "{% raw %}",
        "{% endraw %}",
        "\t",
    ];

    fn fragment_text() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..6).prop_map(|v| v.concat())
    }

    /// One edit: where it starts and how much it removes, as fractions of the
    /// current text's characters, and what it inserts.
    fn edit() -> impl Strategy<Value = (f64, f64, String)> {
        (0.0..=1.0f64, 0.0..=0.3f64, fragment_text())
    }

    /// The byte range of `text` covering characters `[frac_start, frac_start + frac_len)`.
    fn char_range(text: &str, frac_start: f64, frac_len: f64) -> Range<usize> {
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let n = bounds.len() - 1;
        let s = ((n as f64) * frac_start) as usize;
        let e = (s + ((n as f64) * frac_len) as usize).min(n);
        bounds[s.min(n)]..bounds[e]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn incremental_equals_fresh(
            initial in prop::collection::vec(fragment_text(), 0..8).prop_map(|v| v.concat()),
            edits in prop::collection::vec(edit(), 1..12),
        ) {
            let mut doc = Document::new(&initial);
            let mut expected = initial.clone();
            for (frac_start, frac_len, insert) in edits {
                let range = char_range(&expected, frac_start, frac_len);
                expected.replace_range(range.clone(), &insert);
                doc.apply_change(Some(range), &insert);
                prop_assert_eq!(doc.text(), expected.clone());
            }
            let fresh = Document::new(&expected);
            prop_assert_eq!(doc.tree().root_node().to_sexp(), fresh.tree().root_node().to_sexp());
            prop_assert_eq!(dump(doc.tree()), dump(fresh.tree()));
            prop_assert_eq!(doc.masked(), fresh.masked());
            prop_assert_eq!(doc.syntax_errors(), fresh.syntax_errors());
        }
    }
}
