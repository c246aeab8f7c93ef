//! The state catalog follows the minion's Salt release and the extensions it has: a state
//! function 3006 ships and 3008 moved into a Salt extension (`mysql_user.present`, in
//! saltext-mysql) is clean for 3006, named with its package for 3008, and clean again once
//! `saltexts:` in `salt-analyzer.yaml` lists the extension.

mod support;

use support::{run_cli as run, TempTree};

/// A tree with one SLS file of MySQL states, `workspace` after its `file_roots:`.
fn tree(workspace: &str) -> TempTree {
    let t = TempTree::new("saltexts", None);
    t.write("salt-analyzer.yaml", &format!("file_roots: {{base: [salt]}}\n{workspace}"));
    let sls = "app_db:\n  mysql_database.present:\n    - name: app\napp_user:\n  mysql_user.present:\n    - name: app\n    - host: localhost\n    - password: secret\n    - require:\n      - mysql_database: app_db\n";
    t.write("salt/mysql.sls", sls);
    t
}

/// `file:line code severity` of each finding of `check --format json`.
fn findings(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).expect("json");
    let line = |d: &serde_json::Value| {
        format!(
            "{}:{} {} {}",
            d["file"].as_str().unwrap_or(""),
            d["range"]["start"]["line"],
            d["code"].as_str().unwrap_or(""),
            d["severity"].as_str().unwrap_or("")
        )
    };
    v["diagnostics"].as_array().map(|all| all.iter().map(line).collect()).unwrap_or_default()
}

#[test]
fn a_function_moved_to_an_extension_follows_the_release_and_saltexts() {
    let t = tree("");
    let dir = &t.root;
    let (code, out, err) = run(dir, &["check", "--salt-version", "3006", "--format", "json"]);
    assert_eq!((code, findings(&out)), (0, vec![]), "{err}");
    let (code, out, err) = run(dir, &["check", "--salt-version", "3007", "--format", "json"]);
    assert_eq!((code, findings(&out)), (0, vec![]), "{err}");
    let (code, out, err) = run(dir, &["check", "--salt-version", "3008", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(findings(&out), ["salt/mysql.sls:1 not-in-core error", "salt/mysql.sls:4 not-in-core error"], "{out}");
    let (_, text, _) = run(dir, &["check", "--salt-version", "3008"]);
    let first = text.lines().take(3).collect::<Vec<_>>().join("\n");
    expect_test::expect![[r#"
        error[not-in-core]: State 'mysql_database.present' was not found in SLS 'mysql'
        Reason: `mysql_database` is not in Salt 3008's core: install saltext-mysql, or list it under `saltexts:`
        Salt 3006 and 3007 ship it in their core: if this minion runs one of them, say so with `salt_version:`"#]]
    .assert_eq(&first);

    // salt_version: in the workspace file says the same as the flag; the flag goes over it.
    let t = tree("salt_version: 3006\n");
    let dir = &t.root;
    assert_eq!(run(dir, &["check"]).0, 0);
    assert_eq!(run(dir, &["check", "--salt-version", "3008"]).0, 1);

    // The extension listed, in any of the spellings pip accepts, or its short name.
    for listed in ["saltexts: [saltext.mysql]\n", "saltexts:\n  - saltext-mysql\n", "saltexts: mysql\n"] {
        let t = tree(listed);
        let dir = &t.root;
        let (code, out, err) = run(dir, &["check", "--salt-version", "3008", "--format", "json"]);
        assert_eq!((code, findings(&out)), (0, vec![]), "{listed}{err}");
    }
}

/// With no release stated (no flag, no `salt_version:`, no `salt-call` on the `PATH`, no
/// `saltversioninfo` grain) the default 3008 is an assumption: a module out of its core is a
/// warning then, since most fleets that use one run 3006 or 3007 or have its extension.
#[test]
fn on_an_assumed_release_a_module_out_of_core_is_a_warning() {
    let t = tree("");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_salt-analyzer"))
        .args(["check", "--format", "json"])
        .current_dir(&t.root)
        .env("PATH", "")
        .output()
        .expect("run binary");
    let json = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{json}");
    assert_eq!(findings(&json), ["salt/mysql.sls:1 not-in-core warning", "salt/mysql.sls:4 not-in-core warning"], "{json}");
    // Stated, it is the error it is on 3008 (the flag here; the workspace file above).
    let (code, out, _) = run(&t.root, &["check", "--salt-version", "3008", "--format", "json"]);
    assert_eq!((code, findings(&out)[0].as_str()), (1, "salt/mysql.sls:1 not-in-core error"));
}

#[test]
fn an_unknown_extension_is_a_configuration_error() {
    let t = tree("saltexts:\n  - saltext.mysql\n  - saltext.nosuch\n");
    let dir = &t.root;
    let (code, _, err) = run(dir, &["check"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("salt-analyzer.yaml:4: saltexts: saltext.nosuch (saltext-nosuch) is not a Salt extension salt-analyzer knows"), "{err}");
}
