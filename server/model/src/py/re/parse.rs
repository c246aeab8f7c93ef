//! `re._parser` (CPython 3.11): a Python pattern parsed to nodes, with Python's syntax errors,
//! widths and lookbehind checks.

use std::collections::HashMap;

// Flag bits, as in `re._constants`.
pub(super) const FLAG_I: u32 = 2;
pub(super) const FLAG_L: u32 = 4;
pub(super) const FLAG_M: u32 = 8;
pub(super) const FLAG_S: u32 = 16;
pub(super) const FLAG_U: u32 = 32;
pub(super) const FLAG_X: u32 = 64;
pub(super) const FLAG_A: u32 = 256;
pub(super) const FLAG_T: u32 = 1;
pub(super) const TYPE_FLAGS: u32 = FLAG_A | FLAG_L | FLAG_U;
pub(super) const GLOBAL_FLAGS: u32 = FLAG_T;
pub(super) const MAXREPEAT: u64 = 4_294_967_295;
pub(super) const MAXGROUPS: usize = 1_073_741_823;
/// CPython's recursive parser runs out of stack (`RecursionError`) a little below 500 nested
/// groups. We stop much earlier, at a depth no real pattern reaches, so that parsing fits
/// in a small thread stack even in a debug build.
pub(super) const MAX_NESTING: usize = 100;

pub(super) fn flag_of(c: char) -> Option<u32> {
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
pub(super) enum Cat {
    Digit,
    NotDigit,
    Space,
    NotSpace,
    Word,
    NotWord,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum At {
    Beginning,
    BeginningString,
    End,
    EndString,
    Boundary,
    NonBoundary,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum SetItem {
    Literal(char),
    Range(char, char),
    Category(Cat),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum RepeatKind {
    Greedy,
    Lazy,
    Possessive,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
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
pub(super) struct Tok {
    pub(super) c: char,
    pub(super) esc: bool,
    pub(super) pos: usize,
}

pub(super) struct Parsed {
    pub(super) nodes: Vec<Node>,
    pub(super) flags: u32,
    /// Capturing groups, and the number of each named one.
    pub(super) groups: usize,
    pub(super) groupdict: HashMap<String, usize>,
}

pub(super) struct Parser {
    pub(super) toks: Vec<Tok>,
    pub(super) index: usize,
    pub(super) len_chars: usize,
    pub(super) flags: u32,
    pub(super) groups: usize,
    pub(super) groupdict: HashMap<String, usize>,
    pub(super) groupwidths: Vec<Option<(u64, u64)>>,
    pub(super) lookbehindgroups: Option<usize>,
    pub(super) grouprefpos: Vec<(usize, usize)>,
}

pub(super) type PResult<T> = Result<T, String>;

pub(super) const MAXWIDTH: u64 = u64::MAX;

impl Parser {
    /// `re._parser.parse(pattern, flags)`: `flags` are those given to `re.compile`.
    pub(super) fn parse(pattern: &str, flags: u32) -> PResult<Parsed> {
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

    pub(super) fn peek(&self) -> Option<Tok> {
        self.toks.get(self.index).copied()
    }
    pub(super) fn next_is(&self, c: char) -> bool {
        matches!(self.peek(), Some(t) if !t.esc && t.c == c)
    }
    pub(super) fn next_plain_in(&self, set: &str) -> bool {
        matches!(self.peek(), Some(t) if !t.esc && set.contains(t.c))
    }
    pub(super) fn get(&mut self) -> Option<Tok> {
        let t = self.peek();
        if t.is_some() {
            self.index += 1;
        }
        t
    }
    pub(super) fn matches(&mut self, c: char) -> bool {
        if self.next_is(c) {
            self.index += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn tell(&self) -> usize {
        self.peek().map_or(self.len_chars, |t| t.pos)
    }
    pub(super) fn error(&self, msg: &str) -> String {
        format!("{msg} at position {}", self.tell())
    }
    pub(super) fn getwhile(&mut self, n: usize, set: &str) -> String {
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
    pub(super) fn getuntil(&mut self, terminator: char, name: &str) -> PResult<String> {
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
    pub(super) fn checkgroupname(&self, name: &str) -> PResult<()> {
        if !is_identifier(name) {
            return Err(self.error(&format!("bad character in group name '{name}'")));
        }
        Ok(())
    }
    pub(super) fn checkgroup(&self, gid: usize) -> bool {
        gid < self.groups && self.groupwidths.get(gid).is_some_and(|w| w.is_some())
    }
    pub(super) fn checklookbehindgroup(&self, gid: usize) -> PResult<()> {
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

    pub(super) fn parse_sub(&mut self, verbose: bool, nested: usize) -> PResult<Vec<Node>> {
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

    pub(super) fn parse_seq(&mut self, verbose: bool, nested: usize, first: bool) -> PResult<Vec<Node>> {
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
    pub(super) fn parse_group(&mut self, start: usize, verbose: bool, nested: usize, first: bool, sub: &[Node]) -> PResult<Option<Node>> {
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
    pub(super) fn parse_flags(&mut self, first: char) -> PResult<Option<(u32, u32)>> {
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

    pub(super) fn parse_set(&mut self, here: usize) -> PResult<Node> {
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
    pub(super) fn class_escape(&mut self, t: Tok) -> PResult<SetItem> {
        if let Some(c) = simple_escape(t.c) {
            return Ok(SetItem::Literal(c));
        }
        if let Some(cat) = category(t.c) {
            return Ok(SetItem::Category(cat));
        }
        self.code_escape(t, true).map(SetItem::Literal)
    }

    /// `_escape`: an escape outside a set.
    pub(super) fn escape(&mut self, t: Tok) -> PResult<Node> {
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
    pub(super) fn code_escape(&mut self, t: Tok, in_class: bool) -> PResult<char> {
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

pub(super) fn tok_text(t: Tok) -> String {
    if t.esc {
        format!("\\{}", t.c)
    } else {
        t.c.to_string()
    }
}

pub(super) fn simple_escape(c: char) -> Option<char> {
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

pub(super) fn category(c: char) -> Option<Cat> {
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
pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// `SubPattern.getwidth`: the minimum and maximum number of characters a sequence matches.
pub(super) fn width(nodes: &[Node], groupwidths: &[Option<(u64, u64)>]) -> (u64, u64) {
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
pub(super) fn check_lookbehinds(nodes: &[Node], gw: &[Option<(u64, u64)>]) -> PResult<()> {
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
pub(super) fn only_assertions(nodes: &[Node]) -> bool {
    nodes.iter().all(|n| matches!(n, Node::At(_) | Node::Assert { .. }))
}
