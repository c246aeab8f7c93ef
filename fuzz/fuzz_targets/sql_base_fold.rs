//! The sql_base ext_pillar's row folding (`pillar::sql_base`, Salt's `SqlBaseExtPillar`): any
//! queries and options (`depth`, `as_list`, `with_lists`, `ignore_null`, `as_json`, roots) over
//! any columns and rows. The input is JSON `[args, kwargs, columns, rows]`; every query is
//! answered with that one table, and a query text `error` with a database error. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use model::pillar::sql_base::{self, QueryResult, SqlCursor};
use model::value::Val;
use serde_json::{Map, Value};

struct Table<'a> {
    columns: &'a [String],
    rows: &'a [Vec<Val>],
}

impl SqlCursor for Table<'_> {
    fn query(&mut self, sql: &str, _minion_id: &str) -> Result<QueryResult, String> {
        if sql == "error" {
            return Err("OperationalError: no such table".into());
        }
        Ok(QueryResult { columns: self.columns.to_vec(), rows: self.rows.to_vec() })
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(parts)) = serde_json::from_slice::<Value>(data) else { return };
    let [args, kwargs, columns, rows] = parts.as_slice() else { return };
    let args: &[Value] = match args {
        Value::Array(a) => a,
        other => std::slice::from_ref(other),
    };
    let empty = Map::new();
    let kwargs = kwargs.as_object().unwrap_or(&empty);
    let columns: Vec<String> = columns.as_array().into_iter().flatten().map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string)).collect();
    // Rows as a database hands them over: as wide as the columns (a short row padded with
    // NULLs, a long one cut), at most 256 of them.
    let rows: Vec<Vec<Val>> = rows
        .as_array()
        .into_iter()
        .flatten()
        .take(256)
        .map(|r| {
            let cells = r.as_array().cloned().unwrap_or_else(|| vec![r.clone()]);
            (0..columns.len()).map(|i| Val::from_json(cells.get(i).unwrap_or(&Value::Null), None)).collect()
        })
        .collect();
    let mut table = Table { columns: &columns, rows: &rows };
    let _ = sql_base::fetch("m1", args, kwargs, &mut table);
    let _ = sql_base::fetch_until_db_error("m1", args, kwargs, &mut table);
});
