//! Replays SQL ext_pillar cases computed by Salt's own `SqlBaseExtPillar` over SQLite
//! (`tests/conformance/sql_base_cases.py`) against `salt_model::pillar::sql_base`, and fails
//! listing every case whose dict (its keys' and values' types and order included) differs.
//!
//! The case file is named by `SALT_SQL_BASE_CASES`, which only the project's test script
//! (`tests/run.sh`) makes: the test is ignored by a plain `cargo test` rather than passing
//! without checking anything, and run with `--ignored` by the script, where a missing file fails.

use std::fs;

use salt_model::pillar::sql_base::{fetch, QueryResult, SqlCursor};
use salt_model::value::{Val, V};
use serde_json::{json, Value};

/// What each query returned for the minion, as Salt's cursor saw it.
struct Recorded<'a>(&'a serde_json::Map<String, Value>);

impl SqlCursor for Recorded<'_> {
    fn query(&mut self, sql: &str, _minion_id: &str) -> Result<QueryResult, String> {
        let r = self.0.get(sql).ok_or_else(|| format!("not recorded: {sql}"))?;
        if let Some(e) = r.get("error") {
            return Err(e.as_str().unwrap_or_default().to_string());
        }
        let columns = r["columns"].as_array().into_iter().flatten().map(|c| c.as_str().unwrap_or_default().to_string()).collect();
        let rows =
            r["rows"].as_array().into_iter().flatten().map(|row| row.as_array().into_iter().flatten().map(|v| Val::from_json(v, None)).collect()).collect();
        Ok(QueryResult { columns, rows })
    }
}

/// The typed encoding the case file uses for Python values.
fn typed(v: &Val) -> Value {
    match &v.v {
        V::Dict(d) => json!({"dict": d.0.iter().map(|(k, v)| json!([typed(k), typed(v)])).collect::<Vec<_>>()}),
        V::List(l) => json!({"list": l.iter().map(typed).collect::<Vec<_>>()}),
        V::Bool(b) => json!({ "bool": b }),
        V::Int(i) => json!({ "int": i }),
        V::Float(f) => json!({ "float": f }),
        V::Str(s) => json!({ "str": s }),
        V::None => json!({ "none": null }),
    }
}

#[test]
#[ignore = "needs SALT_SQL_BASE_CASES from tests/conformance/sql_base_cases.py (real Salt); tests/run.sh runs it"]
fn sql_base_agrees_with_salt() {
    let path = std::env::var("SALT_SQL_BASE_CASES")
        .expect("SALT_SQL_BASE_CASES names the case file tests/conformance/sql_base_cases.py writes (tests/run.sh sets it)");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let (mut total, mut raised) = (0, 0);
    let mut mismatches = Vec::new();
    for (lineno, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}:{}: bad JSON: {e}", lineno + 1));
        total += 1;
        let args = case["args"].as_array().cloned().unwrap_or_default();
        let kwargs = case["kwargs"].as_object().cloned().unwrap_or_default();
        let results = case["results"].as_object().cloned().unwrap_or_default();
        let ours = fetch("m1", &args, &kwargs, &mut Recorded(&results));
        let agree = match (&ours, case["raises"].as_str()) {
            (Err(_), Some(_)) => {
                raised += 1;
                true
            }
            (Ok(v), None) => typed(v) == case["expected"],
            _ => false,
        };
        if !agree {
            let ours = match &ours {
                Ok(v) => typed(v).to_string(),
                Err(e) => format!("raises {e}"),
            };
            mismatches.push(format!("line {}:\n    salt: {}{}\n    ours: {ours}\n    case: {line}", lineno + 1, case["expected"], case["raises"]));
        }
    }
    assert!(total >= 300, "{path} has {total} cases; the suite needs at least 300");
    assert!(mismatches.is_empty(), "{} of {total} cases differ from Salt:\n{}", mismatches.len(), mismatches.join("\n"));
    eprintln!("sql_base conformance: {total} cases identical to Salt ({raised} where both raise)");
}
