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
                    let mut body: String = chars[i..j].iter().collect();
                    i = j + 1;
                    let negate = body.starts_with('!');
                    if negate {
                        body.remove(0);
                    }
                    if body.is_empty() {
                        // `[!]` matches any char, `[]` (impossible here) nothing.
                        out.push_str(if negate { "." } else { "(?!)" });
                        continue;
                    }
                    let mut class = String::new();
                    for ch in body.chars() {
                        match ch {
                            '\\' | '[' | ']' | '&' | '~' | '|' | '^' => {
                                class.push('\\');
                                class.push(ch)
                            }
                            _ => class.push(ch),
                        }
                    }
                    out.push('[');
                    if negate {
                        out.push('^');
                    }
                    out.push_str(&class);
                    out.push(']');
                }
            }
            _ => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out.push('$');
    out
}

/// A compiled pattern; compile once when matching many names.
#[derive(Debug, Clone)]
pub struct Pattern(Option<Regex>);

impl Pattern {
    pub fn new(pat: &str) -> Pattern {
        // A range like `[z-a]` is invalid for `regex`; CPython treats it as matching nothing.
        Pattern(Regex::new(&translate(pat)).ok())
    }
    pub fn matches(&self, name: &str) -> bool {
        self.0.as_ref().is_some_and(|r| r.is_match(name))
    }
}

/// `fnmatch.fnmatchcase(name, pat)`.
pub fn fnmatch(name: &str, pat: &str) -> bool {
    Pattern::new(pat).matches(name)
}

/// `fnmatch.filter(names, pat)`, keeping order.
pub fn filter<'a, I: IntoIterator<Item = &'a str>>(names: I, pat: &str) -> Vec<&'a str> {
    let p = Pattern::new(pat);
    names.into_iter().filter(|n| p.matches(n)).collect()
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
        ];
        for (name, pat, want) in cases {
            assert_eq!(fnmatch(name, pat), want, "fnmatch({name:?}, {pat:?})");
        }
    }
}
