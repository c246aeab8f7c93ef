//! docs/configuration.md's table of keys (under "## Every key") lists every key
//! `salt-analyzer.yaml` accepts, where it stands, and no other: the list is
//! [`model::workspace::keys`], through which the reader names each key, so a key added to the
//! reader without its row, or a row for a key the reader does not take, fails here. The page's
//! first example uses top-level keys of that list only.

use std::collections::BTreeSet;

use model::workspace::keys;

fn page() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/configuration.md")).expect("docs/configuration.md")
}

/// The text between `## Every key` and the next `## ` heading.
fn section(page: &str) -> &str {
    let start = page.find("\n## Every key\n").expect("docs/configuration.md has a section `## Every key`");
    let body = &page[start + 1..];
    let end = body[3..].find("\n## ").map_or(body.len(), |i| i + 3);
    &body[..end]
}

/// Each row's (where, key): the first column's `key`, the second's place (`(top)`: "").
fn documented(section: &str) -> Vec<(String, String)> {
    let tick = |cell: &str| cell.trim().trim_matches('`').to_string();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            assert!(cells.len() >= 2, "a row without a place: {l}");
            let place = tick(cells[1]);
            (if place == "(top)" { String::new() } else { place }, tick(cells[0]))
        })
        .collect()
}

#[test]
fn every_key_the_workspace_file_accepts_has_its_row_and_no_other() {
    let page = page();
    let rows = documented(section(&page));
    let written: BTreeSet<(String, String)> = rows.iter().cloned().collect();
    assert_eq!(written.len(), rows.len(), "a key has two rows: {rows:?}");
    let accepted: BTreeSet<(String, String)> = keys::all().into_iter().map(|(at, k)| (at.to_string(), k.to_string())).collect();
    let missing: Vec<_> = accepted.difference(&written).collect();
    let unknown: Vec<_> = written.difference(&accepted).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "docs/configuration.md `## Every key`: accepted but without a row: {missing:?}; a row but not accepted: {unknown:?}"
    );
}

#[test]
fn the_first_example_uses_accepted_top_level_keys() {
    let page = page();
    let start = page.find("```yaml\n").expect("an example") + "```yaml\n".len();
    let block = &page[start..start + page[start..].find("```").expect("the example ends")];
    let top: Vec<&str> = block.lines().filter(|l| !l.starts_with([' ', '#']) && !l.is_empty()).filter_map(|l| l.split(':').next()).collect();
    assert!(top.len() >= 8, "the example's top-level keys: {top:?}");
    for k in top {
        assert!(keys::TopKey::of(k).is_some(), "the example's `{k}` is no key salt-analyzer reads");
    }
}
