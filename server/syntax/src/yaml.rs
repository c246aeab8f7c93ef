//! YAML text to spanned values, as Salt's `SaltYamlSafeLoader` (PyYAML, YAML 1.1) loads it.
//!
//! This is the one module that knows which YAML crate we use (saphyr-parser, for its event
//! spans); everything else sees [`Node`] and [`Value`]. Scalars are resolved with PyYAML's
//! YAML 1.1 implicit resolvers (`yes`/`on` are booleans, `1e3` is a string, `0755` is the
//! decimal 755 because Salt strips leading zeros), timestamps stay strings (Salt overrides the
//! timestamp constructor), mappings keep insertion order, and a repeated key is Salt's
//! `found conflicting ID` error.
//!
//! Below it: `tree` (what a load gives), `scalar` (PyYAML's scalar rules, Python's `str()`),
//! `repair` (the retry for what libyaml accepts and saphyr refuses).

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, SpannedEventReceiver};

mod repair;
mod scalar;
mod tree;

use repair::{starts_with_marker, Repair};
pub use scalar::{canonical_key, py_float, py_str};
use scalar::{collection_tag_error, resolve_scalar};
pub use tree::{Node, Value, YamlError};

/// Load one YAML document. An empty stream loads as `Null`.
pub fn load(text: &str) -> Result<Node, YamlError> {
    load_with(text, false).map(|(node, _)| node)
}

/// Load, optionally keeping the first of repeated mapping keys instead of failing; the spans
/// of the keys that were dropped are returned. Static analysis of templates needs this: a
/// masked `{% if %}`/`{% else %}` pair often declares the same key twice.
pub fn load_with(text: &str, allow_duplicates: bool) -> Result<(Node, Vec<Range<usize>>), YamlError> {
    let loaded = load_repaired(text, allow_duplicates)?;
    if let Some(offset) = tab_after_flow_plain(text, &loaded.0) {
        return Err(YamlError { offset, message: "found a tab character that violates indentation".to_string() });
    }
    Ok(loaded)
}

fn load_repaired(text: &str, allow_duplicates: bool) -> Result<(Node, Vec<Range<usize>>), YamlError> {
    let first = load_exact(text, allow_duplicates);
    if first.is_err() {
        // Retry with what saphyr refuses and libyaml accepts rewritten (see [`Repair`]; no
        // value changes), and map spans back.
        if let Some(padded) = Repair::new(text) {
            if let Ok((mut node, mut duplicates)) = load_exact(&padded.text, allow_duplicates) {
                padded.unpad_node(&mut node);
                for d in &mut duplicates {
                    *d = padded.unpad(d.start)..padded.unpad(d.end);
                }
                return Ok((node, duplicates));
            }
        }
    }
    first
}

fn load_exact(text: &str, allow_duplicates: bool) -> Result<(Node, Vec<Range<usize>>), YamlError> {
    if let Some(e) = stream_error(text) {
        return Err(e);
    }
    let offsets = CharOffsets::new(text);
    let mut builder = Builder {
        allow_duplicates,
        duplicates: Vec::new(),
        offsets: &offsets,
        stack: Vec::new(),
        anchors: HashMap::new(),
        expanded: 0,
        docs: Vec::new(),
        error: None,
        key_text: HashMap::new(),
        anchor_names: HashMap::new(),
    };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, true) {
        return Err(YamlError { offset: offsets.byte(e.marker().index()), message: e.info().to_string() });
    }
    if let Some(e) = builder.error {
        return Err(e);
    }
    let mut docs = builder.docs;
    let duplicates = builder.duplicates;
    // A document that is one plain scalar may continue over lines that start with a tab.
    let empty = Node { value: Value::Null, span: 0..0 };
    let tab = match docs.first() {
        Some(d) => misplaced_tab(text, d).filter(|&at| matches!(d.value, Value::Seq(_) | Value::Map(_)) || at < d.span.start),
        // An empty stream: any tab at the start of a line or after spaces cannot start a token.
        None => misplaced_tab(text, &empty),
    };
    if let Some(offset) = tab {
        // libyaml (Salt's CSafeLoader) refuses a tab where indentation is expected; saphyr,
        // a YAML 1.2 parser, accepts some of those. Salt words this "Illegal tab character".
        return Err(YamlError { offset, message: "found character '\\t' that cannot start any token".to_string() });
    }
    match docs.len() {
        0 => Ok((Node { value: Value::Null, span: 0..0 }, duplicates)),
        1 => Ok((docs.remove(0), duplicates)),
        _ => Err(YamlError { offset: docs[1].span.start, message: "expected a single document in the stream, but found another document".to_string() }),
    }
}

/// Char index (what saphyr's markers count) to byte offset, via a sparse table.
struct CharOffsets<'a> {
    text: &'a str,
    /// Byte offset of every 64th char (empty for ASCII text, where chars are bytes).
    every64: Vec<usize>,
    ascii: bool,
}

impl<'a> CharOffsets<'a> {
    fn new(text: &'a str) -> Self {
        let ascii = text.is_ascii();
        let every64 = if ascii { Vec::new() } else { text.char_indices().step_by(64).map(|(b, _)| b).collect() };
        CharOffsets { text, every64, ascii }
    }
    fn byte(&self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        let block = char_index / 64;
        let Some(&start) = self.every64.get(block) else {
            return self.text.len();
        };
        let rest = char_index % 64;
        self.text[start..].char_indices().nth(rest).map(|(b, _)| start + b).unwrap_or(self.text.len())
    }
}

enum Frame {
    Seq {
        items: Vec<Node>,
        start: usize,
        anchor: usize,
        /// Inside a flow collection (`[...]`, `{...}`).
        flow: bool,
    },
    Map {
        flow: bool,
        pairs: Vec<(Node, Node)>,
        key: Option<Node>,
        start: usize,
        anchor: usize,
        merges: Vec<Node>,
        /// Canonical forms of the keys so far, so repeated keys are found in O(1).
        seen: std::collections::HashSet<String>,
    },
}

struct Builder<'o, 'a> {
    allow_duplicates: bool,
    duplicates: Vec<Range<usize>>,
    offsets: &'o CharOffsets<'a>,
    stack: Vec<Frame>,
    /// Each anchored node with its size in nodes.
    anchors: HashMap<usize, (Node, usize)>,
    /// How many nodes aliases have copied out so far (see [`MAX_ALIAS_NODES`]).
    expanded: usize,
    docs: Vec<Node>,
    error: Option<YamlError>,
    /// The scalar text of each scalar mapping key by its span start: Salt's merge drops a
    /// merged key whose text equals one of the mapping's own (`x[0].value`), before types.
    key_text: HashMap<usize, String>,
    /// Where each anchor name was first defined.
    anchor_names: HashMap<String, usize>,
}

/// Where a document that is a block scalar meets a line at column 0 (see
/// [`Builder::root_block_scalar_at_column_0`]).
enum Column0 {
    Content(usize),
    Comment(usize),
}

/// What a scalar event was, beyond its value, for the rules of the place it lands in.
#[derive(Default)]
struct ScalarInfo {
    text: String,
    /// A plain `<<`: the merge key.
    merge: bool,
    /// A plain `=`: PyYAML resolves it to the `value` tag, which only a mapping key may have.
    value_tag: bool,
    /// An empty plain scalar with no anchor or tag (what saphyr reports for a missing key).
    empty: bool,
}

impl<'input> SpannedEventReceiver<'input> for Builder<'_, '_> {
    fn on_event(&mut self, ev: Event<'input>, span: Span) {
        if self.error.is_some() {
            return;
        }
        let start = self.offsets.byte(span.start.index());
        let end = self.offsets.byte(span.end.index()).max(start);
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 && self.anchor_error(start) {
                    return;
                }
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let value = match resolve_scalar(&text, style, tag.as_deref()) {
                    Ok(v) => v,
                    Err(message) => {
                        self.error = Some(YamlError { offset: start, message });
                        return;
                    }
                };
                let value = match value {
                    // saphyr ends a block scalar whose last line is the file's last and has no
                    // line break with one anyway, also when that line is only blanks (`|+\n `);
                    // PyYAML has no break to keep (`|`, `|+`).
                    Value::Str(mut s) if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) && self.ends_unbroken(start, end) && s.ends_with('\n') => {
                        s.pop();
                        Value::Str(s)
                    }
                    other => other,
                };
                if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) && self.tab_before_block_indent(start) {
                    self.error = Some(YamlError { offset: start, message: "found a tab character where an indentation space is expected".to_string() });
                    return;
                }
                let value = match self.root_block_scalar_at_column_0(style, start) {
                    Some(Column0::Content(offset)) => {
                        self.error = Some(YamlError { offset, message: "did not find expected <document start>".to_string() });
                        return;
                    }
                    // The scalar is what libyaml reads before the comment.
                    Some(Column0::Comment(offset)) => match load_exact(&self.offsets.text[..offset], false) {
                        Ok((Node { value: v @ Value::Str(_), .. }, _)) => v,
                        _ => value,
                    },
                    None => value,
                };
                if style == ScalarStyle::Plain && self.in_flow() {
                    if let Some(message) = self.flow_plain_error(&text, end) {
                        self.error = Some(YamlError { offset: start, message });
                        return;
                    }
                }
                let node = Node { value, span: start..end };
                let plain = style == ScalarStyle::Plain && tag.is_none();
                let info = ScalarInfo { merge: plain && text == "<<", value_tag: plain && text == "=", empty: plain && text.is_empty() && anchor == 0, text: text.to_string() };
                self.push(node, anchor, Some(info));
            }
            Event::Alias(id) => match self.anchors.get(&id) {
                Some((_, size)) if self.expanded + size > MAX_ALIAS_NODES => {
                    self.error = Some(YamlError {
                        offset: start,
                        message: format!(
                            "the aliases of this document expand to more than {MAX_ALIAS_NODES} values (Salt's loader shares them; salt-analyzer does not load such a document)"
                        ),
                    })
                }
                Some((node, size)) => {
                    self.expanded += size;
                    let node = node.clone();
                    self.push(Node { span: start..end, ..node }, 0, None)
                }
                None => self.error = Some(YamlError { offset: start, message: "found undefined alias".to_string() }),
            },
            Event::SequenceStart(anchor, tag) => {
                if self.collection_start_error(anchor, tag.as_deref(), start, "sequence") {
                    return;
                }
                let flow = self.opens_flow(start, end);
                self.stack.push(Frame::Seq { items: Vec::new(), start, anchor, flow })
            }
            Event::MappingStart(anchor, tag) => {
                if self.collection_start_error(anchor, tag.as_deref(), start, "mapping") {
                    return;
                }
                let flow = self.opens_flow(start, end);
                self.stack.push(Frame::Map { flow, pairs: Vec::new(), key: None, start, anchor, merges: Vec::new(), seen: std::collections::HashSet::new() })
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq { items, start, anchor, .. }) = self.stack.pop() {
                    let end = end.max(items.last().map_or(start, |n| n.span.end));
                    self.push(Node { value: Value::Seq(items), span: start..end }, anchor, None);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map { pairs, start, anchor, merges, .. }) = self.stack.pop() {
                    let end = end.max(pairs.last().map_or(start, |(_, v)| v.span.end));
                    match self.flatten_merges(pairs, merges) {
                        Ok(pairs) => self.push(Node { value: Value::Map(pairs), span: start..end }, anchor, None),
                        Err(e) => self.error = Some(e),
                    }
                }
            }
            _ => {}
        }
    }
}

impl Builder<'_, '_> {
    /// Whether a collection whose start event spans `start..end` is a flow one (saphyr's
    /// event covers the bracket; a block collection's is empty) or inside one.
    fn opens_flow(&self, start: usize, end: usize) -> bool {
        let inside = match self.stack.last() {
            Some(Frame::Seq { flow, .. } | Frame::Map { flow, .. }) => *flow,
            None => false,
        };
        // (After an anchor or a tag, the event starts at those: `!!map {`.)
        inside || (end > start && self.offsets.text.get(start..end).is_some_and(|t| t.starts_with(['[', '{']) || t.trim_end().ends_with(['[', '{'])))
    }

    /// Whether a block scalar whose content starts at `start` has no indentation indicator and
    /// its first line is spaces then a tab (libyaml, finding the indentation, refuses the tab;
    /// saphyr reads it as content).
    fn tab_before_block_indent(&self, start: usize) -> bool {
        let text = self.offsets.text;
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        if !text[start..].starts_with('\t') || !text[line_start..start].bytes().all(|b| b == b' ') {
            return false;
        }
        let header = text[..line_start].trim_end().rsplit('\n').next().unwrap_or("");
        let indicator = header.rfind(['|', '>']).map_or("", |i| &header[i + 1..]);
        !indicator.split('#').next().unwrap_or("").chars().any(|c| c.is_ascii_digit())
    }

    /// A block scalar that is the document (`|` at the top, or after `---`) and has no
    /// indentation indicator is indented at least one column to libyaml; saphyr also takes
    /// lines at column 0. The offset of the first such line (not a comment or a document
    /// marker), where libyaml's scalar has ended and it finds content instead of a document;
    /// or of a comment there, which ends the scalar before anything else does.
    fn root_block_scalar_at_column_0(&self, style: ScalarStyle, start: usize) -> Option<Column0> {
        if !matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) || !self.stack.is_empty() {
            return None;
        }
        let text = self.offsets.text;
        let header = text[..start].rfind(['|', '>'])?;
        let header_line_end = header + text[header..].find('\n')? + 1;
        let indicator = text[header + 1..header_line_end].split('#').next().unwrap_or("");
        if indicator.chars().any(|c| c.is_ascii_digit()) {
            return None;
        }
        let mut offset = header_line_end;
        let mut comment = None;
        for line in text[header_line_end..].split_inclusive('\n') {
            let at = offset;
            offset += line.len();
            let content = line.trim_start_matches(' ').trim_end_matches(['\n', '\r']);
            if content.is_empty() || (comment.is_none() && line.starts_with(' ')) {
                continue;
            }
            if starts_with_marker(line) {
                break;
            }
            if content.starts_with('#') {
                comment = comment.or(Some(at));
                continue;
            }
            return Some(Column0::Content(at));
        }
        comment.map(Column0::Comment)
    }

    /// An anchor or tag Salt refuses on a collection starting at `start` (a `kind`): sets the
    /// error and says so.
    fn collection_start_error(&mut self, anchor: usize, tag: Option<&saphyr_parser::Tag>, start: usize, kind: &str) -> bool {
        if anchor != 0 && self.anchor_error(start) {
            return true;
        }
        if let Some(message) = tag.and_then(|t| collection_tag_error(&format!("{}{}", t.handle, t.suffix), kind)) {
            self.error = Some(YamlError { offset: start, message });
            return true;
        }
        // A tag written right before the collection's bracket (`![`, `!!map{`): libyaml wants a
        // blank or a line break after a tag, where saphyr ends the tag at the bracket.
        if let Some(t) = tag {
            let written = format!("{}{}", t.handle, t.suffix);
            let text = self.offsets.text;
            if text.get(start..).is_some_and(|rest| rest.starts_with(&written) && rest[written.len()..].starts_with(['[', '{'])) {
                self.error = Some(YamlError {
                    offset: start + written.len(),
                    message: "while scanning a tag: did not find expected whitespace or line break".to_string(),
                });
                return true;
            }
        }
        false
    }

    /// Checks the anchor of a node whose span starts at `start` (at its `&`, or at a tag before
    /// it) as libyaml and PyYAML's composer do: a name of ASCII letters, digits, `-` and `_`
    /// (saphyr takes any character but blanks and flow indicators), defined once per document.
    /// Sets the error and says so.
    fn anchor_error(&mut self, start: usize) -> bool {
        let text = self.offsets.text;
        let mut at = start;
        if text[at..].starts_with('!') {
            at += text[at..].find([' ', '\t', '\n', '\r']).unwrap_or(text.len() - at);
            at += text[at..].len() - text[at..].trim_start().len();
        }
        let Some(rest) = text[at..].strip_prefix('&') else {
            return false;
        };
        let name = &rest[..rest.find([' ', '\t', '\n', '\r', ',', '[', ']', '{', '}']).unwrap_or(rest.len())];
        let valid = name.len() - name.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_').len();
        let message = match name[valid..].chars().next() {
            None => match self.anchor_names.insert(name.to_string(), at) {
                // A masked template (`allow_duplicates`) may define it in two branches.
                None => return false,
                Some(_) if self.allow_duplicates => return false,
                Some(first) => {
                    self.anchor_names.insert(name.to_string(), first);
                    let line = text[..first].matches('\n').count() + 1;
                    format!("found duplicate anchor '{name}'; first occurrence on line {line}, second occurrence")
                }
            },
            // libyaml ends the name there, then reads a value indicator: where a value is
            // (`a: &b:`), no key may start; first on its line it is an anchored empty key.
            Some(':')
                if valid > 0 && name.len() == valid + 1 && {
                    let line = &text[text[..at].rfind('\n').map_or(0, |i| i + 1)..at];
                    line.contains(": ") || line.trim_end().ends_with(':')
                } =>
            {
                "mapping values are not allowed in this context".to_string()
            }
            // Where libyaml ends the name and goes on reading (`&a:b`, `&a?`), what it makes of
            // the rest is left to saphyr.
            Some('?' | ':' | '%' | '@' | '`') if valid > 0 => return false,
            _ => "while scanning an anchor: did not find expected alphabetic or numeric character".to_string(),
        };
        self.error = Some(YamlError { offset: at, message });
        true
    }

    fn in_flow(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Seq { flow: true, .. } | Frame::Map { flow: true, .. }))
    }

    /// What libyaml refuses in a plain scalar of a flow collection and saphyr (YAML 1.2)
    /// reads: a `:` right before `,[]{}` (`[a:, b]`), and a scalar starting with `:`, `|` or `>`
    /// (a value indicator, or a block scalar, which a flow collection cannot hold).
    fn flow_plain_error(&self, text: &str, end: usize) -> Option<String> {
        if text.starts_with(':') {
            return Some("did not find expected node content".to_string());
        }
        if text.starts_with(['|', '>']) {
            return Some("found character that cannot start any token".to_string());
        }
        // (An empty scalar is a missing value, after a quoted key's `:` in `{"x":}`.)
        let after = self.offsets.text.as_bytes().get(end..)?;
        (!text.is_empty() && after.first() == Some(&b':') && matches!(after.get(1), Some(b',' | b'[' | b']' | b'{' | b'}')))
            .then(|| "while scanning a plain scalar: found unexpected ':'".to_string())
    }

    /// Whether the text before `at` ends with an explicit-key indicator `?` (comments and
    /// blank lines skipped): `? \n: x` has an empty key, `: x` has none.
    fn explicit_key_before(&self, at: usize) -> bool {
        let before = &self.offsets.text[..at.min(self.offsets.text.len())];
        for line in before.rsplit('\n') {
            let code = match line.find(" #") {
                Some(i) => &line[..i],
                None if line.trim_start().starts_with('#') => "",
                None => line,
            };
            let code = code.trim_end();
            if code.trim().is_empty() {
                continue;
            }
            return code.ends_with('?') && code[..code.len() - 1].chars().next_back().is_none_or(|c| matches!(c, ' ' | '\t' | '-' | '[' | '{' | ','));
        }
        false
    }

    /// The scalar text a mapping key had (`None` for a collection key).
    fn key_text(&self, key: &Node) -> Option<&str> {
        self.key_text.get(&key.span.start).map(String::as_str)
    }

    /// Salt's `flatten_mapping`, then its construction's repeated-key check: the merged pairs
    /// (a list of mappings merged last to first) go first, minus those whose key text is one of
    /// the mapping's own keys' text; a key repeated among the rest is a conflicting ID.
    fn flatten_merges(&mut self, pairs: Vec<(Node, Node)>, merges: Vec<Node>) -> Result<Vec<(Node, Node)>, YamlError> {
        if merges.is_empty() {
            return Ok(pairs);
        }
        let mut merged: Vec<(Node, Node)> = Vec::new();
        for m in merges {
            match m.value {
                Value::Map(inner) => merged.extend(inner),
                Value::Seq(items) => {
                    let mut submerge = Vec::new();
                    for item in items {
                        match item.value {
                            Value::Map(inner) => submerge.push(inner),
                            _ => {
                                return Err(YamlError {
                                    offset: item.span.start,
                                    message: "while constructing a mapping: expected a mapping for merging".to_string(),
                                })
                            }
                        }
                    }
                    merged.extend(submerge.into_iter().rev().flatten());
                }
                _ => {
                    return Err(YamlError {
                        offset: m.span.start,
                        message: "while constructing a mapping: expected a mapping or list of mappings for merging".to_string(),
                    })
                }
            }
        }
        let own: Vec<Option<String>> = pairs.iter().map(|(k, _)| self.key_text(k).map(str::to_string)).collect();
        merged.retain(|(k, _)| self.key_text(k).is_none_or(|t| !own.iter().any(|o| o.as_deref() == Some(t))));
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::with_capacity(merged.len() + pairs.len());
        for (k, v) in merged.into_iter().chain(pairs) {
            if !seen.insert(canonical_key(&k.value)) {
                if self.allow_duplicates {
                    self.duplicates.push(k.span.clone());
                    continue;
                }
                return Err(YamlError { offset: k.span.start, message: format!("while constructing a mapping: found conflicting ID '{}'", py_str(&k.value)) });
            }
            out.push((k, v));
        }
        Ok(out)
    }

    /// Whether a block scalar spanning `start..end` holds the text's last line, which is not
    /// empty and has no line break: a line of content, or of blanks reaching the scalar's
    /// indentation (the column of its first line of content at `start`; a shorter one ends
    /// the scalar, and saphyr adds no break for it either).
    fn ends_unbroken(&self, start: usize, end: usize) -> bool {
        let text = self.offsets.text;
        let last = text.rfind(['\n', '\r']).map_or(0, |i| i + 1);
        if last >= text.len() || end <= last {
            return false;
        }
        let blanks = text[last..].len() - text[last..].trim_start_matches(' ').len();
        if blanks < text.len() - last && !text[last + blanks..].trim().is_empty() {
            return true;
        }
        let line_start = text[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let first_line = start < last && text[line_start..start].bytes().all(|b| b == b' ') && !text[start..].starts_with(['\n', '\r']);
        if !first_line {
            // Only blank lines (the span starts at the header): saphyr adds the break only when
            // there is a single one, the unbroken last.
            return text[start..].find('\n').is_some_and(|i| !text[start + i + 1..].contains(['\n', '\r']));
        }
        blanks >= start - line_start
    }
}

/// What libyaml refuses before parsing and saphyr lets through: a character YAML 1.1 does not
/// allow in a stream (PyYAML's `ReaderError`), a `%YAML` directive of another version than
/// 1.1 or 1.2, and a document end marker `...` before any document.
fn stream_error(text: &str) -> Option<YamlError> {
    let bad = text
        .char_indices()
        .find(|&(_, c)| !matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..));
    if let Some((offset, c)) = bad {
        return Some(YamlError { offset, message: format!("unacceptable character #x{:04x}: special characters are not allowed", c as u32) });
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.strip_prefix('\u{feff}').unwrap_or(line);
        let at = offset + (line.len() - body.len());
        offset += line.len();
        let code = body.trim_end();
        if code.trim_start().is_empty() || code.trim_start().starts_with('#') {
            continue;
        }
        if let Some(version) = code.strip_prefix("%YAML").filter(|v| v.starts_with([' ', '\t'])) {
            let version = version.split('#').next().unwrap_or("").trim();
            if !matches!(version, "1.1" | "1.2") {
                return Some(YamlError { offset: at, message: "found incompatible YAML document".to_string() });
            }
            continue;
        }
        if let Some(rest) = code.strip_prefix('%') {
            // libyaml knows two directives and reads a name of ASCII letters, digits, `-`, `_`.
            let name_len = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_').len();
            let message = if name_len == 0 {
                "could not find expected directive name"
            } else if !rest[name_len..].is_empty() && !rest[name_len..].starts_with([' ', '\t']) {
                "found unexpected non-alphabetical character"
            } else if !matches!(&rest[..name_len], "YAML" | "TAG") {
                "found unknown directive name"
            } else {
                continue;
            };
            return Some(YamlError { offset: at, message: format!("while scanning a directive: {message}") });
        }
        if starts_with_marker(body) && body.starts_with("...") {
            return Some(YamlError { offset: at, message: "did not find expected node content".to_string() });
        }
        break;
    }
    None
}

/// The offset of a tab libyaml refuses in the block context and saphyr accepts: at the start
/// of a line (blank, comment, content or a plain or block scalar's line: only a quoted
/// scalar's or a flow collection's may), after spaces before a line's content, and right after
/// a block indicator (`- `, `? `, or a `:` starting a line).
fn misplaced_tab(text: &str, doc: &Node) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        if !line.contains('\t') {
            continue;
        }
        if line.starts_with('\t') {
            if !inside_quoted_or_flow(text, doc, at) {
                return Some(at);
            }
            continue;
        }
        // Indentation, then block indicators each followed by blanks.
        let bytes = line.as_bytes();
        let mut i = line.len() - line.trim_start_matches(' ').len();
        let mut indicator = false;
        loop {
            if bytes.get(i) == Some(&b'\t') {
                let content = line[i..].trim_start_matches([' ', '\t']);
                let blank = content.trim().is_empty() || content.starts_with('#');
                // A line of blanks (or a comment) with a tab after spaces: only a plain
                // scalar's scan of the blanks after it reads that tab, and only right of the
                // indentation of the collection holding it (libyaml: "found a tab character that
                // violates indentation"); elsewhere it cannot start a token.
                let after_plain = || plain_scalar_before(text, doc, at, None).is_some_and(|parent| i > parent.unwrap_or(0) || parent.is_none() && i > 0);
                if (indicator || !blank || !after_plain()) && !inside_quoted_or_flow(text, doc, at + i) && !inside_scalar(doc, at + i) {
                    return Some(at + i);
                }
                break;
            }
            match bytes.get(i) {
                Some(b'-' | b'?' | b':') if matches!(bytes.get(i + 1), Some(b' ' | b'\t' | b'\n' | b'\r') | None) => {
                    if bytes[i] == b':' && indicator {
                        break;
                    }
                    indicator = true;
                    i += 1;
                    while bytes.get(i) == Some(&b' ') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
    }
    None
}

/// If a plain scalar of the block context ends right before `at` (blanks and line breaks
/// between), the column of the block collection holding it (`None` at the top).
fn plain_scalar_before(text: &str, node: &Node, at: usize, parent: Option<usize>) -> Option<Option<usize>> {
    plain_before(text, node, at, parent, false)
}

/// [`plain_scalar_before`], also looking into flow collections (their scalars keep the column
/// of the block collection holding the flow one).
fn plain_before(text: &str, node: &Node, at: usize, parent: Option<usize>, into_flow: bool) -> Option<Option<usize>> {
    let first = text.as_bytes().get(node.span.start).copied();
    match &node.value {
        Value::Seq(items) if matches!(first, Some(b'[' | b'{')) => {
            items.iter().find_map(|n| plain_before(text, n, at, parent, into_flow)).filter(|_| into_flow)
        }
        Value::Map(pairs) if matches!(first, Some(b'[' | b'{')) => pairs
            .iter()
            .find_map(|(k, v)| plain_before(text, k, at, parent, into_flow).or_else(|| plain_before(text, v, at, parent, into_flow)))
            .filter(|_| into_flow),
        Value::Seq(items) => {
            // Its span starts at its first item: the column is its `-`'s.
            let start = column_of_content(text, node.span.start);
            let line = node.span.start + text[node.span.start..].len() - text[node.span.start..].trim_start().len() - start;
            let col = text[line..line + start].rfind('-').unwrap_or(start);
            items.iter().find_map(|n| plain_before(text, n, at, Some(col), into_flow))
        }
        Value::Map(pairs) => {
            let col = column_of_content(text, node.span.start);
            pairs.iter().find_map(|(k, v)| plain_before(text, k, at, Some(col), into_flow).or_else(|| plain_before(text, v, at, Some(col), into_flow)))
        }
        _ => {
            let plain = node.span.end > node.span.start && !matches!(first, Some(b'\'' | b'"' | b'|' | b'>'));
            // In a flow collection, a plain scalar's own continuation lines: libyaml reads their
            // leading blanks with the same scan as the blanks after it.
            if plain && into_flow && node.span.start < at && at < node.span.end {
                let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let leading = text[line..at].bytes().all(|b| matches!(b, b' ' | b'\t'));
                return (line > node.span.start && leading).then_some(parent);
            }
            let between = text.get(node.span.end..at)?;
            (plain && between.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))).then_some(parent)
        }
    }
}

/// Whether a tab at column `col` in a line's leading blanks, in a flow collection, is in the
/// blanks after a plain scalar and left of the indentation of the block collection holding
/// the flow one: libyaml's plain scalar scan refuses it there ("found a tab character that
/// violates indentation"), its scan between tokens would not.
/// Checked on the text as written (the repair moves such lines right).
fn tab_after_flow_plain(text: &str, doc: &Node) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let col = line.len() - line.trim_start_matches(' ').len();
        let tab = at + col;
        if line.as_bytes().get(col) == Some(&b'\t')
            && inside_quoted_or_flow(text, doc, tab)
            && plain_before(text, doc, tab, None, true).is_some_and(|parent| parent.is_some_and(|p| col <= p))
        {
            return Some(tab);
        }
    }
    None
}

/// The column of the first character that is not a blank or a line break at or after `at`
/// (a block collection's span may start before its first `-` or key).
fn column_of_content(text: &str, at: usize) -> usize {
    let at = at + text[at..].len() - text[at..].trim_start().len();
    at - text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Whether `offset` is inside a quoted scalar or a flow collection of `node`.
fn inside_quoted_or_flow(text: &str, node: &Node, offset: usize) -> bool {
    let starts = |n: &Node, set: &[u8]| text.as_bytes().get(n.span.start).is_some_and(|b| set.contains(b));
    let inside = node.span.start < offset && offset < node.span.end;
    match &node.value {
        Value::Str(_) => inside && starts(node, b"'\""),
        Value::Seq(_) | Value::Map(_) if inside && starts(node, b"[{") => true,
        Value::Seq(items) => items.iter().any(|n| inside_quoted_or_flow(text, n, offset)),
        Value::Map(pairs) => pairs.iter().any(|(k, v)| inside_quoted_or_flow(text, k, offset) || inside_quoted_or_flow(text, v, offset)),
        _ => false,
    }
}

/// Whether `offset` is inside any scalar of `node` (a multi-line plain scalar's continuation
/// may start with spaces and a tab).
fn inside_scalar(node: &Node, offset: usize) -> bool {
    match &node.value {
        Value::Seq(items) => items.iter().any(|n| inside_scalar(n, offset)),
        Value::Map(pairs) => pairs.iter().any(|(k, v)| inside_scalar(k, offset) || inside_scalar(v, offset)),
        _ => node.span.start < offset && offset < node.span.end,
    }
}

/// How many values the aliases of one document may copy out. PyYAML shares an aliased node
/// (a "billion laughs" document costs Salt nothing), the values here are trees, so each alias is
/// a copy: past this many, the document is one clear error instead of minutes of copying.
/// Documents that use anchors for what they are for stay far below it.
pub const MAX_ALIAS_NODES: usize = 100_000;

/// The number of nodes in `node`'s tree, counted without recursion.
fn size(node: &Node) -> usize {
    let mut n = 0;
    let mut todo = vec![node];
    while let Some(node) = todo.pop() {
        n += 1;
        match &node.value {
            Value::Seq(items) => todo.extend(items),
            Value::Map(pairs) => todo.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    n
}

/// Sentinel key meaning "this key was `<<`".
const MERGE_KEY: &str = "\u{0}<<merge>>";

impl Builder<'_, '_> {
    fn push(&mut self, mut node: Node, anchor: usize, scalar: Option<ScalarInfo>) {
        if anchor != 0 {
            self.anchors.insert(anchor, (node.clone(), size(&node)));
        }
        let info = scalar.unwrap_or_default();
        let key_position = matches!(self.stack.last(), Some(Frame::Map { key: None, .. }));
        if key_position && info.empty && !self.explicit_key_before(node.span.start) {
            // libyaml has no empty implicit key: `: value` is no mapping entry.
            let flow = matches!(self.stack.last(), Some(Frame::Map { flow: true, .. }));
            let message = if flow { "did not find expected node content" } else { "while parsing a block mapping: did not find expected key" };
            self.error = Some(YamlError { offset: node.span.start, message: message.to_string() });
            return;
        }
        if key_position && self.offsets.text.get(node.span.clone()).is_some_and(|t| t.contains(['\n', '\r'])) && !self.explicit_key_before(node.span.start) {
            // libyaml's implicit keys are on one line (a simple key goes stale at a line break).
            let flow = matches!(self.stack.last(), Some(Frame::Map { flow: true, .. }));
            let message = if flow { "did not find expected ',' or '}'" } else { "could not find expected ':'" };
            self.error = Some(YamlError { offset: node.span.start, message: message.to_string() });
            return;
        }
        if (info.value_tag || info.merge) && !key_position {
            let tag = if info.merge { "merge" } else { "value" };
            self.error =
                Some(YamlError { offset: node.span.start, message: format!("could not determine a constructor for the tag 'tag:yaml.org,2002:{tag}'") });
            return;
        }
        if key_position && !matches!(node.value, Value::Seq(_) | Value::Map(_)) {
            self.key_text.insert(node.span.start, info.text);
        }
        let is_merge = info.merge;
        match self.stack.last_mut() {
            None => self.docs.push(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { pairs, key, merges, seen, .. }) => match key.take() {
                None => {
                    if is_merge {
                        node.value = Value::Str(MERGE_KEY.to_string());
                    }
                    *key = Some(node);
                }
                Some(k) if k.as_str() == Some(MERGE_KEY) => merges.push(node),
                Some(k) => {
                    if matches!(k.value, Value::Seq(_) | Value::Map(_)) {
                        self.error = Some(YamlError { offset: k.span.start, message: "while constructing a mapping: found unacceptable key".to_string() });
                        return;
                    }
                    if !seen.insert(canonical_key(&k.value)) {
                        if self.allow_duplicates {
                            self.duplicates.push(k.span.clone());
                            return;
                        }
                        self.error = Some(YamlError {
                            offset: k.span.start,
                            message: format!("while constructing a mapping: found conflicting ID '{}'", py_str(&k.value)),
                        });
                        return;
                    }
                    pairs.push((k, node));
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::scalar::resolve_plain;
    use super::*;

    fn show(n: &Node) -> String {
        match &n.value {
            Value::Seq(items) => format!("[{}]", items.iter().map(show).collect::<Vec<_>>().join(", ")),
            Value::Map(pairs) => format!("{{{}}}", pairs.iter().map(|(k, v)| format!("{}: {}", show(k), show(v))).collect::<Vec<_>>().join(", ")),
            v => format!("{v:?}@{}..{}", n.span.start, n.span.end),
        }
    }

    #[test]
    fn an_alias_bomb_is_one_error_at_once_and_ordinary_aliases_load() {
        let mut text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n".to_string();
        for i in 1..10 {
            text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
        }
        let started = std::time::Instant::now();
        let e = load(&text).unwrap_err();
        assert!(e.message.contains("aliases of this document expand to more than 100000 values"), "{e:?}");
        assert_eq!(&text[e.offset..e.offset + 3], "*a4", "the first alias past the budget");
        // A hang guard, not a benchmark: the copying stops at the budget.
        assert!(started.elapsed().as_secs() < 5);
        let n = load("base: &b {x: 1, y: [2, 3]}\nweb: *b\ndb: {<<: *b, z: 4}\n").unwrap();
        expect_test::expect![[r#"{Str("base")@0..4: {Str("x")@10..11: Int(1)@13..14, Str("y")@16..17: [Int(2)@20..21, Int(3)@23..24]}, Str("web")@27..30: {Str("x")@10..11: Int(1)@13..14, Str("y")@16..17: [Int(2)@20..21, Int(3)@23..24]}, Str("db")@35..37: {Str("x")@10..11: Int(1)@13..14, Str("y")@16..17: [Int(2)@20..21, Int(3)@23..24], Str("z")@48..49: Int(4)@51..52}}"#]]
        .assert_eq(&show(&n));
    }

    #[test]
    fn flow_continuation_left_of_its_key() {
        // PyYAML accepts this (Salt's `yaml` filter wraps at 80 columns); saphyr alone does not.
        let text = "a:\n    acls: [[local, all,\n  md5], {k: 'it''s\n  x'}]\n    b: 'q[' # [\n    c: |\n      [\n    d: [1,\n2]\n";
        let n = load(text).unwrap();
        expect_test::expect![[r#"{Str("a")@0..1: {Str("acls")@7..11: [[Str("local")@15..20, Str("all")@22..25, Str("md5")@29..32], {Str("k")@36..37: Str("it's x")@39..50}], Str("b")@57..58: Str("q[")@60..68, Str("c")@73..74: Str("[\n")@84..90, Str("d")@90..91: [Int(1)@94..95, Int(2)@97..98]}}"#]]
        .assert_eq(&show(&n));
        assert_eq!(&text[29..32], "md5");
        assert_eq!(&text[97..98], "2");
        // Still an error where PyYAML also refuses.
        assert!(load("a:\n  b: 1\n c: 2\n").is_err());
    }

    #[test]
    fn what_libyaml_accepts_and_saphyr_did_not() {
        // Each answer is PyYAML's (SaltYamlSafeLoader over libyaml), from tests/conformance/yaml.
        let got = |t: &str| match load(t) {
            Ok(n) => show(&n),
            Err(e) => format!("error at {}: {}", e.offset, e.message),
        };
        // `{{ x|yaml }}` wrapped at 80 columns inside `- key: [..]`, nested, and twice.
        expect_test::expect![[r#"{Str("k")@0..1: [[[Int(1)@10..11, Int(2)@14..15]]]}"#]].assert_eq(&got("k:\n  - - [1,\n 2]\n"));
        expect_test::expect![[r#"[{Str("a")@2..3: [Int(1)@6..7, Int(2)@11..12], Str("b")@16..17: Int(3)@19..20}]"#]]
            .assert_eq(&got("- a: [1,\n  2]\n  b: 3\n"));
        expect_test::expect![[r#"{Str("a")@0..1: {Str("b")@7..8: {Str("x")@11..12: [Int(1)@15..16, Int(2)@18..19, Int(3)@23..24], Str("y")@27..28: {Str("z")@31..32: Int(4)@34..35, Str("w")@38..39: Int(5)@41..42}}, Str("c")@49..50: Int(1)@52..53}}"#]]
            .assert_eq(&got("a:\n    b: {x: [1, 2,\n  3], y: {z: 4,\n w: 5}}\n    c: 1\n"));
        expect_test::expect![[r#"{Str("k0")@0..2: {Str("key")@6..9: {Str("a")@16..19: [Int(1)@22..23]}}}"#]]
            .assert_eq(&got("k0:\n  key: &x {\n\"a\": [1\n]}\n"));
        // A quoted scalar continued at column 0 (saltstack-formulas/users-formula).
        expect_test::expect![[
            r#"{Str("users")@0..5: {Str("bob")@9..12: {Str("fullname")@18..26: Str("Bob Bobson")@28..40, Str("home")@45..49: Str("/home/bob")@51..60}}}"#
        ]]
        .assert_eq(&got("users:\n  bob:\n    fullname: \"Bob\nBobson\"\n    home: /home/bob\n"));
        expect_test::expect![[r#"{Str("a")@0..1: Str("x y")@3..9}"#]].assert_eq(&got("a: 'x\n\ty'\n"));
        // `: value`, an empty implicit key: libyaml finds no key there.
        expect_test::expect!["error at 5: while parsing a block mapping: did not find expected key"].assert_eq(&got("a: 1\n: value\n"));
        expect_test::expect!["error at 1: did not find expected node content"].assert_eq(&got("{: x}"));
        expect_test::expect![[r#"{Null@3..3: Str("x")@5..6}"#]].assert_eq(&got("? \n: x"));
        // A comment right after a quote, a tab after `:`.
        expect_test::expect![[r#"{Str("b")@0..1: Str("y")@3..8, Str("a")@9..10: Int(1)@12..13}"#]].assert_eq(&got("b: \"y\"#c\na:\t1"));
        // A bracket in that comment closes nothing: the flow mapping, pasted left of its key,
        // continues on the next line (found by the yaml_load fuzz target).
        expect_test::expect![[r#"{Str("x")@0..1: [{Str("k")@7..8: {Str("a")@11..12: Str("")@14..18}}]}"#]].assert_eq(&got("x:\n  - k: {a: \"\"#}\n}\n"));
        // A tag right before a bracket: libyaml wants a blank after a tag.
        expect_test::expect!["error at 8: while scanning a tag: did not find expected whitespace or line break"].assert_eq(&got("a: {b: ![1]}\n"));
        // In flow, a `:` right after a quote or a bracket is a value indicator (JSON's `"a":{}`):
        // the `{` after it opens a mapping, and a `#` after it starts a comment.
        expect_test::expect![[r#"{Str("x")@0..1: [{Str("k")@7..8: {Str("a")@11..14: {}, Str("b")@19..22: Null@22..22}}]}"#]]
            .assert_eq(&got("x:\n  - k: {\"a\":{}, \"b\":#}\n}\n"));
        // A comment right after a flow indicator (`[]#`, `[1,#c`), also past a wrapped line.
        expect_test::expect![[r#"{Str("a")@0..1: [Int(1)@4..5], Str("b")@9..10: [Int(2)@13..14, Int(3)@19..20], Str("c")@24..25: [Str("x")@28..29, Str("y")@31..32], Str("d")@35..36: [Str("a#b")@39..42]}"#]].assert_eq(&got("a: [1]#c\nb: [2,#x\n 3]#y\nc: [x,\ny]#\nd: [a#b]\n"));
    }

    #[test]
    fn what_libyaml_refuses_and_saphyr_did_not() {
        let err = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("{}: {}", e.offset, e.message));
        let all = [
            "a: !!map [1]",
            "a: !!seq {b: 1}",
            "a: !!str [1]",
            "a: !foo [1]",
            "a: =",
            "a: <<",
            "...\na: 1",
            "%YAML 2.0\n---\na: 1",
            "a: \u{7}",
            "- \ta",
            "a: 1\n\t\n",
            "a:\n  \tb: 1",
            "|\n  \tx\n",
            "[a:, b]",
            "{:x}",
            "{'a\n b': 1}",
            "a: &m {x: 1}\nc: &n {x: 2}\nb:\n  <<: [*m, *n]\n",
            "a: &m {1: x}\nb:\n  <<: *m\n  1.0: y\n",
        ]
        .map(err)
        .join("\n");
        expect_test::expect![[r#"
            3: expected a mapping node, but found sequence
            3: expected a sequence node, but found mapping
            3: expected a scalar node, but found sequence
            3: could not determine a constructor for the tag '!foo'
            3: could not determine a constructor for the tag 'tag:yaml.org,2002:value'
            3: could not determine a constructor for the tag 'tag:yaml.org,2002:merge'
            0: did not find expected node content
            0: found incompatible YAML document
            3: unacceptable character #x0007: special characters are not allowed
            2: found character '\t' that cannot start any token
            5: found character '\t' that cannot start any token
            5: found character '\t' that cannot start any token
            4: found a tab character where an indentation space is expected
            1: while scanning a plain scalar: found unexpected ':'
            1: did not find expected node content
            1: did not find expected ',' or '}'
            7: while constructing a mapping: found conflicting ID 'x'
            27: while constructing a mapping: found conflicting ID '1.0'"#]]
        .assert_eq(&all);
        // Salt's merge drops a merged key whose text is one of the mapping's own, before types.
        expect_test::expect![[r#"{Str("a")@0..1: {Str("1")@7..10: Str("x")@12..13}, Str("b")@15..16: {Int(1)@29..30: Str("y")@32..33}}"#]]
            .assert_eq(&err("a: {'1': x}\nb:\n  <<: *m\n  1: y\n".replace("{'1'", "&m {'1'").as_str()));
    }

    #[test]
    fn block_scalar_at_an_unbroken_end_of_file() {
        // Each as PyYAML loads it; a rendered template often ends like the first.
        let got = |t: &str| load(t).unwrap().as_map().unwrap().iter().map(|(_, v)| show(v)).collect::<Vec<_>>().join(" ");
        expect_test::expect![[r#"Str("z\n")@6..8 Str("x\ny")@15..20"#]].assert_eq(&got("b: |\n z\na: |\n  x\n  y"));
        expect_test::expect![[r#"Str("x\ny\n")@7..13 Str("z\n")@19..21"#]].assert_eq(&got("a: >+\n x\n\n y\nb: |\n z\n"));
        expect_test::expect![[r#"Str("x")@7..8"#]].assert_eq(&got("a: |+\n x"));
        expect_test::expect![[r#"Str("x")@7..8"#]].assert_eq(&got("a: |-\n x"));
        // A last line of only blanks: content where it reaches the indentation, never a break.
        expect_test::expect![[r#"Str("x\n\n ")@7..12"#]].assert_eq(&got("a: |+\n x\n\n  "));
        expect_test::expect![[r#"Str("x\n")@9..12"#]].assert_eq(&got("a: |+\n   x\n "));
        expect_test::expect![[r#"Str("")@3..7"#]].assert_eq(&got("a: >+\n "));
        expect_test::expect![[r#"Str(" x\n")@8..13"#]].assert_eq(&got("a: |2\n   x\n  "));
        // A comment right after the header's indicators.
        expect_test::expect![[r#"Str("x\n")@8..10 Str("y")@18..20"#]].assert_eq(&got("a: |#c\n x\nb: >-#\n y\n"));
        // Only blank lines: one break for each line break after the header.
        expect_test::expect![[r#"Str("\n\n")@3..14"#]].assert_eq(&got("a: |+\n \n\n     "));
        expect_test::expect![[r#"Str("\n")@3..8"#]].assert_eq(&got("a: |+\n\n "));
    }

    #[test]
    fn a_document_that_is_a_block_scalar_is_indented() {
        // libyaml indents it at least one column: a line at column 0 ends it.
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        expect_test::expect!["error at 4: did not find expected <document start>"].assert_eq(&got(">-\n\nx\n"));
        expect_test::expect![[r#"Str("x\n")@7..9"#]].assert_eq(&got("--- |\n x\n#c\n"));
        expect_test::expect![[r#"Str("")@7..8"#]].assert_eq(&got("--- |\n\n#"));
        expect_test::expect!["error at 9: did not find expected <document start>"].assert_eq(&got("|\n x\n#c\n y\n"));
        expect_test::expect![[r#"Str("x\n")@3..5"#]].assert_eq(&got("|\n x\n...\n"));
    }

    #[test]
    fn a_block_scalar_header_at_the_column_of_its_key() {
        // libyaml takes `|` there as the value (nothing else may start a value there).
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        expect_test::expect![[r#"{Str("a")@0..1: {Str("b")@5..6: Str("x\n")@15..19, Str("c")@19..20: Int(1)@22..23}, Str("d")@24..25: Str("")@27..29}"#]]
            .assert_eq(&got("a:\n  b:\n  |\n   x\n  c: 1\nd:\n>\n"));
        expect_test::expect![[r#"[Str("x\n")@6..8, [Str("y")@20..22]]"#]].assert_eq(&got("- \n|\n x\n- -\n  >-\n   y\n"));
        expect_test::expect!["error at 10: simple key expect ':'"].assert_eq(&got("- a:\n|\n x\n"));
        expect_test::expect!["error at 10: simple key expect ':'"].assert_eq(&got("a: 1\n|\n x\n"));
        expect_test::expect!["error at 7: simple key expect ':'"].assert_eq(&got("a:\n[1]\n"));
    }

    #[test]
    fn tabs_on_blank_lines_and_lone_carriage_returns() {
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        // A blank line with a tab: only the blanks after a plain scalar may hold one, right of
        // the indentation of its collection (a Jinja tag indented with a tab leaves such lines).
        expect_test::expect![[r#"{Str("a")@0..1: {Str("b")@5..6: Str("x")@8..9, Str("c")@17..18: Int(1)@20..21}}"#]]
            .assert_eq(&got("a:\n  b: x\n   \t\n  c: 1\n"));
        expect_test::expect![[r#"error at 12: found character '\t' that cannot start any token"#]].assert_eq(&got("a:\n  b: x\n  \t\n  c: 1\n"));
        expect_test::expect![[r#"error at 9: found character '\t' that cannot start any token"#]].assert_eq(&got("a: 'x'\n  \t\nb: 1\n"));
        expect_test::expect![[r#"error at 1: found character '\t' that cannot start any token"#]].assert_eq(&got(" \t\n"));
        // Under an indentless sequence, the collection's column is its `-`'s.
        expect_test::expect![[r#"{Str("a")@0..1: [Str("x")@5..6]}"#]].assert_eq(&got("a:\n- x\n \t\n"));
        // In a quoted scalar it is a line break, and so is a lone CR.
        expect_test::expect![[r#"{Str("a")@0..1: Str("x\ny")@3..12, Str("b")@13..14: [Str("p q")@20..25]}"#]]
            .assert_eq(&got("a: 'x\n\t\n  y'\nb:\r  - 'p\rq'\r\n"));
    }

    #[test]
    fn tagged_numbers_with_blanks_and_a_quoted_key_before_its_colon() {
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        // Python's int() and float() skip blanks; Salt strips an int's leading zeros first.
        expect_test::expect![[
            r#"{Str("a")@0..1: Int(7)@3..13, Str("b")@14..15: Int(755)@17..30, Str("c")@31..32: Float(1.0)@34..46, Str("d")@47..48: Int(-31)@50..64}"#
        ]]
        .assert_eq(&got("a: !!int ' 7'\nb: !!int 0\n  755\nc: !!float '1\t'\nd: !!int '-0x 1f'\n"));
        // `{"x":}`: the value is missing (null), not a plain scalar ending in `:`.
        expect_test::expect![[r#"{Str("a")@0..1: {Str("x")@4..7: Null@7..7, Str("y")@9..12: Null@12..12}}"#]].assert_eq(&got("a: {\"x\":,'y':}\n"));
        expect_test::expect!["error at 4: while scanning a plain scalar: found unexpected ':'"].assert_eq(&got("a: {x:}\n"));
        // The same after a tag or an anchor, which the collection's event starts at.
        expect_test::expect!["error at 10: while scanning a plain scalar: found unexpected ':'"].assert_eq(&got("a: !!map {b:}\n"));
        expect_test::expect![[r#"{Str("a")@0..1: [Int(1)@7..8, Int(2)@11..12]}"#]].assert_eq(&got("a: &x [1,\n\t2]\n"));
    }

    #[test]
    fn the_non_specific_tag_resolves_as_plain() {
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        expect_test::expect![[r#"{Str("a")@0..1: Int(7)@3..8, Str("b")@9..10: [Int(1)@15..16], Str("c")@18..19: Null@21..25, Str("d")@26..27: Int(755)@29..39, Str("e")@39..40: Str("x\n")@42..49}"#]].assert_eq(&got("a: ! '7'\nb: ! [1]\nc: ! ''\nd: ! |\n 0755\ne: ! |\n x\n"));
        expect_test::expect![[r#"error at 3: KeyError: 'yes\n'"#]].assert_eq(&got("a: ! |\n yes\n"));
    }

    #[test]
    fn flow_continuation_lines_with_tabs_and_dashes() {
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        // Tabs leading a continuation line are blanks, except right after a plain scalar and
        // left of the block indentation, where libyaml's plain scalar scan refuses them.
        expect_test::expect![[r#"{Str("k")@0..1: {Str("key")@5..8: [Str("no")@20..24]}}"#]].assert_eq(&got("k:\n  key: !!seq [\n  \"no\",\n\t]\n"));
        expect_test::expect!["error at 13: found a tab character that violates indentation"].assert_eq(&got("a:\n  b: [a\n  \t]\n"));
        expect_test::expect![[r#"{Str("a")@0..1: {Str("b")@5..6: [Str("a")@9..10]}}"#]].assert_eq(&got("a:\n  b: [a\n   \t]\n"));
        // The same scan reads a plain scalar's own continuation lines (found by the yaml_load
        // fuzz target: libyaml loads `[a\n \tb]` after `k: ` at the top, not deep in a block).
        expect_test::expect!["error at 6: found a tab character that violates indentation"].assert_eq(&got("k: [a\n\tb]\n"));
        expect_test::expect![[r#"{Str("k")@0..1: [Str("a b")@4..9]}"#]].assert_eq(&got("k: [a\n \tb]\n"));
        expect_test::expect!["error at 32: found a tab character that violates indentation"].assert_eq(&got("x:\n  y:\n    - z: 1\n      k: [a\n \tb]\n"));
        expect_test::expect!["error at 9: found a tab character that violates indentation"].assert_eq(&got("k: {a: b\n\tc}\n"));
        expect_test::expect![[r#"[Str("a b")@1..5]"#]].assert_eq(&got("[a\n\tb]\n"));
        // A plain scalar continued on the next line of a flow: its quote opens nothing.
        expect_test::expect![[r#"{Str("k")@0..1: [{Str("key")@7..10: [{Str("a")@14..15: Str("b '-3")@17..23}, {Str("c")@27..28: Str("d")@30..33, Str("e")@36..37: Str("f")@39..40}]}]}"#]].assert_eq(&got("k:\n  - key: [{a: b\n '-3}, {c: 'd',\n e: f}]\n"));
        // A lone `-` in a flow is a plain scalar to libyaml.
        expect_test::expect![[r#"{Str("a")@0..1: [Str("-")@4..5, [Str("-")@8..9], {Str("x")@13..14: Str("-")@16..17}]}"#]]
            .assert_eq(&got("a: [-, [-], {x: -}]\n"));
    }

    #[test]
    fn directives_and_markers_before_the_document() {
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        // libyaml knows only %YAML and %TAG, and reads names of letters, digits, `-`, `_`.
        expect_test::expect!["error at 0: while scanning a directive: found unknown directive name"].assert_eq(&got("%FOO bar\n---\na: 1\n"));
        expect_test::expect!["error at 0: while scanning a directive: found unexpected non-alphabetical character"].assert_eq(&got("%YAM.1\n---\na: 1\n"));
        expect_test::expect!["error at 0: while scanning a directive: could not find expected directive name"].assert_eq(&got("%]Y 1.1\n---\na: 1\n"));
        expect_test::expect![[r#"{Str("a")@23..24: Int(1)@26..27}"#]].assert_eq(&got("%TAG ! tag:x,2000:\n---\na: 1\n"));
        // `...` after only an indented comment: still before any document.
        expect_test::expect!["error at 7: did not find expected node content"].assert_eq(&got(" #a: 1\n...\n"));
    }

    #[test]
    fn anchor_names_as_libyaml_reads_them() {
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        expect_test::expect![[r#"{Str("a")@0..1: [Int(1)@11..12], Str("b")@14..15: Str("1")@17..27, Str("c")@28..29: [Int(1)@11..12]}"#]]
            .assert_eq(&got("a: &x-y_1 [1]\nb: !!str &s 1\nc: *x-y_1\n"));
        expect_test::expect!["error at 11: found duplicate anchor 'x'; first occurrence on line 1, second occurrence"].assert_eq(&got("a: &x\n  b: &x 1\n"));
        expect_test::expect!["error at 3: while scanning an anchor: did not find expected alphabetic or numeric character"].assert_eq(&got("a: &aß 1\n"));
        expect_test::expect!["error at 3: mapping values are not allowed in this context"].assert_eq(&got("a: &b:\n"));
        // First on its line, `&b:` anchors an empty key (saphyr reads it otherwise; no error).
        assert!(!load("&b: 1\n").is_err_and(|e| e.message.contains("mapping values")));
        // Both branches of a masked `{% if %}` may define it.
        assert!(load_with("- &a 1\n- &a 2\n- *a\n", true).is_ok());
    }

    #[test]
    fn binary_is_checked_as_salt_decodes_it() {
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        // Salt pads to a multiple of 4 bytes, then Python decodes leniently; the text is kept.
        expect_test::expect![[r#"{Str("a")@0..1: Str("aGVsbG8")@3..19, Str("b")@20..21: Str("a`b=c")@23..37}"#]]
            .assert_eq(&got("a: !!binary aGVsbG8\nb: !!binary a`b=c\n"));
        expect_test::expect!["error at 3: failed to decode base64 data: Incorrect padding"].assert_eq(&got("a: !!binary a`GVsbG8\n"));
        expect_test::expect![
            "error at 3: failed to decode base64 data: Invalid base64-encoded string: number of data characters (5) cannot be 1 more than a multiple of 4"
        ]
        .assert_eq(&got("a: !!binary aGVsb\n"));
        expect_test::expect![[
            r#"error at 3: failed to convert base64 data into ascii: 'ascii' codec can't encode character '\xdf' in position 2: ordinal not in range(128)"#
        ]]
        .assert_eq(&got("a: !!binary aGßVs\n"));
    }

    #[test]
    fn quotes_inside_a_plain_scalar_open_nothing() {
        // `- x - 'p` is one plain scalar, continued on the next line: the repair must not read
        // a quoted scalar there and move its lines (libyaml refuses both, CRLF or not).
        let got = |t: &str| load(t).map(|n| show(&n)).unwrap_or_else(|e| format!("error at {}: {}", e.offset, e.message));
        expect_test::expect!["error at 17: while scanning a quoted scalar, found unexpected end of stream"].assert_eq(&got("a:\r\n- x\r\n  - 'p\r\n'\r"));
        expect_test::expect!["error at 19: while parsing a block mapping, did not find expected key"].assert_eq(&got("a:\n   - x - - 'p\n  q'\n"));
        expect_test::expect![[r#"{Str("a")@0..1: Str("x 'q")@3..9, Str("b")@10..11: [Int(1)@14..15, Int(2)@18..19]}"#]]
            .assert_eq(&got("a: x\n  'q\nb: [1,\n 2]\n"));
        // A plain scalar after `- - ` is continued right of the inner `-` only: the next
        // `- {` at that column starts a flow (the second campaign's cases).
        expect_test::expect![[r#"{Str("k")@0..1: [[Bool(false)@11..16, {Str("a")@26..27: Str("2")@29..32, Str("b")@36..37: Int(1)@39..40}]]}"#]]
            .assert_eq(&got("k:\n    - - false\n      - {a: '2',\n  b: 1}\n"));
        expect_test::expect![[r#"{Str("k")@0..1: [{Str("a")@7..8: Str("x")@10..11, Str("b")@16..19: [Int(1)@22..23, Int(2)@26..27]}]}"#]]
            .assert_eq(&got("k:\n  - a: x\n    'b': [1,\n 2]\n"));
        // In a flow, `1':''#` is one plain scalar (a `:` not followed by a blank continues it),
        // so no quote closes before that `#` and no comment starts there (fuzzing's find).
        expect_test::expect![[r#"{Str("x")@0..1: [{Str("k")@7..8: [[[[]], Int(0)@17..18, {Str("1':''#")@21..27: {}}]]}]}"#]]
            .assert_eq(&got("x:\n  - k: [[[[]],0,\n{1':''#: {}}]]"));
    }

    #[test]
    fn yaml11_scalars() {
        let cases = [
            ("yes", Value::Bool(true)),
            ("Off", Value::Bool(false)),
            ("~", Value::Null),
            ("0755", Value::Int(755)),
            ("-0755", Value::Int(-493)),
            ("0x1F", Value::Int(31)),
            ("0b101", Value::Int(5)),
            ("1_000", Value::Int(1000)),
            ("1:30", Value::Int(90)),
            ("1e3", Value::Str("1e3".into())),
            ("1.5e+3", Value::Float(1500.0)),
            ("1.", Value::Float(1.0)),
            (".5", Value::Float(0.5)),
            ("-.inf", Value::Float(f64::NEG_INFINITY)),
            ("2024-01-02", Value::Str("2024-01-02".into())),
            ("y", Value::Str("y".into())),
            ("09", Value::Str("09".into())),
            ("test.nop", Value::Str("test.nop".into())),
        ];
        for (text, want) in cases {
            assert_eq!(resolve_plain(text), want, "{text}");
        }
    }

    #[test]
    fn spans_are_bytes_with_non_ascii() {
        let n = load("ß_💣:\n  - ℝ\n  - 'x'\n").unwrap();
        expect_test::expect![[r#"{Str("ß_💣")@0..7: [Str("ℝ")@13..16, Str("x")@21..24]}"#]].assert_eq(&show(&n));
    }

    #[test]
    fn conflicting_id_and_merge() {
        let e = load("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(e.offset, 10);
        assert!(e.message.contains("found conflicting ID 'a'"), "{}", e.message);
        let n = load("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n").unwrap();
        let other = n.get("other").unwrap();
        let keys: Vec<_> = other.as_map().unwrap().iter().map(|(k, _)| k.as_str().unwrap().to_string()).collect();
        assert_eq!(keys, ["x", "y"]);
    }

    #[test]
    fn errors_do_not_panic() {
        for text in ["a: [", "a: b: c", "- a\nb: c", "\t- x", "'unterminated", "---\na\n---\nb\n", "{[1]: 2}", "*nope"] {
            assert!(load(text).is_err(), "{text:?}");
        }
        assert_eq!(load("").unwrap().value, Value::Null);
        assert_eq!(load("# only a comment\n").unwrap().value, Value::Null);
    }
}
