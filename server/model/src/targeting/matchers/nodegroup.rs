//! Nodegroups (`salt/utils/minions.py:nodegroup_comp` and `_nodegroup_regex`): expanding a
//! group from `opts["nodegroups"]` into compound words, with Salt's loop detection and its
//! habit of splicing a plain group in without parentheses. The `nodegroup` matcher itself
//! (`salt/matchers/nodegroup_match.py`: the compound matcher on the expansion) is
//! `compound::matches_nodegroup`.
use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{py, quote, MatchError, MatchErrorKind, OPERATORS};

/// The most words an expansion may produce. Salt has no limit, but groups nested in a
/// diamond can double the word count at every level.
pub const MAX_EXPANSION: usize = 100_000;

/// How deeply groups may nest. Python raises RecursionError somewhere below 1000 levels.
const MAX_DEPTH: usize = 300;

/// The result of `nodegroup_comp(name, nodegroups)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    /// The words spliced into a compound expression; empty where Salt returns `""` (an
    /// unknown group, a loop, or a definition of the wrong type).
    pub words: Vec<Value>,
    /// Whether the words are wrapped in `(` … `)`. A top-level group with no nested `N@`
    /// is not, so its operators mix with the surrounding expression.
    pub wrapped: bool,
    /// Unknown groups, loops, bad definitions, and (fatal) shapes Salt raises on.
    pub errors: Vec<MatchError>,
}

/// `nodegroup_comp(name, nodegroups)`: the compound words for a group, with nested `N@`
/// groups expanded in place.
pub fn nodegroup_comp(name: &str, nodegroups: &Value) -> Expansion {
    let empty = Map::new();
    let groups = nodegroups.as_object().unwrap_or(&empty);
    let mut state = Comp { groups, errors: Vec::new(), produced: 0 };
    let mut skip = HashSet::new();
    match state.comp(name, &mut skip, true, &mut Vec::new()) {
        Ok((words, wrapped)) => Expansion { words, wrapped, errors: state.errors },
        Err(e) => {
            let mut errors = state.errors;
            errors.push(e);
            Expansion { words: Vec::new(), wrapped: false, errors }
        }
    }
}

struct Comp<'g> {
    groups: &'g Map<String, Value>,
    errors: Vec<MatchError>,
    produced: usize,
}

impl Comp<'_> {
    /// One (possibly recursive) call. Returns the words and whether they are parenthesised;
    /// `Err` is an exception in Salt (or our size limit).
    fn comp(&mut self, name: &str, skip: &mut HashSet<String>, first_call: bool, chain: &mut Vec<String>) -> Result<(Vec<Value>, bool), MatchError> {
        if !first_call && skip.contains(name) {
            self.errors.push(MatchError::logged(
                MatchErrorKind::NodegroupLoop,
                format!("illegal nested nodegroup {}: {} -> {name}; that reference expands to nothing", quote(name), chain.join(" -> ")),
            ));
            return Ok((Vec::new(), false));
        }
        let Some(definition) = self.groups.get(name) else {
            self.errors.push(MatchError::logged(MatchErrorKind::UndefinedNodegroup, format!("unknown nodegroup {}; it expands to nothing", quote(name))));
            return Ok((Vec::new(), false));
        };
        let words: Vec<Value> = match definition {
            Value::String(s) => py::split_whitespace(s).into_iter().map(|w| Value::String(w.to_string())).collect(),
            Value::Array(items) => items.clone(),
            other => {
                self.errors.push(MatchError::logged(
                    MatchErrorKind::InvalidNodegroup,
                    format!("nodegroup {} is {}, neither a string nor a list; it expands to nothing", quote(name), py::repr(other)),
                ));
                return Ok((Vec::new(), false));
            }
        };
        if chain.len() >= MAX_DEPTH {
            return Err(MatchError::raised(
                MatchErrorKind::InvalidNodegroup,
                format!("nodegroups nest more than {MAX_DEPTH} levels deep at {} (Salt raises RecursionError)", quote(name)),
            ));
        }
        skip.insert(name.to_string());
        chain.push(name.to_string());
        let mut ret: Vec<Value> = Vec::new();
        let mut expanded = false;
        for word in &words {
            let w = py::str_of(word);
            if OPERATORS.contains(&w.as_str()) {
                ret.push(Value::String(w));
            } else if w.chars().count() >= 3 && w.starts_with("N@") {
                expanded = true;
                let (inner, _) = self.comp(&w[2..], skip, false, chain)?;
                ret.extend(inner);
            } else {
                ret.push(Value::String(w));
            }
            self.produced += 1;
            if self.produced > MAX_EXPANSION || ret.len() > MAX_EXPANSION {
                return Err(MatchError::logged(
                    MatchErrorKind::InvalidNodegroup,
                    format!("nodegroup {} expands to more than {MAX_EXPANSION} words", quote(name)),
                ));
            }
        }
        let wrapped = !ret.is_empty();
        if wrapped {
            ret.insert(0, Value::String("(".into()));
            ret.push(Value::String(")".into()));
        }
        skip.remove(name);
        chain.pop();
        if expanded || !first_call {
            if !first_call {
                if let Some(joined) = self.nodegroup_regex(name, &words)? {
                    return Ok((joined, false));
                }
            }
            return Ok((ret, wrapped));
        }
        // A top-level group with no nested group: Salt returns the original words.
        if let Some(joined) = self.nodegroup_regex(name, &words)? {
            return Ok((joined, false));
        }
        Ok((words, false))
    }

    /// `_nodegroup_regex`: a group without operators, `*` or `X@` words becomes one
    /// `E@w1,w2` word (if any word looks like a regex) or one `L@w1,w2` word.
    fn nodegroup_regex(&self, name: &str, words: &[Value]) -> Result<Option<Vec<Value>>, MatchError> {
        // `set(words)` raises for a list or dict among them.
        if let Some(bad) = words.iter().find(|w| matches!(w, Value::Array(_) | Value::Object(_))) {
            return Err(MatchError::raised(
                MatchErrorKind::InvalidNodegroup,
                format!("nodegroup {} contains {}, which is unhashable (Salt raises TypeError)", quote(name), py::repr(bad)),
            ));
        }
        if words.iter().any(|w| w.as_str().is_some_and(|s| OPERATORS.contains(&s))) {
            return Ok(None);
        }
        let mut strs = Vec::with_capacity(words.len());
        for w in words {
            match w.as_str() {
                Some(s) => strs.push(s),
                None => {
                    return Err(MatchError::raised(
                        MatchErrorKind::InvalidNodegroup,
                        format!("nodegroup {} contains {}, which is not a string (Salt raises TypeError)", quote(name), py::repr(w)),
                    ))
                }
            }
        }
        let typed = |s: &str| {
            let mut c = s.chars();
            matches!((c.next(), c.next()), (Some(a), Some('@')) if a.is_ascii_uppercase())
        };
        if strs.iter().any(|s| s.contains('*') || typed(s)) {
            return Ok(None);
        }
        let regexy = strs.iter().any(|s| s.contains(['(', '[', '{', '\\', '?', '}', ']', ')']));
        let joined = format!("{}@{}", if regexy { "E" } else { "L" }, strs.join(","));
        Ok(Some(vec![Value::String(joined)]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targeting::matchers::compound::{self, matches_nodegroup as matches};
    use crate::targeting::matchers::MatchContext;
    use serde_json::json;

    fn words(e: &Expansion) -> Vec<String> {
        e.words.iter().map(py::str_of).collect()
    }

    // `salt/matchers/nodegroup_match.py`, `salt/utils/minions.py` `nodegroup_comp`: expansion rules and the joined form (checked against Salt 3008).
    #[test]
    fn expansion_rules() {
        let ng = json!({
            "g9": "web* or db*",
            "g10": "N@g9",
            "q": "web0?",
            "l": "web01.example.com web02",
            "mixed": "web01.example.com db*",
            "loop_a": "N@loop_b or x",
            "loop_b": "N@loop_a",
            "self": "N@self and web*",
            "bad": 5,
            "empty": "",
            "short": "N@ or web*",
        });
        // A word must be at least three characters long to be a nested `N@` reference.
        assert_eq!(words(&nodegroup_comp("short", &ng)), ["N@", "or", "web*"]);
        assert_eq!(words(&nodegroup_comp("g9", &ng)), ["web*", "or", "db*"]);
        assert!(!nodegroup_comp("g9", &ng).wrapped);
        assert_eq!(words(&nodegroup_comp("g10", &ng)), ["(", "(", "web*", "or", "db*", ")", ")"]);
        assert_eq!(words(&nodegroup_comp("q", &ng)), ["E@web0?"]);
        assert_eq!(words(&nodegroup_comp("l", &ng)), ["L@web01.example.com,web02"]);
        assert_eq!(words(&nodegroup_comp("mixed", &ng)), ["web01.example.com", "db*"]);
        assert_eq!(words(&nodegroup_comp("empty", &ng)), ["L@"]);
        let e = nodegroup_comp("loop_a", &ng);
        assert_eq!(words(&e), ["(", "or", "x", ")"]);
        assert!(e.errors.iter().any(|x| x.kind == MatchErrorKind::NodegroupLoop));
        let e = nodegroup_comp("self", &ng);
        assert!(e.errors.iter().any(|x| x.kind == MatchErrorKind::NodegroupLoop));
        let e = nodegroup_comp("bad", &ng);
        assert!(e.words.is_empty() && e.errors[0].kind == MatchErrorKind::InvalidNodegroup);
        let e = nodegroup_comp("nosuch", &ng);
        assert!(e.words.is_empty() && e.errors[0].kind == MatchErrorKind::UndefinedNodegroup);
    }

    #[test]
    fn deep_chains_stop_on_a_small_stack() {
        let run = || {
            let mut ng = Map::new();
            for i in 0..2000 {
                ng.insert(format!("g{i}"), Value::String(format!("N@g{} or web*", i + 1)));
            }
            let ng = Value::Object(ng);
            let e = nodegroup_comp("g0", &ng);
            assert!(e.words.is_empty());
            assert!(e.errors.iter().any(|x| x.fatal));
        };
        let joined = std::thread::Builder::new().stack_size(2 << 20).spawn(run).map(|h| h.join());
        assert!(matches!(joined, Ok(Ok(()))));
    }

    // `salt/matchers/nodegroup_match.py`, `salt/utils/minions.py` `nodegroup_comp`, checked against Salt 3008: the splice-without-parentheses quirk and the joined forms.
    #[test]
    fn nodegroup_matching() {
        let g = json!({"os": "Ubuntu"});
        let ng = json!({
            "g9": "web* or db*",
            "g10": "N@g9",
            "q": "web0?",
            "l": "web01.example.com web02",
            "mixed": "web01.example.com db*",
        });
        let ctx = MatchContext::new("web01.example.com", &g, &g).with_nodegroups(&ng);
        let c = |t: &str| compound::matches_str(&ctx, t).matched;
        assert!(c("N@g9 and G@os:Nope"));
        assert!(!c("N@g10 and G@os:Nope"));
        // `web0?` becomes the regex `E@web0?`, which `re.match` finds at the start of the id.
        assert!(matches(&ctx, &json!("q")).matched);
        assert!(matches(&ctx, &json!("l")).matched);
        assert!(!matches(&ctx, &json!("mixed")).matched);
        assert!(matches(&ctx, &json!("g9")).matched);
        assert!(!matches(&ctx, &json!("nosuch")).matched);
        let out = compound::matches_str(&ctx, "N@g9 and G@os:Nope");
        assert!(out.errors.iter().any(|e| e.kind == MatchErrorKind::Quirk));
        // An undefined group where others are defined is an error; with none defined at all
        // (the master's configuration is elsewhere), a warning.
        assert_eq!(matches(&ctx, &json!("nosuch")).errors[0].severity, super::super::Severity::Error);
        let none = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g).with_nodegroups(&none);
        let out = matches(&ctx, &json!("g9"));
        assert!(!out.matched);
        assert_eq!((out.errors[0].kind, out.errors[0].severity), (MatchErrorKind::UndefinedNodegroup, super::super::Severity::Warning));
    }
}
