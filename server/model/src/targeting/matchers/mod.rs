//! Target matchers (glob, pcre, list, grain, pillar, ipcidr, compound, nodegroup, data): the
//! shared context and outcome types here, dispatch by matcher name (`dispatch.rs`) with
//! `confirm_top`, which decides
//! whether one top-file target matches a minion (`salt/state.py` `BaseHighState.top_matches`,
//! `salt/matchers/confirm_top.py`, `salt/matchers/*.py`).
//!
//! Every matcher answers exactly as Salt 3008's `salt/matchers/*.py` does for the same minion
//! id, grains, pillar and nodegroups, and explains its answer in a sentence fit for a hover.
//! Where Salt would raise (and so fail the whole top file), the outcome is `matched: false`
//! with a `fatal` error; where Salt only logs and returns False, the error is not fatal.

use std::fmt;

use serde_json::Value;

pub mod compound;
pub mod data;
pub mod dispatch;
pub mod glob;
pub mod ipcidr;
pub mod list;
pub mod nodegroup;
pub mod pcre;
pub mod resource;
pub mod subdict;

pub use dispatch::{answer, answer_recorded, confirm_top, confirm_top_value, matches, matches_str, select_matcher};

use crate::py::builtins as py;
use crate::py::re as pyre;
use crate::workspace::facts;

impl crate::workspace::minion::Minion {
    /// What the matchers see of this minion: its id, grains, pillar and the nodegroups.
    pub fn context(&self) -> MatchContext<'_> {
        MatchContext::new(&self.id, &self.grains, &self.pillar).with_nodegroups(&self.nodegroups)
    }
}

/// Salt's `DEFAULT_TARGET_DELIM`, the separator of grain and pillar paths.
pub const DEFAULT_DELIMITER: &str = ":";

/// The matcher a top-file target uses when no `match:` option names one.
pub const TOP_DEFAULT_MATCHER: &str = "compound";

/// Every name `match:` (and [`matches`]) accepts, which is every minion-side
/// `salt/matchers/<name>_match.py` with a `match` function in Salt 3008.
pub const MATCHERS: &[&str] = &[
    "glob",
    "pcre",
    "list",
    "grain",
    "grain_pcre",
    "pillar",
    "pillar_pcre",
    "pillar_exact",
    "ipcidr",
    "compound",
    "nodegroup",
    "data",
    "range",
    "resource",
    "managing_minion",
];

/// What the matchers know about one minion: Salt's `opts["id"]`, `opts["grains"]`,
/// the pillar, and the master's `opts["nodegroups"]`.
#[derive(Debug, Clone, Copy)]
pub struct MatchContext<'a> {
    /// The minion id (`opts["id"]`).
    pub minion_id: &'a str,
    /// The minion's grains, a JSON object (`opts["grains"]`).
    pub grains: &'a Value,
    /// The minion's pillar, a JSON object; `null` behaves as `{}`.
    pub pillar: &'a Value,
    /// `opts["nodegroups"]`: group name to a compound string or a list of words.
    pub nodegroups: &'a Value,
    /// `opts["resources"]` (Salt 3008 resources, used by `T@`); `null` when none.
    pub resources: &'a Value,
    /// Where the answers given to a top file or a template are recorded
    /// ([`crate::workspace::facts`]), and whether `pillar` is the minion's own.
    pub record: Option<Record<'a>>,
    /// The pillar matchers have no pillar to read: Salt 3006 and 3007 raise
    /// `UnboundLocalError` when `opts` has neither `pillar` nor `ext_pillar`
    /// ([`crate::version::SaltVersion::pillar_data`]).
    pub pillar_unbound: bool,
}

/// Where [`confirm_top_value`] and [`answer_recorded`] record their answers.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    pub log: &'a facts::FactLog,
    /// `pillar` is the minion's whole pillar; otherwise (a pillar top file, matched against
    /// the pillar compiled so far) each answer keeps the pillar it saw.
    pub own_pillar: bool,
}

static NULL: Value = Value::Null;

impl<'a> MatchContext<'a> {
    /// A context with no nodegroups and no resources.
    pub fn new(minion_id: &'a str, grains: &'a Value, pillar: &'a Value) -> Self {
        MatchContext { minion_id, grains, pillar, nodegroups: &NULL, resources: &NULL, record: None, pillar_unbound: false }
    }

    /// The same context whose pillar matchers raise (`pillar_unbound`).
    pub fn with_pillar_unbound(self, pillar_unbound: bool) -> Self {
        MatchContext { pillar_unbound, ..self }
    }

    /// The same context with `opts["nodegroups"]` set.
    pub fn with_nodegroups(self, nodegroups: &'a Value) -> Self {
        MatchContext { nodegroups, ..self }
    }

    /// The same context with `opts["resources"]` set.
    pub fn with_resources(self, resources: &'a Value) -> Self {
        MatchContext { resources, ..self }
    }

    /// The same context recording the answers it gives a top file or a template in `log`.
    pub fn recording(self, log: Option<&'a facts::FactLog>, own_pillar: bool) -> Self {
        MatchContext { record: log.map(|log| Record { log, own_pillar }), ..self }
    }

    /// The question `matcher` on `tgt` is, for the log.
    fn question(&self, q: facts::MatchQuestion) -> facts::Question {
        let own = self.record.is_none_or(|r| r.own_pillar);
        facts::Question::Match(std::sync::Arc::new(facts::MatchQuestion { pillar: (!own).then(|| facts::PillarSeen::new(self.pillar)), ..q }))
    }
}

/// The answer of one matcher for one target, with the reason in words.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchOutcome {
    /// The matcher that decided, e.g. `grain` or `compound`.
    pub matcher: String,
    /// The target as written (Python's `str()` of it when it is not a string).
    pub target: String,
    /// Whether Salt considers the target matched.
    pub matched: bool,
    /// One sentence for humans, e.g. "grain `role` is `web`, pattern `db` does not match".
    pub explanation: String,
    /// Invalid targets and Salt quirks worth a diagnostic.
    pub errors: Vec<MatchError>,
    /// The outcomes this one was built from: a compound's terms, a nodegroup's expansion.
    pub parts: Vec<MatchOutcome>,
    /// What the Salt function returned, as far as a compound expression can tell.
    pub(crate) returned: Returned,
}

/// A problem with a target: invalid syntax Salt rejects, or a quirk worth a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchError {
    pub kind: MatchErrorKind,
    pub severity: Severity,
    /// Salt raises an exception here, so the whole top file fails to compile, rather than
    /// logging the problem and treating the target as not matched.
    pub fatal: bool,
    pub message: String,
}

/// The kinds of [`MatchError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchErrorKind {
    /// A regex Python's `re` rejects.
    InvalidRegex,
    /// An `ipcidr` target that is neither an address nor a strict network.
    InvalidCidr,
    /// A `match:` value or matcher name Salt has no matcher for.
    UnknownMatcher,
    /// An `N@name` or nodegroup target with no such group.
    UndefinedNodegroup,
    /// A nodegroup that (indirectly) contains itself.
    NodegroupLoop,
    /// A nodegroup definition that is neither a string nor a list of strings.
    InvalidNodegroup,
    /// A compound expression Salt's `eval` rejects, or an operator in the wrong place.
    InvalidCompound,
    /// A compound engine letter Salt does not support here (`R@` without `seco.range`).
    UnsupportedEngine,
    /// A grain or pillar target without the delimiter.
    MissingDelimiter,
    /// A target of a type the matcher cannot handle (e.g. a number for `pcre`).
    InvalidTarget,
    /// A minion data value Salt cannot match (e.g. an `ipv4` grain that is not an address).
    InvalidData,
    /// Valid syntax whose meaning is probably not what was intended.
    Quirk,
}

/// How serious a [`MatchError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// What a Salt matcher function returned: `True`, `False`, or the `[]` an invalid `ipcidr`
/// target produces. A compound expression pastes `str()` of it into the code it evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Returned {
    True,
    False,
    EmptyList,
}

impl Returned {
    pub(crate) fn from_bool(b: bool) -> Returned {
        if b {
            Returned::True
        } else {
            Returned::False
        }
    }
    /// Python's `str()` of the value.
    pub(crate) fn py(self) -> &'static str {
        match self {
            Returned::True => "True",
            Returned::False => "False",
            Returned::EmptyList => "[]",
        }
    }
}

impl MatchOutcome {
    /// What a caller acts on (the answer, the matcher, the errors), as a fingerprint: the
    /// explanation, which names the values looked at, is left out.
    pub fn fingerprint(&self) -> u64 {
        crate::workspace::reads::hash(&format!("{} {} {:?} {:?}", self.matched, self.matcher, self.returned, self.errors))
    }

    /// An outcome with no errors.
    pub(crate) fn new(matcher: &str, target: impl Into<String>, matched: bool, explanation: impl Into<String>) -> MatchOutcome {
        MatchOutcome {
            matcher: matcher.to_string(),
            target: target.into(),
            matched,
            explanation: explanation.into(),
            errors: Vec::new(),
            parts: Vec::new(),
            returned: Returned::from_bool(matched),
        }
    }

    /// A non-match caused by `error`, explained by the error's message.
    pub(crate) fn failed(matcher: &str, target: impl Into<String>, error: MatchError) -> MatchOutcome {
        let mut out = MatchOutcome::new(matcher, target, false, error.message.clone());
        out.errors.push(error);
        out
    }

    pub(crate) fn with_error(mut self, error: MatchError) -> MatchOutcome {
        self.errors.push(error);
        self
    }

    /// Whether Salt raises for this target, failing the whole top file.
    pub fn is_fatal(&self) -> bool {
        self.errors.iter().any(|e| e.fatal)
    }

    /// The explanation with every part indented below it, one per line, for `top --explain`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, 0);
        out
    }

    fn render_into(&self, out: &mut String, depth: usize) {
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(&self.explanation);
        out.push('\n');
        // Errors of the parts are printed with the parts, and an error that is the
        // explanation itself is not repeated.
        let own = self.errors.iter().filter(|e| e.message != self.explanation && !self.parts.iter().any(|p| p.has_error(e)));
        for e in own {
            for _ in 0..=depth {
                out.push_str("  ");
            }
            out.push_str(match e.severity {
                Severity::Error => "error: ",
                Severity::Warning => "warning: ",
            });
            out.push_str(&e.message);
            out.push('\n');
        }
        for p in &self.parts {
            p.render_into(out, depth + 1);
        }
    }
}

impl MatchOutcome {
    fn has_error(&self, e: &MatchError) -> bool {
        self.errors.contains(e) || self.parts.iter().any(|p| p.has_error(e))
    }
}

impl fmt::Display for MatchOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.explanation)
    }
}

impl MatchError {
    /// An error Salt only logs: the target simply does not match.
    pub(crate) fn logged(kind: MatchErrorKind, message: impl Into<String>) -> MatchError {
        MatchError { kind, severity: Severity::Error, fatal: false, message: message.into() }
    }
    /// An error Salt raises: the top file fails to compile.
    pub(crate) fn raised(kind: MatchErrorKind, message: impl Into<String>) -> MatchError {
        MatchError { kind, severity: Severity::Error, fatal: true, message: message.into() }
    }
    /// A warning about a valid target whose meaning is probably unintended.
    pub(crate) fn quirk(message: impl Into<String>) -> MatchError {
        MatchError { kind: MatchErrorKind::Quirk, severity: Severity::Warning, fatal: false, message: message.into() }
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The operators Salt copies into the expression verbatim.
pub const OPERATORS: &[&str] = &["and", "or", "not", "(", ")"];

/// Backticks around a value for an explanation, shortened when long.
pub(crate) fn quote(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("`{cut}…`")
    } else {
        format!("`{s}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use serde_json::json;

    fn grains() -> Value {
        json!({
            "roles": ["web", "db"],
            "os_family": "Debian",
            "os": "Ubuntu",
            "deep": {"key": "value"},
            "ipv4": ["127.0.0.1", "10.1.2.3"],
        })
    }

    fn top(ctx: &MatchContext, target: &str, body: Value) -> bool {
        let out = confirm_top(ctx, target, &body, TOP_DEFAULT_MATCHER);
        assert!(!out.is_fatal(), "{target}: {:?}", out.errors);
        out.matched
    }

    // `salt/state.py` `BaseHighState.top_matches`, `salt/matchers/confirm_top.py`: the top-file default is compound; the last `match:` wins.
    #[test]
    fn confirm_top_matcher_selection() {
        let g = grains();
        let p = json!({"app": {"color": "Blue"}});
        let ng = json!({"webs": "web*"});
        let ctx = MatchContext::new("web01.example.com", &g, &p).with_nodegroups(&ng);
        // A plain word is still globbed inside compound.
        assert!(top(&ctx, "web*", json!(["one"])));
        assert!(top(&ctx, "web* and G@os_family:Debian", json!(["compound_default"])));
        assert!(top(&ctx, "os_family:Debian", json!([{"match": "grain"}, "grainmatch"])));
        assert!(top(&ctx, "web0[0-9]", json!([{"match": "pcre"}, "pcre_hit"])));
        assert!(top(&ctx, "web0[0-9].example.com", json!([{"match": "glob"}, "glob_class"])));
        assert!(top(&ctx, "a,web01.example.com", json!([{"match": "list"}, "list_hit"])));
        assert!(top(&ctx, "webs", json!([{"match": "nodegroup"}, "ng_hit"])));
        assert!(top(&ctx, "roles:w*", json!([{"match": "grain"}, "grain_glob_hit"])));
        assert!(top(&ctx, "os_family:debian", json!([{"match": "grain"}, "grain_case_hit"])));
        assert!(top(&ctx, "deep:key:value", json!([{"match": "grain"}, "deep_hit"])));
        assert!(top(&ctx, "app:color:Blue", json!([{"match": "pillar"}, "pillar_hit"])));
        assert!(top(&ctx, "app:color:^bl", json!([{"match": "pillar_pcre"}, "pillar_pcre_hit"])));
        assert!(top(&ctx, "os_family:^deb", json!([{"match": "grain_pcre"}, "grain_pcre_hit"])));
        assert!(top(&ctx, "G|@deep|key|value", json!(["alt_delim_hit"])));
        assert!(top(&ctx, "L@x,web01.example.com and G@os_family:Debian", json!(["compound_list_hit"])));
        assert!(top(&ctx, "10.1.0.0/16", json!([{"match": "ipcidr"}, "ipcidr_hit"])));
        // The targets that did not match.
        assert!(!top(&ctx, "WEB01.EXAMPLE.COM", json!(["x"])));
        assert!(!top(&ctx, "G@deep|key:value", json!(["x"])));
        assert!(!top(&ctx, "web01.example.com and not G@os_family:Debian", json!(["x"])));
        assert!(!top(&ctx, "G@roles:web G@roles:db", json!(["x"])));
        assert!(!top(&ctx, "nothere", json!(["x"])));
        // A string body is a one-item list; dict bodies iterate their keys.
        assert!(top(&ctx, "web*", json!("one")));
        assert!(top(&ctx, "web*", json!({"match": "pcre"})));
    }

    // `salt/state.py` `BaseHighState.top_matches`, `salt/matchers/confirm_top.py`, checked against Salt 3008: two `match:` items (glob, then pcre) use pcre, and the
    // invalid regex `*` raises.
    #[test]
    fn confirm_top_last_match_wins_and_pcre_raises() {
        let g = grains();
        let ctx = MatchContext::new("web01.example.com", &g, &NULL);
        let body = json!([{"match": "glob"}, {"match": "pcre"}, "x"]);
        let out = confirm_top(&ctx, "*", &body, TOP_DEFAULT_MATCHER);
        assert_eq!(out.matcher, "pcre");
        assert!(!out.matched);
        assert!(out.is_fatal());
        assert_eq!(out.errors[0].kind, MatchErrorKind::InvalidRegex);
        expect!["invalid regex `*`: nothing to repeat at position 0"].assert_eq(&out.explanation);
    }

    // `salt/state.py` `BaseHighState.top_matches`, `salt/matchers/confirm_top.py`: an unknown matcher name is a KeyError; a non-string `match:`
    // is a TypeError; a body that is not iterable is a TypeError.
    #[test]
    fn confirm_top_raises() {
        let g = grains();
        let ctx = MatchContext::new("web01.example.com", &g, &NULL);
        let out = confirm_top(&ctx, "web*", &json!([{"match": "globb"}]), TOP_DEFAULT_MATCHER);
        assert!(out.is_fatal());
        assert_eq!(out.errors[0].kind, MatchErrorKind::UnknownMatcher);
        let out = confirm_top(&ctx, "web*", &json!([{"match": 1}]), TOP_DEFAULT_MATCHER);
        assert!(out.is_fatal());
        let out = confirm_top(&ctx, "web*", &json!(null), TOP_DEFAULT_MATCHER);
        assert!(out.is_fatal());
        // `cache` and `compound_pillar_exact` exist only master-side (no `match` function).
        let out = confirm_top(&ctx, "x", &json!([{"match": "cache"}]), TOP_DEFAULT_MATCHER);
        assert!(out.is_fatal());
    }

    // checked against Salt 3008 against Salt 3008.4: a non-string target key (YAML `1:`, `true:`) is rejected by
    // compound (logged, False), never matched by glob, and taken as an address by ipcidr.
    #[test]
    fn confirm_top_non_string_targets() {
        let g = json!({"ipv4": ["0.0.0.1"]});
        let ctx = MatchContext::new("1", &g, &NULL);
        let out = confirm_top_value(&ctx, &json!(1), &json!(["x"]), TOP_DEFAULT_MATCHER);
        assert!(!out.matched && !out.is_fatal());
        assert_eq!(out.errors[0].kind, MatchErrorKind::InvalidTarget);
        let out = confirm_top_value(&ctx, &json!(1), &json!([{"match": "glob"}]), TOP_DEFAULT_MATCHER);
        assert!(!out.matched && out.errors.is_empty());
        let out = confirm_top_value(&ctx, &json!(1), &json!([{"match": "ipcidr"}]), TOP_DEFAULT_MATCHER);
        assert!(out.matched);
        let out = confirm_top_value(&ctx, &json!(1), &json!([{"match": "pcre"}]), TOP_DEFAULT_MATCHER);
        assert!(out.is_fatal());
        let out = confirm_top_value(&ctx, &json!(1), &json!([{"match": "grain"}]), TOP_DEFAULT_MATCHER);
        assert!(out.is_fatal());
    }

    #[test]
    fn dispatch_and_render() {
        let g = grains();
        let ctx = MatchContext::new("web01.example.com", &g, &NULL);
        let out = matches_str(&ctx, "compound", "G@os:Ubuntu and not L@a,b");
        assert!(out.matched);
        expect![[r#"
            compound: `G@os:Ubuntu and not L@a,b` -> True and not False
              grain `os` is `Ubuntu`, which matches `Ubuntu` (glob, case-insensitive)
              minion id `web01.example.com` is not in the list `a,b`
        "#]]
        .assert_eq(&out.render());
        let out = matches_str(&ctx, "range", "%cluster");
        assert!(!out.matched);
        let out = matches_str(&ctx, "nosuch", "x");
        assert!(out.is_fatal());
    }
}
