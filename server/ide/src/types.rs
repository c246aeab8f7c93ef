//! The plain data the ide queries return: byte ranges in files, never protocol types.

use std::ops::Range;
use std::path::PathBuf;

/// A query was asked of a snapshot that an edit has since made stale: ask again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the analysis changed while this query ran")
    }
}

impl std::error::Error for Cancelled {}

/// The result of a query that needs the cross-file index.
pub type Cancellable<T> = Result<T, Cancelled>;

/// A byte range in a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileRange {
    pub path: PathBuf,
    pub range: Range<usize>,
}

impl Ord for FileRange {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.path, self.range.start, self.range.end).cmp(&(&other.path, other.range.start, other.range.end))
    }
}

impl PartialOrd for FileRange {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Hint,
}

/// A diagnostic in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub range: Range<usize>,
    pub severity: Severity,
    /// A stable code such as `missing-include` (`yaml-syntax` for syntax errors).
    pub code: String,
    pub message: String,
    /// Other places involved (the other declaration of a duplicate ID, a cycle's other edges).
    pub related: Vec<(FileRange, String)>,
}

/// Where a navigation leads: a whole file (`focus` = `0..0`) or a declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NavTarget {
    pub path: PathBuf,
    /// The whole item (a declaration from its key to the end of its body).
    pub full_range: Range<usize>,
    /// The part to select: the ID key, or `0..0` for a file.
    pub focus_range: Range<usize>,
    /// What it is called (an ID, an SLS name).
    pub name: String,
}

impl Ord for NavTarget {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.path, self.focus_range.start, self.full_range.start, &self.name).cmp(&(
            &other.path,
            other.focus_range.start,
            other.full_range.start,
            &other.name,
        ))
    }
}

impl PartialOrd for NavTarget {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The kinds of symbols the editor shows; the analyzer maps them to the protocol's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A state ID.
    StateId,
    /// A state function (`pkg.installed`) of a state ID.
    Function,
    /// `include:`, `exclude:` or `extend:` section.
    Section,
    /// An SLS name: an include or exclude item, a top-file entry, or a file in workspace symbols.
    Sls,
    /// A top-file environment section.
    Environment,
    /// A top-file target.
    Target,
}

/// A symbol of one document, with its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentSymbol {
    pub name: String,
    pub detail: Option<String>,
    pub kind: SymbolKind,
    pub full_range: Range<usize>,
    pub focus_range: Range<usize>,
    pub children: Vec<DocumentSymbol>,
}

/// A symbol anywhere in the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceSymbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The environment and SLS it belongs to, e.g. `base:web.db`.
    pub container: String,
    pub path: PathBuf,
    pub range: Range<usize>,
}

/// A hover: Markdown for the range it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverResult {
    pub range: Range<usize>,
    pub markdown: String,
}

/// A mechanical fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeAction {
    pub title: String,
    pub kind: CodeActionKind,
    pub edit: SourceChange,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeActionKind {
    QuickFix,
    RefactorRewrite,
}

/// File creations followed by text edits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceChange {
    /// Files to create (empty), parents included; never overwrite an existing one.
    pub create_files: Vec<PathBuf>,
    pub text_edits: Vec<TextEdit>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub path: PathBuf,
    pub range: Range<usize>,
    pub new_text: String,
}

/// A minion profile the analysis can be run for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MinionInfo {
    pub id: String,
    pub selected: bool,
    /// Where it comes from: `profile`, `fleet` or `config`.
    pub source: &'static str,
    /// What a picker shows and searches besides the id: the grains people target by.
    pub detail: String,
    /// The Salt release its answers are for (`3006`), and where that came from.
    pub salt: String,
    pub salt_source: String,
}
