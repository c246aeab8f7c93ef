//! Replays target-matcher cases computed by real Salt (`tests/conformance/matchers_cases.py`)
//! against `salt_model::targeting::matchers`, and fails listing every case where the answers differ.
//!
//! The case file is named by `SALT_MATCHER_CASES`, which only the project's test script
//! (`tests/run.sh`) makes: the test is ignored by a plain `cargo test` rather than passing
//! without checking anything, and run with `--ignored` by the script, where a missing file fails.

use std::fs;

use salt_model::targeting::matchers::{self, MatchContext, TOP_DEFAULT_MATCHER};
use serde_json::Value;

#[test]
#[ignore = "needs SALT_MATCHER_CASES from tests/conformance/matchers_cases.py (real Salt); tests/run.sh runs it"]
fn matchers_agree_with_salt() {
    let path =
        std::env::var("SALT_MATCHER_CASES").expect("SALT_MATCHER_CASES names the case file tests/conformance/matchers_cases.py writes (tests/run.sh sets it)");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let mut total = 0;
    let mut mismatches = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}:{}: bad JSON: {e}", lineno + 1));
        total += 1;
        let null = Value::Null;
        let minion_id = case["minion_id"].as_str().unwrap_or_default();
        let grains = case.get("grains").unwrap_or(&null);
        let pillar = case.get("pillar").unwrap_or(&null);
        let nodegroups = case.get("nodegroups").unwrap_or(&null);
        let ctx = MatchContext::new(minion_id, grains, pillar).with_nodegroups(nodegroups);
        let matcher = case["matcher"].as_str().unwrap_or_default();
        let target = case.get("target").unwrap_or(&null);
        let outcome = if matcher == "confirm_top" {
            matchers::confirm_top_value(&ctx, target, case.get("body").unwrap_or(&null), TOP_DEFAULT_MATCHER)
        } else {
            matchers::matches(&ctx, matcher, target)
        };
        let expected = case["expected"].as_bool().unwrap_or(false);
        let raises = case.get("raises").and_then(Value::as_str);
        let agree = outcome.matched == expected && outcome.is_fatal() == raises.is_some();
        if !agree {
            mismatches.push(format!(
                "line {}: {matcher} {target} (id {minion_id:?})\n    salt: {expected}{}\n    ours: {}{}\n    why:  {}\n    case: {line}",
                lineno + 1,
                raises.map(|r| format!(" (raises {r})")).unwrap_or_default(),
                outcome.matched,
                if outcome.is_fatal() { " (fatal)" } else { "" },
                outcome.render().trim_end().replace('\n', "\n          "),
            ));
        }
    }
    eprintln!("{} of {total} Salt matcher cases agree", total - mismatches.len());
    assert!(total >= 100, "{path} has only {total} cases");
    assert!(mismatches.is_empty(), "{} of {total} cases differ from Salt:\n{}", mismatches.len(), mismatches.join("\n"));
}
