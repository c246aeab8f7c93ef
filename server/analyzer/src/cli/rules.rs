//! `rules`: every diagnostic code, its severity and what docs/cli.md says of it.

use std::process::ExitCode;

use model::diagnostic::Code;
use serde_json::json;

use super::options::Format;
use crate::out::outln;

/// `rules`: every code, its severity and what docs/cli.md's table says of it.
pub(super) fn rules(format: Format) -> ExitCode {
    let rows: Vec<(&str, &str, String)> =
        Code::ALL.iter().map(|c| (c.as_str(), c.severity().as_str(), salt_analyzer::codes_doc::what(c.as_str()).unwrap_or_default())).collect();
    match format {
        Format::Json => {
            let salt_lint = |code: &str| Code::ALL.iter().find(|c| c.as_str() == code).and_then(|c| c.salt_lint());
            let list: Vec<serde_json::Value> =
                rows.iter().map(|(code, severity, what)| json!({"code": code, "severity": severity, "summary": what, "salt_lint": salt_lint(code)})).collect();
            outln!("{}", serde_json::to_string_pretty(&list).unwrap_or_default());
        }
        Format::Text => {
            let width = rows.iter().map(|(c, _, _)| c.len()).max().unwrap_or(0);
            for (code, severity, what) in &rows {
                outln!("{code:width$}  {severity:7}  {what}");
            }
        }
    }
    ExitCode::SUCCESS
}
