//! Running a matcher by its name: `<matcher>_match.match` ([`matches`]), a top file's
//! `confirm_top` (which picks the matcher from the target's body), and a template's
//! `match.<matcher>(...)` with the question recorded ([`answer_recorded`]) or asked again of
//! another minion ([`answer`]).

use serde_json::Value;

use super::{
    compound, data, glob, ipcidr, list, pcre, py, resource, subdict, MatchContext, MatchError, MatchErrorKind, MatchOutcome, MATCHERS, TOP_DEFAULT_MATCHER,
};
use crate::workspace::facts;

/// Run the matcher Salt calls `<matcher>_match.match` on `target`, with the default
/// delimiter. `target` is usually a string; `list` and `compound` also take a list.
pub fn matches(ctx: &MatchContext, matcher: &str, target: &Value) -> MatchOutcome {
    match matcher {
        "glob" => glob::matches_value(ctx, target),
        "pcre" => pcre::matches_value(ctx, target),
        "list" => list::matches(ctx, target),
        "grain" | "grain_pcre" | "pillar" | "pillar_pcre" | "pillar_exact" => match subdict::Kind::from_matcher(matcher) {
            Some(kind) => subdict::matches_value(ctx, kind, target, None),
            None => unknown_matcher(matcher, target),
        },
        "ipcidr" => ipcidr::matches(ctx, target),
        "compound" => compound::matches(ctx, target),
        "nodegroup" => compound::matches_nodegroup(ctx, target),
        "data" => data::matches(ctx, target),
        "range" => range_outcome(target),
        "resource" => resource::resource(ctx, target),
        "managing_minion" => resource::managing_minion(ctx, target),
        _ => unknown_matcher(matcher, target),
    }
}

/// [`matches`] for a string target.
pub fn matches_str(ctx: &MatchContext, matcher: &str, target: &str) -> MatchOutcome {
    matches(ctx, matcher, &Value::String(target.to_string()))
}

/// Whether a top-file target matches, as `salt/matchers/confirm_top.py:confirm_top` decides.
///
/// `target` is the key under an environment in the top file; `body` is its value (a list of
/// SLS names and option dicts, or a single string). The matcher is `default_matcher`
/// ([`TOP_DEFAULT_MATCHER`], `compound`, for state and pillar tops) unless a dict item in
/// the body has a `match` key; the last such item wins.
pub fn confirm_top(ctx: &MatchContext, target: &str, body: &Value, default_matcher: &str) -> MatchOutcome {
    confirm_top_value(ctx, &Value::String(target.to_string()), body, default_matcher)
}

/// [`confirm_top`] for a target key that YAML loaded as something other than a string
/// (`1:`, `true:`, `~:`), which most matchers reject or never match.
pub fn confirm_top_value(ctx: &MatchContext, target: &Value, body: &Value, default_matcher: &str) -> MatchOutcome {
    let outcome = match select_matcher(body, default_matcher) {
        Ok(matcher) => matches(ctx, &matcher, target),
        Err(e) => MatchOutcome::failed("confirm_top", py::str_of(target), e),
    };
    if let Some(r) = ctx.record {
        let q = facts::MatchQuestion {
            matcher: format!("confirm_top {default_matcher}"),
            tgt: target.to_string(),
            body: Some(body.to_string()),
            delimiter: None,
            for_id: None,
            pillar: None,
        };
        r.log.record(ctx.question(q), || outcome.fingerprint());
    }
    outcome
}

/// A template's `match.<matcher>(tgt, minion_id=..., delimiter=...)` (`minion_id`: the id
/// the matcher takes instead of the minion's), recorded where the context records.
pub fn answer_recorded(ctx: &MatchContext, matcher: &str, tgt: &str, minion_id: Option<&str>, delimiter: Option<&str>) -> bool {
    let mut quiet = MatchContext { record: None, ..*ctx };
    if let Some(id) = minion_id {
        quiet.minion_id = id;
    }
    let outcome = match subdict::Kind::from_matcher(matcher) {
        Some(kind) => subdict::matches(&quiet, kind, tgt, delimiter),
        None => matches_str(&quiet, matcher, tgt),
    };
    if let Some(r) = ctx.record {
        let q = facts::MatchQuestion {
            matcher: matcher.to_string(),
            tgt: tgt.to_string(),
            body: None,
            delimiter: delimiter.map(str::to_string),
            for_id: minion_id.map(str::to_string),
            pillar: None,
        };
        r.log.record(ctx.question(q), || outcome.fingerprint());
    }
    outcome.matched
}

/// What another minion (`ctx`, recording nothing) answers to a question a compile asked.
pub fn answer(ctx: &MatchContext, q: &facts::MatchQuestion) -> u64 {
    let mut ctx = MatchContext { record: None, ..*ctx };
    if let Some(p) = &q.pillar {
        ctx.pillar = &p.0;
    }
    if let Some(body) = &q.body {
        let (Ok(target), Ok(body)) = (serde_json::from_str::<Value>(&q.tgt), serde_json::from_str::<Value>(body)) else { return 0 };
        let default = q.matcher.strip_prefix("confirm_top ").unwrap_or(TOP_DEFAULT_MATCHER);
        return confirm_top_value(&ctx, &target, &body, default).fingerprint();
    }
    if let Some(id) = &q.for_id {
        ctx.minion_id = id;
    }
    let outcome = match subdict::Kind::from_matcher(&q.matcher) {
        Some(kind) => subdict::matches(&ctx, kind, &q.tgt, q.delimiter.as_deref()),
        None => matches_str(&ctx, &q.matcher, &q.tgt),
    };
    outcome.fingerprint()
}

/// The matcher `confirm_top` uses for a top-file body: the value of the last dict item with a
/// `match` key, else `default_matcher`. A string body counts as a one-item list, as
/// `top_matches` wraps it. Errors are the shapes Salt raises on.
pub fn select_matcher(body: &Value, default_matcher: &str) -> Result<String, MatchError> {
    let mut matcher = Value::String(default_matcher.to_string());
    match body {
        Value::String(_) => {}
        // Iterating a dict visits its keys, which are never dicts.
        Value::Object(_) => {}
        Value::Array(items) => {
            for item in items {
                if let Value::Object(map) = item {
                    if let Some(m) = map.get("match") {
                        matcher = m.clone();
                    }
                }
            }
        }
        other => {
            return Err(MatchError::raised(
                MatchErrorKind::InvalidTarget,
                format!("the target's body is {}, which Salt cannot iterate (TypeError)", py::repr(other)),
            ))
        }
    }
    match matcher {
        Value::String(name) => {
            if MATCHERS.contains(&name.as_str()) {
                Ok(name)
            } else {
                Err(unknown_matcher_error(&name))
            }
        }
        other => Err(MatchError::raised(
            MatchErrorKind::UnknownMatcher,
            format!("`match: {}` is not a matcher name (Salt raises TypeError adding it to a string)", py::repr(&other)),
        )),
    }
}

fn unknown_matcher_error(name: &str) -> MatchError {
    MatchError::raised(
        MatchErrorKind::UnknownMatcher,
        format!("unknown matcher `{name}` (Salt raises KeyError: '{name}_match.match'); known matchers: {}", MATCHERS.join(", ")),
    )
}

fn unknown_matcher(name: &str, target: &Value) -> MatchOutcome {
    MatchOutcome::failed(name, py::str_of(target), unknown_matcher_error(name))
}

/// `range_match.match`: without the `seco.range` library, which Salt does not ship, it
/// returns False for every target.
fn range_outcome(target: &Value) -> MatchOutcome {
    MatchOutcome::new("range", py::str_of(target), false, "the range matcher needs the seco.range library, which Salt does not ship, so it never matches")
        .with_error(MatchError::logged(
            MatchErrorKind::UnsupportedEngine,
            "range targeting needs seco.range, which is not installed; this target never matches",
        ))
}
