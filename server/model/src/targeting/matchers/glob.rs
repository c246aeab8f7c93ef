//! The `glob` matcher (`salt/matchers/glob_match.py`): Python `fnmatch` of the minion id.

use serde_json::Value;

use super::{py, quote, MatchContext, MatchOutcome};
use crate::py::fnmatch;

/// `glob_match.match(tgt)`: whether the minion id matches the shell pattern. Matching is
/// case-sensitive (POSIX `os.path.normcase` is the identity), and the whole id must match.
pub fn matches(ctx: &MatchContext, pattern: &str) -> MatchOutcome {
    let matched = fnmatch::fnmatch(ctx.minion_id, pattern);
    let explanation = if matched {
        format!("minion id {} matches glob {}", quote(ctx.minion_id), quote(pattern))
    } else {
        let mut s = format!("minion id {} does not match glob {}", quote(ctx.minion_id), quote(pattern));
        if fnmatch::fnmatch(&ctx.minion_id.to_lowercase(), &pattern.to_lowercase()) {
            s.push_str(" (globs are case-sensitive)");
        }
        s
    };
    MatchOutcome::new("glob", pattern, matched, explanation)
}

/// [`matches`] for any target value: Salt returns False for a target that is not a string.
pub fn matches_value(ctx: &MatchContext, target: &Value) -> MatchOutcome {
    match target {
        Value::String(s) => matches(ctx, s),
        other => MatchOutcome::new("glob", py::str_of(other), false, format!("glob target {} is not a string, so it never matches", py::repr(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use serde_json::json;

    // `salt/matchers/glob_match.py` truth table, checked against Salt 3008 (id `web01.example.com`).
    #[test]
    fn glob_truth_table() {
        let g = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g);
        let rows =
            [("web*", true), ("WEB*", false), ("web0?.example.com", true), ("web0[0-9].*", true), ("web0[!1]*", false), ("*.com", true), ("web01", false)];
        for (pat, want) in rows {
            assert_eq!(matches(&ctx, pat).matched, want, "{pat}");
        }
    }

    // `salt/matchers/glob_match.py`: fnmatch details (unclosed `[` is literal, no backslash escape,
    // no braces, `*` crosses dots, slashes and newlines).
    #[test]
    fn fnmatch_details() {
        let g = json!({});
        let cases = [
            ("a[", "a[", true),
            ("a\\b", "a\\b", true),
            ("a{b,c}", "ab", false),
            ("a{b,c}", "a{b,c}", true),
            ("a/b.c", "a*", true),
            ("a\nb", "a*b", true),
            ("]", "[]]", true),
            ("x", "[!]]", true),
        ];
        for (id, pat, want) in cases {
            let ctx = MatchContext::new(id, &g, &g);
            assert_eq!(matches(&ctx, pat).matched, want, "{id:?} {pat:?}");
        }
    }

    #[test]
    fn glob_explanations() {
        let g = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g);
        expect!["minion id `web01.example.com` does not match glob `WEB*` (globs are case-sensitive)"].assert_eq(&matches(&ctx, "WEB*").explanation);
        expect!["glob target 1 is not a string, so it never matches"].assert_eq(&matches_value(&ctx, &json!(1)).explanation);
    }
}
