//! Inline suppression of findings: `# salt-analyzer: disable=CODE[,CODE]` in a YAML comment or
//! `{# salt-analyzer: disable=CODE #}` in a Jinja comment silences those codes on its own line,
//! or, written alone on its line, on the next line; `disable-file=CODE[,CODE]` in the whole
//! file; `all` stands for every code. A code a directive names that silences nothing (or that
//! is no code) is itself a finding, `unused-suppression`, as ruff's unused-noqa is: a
//! suppression outlives the finding it was written for only by mistake.

use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use crate::diagnostic::{Code, Diagnostic};

/// One directive: where it is, which line it covers (`None`: the whole file) and its codes,
/// each with whether it silenced anything.
#[derive(Debug, Clone)]
struct Directive {
    span: Range<usize>,
    covers: Option<usize>,
    codes: Vec<(String, bool)>,
}

/// The directives of one file's text.
#[derive(Debug, Clone, Default)]
pub struct Suppressions {
    directives: Vec<Directive>,
    /// Where each line starts, to find a finding's line.
    line_starts: Vec<usize>,
}

fn directive_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    // A YAML comment (`#` at the start or after a blank) or a Jinja comment (`{#`, `{#-`).
    RE.get_or_init(|| {
        Regex::new(r"(?:(?:^|[ \t])#|\{#-?)[ \t]*salt-analyzer:[ \t]*(disable-file|disable)[ \t]*=[ \t]*([A-Za-z0-9_-]+(?:[ \t]*,[ \t]*[A-Za-z0-9_-]+)*)")
            .expect("the directive pattern")
    })
}

impl Suppressions {
    /// The directives written in `text`.
    pub fn scan(text: &str) -> Suppressions {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut directives = Vec::new();
        for (line, &start) in line_starts.iter().enumerate() {
            let end = line_starts.get(line + 1).map_or(text.len(), |e| e - 1);
            let content = &text[start..end];
            if !content.contains("salt-analyzer:") {
                continue;
            }
            for c in directive_re().captures_iter(content) {
                let (Some(whole), Some(kind), Some(codes)) = (c.get(0), c.get(1), c.get(2)) else { continue };
                let alone = content[..whole.start()].trim().is_empty();
                let covers = match kind.as_str() {
                    "disable-file" => None,
                    _ if alone => Some(next_content_line(text, &line_starts, line)),
                    _ => Some(line),
                };
                let codes = codes.as_str().split(',').map(|s| (s.trim().to_string(), false)).collect();
                directives.push(Directive { span: start + whole.start()..start + whole.end(), covers, codes });
            }
        }
        Suppressions { directives, line_starts }
    }

    /// Whether a finding of `code` at byte `offset` is silenced (noting which directive did).
    pub fn silences(&mut self, code: &str, offset: usize) -> bool {
        let line = self.line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
        let mut silenced = false;
        for d in &mut self.directives {
            if d.covers.is_some_and(|l| l != line) {
                continue;
            }
            for (c, used) in &mut d.codes {
                if c == code || c == "all" {
                    *used = true;
                    silenced = true;
                }
            }
        }
        silenced
    }

    /// The `unused-suppression` findings of `file`: each code a directive names that silenced
    /// nothing.
    pub fn unused(&self, file: &Path) -> Vec<Diagnostic> {
        self.unused_where(file, true)
    }

    /// [`Suppressions::unused`] for the codes that are no code at all: what an editor can say
    /// while it sees only one minion's findings.
    pub fn unknown(&self, file: &Path) -> Vec<Diagnostic> {
        self.unused_where(file, false)
    }

    fn unused_where(&self, file: &Path, known_too: bool) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for d in &self.directives {
            for (code, _) in d.codes.iter().filter(|(_, used)| !used) {
                let known = code == "all" || Code::ALL.iter().any(|c| c.as_str() == code);
                if known && !known_too {
                    continue;
                }
                let message = if known {
                    let scope = if d.covers.is_some() { "on the line it covers" } else { "in this file" };
                    format!("`{code}` is suppressed here, but no `{code}` finding is {scope}: remove it from the directive")
                } else {
                    format!("`{code}` is no salt-analyzer code: this directive silences nothing")
                };
                out.push(Diagnostic {
                    file: file.to_path_buf(),
                    span: d.span.clone(),
                    severity: Code::UnusedSuppression.severity(),
                    code: Code::UnusedSuppression,
                    message,
                    related: Vec::new(),
                    fix: Vec::new(),
                });
            }
        }
        out
    }

    /// Whether the text has any directive.
    pub fn is_empty(&self) -> bool {
        self.directives.is_empty()
    }
}

/// The first line after `line` with something on it that is no comment (a directive alone on
/// its line covers the statement it precedes); `line + 1` when none follows.
fn next_content_line(text: &str, starts: &[usize], line: usize) -> usize {
    for (l, &s) in starts.iter().enumerate().skip(line + 1) {
        let e = starts.get(l + 1).map_or(text.len(), |e| e - 1);
        let t = text[s..e].trim();
        let comment = t.starts_with('#') || t.starts_with("{#") && t.ends_with("#}");
        if !t.is_empty() && !comment {
            return l;
        }
    }
    line + 1
}

/// Silences the findings the directives of their files cover, and adds the directives' unused
/// codes: `items` are findings (or wrappers of them, `diagnostic` reaching the finding), `text`
/// gives a file's text, `scanned` the files whose directives are judged (their unused codes
/// reported). An `unused-suppression` finding is never silenced.
pub fn apply<T>(
    items: Vec<T>,
    diagnostic: impl Fn(&T) -> &Diagnostic,
    text: impl Fn(&Path) -> Option<std::sync::Arc<str>>,
    scanned: &[&Path],
) -> (Vec<T>, Vec<Diagnostic>) {
    let mut by_file: std::collections::HashMap<std::path::PathBuf, Suppressions> = std::collections::HashMap::new();
    let scan = |file: &Path| text(file).map(|t| Suppressions::scan(&t)).unwrap_or_default();
    let mut kept = Vec::with_capacity(items.len());
    for item in items {
        let d = diagnostic(&item);
        if d.code == Code::UnusedSuppression {
            kept.push(item);
            continue;
        }
        let s = by_file.entry(d.file.clone()).or_insert_with(|| scan(&d.file));
        if !s.silences(d.code.as_str(), d.span.start) {
            kept.push(item);
        }
    }
    let mut unused = Vec::new();
    for &file in scanned {
        let s = by_file.entry(file.to_path_buf()).or_insert_with(|| scan(file));
        unused.extend(s.unused(file));
    }
    unused.sort_by_key(|d| (d.file.clone(), d.span.start));
    (kept, unused)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn run(text: &str, findings: &[(&str, &str)]) -> String {
        // (code, a snippet the finding starts at)
        let mut s = Suppressions::scan(text);
        let mut out = String::new();
        for (code, at) in findings {
            let offset = text.find(at).expect("snippet");
            let (line, _) = syntax::line_index::human_position(text, offset);
            out.push_str(&format!("{code}@{line}: {}\n", if s.silences(code, offset) { "silenced" } else { "kept" }));
        }
        for d in s.unused(Path::new("f.sls")) {
            out.push_str(&format!("unused@{}: {}\n", syntax::line_index::line_number(text, d.span.start), d.message));
        }
        out
    }

    #[test]
    fn a_directive_covers_its_line_or_the_next() {
        let text = "include:\n  - nosuch  # salt-analyzer: disable=missing-include\n# salt-analyzer: disable=duplicate-id, requisite-cycle\n\n# another comment\nß💣:\n  pkg.installed: []\nℝ:\n  pkg.installed: []\n";
        expect![[r#"
            missing-include@2: silenced
            duplicate-id@6: silenced
            duplicate-id@8: kept
            unused@3: `requisite-cycle` is suppressed here, but no `requisite-cycle` finding is on the line it covers: remove it from the directive
        "#]]
        .assert_eq(&run(text, &[("missing-include", "nosuch"), ("duplicate-id", "ß💣:"), ("duplicate-id", "ℝ:")]));
    }

    #[test]
    fn jinja_comments_whole_files_and_unknown_codes() {
        let text = "{#- salt-analyzer: disable-file=render-error #}\n{% set x = 1 %}\nweb:  {# salt-analyzer: disable=all #}\n  pkg.installed: []\na: b # salt-analyzer: disable=no-such-code\nc: 'd#salt-analyzer: disable=duplicate-id'\n";
        expect![[r#"
            render-error@4: silenced
            unknown-function@3: silenced
            unknown-function@4: kept
            unused@5: `no-such-code` is no salt-analyzer code: this directive silences nothing
        "#]]
        .assert_eq(&run(text, &[("render-error", "pkg.installed"), ("unknown-function", "web:"), ("unknown-function", "pkg.installed")]));
    }
}
