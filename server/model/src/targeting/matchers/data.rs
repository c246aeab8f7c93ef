//! The `data` matcher (`salt/matchers/data_match.py`), which in Salt 3008 always raises.

use serde_json::Value;

use super::{py, MatchContext, MatchError, MatchErrorKind, MatchOutcome};

/// `data_match.match(tgt)`. A target without `:` is False. Any other target looks up
/// `functions["data.getval"]`, but Salt 3008's `data` execution module has no `getval`
/// (only `get`), so the lookup raises `KeyError: 'data.getval'` (checked against Salt 3008 with 3008.4).
pub fn matches(_ctx: &MatchContext, tgt: &Value) -> MatchOutcome {
    let Value::String(t) = tgt else {
        return MatchOutcome::failed(
            "data",
            py::str_of(tgt),
            MatchError::raised(MatchErrorKind::InvalidTarget, format!("data target {} is not a string (Salt raises AttributeError)", py::repr(tgt))),
        );
    };
    if t.split(':').count() < 2 {
        return MatchOutcome::new("data", t.as_str(), false, format!("data target `{t}` has no `:`, so it never matches"));
    }
    MatchOutcome::failed(
        "data",
        t.as_str(),
        MatchError::raised(
            MatchErrorKind::UnknownMatcher,
            "the data matcher calls `data.getval`, which Salt 3008 does not have (Salt raises KeyError: 'data.getval')",
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // `salt/matchers/data_match.py`, corrected by running Salt 3008.4: fewer than two parts is
    // False; anything else raises KeyError because `data.getval` does not exist.
    #[test]
    fn data_matcher() {
        let g = json!({});
        let ctx = MatchContext::new("m", &g, &g);
        let out = matches(&ctx, &json!("foo"));
        assert!(!out.matched && !out.is_fatal());
        let out = matches(&ctx, &json!("foo:bar"));
        assert!(!out.matched && out.is_fatal());
    }
}
