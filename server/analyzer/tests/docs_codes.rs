//! The stable-codes table of `docs/cli.md` (after "It reports, with stable codes:") lists every
//! diagnostic code the model has ([`model::diagnostic::Code::ALL`]) with its severity where it
//! is not an error, and no code the model does not have: adding a code without its row, or
//! renaming one, fails here.

use std::collections::BTreeMap;

use model::diagnostic::{Code, Severity};

/// Each code the table's first column names, with the severity written after it (`(warning)`,
/// `(hint)`; none for an error), in table order.
fn documented() -> BTreeMap<String, Option<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cli.md");
    let text = std::fs::read_to_string(path).expect("docs/cli.md");
    let (_, after) = text.split_once("It reports, with stable codes:").expect("the stable-codes table's heading line");
    let mut out = BTreeMap::new();
    let rows = after.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).skip(2);
    for row in rows {
        let first = row.trim_start_matches('|').split('|').next().unwrap_or("");
        let severity = ["warning", "hint", "error"].into_iter().find(|s| first.contains(&format!("({s})"))).map(str::to_string);
        for code in first.split('`').skip(1).step_by(2) {
            assert!(out.insert(code.to_string(), severity.clone()).is_none(), "`{code}` has two rows in docs/cli.md");
        }
    }
    out
}

#[test]
fn the_codes_table_lists_every_code_with_its_severity() {
    let documented = documented();
    let mut problems = Vec::new();
    for code in Code::ALL {
        let name = code.as_str();
        let wanted = match code.severity() {
            Severity::Error => None,
            Severity::Warning => Some("warning".to_string()),
            Severity::Hint => Some("hint".to_string()),
        };
        match documented.get(name) {
            None => problems.push(format!("`{name}` has no row")),
            Some(written) if *written != wanted => problems.push(format!("`{name}` is written {written:?}, its severity is {wanted:?} (none: an error)")),
            Some(_) => {}
        }
    }
    for name in documented.keys() {
        if !Code::ALL.iter().any(|c| c.as_str() == name) {
            problems.push(format!("`{name}` is in the table but is no code"));
        }
    }
    assert!(problems.is_empty(), "docs/cli.md's stable-codes table:\n{}", problems.join("\n"));
}
