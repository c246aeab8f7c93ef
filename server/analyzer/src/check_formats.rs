//! `check`'s output for CI services: GitHub Actions workflow commands (`::error file=...`, shown
//! as annotations on the pull request), GitLab's Code Quality report (a JSON list GitLab shows
//! in the merge request) and SARIF 2.1.0 (GitHub code scanning, and any SARIF viewer). Paths
//! are relative to the repository holding the file (what the services expect), else as the
//! other formats print them.

use std::path::{Path, PathBuf};

use model::diagnostic::{Code, Severity};
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
    /// SARIF 2.1.0 (GitHub code scanning: `github/codeql-action/upload-sarif`).
    Sarif,
}

/// A CI format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ci {
    Github,
    Gitlab,
    Sarif,
}

impl CheckFormat {
    /// The CI format this is, if it is one.
    pub fn ci(self) -> Option<Ci> {
        match self {
            CheckFormat::Github => Some(Ci::Github),
            CheckFormat::Gitlab => Some(Ci::Gitlab),
            CheckFormat::Sarif => Some(Ci::Sarif),
            CheckFormat::Text | CheckFormat::Json => None,
        }
    }
}

/// Where a finding is, as the CI formats need it: 1-based lines and columns (counted in
/// characters, as the text format prints them).
pub struct Place<'a> {
    pub file: &'a Path,
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

/// One finding as the CI formats need it.
pub struct Found<'a> {
    pub at: Place<'a>,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    /// The other places the finding names (the other declaration of a duplicate ID, a
    /// cycle's edges), each with what it says there.
    pub related: Vec<(Place<'a>, String)>,
}

impl Ci {
    /// The whole report.
    pub fn print(self, found: &[Found<'_>]) -> String {
        match self {
            Ci::Github => found.iter().map(github).collect(),
            Ci::Gitlab => gitlab(found),
            Ci::Sarif => sarif(found),
        }
    }
}

/// A fingerprint for each finding that stays the same while the finding does: its code, file
/// and message, not its line, and which of the same it is (the first, the second...).
fn fingerprints(found: &[Found<'_>]) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    found
        .iter()
        .map(|f| {
            let key = format!("{}\0{}\0{}", f.code.as_str(), repo_path(f.at.file), f.message);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            model::check::baseline::digest(&format!("{key}\0{n}"))
        })
        .collect()
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
        prop(&repo_path(f.at.file)),
        f.at.line,
        f.at.col,
        f.at.end_line,
        f.at.end_col,
        prop(&format!("salt-analyzer {}", f.code.as_str())),
        data(&f.message)
    )
}

/// GitLab's Code Quality report: `description`, `check_name`, a `fingerprint` that stays the
/// same while the finding does (its code, file and message, not its line, and which of the
/// same it is), `severity` and `location`.
fn gitlab(found: &[Found<'_>]) -> String {
    let list: Vec<serde_json::Value> = found
        .iter()
        .zip(fingerprints(found))
        .map(|(f, fingerprint)| {
            let severity = match f.severity {
                Severity::Error => "major",
                Severity::Warning => "minor",
                Severity::Hint => "info",
            };
            json!({
                "description": f.message,
                "check_name": f.code.as_str(),
                "fingerprint": fingerprint,
                "severity": severity,
                "location": {"path": repo_path(f.at.file), "lines": {"begin": f.at.line, "end": f.at.end_line}},
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).unwrap_or_default() + "\n"
}

/// The SARIF level of a severity.
fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Hint => "note",
    }
}

/// A SARIF 2.1.0 log of one run: every code as a rule of the driver (its summary from the
/// codes table, its default level, the salt-lint rule it replaces), and each finding as a
/// result with its rule, level, message, location (repository-relative URI against the
/// `SRCROOT` base; columns counted in Unicode code points, as the run's `columnKind` says),
/// related locations and a fingerprint that survives lines moving.
fn sarif(found: &[Found<'_>]) -> String {
    let table = salt_analyzer::codes_doc::rows(salt_analyzer::codes_doc::CLI_MD);
    let rules: Vec<serde_json::Value> = Code::ALL
        .iter()
        .map(|code| {
            let row = table.iter().find(|r| r.codes.iter().any(|c| c == code.as_str()));
            let what = row.map_or_else(|| code.as_str().to_string(), |r| r.what.clone());
            let (short, summary) = (first_sentence(&what).replace('`', ""), what.replace('`', ""));
            let level = sarif_level(code.severity());
            let mut properties = json!({});
            if !code.salt_lint().is_empty() {
                properties["salt-lint"] = json!(code.salt_lint());
            }
            properties["tags"] = if code.category() == "salt" { json!(["salt"]) } else { json!(["salt", code.category()]) };
            json!({
                "id": code.as_str(),
                "shortDescription": {"text": short},
                "fullDescription": {"text": summary},
                "help": help(code.as_str(), &summary),
                "defaultConfiguration": {"level": level},
                "properties": properties,
            })
        })
        .collect();
    let location = |p: &Place<'_>| {
        json!({"physicalLocation": {
            "artifactLocation": artifact(&repo_path(p.file)),
            "region": {"startLine": p.line, "startColumn": p.col, "endLine": p.end_line, "endColumn": p.end_col},
        }})
    };
    let results: Vec<serde_json::Value> = found
        .iter()
        .zip(fingerprints(found))
        .map(|(f, fingerprint)| {
            let mut result = json!({
                "ruleId": f.code.as_str(),
                "ruleIndex": Code::ALL.iter().position(|c| *c == f.code).unwrap_or_default(),
                "level": sarif_level(f.severity),
                "message": {"text": f.message},
                "locations": [location(&f.at)],
                "partialFingerprints": {"saltAnalyzerFinding/v1": fingerprint},
            });
            if !f.related.is_empty() {
                let related: Vec<serde_json::Value> = f
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, (p, message))| {
                        let mut l = location(p);
                        l["id"] = json!(i);
                        l["message"] = json!({"text": message});
                        l
                    })
                    .collect();
                result["relatedLocations"] = json!(related);
            }
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "salt-analyzer",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

/// A rule's help: its page (`docs/rules/CODE.md`, which code scanning shows as Markdown), and
/// as text the page's "How to fix it" and "How to silence it".
fn help(code: &str, summary: &str) -> serde_json::Value {
    let Some(page) = salt_analyzer::codes_doc::page(code) else {
        return json!({"text": summary});
    };
    let (_, sections) = salt_analyzer::codes_doc::sections(page);
    let text: Vec<String> =
        sections.iter().filter(|(h, _)| matches!(*h, "How to fix it" | "How to silence it")).map(|(h, body)| format!("{h}: {}", body.trim())).collect();
    json!({"text": if text.is_empty() { summary.to_string() } else { text.join("\n\n") }, "markdown": page})
}

/// The text up to its first `: ` or `; ` outside brackets and code spans (a code's summary says what it is
/// there, then why), for a short description.
fn first_sentence(text: &str) -> String {
    let (mut depth, mut code) = (0i32, false);
    for (i, c) in text.char_indices() {
        match c {
            '`' => code = !code,
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ':' | ';' if depth == 0 && !code && text[i + 1..].starts_with(' ') && i > 0 => return text[..i].to_string(),
            _ => {}
        }
    }
    text.to_string()
}

/// A SARIF artifact location for a path: relative to the repository (`SRCROOT`, the checkout
/// code scanning knows), or a `file://` URI when the file lies outside it. The path is a URI
/// reference: `/`-separated, every byte that is not unreserved percent-encoded (a space, `#`,
/// `%`, `ß`).
fn artifact(path: &str) -> serde_json::Value {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'/');
    let absolute = Path::new(path).is_absolute();
    let path = path.replace(std::path::MAIN_SEPARATOR, "/");
    let encoded = percent_encoding::utf8_percent_encode(&path, KEEP).to_string();
    if absolute {
        json!({"uri": format!("file://{encoded}")})
    } else {
        json!({"uri": encoded, "uriBaseId": "SRCROOT"})
    }
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

    fn place(line: usize) -> Place<'static> {
        Place { file: Path::new("/nonexistent/ß/web 💣.sls"), line, col: 5, end_line: line, end_col: 11 }
    }

    fn found(message: &str) -> Found<'static> {
        Found { at: place(3), severity: Severity::Error, code: Code::MissingInclude, message: message.to_string(), related: Vec::new() }
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
        moved.at = place(9);
        let a: serde_json::Value = serde_json::from_str(&Ci::Gitlab.print(&[found("m"), found("m")])).unwrap();
        let b: serde_json::Value = serde_json::from_str(&Ci::Gitlab.print(&[moved])).unwrap();
        assert_eq!(a[0]["fingerprint"], b[0]["fingerprint"], "a moved line keeps its fingerprint");
        assert_ne!(a[0]["fingerprint"], a[1]["fingerprint"], "two alike are two");
        assert_eq!((a[0]["severity"].as_str(), a[0]["check_name"].as_str()), (Some("major"), Some("missing-include")));
        assert_eq!(b[0]["location"]["lines"]["begin"], 9);
    }

    #[test]
    fn sarif_results_name_their_rule_and_place() {
        let mut dup = found("ID 'ℝ' is declared twice");
        dup.code = Code::DuplicateId;
        dup.severity = Severity::Warning;
        dup.related.push((place(7), "also here".to_string()));
        let log: serde_json::Value = serde_json::from_str(&Ci::Sarif.print(&[dup, found("m")])).unwrap();
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"].as_array().map(Vec::len), Some(Code::ALL.len()));
        let r = &run["results"][0];
        let rule = &run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!((rule["id"].as_str(), r["ruleId"].as_str(), r["level"].as_str()), (Some("duplicate-id"), Some("duplicate-id"), Some("warning")));
        expect_test::expect![[r#"{"artifactLocation":{"uri":"file:///nonexistent/%C3%9F/web%20%F0%9F%92%A3.sls"},"region":{"startLine":3,"startColumn":5,"endLine":3,"endColumn":11}}"#]]
            .assert_eq(&r["locations"][0]["physicalLocation"].to_string());
        assert_eq!(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 7);
        assert_eq!(r["relatedLocations"][0]["message"]["text"], "also here");
        assert!(rule["help"]["markdown"].as_str().is_some_and(|m| m.starts_with("# duplicate-id\n")), "{}", rule["help"]);
        assert!(rule["help"]["text"].as_str().is_some_and(|t| t.starts_with("How to fix it: ")), "{}", rule["help"]);
        assert_ne!(r["partialFingerprints"], run["results"][1]["partialFingerprints"]);
    }
}
