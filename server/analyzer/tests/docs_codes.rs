//! The stable-codes table of `docs/cli.md` (after "It reports, with stable codes") lists every
//! diagnostic code the model has ([`model::diagnostic::Code::ALL`]) with its severity where it
//! is not an error, and no code the model does not have: adding a code without its row, or
//! renaming one, fails here. `salt-analyzer rules` prints the same table.
//!
//! Every code has its page, `docs/rules/CODE.md`, with the sections every page has, and no page
//! is for a code that does not exist; each page's example, run through `check`, reports its
//! code, and prints the lines the page shows.

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

#[test]
fn every_code_has_a_page_with_its_sections() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .expect("docs/rules")
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".md")).map(str::to_string))
        .filter(|n| n != "README")
        .collect();
    on_disk.sort();
    let built: Vec<&str> = codes_doc::PAGES.iter().map(|(c, _)| *c).collect();
    assert_eq!(built, on_disk, "the pages built into the binary are the pages of docs/rules");
    let mut problems = Vec::new();
    for code in Code::ALL {
        let name = code.as_str();
        match std::fs::read_to_string(format!("{dir}/{name}.md")) {
            Ok(md) => problems.extend(codes_doc::page_problems(name, &md).into_iter().map(|p| format!("docs/rules/{name}.md: {p}"))),
            Err(_) => problems.push(format!("`{name}` has no page docs/rules/{name}.md")),
        }
    }
    for name in &on_disk {
        if !Code::ALL.iter().any(|c| c.as_str() == name) {
            problems.push(format!("docs/rules/{name}.md is the page of no code"));
        }
    }
    assert!(problems.is_empty(), "the rule pages:\n{}", problems.join("\n"));
}

/// The page's example as a tree, `check` run at its root: its code must be reported, and every
/// line the page shows of the output must be printed.
fn example_problems(code: &str, md: &str) -> Vec<String> {
    let ex = match codes_doc::example(md) {
        Ok(ex) => ex,
        Err(e) => return vec![format!("{code}: {e}")],
    };
    let t = support::TempTree::new(&format!("rule-{code}"), None);
    for f in &ex.files {
        let p = t.path(&f.path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
        // Latin-1: each character is its byte (the page writes only characters it has).
        let bytes: Vec<u8> = if f.latin1 { f.text.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect() } else { f.text.clone().into_bytes() };
        std::fs::write(p, bytes).expect("write");
    }
    let args: Vec<&str> = std::iter::once("check").chain(ex.args.iter().map(String::as_str)).collect();
    let (_, out, err) = support::run_cli(&t.root, &args);
    let mut problems = Vec::new();
    let fired = out.lines().any(|l| ["error", "warning", "hint"].iter().any(|s| l.starts_with(&format!("{s}[{code}]: "))));
    if !fired {
        problems.push(format!("{code}: its example does not report `{code}`:\n{out}{err}"));
    }
    for line in &ex.output {
        if !out.lines().any(|l| l == line) {
            problems.push(format!("{code}: the page shows {line:?}, which `check` does not print:\n{out}"));
        }
    }
    problems
}

#[test]
fn each_page_example_reports_its_code() {
    let problems: Vec<String> = codes_doc::PAGES.iter().flat_map(|(code, md)| example_problems(code, md)).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_rules_command_prints_a_page() {
    let dir = std::env::temp_dir();
    let (code, out, _) = support::run_cli(&dir, &["rules", "missing-include"]);
    assert_eq!(code, 0);
    assert_eq!(Some(out.as_str()), codes_doc::page("missing-include"));
    let (code, out, _) = support::run_cli(&dir, &["rules", "likely-typo", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!((v["code"].as_str(), v["severity"].as_str()), (Some("likely-typo"), Some("warning")));
    assert!(v["page"].as_str().is_some_and(|p| p.starts_with("# likely-typo\n")), "{v}");
    let (code, _, err) = support::run_cli(&dir, &["rules", "no-such-code"]);
    assert_eq!(code, 2);
    assert!(err.contains("`no-such-code` is no code (codes: dotted-sls-name,"), "{err}");
}

mod support;
