//! The retry for what libyaml accepts and saphyr refuses: the text rewritten where the two
//! differ (continuation lines left of their key, a quote before `#`, a tab after `:`), with
//! the shifts to map offsets in the rewritten text back.

use super::tree::{Node, Value};

/// The text with what saphyr refuses and PyYAML (libyaml) accepts rewritten so that no value
/// changes, and the byte shifts that map offsets back to the original text:
/// - a line that continues a flow collection or a quoted scalar left of where saphyr wants it
///   is moved right of the collection's opening bracket or the opening quote (Salt's `yaml`
///   filter wraps long flow output at 80 columns with a shallow indent, so `key: {{ x|yaml }}`
///   deep in a block continues left of its key; a quoted scalar may continue at column 0).
///   PyYAML checks no indentation there, and the leading blanks of such a line are not part of
///   any value. A line that starts with a document marker (`---`, `...`) is left alone:
///   libyaml refuses it there too;
/// - a space goes between a closing quote and a `#` right after it (`"y"#c` is a comment to
///   libyaml, an error to saphyr), and between a `:` and a tab right after it (`a:\t1`).
pub(super) struct Repair {
    pub(super) text: String,
    /// (byte offset in the repaired text just after an insertion, total bytes inserted up to
    /// and including it), in order.
    pub(super) shifts: Vec<(usize, usize)>,
}

impl Repair {
    pub(super) fn new(text: &str) -> Option<Repair> {
        // A lone CR is a line break to libyaml; saphyr refuses it in a quoted scalar. As LF,
        // it is the same break, one byte long as before.
        let lone_cr = |(i, b): (usize, &u8)| *b == b'\r' && text.as_bytes().get(i + 1) != Some(&b'\n');
        let mut changed = text.as_bytes().iter().enumerate().any(lone_cr);
        let normalized: String;
        let text = if changed {
            normalized = text.char_indices().map(|(i, c)| if c == '\r' && text.as_bytes().get(i + 1) != Some(&b'\n') { '\n' } else { c }).collect();
            &normalized
        } else {
            text
        };
        let mut out = String::with_capacity(text.len() + 64);
        let mut shifts = Vec::new();
        let mut added = 0;
        let mut scan = Scan::default();
        // The column of the node an empty value indicator (`key:`, `-`) ending the last line
        // of block content is for.
        let mut value_at = None::<usize>;
        for line in text.split_inclusive('\n') {
            let continues = scan.depth > 0 || scan.quote.is_some();
            // The leading blanks of a continuation line of a flow collection or quoted scalar
            // are no content: tabs there are spaces (saphyr takes them for indentation).
            let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
            let detabbed: String;
            let line = if continues && line[..lead].contains('\t') && !line[lead..].trim().is_empty() {
                changed = true;
                detabbed = line[..lead].replace('\t', " ") + &line[lead..];
                &detabbed
            } else {
                line
            };
            let indent = line.len() - line.trim_start_matches(' ').len();
            let plain = !continues && scan.block_scalar.is_none_or(|header| indent <= header && !line.trim().is_empty());
            let code = line.split(" #").next().unwrap_or("").trim();
            let mut pad = 0;
            if continues && !line.trim().is_empty() && indent < scan.need && !starts_with_marker(line) {
                pad = scan.need - indent;
            } else if plain && value_at == Some(indent) && is_block_scalar_header(code) {
                // A block scalar header at the column of its key or `-` (`a:\n|\n x`): libyaml
                // takes it as the value, saphyr as a new key; one column right, it is the value
                // to both, and its content's indentation is counted from the key either way.
                pad = 1;
            }
            if pad > 0 {
                out.extend(std::iter::repeat_n(' ', pad));
                added += pad;
                shifts.push((out.len(), added));
            }
            if plain && !code.is_empty() && !code.starts_with('#') {
                value_at = empty_value_column(code).map(|c| indent + c);
            }
            let scan_indent = if pad == 1 && !continues { indent } else { indent + pad };
            let inserts = scan.line(line, scan_indent, pad);
            let mut from = 0;
            for (at, c) in inserts {
                out.push_str(&line[from..at]);
                out.push(c);
                added += 1;
                shifts.push((out.len(), added));
                from = at;
            }
            if scan.quote.is_some() && continues && line.trim().is_empty() && line.contains('\t') {
                // A line of blanks with a tab in a quoted scalar is a line break to libyaml;
                // saphyr takes the tab for indentation and refuses it. Spaces are the same
                // break there.
                out.extend(line[from..].chars().map(|c| if c == '\t' { ' ' } else { c }));
                changed = true;
                continue;
            }
            out.push_str(&line[from..]);
        }
        (changed || !shifts.is_empty()).then_some(Repair { text: out, shifts })
    }

    pub(super) fn unpad(&self, offset: usize) -> usize {
        let i = self.shifts.partition_point(|&(at, _)| at <= offset);
        let back = if i == 0 { offset } else { offset - self.shifts[i - 1].1 };
        // An offset inside inserted text maps to where the insertion was made.
        match self.shifts.get(i) {
            Some(&(at, added)) => back.min(at - added),
            None => back,
        }
    }

    pub(super) fn unpad_node(&self, node: &mut Node) {
        node.span = self.unpad(node.span.start)..self.unpad(node.span.end);
        match &mut node.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| self.unpad_node(n)),
            Value::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| {
                self.unpad_node(k);
                self.unpad_node(v)
            }),
            _ => {}
        }
    }
}

/// A block scalar header alone on its line: `|` or `>`, then indicators (`|+`, `>2-`).
pub(super) fn is_block_scalar_header(code: &str) -> bool {
    code.strip_prefix(['|', '>']).is_some_and(|rest| rest.chars().all(|c| matches!(c, '+' | '-' | '1'..='9')))
}

/// For a line of block content (indentation removed, comment cut) that ends with an empty
/// value (`key:`, `- key:`, `-`, `- -`), the column of the node that value is for: the key's,
/// or the last `-`'s.
pub(super) fn empty_value_column(code: &str) -> Option<usize> {
    let mut at = 0;
    let mut rest = code;
    while let Some(after) = rest.strip_prefix('-').filter(|r| r.is_empty() || r.starts_with(' ')) {
        if after.trim().is_empty() {
            return Some(at);
        }
        let skipped = after.len() - after.trim_start().len();
        at += 1 + skipped;
        rest = &after[skipped..];
    }
    (rest.ends_with(':') && !rest.starts_with(['"', '\'', '[', '{', '&', '!', '*', '?'])).then_some(at)
}

/// `---` or `...` at the start of a line, followed by a blank or the line's end.
pub(super) fn starts_with_marker(line: &str) -> bool {
    (line.starts_with("---") || line.starts_with("...")) && line[3..].chars().next().is_none_or(|c| c.is_whitespace())
}

/// Just enough of a YAML scanner to know, line by line, whether a flow collection or a quoted
/// scalar is open: quotes, comments, block scalars and where a `[`, `{` or quote can start a
/// node.
#[derive(Default)]
pub(super) struct Scan {
    depth: usize,
    /// The column a continuation line of the open flow collection or quoted scalar is moved to:
    /// one right of the outermost opening bracket, or of the opening quote.
    need: usize,
    quote: Option<char>,
    /// Inside a block scalar whose header line had this indentation.
    block_scalar: Option<usize>,
    /// The last character that was not a blank, at the end of the last line that had one, for
    /// a flow collection continued on the next (a plain scalar may continue there too).
    last: Option<char>,
    /// Whether [`Scan::last`] closed a quoted scalar or a flow collection (a `'` may also be
    /// content of a plain scalar: `{1':''#: x}` is the one key `1':''#`).
    last_closes: bool,
    /// A plain scalar of the block context is open at the end of the last line; a line
    /// indented at least this much continues it (one right of its collection's indentation).
    plain_from: Option<usize>,
}

impl Scan {
    /// Reads one line (whose content starts at column `indent` once `pad` spaces are put in
    /// front of it); returns the byte offsets in the line where a character is to be inserted
    /// (a space, or a quote around a `-`), with it.
    fn line(&mut self, line: &str, indent: usize, pad: usize) -> Vec<(usize, char)> {
        let mut inserts = Vec::new();
        let content = line.trim_end_matches(['\n', '\r']);
        if let Some(header) = self.block_scalar {
            if content.trim().is_empty() || indent > header {
                return inserts;
            }
            self.block_scalar = None;
        }
        let chars: Vec<(usize, char)> = content.char_indices().collect();
        // The index of the last flow indicator read (`[`, `{`, `]`, `}`, or `,` in a flow).
        let mut indicator_at = None::<usize>;
        let mut prev = if self.depth > 0 { self.last } else { None }; // the last character that was not a blank
                                                                      // Whether `prev` closed a quoted scalar or a flow collection.
        let mut prev_closes = self.depth > 0 && self.last_closes;
        // Inside a plain scalar of the block context, where quotes, brackets and `- ` are
        // content (`- x - 'p` is one scalar, and so is its continuation ` - 'q`).
        let continued = self.plain_from.filter(|&min| indent >= min && !content.trim().is_empty() && !content.trim_start().starts_with('#'));
        if !content.trim().is_empty() {
            self.plain_from = continued;
        }
        let mut plain = continued.is_some();
        // Where a plain scalar starting here is continued: one right of the collection holding
        // it (the `-` or `?` right before it, or the key before its `:`; first on its line, its
        // collection is left of it: the line's indentation is taken).
        let mut plain_min = indent;
        let mut indicator_col = None::<usize>; // the last `-` or `?` of the line
        let mut key_col = None::<usize>; // the first node after it (or the line's first)
        let mut flow_value_at = None::<usize>; // a `:` right after a quote or bracket, in flow
        let mut i = 0;
        while i < chars.len() {
            let (byte, c) = chars[i];
            let next = chars.get(i + 1).map(|&(_, c)| c);
            let after_space = i == 0 || matches!(chars[i - 1].1, ' ' | '\t');
            if let Some(q) = self.quote {
                match self.in_quote(q, &chars, i, &mut prev, &mut inserts) {
                    Some(step) => {
                        prev_closes |= self.quote.is_none();
                        i += step;
                        continue;
                    }
                    None => break,
                }
            }
            if c == '#' && after_space {
                plain = false;
                break;
            }
            if plain && self.depth == 0 {
                if c == ':' && next.is_none_or(|n| n == ' ' || n == '\t') {
                    plain = false;
                    prev = Some(c);
                    prev_closes = false;
                    if next == Some('\t') {
                        inserts.push((byte + 1, ' '));
                    }
                }
                i += 1;
                continue;
            }
            if c == '#' && indicator_at.is_some_and(|at| at + 1 == i) {
                // libyaml starts a comment at a `#` right after a flow indicator (`[]#`,
                // `[1,#c`): it looks for the next token there; saphyr wants a blank first.
                inserts.push((byte, ' '));
                break;
            }
            let node_start = match prev {
                None => true,
                Some('[' | '{' | ',') => self.depth > 0,
                // In a flow collection a `:` right after a quoted scalar or a closing bracket
                // (`"a":{}`, JSON's way) is a value indicator to libyaml: a node follows it.
                Some(':') if flow_value_at.is_some_and(|at| at + 1 == i) => true,
                Some(':' | '-' | '?') => after_space,
                _ => false,
            };
            if node_start && matches!(c, '&' | '!') {
                // An anchor or a tag: the node starts after it.
                while i < chars.len() && !matches!(chars[i].1, ' ' | '\t') {
                    i += 1;
                }
                continue;
            }
            match c {
                '"' | '\'' if node_start => {
                    self.quote = Some(c);
                    key_col.get_or_insert(pad + i);
                    if self.depth == 0 {
                        self.need = pad + i + 1;
                    }
                }
                '[' | '{' if node_start || (self.depth > 0 && matches!(prev, Some('[' | '{' | ','))) => {
                    if self.depth == 0 {
                        self.need = pad + i + 1;
                    }
                    self.depth += 1;
                    indicator_at = Some(i);
                }
                ']' | '}' if self.depth > 0 => {
                    self.depth -= 1;
                    indicator_at = Some(i);
                }
                ',' if self.depth > 0 => indicator_at = Some(i),
                '-' if node_start && self.depth > 0 && matches!(next, Some(',' | '[' | ']' | '{' | '}')) => {
                    // `[-, x]`: a plain `-` to libyaml, an error to saphyr (YAML 1.2); quoted,
                    // it is the same string to both.
                    inserts.push((byte, '"'));
                    inserts.push((byte + 1, '"'));
                }
                ':' if next == Some('\t') => inserts.push((byte + 1, ' ')),
                '|' | '>' if node_start && self.depth == 0 => {
                    if self.block_scalar_header(&chars[i + 1..], indent, &mut inserts) {
                        return inserts;
                    }
                    plain = true;
                    plain_min = indent;
                }
                '-' | '?' if node_start && next.is_none_or(|n| n == ' ' || n == '\t') => {
                    indicator_col = Some(pad + i);
                    key_col = None;
                }
                ':' if node_start && next.is_none_or(|n| n == ' ' || n == '\t') => {}
                ' ' | '\t' | '*' => {}
                _ if node_start && self.depth == 0 => {
                    plain = true;
                    plain_min = match prev {
                        None => indent,
                        Some('-' | '?') => indicator_col.map_or(indent, |c| c + 1),
                        _ => key_col.map_or(indent, |c| c + 1),
                    };
                    key_col.get_or_insert(pad + i);
                }
                _ => {}
            }
            if c == ':' && self.depth > 0 && prev_closes {
                // A token of its own: a `#` right after it starts a comment, as after `,`.
                flow_value_at = Some(i);
                indicator_at = Some(i);
            }
            if c != ' ' && c != '\t' {
                prev_closes = matches!(c, ']' | '}') && indicator_at == Some(i);
                prev = Some(c);
            }
            i += 1;
        }
        if prev.is_some() {
            self.last_closes = prev_closes;
        }
        self.end_line(prev, plain.then_some(plain_min), content);
        inserts
    }

    /// Inside a quoted scalar opened with `q`, at `chars[i]`: how far to go on, or `None` at
    /// the end of what counts on the line (a `#` right after the closing quote, which libyaml
    /// reads as a comment, gets the blank saphyr wants).
    fn in_quote(&mut self, q: char, chars: &[(usize, char)], i: usize, prev: &mut Option<char>, inserts: &mut Vec<(usize, char)>) -> Option<usize> {
        let c = chars[i].1;
        let next = chars.get(i + 1).map(|&(_, c)| c);
        if q == '"' && c == '\\' {
            return Some(2);
        }
        if c == q {
            if q == '\'' && next == Some('\'') {
                return Some(2);
            }
            self.quote = None;
            *prev = Some(c);
            if next == Some('#') {
                // The rest of the line is a comment to libyaml: no bracket in it counts.
                inserts.push((chars[i + 1].0, ' '));
                return None;
            }
        }
        Some(1)
    }

    /// After a `|` or `>` that starts a node (`rest`: what follows it on the line): whether it
    /// is a block scalar header, whose more indented lines are the scalar's.
    fn block_scalar_header(&mut self, rest: &[(usize, char)], indent: usize, inserts: &mut Vec<(usize, char)>) -> bool {
        let text: String = rest.iter().map(|&(_, c)| c).collect();
        let indicators = text.len() - text.trim_start_matches(['+', '-', '1', '2', '3', '4', '5', '6', '7', '8', '9']).len();
        if text[indicators..].starts_with('#') {
            // `|#`, `>-#c`: libyaml reads a comment after the header's indicators;
            // saphyr wants a blank first.
            inserts.push((rest[0].0 + indicators, ' '));
            self.block_scalar = Some(indent);
            return true;
        }
        let text = text.split(" #").next().unwrap_or("").trim();
        if text.chars().all(|c| matches!(c, '+' | '-' | '1'..='9')) {
            self.block_scalar = Some(indent);
            return true;
        }
        false
    }

    /// What the line leaves for the next: its last character that is not a blank (`prev`),
    /// and the plain scalar still open at its end (`plain`: from which column a line continues it).
    fn end_line(&mut self, prev: Option<char>, plain: Option<usize>, content: &str) {
        if prev.is_some() {
            self.last = prev;
        }
        match plain {
            Some(plain_min) if self.depth == 0 && self.quote.is_none() => self.plain_from = Some(self.plain_from.unwrap_or(plain_min)),
            _ if !content.trim().is_empty() => self.plain_from = None,
            _ => {}
        }
    }
}
