//! The `list` matcher (`salt/matchers/list_match.py`): the minion id in a comma-separated
//! string or in a list.

use serde_json::Value;

use super::{py, quote, MatchContext, MatchOutcome};

/// `list_match.match(tgt)`. A string target matches when it contains `,id,`, starts with
/// `id,`, ends with `,id` or equals the id: there is no trimming of spaces and no globbing.
/// A list target matches when the id is one of its items.
pub fn matches(ctx: &MatchContext, target: &Value) -> MatchOutcome {
    let id = ctx.minion_id;
    match target {
        Value::String(tgt) => {
            let matched = tgt.contains(&format!(",{id},")) || tgt.starts_with(&format!("{id},")) || tgt.ends_with(&format!(",{id}")) || tgt == id;
            let explanation = if matched {
                format!("minion id {} is in the list {}", quote(id), quote(tgt))
            } else {
                let mut s = format!("minion id {} is not in the list {}", quote(id), quote(tgt));
                if tgt.split(',').any(|item| item.trim() == id) {
                    s.push_str(" (Salt does not trim spaces around list items)");
                } else if tgt.split(',').any(|item| crate::py::fnmatch::fnmatch(id, item)) {
                    s.push_str(" (list items are not globs)");
                }
                s
            };
            MatchOutcome::new("list", tgt.as_str(), matched, explanation)
        }
        // For a list or dict, Python's `",id," in tgt` tests membership without raising,
        // and then `tgt.startswith` raises AttributeError, so `id in tgt` decides.
        Value::Array(items) => {
            let comma = format!(",{id},");
            let matched = items.iter().any(|v| v.as_str() == Some(comma.as_str()) || v.as_str() == Some(id));
            let shown = py::repr(target);
            let explanation = if matched {
                format!("minion id {} is an item of {}", quote(id), quote(&shown))
            } else {
                format!("minion id {} is not an item of {}", quote(id), quote(&shown))
            };
            MatchOutcome::new("list", shown, matched, explanation)
        }
        Value::Object(map) => {
            let matched = map.contains_key(&format!(",{id},")) || map.contains_key(id);
            let shown = py::repr(target);
            let explanation = if matched {
                format!("minion id {} is a key of {}", quote(id), quote(&shown))
            } else {
                format!("minion id {} is not a key of {}", quote(id), quote(&shown))
            };
            MatchOutcome::new("list", shown, matched, explanation)
        }
        other => {
            MatchOutcome::new("list", py::str_of(other), false, format!("list target {} is neither a string nor a list, so it never matches", py::repr(other)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use serde_json::json;

    // `salt/matchers/list_match.py` (id `web01.example.com`; checked against Salt 3008).
    #[test]
    fn list_truth_table() {
        let g = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g);
        let rows = [
            (json!("web01.example.com"), true),
            (json!("a,web01.example.com"), true),
            (json!("web01.example.com,b"), true),
            (json!("a,web01.example.com,b"), true),
            (json!("a, web01.example.com"), false),
            (json!("web*"), false),
            (json!("xweb01.example.com"), false),
            (json!(["a", "web01.example.com"]), true),
            (json!(["a", "web*"]), false),
            (json!([",web01.example.com,"]), true),
            (json!({"web01.example.com": 1}), true),
            (json!(5), false),
            (json!(null), false),
        ];
        for (tgt, want) in rows {
            assert_eq!(matches(&ctx, &tgt).matched, want, "{tgt}");
        }
    }

    #[test]
    fn list_explains_spaces() {
        let g = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &g);
        expect!["minion id `web01.example.com` is not in the list `a, web01.example.com` (Salt does not trim spaces around list items)"]
            .assert_eq(&matches(&ctx, &json!("a, web01.example.com")).explanation);
    }
}
