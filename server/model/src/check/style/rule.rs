//! What the style rules are made of, shared by the rule tables (`lines`, `jinja`, `text`) and
//! the linter that runs them (`mod.rs`): a rule and its test, the languages salt-lint reads,
//! and Python's view of a line (its spaces, `lstrip`, `# noqa`, `splitlines` counting).

use std::ops::Range;
use std::path::Path;

use crate::diagnostic::Code;
use crate::py::re::PySearch;

/// Which of salt-lint's languages a file is (`utils.get_file_type`, by the extension in lower
/// case); the style rules look at no other file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Sls,
    Jinja,
}

/// The language of `path`, if the style rules read it.
pub fn lang(path: &Path) -> Option<Lang> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "sls" => Some(Lang::Sls),
        "jinja" | "jinja2" | "j2" => Some(Lang::Jinja),
        _ => None,
    }
}

/// How a rule tests a file.
#[derive(Clone, Copy)]
pub(super) enum Test {
    /// Each line (`Rule.match`): the byte range in the line of what is wrong.
    Line(fn(&str) -> Option<Range<usize>>),
    /// Each line, with a Python pattern searched once `cheap` says it may match.
    Pattern { cheap: fn(&str) -> bool, pattern: &'static str, flags: u32 },
    /// Each line of the text with `{% raw %}` blanked (`JinjaRule`), with a pattern.
    Jinja { cheap: fn(&str) -> bool, pattern: &'static str },
    /// A state deprecation (`DeprecationRule`): `^\s{2}STATE(?=:|$)` on each line.
    Deprecated { state: &'static str, since: &'static str, instead: &'static str },
    /// The whole text (`Rule.matchtext`): the 0-based line of each finding ('\n' lines).
    Text(fn(&Path, &str, &str) -> Vec<usize>),
}

/// One ported rule: salt-lint's ID, our code, where it applies, its test and message.
pub(super) struct Rule {
    pub(super) id: &'static str,
    pub(super) code: Code,
    /// `None`: any file the style rules read.
    pub(super) only: Option<&'static [Lang]>,
    pub(super) test: Test,
    pub(super) message: &'static str,
}

pub(super) const SLS: Option<&[Lang]> = Some(&[Lang::Sls]);
pub(super) const JINJA: Option<&[Lang]> = Some(&[Lang::Sls, Lang::Jinja]);

/// `re.VERBOSE` and `re.MULTILINE` as CPython numbers them.
pub(super) const RE_VERBOSE: u32 = 64;
pub(super) const RE_MULTILINE: u32 = crate::py::re::MULTILINE;

/// `pattern.search(line)`: the range of the match.
pub(super) fn search(re: Option<&PySearch>, line: &str) -> Option<Range<usize>> {
    let groups = re?.search(line, 0).ok()??;
    let whole = groups.first()?.clone()?;
    // A match that starts with the line's indentation points at what follows it.
    let lead = line[whole.clone()].len() - line[whole.clone()].trim_start().len();
    Some(whole.start + lead..whole.end)
}

/// Python's `str.isspace` for one character (Rust's `is_whitespace` lacks `\x1c`-`\x1f`).
pub(super) fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// `line.lstrip()`.
pub(super) fn py_lstrip(line: &str) -> &str {
    line.trim_start_matches(py_space)
}

/// `get_rule_skips_from_line`: the words between the first `# noqa` and the next.
pub(super) fn noqa(line: &str) -> Vec<&str> {
    if !line.contains("# noqa") {
        return Vec::new();
    }
    line.split("# noqa").nth(1).map(|s| s.split(py_space).filter(|w| !w.is_empty()).collect()).unwrap_or_default()
}

/// `len(text[:end].splitlines())` for ends that only grow, counted once over the text: a
/// whole-text rule's findings would otherwise each count from the start.
pub(super) struct PyLines<'a> {
    pub(super) text: &'a str,
    pos: usize,
    boundaries: usize,
}

impl<'a> PyLines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        PyLines { text, pos: 0, boundaries: 0 }
    }

    /// The line count of `text[..end]` (`end` at a character boundary, no less than before).
    pub(super) fn count(&mut self, end: usize) -> usize {
        let bytes = self.text.as_bytes();
        if end > self.pos {
            for (i, c) in self.text[self.pos..end].char_indices() {
                let at = self.pos + i;
                // `\r\n` is one boundary.
                if is_py_break(c) && !(c == '\n' && at > 0 && bytes[at - 1] == b'\r') {
                    self.boundaries += 1;
                }
            }
            self.pos = end;
        }
        let open = self.text[..self.pos].chars().next_back().is_some_and(|c| !is_py_break(c));
        self.boundaries + usize::from(open)
    }
}

/// A line boundary of Python's `str.splitlines`.
pub(super) fn is_py_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `len(text.splitlines())`: Python's line count, whose line boundaries are more than `\n`.
pub(super) fn py_line_count(text: &str) -> usize {
    PyLines::new(text).count(text.len())
}
