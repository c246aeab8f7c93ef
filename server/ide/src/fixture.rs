//! Test fixtures: a multi-file `#- path` fixture rooted at `/ws`, with `$0` marking the
//! cursor, loaded into a host over an in-memory disk.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::{Analysis, AnalysisHost, MemoryDisk};

pub(crate) struct Fixture {
    pub(crate) disk: Arc<MemoryDisk>,
    pub(crate) host: AnalysisHost,
    /// The file and byte offset of `$0`, when the fixture has one.
    pub(crate) cursor: Option<(PathBuf, usize)>,
}

impl Fixture {
    pub(crate) fn new(text: &str) -> Fixture {
        let mut cursor = None;
        let mut clean = String::new();
        let mut current: Option<(PathBuf, usize)> = None;
        for line in text.split_inclusive('\n') {
            if let Some(path) = line.strip_prefix("#- ") {
                current = Some((Path::new("/ws").join(path.trim()), clean.len() + line.len()));
                clean.push_str(line);
                continue;
            }
            if let (Some(at), Some((path, start))) = (line.find("$0"), current.as_ref()) {
                cursor = Some((path.clone(), clean.len() + at - start));
                clean.push_str(&line.replacen("$0", "", 1));
            } else {
                clean.push_str(line);
            }
        }
        let disk = Arc::new(MemoryDisk::from_fixture(&clean));
        let host = AnalysisHost::with_fs(disk.clone(), Path::new("/ws"));
        Fixture { disk, host, cursor }
    }

    pub(crate) fn analysis(&self) -> Analysis {
        self.host.snapshot()
    }

    pub(crate) fn cursor(&self) -> (PathBuf, usize) {
        self.cursor.clone().expect("the fixture has a `$0` cursor")
    }

    /// Opens a fixture file in the host with its disk text.
    /// A fixture of `tree` with the cursor at `marker` (see [`pick_marker`]) and `minion`
    /// selected.
    pub(crate) fn at_marker(tree: &str, marker: char, minion: Option<&str>) -> Fixture {
        let mut f = Fixture::new(&pick_marker(tree, marker));
        f.host.set_minion(minion.map(str::to_string));
        f
    }

    /// The markdown of the hover at the cursor (there must be one).
    pub(crate) fn hover_markdown(&self) -> String {
        let (path, offset) = self.cursor();
        self.analysis().hover(&path, offset).unwrap().expect("a hover").markdown
    }

    pub(crate) fn open(&mut self, rel: &str) {
        let path = Path::new("/ws").join(rel);
        let text = model::workspace::vfs::Vfs::read(&*self.disk, &path).expect("fixture file");
        self.host.open(&path, &text, 1);
    }
}

/// `path:line:col` (1-based, columns in characters) of a byte offset, plus the text there.
/// A tree with `$A`..`$Z` markers: `$0` (the cursor) where `marker` is, the others dropped.
pub(crate) fn pick_marker(tree: &str, marker: char) -> String {
    let mut out = String::new();
    let mut chars = tree.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(|n| n.is_ascii_uppercase()) {
            if chars.next() == Some(marker) {
                out.push_str("$0");
            }
            continue;
        }
        out.push(c);
    }
    out
}

pub(crate) fn at(analysis: &Analysis, path: &Path, range: std::ops::Range<usize>) -> String {
    let text = analysis.text(path).unwrap_or_default();
    let (line, col) = syntax::line_index::human_position(&text, range.start);
    let rel = path.strip_prefix("/ws").unwrap_or(path).display().to_string();
    let snippet = text.get(range.clone()).unwrap_or("");
    if snippet.is_empty() {
        format!("{rel}:{line}:{col}")
    } else {
        format!("{rel}:{line}:{col} {snippet:?}")
    }
}

/// Each file a change edits, as `=== path` (under `/ws`) and its text after the edits.
pub(crate) fn edited_files(a: &Analysis, change: &crate::SourceChange) -> String {
    let mut files: Vec<PathBuf> = change.text_edits.iter().map(|e| e.path.clone()).collect();
    files.dedup();
    let mut out = String::new();
    for file in files {
        let mut text = a.text(&file).unwrap().to_string();
        let mut edits: Vec<&crate::TextEdit> = change.text_edits.iter().filter(|e| e.path == file).collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
        for e in edits {
            text.replace_range(e.range.clone(), &e.new_text);
        }
        out.push_str(&format!("=== {}\n{text}", file.strip_prefix("/ws").unwrap().display()));
    }
    out
}

/// A fixture path under `/ws`.
pub(crate) fn ws(rel: &str) -> PathBuf {
    Path::new("/ws").join(rel)
}

/// Every diagnostic of every workspace file (syntax and semantic), one per line.
pub(crate) fn all_diagnostics(analysis: &Analysis) -> String {
    let mut files = analysis.workspace_files();
    for p in analysis.open_documents() {
        if !files.contains(&p) {
            files.push(p);
        }
    }
    files.sort();
    let mut out = String::new();
    for f in files {
        let mut ds = analysis.syntax_diagnostics(&f);
        ds.extend(analysis.diagnostics(&f).expect("not cancelled"));
        for d in ds {
            let first = d.message.lines().next().unwrap_or("");
            out.push_str(&format!("{} {}: {first}\n", at(analysis, &f, d.range.clone()), d.code));
        }
    }
    out
}
