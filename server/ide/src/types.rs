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
    /// The replacements that fix it, made together (a did-you-mean: the misspelt text and its
    /// suggestion), each a byte range of this file and its new text; empty when there is none.
    pub fix: Vec<(Range<usize>, String)>,
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
    /// The one fix to apply without asking (an editor's "auto fix"): a did-you-mean.
    pub preferred: bool,
    /// Files to move (from, to), after `edit`'s creations and before its text edits; the
    /// parents of `to` are created, an existing file is never overwritten.
    pub rename_files: Vec<(PathBuf, PathBuf)>,
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

/// What a semantic token is, in the protocol's standard token types (the edge maps each to
/// its name in the legend).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenType {
    /// A state module (`pkg`), an SLS name (an include, a top entry, an `sls:` requisite).
    Namespace,
    /// A top-file environment.
    Type,
    /// A state function (`installed`), a Jinja filter, test or macro.
    Function,
    /// `include`, `extend`, a requisite keyword, `match`, a Jinja statement word.
    Keyword,
    /// A state ID, a Jinja variable.
    Variable,
    /// A Jinja attribute, a `pillar`/`grains` key.
    Property,
    /// A state function's argument.
    Parameter,
    /// A Jinja string literal.
    String,
    /// A Jinja number.
    Number,
    /// A Jinja operator, a compound matcher's `G@`.
    Operator,
    /// A Jinja delimiter (`{{`, `%}`).
    Macro,
    /// A Jinja comment.
    Comment,
    /// A top-file target.
    Regexp,
    /// A top-file `match:` value (`grain`, `compound`).
    EnumMember,
}

/// Standard token modifiers, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TokenModifiers(pub u32);

impl TokenModifiers {
    /// Where a state ID or a Jinja name is declared.
    pub const DECLARATION: TokenModifiers = TokenModifiers(1);
    /// Salt's own context names (`grains`, `pillar`, `salt`), which a template reads only.
    pub const READONLY: TokenModifiers = TokenModifiers(2);
    /// Salt's own: a core state module or function, a context name, a Jinja builtin.
    pub const DEFAULT_LIBRARY: TokenModifiers = TokenModifiers(4);

    pub fn union(self, other: TokenModifiers) -> TokenModifiers {
        TokenModifiers(self.0 | other.0)
    }

    pub fn contains(self, other: TokenModifiers) -> bool {
        self.0 & other.0 == other.0
    }
}

/// One semantic token: disjoint from the others, possibly across lines (the edge splits it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemanticToken {
    pub range: Range<usize>,
    pub kind: TokenType,
    pub modifiers: TokenModifiers,
}

/// Where a document link leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    File(PathBuf),
    Url(String),
}

/// A document link: a range of a file that opens another file (or a URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentLink {
    pub range: Range<usize>,
    pub target: LinkTarget,
    /// What the link is, for a tooltip (`SLS web in base`).
    pub tooltip: String,
}

/// What a folding range folds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldKind {
    /// A YAML block or a Jinja block (`{% if %}` to `{% endif %}`).
    Region,
    /// A multi-line comment, or a run of `#` comment lines.
    Comment,
}

/// A folding range: folded from the line of `range.start` to the line of `range.end`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    pub range: Range<usize>,
    pub kind: FoldKind,
}

/// A document highlight: a place that names the same thing as the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Highlight {
    pub range: Range<usize>,
    /// The declaration (a state ID's key, a Jinja `set`), rather than a reference.
    pub declaration: bool,
}

/// Signature help for a state function's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHelp {
    /// `pkg.installed(name, version=None, ...)`.
    pub label: String,
    /// What the function is (required arguments, deprecation), Markdown.
    pub documentation: String,
    /// Each argument: its byte range in `label`, and what it is (required, its default).
    pub parameters: Vec<(Range<usize>, String)>,
    /// The argument being typed, when it is one of `parameters`.
    pub active: Option<usize>,
}
