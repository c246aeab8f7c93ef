//! No Markdown table cell in docs/*.md or README.md is over 400 characters: a table is for
//! looking things up, and prose that long goes in a paragraph below it.

use std::path::Path;

const LIMIT: usize = 400;

/// The cells of a table row, split where GitHub's Markdown splits them: at each `|` that is not
/// escaped as `\|` (code spans included).
fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').filter(|r| !r.ends_with('\\')).unwrap_or(row);
    let mut out = vec![String::new()];
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().expect("a cell").push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().expect("a cell").push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Each cell over the limit in `text`: its line, its column (from 1) and its length.
fn long_cells(text: &str) -> Vec<(usize, usize, usize)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.trim_start().starts_with('|') {
            continue;
        }
        for (i, cell) in cells(line).iter().enumerate() {
            let len = cell.chars().count();
            if len > LIMIT {
                out.push((n + 1, i + 1, len));
            }
        }
    }
    out
}

#[test]
fn cells_split_as_github_splits_them() {
    assert_eq!(cells("| a | `x \\| y` | c |"), ["a", "`x | y`", "c"]);
    assert_eq!(long_cells(&format!("| a | {} |\n", "x".repeat(LIMIT))), []);
    assert_eq!(long_cells(&format!("text\n\n| a | b |\n|---|---|\n| a | {} |\n", "x".repeat(LIMIT + 1))), [(5, 2, LIMIT + 1)]);
    assert_eq!(long_cells(&format!("```\n| a | {} |\n```\n", "x".repeat(LIMIT + 1))), []);
}

#[test]
fn no_table_cell_in_the_docs_is_over_400_characters() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut pages = vec![repo.join("README.md")];
    for entry in std::fs::read_dir(repo.join("docs")).expect("docs/").flatten() {
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "md") {
            pages.push(p);
        }
    }
    pages.sort();
    assert!(pages.len() >= 5, "{pages:?}");
    let mut problems = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("a page");
        for (line, column, len) in long_cells(&text) {
            problems.push(format!("{}:{line}: column {column} is {len} characters", page.strip_prefix(&repo).unwrap_or(page).display()));
        }
    }
    assert!(problems.is_empty(), "table cells over {LIMIT} characters (move the prose into a paragraph):\n{}", problems.join("\n"));
}
