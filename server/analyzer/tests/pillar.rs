//! `salt-analyzer pillar` and the pipeline's computed pillar: a profile's pillar comes from
//! `pillar_roots` (top matched with its grains, SLS rendered and merged), its own `pillar:`
//! goes over it, states see the result, and pillar errors are diagnostics with file and line.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tree(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-pillar-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for d in ["salt", "pillar/app"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write(
        "salt-analyzer.yaml",
        "file_roots: {base: [salt]}\npillar_roots: {base: [pillar]}\nminions:\n  web01: {grains: {role: web}, pillar: {app: {color: red}}}\n  db01: {grains: {role: db}}\n",
    );
    write("pillar/top.sls", "base:\n  'G@role:web':\n    - app\n  'G@role:db':\n    - nosuch\n");
    write("pillar/app/init.sls", "include: [.ports]\napp:\n  color: blue\n  name: {{ grains['role'] }}\n");
    write("pillar/app/ports.sls", "app:\n  port: 8080\n");
    write("salt/top.sls", "base:\n  '*': [web]\n");
    write("salt/web.sls", "site:\n  test.nop:\n    - name: {{ pillar.get('app', {}).get('port', 'none') }}-{{ pillar.get('app', {}).get('color', 'none') }}\n");
    dir
}

#[test]
fn the_pillar_is_computed_from_pillar_roots_and_the_profile_pillar_goes_over_it() {
    let dir = tree("json");
    let (code, out, err) = run(&dir, &["pillar", "--minion", "web01", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v, serde_json::json!({"app": {"port": 8080, "color": "red", "name": "web"}}));
    // States render with it.
    let (code, out, err) = run(&dir, &["lowstate", "--minion", "web01", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"name\": \"8080-red\""), "{out}");
    // --explain names the file and line that set each value.
    let (_, out, _) = run(&dir, &["pillar", "--minion", "web01", "--explain"]);
    let port = out.lines().find(|l| l.contains("port: 8080")).unwrap_or_default();
    assert!(port.contains("[base] app.ports pillar/app/ports.sls:2"), "{out}");
    let color = out.lines().find(|l| l.contains("color:")).unwrap_or_default();
    assert!(color.contains("profile `web01`"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_pillar_sls_is_in_errors_and_a_diagnostic_at_the_top_entry() {
    let dir = tree("errors");
    let (code, out, _) = run(&dir, &["pillar", "--minion", "db01", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v, serde_json::json!({"_errors": ["Specified SLS 'nosuch' in environment 'base' is not available on the salt master"]}));
    let (code, out, _) = run(&dir, &["check", "--minion", "db01"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[missing-sls]: In the highstate of minion `db01`: Specified SLS 'nosuch'"), "{out}");
    assert!(out.contains("--> pillar/top.sls:5:7"), "{out}");
    // Salt's state functions refuse to run over a pillar with `_errors` ("Pillar failed to
    // render"): so does lowstate.
    let (code, out, _) = run(&dir, &["lowstate", "--minion", "db01"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[missing-sls]: Specified SLS 'nosuch'"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SQLite ext_pillar failures: a file that is no database, a missing table and a query with no
/// parameter each give one warning (at the configuration's `ext_pillar:` in `check`), and the
/// pillar files' values are still computed.
#[test]
fn sqlite_ext_pillar_failures_are_one_finding_each_and_the_rest_is_computed() {
    let dir = std::env::temp_dir().join(format!("sa-pillar-sqlfail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for d in ["etc", "srv", "pillar"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write("pillar/top.sls", "base:\n  '*':\n    - app\n");
    write("pillar/app.sls", "app: {port: 80}\ncolor: red\n");
    write("srv/top.sls", "base:\n  '*':\n    - web\n");
    write("srv/web.sls", "web:\n  test.nop:\n    - name: {{ pillar['app']['port'] }}\n");
    let good = dir.join("good.sqlite");
    let conn = rusqlite::Connection::open(&good).unwrap();
    conn.execute_batch("create table t(k text, v text, id text); insert into t values ('color', 'blue', 'm1');").unwrap();
    write("broken.sqlite", "this is not a database");
    let cases = [
        ("broken.sqlite", "select k, v from t where id = ?", "file is not a database"),
        ("good.sqlite", "select k, v from missing where id = ?", "no such table: missing"),
        ("good.sqlite", "select k, v from t", "has no `?` for the minion id"),
    ];
    for (db, query, want) in cases {
        write(
            "etc/minion",
            &format!(
                "id: m1\nfile_client: local\nfile_roots: {{base: [{d}/srv]}}\npillar_roots: {{base: [{d}/pillar]}}\nsqlite3: {{database: {d}/{db}}}\next_pillar:\n  - sqlite3:\n    - query: '{query}'\n",
                d = dir.display()
            ),
        );
        let (code, out, err) = run(&dir, &["pillar", "-c", "etc", "--format", "json"]);
        assert_eq!(code, 0, "{query}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v, serde_json::json!({"app": {"port": 80}, "color": "red"}), "{query}");
        let (_, text, _) = run(&dir, &["pillar", "-c", "etc"]);
        assert_eq!(text.matches("warning[ext-pillar]").count(), 1, "{query}: {text}");
        assert!(text.contains(want), "{query}: {text}");
        let (code, out, _) = run(&dir, &["check", "-c", "etc"]);
        assert_eq!(code, 0, "{query}: {out}");
        assert_eq!(out.matches("warning[ext-pillar]").count(), 1, "{query}: {out}");
        assert!(out.contains("--> etc/minion:6:1"), "{query}: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `state.show_top` refuses when the pillar has errors ("Pillar failed to render", Salt's
/// `_errors` after it); `top` does too, while `top --explain` still explains.
#[test]
fn top_refuses_when_the_pillar_has_errors() {
    let dir = tree("top-refuses");
    let (code, out, _) = run(&dir, &["top", "--minion", "db01", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v, serde_json::json!(["Pillar failed to render", "Specified SLS 'nosuch' in environment 'base' is not available on the salt master"]));
    let (code, out, _) = run(&dir, &["top", "--minion", "db01"]);
    assert_eq!(code, 1);
    assert!(out.starts_with("state.show_top refuses: Pillar failed to render\nerror[missing-sls]: Specified SLS 'nosuch'"), "{out}");
    assert!(out.contains("  --> pillar/top.sls:5:7"), "{out}");
    // web01's pillar renders: its top is answered.
    let (code, out, _) = run(&dir, &["top", "--minion", "web01", "--format", "json"]);
    assert_eq!((code, serde_json::from_str::<serde_json::Value>(&out).unwrap()), (0, serde_json::json!({"base": ["web"]})));
    let (_, out, _) = run(&dir, &["top", "--minion", "db01", "--explain"]);
    assert!(out.contains("Top file for minion `db01`"), "{out}");
}
