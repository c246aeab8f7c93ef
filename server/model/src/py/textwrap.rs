//! Python's `textwrap.wrap` (CPython 3.11 `textwrap.py`) as Jinja2's `wordwrap` filter calls it:
//! no tab expansion, whitespace kept as it is, leading and trailing whitespace of each line
//! dropped, long words broken (at a hyphen when it can).

use std::sync::OnceLock;

use super::builtins::is_py_space;
use super::re::PySearch;

/// `TextWrapper.wordsep_re` without its verbose layout: whitespace runs, em-dashes between
/// words, and words that may end after a hyphen between letters.
const WORDSEP: &str = concat!(
    r"([\t\n\x0b\x0c\r ]+",
    r#"|(?<=[\w!"'&.,?])-{2,}(?=\w)"#,
    r"|[^\t\n\x0b\x0c\r ]+?(?:-(?:(?<=[^\d\W]{2}-)|(?<=[^\d\W]-[^\d\W]-))(?=[^\d\W]-?[^\d\W])",
    r"|(?=[\t\n\x0b\x0c\r ]|\Z)",
    r#"|(?<=[\w!"'&.,?])(?=-{2,}\w)))"#,
);

/// `TextWrapper.wordsep_simple_re`: whitespace runs.
const WORDSEP_SIMPLE: &str = r"([\t\n\x0b\x0c\r ]+)";

/// `textwrap.wrap(text, width, expand_tabs=False, replace_whitespace=False,
/// break_long_words=..., break_on_hyphens=...)`: the lines, or `ValueError`'s text.
pub(crate) fn wrap(text: &str, width: i64, break_long_words: bool, break_on_hyphens: bool) -> Result<Vec<String>, String> {
    static SEPARATORS: OnceLock<Result<(PySearch, PySearch), String>> = OnceLock::new();
    let (hyphens, simple) =
        SEPARATORS.get_or_init(|| Ok((PySearch::compile(WORDSEP, 0)?, PySearch::compile(WORDSEP_SIMPLE, 0)?))).as_ref().map_err(Clone::clone)?;
    let re = if break_on_hyphens { hyphens } else { simple };
    // `re.split` with one group around the whole pattern: the text between matches and each
    // match, empty pieces left out.
    let mut chunks: Vec<String> = Vec::new();
    let mut pos = 0;
    while let Some(groups) = re.search(text, pos)? {
        let Some(m) = groups[0].clone() else { break };
        if m.is_empty() {
            break;
        }
        chunks.push(text[pos..m.start].to_string());
        chunks.push(text[m.clone()].to_string());
        pos = m.end;
    }
    chunks.push(text[pos..].to_string());
    chunks.retain(|c| !c.is_empty());
    wrap_chunks(chunks, width, break_long_words, break_on_hyphens)
}

fn len(s: &str) -> usize {
    s.chars().count()
}

fn blank(s: &str) -> bool {
    s.chars().all(is_py_space)
}

/// `TextWrapper._wrap_chunks` with no indents and no line limit.
fn wrap_chunks(mut chunks: Vec<String>, width: i64, break_long_words: bool, break_on_hyphens: bool) -> Result<Vec<String>, String> {
    if width <= 0 {
        return Err(format!("invalid width {width} (must be > 0)"));
    }
    let width = width as usize;
    let mut lines: Vec<String> = Vec::new();
    chunks.reverse();
    while !chunks.is_empty() {
        let mut cur_line: Vec<String> = Vec::new();
        let mut cur_len = 0;
        if !lines.is_empty() && chunks.last().is_some_and(|c| blank(c)) {
            chunks.pop();
        }
        while let Some(chunk) = chunks.last() {
            let l = len(chunk);
            if cur_len + l > width {
                break;
            }
            cur_len += l;
            cur_line.extend(chunks.pop());
        }
        if chunks.last().is_some_and(|c| len(c) > width) {
            // `_handle_long_word`.
            let space_left = if width < 1 { 1 } else { width - cur_len };
            if break_long_words {
                let chunk: Vec<char> = chunks.last().map(|c| c.chars().collect()).unwrap_or_default();
                let mut end = space_left;
                if break_on_hyphens && chunk.len() > space_left {
                    // After the last hyphen before the limit that has something else before it.
                    if let Some(h) = chunk[..space_left].iter().rposition(|c| *c == '-') {
                        if h > 0 && chunk[..h].iter().any(|c| *c != '-') {
                            end = h + 1;
                        }
                    }
                }
                cur_line.push(chunk[..end].iter().collect());
                if let Some(last) = chunks.last_mut() {
                    *last = chunk[end..].iter().collect();
                }
            } else if cur_line.is_empty() {
                cur_line.extend(chunks.pop());
            }
        }
        if cur_line.last().is_some_and(|c| blank(c)) {
            cur_line.pop();
        }
        if !cur_line.is_empty() {
            lines.push(cur_line.concat());
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python 3.11: `textwrap.wrap(t, w, expand_tabs=False, replace_whitespace=False, ...)`.
    #[test]
    fn like_python() {
        let w = |t: &str, n: i64| wrap(t, n, true, true).unwrap();
        assert_eq!(w("The quick brown fox jumps over the lazy dog", 10), ["The quick", "brown fox", "jumps over", "the lazy", "dog"]);
        assert_eq!(w("a well-known state-of-the-art thing", 12), ["a well-known", "state-of-", "the-art", "thing"]);
        assert_eq!(w("abcdefghijklmnop", 5), ["abcde", "fghij", "klmno", "p"]);
        assert_eq!(w("  lead  and trail  ", 6), ["  lead", "and", "trail"]);
        assert_eq!(w("", 5), Vec::<String>::new());
        assert_eq!(wrap("abcdefgh ij", 3, false, true).unwrap(), ["abcdefgh", "ij"]);
        assert_eq!(wrap("x", 0, true, true).unwrap_err(), "invalid width 0 (must be > 0)");
        assert_eq!(w("pre--post em--dash a-b-c x", 6), ["pre--", "post", "em--", "dash", "a-b-c", "x"]);
        assert_eq!(w("super-long-hyphenated-wordy thing", 8), ["super-", "long-hyp", "henated-", "wordy", "thing"]);
    }
}
