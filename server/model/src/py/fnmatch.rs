//! Python's `fnmatch.fnmatchcase` (case-sensitive, as `fnmatch.fnmatch` is on POSIX):
//! the pattern is translated to a regex exactly as `fnmatch.translate` does.

use regex::Regex;

/// Translate a shell pattern into an anchored regex source, following CPython's
/// `fnmatch.translate`: `*` any run, `?` one char, `[...]` a class (`[!...]` negated),
/// an unclosed `[` is literal. `/` and `.` are ordinary characters.
pub fn translate(pat: &str) -> String {
    let chars: Vec<char> = pat.chars().collect();
    let mut out = String::from("(?s)^");
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '*' => {
                // Consecutive stars collapse, as in CPython.
                while i < chars.len() && chars[i] == '*' {
                    i += 1;
                }
                out.push_str(".*");
            }
            '?' => out.push('.'),
            '[' => {
                let mut j = i;
                if j < chars.len() && chars[j] == '!' {
                    j += 1;
                }
                if j < chars.len() && chars[j] == ']' {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    j += 1;
                }
                if j >= chars.len() {
                    out.push_str("\\[");
                } else {
                    out.push_str(&class(&chars, i, j));
                    i = j + 1;
                }
            }
            _ => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out.push('$');
    out
}

/// A `[...]` class from `pat[i..j]`, as CPython 3.11's `translate` builds it (chunks split on
/// `-`, backwards ranges dropped), then read back the way `sre_parse` reads a class, and
/// emitted for the `regex` crate (every member escaped, so `[`, `&&` or `--` mean nothing).
fn class(pat: &[char], start: usize, j: usize) -> String {
    let stuff: Vec<char> = if !pat[start..j].contains(&'-') {
        pat[start..j].to_vec()
    } else {
        let mut chunks: Vec<Vec<char>> = Vec::new();
        let mut i = start;
        let mut k = if pat[start] == '!' { start + 2 } else { start + 1 };
        while let Some(found) = (k..j).find(|&x| pat[x] == '-') {
            chunks.push(pat[i..found].to_vec());
            i = found + 1;
            k = found + 3;
        }
        let chunk = pat[i..j].to_vec();
        if !chunk.is_empty() {
            chunks.push(chunk);
        } else if let Some(last) = chunks.last_mut() {
            last.push('-');
        }
        let mut k = chunks.len();
        while k > 1 {
            k -= 1;
            let (a, b) = (chunks[k - 1].last().copied(), chunks[k].first().copied());
            if let (Some(a), Some(b)) = (a, b) {
                if a > b {
                    let tail: Vec<char> = chunks[k][1..].to_vec();
                    chunks[k - 1].pop();
                    chunks[k - 1].extend(tail);
                    chunks.remove(k);
                }
            }
        }
        // Hyphens inside chunks are literal (CPython escapes them); those between chunks
        // are ranges. Mark literal hyphens so the class reader below keeps them.
        let mut out = Vec::new();
        for (n, c) in chunks.iter().enumerate() {
            if n > 0 {
                out.push('-');
            }
            for &ch in c {
                if ch == '-' {
                    out.push('\u{0}');
                }
                out.push(ch);
            }
        }
        out
    };
    if stuff.is_empty() {
        return "(?!)".into();
    }
    if stuff == ['!'] {
        return ".".into();
    }
    let (negate, body) = if stuff[0] == '!' { (true, &stuff[1..]) } else { (false, &stuff[..]) };
    // Read members as sre_parse does: `a-b` is a range unless `-` is last.
    let mut members: Vec<(char, char)> = Vec::new();
    let mut i = 0;
    let next = |i: &mut usize| -> Option<char> {
        let c = *body.get(*i)?;
        *i += 1;
        if c == '\u{0}' {
            let lit = *body.get(*i)?;
            *i += 1;
            return Some(lit);
        }
        Some(c)
    };
    while i < body.len() {
        let is_marked = body[i] == '\u{0}';
        let Some(lo) = next(&mut i) else { break };
        let range_follows = !is_marked && i < body.len() && body[i] == '-' && i + 1 < body.len();
        if range_follows || (is_marked && i < body.len() && body[i] == '-' && i + 1 < body.len()) {
            i += 1;
            let Some(hi) = next(&mut i) else { break };
            if lo > hi {
                // `re` would reject it; CPython removed such ranges already.
                return "(?!)".into();
            }
            members.push((lo, hi));
        } else {
            members.push((lo, lo));
        }
    }
    let esc = |c: char| if c.is_ascii_alphanumeric() || !c.is_ascii() { c.to_string() } else { format!("\\{c}") };
    let mut out = String::from(if negate { "[^" } else { "[" });
    for (lo, hi) in members {
        out.push_str(&esc(lo));
        if hi != lo {
            out.push('-');
            out.push_str(&esc(hi));
        }
    }
    out.push(']');
    out
}

/// A compiled pattern; compile once when matching many names.
#[derive(Debug, Clone)]
pub struct Pattern(Compiled);

#[derive(Debug, Clone)]
enum Compiled {
    /// No `*`, `?` or `[`: the translated regex matches exactly this string, so equality
    /// answers the same without compiling a regex (include resolution matches every
    /// available name against such literal patterns, thousands of times per check).
    Literal(String),
    /// `None` when the translation is not a valid regex.
    Regex(Option<Regex>),
}

impl Pattern {
    pub fn new(pat: &str) -> Pattern {
        if !pat.contains(['*', '?', '[']) {
            return Pattern(Compiled::Literal(pat.to_string()));
        }
        // A range like `[z-a]` is invalid for `regex`; CPython treats it as matching nothing.
        Pattern(Compiled::Regex(Regex::new(&translate(pat)).ok()))
    }
    pub fn matches(&self, name: &str) -> bool {
        match &self.0 {
            Compiled::Literal(s) => s == name,
            Compiled::Regex(r) => r.as_ref().is_some_and(|r| r.is_match(name)),
        }
    }
}

/// `fnmatch.fnmatchcase(name, pat)`.
pub fn fnmatch(name: &str, pat: &str) -> bool {
    if !pat.contains(['*', '?', '[']) {
        return name == pat;
    }
    Pattern::new(pat).matches(name)
}

/// `fnmatch.filter(names, pat)`, keeping order.
pub fn filter<'a, I: IntoIterator<Item = &'a str>>(names: I, pat: &str) -> Vec<&'a str> {
    let p = Pattern::new(pat);
    names.into_iter().filter(|n| p.matches(n)).collect()
}

/// [`filter`] over a sorted, deduplicated list (such as `list_states`): a pattern without
/// magic can only match itself, found by binary search instead of a scan.
pub fn filter_sorted<'a>(names: &'a [String], pat: &str) -> Vec<&'a str> {
    if !pat.contains(['*', '?', '[']) {
        return match names.binary_search_by(|n| n.as_str().cmp(pat)) {
            Ok(i) => vec![names[i].as_str()],
            Err(_) => Vec::new(),
        };
    }
    filter(names.iter().map(String::as_str), pat)
}

/// Whether any name of a sorted, deduplicated list matches `pat`.
pub fn any_sorted(names: &[String], pat: &str) -> bool {
    if !pat.contains(['*', '?', '[']) {
        return names.binary_search_by(|n| n.as_str().cmp(pat)).is_ok();
    }
    let p = Pattern::new(pat);
    names.iter().any(|n| p.matches(n))
}

/// Whether a string contains glob magic, as `DependencyGraph` tests it (`* ? [ ]`).
pub fn has_magic(s: &str) -> bool {
    s.contains(['*', '?', '[', ']'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_fnmatch_cases() {
        let cases = [
            ("web01", "web*", true),
            ("web01", "web?", false),
            ("web01", "web??", true),
            ("a.b", "a?b", true),
            ("a/b", "a*", true),
            ("Web", "web", false),
            ("b", "[abc]", true),
            ("d", "[!abc]", true),
            ("a", "[!abc]", false),
            ("[", "[", true),
            ("x[", "x[", true),
            ("-", "[a-]", true),
            ("]", "[]]", true),
            ("ab", "a[]b", false),
            ("a\nb", "a*b", true),
            ("^", "[^]", true),
            ("foo", "", false),
            ("", "", true),
            ("a.b.c", "a.*", true),
            ("a", "[?-.a]", true),
            ("b", "[a-c-e]", true),
            ("-", "[a-c-e]", true),
            ("d", "[a-c-e]", false),
            ("e", "[a-c-e]", true),
            ("-", "[-a]", true),
            ("-", "[!-a]", false),
            ("x", "[z-a]", false),
            ("&", "[&&]", true),
            ("[", "[[]", true),
            ("\\", "[\\]", true),
        ];
        for (name, pat, want) in cases {
            assert_eq!(fnmatch(name, pat), want, "fnmatch({name:?}, {pat:?})");
        }
    }
}
