//! The configured `ext_pillar` list as Salt's master calls it (`Pillar.ext_pillar`,
//! `_external_pillar_data`): each entry's module and arguments (a dict is keyword queries, a
//! list positional ones, a scalar one positional argument), the SQL modules run through a
//! [`SqlConnector`] the caller provides (the model does no I/O), everything else reported as
//! not evaluated. Where each module swallows database errors (the connection's context
//! manager logs `DatabaseError` and keeps the rows so far) is kept too.

use serde_json::{Map, Value};

use crate::pillar::sql_base;
use crate::value::{Dict, Val};

/// The SQL ext_pillar modules salt-analyzer evaluates: `sqlite3` (Salt up to 3007),
/// `postgres` (Salt) and `mysql` (saltext-mysql).
pub const SQL_MODULES: &[&str] = &["sqlite3", "postgres", "mysql"];

/// One `ext_pillar` entry: the module and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtCall {
    pub module: String,
    pub args: Vec<Value>,
    pub kwargs: Map<String, Value>,
}

/// The entries of `opts["ext_pillar"]` in order (`- module: config`), each as Salt passes its
/// config: a dict as keyword arguments, a list as positional ones, anything else as one
/// positional argument. Entries that are not one-key mappings are skipped, as Salt skips them.
pub fn calls(opts: &Value) -> Vec<ExtCall> {
    let mut out = Vec::new();
    for entry in opts.get("ext_pillar").and_then(Value::as_array).into_iter().flatten() {
        let Some(map) = entry.as_object() else { continue };
        for (module, config) in map {
            let (args, kwargs) = match config {
                Value::Object(kw) => (Vec::new(), kw.clone()),
                Value::Array(items) => (items.clone(), Map::new()),
                other => (vec![other.clone()], Map::new()),
            };
            out.push(ExtCall { module: module.clone(), args, kwargs });
        }
    }
    out
}

pub use crate::workspace::sql::SqlConnector;

/// What one ext_pillar entry gave: its data (`{}` when it failed), and what to tell the user
/// (a database that could not be opened or queried, a module not evaluated), never with a
/// password in it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtResult {
    pub module: String,
    pub data: Val,
    pub problem: Option<ExtProblem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtProblem {
    /// A module salt-analyzer does not evaluate.
    NotEvaluated,
    /// The database could not be opened (the whole entry is `{}`).
    Unavailable(String),
    /// A query failed: Salt logs it and keeps the rows of the queries before it.
    QueryFailed(String),
    /// The module raised (a bad option): Salt reports the ext_pillar as failed.
    Raised(String),
    /// A query with no placeholder for the minion id, which Salt always binds as the one
    /// parameter: the database refuses it, or Salt's driver does, and the query gives nothing.
    Unbound(String),
}

/// The placeholder the module's driver takes for the bound minion id: `?` for SQLite, `%s`
/// for the MySQL and PostgreSQL drivers.
fn placeholder(module: &str) -> &'static str {
    if module == "sqlite3" {
        "?"
    } else {
        "%s"
    }
}

/// Runs one SQL ext_pillar entry for `minion_id`.
pub fn evaluate(call: &ExtCall, opts: &Value, minion_id: &str, connector: Option<&dyn SqlConnector>) -> ExtResult {
    let empty = || Val::dict(Dict::new());
    if !SQL_MODULES.contains(&call.module.as_str()) {
        return ExtResult { module: call.module.clone(), data: empty(), problem: Some(ExtProblem::NotEvaluated) };
    }
    let Some(connector) = connector else {
        return ExtResult { module: call.module.clone(), data: empty(), problem: Some(ExtProblem::NotEvaluated) };
    };
    let mut cursor = match connector.open(&call.module, opts) {
        Ok(c) => c,
        Err(e) => return ExtResult { module: call.module.clone(), data: empty(), problem: Some(ExtProblem::Unavailable(e)) },
    };
    // The context manager swallows a database error and `fetch` returns what it had: the
    // rows of the queries that ran before the failing one.
    match sql_base::fetch_until_db_error(minion_id, &call.args, &call.kwargs, &mut *cursor) {
        Ok((data, None)) => ExtResult { module: call.module.clone(), data, problem: None },
        Ok((data, Some(e))) => ExtResult { module: call.module.clone(), data, problem: Some(ExtProblem::QueryFailed(e)) },
        Err(e) => ExtResult { module: call.module.clone(), data: empty(), problem: Some(ExtProblem::Raised(e.0)) },
    }
}

/// What [`ext_pillar`] tells beside the data: Salt's `_errors` entry (when Salt reports the
/// entry as failed) and the finding for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtIssue {
    pub salt: Option<String>,
    pub module: String,
    pub problem: ExtProblem,
}

/// What evaluates the `n`th `- git:` entry (git_pillar, `pillar::git`): its data, or the
/// message it raised; `None` when git_pillar is not served (not evaluated).
pub type GitPillarFn<'a> = dyn FnMut(usize) -> Option<Result<Value, String>> + 'a;

/// `Pillar.ext_pillar(pillar, errors)`: every entry of `opts["ext_pillar"]` run for the minion
/// and merged into `pillar` in order with the pillar merge options (`merge`); an entry with no
/// data (or that raised) merges nothing. `git` runs the `- git:` entries.
pub fn ext_pillar(
    mut pillar: Value,
    opts: &Value,
    minion_id: &str,
    connector: Option<&dyn SqlConnector>,
    merge: &dyn Fn(&mut Value, &Value) -> Result<Value, crate::py::dictupdate::MergeError>,
    git: &mut GitPillarFn,
) -> (Value, Vec<ExtIssue>) {
    let mut issues = Vec::new();
    match opts.get("ext_pillar") {
        None | Some(Value::Null) => return (pillar, issues),
        Some(Value::Array(_)) => {}
        Some(_) => {
            let msg = "The \"ext_pillar\" option is malformed".to_string();
            issues.push(ExtIssue { salt: Some(msg.clone()), module: String::new(), problem: ExtProblem::Raised(msg) });
            return (pillar, issues);
        }
    }
    let excluded: Vec<&str> = opts.get("exclude_ext_pillar").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut ext: Option<Value> = None;
    let mut gits = 0;
    for entry in opts["ext_pillar"].as_array().into_iter().flatten() {
        let Some(map) = entry.as_object() else {
            let msg = "The \"ext_pillar\" option is malformed".to_string();
            issues.push(ExtIssue { salt: Some(msg.clone()), module: String::new(), problem: ExtProblem::Raised(msg) });
            return (Value::Object(Map::new()), issues);
        };
        let git_index = map.contains_key("git").then(|| {
            gits += 1;
            gits - 1
        });
        if map.keys().next().is_some_and(|k| excluded.contains(&k.as_str())) {
            continue;
        }
        for call in calls(&serde_json::json!({"ext_pillar": [entry]})) {
            if let (Some(n), "git") = (git_index, call.module.as_str()) {
                match git(n) {
                    Some(Ok(data)) => ext = Some(data),
                    Some(Err(e)) => issues.push(ExtIssue {
                        salt: Some(format!("Failed to load ext_pillar git: {e}")),
                        module: "git".into(),
                        problem: ExtProblem::Raised(e),
                    }),
                    None => issues.push(ExtIssue { salt: None, module: "git".into(), problem: ExtProblem::NotEvaluated }),
                }
                continue;
            }
            let before = issues.len();
            if SQL_MODULES.contains(&call.module.as_str()) {
                for q in sql_base::extract_queries(&call.args, &call.kwargs).unwrap_or_default() {
                    if !q.query.contains(placeholder(&call.module)) {
                        issues.push(ExtIssue { salt: None, module: call.module.clone(), problem: ExtProblem::Unbound(q.query.clone()) });
                    }
                }
            }
            // The database's refusal of an unbound query is that same finding: one warning.
            let unbound = issues.len() > before;
            let r = evaluate(&call, opts, minion_id, connector);
            match r.problem {
                None => ext = Some(r.data.to_json()),
                Some(ExtProblem::QueryFailed(e)) => {
                    ext = Some(r.data.to_json());
                    if !unbound {
                        issues.push(ExtIssue { salt: None, module: call.module.clone(), problem: ExtProblem::QueryFailed(e) });
                    }
                }
                Some(ExtProblem::NotEvaluated) => issues.push(ExtIssue { salt: None, module: call.module.clone(), problem: ExtProblem::NotEvaluated }),
                Some(p @ (ExtProblem::Unavailable(_) | ExtProblem::Raised(_) | ExtProblem::Unbound(_))) => {
                    let text = match &p {
                        ExtProblem::Unavailable(e) | ExtProblem::Raised(e) | ExtProblem::Unbound(e) => e.clone(),
                        _ => String::new(),
                    };
                    issues.push(ExtIssue { salt: Some(format!("Failed to load ext_pillar {}: {text}", call.module)), module: call.module.clone(), problem: p });
                }
            }
        }
        if let Some(data) = ext.take().filter(|d| d.as_object().is_some_and(|m| !m.is_empty())) {
            if let Ok(merged) = merge(&mut pillar, &data) {
                pillar = merged;
            }
        }
    }
    (pillar, issues)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pillar::sql_base::{QueryResult, SqlCursor};
    use serde_json::json;

    struct Db {
        fail_open: bool,
    }

    struct Rows;

    impl SqlCursor for Rows {
        fn query(&mut self, sql: &str, minion_id: &str) -> Result<QueryResult, String> {
            match sql {
                "ok" => Ok(QueryResult { columns: vec!["k".into(), "v".into()], rows: vec![vec![Val::str("ß"), Val::str(minion_id)]] }),
                _ => Err(format!("no such table: {sql}")),
            }
        }
    }

    impl SqlConnector for Db {
        fn open(&self, _module: &str, _opts: &Value) -> Result<Box<dyn SqlCursor>, String> {
            if self.fail_open {
                Err("cannot connect to PostgreSQL database salt on localhost as salt: password authentication failed".into())
            } else {
                Ok(Box::new(Rows))
            }
        }
    }

    /// A query without the driver's placeholder gets one warning that says why it gives
    /// nothing, instead of the database's refusal.
    #[test]
    fn a_query_without_a_placeholder_is_one_finding() {
        struct Strict;
        impl SqlCursor for Strict {
            fn query(&mut self, sql: &str, minion_id: &str) -> Result<QueryResult, String> {
                match sql.contains('?') {
                    true => Ok(QueryResult { columns: vec!["k".into(), "v".into()], rows: vec![vec![Val::str("id"), Val::str(minion_id)]] }),
                    false => Err("Incorrect number of bindings supplied. The current statement uses 0, and there are 1 supplied.".into()),
                }
            }
        }
        struct StrictDb;
        impl SqlConnector for StrictDb {
            fn open(&self, _module: &str, _opts: &Value) -> Result<Box<dyn SqlCursor>, String> {
                Ok(Box::new(Strict))
            }
        }
        let opts = json!({"ext_pillar": [{"sqlite3": ["select k, v from t where id = ?", "select k, v from ß"]}]});
        let merge = |a: &mut Value, b: &Value| crate::py::dictupdate::merge(a, b, "smart", "yaml", false);
        let (pillar, issues) = ext_pillar(json!({}), &opts, "m1", Some(&StrictDb), &merge, &mut |_| None);
        assert_eq!(pillar, json!({"id": "m1"}));
        assert_eq!(issues.iter().map(|i| i.problem.clone()).collect::<Vec<_>>(), vec![ExtProblem::Unbound("select k, v from ß".into())]);
    }

    /// docs/salt/pillar-and-sql-base.md §3 (`salt/pillar/__init__.py` `Pillar._external_pillar_data`): a dict is keyword
    /// queries, a list positional ones, a scalar one positional query; a failing query keeps the rows before it; other modules
    /// are not evaluated.
    #[test]
    fn entries_are_called_as_salt_calls_them() {
        let opts = json!({"ext_pillar": [
            {"postgres": ["ok", "missing", "ok"]},
            {"mysql": {"main": "ok"}},
            {"sqlite3": "ok"},
            {"git": "master https://example.com/pillar.git"},
            "not-a-mapping",
        ]});
        let calls = calls(&opts);
        let shown: Vec<String> = calls
            .iter()
            .map(|c| {
                let r = evaluate(c, &opts, "web01", Some(&Db { fail_open: false }));
                format!("{} args={} kwargs={} -> {} {:?}", c.module, json!(c.args), json!(c.kwargs), r.data.to_json(), r.problem)
            })
            .collect();
        expect_test::expect![[r#"
            [
                "postgres args=[\"ok\",\"missing\",\"ok\"] kwargs={} -> {\"ß\":\"web01\"} Some(QueryFailed(\"no such table: missing\"))",
                "mysql args=[] kwargs={\"main\":\"ok\"} -> {\"main\":{\"ß\":\"web01\"}} None",
                "sqlite3 args=[\"ok\"] kwargs={} -> {\"ß\":\"web01\"} None",
                "git args=[\"master https://example.com/pillar.git\"] kwargs={} -> {} Some(NotEvaluated)",
            ]
        "#]]
        .assert_debug_eq(&shown);
        let down = evaluate(&calls[0], &opts, "web01", Some(&Db { fail_open: true }));
        assert_eq!(down.data.to_json(), json!({}));
        assert!(matches!(down.problem, Some(ExtProblem::Unavailable(_))));
    }
}
