//! The stable-codes table of `docs/cli.md` (after "It reports, with stable codes"), read from
//! the page itself: `salt-analyzer rules` prints it, and the `docs_codes` test holds it to
//! [`model::diagnostic::Code::ALL`], so the page, the command and the code cannot drift apart.

/// docs/cli.md, as built into the binary.
pub const CLI_MD: &str = include_str!("../../../docs/cli.md");

/// One row of the table: the codes its first cell names, the severity written after them
/// (`warning`, `hint`; `None` for an error), and what the row says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub codes: Vec<String>,
    pub severity: Option<String>,
    pub what: String,
}

/// The rows of the stable-codes table of `md` (empty when it has none).
pub fn rows(md: &str) -> Vec<Row> {
    let Some((_, after)) = md.split_once("It reports, with stable codes") else { return Vec::new() };
    let lines = after.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).skip(2);
    lines
        .filter_map(|row| {
            let row = row.trim().trim_start_matches('|').trim_end_matches('|');
            let (first, what) = row.split_once(" | ")?;
            let severity = ["warning", "hint", "error"].into_iter().find(|s| first.contains(&format!("({s})"))).map(str::to_string);
            let codes = first.split('`').skip(1).step_by(2).map(str::to_string).collect();
            Some(Row { codes, severity, what: what.trim().to_string() })
        })
        .collect()
}

/// What the table says of `code`.
pub fn what(code: &str) -> Option<String> {
    rows(CLI_MD).into_iter().find(|r| r.codes.iter().any(|c| c == code)).map(|r| r.what)
}
