//! The databases SQL ext_pillar entries read, as a boundary like the file system's: a
//! [`SqlConnector`] opens one (read-only) for a module from the master options, and a
//! [`SqlCursor`] runs one query with the minion id as its bound parameter. The adapters
//! (SQLite, PostgreSQL, MySQL) live in the `salt-extpillar` crate; the model does no I/O.

use std::sync::Arc;

use serde_json::Value;

use crate::value::Val;

/// What one query returned: the column names and the rows, as Python's DB-API gives them
/// (`None`, int, float, str).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Val>>,
}

/// Runs a query with the minion id as its one bound parameter (`cursor.execute(q,
/// (minion_id,))`). An error is the database's message.
pub trait SqlCursor {
    fn query(&mut self, sql: &str, minion_id: &str) -> Result<QueryResult, String>;
}

/// Opens a database for an SQL ext_pillar module, from the master options it reads
/// (`opts["postgres"]`, `opts["mysql"]`, `opts["sqlite3"]`), read-only.
pub trait SqlConnector: Send + Sync {
    fn open(&self, module: &str, opts: &Value) -> Result<Box<dyn SqlCursor>, String>;
}

/// A shared connector, as a workspace holds it.
#[derive(Clone)]
pub struct Databases(pub Arc<dyn SqlConnector>);

impl std::fmt::Debug for Databases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Databases")
    }
}
