//! Python `re` patterns: parsed the way CPython 3.11's `re._parser` parses them (same syntax
//! errors), then written out as an equivalent fancy-regex pattern, so `re.match` answers as
//! Python would. Salt's `pcre`, `grain_pcre` and `pillar_pcre` matchers all go through here, and
//! the `regex_*` Jinja filters search and substitute with [`PySearch`].
//!
//! Below it: `parse` (`re._parser`), `emit` (the fancy-regex pattern), `template` (`re.sub`'s
//! replacement).

use std::collections::HashMap;

mod emit;
mod parse;
mod template;

use emit::Emitter;
use parse::{Parser, FLAG_I, FLAG_M};
use template::{parse_template, Piece};

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
