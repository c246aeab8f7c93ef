//! Replays YAML loader cases answered by Salt's own loader (`SaltYamlSafeLoader`, written by
//! `tests/conformance/yaml/gen_cases.py`) against `syntax::yaml::load`: the same accept or
//! reject, and on accept the same typed value (int, float, bool, null and str apart, mapping
//! order and non-string keys kept). On a reject the line Salt names is a bonus, counted and
//! printed, not required.
//!
//! Two sources: the committed regressions (`tests/conformance/yaml/regressions.jsonl`, every
//! disagreement a campaign found, with Salt's answer), checked by a plain `cargo test`; and
//! the generated file named by `SALT_YAML_CASES`, which only `tests/run.sh` makes, so that test
//! is ignored by a plain `cargo test` rather than passing without checking anything.

use std::fs;

use salt_syntax::yaml::{self, Node, Value};
use serde_json::{json, Value as Json};

/// Our answer in the generator's typed encoding.
fn typed(node: &Node) -> Json {
    match &node.value {
        Value::Null => json!(["null"]),
        Value::Bool(b) => json!(["bool", b]),
        Value::Int(i) => json!(["int", i.to_string()]),
        Value::Float(f) if f.is_nan() => json!(["float", "nan"]),
        Value::Float(f) if f.is_infinite() => json!(["float", if *f > 0.0 { "inf" } else { "-inf" }]),
        Value::Float(f) => json!(["float", f]),
        Value::Str(s) => json!(["str", s]),
        Value::Seq(items) => json!(["seq", items.iter().map(typed).collect::<Vec<_>>()]),
        Value::Map(pairs) => json!(["map", pairs.iter().map(|(k, v)| json!([typed(k), typed(v)])).collect::<Vec<_>>()]),
    }
}

/// Equal typed values; floats within a few ulps (the JSON text of Python's `repr` and our
/// parse of the YAML text may round differently in the last bit).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || ((x - y).abs() <= 4.0 * f64::EPSILON * x.abs().max(y.abs())),
            _ => x == y,
        },
        (Json::Array(x), Json::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        _ => a == b,
    }
}

/// Disagreements we know of and do not fix, each with its reason. A case that falls under one
/// is counted and listed, not failed; anything else fails.
fn known_gap(text: &str, salt: &Json) -> Option<&'static str> {
    fn any(v: &Json, f: &dyn Fn(&str, &Json) -> bool) -> bool {
        match v {
            Json::Array(a) => a.first().and_then(Json::as_str).is_some_and(|tag| f(tag, a.get(1).unwrap_or(&Json::Null))) || a.iter().any(|x| any(x, f)),
            _ => false,
        }
    }
    let value = salt.get("value");
    if value.is_some_and(|v| any(v, &|tag, _| tag == "bytes")) {
        // `!!binary` loads as Python bytes; `Value` has no bytes (the base64 text is kept), and
        // no SLS key Salt reads takes bytes.
        return Some("!!binary is bytes in Salt, its text here");
    }
    if value.is_some_and(|v| any(v, &|tag, x| tag == "int" && x.as_str().is_some_and(|d| d.parse::<i64>().is_err()))) {
        // Python ints have no bound; `Value::Int` is an i64, so a bigger one stays a string.
        return Some("an int beyond 64 bits is a Python int in Salt, a string here");
    }
    if value.is_some_and(|v| any(v, &|tag, _| tag == "other")) {
        // `!!set` and `!!pairs` build a set and a list of tuples, which `Value` has not.
        return Some("!!set/!!pairs are a Python set or tuples in Salt, the mapping or sequence here");
    }
    if text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        // YAML 1.1 line breaks (NEL, LS, PS): saphyr (YAML 1.2) reads them as content. Rewriting
        // them would move every span, and no SLS file holds one outside a quoted string.
        return Some("NEL/LS/PS are line breaks to libyaml, content to saphyr");
    }
    if text.char_indices().any(|(i, c)| c == '\u{feff}' && i > 0) {
        // A BOM inside the text: libyaml takes it as content there, saphyr refuses it.
        return Some("a BOM after the start is content to libyaml, an error to saphyr");
    }
    None
}

/// The texts of `open.jsonl`: disagreements a campaign found that are not fixed yet (the
/// worklist; `tests/conformance/yaml/README.md`). A generated case with one of these texts is
/// counted and listed as open, not failed; any other disagreement fails.
fn open_texts() -> std::collections::HashSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/conformance/yaml/open.jsonl");
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Json>(l).expect("open.jsonl is JSONL")["text"].as_str().expect("a text").to_string())
        .collect()
}

struct Tally {
    total: usize,
    rejects_both: usize,
    same_line: usize,
    gaps: Vec<String>,
    mismatches: Vec<String>,
    /// Each mismatching case's JSON line with `"ours"` added (for `SALT_YAML_DISAGREEMENTS`).
    lines: Vec<String>,
}

fn replay(path: &str, open: &std::collections::HashSet<String>) -> Tally {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let mut t = Tally { total: 0, rejects_both: 0, same_line: 0, gaps: Vec::new(), mismatches: Vec::new(), lines: Vec::new() };
    for (lineno, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Json = serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}:{}: bad JSON: {e}", lineno + 1));
        t.total += 1;
        let yaml_text = case["text"].as_str().unwrap_or_else(|| panic!("{path}:{}: no text", lineno + 1));
        let salt = &case["salt"];
        let ours = yaml::load(yaml_text);
        let agree = match (&ours, salt.get("value")) {
            (Ok(node), Some(want)) => same(&typed(node), want),
            (Err(e), None) => {
                t.rejects_both += 1;
                let our_line = yaml_text[..e.offset.min(yaml_text.len())].matches('\n').count() + 1;
                if salt.get("line").and_then(Json::as_u64) == Some(our_line as u64) {
                    t.same_line += 1;
                }
                true
            }
            _ => false,
        };
        if agree {
            continue;
        }
        let ours_shown = match &ours {
            Ok(node) => typed(node).to_string(),
            Err(e) => format!("error at byte {}: {}", e.offset, e.message),
        };
        let report = format!(
            "{path}:{}: {} seed {}\n    text: {}\n    salt: {salt}\n    ours: {ours_shown}",
            lineno + 1,
            case["kind"].as_str().unwrap_or("?"),
            case["seed"],
            Json::String(yaml_text.to_string()),
        );
        let why = known_gap(yaml_text, salt).or_else(|| open.contains(yaml_text).then_some("open (open.jsonl)"));
        match why {
            Some(why) => t.gaps.push(format!("{why}: {report}")),
            None => {
                t.mismatches.push(report);
                let mut case = case.clone();
                case["ours"] = Json::String(ours_shown);
                t.lines.push(case.to_string());
            }
        }
    }
    eprintln!(
        "{path}: {} of {} cases agree with Salt, {} known or open gaps; {} rejected by both, {} of them at Salt's line",
        t.total - t.gaps.len() - t.mismatches.len(),
        t.total,
        t.gaps.len(),
        t.rejects_both,
        t.same_line
    );
    for g in &t.gaps {
        eprintln!("known gap: {g}");
    }
    // The campaign (`gen_cases.py --campaign`) collects the disagreements from here.
    if let Ok(out) = std::env::var("SALT_YAML_DISAGREEMENTS") {
        let body: String = t.lines.iter().map(|l| format!("{l}\n")).collect();
        fs::write(&out, body).unwrap_or_else(|e| panic!("cannot write {out}: {e}"));
    }
    t
}

#[test]
fn committed_regressions_agree_with_salt() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/conformance/yaml/regressions.jsonl");
    let t = replay(path, &Default::default());
    assert!(t.total >= 20, "{path} has only {} cases", t.total);
    assert!(t.mismatches.is_empty(), "{} of {} cases differ from Salt:\n{}", t.mismatches.len(), t.total, t.mismatches.join("\n"));
}

#[test]
#[ignore = "needs SALT_YAML_CASES from tests/conformance/yaml/gen_cases.py (real Salt); tests/run.sh runs it"]
fn generated_cases_agree_with_salt() {
    let path = std::env::var("SALT_YAML_CASES").expect("SALT_YAML_CASES names the case file tests/conformance/yaml/gen_cases.py writes (tests/run.sh sets it)");
    let t = replay(&path, &open_texts());
    assert!(t.total >= 1000, "{path} has only {} cases", t.total);
    assert!(t.mismatches.is_empty(), "{} of {} cases differ from Salt:\n{}", t.mismatches.len(), t.total, t.mismatches.join("\n"));
}
