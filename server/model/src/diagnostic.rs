//! The model's one diagnostic vocabulary: the errors Salt reports while compiling a state run
//! ([`SaltError`], with the stable [`Code`], Salt's own message text so users can search for it,
//! and where it points), and the [`Diagnostic`] every check, command and editor view reports.

use std::ops::Range;
use std::path::PathBuf;

use crate::value::Loc;

/// Declares [`Code`] with each code's stable name: the enum, [`Code::as_str`] and
/// [`Code::ALL`] come from one list, so no code can miss its name or the list.
macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// Stable diagnostic codes (a contract: `check --format json` and `lowstate` print them).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code's stable name (`missing-include`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }
        }
    };
}

codes! {
    DottedSlsName => "dotted-sls-name",
    MissingInclude => "missing-include",
    DuplicateId => "duplicate-id",
    MissingRequisiteTarget => "missing-requisite-target",
    RequisiteCycle => "requisite-cycle",
    MalformedState => "malformed-state",
    MissingExtendTarget => "missing-extend-target",
    YamlSyntax => "yaml-syntax",
    RenderError => "render-error",
    /// A render error after the template called a function salt-analyzer does not run (a
    /// warning): with that function's real answer the template may well render.
    RenderUnsure => "render-unsure",
    UnreadableFile => "unreadable-file",
    /// A top-file entry naming an SLS that no environment has.
    MissingSls => "missing-sls",
    /// A top-file section or cross-env item for an environment `file_roots` does not define
    /// (a section: a warning; an error in the highstate of a minion it targets).
    UnknownEnvironment => "unknown-environment",
    /// A target Salt cannot evaluate: unknown matcher, bad regex or CIDR, undefined nodegroup.
    InvalidTarget => "invalid-target",
    /// A top-file section the merging strategy never uses (a warning).
    UnusedSection => "unused-section",
    /// A top file `verify_tops` rejects (the `'*': name` shorthand, empty entries).
    MalformedTop => "malformed-top",
    /// A file whose renderer salt-analyzer never runs (`#!py`, `#!pyobjects`, `#!mako`, ...):
    /// a hint, and what it would declare is unknown; also an encrypted value (`gpg`) kept as
    /// its ciphertext, and a host-touching call left unanswered.
    NotAnalysed => "not-analysed",
    /// A formula's layered configuration that `map.data` fails on (a bad data source, a layer
    /// file with other keys than `values`/`strategy`/`merge_lists`, a merge of a non-dict).
    MapData => "mapdata-error",
    /// A `parameters/` layer file or directory the mapstack never uses as written: a directory
    /// no data source selects, a key the Jinja flavour ignores, an unknown `strategy` (a
    /// warning).
    ParametersLayer => "parameters-layer",
    /// An SQL ext_pillar whose database could not be opened or queried (a warning: the rest of
    /// the pillar is still computed).
    ExtPillar => "ext-pillar",
    /// A state module or function no module of the catalog (Salt's plus the workspace's
    /// `_states`) has (a warning: the minion may have an extension that provides it).
    UnknownFunction => "unknown-function",
    /// A state function the minion's Salt release does not ship but a Salt extension does
    /// (`mysql_user.present` on 3008 without saltext-mysql): Salt fails the state unless the
    /// minion has the extension, which `saltexts:` in `salt-analyzer.yaml` then says.
    NotInCore => "not-in-core",
    /// A required argument of the state function that the state does not give.
    MissingParameter => "missing-parameter",
    /// An argument a state function without `**kwargs` does not take (Salt aborts the run).
    UnknownArgument => "unknown-argument",
    /// A state function Salt says is deprecated (a warning).
    DeprecatedFunction => "deprecated-function",
    /// An argument Salt warns about when a state passes it, as going away in a later release
    /// (a warning).
    DeprecatedArgument => "deprecated-argument",
    /// A gitfs or git_pillar remote that cannot be analysed: no local copy (nothing is
    /// fetched), or an option Salt refuses. A warning: the other remotes are still served.
    GitfsRemote => "gitfs-remote",
    /// An argument of a function with `**kwargs` one or two edits from one of its named
    /// parameters (`sorce` on `file.managed`): Salt passes it on and ignores it (a warning).
    LikelyTypo => "likely-typo",
    /// A code a `# salt-analyzer: disable=` directive names that silences nothing there (or
    /// that is no code): the finding it was written for is gone (a warning).
    UnusedSuppression => "unused-suppression",
    /// salt-lint 207: `mode: 0644` unquoted (YAML reads it as the number 420) (a warning).
    FileModeUnquoted => "file-mode-unquoted",
    /// salt-lint 208: a three-digit file mode without its leading zero (a hint: style).
    FileModeLeadingZero => "file-mode-leading-zero",
    /// salt-lint 210: a number with a leading zero unquoted, which YAML reads as octal (a
    /// warning).
    OctalUnquoted => "octal-unquoted",
    /// salt-lint 201: whitespace at the end of a line (off by default: formatting).
    TrailingWhitespace => "trailing-whitespace",
    /// salt-lint 202: `{%if x%}` without a space inside the delimiters (off by default).
    JinjaStatementSpacing => "jinja-statement-spacing",
    /// salt-lint 203: a tab character (off by default: YAML refuses tabs in indentation, and
    /// `yaml-syntax` says so).
    TabCharacter => "tab-character",
    /// salt-lint 204: a line longer than 160 characters (off by default).
    LineTooLong => "line-too-long",
    /// salt-lint 205: a file given to the style rules whose extension is not `.sls` (off by
    /// default).
    SlsExtension => "sls-extension",
    /// salt-lint 206: `{{var}}` without a space inside the delimiters (off by default).
    JinjaVariableSpacing => "jinja-variable-spacing",
    /// salt-lint 209: `{#comment#}` without a space inside the delimiters (off by default).
    JinjaCommentSpacing => "jinja-comment-spacing",
    /// salt-lint 211: `pillar.get[...]` or `grains.get[...]`, subscripting the function instead
    /// of calling it (a warning: the render fails).
    PillarGetSubscript => "pillar-get-subscript",
    /// salt-lint 212: an irregular space (no-break space, zero-width space, ...) that YAML does
    /// not read as a space (a warning).
    IrregularWhitespace => "irregular-whitespace",
    /// salt-lint 213: `cmd.wait`, where Salt's documentation recommends `cmd.run` with
    /// `onchanges` (a hint).
    CmdWait => "cmd-wait",
    /// salt-lint 216: `onchange:`, `on_changes:` and the like, which are no requisite: Salt
    /// passes them to the function as an argument (a warning).
    OnchangesTypo => "onchanges-typo",
    /// salt-lint 217: `requires:`, which is no requisite (a warning).
    RequireTypo => "require-typo",
    /// salt-lint 219: a `context` or `defaults` mapping not indented past its `-`, so YAML
    /// makes its keys siblings of `context` (a warning).
    NestedDictIndent => "nested-dict-indent",
    /// salt-lint 901: `- quiet` on `cmd.run`, an argument Salt no longer has (a warning).
    CmdRunQuiet => "cmd-run-quiet",
    /// salt-lint 902 to 915: a state function salt-lint lists as deprecated (`docker.running`,
    /// `virt.reverted`, ...), matched in the text (off by default: the compile's
    /// `unknown-function`, `not-in-core` and `deprecated-function` say it per Salt release).
    DeprecatedState => "deprecated-state",
}

impl Code {
    /// The salt-lint rules this code replaces (`check::style`), as salt-lint numbers them:
    /// one, but the state deprecations, which salt-lint writes as one rule per function.
    /// `dotted-sls-name` replaces 214 (SLS file name with a period): our check reports it
    /// from what Salt resolves, at the file and at every include naming it.
    pub fn salt_lint(self) -> &'static [&'static str] {
        match self {
            Code::TrailingWhitespace => &["201"],
            Code::JinjaStatementSpacing => &["202"],
            Code::TabCharacter => &["203"],
            Code::LineTooLong => &["204"],
            Code::SlsExtension => &["205"],
            Code::JinjaVariableSpacing => &["206"],
            Code::FileModeUnquoted => &["207"],
            Code::FileModeLeadingZero => &["208"],
            Code::JinjaCommentSpacing => &["209"],
            Code::OctalUnquoted => &["210"],
            Code::PillarGetSubscript => &["211"],
            Code::IrregularWhitespace => &["212"],
            Code::CmdWait => &["213"],
            Code::DottedSlsName => &["214"],
            Code::OnchangesTypo => &["216"],
            Code::RequireTypo => &["217"],
            Code::NestedDictIndent => &["219"],
            Code::CmdRunQuiet => &["901"],
            Code::DeprecatedState => &["902", "903", "904", "905", "906", "907", "908", "909", "910", "911", "912", "913", "914", "915"],
            _ => &[],
        }
    }

    /// The code's category: `style` for salt-lint's text rules (`check::style`), `salt` for
    /// what Salt itself would do with the tree.
    pub fn category(self) -> &'static str {
        if self != Code::DottedSlsName && !self.salt_lint().is_empty() {
            "style"
        } else {
            "salt"
        }
    }

    /// Whether the code is reported unless configuration turns it on: formatting that Salt
    /// reads the same either way is off, and so is `deprecated-state`, which the compile says
    /// better. `rules: select`/`enable`, `--select` and a `.salt-lint` file turn them on.
    pub fn on_by_default(self) -> bool {
        !matches!(
            self,
            Code::TrailingWhitespace
                | Code::JinjaStatementSpacing
                | Code::TabCharacter
                | Code::LineTooLong
                | Code::SlsExtension
                | Code::JinjaVariableSpacing
                | Code::FileModeLeadingZero
                | Code::JinjaCommentSpacing
                | Code::DeprecatedState
        )
    }

    /// How serious a finding of this code is.
    pub fn severity(self) -> Severity {
        match self {
            Code::UnusedSection
            | Code::RenderUnsure
            | Code::ParametersLayer
            | Code::ExtPillar
            | Code::UnknownFunction
            | Code::DeprecatedFunction
            | Code::DeprecatedArgument
            | Code::GitfsRemote
            | Code::LikelyTypo
            | Code::UnusedSuppression
            | Code::FileModeUnquoted
            | Code::OctalUnquoted
            | Code::PillarGetSubscript
            | Code::IrregularWhitespace
            | Code::OnchangesTypo
            | Code::RequireTypo
            | Code::NestedDictIndent
            | Code::CmdRunQuiet
            | Code::DeprecatedState => Severity::Warning,
            Code::NotAnalysed
            | Code::FileModeLeadingZero
            | Code::TrailingWhitespace
            | Code::JinjaStatementSpacing
            | Code::TabCharacter
            | Code::LineTooLong
            | Code::SlsExtension
            | Code::JinjaVariableSpacing
            | Code::JinjaCommentSpacing
            | Code::CmdWait => Severity::Hint,
            _ => Severity::Error,
        }
    }
}

/// One error as Salt would report it, plus where in which file it is.
#[derive(Debug, Clone, PartialEq)]
pub struct SaltError {
    pub code: Code,
    /// Salt's wording.
    pub message: String,
    pub loc: Option<Loc>,
    /// The state ID the error is about, when there is one.
    pub id: Option<String>,
    /// Other places involved (the other declaration of a duplicate, the cycle's edges).
    pub related: Vec<(Loc, String)>,
    /// The name a reference was looking for (a requisite target), when there is one.
    pub target: Option<String>,
    /// For a requisite cycle: every member's ID and where it is declared, in cycle order.
    pub cycle_ids: Vec<(String, Option<Loc>)>,
    /// For a render error raised inside an imported template: its root-relative path and
    /// 1-based line, until the caller, which knows the file roots, places the error there.
    pub in_template: Option<(String, usize)>,
    /// A severity other than the code's own, where this finding's weight depends on what is
    /// known (a `not-in-core` judged on a release nobody stated is a warning).
    pub severity: Option<Severity>,
    /// The replacements that fix it, made together: a did-you-mean's misspelt text and its
    /// suggestion. Empty when there is no mechanical fix.
    pub fix: Vec<Replacement>,
}

/// One replacement of a fix: the text at `at`, which reads `old` as written, becomes `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub at: Loc,
    pub old: String,
    pub new: String,
}

impl SaltError {
    /// Calls `f` on every location of the error (its own, the related places, the cycle's).
    pub fn locs_mut(&mut self, f: &mut dyn FnMut(&mut Loc)) {
        self.loc
            .iter_mut()
            .chain(self.related.iter_mut().map(|(l, _)| l))
            .chain(self.cycle_ids.iter_mut().filter_map(|(_, l)| l.as_mut()))
            .chain(self.fix.iter_mut().map(|r| &mut r.at))
            .for_each(f);
    }
    pub fn new(code: Code, message: impl Into<String>) -> SaltError {
        SaltError {
            code,
            message: message.into(),
            loc: None,
            id: None,
            related: Vec::new(),
            target: None,
            cycle_ids: Vec::new(),
            in_template: None,
            severity: None,
            fix: Vec::new(),
        }
    }

    /// How serious this finding is: its own weight, else its code's.
    pub fn severity(&self) -> Severity {
        self.severity.unwrap_or(self.code.severity())
    }
    pub fn at(mut self, loc: Option<Loc>) -> SaltError {
        self.loc = loc;
        self
    }
    pub fn id(mut self, id: impl Into<String>) -> SaltError {
        self.id = Some(id.into());
        self
    }
    pub fn target(mut self, target: impl Into<String>) -> SaltError {
        self.target = Some(target.into());
        self
    }
    /// The fix: `old` at `at` becomes `new` (one replacement more).
    pub fn fix(mut self, at: Loc, old: impl Into<String>, new: impl Into<String>) -> SaltError {
        self.fix.push(Replacement { at, old: old.into(), new: new.into() });
        self
    }
    pub fn related(mut self, loc: Option<Loc>, note: impl Into<String>) -> SaltError {
        if let Some(loc) = loc {
            self.related.push((loc, note.into()));
        }
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    /// Something salt-analyzer could not look at (a renderer it never runs).
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Hint => "hint",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Related {
    pub file: PathBuf,
    pub span: Range<usize>,
    pub message: String,
}

/// One finding, in a file, at a byte span.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub file: PathBuf,
    pub span: Range<usize>,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub related: Vec<Related>,
    /// The replacements that fix it, made together, in `file`: each span, the text it reads
    /// as written, and what it becomes (see [`SaltError::fix`]).
    pub fix: Vec<(Range<usize>, String, String)>,
}
