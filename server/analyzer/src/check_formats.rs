//! `check`'s output for CI services: GitHub Actions workflow commands (`::error file=...`, shown
//! as annotations on the pull request) and GitLab's Code Quality report (a JSON list GitLab
//! shows in the merge request). Paths are relative to the repository holding the file (what
//! both services expect), else as the other formats print them.

use std::path::{Path, PathBuf};

use model::diagnostic::Severity;
use serde_json::json;

/// `check --format`.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum CheckFormat {
    Text,
    Json,
    /// GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` line a finding.
    Github,
    /// GitLab Code Quality JSON (`artifacts: reports: codequality:`).
    Gitlab,
}

/// A CI format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ci {
    Github,
    Gitlab,
}

impl CheckFormat {
    /// The CI format this is, if it is one.
    pub fn ci(self) -> Option<Ci> {
        match self {
            CheckFormat::Github => Some(Ci::Github),
            CheckFormat::Gitlab => Some(Ci::Gitlab),
            CheckFormat::Text | CheckFormat::Json => None,
        }
    }
}

/// One finding as the CI formats need it: 1-based lines and columns.
pub struct Found<'a> {
    pub file: &'a Path,
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

impl Ci {
    /// The whole report.
    pub fn print(self, found: &[Found<'_>]) -> String {
        match self {
            Ci::Github => found.iter().map(github).collect(),
            Ci::Gitlab => gitlab(found),
        }
    }
}

/// `::error file=F,line=L,col=C,endLine=L,endColumn=C,title=T::MESSAGE`, escaped as the runner
/// reads workflow commands (`%`, CR and LF in the message; also `:` and `,` in properties).
fn github(f: &Found<'_>) -> String {
    let level = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Hint => "notice",
    };
    let data = |s: &str| s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    let prop = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    format!(
        "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
        prop(&repo_path(f.file)),
        f.line,
        f.col,
        f.end_line,
        f.end_col,
        prop(&format!("salt-analyzer {}", f.code)),
        data(&f.message)
    )
}

/// GitLab's Code Quality report: `description`, `check_name`, a `fingerprint` that stays the
/// same while the finding does (its code, file and message, not its line, and which of the
/// same it is), `severity` and `location`.
fn gitlab(found: &[Found<'_>]) -> String {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let list: Vec<serde_json::Value> = found
        .iter()
        .map(|f| {
            let path = repo_path(f.file);
            let key = format!("{}\0{path}\0{}", f.code, f.message);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            let fingerprint = model::check::baseline::digest(&format!("{key}\0{n}"));
            let severity = match f.severity {
                Severity::Error => "major",
                Severity::Warning => "minor",
                Severity::Hint => "info",
            };
            json!({
                "description": f.message,
                "check_name": f.code,
                "fingerprint": fingerprint,
                "severity": severity,
                "location": {"path": path, "lines": {"begin": f.line, "end": f.end_line}},
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).unwrap_or_default() + "\n"
}

/// `file` relative to the repository (the nearest folder above it with a `.git`), else as the
/// workspace prints it.
fn repo_path(file: &Path) -> String {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let repo: Option<PathBuf> = real.ancestors().skip(1).find(|d| d.join(".git").exists()).map(Path::to_path_buf);
    match repo.and_then(|r| real.strip_prefix(&r).ok().map(Path::to_path_buf)) {
        Some(rel) => rel.to_string_lossy().into_owned(),
        None => crate::cli::output::rel(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(message: &str) -> Found<'static> {
        Found {
            file: Path::new("/nonexistent/ß/web.sls"),
            line: 3,
            col: 5,
            end_line: 3,
            end_col: 11,
            severity: Severity::Error,
            code: "missing-include",
            message: message.to_string(),
        }
    }

    #[test]
    fn github_escapes_as_the_runner_reads() {
        let got = Ci::Github.print(&[found("Specified SLS 💣 in saltenv base: 100% gone\nsecond line")]);
        assert!(got.starts_with("::error file="), "{got}");
        assert!(
            got.ends_with(
                ",line=3,col=5,endLine=3,endColumn=11,title=salt-analyzer missing-include::Specified SLS 💣 in saltenv base: 100%25 gone%0Asecond line\n"
            ),
            "{got}"
        );
    }

    #[test]
    fn gitlab_fingerprints_ignore_lines_and_tell_repeats_apart() {
        let mut moved = found("m");
        moved.line = 9;
        let a: serde_json::Value = serde_json::from_str(&Ci::Gitlab.print(&[found("m"), found("m")])).unwrap();
        let b: serde_json::Value = serde_json::from_str(&Ci::Gitlab.print(&[moved])).unwrap();
        assert_eq!(a[0]["fingerprint"], b[0]["fingerprint"], "a moved line keeps its fingerprint");
        assert_ne!(a[0]["fingerprint"], a[1]["fingerprint"], "two alike are two");
        assert_eq!((a[0]["severity"].as_str(), a[0]["check_name"].as_str()), (Some("major"), Some("missing-include")));
        assert_eq!(b[0]["location"]["lines"]["begin"], 9);
    }
}
