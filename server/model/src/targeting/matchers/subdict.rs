//! The grain and pillar matchers (`grain`, `grain_pcre`, `pillar`, `pillar_pcre`,
//! `pillar_exact`), all of which are `salt.utils.data.subdict_match` over the minion's grains
//! or pillar.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::pyre::PyRegex;
use super::{py, quote, MatchContext, MatchError, MatchErrorKind, MatchOutcome, DEFAULT_DELIMITER};
use crate::py::data::{dict_get, traverse_dict_and_list, walk};
use crate::py::fnmatch;

/// How a value is compared with a pattern. Both sides are `str()`-ed and lowercased first,
/// in every mode, so all of them are case-insensitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `fnmatch.fnmatch`.
    Glob,
    /// `re.match` with the *lowercased* pattern.
    Regex,
    /// String equality.
    Exact,
}

/// The five matchers built on `subdict_match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Grain,
    GrainPcre,
    Pillar,
    PillarPcre,
    PillarExact,
}

impl Kind {
    /// The kind for a matcher name (`grain_pcre`, ...).
    pub fn from_matcher(name: &str) -> Option<Kind> {
        Some(match name {
            "grain" => Kind::Grain,
            "grain_pcre" => Kind::GrainPcre,
            "pillar" => Kind::Pillar,
            "pillar_pcre" => Kind::PillarPcre,
            "pillar_exact" => Kind::PillarExact,
            _ => return None,
        })
    }

    /// The matcher name, as `match:` spells it.
    pub fn matcher(self) -> &'static str {
        match self {
            Kind::Grain => "grain",
            Kind::GrainPcre => "grain_pcre",
            Kind::Pillar => "pillar",
            Kind::PillarPcre => "pillar_pcre",
            Kind::PillarExact => "pillar_exact",
        }
    }

    /// How values are compared.
    pub fn mode(self) -> Mode {
        match self {
            Kind::Grain | Kind::Pillar => Mode::Glob,
            Kind::GrainPcre | Kind::PillarPcre => Mode::Regex,
            Kind::PillarExact => Mode::Exact,
        }
    }

    fn source(self) -> &'static str {
        match self {
            Kind::Grain | Kind::GrainPcre => "grain",
            _ => "pillar",
        }
    }
}

/// What Salt 3006 and 3007 raise when a pillar matcher finds neither `opts["pillar"]` nor
/// `opts["ext_pillar"]` (Python 3.11's words).
pub const UNBOUND_PILLAR: &str = "UnboundLocalError: cannot access local variable 'pillar' where it is not associated with a value";

/// Run a grain or pillar matcher on a string target. `delimiter` defaults to `:`.
pub fn matches(ctx: &MatchContext, kind: Kind, tgt: &str, delimiter: Option<&str>) -> MatchOutcome {
    let delim = delimiter.unwrap_or(DEFAULT_DELIMITER);
    let name = kind.matcher();
    if delim.is_empty() {
        return MatchOutcome::failed(name, tgt, MatchError::raised(MatchErrorKind::InvalidTarget, "empty delimiter (Salt raises ValueError)"));
    }
    if !tgt.contains(delim) {
        let msg = format!("{} target {} has no {} delimiter, so it never matches", kind.source(), quote(tgt), quote(delim));
        return MatchOutcome::failed(name, tgt, MatchError::logged(MatchErrorKind::MissingDelimiter, msg));
    }
    let data = match kind {
        Kind::Grain | Kind::GrainPcre => ctx.grains,
        _ if ctx.pillar_unbound => return MatchOutcome::failed(name, tgt, MatchError::raised(MatchErrorKind::InvalidData, UNBOUND_PILLAR)),
        _ => ctx.pillar,
    };
    let mut engine = Engine::new(kind.mode());
    let (matched, explanation) = engine.explain(data, tgt, delim, kind.source());
    let mut out = MatchOutcome::new(name, tgt, matched, explanation);
    for (pattern, err) in engine.bad_regexes {
        out.explanation.push_str(&format!("; the regex {} is invalid, so it never matches", quote(&pattern)));
        out.errors.push(MatchError::logged(MatchErrorKind::InvalidRegex, format!("invalid regex {}: {err}", quote(&pattern))));
    }
    if engine.exhausted {
        out.errors
            .push(MatchError::logged(MatchErrorKind::InvalidTarget, "the target is too deep or has too many delimiters to evaluate; treated as not matching"));
    }
    if kind.mode() == Mode::Regex {
        if let Some(esc) = case_sensitive_escape(tgt) {
            out.errors.push(MatchError::quirk(format!("Salt lowercases {} regexes, so `\\{esc}` is read as `\\{}`", kind.source(), esc.to_ascii_lowercase())));
        }
    }
    out
}

/// [`matches`] for any target value. Salt raises for a number or `None` (`in` needs a
/// container) and for a list or dict that contains the delimiter (`split` needs a string);
/// another list or dict is logged as lacking the delimiter.
pub fn matches_value(ctx: &MatchContext, kind: Kind, target: &Value, delimiter: Option<&str>) -> MatchOutcome {
    let delim = delimiter.unwrap_or(DEFAULT_DELIMITER);
    let name = kind.matcher();
    let has_delim = match target {
        Value::String(s) => return matches(ctx, kind, s, delimiter),
        Value::Array(items) => items.iter().any(|v| v.as_str() == Some(delim)),
        Value::Object(map) => map.contains_key(delim),
        other => {
            return MatchOutcome::failed(
                name,
                py::str_of(other),
                MatchError::raised(MatchErrorKind::InvalidTarget, format!("{name} target {} is not a string (Salt raises TypeError)", py::repr(other))),
            )
        }
    };
    let shown = py::repr(target);
    if has_delim {
        MatchOutcome::failed(
            name,
            shown.clone(),
            MatchError::raised(MatchErrorKind::InvalidTarget, format!("{name} target {} is not a string (Salt raises AttributeError)", quote(&shown))),
        )
    } else {
        MatchOutcome::failed(
            name,
            shown.clone(),
            MatchError::logged(MatchErrorKind::MissingDelimiter, format!("{name} target {} is not a string with a {} delimiter", quote(&shown), quote(delim))),
        )
    }
}

/// `salt.utils.data.subdict_match(data, expr, delimiter, regex_match, exact_match)`.
/// An invalid regex counts as no match, as in Salt.
pub fn subdict_match(data: &Value, expr: &str, delimiter: &str, mode: Mode) -> bool {
    if delimiter.is_empty() {
        return false;
    }
    Engine::new(mode).subdict(Root::Val(data), expr, delimiter)
}

/// The first of `\S \W \D \B \A \Z` in a pattern: escapes whose meaning changes when Salt
/// lowercases the regex.
fn case_sensitive_escape(pattern: &str) -> Option<char> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i + 1 < chars.len() {
        if chars[i] == '\\' {
            if matches!(chars[i + 1], 'S' | 'W' | 'D' | 'B' | 'A' | 'Z') {
                return Some(chars[i + 1]);
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    None
}

/// The data a `subdict_match` call looks into: a value, or (when `_dict_match` recurses)
/// a dict, which is not copied into a value.
#[derive(Clone, Copy)]
enum Root<'v> {
    Val(&'v Value),
    Map(&'v Map<String, Value>),
}

/// A value found at a split point.
#[derive(Clone, Copy)]
enum Found<'v> {
    Val(&'v Value),
    Map(&'v Map<String, Value>),
}

impl Found<'_> {
    fn text(self) -> String {
        match self {
            Found::Val(v) => py::str_of(v),
            Found::Map(m) => py::str_of(&Value::Object(m.clone())),
        }
    }
    fn is_list(self) -> bool {
        matches!(self, Found::Val(Value::Array(_)))
    }
    fn is_dict(self) -> bool {
        matches!(self, Found::Map(_) | Found::Val(Value::Object(_)))
    }
}

/// How the first successful split point matched, for the explanation.
enum How {
    Scalar,
    ListItem(String),
    DictKey,
}

/// The evaluation state: the compare mode, compiled regexes, the invalid ones, and a step
/// budget that keeps a target with dozens of delimiters from running for minutes.
struct Engine {
    mode: Mode,
    regexes: HashMap<String, Option<PyRegex>>,
    globs: HashMap<String, fnmatch::Pattern>,
    bad_regexes: Vec<(String, String)>,
    steps: usize,
    depth: usize,
    exhausted: bool,
}

const STEP_BUDGET: usize = 2_000_000;

/// How deeply `subdict_match` may recurse (a `*:*:*:…` target recurses once per `*:`).
/// Python gives up with RecursionError a few hundred levels down; we stop earlier.
const MAX_DEPTH: usize = 64;

impl Engine {
    fn new(mode: Mode) -> Engine {
        Engine { mode, regexes: HashMap::new(), globs: HashMap::new(), bad_regexes: Vec::new(), steps: 0, depth: 0, exhausted: false }
    }

    fn tick(&mut self) -> bool {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            self.exhausted = true;
        }
        !self.exhausted
    }

    /// `_match(target, pattern)`: compare `str(target).lower()` with `str(pattern).lower()`.
    fn value_match(&mut self, target: &Value, pattern: &str) -> bool {
        self.str_match(&py::str_of(target), pattern)
    }

    fn str_match(&mut self, target: &str, pattern: &str) -> bool {
        if !self.tick() {
            return false;
        }
        let target = target.to_lowercase();
        let pattern = pattern.to_lowercase();
        match self.mode {
            Mode::Glob => {
                if !self.globs.contains_key(&pattern) {
                    self.globs.insert(pattern.clone(), fnmatch::Pattern::new(&pattern));
                }
                self.globs.get(&pattern).is_some_and(|p| p.matches(&target))
            }
            Mode::Exact => target == pattern,
            Mode::Regex => {
                if !self.regexes.contains_key(&pattern) {
                    let compiled = match PyRegex::compile(&pattern) {
                        Ok(re) => Some(re),
                        Err(e) => {
                            self.bad_regexes.push((pattern.clone(), e));
                            None
                        }
                    };
                    self.regexes.insert(pattern.clone(), compiled);
                }
                match self.regexes.get(&pattern) {
                    Some(Some(re)) => re.re_match(&target).unwrap_or(false),
                    _ => false,
                }
            }
        }
    }

    /// `_dict_match(target, pattern)`, with the recursion depth kept in check.
    fn dict_match(&mut self, target: &Map<String, Value>, pattern: &str) -> bool {
        if !self.tick() {
            return false;
        }
        if self.depth >= MAX_DEPTH {
            self.exhausted = true;
            return false;
        }
        self.depth += 1;
        let matched = self.dict_match_inner(target, pattern);
        self.depth -= 1;
        matched
    }

    fn dict_match_inner(&mut self, target: &Map<String, Value>, pattern: &str) -> bool {
        let (wildcard, pattern) = match pattern.strip_prefix("*:") {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        if pattern == "*" || target.contains_key(pattern) {
            return true;
        }
        if target.keys().any(|k| self.str_match(k, pattern)) {
            return true;
        }
        // Salt recurses without passing the delimiter, so this level always uses `:`.
        if self.subdict(Root::Map(target), pattern, DEFAULT_DELIMITER) {
            return true;
        }
        if wildcard {
            for v in target.values() {
                match v {
                    Value::Object(m) => {
                        if self.dict_match(m, pattern) {
                            return true;
                        }
                    }
                    Value::Array(items) => {
                        if items.iter().any(|item| self.value_match(item, pattern)) {
                            return true;
                        }
                    }
                    other => {
                        if self.value_match(other, pattern) {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }

    /// The value at one split point of `parts` (the first `idx` parts are the key), or
    /// `None` where Salt skips the split point because the lookup gave `{}`. The key `*`
    /// stands for the whole data.
    fn lookup<'v>(data: Root<'v>, parts: &[&str], idx: usize) -> Option<Found<'v>> {
        let found = if idx == 1 && parts.first() == Some(&"*") {
            match data {
                Root::Val(v) => Found::Val(v),
                Root::Map(m) => Found::Map(m),
            }
        } else {
            let key = parts.get(..idx)?;
            let v = match data {
                Root::Val(v) => walk(v, key)?,
                Root::Map(m) => {
                    let (first, rest) = key.split_first()?;
                    walk(dict_get(m, first)?, rest)?
                }
            };
            Found::Val(v)
        };
        match found {
            Found::Val(Value::Object(m)) | Found::Map(m) if m.is_empty() => None,
            f => Some(f),
        }
    }

    /// The pattern matched at split point `idx`: the rest of the parts, or the whole
    /// expression for the `*` key.
    fn pattern_at(parts: &[&str], idx: usize, expr: &str, delim: &str) -> String {
        if idx == 1 && parts.first() == Some(&"*") {
            expr.to_string()
        } else {
            parts.get(idx..).unwrap_or_default().join(delim)
        }
    }

    /// Whether `found` satisfies `pattern` at one split point.
    fn check(&mut self, found: Found, pattern: &str) -> Option<How> {
        let found = match found {
            Found::Map(m) => return self.dict_match(m, pattern).then_some(How::DictKey),
            Found::Val(v) => v,
        };
        match found {
            Value::Object(m) => self.dict_match(m, pattern).then_some(How::DictKey),
            Value::Array(items) => {
                for member in items {
                    if let Value::Object(m) = member {
                        if self.dict_match(m, pattern) {
                            return Some(How::ListItem(py::str_of(member)));
                        }
                    }
                    if self.value_match(member, pattern) {
                        return Some(How::ListItem(py::str_of(member)));
                    }
                }
                None
            }
            other => self.value_match(other, pattern).then_some(How::Scalar),
        }
    }

    /// `subdict_match` itself.
    fn subdict(&mut self, data: Root, expr: &str, delim: &str) -> bool {
        if !self.tick() {
            return false;
        }
        let parts: Vec<&str> = expr.split(delim).collect();
        for idx in (1..parts.len()).rev() {
            if let Some(found) = Engine::lookup(data, &parts, idx) {
                let pattern = Engine::pattern_at(&parts, idx, expr, delim);
                if self.check(found, &pattern).is_some() {
                    return true;
                }
            }
            if self.exhausted {
                return false;
            }
        }
        false
    }

    /// `subdict_match` at the top level, with a sentence saying why.
    fn explain(&mut self, data: &Value, expr: &str, delim: &str, source: &str) -> (bool, String) {
        let parts: Vec<&str> = expr.split(delim).collect();
        let mode = match self.mode {
            Mode::Glob => "glob",
            Mode::Regex => "regex",
            Mode::Exact => "exact",
        };
        // The deepest split point that found a value, for explaining a miss.
        let mut deepest: Option<(usize, Found)> = None;
        for idx in (1..parts.len()).rev() {
            let Some(found) = Engine::lookup(Root::Val(data), &parts, idx) else {
                continue;
            };
            deepest.get_or_insert((idx, found));
            let pattern = Engine::pattern_at(&parts, idx, expr, delim);
            let Some(how) = self.check(found, &pattern) else {
                if self.exhausted {
                    break;
                }
                continue;
            };
            let key = parts[..idx].join(delim);
            let text = if key == "*" {
                format!("a {source} matches {} (the `*:` wildcard looks one level deep)", quote(&pattern))
            } else {
                match how {
                    How::Scalar => {
                        format!("{source} {} is {}, which matches {} ({mode}, case-insensitive)", quote(&key), quote(&found.text()), quote(&pattern))
                    }
                    How::ListItem(item) => {
                        format!("{source} {} contains {}, which matches {} ({mode}, case-insensitive)", quote(&key), quote(&item), quote(&pattern))
                    }
                    How::DictKey => format!("{source} {} has a key or nested value matching {} ({mode}, case-insensitive)", quote(&key), quote(&pattern)),
                }
            };
            return (true, text);
        }
        let text = match deepest {
            Some((1, _)) if parts.first() == Some(&"*") => format!("no {source} matches {} (the `*:` wildcard looks one level deep)", quote(expr)),
            Some((idx, found)) => {
                let what = if found.is_list() {
                    "matches none of its items"
                } else if found.is_dict() {
                    "matches none of its keys"
                } else {
                    "does not match"
                };
                format!(
                    "{source} {} is {}, pattern {} {what} ({mode}, case-insensitive)",
                    quote(&parts[..idx].join(delim)),
                    quote(&found.text()),
                    quote(&Engine::pattern_at(&parts, idx, expr, delim))
                )
            }
            None => {
                let first = parts.first().copied().unwrap_or_default();
                match traverse_dict_and_list(data, first, delim) {
                    Some(Value::Object(m)) if m.is_empty() => format!("{source} {} is an empty dict, which Salt treats as missing", quote(first)),
                    _ => format!("{source} {} is missing from the profile", quote(first)),
                }
            }
        };
        (false, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use serde_json::json;

    fn grains() -> Value {
        json!({
            "os": "Ubuntu",
            "roles": ["web", "db"],
            "deep": {"key": "value"},
            "lst": [{"a": "b"}, "plain"],
            "colon": "a:b",
            "t": true,
            "none": null,
            "num": 42,
        })
    }

    fn pillar() -> Value {
        json!({"app": {"color": "Blue", "list": ["x", "y"]}})
    }

    fn run(kind: Kind, tgt: &str, delim: Option<&str>) -> MatchOutcome {
        let g = grains();
        let p = pillar();
        let ctx = MatchContext::new("web01.example.com", &g, &p);
        matches(&ctx, kind, tgt, delim)
    }

    // `salt/utils/data.py` `subdict_match` truth table, checked against Salt 3008.
    #[test]
    fn subdict_truth_table() {
        use Kind::*;
        let rows: &[(&str, Kind, Option<&str>, bool)] = &[
            ("os:ubuntu", Grain, None, true),
            ("roles:w*", Grain, None, true),
            ("roles", Grain, None, false),
            ("deep:key:value", Grain, None, true),
            ("deep:key", Grain, None, true),
            ("deep:k*", Grain, None, true),
            ("deep:*", Grain, None, true),
            ("lst:a:b", Grain, None, true),
            ("lst:plain", Grain, None, true),
            ("colon:a:b", Grain, None, true),
            ("*:value", Grain, None, false),
            ("missing:*", Grain, None, false),
            ("os:ubu", GrainPcre, None, true),
            ("os:untu", GrainPcre, None, false),
            ("deep:key:val", GrainPcre, None, true),
            ("deep|key|value", Grain, Some("|"), true),
            ("app:color:blue", Pillar, None, true),
            ("app:color:blue", PillarExact, None, true),
            ("app:color:Bl*", PillarExact, None, false),
            ("app:list:^y$", PillarPcre, None, true),
        ];
        for (tgt, kind, delim, want) in rows {
            let out = run(*kind, tgt, *delim);
            assert_eq!(out.matched, *want, "{tgt} ({kind:?}): {}", out.explanation);
        }
    }

    // `salt/utils/data.py` `subdict_match`: the lowercased-regex quirk and Python `str()` of values (checked against Salt 3008).
    #[test]
    fn lowercasing_and_python_str() {
        assert!(!run(Kind::GrainPcre, r"os:\S+", None).matched);
        assert!(run(Kind::GrainPcre, r"os:U\w+", None).matched);
        assert!(run(Kind::Grain, "t:true", None).matched);
        assert!(run(Kind::Grain, "none:None", None).matched);
        assert!(run(Kind::Grain, "num:4*", None).matched);
        // `\Z` lowercases to `\z`, which Python rejects: logged, never matches.
        let out = run(Kind::GrainPcre, r"os:ubuntu\Z", None);
        assert!(!out.matched);
        assert!(out.errors.iter().any(|e| e.kind == MatchErrorKind::InvalidRegex && !e.fatal));
        let out = run(Kind::GrainPcre, r"os:\S+", None);
        assert!(out.errors.iter().any(|e| e.kind == MatchErrorKind::Quirk));
    }

    // `salt/utils/data.py` `subdict_match`: traverse_dict_and_list on lists (indexes, negative indexes,
    // embedded dicts), YAML-reloaded keys, and an existing empty dict that looks missing.
    #[test]
    fn traversal_rules() {
        let data = json!({
            "l": ["a", "b", {"k": "v"}, {"k": "w"}],
            "e": {},
            "q": {"a b": "c"},
        });
        assert_eq!(traverse_dict_and_list(&data, "l:0", ":"), Some(&json!("a")));
        assert_eq!(traverse_dict_and_list(&data, "l:-1", ":"), Some(&json!({"k": "w"})));
        assert_eq!(traverse_dict_and_list(&data, "l:9", ":"), None);
        assert_eq!(traverse_dict_and_list(&data, "l:k", ":"), Some(&json!("v")));
        assert_eq!(traverse_dict_and_list(&data, "q:'a b'", ":"), Some(&json!("c")));
        assert_eq!(traverse_dict_and_list(&data, "l:0:x", ":"), None);
        assert!(subdict_match(&data, "l:1:b", ":", Mode::Glob));
        assert!(subdict_match(&data, "l:k:v", ":", Mode::Glob));
        assert!(!subdict_match(&data, "e:*", ":", Mode::Glob));
        // The wildcard looks only one level deep, but does look into list values (checked against Salt 3008).
        assert!(subdict_match(&json!({"a": "c"}), "*:c", ":", Mode::Glob));
        assert!(subdict_match(&json!({"a": ["x", "c"]}), "*:c", ":", Mode::Glob));
        assert!(!subdict_match(&json!({"a": {"b": "c"}}), "*:c", ":", Mode::Glob));
        assert!(!subdict_match(&json!({"a": {"b": {"c": "d"}}}), "*:d", ":", Mode::Glob));
        // The nested `subdict_match` inside `_dict_match` always splits on `:`.
        assert!(subdict_match(&json!({"a": {"b": {"c": "d"}}}), "a|b:c:d", "|", Mode::Glob));
        assert!(subdict_match(&json!({"a": [{"b": {"c": "d"}}]}), "a|b:c:d", "|", Mode::Glob));
    }

    // Targets with thousands of delimiters, or `*:` repeated, end quickly and on a small stack.
    #[test]
    fn hostile_targets() {
        let run = || {
            let g = json!({"a": {"a": {"a": "b"}}});
            let ctx = MatchContext::new("m", &g, &g);
            let long = format!("{}b", "a:".repeat(300));
            assert!(!matches(&ctx, Kind::Grain, &long, None).matched);
            let stars = format!("{}b", "*:".repeat(300));
            let out = matches(&ctx, Kind::Grain, &stars, None);
            assert!(!out.matched);
            assert!(matches(&ctx, Kind::Grain, "a:a:a:b", None).matched);
        };
        let joined = std::thread::Builder::new().stack_size(2 << 20).spawn(run).map(|h| h.join());
        assert!(matches!(joined, Ok(Ok(()))));
    }

    #[test]
    fn non_string_targets() {
        let g = grains();
        let ctx = MatchContext::new("m", &g, &g);
        assert!(matches_value(&ctx, Kind::Grain, &json!(5), None).is_fatal());
        assert!(matches_value(&ctx, Kind::Grain, &json!([":"]), None).is_fatal());
        let out = matches_value(&ctx, Kind::Grain, &json!(["os"]), None);
        assert!(!out.matched && !out.is_fatal());
    }

    #[test]
    fn explanations() {
        expect!["grain `os` is `Ubuntu`, pattern `db` does not match (glob, case-insensitive)"].assert_eq(&run(Kind::Grain, "os:db", None).explanation);
        expect!["grain `role` is missing from the profile"].assert_eq(&run(Kind::Grain, "role:web", None).explanation);
        expect!["grain `roles` contains `web`, which matches `w*` (glob, case-insensitive)"].assert_eq(&run(Kind::Grain, "roles:w*", None).explanation);
        expect!["grain target `roles` has no `:` delimiter, so it never matches"].assert_eq(&run(Kind::Grain, "roles", None).explanation);
    }
}
