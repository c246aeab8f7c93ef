//! The `pcre` matcher (`salt/matchers/pcre_match.py`): Python `re.match` on the minion id.

use serde_json::Value;

use super::pyre::PyRegex;
use super::{py, quote, MatchContext, MatchError, MatchErrorKind, MatchOutcome};

/// `pcre_match.match(tgt)`: `bool(re.match(tgt, id))`, anchored at the start of the id but
/// not at its end, and case-sensitive. An invalid regex raises in Salt, so it is fatal here.
pub fn matches(ctx: &MatchContext, pattern: &str) -> MatchOutcome {
    regex_on_id("pcre", ctx.minion_id, pattern)
}

/// [`matches`] for any target value: `re.match` raises TypeError for a non-string pattern.
pub fn matches_value(ctx: &MatchContext, target: &Value) -> MatchOutcome {
    match target {
        Value::String(s) => matches(ctx, s),
        other => MatchOutcome::failed(
            "pcre",
            py::str_of(other),
            MatchError::raised(MatchErrorKind::InvalidTarget, format!("pcre target {} is not a string (Salt raises TypeError)", py::repr(other))),
        ),
    }
}

/// `re.match(pattern, id)` with an explanation; shared with the `E@` compound engine.
pub(crate) fn regex_on_id(matcher: &str, id: &str, pattern: &str) -> MatchOutcome {
    let re = match PyRegex::compile(pattern) {
        Ok(re) => re,
        Err(e) => {
            return MatchOutcome::failed(matcher, pattern, MatchError::raised(MatchErrorKind::InvalidRegex, format!("invalid regex {}: {e}", quote(pattern))))
        }
    };
    match re.re_match(id) {
        Ok(true) => MatchOutcome::new(matcher, pattern, true, format!("minion id {} matches regex {}", quote(id), quote(pattern))),
        Ok(false) => {
            let mut s = format!("minion id {} does not match regex {}", quote(id), quote(pattern));
            if PyRegex::compile(&format!(".*(?:{pattern})")).is_ok_and(|r| r.re_match(id) == Ok(true)) {
                s.push_str(" (re.match is anchored at the start of the id)");
            }
            MatchOutcome::new(matcher, pattern, false, s)
        }
        Err(e) => MatchOutcome::failed(matcher, pattern, MatchError::raised(MatchErrorKind::InvalidRegex, format!("regex {}: {e}", quote(pattern)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use serde_json::json;

    // `salt/matchers/pcre_match.py` truth table, checked against Salt 3008 (id `web01.example.com`).
    #[test]
    fn pcre_truth_table() {
        let g = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g);
        let rows = [("web", true), ("example", false), (".*example", true), ("WEB", false), ("(?i)WEB", true), ("", true), (r"web01\.example\.com\Z", true)];
        for (pat, want) in rows {
            let out = matches(&ctx, pat);
            assert!(out.errors.is_empty(), "{pat}: {:?}", out.errors);
            assert_eq!(out.matched, want, "{pat}");
        }
    }

    // `salt/matchers/pcre_match.py`: a bad regex raises, which crashes the top file.
    #[test]
    fn pcre_invalid_regex_is_fatal() {
        let g = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g);
        let out = matches(&ctx, "(");
        assert!(!out.matched);
        assert!(out.is_fatal());
        expect!["invalid regex `(`: missing ), unterminated subpattern at position 0"].assert_eq(&out.explanation);
        assert!(matches_value(&ctx, &json!(3)).is_fatal());
    }

    #[test]
    fn pcre_explains_anchoring() {
        let g = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g);
        expect!["minion id `web01.example.com` does not match regex `example` (re.match is anchored at the start of the id)"]
            .assert_eq(&matches(&ctx, "example").explanation);
    }
}
