//! Which targets of the merged top match a minion, and what each contributes: `salt/state.py`
//! `BaseHighState.top_matches` (with `_filter_matches`).

use std::path::PathBuf;

use super::{MergedTop, TargetDecision};
use crate::diagnostic::{Code, SaltError};
use crate::targeting::matchers::{self, MatchContext};
use crate::targeting::Matches;
use crate::value::{Loc, Val, V};
use crate::workspace::config::Opts;

/// `BaseHighState.top_matches`: the per-env SLS lists for the minion, with a decision per target.
pub fn top_matches(opts: &Opts, avail_envs: &[String], ctx: &MatchContext, top: &MergedTop) -> (Matches, Vec<TargetDecision>) {
    let m = top_matches_checked(opts, avail_envs, ctx, top);
    (m.matches, m.decisions)
}

/// What [`top_matches_checked`] found.
#[derive(Debug, Clone, Default)]
pub struct TopMatches {
    pub matches: Matches,
    pub decisions: Vec<TargetDecision>,
    /// The first problem Salt raises on while matching (a bad regex in a `pcre` target, an
    /// unknown matcher, a body item it cannot handle): `state.show_top`, `state.show_lowstate`
    /// and `state.apply` then fail with a traceback instead of answering.
    pub raised: Option<SaltError>,
}

/// [`top_matches`], also saying whether Salt would raise. Every target is still evaluated (and
/// explained) after the first raise, although Salt stops there.
pub fn top_matches_checked(opts: &Opts, avail_envs: &[String], ctx: &MatchContext, top: &MergedTop) -> TopMatches {
    let mut out = TopMatches::default();
    for (env, targets) in top {
        if let Some(s) = &opts.saltenv {
            if s != env {
                continue;
            }
        }
        for t in targets {
            filter_matches(ctx, avail_envs, env, &t.target, &t.body, &t.source, &mut out);
        }
    }
    out
}

fn raise(out: &mut TopMatches, at: &Option<Loc>, message: String) {
    if out.raised.is_none() {
        out.raised = Some(SaltError::new(Code::InvalidTarget, message).at(at.clone()));
    }
}

/// `_filter_matches(match, data)` for one target of section `env`.
fn filter_matches(ctx: &MatchContext, avail_envs: &[String], env: &str, target: &Val, body: &Val, source: &Option<PathBuf>, out: &mut TopMatches) {
    let items: Vec<Val> = match &body.v {
        V::Str(_) => vec![body.clone()],
        // Iterating a dict body visits its keys.
        V::Dict(d) => d.keys().cloned().collect(),
        V::List(l) => l.clone(),
        _ => Vec::new(),
    };
    let probe = match &body.v {
        V::Str(_) | V::Dict(_) => Val::list(items.clone()),
        _ => body.clone(),
    };
    let outcome = matchers::confirm_top_value(ctx, &target.to_json(), &probe.to_json(), matchers::TOP_DEFAULT_MATCHER);
    let mut decision = TargetDecision {
        section: env.to_string(),
        target: target.py_str(),
        source: source.clone(),
        loc: target.at.clone(),
        matcher: outcome.matcher.clone(),
        matched: outcome.matched,
        explanation: outcome.explanation.clone(),
        errors: outcome.errors.iter().map(|e| e.message.clone()).collect(),
        contributes: Vec::new(),
    };
    if outcome.is_fatal() {
        let why = outcome.errors.iter().find(|e| e.fatal).map(|e| e.message.clone()).unwrap_or_default();
        raise(out, &target.at, format!("Salt raises matching target {} in saltenv {}: {why}", target.py_repr(), crate::value::py_str_repr(env)));
    }
    let index = out.decisions.len();
    out.decisions.push(decision.clone());
    if !outcome.matched {
        return;
    }
    if !out.matches.contains_key(env) {
        out.matches.insert(env.to_string(), Vec::new());
    }
    for item in &items {
        // `"subfilter" in item`: a substring test for strings, a membership test for lists
        // and dicts, and a TypeError for anything else.
        match &item.v {
            V::Str(s) if s.contains("subfilter") => {
                raise(out, &item.at, format!("SLS name {} contains `subfilter`, so Salt calls `.pop` on a string (AttributeError)", item.py_repr()));
                continue;
            }
            V::List(l) if l.iter().any(|x| x.as_str() == Some("subfilter")) => {
                raise(out, &item.at, format!("item {} holds `subfilter`, so Salt calls `list.pop('subfilter')` (TypeError)", item.py_repr()));
                continue;
            }
            V::None | V::Bool(_) | V::Int(_) | V::Float(_) => {
                raise(
                    out,
                    &item.at,
                    format!(
                        "item {} under a matching target is not a string or a dict (TypeError: argument of type '{}' is not iterable)",
                        item.py_repr(),
                        item.py_type()
                    ),
                );
                continue;
            }
            _ => {}
        }
        match &item.v {
            V::Str(s) => {
                if let Some(l) = out.matches.get_mut(env) {
                    l.push(s.clone());
                }
                decision.contributes.push((env.to_string(), s.clone()));
            }
            V::Dict(d) => {
                let mut d = d.clone();
                if let Some((_, sub)) = d.remove("subfilter") {
                    match &sub.v {
                        V::Dict(subs) => {
                            for (m, b) in &subs.0 {
                                filter_matches(ctx, avail_envs, env, m, b, source, out);
                            }
                        }
                        _ => raise(out, &sub.at, format!("`subfilter` is {}, not a mapping (AttributeError: no attribute 'items')", sub.py_repr())),
                    }
                }
                // `item.popitem()`: the last pair; an empty dict raises KeyError.
                let Some((k, v)) = d.0.last() else {
                    raise(out, &item.at, "an empty dict under a matching target makes Salt's `popitem()` raise KeyError".to_string());
                    continue;
                };
                let key = k.py_str();
                if key != "base" && !avail_envs.contains(&key) {
                    continue;
                }
                let sls = v.py_str();
                out.matches.entry(key.clone()).or_default().push(sls.clone());
                decision.contributes.push((key, sls));
            }
            _ => {}
        }
    }
    out.decisions[index] = decision;
}

#[cfg(test)]
mod tests {
    use super::super::tests::top;
    use crate::targeting::Matches;

    #[test]
    fn body_items_salt_cannot_handle_raise_only_when_the_target_matches() {
        for item in ["{}", "1", "{subfilter: {'*': [x]}}", "has_subfilter_in_name"] {
            let fixture = format!("#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\n#- base/top.sls\nbase:\n  '*': [a, {item}]\n  nomatch: [b, {item}]\n");
            let r = top(&fixture, None);
            assert!(r.raised.is_some(), "{item}");
            let fixture = format!("#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\n#- base/top.sls\nbase:\n  nomatch: [b, {item}]\n");
            assert!(top(&fixture, None).raised.is_none(), "{item}");
        }
        // `subfilter` targets add to the same section, then the emptied dict raises.
        let fixture =
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase:\n  '*': [a, {subfilter: {'G@role:web': [x], 'G@role:db': [y]}}]\n";
        let r = top(fixture, None);
        assert_eq!(r.matches, Matches::from([("base".to_string(), vec!["a".to_string(), "x".to_string()])]));
        assert!(r.raised.as_ref().is_some_and(|e| e.message.contains("popitem")));
    }
}
