//! Salt's SQL ext_pillar processing (`salt/pillar/sql_base.py`, `SqlBaseExtPillar`): the
//! configured queries normalised (`extract_queries`), each run with the minion id as its one
//! bound parameter, and the rows folded into the pillar dict (`process_fields`,
//! `process_results`: key columns, named fields, `as_list`, `with_lists`, `ignore_null`,
//! `as_json`, roots), exactly as docs/salt/pillar-and-sql-base.md §4-§6 says, quirks included.
//! Running a query is the caller's: a [`SqlCursor`] (the database adapters live outside the
//! model).

use serde_json::{Map, Value};

use crate::py::builtins::truthy;
use crate::value::{Dict, Val, V};

pub use crate::workspace::sql::{QueryResult, SqlCursor};

/// One normalised query (`extract_queries`): its root (the keyword it was given under, if
/// any) and its options as configured (Python truthiness decides the flags).
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub root: Option<String>,
    pub query: String,
    pub depth: Value,
    pub as_list: bool,
    pub as_json: bool,
    /// `None` when not given or falsy; a string was split into ints.
    pub with_lists: Option<Value>,
    pub ignore_null: bool,
}

/// Why the ext_pillar raised (Python's exception and message); Salt then reports the
/// ext_pillar as failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError(pub String);

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn type_error(msg: impl Into<String>) -> SqlError {
    SqlError(format!("TypeError: {}", msg.into()))
}

/// `extract_queries(args, kwargs)`: positional queries first, then keyword queries sorted by
/// key; empty ones dropped; strings, lists (`[query, depth]`) and dicts normalised.
pub fn extract_queries(args: &[Value], kwargs: &Map<String, Value>) -> Result<Vec<Query>, SqlError> {
    let mut keys: Vec<&String> = kwargs.keys().collect();
    keys.sort();
    let all = args.iter().map(|q| (None, q)).chain(keys.into_iter().map(|k| (Some(k.clone()), &kwargs[k])));
    let mut out = Vec::new();
    for (root, q) in all {
        let kept = match q {
            Value::String(s) => !s.is_empty(),
            Value::Array(items) => items.first().is_some_and(truthy),
            Value::Object(m) => m.get("query").is_some_and(|q| match q {
                Value::String(s) => !s.is_empty(),
                Value::Array(a) => !a.is_empty(),
                Value::Object(o) => !o.is_empty(),
                // `len()` of a number or None raises.
                _ => false,
            }),
            _ => false,
        };
        if !kept {
            continue;
        }
        let mut query = Query { root, query: String::new(), depth: Value::from(0), as_list: false, as_json: false, with_lists: None, ignore_null: false };
        match q {
            Value::String(s) => query.query = s.clone(),
            Value::Array(items) => {
                query.query = items[0].as_str().map(str::to_string).unwrap_or_else(|| crate::py::builtins::str_of(&items[0]));
                if let Some(depth) = items.get(1) {
                    query.depth = depth.clone();
                }
            }
            Value::Object(m) => {
                if let Some(q) = m.get("query") {
                    query.query = q.as_str().map(str::to_string).unwrap_or_else(|| crate::py::builtins::str_of(q));
                }
                if let Some(d) = m.get("depth") {
                    query.depth = d.clone();
                }
                query.as_list = m.get("as_list").is_some_and(truthy);
                query.as_json = m.get("as_json").is_some_and(truthy);
                query.ignore_null = m.get("ignore_null").is_some_and(truthy);
                query.with_lists = match m.get("with_lists").filter(|w| truthy(w)) {
                    Some(Value::String(s)) => {
                        let ints: Result<Vec<Value>, SqlError> = s.split(',').map(|p| py_int(p).map(Value::from)).collect();
                        Some(Value::Array(ints?))
                    }
                    other => other.cloned(),
                };
            }
            _ => {}
        }
        out.push(query);
    }
    Ok(out)
}

/// Python's `int(s)` of a string: surrounding whitespace and `_` between digits allowed.
fn py_int(s: &str) -> Result<i64, SqlError> {
    crate::py::builtins::parse_int(s)
        .and_then(|i| i64::try_from(i).ok())
        .ok_or_else(|| SqlError(format!("ValueError: invalid literal for int() with base 10: {}", crate::py::builtins::repr_str(s))))
}

/// `SqlBaseExtPillar.fetch(minion_id, pillar, *args, **kwargs)`: every query run through
/// `cursor` and folded into one dict. A database error stops there (the caller decides
/// whether the data so far counts, as each Salt module does).
pub fn fetch(minion_id: &str, args: &[Value], kwargs: &Map<String, Value>, cursor: &mut dyn SqlCursor) -> Result<Val, SqlError> {
    match fetch_until_db_error(minion_id, args, kwargs, cursor)? {
        (data, None) => Ok(data),
        (_, Some(e)) => Err(SqlError(e)),
    }
}

/// [`fetch`] as the ext_pillar modules run it: their cursor's context manager logs a database
/// error and swallows it, so the data of the queries before it is the result; the error is
/// returned beside it. Anything else the processing raises is still an error.
pub fn fetch_until_db_error(
    minion_id: &str,
    args: &[Value],
    kwargs: &Map<String, Value>,
    cursor: &mut dyn SqlCursor,
) -> Result<(Val, Option<String>), SqlError> {
    let queries = extract_queries(args, kwargs)?;
    let mut result = Val::dict(Dict::new());
    for q in &queries {
        let found = match cursor.query(&q.query, minion_id) {
            Ok(found) => found,
            Err(e) => return Ok((result, Some(e))),
        };
        // `enter_root`: a truthy root replaces whatever was under that key.
        let focus: Vec<Step> = match q.root.as_deref().filter(|r| !r.is_empty()) {
            Some(root) => {
                dict_mut(&mut result).set(Val::str(root), Val::dict(Dict::new()));
                vec![Step::Key(Val::str(root))]
            }
            None => Vec::new(),
        };
        let with_lists = q.with_lists.clone().unwrap_or(Value::Array(Vec::new()));
        let depth = process_fields(found.columns.len(), &q.depth)?;
        Results { q, depth, with_lists: &with_lists, names: &found.columns }.process(&mut result, &focus, &found.rows)?;
    }
    Ok((result, None))
}

/// `process_fields`: a depth of 0 or of the column count or more means every column but the
/// last is a key.
fn process_fields(num_fields: usize, depth: &Value) -> Result<i64, SqlError> {
    let n = num_fields as i64;
    let d = match depth {
        Value::Bool(b) => *b as i64,
        Value::Number(x) => match x.as_i64() {
            Some(i) => i,
            None if x.as_f64() == Some(0.0) => 0,
            None => return Err(type_error("'float' object cannot be interpreted as an integer")),
        },
        other => {
            return Err(type_error(format!("'>=' not supported between instances of '{}' and 'int'", crate::py::builtins::type_name(other))));
        }
    };
    Ok(if d == 0 || d >= n { n - 1 } else { d })
}

/// A step from the pillar's top to a nested dict: a key, or an index into a list.
#[derive(Debug, Clone)]
enum Step {
    Key(Val),
    Index(usize),
}

fn dict_mut(v: &mut Val) -> &mut Dict {
    if !matches!(v.v, V::Dict(_)) {
        v.v = V::Dict(Dict::new());
    }
    match &mut v.v {
        V::Dict(d) => d,
        _ => unreachable!("made a dict above"),
    }
}

/// The value at `path` (every step exists: the walk made it).
fn at_mut<'a>(root: &'a mut Val, path: &[Step]) -> Option<&'a mut Val> {
    let mut cur = root;
    for step in path {
        cur = match (step, &mut cur.v) {
            (Step::Key(k), V::Dict(d)) => {
                let i = d.0.iter().position(|(key, _)| key == k)?;
                &mut d.0[i].1
            }
            (Step::Index(i), V::List(l)) => l.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Python's `seq[i]`, negative indexes from the end.
fn py_index<T>(items: &[T], i: i64) -> Result<&T, SqlError> {
    let at = if i < 0 { items.len() as i64 + i } else { i };
    usize::try_from(at).ok().and_then(|a| items.get(a)).ok_or_else(|| SqlError("IndexError: tuple index out of range".into()))
}

/// `n in with_lists`, with Python's `in`: a list's items by `==`, a dict's keys.
fn listed(with_lists: &Value, n: i64) -> Result<bool, SqlError> {
    let eq = |v: &Value| match v {
        Value::Bool(b) => *b as i64 == n,
        Value::Number(x) => x.as_f64() == Some(n as f64),
        _ => false,
    };
    match with_lists {
        Value::Array(items) => Ok(items.iter().any(eq)),
        // A dict's keys are strings here, never equal to an int.
        Value::Object(_) => Ok(false),
        other => Err(type_error(format!("argument of type '{}' is not iterable", crate::py::builtins::type_name(other)))),
    }
}

/// One query's rows, folded in (`process_results`).
struct Results<'a> {
    q: &'a Query,
    depth: i64,
    with_lists: &'a Value,
    names: &'a [String],
}

impl Results<'_> {
    /// Over 150 lines because it mirrors `SqlBaseExtPillar.process_results` in
    /// `salt/pillar/sql_base.py` step for step.
    fn process(&self, result: &mut Val, focus: &[Step], rows: &[Vec<Val>]) -> Result<(), SqlError> {
        let n = self.names.len() as i64;
        let d = self.depth;
        // The dicts whose keys turn into lists at the end, in first-seen order, with their keys.
        let mut listify: Vec<(Vec<Step>, Vec<Val>)> = Vec::new();
        let record = |listify: &mut Vec<(Vec<Step>, Vec<Val>)>, at: &[Step], key: &Val| {
            let i = match listify.iter().position(|(p, _)| same_path(p, at)) {
                Some(i) => i,
                None => {
                    listify.push((at.to_vec(), Vec::new()));
                    listify.len() - 1
                }
            };
            if !listify[i].1.contains(key) {
                listify[i].1.push(key.clone());
            }
        };
        for ret in rows {
            let mut crd: Vec<Step> = focus.to_vec();
            if self.q.as_json && n == 1 {
                let row = match &ret[0].v {
                    V::Str(s) => serde_json::from_str::<Value>(s).map_err(|e| SqlError(format!("JSONDecodeError: {e}")))?,
                    other => Val::new(other.clone()).to_json(),
                };
                if !row.is_object() {
                    let ty = crate::py::builtins::type_name(&row);
                    return Err(type_error(format!("as_json rows must decode to a dict, got {ty}")));
                }
                // `update(crd, row, merge_lists=as_list)`, key by key, so that what is under the
                // row's keys goes through the one dict-update there is (JSON) while the other
                // keys of `crd` (ints, None from other queries) stay what they are.
                let here = dict_mut(at_mut(result, &crd).ok_or_else(|| SqlError("KeyError".into()))?);
                for (k, v) in row.as_object().into_iter().flatten() {
                    let key = Val::str(k.as_str());
                    let merged = match here.get_val(&key) {
                        Some(existing) => {
                            let mut one = Map::new();
                            one.insert(k.clone(), marked_json(existing));
                            let upd = Map::from_iter([(k.clone(), v.clone())]);
                            crate::py::dictupdate::update_map(&mut one, &upd, true, self.q.as_list, false).map_err(|e| SqlError(e.to_string()))?;
                            one.remove(k).unwrap_or(Value::Null)
                        }
                        None => v.clone(),
                    };
                    here.set(key, from_marked_json(&merged));
                }
                continue;
            }
            for i in 0..(d - 1).max(0) {
                let k = py_index(ret, i)?.clone();
                if listed(self.with_lists, i + 1)? {
                    record(&mut listify, &crd, &k);
                }
                let here = dict_mut(at_mut(result, &crd).ok_or_else(|| SqlError("KeyError".into()))?);
                match here.get_val(&k).map(|v| &v.v) {
                    None => {
                        here.set(k.clone(), Val::dict(Dict::new()));
                        crd.push(Step::Key(k));
                    }
                    Some(V::List(l)) => {
                        let at = l.len();
                        if let Some(Val { v: V::List(l), .. }) = here.0.iter_mut().find(|(key, _)| *key == k).map(|(_, v)| v) {
                            l.push(Val::dict(Dict::new()));
                        }
                        crd.push(Step::Key(k));
                        crd.push(Step::Index(at));
                    }
                    Some(V::Dict(_)) => crd.push(Step::Key(k)),
                    // Another value: with `as_list` kept beside a new dict, else replaced by one.
                    Some(_) if self.q.as_list => {
                        let old = here.get_val(&k).cloned().unwrap_or_else(|| Val::new(V::None));
                        here.set(k.clone(), Val::list(vec![old, Val::dict(Dict::new())]));
                        crd.push(Step::Key(k));
                        crd.push(Step::Index(1));
                    }
                    Some(_) => {
                        here.set(k.clone(), Val::dict(Dict::new()));
                        crd.push(Step::Key(k));
                    }
                }
            }
            if d == n - 1 {
                let nk = n - 2;
                let k = py_index(ret, nk)?.clone();
                let v = py_index(ret, n - 1)?.clone();
                let here = dict_mut(at_mut(result, &crd).ok_or_else(|| SqlError("KeyError".into()))?);
                let has = here.get_val(&k).is_some();
                if (self.q.as_list && has) || listed(self.with_lists, nk + 1)? {
                    let slot = match here.0.iter().position(|(key, _)| *key == k) {
                        Some(i) => i,
                        None => {
                            here.set(k.clone(), Val::list(Vec::new()));
                            here.0.len() - 1
                        }
                    };
                    let cur = &mut here.0[slot].1;
                    if !matches!(cur.v, V::List(_)) {
                        *cur = Val::list(vec![cur.clone()]);
                    }
                    if let V::List(l) = &mut cur.v {
                        l.push(v);
                    }
                } else if !self.q.ignore_null || !v.is_none() {
                    here.set(k, v);
                }
            } else {
                let k = py_index(ret, d - 1)?.clone();
                let here = dict_mut(at_mut(result, &crd).ok_or_else(|| SqlError("KeyError".into()))?);
                if here.get_val(&k).is_none() {
                    here.set(k.clone(), Val::dict(Dict::new()));
                }
                if listed(self.with_lists, d)? {
                    record(&mut listify, &crd, &k);
                }
                crd.push(Step::Key(k));
                for i in d..n {
                    let name = Val::str(py_index(self.names, i)?.as_str());
                    if listed(self.with_lists, i + 1)? {
                        record(&mut listify, &crd, &name);
                    }
                    let value = py_index(ret, i)?.clone();
                    let here = at_mut(result, &crd).ok_or_else(|| SqlError("KeyError".into()))?;
                    // `crd` is whatever was under the key: not always a dict.
                    let V::Dict(here) = &mut here.v else {
                        return Err(type_error(format!("'{}' object does not support item assignment", here.py_type())));
                    };
                    let existing = here.0.iter().position(|(key, _)| *key == name);
                    match existing {
                        Some(i) if self.q.as_list => {
                            let cur = &mut here.0[i].1;
                            match &mut cur.v {
                                V::List(l) => l.push(value),
                                _ => *cur = Val::list(vec![cur.clone(), value]),
                            }
                        }
                        _ => {
                            if !self.q.ignore_null || !value.is_none() {
                                here.set(name, value);
                            }
                        }
                    }
                }
            }
        }
        // Inner dicts first: a dict's values become a list, a list is wrapped in one.
        for (path, keys) in listify.into_iter().rev() {
            let Some(Val { v: V::Dict(dict), .. }) = at_mut(result, &path) else { continue };
            for k in keys {
                let Some(value) = dict.0.iter_mut().find(|(key, _)| *key == k).map(|(_, v)| v) else {
                    return Err(SqlError(format!("KeyError: {}", k.py_repr())));
                };
                match &value.v {
                    V::Dict(inner) => *value = Val::list(inner.0.iter().map(|(_, v)| v.clone()).collect()),
                    V::List(_) => *value = Val::list(vec![value.clone()]),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Marks a dict key that is not a string (a column's int, float or NULL) when a subtree goes
/// through the JSON dict update: no JSON text has it, so it neither meets a row's key nor
/// loses its type.
const KEY_MARK: &str = "\u{1}sql-key\u{1}";

/// `v` as JSON with its non-string keys marked ([`KEY_MARK`]).
fn marked_json(v: &Val) -> Value {
    match &v.v {
        V::Dict(d) => Value::Object(
            d.0.iter()
                .map(|(k, x)| {
                    let key = match &k.v {
                        V::Str(s) => s.clone(),
                        _ => format!("{KEY_MARK}{}", serde_json::to_string(&k.to_json()).unwrap_or_default()),
                    };
                    (key, marked_json(x))
                })
                .collect(),
        ),
        V::List(l) => Value::Array(l.iter().map(marked_json).collect()),
        _ => v.to_json(),
    }
}

/// [`marked_json`] back to a value, marked keys with their types again.
fn from_marked_json(j: &Value) -> Val {
    match j {
        Value::Object(m) => {
            let mut d = Dict::new();
            for (k, x) in m {
                let key = match k.strip_prefix(KEY_MARK).and_then(|t| serde_json::from_str::<Value>(t).ok()) {
                    Some(typed) => Val::from_json(&typed, None),
                    None => Val::str(k.as_str()),
                };
                d.set(key, from_marked_json(x));
            }
            Val::dict(d)
        }
        Value::Array(items) => Val::list(items.iter().map(from_marked_json).collect()),
        other => Val::from_json(other, None),
    }
}

/// Whether two walks lead to the same dict (Python compares the dicts' identities).
fn same_path(a: &[Step], b: &[Step]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Step::Key(p), Step::Key(q)) => p == q,
            (Step::Index(p), Step::Index(q)) => p == q,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Answers each query text with fixed rows, as an in-memory table would for minion `m1`.
    struct Fixed(Vec<(&'static str, QueryResult)>);

    impl SqlCursor for Fixed {
        fn query(&mut self, sql: &str, minion_id: &str) -> Result<QueryResult, String> {
            assert_eq!(minion_id, "m1");
            self.0.iter().find(|(q, _)| *q == sql).map(|(_, r)| r.clone()).ok_or_else(|| format!("no such table: {sql}"))
        }
    }

    fn val(v: &Value) -> Val {
        Val::from_json(v, None)
    }

    fn table(columns: &[&str], rows: Value) -> QueryResult {
        QueryResult {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: rows.as_array().unwrap().iter().map(|r| r.as_array().unwrap().iter().map(val).collect()).collect(),
        }
    }

    /// Python's `repr` of a plain dict result.
    fn py(v: &Val) -> String {
        match &v.v {
            V::Dict(d) => format!("{{{}}}", d.0.iter().map(|(k, v)| format!("{}: {}", py(k), py(v))).collect::<Vec<_>>().join(", ")),
            V::List(l) => format!("[{}]", l.iter().map(py).collect::<Vec<_>>().join(", ")),
            _ => v.py_repr(),
        }
    }

    fn run(cursor: &mut Fixed, args: Value, kwargs: Value) -> String {
        let kwargs = kwargs.as_object().cloned().unwrap_or_default();
        match fetch("m1", args.as_array().unwrap(), &kwargs, cursor) {
            Ok(v) => py(&v),
            Err(e) => format!("raises {e}"),
        }
    }

    /// docs/salt/pillar-and-sql-base.md §7, vectors 1-14 (produced by Salt's own
    /// `SqlBaseExtPillar.fetch`, `salt/pillar/sql_base.py`): table `t4(a,b,c,d)`.
    #[test]
    fn the_t4_vectors() {
        let t4 = || {
            Fixed(vec![(
                "SELECT a,b,c,d FROM t4",
                table(&["a", "b", "c", "d"], json!([["x", "y1", "z1", "v1"], ["x", "y2", "z2", "v2"], ["x", "y1", "z3", "v3"], ["x", "y1", "z1", "v4"]])),
            )])
        };
        let q = |opts: Value| {
            let mut o = opts.as_object().cloned().unwrap_or_default();
            o.insert("query".into(), json!("SELECT a,b,c,d FROM t4"));
            run(&mut t4(), json!([o]), json!({}))
        };
        let out: Vec<String> = [
            json!({}),
            json!({"depth": 3}),
            json!({"depth": 4}),
            json!({"as_list": true}),
            json!({"depth": 1}),
            json!({"depth": 1, "as_list": true}),
            json!({"depth": 2}),
            json!({"depth": 2, "as_list": true}),
            json!({"with_lists": "1"}),
            json!({"with_lists": "2"}),
            json!({"with_lists": "3"}),
            json!({"with_lists": "4"}),
            json!({"with_lists": "1,3"}),
            json!({"with_lists": "2,3"}),
            json!({"depth": 1, "with_lists": "1"}),
            json!({"depth": 2, "with_lists": "2"}),
        ]
        .into_iter()
        .map(q)
        .collect();
        expect_test::expect![[r#"
            [
                "{'x': {'y1': {'z1': 'v4', 'z3': 'v3'}, 'y2': {'z2': 'v2'}}}",
                "{'x': {'y1': {'z1': 'v4', 'z3': 'v3'}, 'y2': {'z2': 'v2'}}}",
                "{'x': {'y1': {'z1': 'v4', 'z3': 'v3'}, 'y2': {'z2': 'v2'}}}",
                "{'x': {'y1': {'z1': ['v1', 'v4'], 'z3': 'v3'}, 'y2': {'z2': 'v2'}}}",
                "{'x': {'b': 'y1', 'c': 'z1', 'd': 'v4'}}",
                "{'x': {'b': ['y1', 'y2', 'y1', 'y1'], 'c': ['z1', 'z2', 'z3', 'z1'], 'd': ['v1', 'v2', 'v3', 'v4']}}",
                "{'x': {'y1': {'c': 'z1', 'd': 'v4'}, 'y2': {'c': 'z2', 'd': 'v2'}}}",
                "{'x': {'y1': {'c': ['z1', 'z3', 'z1'], 'd': ['v1', 'v3', 'v4']}, 'y2': {'c': 'z2', 'd': 'v2'}}}",
                "{'x': [{'z1': 'v4', 'z3': 'v3'}, {'z2': 'v2'}]}",
                "{'x': {'y1': ['v4', 'v3'], 'y2': ['v2']}}",
                "{'x': {'y1': {'z1': ['v1', 'v4'], 'z3': ['v3']}, 'y2': {'z2': ['v2']}}}",
                "{'x': {'y1': {'z1': 'v4', 'z3': 'v3'}, 'y2': {'z2': 'v2'}}}",
                "{'x': [{'z1': ['v1', 'v4'], 'z3': ['v3']}, {'z2': ['v2']}]}",
                "{'x': {'y1': [['v1', 'v4'], ['v3']], 'y2': [['v2']]}}",
                "{'x': ['y1', 'z1', 'v4']}",
                "{'x': {'y1': ['z1', 'v4'], 'y2': ['z2', 'v2']}}",
            ]
        "#]]
        .assert_debug_eq(&out);
    }

    /// Vectors 15-24: roots, NULLs, a single column, scalars under keys, spare columns, the
    /// docstring's example and JSON rows.
    #[test]
    fn the_other_vectors() {
        let pv = || {
            let rows = json!([["default", "a", "1"], ["default", "b", "2"], ["m1", "a", "10"], ["m1", "b", null]]);
            let t = table(&["minion", "pillar", "value"], rows.clone());
            let pick = |who: &str| {
                let rows: Vec<Value> = rows.as_array().unwrap().iter().filter(|r| r[0] == who).map(|r| json!([r[1], r[2]])).collect();
                table(&["pillar", "value"], Value::Array(rows))
            };
            let names = table(&["pillar"], json!([["a"], ["b"]]));
            let _ = t;
            Fixed(vec![("defaults", pick("default")), ("mine", pick("m1")), ("names", names)])
        };
        let scalar_then_deep = || {
            Fixed(vec![
                ("scalar", table(&["k", "v"], json!([["a", "scalar"]]))),
                ("deep", table(&["k", "b", "v"], json!([["a", "b", "deep"]]))),
                ("y", table(&["k", "s", "v"], json!([["a", "y", 2]]))),
                ("x", table(&["k", "s", "v"], json!([["a", "x", 1]]))),
                ("k1", table(&["k1", "v"], json!([["a", "1"], ["a", "2"], ["a", "3"]]))),
                ("spare", table(&["k", "c1", "c2"], json!([["a", "x", null], ["a", null, "y"]]))),
                (
                    "doc",
                    table(
                        &["a", "b", "c", "d", "e", "f"],
                        json!([["a", "b", "c", "d", "e", 1], ["a", "b", "c", "f", "g", 2], ["a", "z", "h", "y", "j", 3], ["a", "z", "h", "y", "k", 4]]),
                    ),
                ),
                ("json", table(&["j"], json!([[r#"{"a":{"b":[1,2]},"c":3}"#], [r#"{"a":{"b":[1,3]},"d":4}"#]]))),
                ("badjson", table(&["j"], json!([["[1]"]]))),
                ("ints", table(&["k", "v"], json!([[1, 2.5]]))),
            ])
        };
        let out: Vec<String> = vec![
            run(&mut pv(), json!(["defaults", "mine"]), json!({})),
            run(&mut pv(), json!(["defaults", {"query": "mine", "ignore_null": true}]), json!({})),
            run(&mut pv(), json!([]), json!({"main": "mine", "extra": "defaults"})),
            run(&mut pv(), json!(["names"]), json!({})),
            run(&mut scalar_then_deep(), json!(["k1"]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "k1", "as_list": true}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "k1", "with_lists": "2"}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "k1", "with_lists": "1"}]), json!({})),
            run(&mut scalar_then_deep(), json!(["scalar", "deep"]), json!({})),
            run(&mut scalar_then_deep(), json!(["scalar", {"query": "deep", "as_list": true}]), json!({})),
            run(&mut scalar_then_deep(), json!(["y", "x"]), json!({})),
            run(&mut scalar_then_deep(), json!([["spare", 1]]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "spare", "depth": 1, "ignore_null": true}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "doc", "with_lists": "1,3"}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "doc", "depth": 5, "as_list": true, "with_lists": "1,3"}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "doc", "depth": 3, "with_lists": "1,3"}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "json", "as_json": true}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "json", "as_json": true, "as_list": true}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "badjson", "as_json": true}]), json!({})),
            run(&mut scalar_then_deep(), json!(["ints"]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "k1", "depth": "1"}]), json!({})),
            run(&mut scalar_then_deep(), json!([{"query": "k1", "with_lists": "1,x"}]), json!({})),
            run(&mut scalar_then_deep(), json!(["missing"]), json!({})),
        ];
        expect_test::expect![[r#"
            [
                "{'a': '10', 'b': None}",
                "{'a': '10', 'b': '2'}",
                "{'extra': {'a': '1', 'b': '2'}, 'main': {'a': '10', 'b': None}}",
                "{'a': 'a', 'b': 'b'}",
                "{'a': '3'}",
                "{'a': ['1', '2', '3']}",
                "{'a': '3'}",
                "{'a': ['1', '2', '3']}",
                "{'a': {'b': 'deep'}}",
                "{'a': ['scalar', {'b': 'deep'}]}",
                "{'a': {'y': 2, 'x': 1}}",
                "{'a': {'c1': None, 'c2': 'y'}}",
                "{'a': {'c1': 'x', 'c2': 'y'}}",
                "{'a': [{'c': [{'e': 1}, {'g': 2}]}, {'h': [{'j': 3, 'k': 4}]}]}",
                "{'a': [{'c': [{'e': 1}, {'g': 2}]}, {'h': [{'j': 3, 'k': 4}]}]}",
                "{'a': [{'c': ['f', 'g', 2]}, {'h': ['y', 'k', 4]}]}",
                "{'a': {'b': [1, 3]}, 'c': 3, 'd': 4}",
                "{'a': {'b': [1, 2, 3]}, 'c': 3, 'd': 4}",
                "raises TypeError: as_json rows must decode to a dict, got list",
                "{1: 2.5}",
                "raises TypeError: '>=' not supported between instances of 'str' and 'int'",
                "raises ValueError: invalid literal for int() with base 10: 'x'",
                "raises no such table: missing",
            ]
        "#]]
        .assert_debug_eq(&out);
    }

    /// docs/salt/pillar-and-sql-base.md §4 (`salt/pillar/sql_base.py` `extract_queries`): positional first, then keyword
    /// queries sorted by key; empty ones dropped; a list's third item ignored; unknown keys kept (and ignored).
    #[test]
    fn queries_are_extracted_as_salt_extracts_them() {
        let args = json!(["SELECT 1", "", ["SELECT 2", 3, true], [""], {"query": "SELECT 3", "as_list": true, "with_lists": "1,3", "extra": 9}]);
        let kwargs = json!({"zeta": "SELECT z", "alpha": {"query": "SELECT a", "depth": 2}, "empty": {"query": ""}, "nq": {"depth": 1}});
        let qs = extract_queries(args.as_array().unwrap(), kwargs.as_object().unwrap()).unwrap();
        let out: Vec<String> =
            qs.iter().map(|q| format!("{:?} {} depth={} as_list={} with_lists={:?}", q.root, q.query, q.depth, q.as_list, q.with_lists)).collect();
        expect_test::expect![[r#"
            [
                "None SELECT 1 depth=0 as_list=false with_lists=None",
                "None SELECT 2 depth=3 as_list=false with_lists=None",
                "None SELECT 3 depth=0 as_list=true with_lists=Some(Array [Number(1), Number(3)])",
                "Some(\"alpha\") SELECT a depth=2 as_list=false with_lists=None",
                "Some(\"zeta\") SELECT z depth=0 as_list=false with_lists=None",
            ]
        "#]]
        .assert_debug_eq(&out);
    }
}
