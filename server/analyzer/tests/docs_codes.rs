//! The stable-codes table of `docs/cli.md` (after "It reports, with stable codes") lists every
//! diagnostic code the model has ([`model::diagnostic::Code::ALL`]) with its severity where it
//! is not an error, and no code the model does not have: adding a code without its row, or
//! renaming one, fails here. `salt-analyzer rules` prints the same table.

use std::collections::BTreeMap;

use model::diagnostic::{Code, Severity};
use salt_analyzer::codes_doc;

/// Each code the table's first column names, with the severity written after it.
fn documented() -> BTreeMap<String, Option<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cli.md");
    let text = std::fs::read_to_string(path).expect("docs/cli.md");
    let mut out = BTreeMap::new();
    for row in codes_doc::rows(&text) {
        for code in row.codes {
            assert!(out.insert(code.clone(), row.severity.clone()).is_none(), "`{code}` has two rows in docs/cli.md");
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

#[test]
fn the_rules_command_prints_the_table() {
    let dir = std::env::temp_dir();
    let (code, out, _) = support::run_cli(&dir, &["rules", "--format", "json"]);
    assert_eq!(code, 0);
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let list = list.as_array().expect("a list");
    assert_eq!(list.len(), Code::ALL.len());
    let first = &list[0];
    assert_eq!((first["code"].as_str(), first["severity"].as_str()), (Some("dotted-sls-name"), Some("error")));
    assert!(first["summary"].as_str().is_some_and(|s| s.starts_with("a file or directory name with a dot")), "{first}");
    let (_, text, _) = support::run_cli(&dir, &["rules"]);
    assert!(text.lines().any(|l| l.split_whitespace().take(2).eq(["unused-suppression", "warning"])), "{text}");
}

mod support;
