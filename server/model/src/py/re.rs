//! Python `re` patterns: parsed the way CPython 3.11's `re._parser` parses them (same syntax
//! errors), then written out as an equivalent fancy-regex pattern, so `re.match` answers as
//! Python would. Salt's `pcre`, `grain_pcre` and `pillar_pcre` matchers all go through here, and
//! the `regex_*` Jinja filters search and substitute with [`PySearch`].

use std::collections::HashMap;

/// A compiled Python regex.
#[derive(Debug, Clone)]
pub struct PyRegex {
    re: fancy_regex::Regex,
}

impl PyRegex {
    /// Compile a Python pattern. The error text follows `re.error`'s wording.
    pub fn compile(pattern: &str) -> Result<PyRegex, String> {
        let parsed = Parser::parse(pattern, 0)?;
        let mut out = String::from("\\A(?:");
        let mut emitter = Emitter { out: &mut out };
        emitter.seq(&parsed.nodes, parsed.flags);
        out.push(')');
        match fancy_regex::Regex::new(&out) {
            Ok(re) => Ok(PyRegex { re }),
            Err(e) => Err(format!("pattern not supported by the regex engine: {e}")),
        }
    }

    /// Python's `bool(re.match(pattern, subject))`: anchored at the start, not at the end.
    /// An error means the backtracking limit was hit, where Python would just be slow.
    pub fn re_match(&self, subject: &str) -> Result<bool, String> {
        self.re.is_match(subject).map_err(|e| format!("regex evaluation failed: {e}"))
    }
}

/// `re.match(pattern, subject)` in one call.
#[cfg(test)]
pub(crate) fn re_match(pattern: &str, subject: &str) -> Result<bool, String> {
    PyRegex::compile(pattern)?.re_match(subject)
}

/// A compiled Python regex for `re.search`, `re.match` and `re.sub`, as Salt's
/// `regex_search`, `regex_match`, `regex_replace` filters and `match` test use them.
#[derive(Debug, Clone)]
pub struct PySearch {
    re: fancy_regex::Regex,
    /// The same pattern anchored at the start and required to consume a character, for the
    /// search that follows an empty match (`_sre.c` `must_advance`).
    advance: fancy_regex::Regex,
    groups: usize,
    groupdict: HashMap<String, usize>,
}

/// The capture spans of one match: group 0, then each group (`None` when it did not take part).
pub type Groups = Vec<Option<std::ops::Range<usize>>>;

impl PySearch {
    /// `re.compile(pattern, flags)`; `flags` is a sum of [`IGNORECASE`] and [`MULTILINE`].
    pub fn compile(pattern: &str, flags: u32) -> Result<PySearch, String> {
        let parsed = Parser::parse(pattern, flags)?;
        let mut body = String::new();
        Emitter { out: &mut body }.seq(&parsed.nodes, parsed.flags);
        let build = |p: String| fancy_regex::Regex::new(&p).map_err(|e| format!("pattern not supported by the regex engine: {e}"));
        Ok(PySearch {
            re: build(format!("(?:{body})"))?,
            advance: build(format!("\\A(?:{body})(?<=(?s:.))"))?,
            groups: parsed.groups,
            groupdict: parsed.groupdict,
        })
    }

    /// `pattern.groups`.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// `pattern.search(text, pos)`: the leftmost match at or after byte `pos`.
    pub fn search(&self, text: &str, pos: usize) -> Result<Option<Groups>, String> {
        let caps = self.re.captures_from_pos(text, pos).map_err(|e| format!("regex evaluation failed: {e}"))?;
        Ok(caps.map(|c| (0..=self.groups).map(|i| c.get(i).map(|m| m.range())).collect()))
    }

    /// `pattern.match(text)`: a match that starts at the beginning. A backtracking search
    /// tries the first position to the end before any later one, so the leftmost match
    /// starts at 0 exactly when `match` finds one.
    pub fn match_start(&self, text: &str) -> Result<Option<Groups>, String> {
        Ok(self.search(text, 0)?.filter(|g| g[0].as_ref().is_some_and(|r| r.start == 0)))
    }

    /// `pattern.sub(repl, text)`: every match replaced by the template `repl` (`\1`,
    /// `\g<name>`, `\n`, ...). As in CPython 3.7+, an empty match right after a match is
    /// replaced too, and after an empty match the next one must not be empty at the same place.
    /// That second search is made on the rest of the text, so a look-behind at its very start
    /// cannot see the characters before it.
    pub fn sub(&self, repl: &str, text: &str) -> Result<String, String> {
        let template = parse_template(repl, self.groups, &self.groupdict)?;
        let mut out = String::new();
        let mut copied = 0;
        let mut pos = 0;
        let mut must_advance = false;
        while pos <= text.len() {
            let mut found = None;
            if must_advance {
                let caps = self.advance.captures(&text[pos..]).map_err(|e| format!("regex evaluation failed: {e}"))?;
                found = caps.map(|c| (0..=self.groups).map(|i| c.get(i).map(|m| m.start() + pos..m.end() + pos)).collect::<Groups>());
                if found.is_none() {
                    match text[pos..].chars().next() {
                        Some(c) => pos += c.len_utf8(),
                        None => break,
                    }
                }
            }
            if found.is_none() {
                found = self.search(text, pos)?;
            }
            let Some(groups) = found else { break };
            let Some(whole) = groups[0].clone() else { break };
            out.push_str(&text[copied..whole.start]);
            for piece in &template {
                match piece {
                    Piece::Literal(s) => out.push_str(s),
                    Piece::Group(g) => {
                        if let Some(r) = groups.get(*g).cloned().flatten() {
                            out.push_str(&text[r]);
                        }
                    }
                }
            }
            copied = whole.end;
            must_advance = whole.start == whole.end;
            pos = whole.end;
        }
        out.push_str(&text[copied..]);
        Ok(out)
    }
}

/// `re.IGNORECASE` and `re.MULTILINE`.
pub const IGNORECASE: u32 = FLAG_I;
pub const MULTILINE: u32 = FLAG_M;

enum Piece {
    Literal(String),
    Group(usize),
}

/// `re._parser.parse_template`: a replacement string to literals and group references, with
/// Python's errors (`bad escape \q at position 0`, `invalid group reference 2 at position 2`,
/// `unknown group name 'x'`).
fn parse_template(source: &str, groups: usize, groupdict: &HashMap<String, usize>) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut i = 0;
    let error = |msg: String, pos: usize| format!("{msg} at position {pos}");
    let flush = |literal: &mut String, out: &mut Vec<Piece>| {
        if !literal.is_empty() {
            out.push(Piece::Literal(std::mem::take(literal)));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' {
            literal.push(c);
            i += 1;
            continue;
        }
        let Some(&e) = chars.get(i + 1) else {
            return Err(error("bad escape (end of pattern)".into(), i));
        };
        i += 2;
        match e {
            'g' => {
                if chars.get(i) != Some(&'<') {
                    return Err(error("missing <".into(), i));
                }
                i += 1;
                let start = i;
                while i < chars.len() && chars[i] != '>' {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if name.is_empty() {
                    return Err(error("missing group name".into(), start));
                }
                if i >= chars.len() {
                    return Err(error("missing >, unterminated name".into(), start));
                }
                i += 1;
                let index = if is_identifier(&name) {
                    *groupdict.get(&name).ok_or_else(|| format!("unknown group name '{name}'"))?
                } else {
                    // `int(name)`, refusing negative numbers.
                    match crate::py::builtins::parse_int(&name).and_then(|n| usize::try_from(n).ok()) {
                        Some(n) => n,
                        None => return Err(error(format!("bad character in group name '{name}'"), start)),
                    }
                };
                if index > groups {
                    return Err(error(format!("invalid group reference {index}"), start));
                }
                flush(&mut literal, &mut out);
                out.push(Piece::Group(index));
            }
            '0' => {
                let mut digits = String::from("0");
                while digits.len() < 3 && chars.get(i).is_some_and(|d| ('0'..='7').contains(d)) {
                    digits.push(chars[i]);
                    i += 1;
                }
                literal.push(char::from((u32::from_str_radix(&digits, 8).unwrap_or(0) & 0xff) as u8));
            }
            '1'..='9' => {
                let start = i - 2;
                let mut digits = String::from(e);
                if chars.get(i).is_some_and(|d| d.is_ascii_digit()) {
                    digits.push(chars[i]);
                    i += 1;
                    let octal = |d: char| ('0'..='7').contains(&d);
                    if octal(e) && digits.chars().nth(1).is_some_and(octal) && chars.get(i).copied().is_some_and(octal) {
                        digits.push(chars[i]);
                        i += 1;
                        let value = u32::from_str_radix(&digits, 8).unwrap_or(0);
                        if value > 0o377 {
                            return Err(error(format!("octal escape value \\{digits} outside of range 0-0o377"), start));
                        }
                        literal.push(char::from_u32(value).unwrap_or('\0'));
                        continue;
                    }
                }
                let index: usize = digits.parse().unwrap_or(0);
                if index > groups {
                    return Err(error(format!("invalid group reference {index}"), start + 1));
                }
                flush(&mut literal, &mut out);
                out.push(Piece::Group(index));
            }
            'a' => literal.push('\u{7}'),
            'b' => literal.push('\u{8}'),
            'f' => literal.push('\u{c}'),
            'n' => literal.push('\n'),
            'r' => literal.push('\r'),
            't' => literal.push('\t'),
            'v' => literal.push('\u{b}'),
            '\\' => literal.push('\\'),
            e if e.is_ascii_alphabetic() => return Err(error(format!("bad escape \\{e}"), i - 2)),
            e => {
                literal.push('\\');
                literal.push(e);
            }
        }
    }
    flush(&mut literal, &mut out);
    Ok(out)
}

// Flag bits, as in `re._constants`.
const FLAG_I: u32 = 2;
const FLAG_L: u32 = 4;
const FLAG_M: u32 = 8;
const FLAG_S: u32 = 16;
const FLAG_U: u32 = 32;
const FLAG_X: u32 = 64;
const FLAG_A: u32 = 256;
const FLAG_T: u32 = 1;
const TYPE_FLAGS: u32 = FLAG_A | FLAG_L | FLAG_U;
const GLOBAL_FLAGS: u32 = FLAG_T;
const MAXREPEAT: u64 = 4_294_967_295;
const MAXGROUPS: usize = 1_073_741_823;
/// CPython's recursive parser runs out of stack (`RecursionError`) a little below 500 nested
/// groups. We stop much earlier, at a depth no real pattern reaches, so that parsing fits
/// in a small thread stack even in a debug build.
const MAX_NESTING: usize = 100;

fn flag_of(c: char) -> Option<u32> {
    Some(match c {
        'i' => FLAG_I,
        'L' => FLAG_L,
        'm' => FLAG_M,
        's' => FLAG_S,
        'x' => FLAG_X,
        'a' => FLAG_A,
        't' => FLAG_T,
        'u' => FLAG_U,
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Cat {
    Digit,
    NotDigit,
    Space,
    NotSpace,
    Word,
    NotWord,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    Beginning,
    BeginningString,
    End,
    EndString,
    Boundary,
    NonBoundary,
}

#[derive(Debug, Clone, PartialEq)]
enum SetItem {
    Literal(char),
    Range(char, char),
    Category(Cat),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum RepeatKind {
    Greedy,
    Lazy,
    Possessive,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Literal(char),
    Any,
    In { negate: bool, items: Vec<SetItem> },
    At(At),
    Branch(Vec<Vec<Node>>),
    Repeat { kind: RepeatKind, min: u64, max: u64, item: Vec<Node> },
    Subpattern { group: Option<usize>, add: u32, del: u32, body: Vec<Node> },
    Atomic(Vec<Node>),
    Assert { behind: bool, negate: bool, body: Vec<Node> },
    GroupRef(usize),
    GroupRefExists { group: usize, yes: Vec<Node>, no: Option<Vec<Node>> },
}

/// One tokenizer token: a character, or a backslash with the character after it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tok {
    c: char,
    esc: bool,
    pos: usize,
}

struct Parsed {
    nodes: Vec<Node>,
    flags: u32,
    /// Capturing groups, and the number of each named one.
    groups: usize,
    groupdict: HashMap<String, usize>,
}

struct Parser {
    toks: Vec<Tok>,
    index: usize,
    len_chars: usize,
    flags: u32,
    groups: usize,
    groupdict: HashMap<String, usize>,
    groupwidths: Vec<Option<(u64, u64)>>,
    lookbehindgroups: Option<usize>,
    grouprefpos: Vec<(usize, usize)>,
}

type PResult<T> = Result<T, String>;

const MAXWIDTH: u64 = u64::MAX;

impl Parser {
    /// `re._parser.parse(pattern, flags)`: `flags` are those given to `re.compile`.
    fn parse(pattern: &str, flags: u32) -> PResult<Parsed> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut toks = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '\\' {
                if i + 1 >= chars.len() {
                    return Err(format!("bad escape (end of pattern) at position {i}"));
                }
                toks.push(Tok { c: chars[i + 1], esc: true, pos: i });
                i += 2;
            } else {
                toks.push(Tok { c: chars[i], esc: false, pos: i });
                i += 1;
            }
        }
        let mut p = Parser {
            toks,
            index: 0,
            len_chars: chars.len(),
            flags,
            groups: 1,
            groupdict: HashMap::new(),
            groupwidths: vec![None],
            lookbehindgroups: None,
            grouprefpos: Vec::new(),
        };
        let nodes = p.parse_sub(flags & FLAG_X != 0, 0)?;
        if p.flags & FLAG_L != 0 {
            return Err("cannot use LOCALE flag with a str pattern".into());
        }
        if p.flags & FLAG_A != 0 && p.flags & FLAG_U != 0 {
            return Err("ASCII and UNICODE flags are incompatible".into());
        }
        if p.peek().is_some() {
            return Err(p.error("unbalanced parenthesis"));
        }
        for &(g, pos) in &p.grouprefpos {
            if g >= p.groups {
                return Err(format!("invalid group reference {g} at position {pos}"));
            }
        }
        check_lookbehinds(&nodes, &p.groupwidths)?;
        Ok(Parsed { nodes, flags: p.flags, groups: p.groups - 1, groupdict: p.groupdict })
    }

    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.index).copied()
    }
    fn next_is(&self, c: char) -> bool {
        matches!(self.peek(), Some(t) if !t.esc && t.c == c)
    }
    fn next_plain_in(&self, set: &str) -> bool {
        matches!(self.peek(), Some(t) if !t.esc && set.contains(t.c))
    }
    fn get(&mut self) -> Option<Tok> {
        let t = self.peek();
        if t.is_some() {
            self.index += 1;
        }
        t
    }
    fn matches(&mut self, c: char) -> bool {
        if self.next_is(c) {
            self.index += 1;
            true
        } else {
            false
        }
    }
    fn tell(&self) -> usize {
        self.peek().map_or(self.len_chars, |t| t.pos)
    }
    fn error(&self, msg: &str) -> String {
        format!("{msg} at position {}", self.tell())
    }
    fn getwhile(&mut self, n: usize, set: &str) -> String {
        let mut out = String::new();
        for _ in 0..n {
            if self.next_plain_in(set) {
                if let Some(t) = self.get() {
                    out.push(t.c);
                }
            } else {
                break;
            }
        }
        out
    }
    fn getuntil(&mut self, terminator: char, name: &str) -> PResult<String> {
        let mut result = String::new();
        loop {
            let Some(t) = self.get() else {
                if result.is_empty() {
                    return Err(self.error(&format!("missing {name}")));
                }
                return Err(self.error(&format!("missing {terminator}, unterminated name")));
            };
            if !t.esc && t.c == terminator {
                if result.is_empty() {
                    return Err(self.error(&format!("missing {name}")));
                }
                return Ok(result);
            }
            if t.esc {
                result.push('\\');
            }
            result.push(t.c);
        }
    }
    fn checkgroupname(&self, name: &str) -> PResult<()> {
        if !is_identifier(name) {
            return Err(self.error(&format!("bad character in group name '{name}'")));
        }
        Ok(())
    }
    fn checkgroup(&self, gid: usize) -> bool {
        gid < self.groups && self.groupwidths.get(gid).is_some_and(|w| w.is_some())
    }
    fn checklookbehindgroup(&self, gid: usize) -> PResult<()> {
        if let Some(lb) = self.lookbehindgroups {
            if !self.checkgroup(gid) {
                return Err(self.error("cannot refer to an open group"));
            }
            if gid >= lb {
                return Err(self.error("cannot refer to group defined in the same lookbehind subpattern"));
            }
        }
        Ok(())
    }

    fn parse_sub(&mut self, verbose: bool, nested: usize) -> PResult<Vec<Node>> {
        let mut items = Vec::new();
        let mut verbose = verbose;
        loop {
            let first = nested == 0 && items.is_empty();
            items.push(self.parse_seq(verbose, nested + 1, first)?);
            if !self.matches('|') {
                break;
            }
            if nested == 0 {
                verbose = self.flags & FLAG_X != 0;
            }
        }
        if items.len() == 1 {
            return Ok(items.pop().unwrap_or_default());
        }
        Ok(vec![Node::Branch(items)])
    }

    fn parse_seq(&mut self, verbose: bool, nested: usize, first: bool) -> PResult<Vec<Node>> {
        // `nested` grows by two per group level (`_parse_sub` and `_parse`).
        if nested / 2 > MAX_NESTING {
            return Err("maximum recursion depth exceeded (groups nested too deeply)".into());
        }
        let mut sub: Vec<Node> = Vec::new();
        let mut verbose = verbose;
        while let Some(this) = self.peek() {
            if !this.esc && (this.c == '|' || this.c == ')') {
                break;
            }
            self.index += 1;
            if verbose && !this.esc {
                if " \t\n\r\x0b\x0c".contains(this.c) {
                    continue;
                }
                if this.c == '#' {
                    while let Some(t) = self.get() {
                        if !t.esc && t.c == '\n' {
                            break;
                        }
                    }
                    continue;
                }
            }
            if this.esc {
                sub.push(self.escape(this)?);
                continue;
            }
            match this.c {
                '[' => sub.push(self.parse_set(this.pos)?),
                '*' | '+' | '?' | '{' => {
                    let here = self.index;
                    let (min, max) = match this.c {
                        '?' => (0, 1),
                        '*' => (0, MAXREPEAT),
                        '+' => (1, MAXREPEAT),
                        _ => {
                            if self.next_is('}') {
                                sub.push(Node::Literal('{'));
                                continue;
                            }
                            let lo = self.getwhile(usize::MAX, "0123456789");
                            let hi = if self.matches(',') { self.getwhile(usize::MAX, "0123456789") } else { lo.clone() };
                            if !self.matches('}') {
                                sub.push(Node::Literal('{'));
                                self.index = here;
                                continue;
                            }
                            let mut min = 0;
                            let mut max = MAXREPEAT;
                            if !lo.is_empty() {
                                min = lo.parse::<u64>().unwrap_or(u64::MAX);
                                if min >= MAXREPEAT {
                                    return Err("the repetition number is too large".into());
                                }
                            }
                            if !hi.is_empty() {
                                max = hi.parse::<u64>().unwrap_or(u64::MAX);
                                if max >= MAXREPEAT {
                                    return Err("the repetition number is too large".into());
                                }
                                if max < min {
                                    return Err(self.error("min repeat greater than max repeat"));
                                }
                            }
                            (min, max)
                        }
                    };
                    let at = this.pos;
                    let Some(last) = sub.pop() else {
                        return Err(format!("nothing to repeat at position {at}"));
                    };
                    match &last {
                        Node::At(_) => return Err(format!("nothing to repeat at position {at}")),
                        Node::Repeat { .. } => return Err(format!("multiple repeat at position {at}")),
                        _ => {}
                    }
                    let item = match last {
                        Node::Subpattern { group: None, add: 0, del: 0, body } => body,
                        other => vec![other],
                    };
                    let kind = if self.matches('?') {
                        RepeatKind::Lazy
                    } else if self.matches('+') {
                        RepeatKind::Possessive
                    } else {
                        RepeatKind::Greedy
                    };
                    sub.push(Node::Repeat { kind, min, max, item });
                }
                '.' => sub.push(Node::Any),
                '(' => {
                    if let Some(node) = self.parse_group(this.pos, verbose, nested, first, &sub)? {
                        sub.push(node);
                    } else if first && sub.is_empty() {
                        // Global flags may have switched verbose mode on.
                        verbose = self.flags & FLAG_X != 0;
                    }
                }
                '^' => sub.push(Node::At(At::Beginning)),
                '$' => sub.push(Node::At(At::End)),
                c => sub.push(Node::Literal(c)),
            }
        }
        // Unpack non-capturing groups, as Python does once the sequence is complete.
        let mut out = Vec::with_capacity(sub.len());
        for node in sub {
            match node {
                Node::Subpattern { group: None, add: 0, del: 0, body } => out.extend(body),
                other => out.push(other),
            }
        }
        Ok(out)
    }

    /// A group construct after `(`. `None` when nothing is appended (comments, global flags).
    /// Over 150 lines because it mirrors the `(` branch of `_parse` in CPython's `re/_parser.py`
    /// step for step.
    fn parse_group(&mut self, start: usize, verbose: bool, nested: usize, first: bool, sub: &[Node]) -> PResult<Option<Node>> {
        let mut capture = true;
        let mut atomic = false;
        let mut name: Option<String> = None;
        let mut add_flags = 0;
        let mut del_flags = 0;
        if self.matches('?') {
            let Some(ch) = self.get() else {
                return Err(self.error("unexpected end of pattern"));
            };
            let c = if ch.esc { '\\' } else { ch.c };
            if c == 'P' {
                if self.matches('<') {
                    let n = self.getuntil('>', "group name")?;
                    self.checkgroupname(&n)?;
                    name = Some(n);
                } else if self.matches('=') {
                    let n = self.getuntil(')', "group name")?;
                    self.checkgroupname(&n)?;
                    let Some(&gid) = self.groupdict.get(&n) else {
                        return Err(self.error(&format!("unknown group name '{n}'")));
                    };
                    if !self.checkgroup(gid) {
                        return Err(self.error("cannot refer to an open group"));
                    }
                    self.checklookbehindgroup(gid)?;
                    return Ok(Some(Node::GroupRef(gid)));
                } else {
                    return match self.get() {
                        None => Err(self.error("unexpected end of pattern")),
                        Some(t) => Err(self.error(&format!("unknown extension ?P{}", t.c))),
                    };
                }
            } else if c == ':' {
                capture = false;
            } else if c == '#' {
                loop {
                    let Some(t) = self.get() else {
                        return Err(format!("missing ), unterminated comment at position {start}"));
                    };
                    if !t.esc && t.c == ')' {
                        break;
                    }
                }
                return Ok(None);
            } else if c == '=' || c == '!' || c == '<' {
                let mut c = c;
                let mut behind = false;
                let saved_lb = self.lookbehindgroups;
                if c == '<' {
                    let Some(t) = self.get() else {
                        return Err(self.error("unexpected end of pattern"));
                    };
                    if t.esc || (t.c != '=' && t.c != '!') {
                        return Err(self.error(&format!("unknown extension ?<{}", t.c)));
                    }
                    c = t.c;
                    behind = true;
                    if self.lookbehindgroups.is_none() {
                        self.lookbehindgroups = Some(self.groups);
                    }
                }
                let body = self.parse_sub(verbose, nested + 1)?;
                if behind && saved_lb.is_none() {
                    self.lookbehindgroups = None;
                }
                if !self.matches(')') {
                    return Err(format!("missing ), unterminated subpattern at position {start}"));
                }
                return Ok(Some(Node::Assert { behind, negate: c == '!', body }));
            } else if c == '(' {
                let condname = self.getuntil(')', "group name")?;
                let condgroup = if is_identifier(&condname) {
                    let Some(&g) = self.groupdict.get(&condname) else {
                        return Err(self.error(&format!("unknown group name '{condname}'")));
                    };
                    g
                } else {
                    // Python's `int(condname)`, which must not be negative.
                    let Some(g) = crate::py::builtins::parse_int(&condname).filter(|g| *g >= 0).map(|g| usize::try_from(g).unwrap_or(usize::MAX)) else {
                        return Err(self.error(&format!("bad character in group name '{condname}'")));
                    };
                    if g == 0 {
                        return Err(self.error("bad group number"));
                    }
                    if g >= MAXGROUPS {
                        return Err(self.error(&format!("invalid group reference {g}")));
                    }
                    if !self.grouprefpos.iter().any(|(x, _)| *x == g) {
                        self.grouprefpos.push((g, self.tell()));
                    }
                    g
                };
                self.checklookbehindgroup(condgroup)?;
                let yes = self.parse_seq(verbose, nested + 1, false)?;
                let no = if self.matches('|') {
                    let no = self.parse_seq(verbose, nested + 1, false)?;
                    if self.next_is('|') {
                        return Err(self.error("conditional backref with more than two branches"));
                    }
                    Some(no)
                } else {
                    None
                };
                if !self.matches(')') {
                    return Err(format!("missing ), unterminated subpattern at position {start}"));
                }
                return Ok(Some(Node::GroupRefExists { group: condgroup, yes, no }));
            } else if c == '>' {
                capture = false;
                atomic = true;
            } else if flag_of(c).is_some() || c == '-' {
                match self.parse_flags(c)? {
                    None => {
                        if !first || !sub.is_empty() {
                            return Err(self.error("global flags not at the start of the expression"));
                        }
                        return Ok(None);
                    }
                    Some((a, d)) => {
                        add_flags = a;
                        del_flags = d;
                        capture = false;
                    }
                }
            } else {
                return Err(self.error(&format!("unknown extension ?{c}")));
            }
        }
        let group = if capture {
            let gid = self.groups;
            self.groups += 1;
            self.groupwidths.push(None);
            if gid > MAXGROUPS {
                return Err("too many groups".into());
            }
            if let Some(n) = &name {
                if let Some(ogid) = self.groupdict.get(n) {
                    return Err(self.error(&format!("redefinition of group name '{n}' as group {gid}; was group {ogid}")));
                }
                self.groupdict.insert(n.clone(), gid);
            }
            Some(gid)
        } else {
            None
        };
        let sub_verbose = (verbose || add_flags & FLAG_X != 0) && del_flags & FLAG_X == 0;
        let body = self.parse_sub(sub_verbose, nested + 1)?;
        if !self.matches(')') {
            return Err(format!("missing ), unterminated subpattern at position {start}"));
        }
        if let Some(gid) = group {
            let w = width(&body, &self.groupwidths);
            if let Some(slot) = self.groupwidths.get_mut(gid) {
                *slot = Some(w);
            }
        }
        if atomic {
            return Ok(Some(Node::Atomic(body)));
        }
        Ok(Some(Node::Subpattern { group, add: add_flags, del: del_flags, body }))
    }

    /// `_parse_flags`: `None` for global flags `(?i)`, else the scoped `(?i-m:` flags.
    fn parse_flags(&mut self, first: char) -> PResult<Option<(u32, u32)>> {
        let mut add = 0u32;
        let mut del = 0u32;
        let mut c = first;
        if c != '-' {
            loop {
                let flag = flag_of(c).unwrap_or(0);
                if c == 'L' {
                    return Err(self.error("bad inline flags: cannot use 'L' flag with a str pattern"));
                }
                add |= flag;
                if flag & TYPE_FLAGS != 0 && add & TYPE_FLAGS != flag {
                    return Err(self.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible"));
                }
                let Some(t) = self.get() else {
                    return Err(self.error("missing -, : or )"));
                };
                c = if t.esc { '\\' } else { t.c };
                if t.esc {
                    return Err(self.error("missing -, : or )"));
                }
                if c == ')' || c == '-' || c == ':' {
                    break;
                }
                if flag_of(c).is_none() {
                    return Err(self.error(if c.is_alphabetic() { "unknown flag" } else { "missing -, : or )" }));
                }
            }
        }
        if c == ')' {
            self.flags |= add;
            return Ok(None);
        }
        if add & GLOBAL_FLAGS != 0 {
            return Err(self.error("bad inline flags: cannot turn on global flag"));
        }
        if c == '-' {
            let Some(t) = self.get() else {
                return Err(self.error("missing flag"));
            };
            c = t.c;
            if t.esc || flag_of(c).is_none() {
                return Err(self.error(if c.is_alphabetic() && !t.esc { "unknown flag" } else { "missing flag" }));
            }
            loop {
                let flag = flag_of(c).unwrap_or(0);
                if flag & TYPE_FLAGS != 0 {
                    return Err(self.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'"));
                }
                del |= flag;
                let Some(t) = self.get() else {
                    return Err(self.error("missing :"));
                };
                c = t.c;
                if !t.esc && c == ':' {
                    break;
                }
                if t.esc || flag_of(c).is_none() {
                    return Err(self.error(if c.is_alphabetic() && !t.esc { "unknown flag" } else { "missing :" }));
                }
            }
        }
        if del & GLOBAL_FLAGS != 0 {
            return Err(self.error("bad inline flags: cannot turn off global flag"));
        }
        if add & del != 0 {
            return Err(self.error("bad inline flags: flag turned on and off"));
        }
        Ok(Some((add, del)))
    }

    fn parse_set(&mut self, here: usize) -> PResult<Node> {
        let mut items: Vec<SetItem> = Vec::new();
        let negate = self.matches('^');
        loop {
            let Some(this) = self.get() else {
                return Err(format!("unterminated character set at position {here}"));
            };
            if !this.esc && this.c == ']' && !items.is_empty() {
                break;
            }
            let code1 = if this.esc { self.class_escape(this)? } else { SetItem::Literal(this.c) };
            if self.matches('-') {
                let Some(that) = self.get() else {
                    return Err(format!("unterminated character set at position {here}"));
                };
                if !that.esc && that.c == ']' {
                    items.push(code1);
                    items.push(SetItem::Literal('-'));
                    break;
                }
                let code2 = if that.esc { self.class_escape(that)? } else { SetItem::Literal(that.c) };
                let (SetItem::Literal(lo), SetItem::Literal(hi)) = (&code1, &code2) else {
                    return Err(self.error(&format!("bad character range {}-{}", tok_text(this), tok_text(that))));
                };
                if hi < lo {
                    return Err(self.error(&format!("bad character range {}-{}", tok_text(this), tok_text(that))));
                }
                items.push(SetItem::Range(*lo, *hi));
            } else {
                items.push(code1);
            }
        }
        Ok(Node::In { negate, items })
    }

    /// `_class_escape`: an escape inside `[...]`.
    fn class_escape(&mut self, t: Tok) -> PResult<SetItem> {
        if let Some(c) = simple_escape(t.c) {
            return Ok(SetItem::Literal(c));
        }
        if let Some(cat) = category(t.c) {
            return Ok(SetItem::Category(cat));
        }
        self.code_escape(t, true).map(SetItem::Literal)
    }

    /// `_escape`: an escape outside a set.
    fn escape(&mut self, t: Tok) -> PResult<Node> {
        match t.c {
            'A' => return Ok(Node::At(At::BeginningString)),
            'Z' => return Ok(Node::At(At::EndString)),
            'b' => return Ok(Node::At(At::Boundary)),
            'B' => return Ok(Node::At(At::NonBoundary)),
            _ => {}
        }
        if let Some(cat) = category(t.c) {
            return Ok(Node::In { negate: false, items: vec![SetItem::Category(cat)] });
        }
        if let Some(c) = simple_escape(t.c) {
            return Ok(Node::Literal(c));
        }
        if t.c.is_ascii_digit() && t.c != '0' {
            // An octal escape or a group reference.
            let mut digits = t.c.to_string();
            if self.next_plain_in("0123456789") {
                let d = self.get().map_or('0', |x| x.c);
                digits.push(d);
                let octal = |c: char| ('0'..='7').contains(&c);
                if octal(t.c) && octal(d) && self.next_plain_in("01234567") {
                    let e = self.get().map_or('0', |x| x.c);
                    digits.push(e);
                    let v = u32::from_str_radix(&digits, 8).unwrap_or(0);
                    if v > 0o377 {
                        return Err(self.error(&format!("octal escape value \\{digits} outside of range 0-0o377")));
                    }
                    return char::from_u32(v).map(Node::Literal).ok_or_else(|| self.error("bad escape"));
                }
            }
            let group: usize = digits.parse().unwrap_or(usize::MAX);
            if group < self.groups {
                if !self.checkgroup(group) {
                    return Err(self.error("cannot refer to an open group"));
                }
                self.checklookbehindgroup(group)?;
                return Ok(Node::GroupRef(group));
            }
            return Err(self.error(&format!("invalid group reference {group}")));
        }
        self.code_escape(t, false).map(Node::Literal)
    }

    /// The escapes shared by both contexts that denote one character.
    fn code_escape(&mut self, t: Tok, in_class: bool) -> PResult<char> {
        let hex = "0123456789abcdefABCDEF";
        let fixed = |p: &mut Parser, n: usize, lead: char| -> PResult<char> {
            let digits = p.getwhile(n, hex);
            if digits.len() != n {
                return Err(p.error(&format!("incomplete escape \\{lead}{digits}")));
            }
            let v = u32::from_str_radix(&digits, 16).unwrap_or(u32::MAX);
            char::from_u32(v).ok_or_else(|| p.error(&format!("bad escape \\{lead}{digits}")))
        };
        match t.c {
            'x' => fixed(self, 2, 'x'),
            'u' => fixed(self, 4, 'u'),
            'U' => fixed(self, 8, 'U'),
            'N' => Err(self.error("named unicode escapes (\\N{...}) are not supported")),
            '0'..='7' if in_class || t.c == '0' => {
                let mut digits = t.c.to_string();
                digits.push_str(&self.getwhile(2, "01234567"));
                let v = u32::from_str_radix(&digits, 8).unwrap_or(u32::MAX);
                if in_class && v > 0o377 {
                    return Err(self.error(&format!("octal escape value \\{digits} outside of range 0-0o377")));
                }
                char::from_u32(v).ok_or_else(|| self.error("bad escape"))
            }
            c if c.is_ascii_digit() => Err(self.error(&format!("bad escape \\{c}"))),
            c if c.is_ascii_alphabetic() => Err(self.error(&format!("bad escape \\{c}"))),
            c => Ok(c),
        }
    }
}

fn tok_text(t: Tok) -> String {
    if t.esc {
        format!("\\{}", t.c)
    } else {
        t.c.to_string()
    }
}

fn simple_escape(c: char) -> Option<char> {
    Some(match c {
        'a' => '\x07',
        'b' => '\x08',
        'f' => '\x0c',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\x0b',
        '\\' => '\\',
        _ => return None,
    })
}

fn category(c: char) -> Option<Cat> {
    Some(match c {
        'd' => Cat::Digit,
        'D' => Cat::NotDigit,
        's' => Cat::Space,
        'S' => Cat::NotSpace,
        'w' => Cat::Word,
        'W' => Cat::NotWord,
        _ => return None,
    })
}

/// Python's `str.isidentifier`, approximated: a letter or `_`, then letters, digits or `_`.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// `SubPattern.getwidth`: the minimum and maximum number of characters a sequence matches.
fn width(nodes: &[Node], groupwidths: &[Option<(u64, u64)>]) -> (u64, u64) {
    let mut lo: u64 = 0;
    let mut hi: u64 = 0;
    for node in nodes {
        let (i, j) = match node {
            Node::Branch(alts) => {
                let mut i = MAXWIDTH;
                let mut j = 0;
                for alt in alts {
                    let (l, h) = width(alt, groupwidths);
                    i = i.min(l);
                    j = j.max(h);
                }
                (i, j)
            }
            Node::Atomic(body) | Node::Subpattern { body, .. } => width(body, groupwidths),
            Node::Repeat { min, max, item, .. } => {
                let (i, j) = width(item, groupwidths);
                let lo_part = i.saturating_mul(*min);
                let hi_part = if *max == MAXREPEAT && j > 0 { MAXWIDTH } else { j.saturating_mul(*max) };
                (lo_part, hi_part)
            }
            Node::Literal(_) | Node::Any | Node::In { .. } => (1, 1),
            Node::GroupRef(g) => groupwidths.get(*g).copied().flatten().unwrap_or((0, 0)),
            Node::GroupRefExists { yes, no, .. } => {
                let (i, j) = width(yes, groupwidths);
                match no {
                    Some(no) => {
                        let (l, h) = width(no, groupwidths);
                        (i.min(l), j.max(h))
                    }
                    None => (0, j),
                }
            }
            Node::At(_) | Node::Assert { .. } => (0, 0),
        };
        lo = lo.saturating_add(i);
        hi = hi.saturating_add(j);
    }
    (lo, hi)
}

/// The compiler's check that every look-behind has a fixed width.
fn check_lookbehinds(nodes: &[Node], gw: &[Option<(u64, u64)>]) -> PResult<()> {
    for node in nodes {
        match node {
            Node::Assert { behind, body, .. } => {
                if *behind {
                    let (lo, hi) = width(body, gw);
                    if lo != hi {
                        return Err("look-behind requires fixed-width pattern".into());
                    }
                }
                check_lookbehinds(body, gw)?;
            }
            Node::Branch(alts) => {
                for alt in alts {
                    check_lookbehinds(alt, gw)?;
                }
            }
            Node::Atomic(body) | Node::Subpattern { body, .. } | Node::Repeat { item: body, .. } => check_lookbehinds(body, gw)?,
            Node::GroupRefExists { yes, no, .. } => {
                check_lookbehinds(yes, gw)?;
                if let Some(no) = no {
                    check_lookbehinds(no, gw)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether a sequence is empty or made only of anchors and look-arounds.
fn only_assertions(nodes: &[Node]) -> bool {
    nodes.iter().all(|n| matches!(n, Node::At(_) | Node::Assert { .. }))
}

/// Writes the fancy-regex equivalent of a parsed pattern. Anchors, `.` and character
/// categories are written out explicitly for the flags in effect, so that Python's meaning
/// (`$` also before a final newline, Unicode `\w` = letters, numbers and `_`) survives.
struct Emitter<'o> {
    out: &'o mut String,
}

const WORD: &str = r"\p{L}\p{N}_";
const WORD_ASCII: &str = "0-9A-Za-z_";
const SPACE: &str = r"\s\x{1c}-\x{1f}";
const SPACE_ASCII: &str = r"\x{20}\t\n\r\x{0b}\x{0c}";

impl Emitter<'_> {
    fn seq(&mut self, nodes: &[Node], flags: u32) {
        for node in nodes {
            self.node(node, flags);
        }
    }

    fn lit(&mut self, c: char) {
        if c.is_ascii_alphanumeric() {
            self.out.push(c);
        } else {
            self.out.push_str(&format!("\\x{{{:x}}}", c as u32));
        }
    }

    fn casei_open(&mut self, flags: u32) {
        if flags & FLAG_I != 0 {
            self.out.push_str("(?i:");
        } else {
            self.out.push_str("(?-i:");
        }
    }

    fn node(&mut self, node: &Node, flags: u32) {
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
    fn category(&mut self, cat: Cat, ascii: bool) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> Result<bool, String> {
        re_match(p, s)
    }

    // Each row was checked with CPython 3.11's `re.match` (the interpreter Salt 3008 runs on).
    #[test]
    fn python_re_match_semantics() {
        let rows: &[(&str, &str, Option<bool>)] = &[
            ("web", "web01", Some(true)),
            ("example", "web01.example.com", Some(false)),
            (".*example", "web01.example.com", Some(true)),
            ("(?i)WEB", "web01", Some(true)),
            ("", "x", Some(true)),
            (r"web01\.example\.com\Z", "web01.example.com", Some(true)),
            ("web$", "web\n", Some(true)),
            (r"web\Z", "web\n", Some(false)),
            ("a{", "a{", Some(true)),
            ("a{,2}b", "aab", Some(true)),
            ("a{1 ,2}", "a{1 ,2}", Some(true)),
            ("x{}", "x{}", Some(true)),
            ("[[]", "[", Some(true)),
            ("[]a]", "]", Some(true)),
            (r"\w+\Z", "ünï_1", Some(true)),
            (r"\w", "\u{301}", Some(false)),
            (r"\s", "\u{1c}", Some(true)),
            (r"(?a)\w", "é", Some(false)),
            (r"(a)\1", "aa", Some(true)),
            (r"(?P<n>a)(?P=n)", "aa", Some(true)),
            (r"(?<=a)b", "ab", Some(false)),
            (r"a(?=b)", "ab", Some(true)),
            (r"\bfoo\b", "foo bar", Some(true)),
            (r"(?x) a b # comment", "ab", Some(true)),
            ("(", "", None),
            (")", "", None),
            ("*", "", None),
            ("a**", "", None),
            ("a{2}{3}", "", None),
            ("^*", "", None),
            (r"\q", "", None),
            (r"\z", "", None),
            ("a(?i)b", "", None),
            ("(?<=a|bc)x", "", None),
            ("[z-a]", "", None),
            ("[a", "", None),
            ("a\\", "", None),
            (r"\1", "", None),
            ("(?P<1>a)", "", None),
            ("(?L)a", "", None),
            ("(?:a*)*b", "b", Some(true)),
            ("a*+a", "aaa", Some(false)),
            ("(?>a*)a", "aaa", Some(false)),
            ("(a)?(?(1)b|c)", "c", Some(true)),
            (r"[\d-z]", "", None),
            (r"\x41", "A", Some(true)),
            (r"\101", "A", Some(true)),
            ("(?s).", "\n", Some(true)),
            (".", "\n", Some(false)),
            ("(?m)a$", "a\nb", Some(true)),
            ("a$", "a\nb", Some(false)),
            ("(?i:A)a", "aa", Some(true)),
            ("(?i:A)a", "aA", Some(false)),
            // Found by fuzzing against CPython: `\B` never matches in an empty string, and
            // repeated look-arounds are legal.
            (r"\B", "", Some(false)),
            (r"\B", "ab", Some(false)),
            (r"a\B", "ab", Some(true)),
            ("(?<=){1,3}", "x", Some(true)),
            ("(?!)+", "x", Some(false)),
            ("(?=a)*b", "b", Some(true)),
            ("(?:)*a", "a", Some(true)),
        ];
        for (p, s, want) in rows {
            let got = m(p, s);
            match want {
                Some(w) => assert_eq!(got.as_ref().ok(), Some(w), "re.match({p:?}, {s:?}) = {got:?}"),
                None => assert!(got.is_err(), "re.compile({p:?}) should fail, got {got:?}"),
            }
        }
    }

    #[test]
    fn error_messages_follow_python() {
        assert_eq!(m("(", "").unwrap_err(), "missing ), unterminated subpattern at position 0");
        assert_eq!(m("a**", "").unwrap_err(), "multiple repeat at position 2");
        assert_eq!(m("[a", "").unwrap_err(), "unterminated character set at position 0");
    }
}

#[cfg(test)]
mod hostile {
    use super::*;

    // Huge or nested repetitions must fail fast (or match) rather than hang, panic or
    // overflow a 2 MiB thread stack.
    #[test]
    fn hostile_patterns_do_not_hang() {
        // A thread that cannot be spawned fails the test: passing without running proves nothing.
        let thread = std::thread::Builder::new().stack_size(2 << 20).spawn(hostile_patterns).expect("a thread with a 2 MiB stack");
        assert!(thread.join().is_ok(), "a hostile pattern panicked");
    }

    fn hostile_patterns() {
        let start = std::time::Instant::now();
        for p in [
            "a{4294967294}",
            "a{4294967295}",
            "(a{1000}){1000}",
            "(?:(?:(?:a*)*)*)*b",
            &"(".repeat(5000),
            &format!("{}a{}", "(".repeat(100), ")".repeat(100)),
            &format!("{}a{}", "(?:".repeat(100), ")".repeat(100)),
            &format!("{}a{}", "(?=".repeat(100), ")".repeat(100)),
            &format!("{}a{}", "(?(1)".repeat(300), ")".repeat(300)),
            &"(?:a)".repeat(20000),
            "(a|aa)*c",
        ] {
            let _ = re_match(p, &"a".repeat(40));
        }
        assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    }
}
