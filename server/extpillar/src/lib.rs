//! The database side of Salt's SQL ext_pillar modules: connections opened from the master
//! options each module reads (`sqlite3`, `postgres`, `mysql`), read-only, with a statement
//! timeout, running one query with the minion id as its bound parameter and giving the rows as
//! the module's Python driver would (`None`, int, float, str). The processing is
//! `salt_model::pillar::sql_base`; this crate is only the I/O behind its `SqlCursor` trait.
//! Errors never carry a password.

use std::time::Duration;

use model::pillar::ext::SqlConnector;
use model::pillar::sql_base::{QueryResult, SqlCursor};
use model::value::{Val, V};
use serde_json::Value;

/// How long one query may run.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// Opens the real databases.
#[derive(Debug, Default, Clone, Copy)]
pub struct Databases;

impl SqlConnector for Databases {
    fn open(&self, module: &str, opts: &Value) -> Result<Box<dyn SqlCursor>, String> {
        match module {
            "sqlite3" => Sqlite::open(opts).map(|c| Box::new(c) as Box<dyn SqlCursor>),
            "postgres" => Postgres::open(opts).map(|c| Box::new(c) as Box<dyn SqlCursor>),
            "mysql" => Mysql::open(opts).map(|c| Box::new(c) as Box<dyn SqlCursor>),
            other => Err(format!("no database adapter for ext_pillar `{other}`")),
        }
    }
}

/// The module's options (`opts[module]`, a nested mapping), each key from there or its default,
/// as each module's `_get_options` does.
fn option<'a>(opts: &'a Value, module: &str, key: &str) -> Option<&'a Value> {
    opts.get(module).and_then(|m| m.get(key))
}

fn text_option(opts: &Value, module: &str, key: &str, default: &str) -> String {
    match option(opts, module, key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => default.to_string(),
        Some(other) => other.to_string(),
    }
}

fn port_option(opts: &Value, module: &str, default: u16) -> Result<u16, String> {
    match option(opts, module, "port") {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .and_then(|p| u16::try_from(p).ok())
            .ok_or_else(|| format!("`{module}.port` is not a port number: {v}")),
    }
}

/// `%s` placeholders (the `format` paramstyle of psycopg2 and MySQLdb) as `placeholder`, `%%`
/// as `%`. Exactly one `%s`: the minion id is the only parameter.
fn one_placeholder(query: &str, placeholder: &str) -> Result<String, String> {
    let mut out = String::with_capacity(query.len());
    let mut chars = query.chars().peekable();
    let mut found = 0;
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('s')) => {
                chars.next();
                found += 1;
                out.push_str(placeholder);
            }
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            _ => out.push(c),
        }
    }
    match found {
        1 => Ok(out),
        0 => Err("the query has no %s for the minion id: not all arguments converted during string formatting".into()),
        _ => Err("the query has more than one %s, but only the minion id is passed: tuple index out of range".into()),
    }
}

/// `salt/pillar/sqlite3.py` (Salt up to 3007): `{database: /var/lib/salt/pillar.db, timeout:
/// 5.0}`, replaced by `opts["sqlite3"]` only when that mapping names a `database`; qmark `?`.
pub struct Sqlite {
    conn: rusqlite::Connection,
}

impl Sqlite {
    pub fn open(opts: &Value) -> Result<Sqlite, String> {
        let own = opts.get("sqlite3").filter(|o| o.get("database").is_some());
        let database = own.and_then(|o| o.get("database")).and_then(Value::as_str).unwrap_or("/var/lib/salt/pillar.db").to_string();
        let timeout = own.and_then(|o| o.get("timeout")).and_then(|t| t.as_f64().or_else(|| t.as_str().and_then(|s| s.trim().parse().ok()))).unwrap_or(5.0);
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX | rusqlite::OpenFlags::SQLITE_OPEN_URI;
        let conn = rusqlite::Connection::open_with_flags(&database, flags).map_err(|e| format!("cannot open SQLite database {database}: {e}"))?;
        conn.busy_timeout(Duration::from_secs_f64(timeout.clamp(0.0, 3600.0))).map_err(|e| e.to_string())?;
        // `query_only` refuses writes even through a statement that would try.
        conn.pragma_update(None, "query_only", true).map_err(|e| e.to_string())?;
        Ok(Sqlite { conn })
    }
}

impl SqlCursor for Sqlite {
    fn query(&mut self, sql: &str, minion_id: &str) -> Result<QueryResult, String> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| e.to_string())?;
        if stmt.parameter_count() != 1 {
            return Err(format!("Incorrect number of bindings supplied. The current statement uses {}, and there are 1 supplied.", stmt.parameter_count()));
        }
        let columns: Vec<String> = stmt.column_names().into_iter().map(str::to_string).collect();
        let n = columns.len();
        let mut rows = Vec::new();
        let mut found = stmt.query([minion_id]).map_err(|e| e.to_string())?;
        while let Some(row) = found.next().map_err(|e| e.to_string())? {
            let mut values = Vec::with_capacity(n);
            for i in 0..n {
                use rusqlite::types::ValueRef;
                let v = match row.get_ref(i).map_err(|e| e.to_string())? {
                    ValueRef::Null => V::None,
                    ValueRef::Integer(x) => V::Int(x),
                    ValueRef::Real(x) => V::Float(x),
                    ValueRef::Text(t) | ValueRef::Blob(t) => V::Str(String::from_utf8_lossy(t).into_owned()),
                };
                values.push(Val::new(v));
            }
            rows.push(values);
        }
        Ok(QueryResult { columns, rows })
    }
}

/// `salt/pillar/postgres.py`: `opts["postgres"]` `{host: localhost, user: salt, pass: salt, db:
/// salt, port: 5432}`; every query in a read-only transaction with a statement timeout.
pub struct Postgres {
    client: postgres::Client,
}

impl Postgres {
    pub fn open(opts: &Value) -> Result<Postgres, String> {
        let mut config = postgres::Config::new();
        let host = text_option(opts, "postgres", "host", "localhost");
        let user = text_option(opts, "postgres", "user", "salt");
        let db = text_option(opts, "postgres", "db", "salt");
        config
            .host(&host)
            .user(&user)
            .password(text_option(opts, "postgres", "pass", "salt"))
            .dbname(&db)
            .port(port_option(opts, "postgres", 5432)?)
            .connect_timeout(STATEMENT_TIMEOUT)
            .options(&format!("-c default_transaction_read_only=on -c statement_timeout={}", STATEMENT_TIMEOUT.as_millis()));
        // The error's text names host, user and database, never the password.
        let client =
            config.connect(postgres::NoTls).map_err(|e| format!("cannot connect to PostgreSQL database {db} on {host} as {user}: {}", pg_reason(&e)))?;
        Ok(Postgres { client })
    }
}

/// A PostgreSQL error's own message (what the server said), without the driver's wrapping.
fn pg_reason(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => e.to_string(),
    }
}

impl SqlCursor for Postgres {
    fn query(&mut self, sql: &str, minion_id: &str) -> Result<QueryResult, String> {
        let sql = one_placeholder(sql, "$1")?;
        let mut tx = self.client.build_transaction().read_only(true).start().map_err(|e| pg_reason(&e))?;
        let stmt = tx.prepare(&sql).map_err(|e| pg_reason(&e))?;
        let columns: Vec<String> = stmt.columns().iter().map(|c| c.name().to_string()).collect();
        // The parameter is sent as text, as psycopg2 sends a str: the server casts it.
        let param: &(dyn postgres::types::ToSql + Sync) = &minion_id;
        let found = tx.query(&stmt, &[param]).map_err(|e| pg_reason(&e))?;
        let mut rows = Vec::with_capacity(found.len());
        for row in &found {
            let mut values = Vec::with_capacity(columns.len());
            for (i, col) in stmt.columns().iter().enumerate() {
                values.push(Val::new(pg_value(row, i, col.type_())?));
            }
            rows.push(values);
        }
        tx.rollback().map_err(|e| pg_reason(&e))?;
        Ok(QueryResult { columns, rows })
    }
}

/// A PostgreSQL value as psycopg2 gives it.
fn pg_value(row: &postgres::Row, i: usize, ty: &postgres::types::Type) -> Result<V, String> {
    use postgres::types::Type;
    let err = |e: postgres::Error| e.to_string();
    Ok(match *ty {
        Type::BOOL => row.try_get::<_, Option<bool>>(i).map_err(err)?.map_or(V::None, V::Bool),
        Type::INT2 => row.try_get::<_, Option<i16>>(i).map_err(err)?.map_or(V::None, |x| V::Int(x.into())),
        Type::INT4 => row.try_get::<_, Option<i32>>(i).map_err(err)?.map_or(V::None, |x| V::Int(x.into())),
        Type::INT8 => row.try_get::<_, Option<i64>>(i).map_err(err)?.map_or(V::None, V::Int),
        Type::OID => row.try_get::<_, Option<u32>>(i).map_err(err)?.map_or(V::None, |x| V::Int(x.into())),
        Type::FLOAT4 => row.try_get::<_, Option<f32>>(i).map_err(err)?.map_or(V::None, |x| V::Float(x.into())),
        Type::FLOAT8 => row.try_get::<_, Option<f64>>(i).map_err(err)?.map_or(V::None, V::Float),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => row.try_get::<_, Option<String>>(i).map_err(err)?.map_or(V::None, V::Str),
        ref other => return Err(format!("column {} has type {other}, which salt-analyzer does not read (cast it to text)", i + 1)),
    })
}

/// saltext-mysql's `mysql` ext_pillar: `opts["mysql"]` `{host: localhost, user: salt, pass: salt,
/// db: salt, port: 3306, ssl: {}}`; every query in a read-only transaction with a statement
/// timeout.
pub struct Mysql {
    conn: mysql::Conn,
}

impl Mysql {
    pub fn open(opts: &Value) -> Result<Mysql, String> {
        let host = text_option(opts, "mysql", "host", "localhost");
        let user = text_option(opts, "mysql", "user", "salt");
        let db = text_option(opts, "mysql", "db", "salt");
        let builder = mysql::OptsBuilder::new()
            .ip_or_hostname(Some(host.clone()))
            .user(Some(user.clone()))
            .pass(Some(text_option(opts, "mysql", "pass", "salt")))
            .db_name(Some(db.clone()))
            .tcp_port(port_option(opts, "mysql", 3306)?)
            .tcp_connect_timeout(Some(STATEMENT_TIMEOUT))
            .read_timeout(Some(STATEMENT_TIMEOUT));
        let conn = mysql::Conn::new(builder).map_err(|e| format!("cannot connect to MySQL database {db} on {host} as {user}: {}", my_reason(&e)))?;
        let mut m = Mysql { conn };
        use mysql::prelude::Queryable;
        // MariaDB's and MySQL's own limits; the one the server does not know fails harmlessly.
        let secs = STATEMENT_TIMEOUT.as_secs();
        let _ = m.conn.query_drop(format!("SET SESSION max_statement_time = {secs}"));
        let _ = m.conn.query_drop(format!("SET SESSION max_execution_time = {}", secs * 1000));
        Ok(m)
    }
}

/// A MySQL error's message without connection details.
fn my_reason(e: &mysql::Error) -> String {
    match e {
        mysql::Error::MySqlError(m) => m.message.clone(),
        other => other.to_string(),
    }
}

impl SqlCursor for Mysql {
    fn query(&mut self, sql: &str, minion_id: &str) -> Result<QueryResult, String> {
        use mysql::prelude::Queryable;
        let sql = one_placeholder(sql, "?")?;
        let mut tx = self.conn.start_transaction(mysql::TxOpts::default().set_access_mode(Some(mysql::AccessMode::ReadOnly))).map_err(|e| my_reason(&e))?;
        let stmt = tx.prep(&sql).map_err(|e| my_reason(&e))?;
        let columns: Vec<String> = stmt.columns().iter().map(|c| c.name_str().into_owned()).collect();
        let found: Vec<mysql::Row> = tx.exec(&stmt, (minion_id,)).map_err(|e| my_reason(&e))?;
        let mut rows = Vec::with_capacity(found.len());
        for row in found {
            let cols = row.columns_ref().to_vec();
            let values = row.unwrap().into_iter().zip(cols).map(|(v, c)| Val::new(my_value(v, &c))).collect();
            rows.push(values);
        }
        tx.rollback().map_err(|e| my_reason(&e))?;
        Ok(QueryResult { columns, rows })
    }
}

/// A MySQL value as MySQLdb gives it: text columns as str, integers as int, floating point as
/// float; anything else as its text.
fn my_value(v: mysql::Value, col: &mysql::Column) -> V {
    use mysql::consts::ColumnType as T;
    match v {
        mysql::Value::NULL => V::None,
        mysql::Value::Int(i) => V::Int(i),
        mysql::Value::UInt(u) => i64::try_from(u).map(V::Int).unwrap_or(V::Float(u as f64)),
        mysql::Value::Float(f) => V::Float(f.into()),
        mysql::Value::Double(f) => V::Float(f),
        mysql::Value::Bytes(b) => {
            let text = String::from_utf8_lossy(&b).into_owned();
            match col.column_type() {
                T::MYSQL_TYPE_TINY | T::MYSQL_TYPE_SHORT | T::MYSQL_TYPE_LONG | T::MYSQL_TYPE_LONGLONG | T::MYSQL_TYPE_INT24 | T::MYSQL_TYPE_YEAR => {
                    text.parse().map(V::Int).unwrap_or(V::Str(text))
                }
                T::MYSQL_TYPE_FLOAT | T::MYSQL_TYPE_DOUBLE => text.parse().map(V::Float).unwrap_or(V::Str(text)),
                _ => V::Str(text),
            }
        }
        other => V::Str(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_the_one_minion_id() {
        assert_eq!(one_placeholder("SELECT a FROM t WHERE m = %s AND x LIKE 'a%%'", "$1").unwrap(), "SELECT a FROM t WHERE m = $1 AND x LIKE 'a%'");
        assert!(one_placeholder("SELECT 1", "?").unwrap_err().contains("no %s"));
        assert!(one_placeholder("SELECT %s, %s", "?").unwrap_err().contains("more than one"));
    }

    /// A real SQLite file, opened read-only: the rows come back typed, a write is refused,
    /// a missing table is an error, and options follow `sqlite3.py`'s rule.
    #[test]
    fn sqlite_reads_typed_rows_read_only() {
        let dir = std::env::temp_dir().join(format!("sa-sqlite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pillar.db");
        let _ = std::fs::remove_file(&path);
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute_batch("CREATE TABLE p (m TEXT, k TEXT, v); INSERT INTO p VALUES ('web01','ß',1),('web01','ℝ',2.5),('web01','💣',NULL),('db01','x','y');")
                .unwrap();
        }
        let opts = serde_json::json!({"sqlite3": {"database": path.to_str().unwrap(), "timeout": 2}});
        let mut db = Databases.open("sqlite3", &opts).ok().unwrap();
        let r = db.query("SELECT k, v FROM p WHERE m = ? ORDER BY rowid", "web01").unwrap();
        let shown: Vec<String> = r.rows.iter().map(|row| row.iter().map(Val::py_repr).collect::<Vec<_>>().join(",")).collect();
        assert_eq!(
            (r.columns.clone(), shown),
            (vec!["k".to_string(), "v".to_string()], vec!["'ß',1".to_string(), "'ℝ',2.5".to_string(), "'💣',None".to_string()])
        );
        assert!(db.query("DELETE FROM p WHERE m = ?", "web01").is_err(), "read-only");
        assert!(db.query("SELECT k FROM nosuch WHERE m = ?", "web01").unwrap_err().contains("no such table"));
        assert!(db.query("SELECT k FROM p", "web01").unwrap_err().contains("Incorrect number of bindings"));
        // `sqlite3: {timeout: 9}` alone is ignored: the default database, which is not there.
        assert!(Databases.open("sqlite3", &serde_json::json!({"sqlite3": {"timeout": 9}})).err().unwrap().contains("/var/lib/salt/pillar.db"));
    }
}
