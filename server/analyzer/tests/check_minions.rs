//! `check` sees what `state.apply` sees for each minion: a tree whose only mistake is two SLS
//! files that the top file gives the same minions and that declare the same ID. Checked one file
//! closure at a time the tree is clean; only the minions' highstates have the conflict.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The tree, with `profiles` as the `minions:` of `salt-analyzer.yaml` (none: no such key).
fn tree(name: &str, profiles: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-minions-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("salt")).unwrap();
    std::fs::create_dir_all(dir.join("etc")).unwrap();
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write("salt-analyzer.yaml", &format!("file_roots: {{base: [salt]}}\n{profiles}"));
    write("salt/top.sls", "base:\n  'G@role:app':\n    - app\n    - monitoring\n  'G@role:db':\n    - db\n");
    // Non-ASCII before the ID on its line: the column must count characters, not bytes.
    write("salt/app.sls", "# app ß ℝ 💣\n{% set x = 1 %}\n'ß💣': {test.nop: []}\nshared_id: {test.nop: []}\n");
    write("salt/monitoring.sls", "shared_id:\n  test.nop: []\n");
    write("salt/db.sls", "postgres: {test.nop: []}\n");
    write("etc/minion", &format!("id: app9\ngrains: {{role: app}}\nfile_roots: {{base: [{}]}}\n", dir.join("salt").display()));
    dir
}

const PROFILES: &str = "minions:\n  app1: {grains: {role: app}}\n  app2: {grains: {role: app}}\n  db1: {grains: {role: db}}\n";

fn summary(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).expect("json");
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let minions: Vec<&str> = d["minion"].as_array().into_iter().flatten().map(|m| m.as_str().unwrap()).collect();
            format!("{}:{} {} {:?}", d["file"].as_str().unwrap(), d["range"]["start"]["line"], d["code"].as_str().unwrap(), minions)
        })
        .collect()
}

#[test]
fn the_per_file_checks_alone_see_nothing() {
    let dir = tree("static", "");
    let (code, out, err) = run(&dir, &["check", "--format", "json"]);
    assert_eq!((code, summary(&out)), (0, vec![]), "{err}");
}

#[test]
fn every_profile_is_checked_and_a_shared_finding_is_printed_once() {
    let dir = tree("all", PROFILES);
    let (code, out, err) = run(&dir, &["check", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(summary(&out), [r#"salt/app.sls:3 duplicate-id ["app1", "app2"]"#, r#"salt/monitoring.sls:0 duplicate-id ["app1", "app2"]"#], "{out}");
    let (code, text, _) = run(&dir, &["check"]);
    assert_eq!(code, 1);
    let first = text.lines().take(3).collect::<Vec<_>>().join("\n");
    expect_test::expect![[r#"
        error[duplicate-id]: In the highstates of minions `app1`, `app2`: Detected conflicting IDs, SLS IDs need to be globally unique.
            The conflicting ID is 'shared_id' and is found in SLS 'base:app' and SLS 'base:monitoring'
          --> salt/app.sls:4:1"#]]
    .assert_eq(&first);
    assert!(text.contains("\n2 error(s), 0 warning(s), for Salt 3008 ("), "{text}");
}

#[test]
fn one_minion_with_minion_and_the_config_minion_with_c() {
    let dir = tree("one", PROFILES);
    let (code, out, _) = run(&dir, &["check", "--minion", "app2", "--format", "json"]);
    assert_eq!((code, summary(&out).len()), (1, 2));
    assert!(summary(&out).iter().all(|s| s.ends_with(r#"["app2"]"#)), "{out}");
    let (code, out, _) = run(&dir, &["check", "--minion", "db1", "--format", "json"]);
    assert_eq!((code, summary(&out)), (0, vec![]));
    // A profile that does not exist: the tool cannot run.
    let (code, _, err) = run(&dir, &["check", "--minion", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no minion profile `nope`"), "{err}");

    // `-c DIR`: the minion the Salt configuration describes, next to every profile.
    let bare = tree("config", "");
    let (code, out, err) = run(&bare, &["check", "-c", "etc", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(summary(&out), [r#"salt/app.sls:3 duplicate-id ["app9"]"#, r#"salt/monitoring.sls:0 duplicate-id ["app9"]"#]);
}

#[test]
fn a_path_argument_reports_highstate_findings_in_that_path_only() {
    let dir = tree("paths", PROFILES);
    let (code, out, _) = run(&dir, &["check", "salt/monitoring.sls", "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(summary(&out), [r#"salt/monitoring.sls:0 duplicate-id ["app1", "app2"]"#]);
}

#[test]
fn a_function_never_executed_is_a_hint_where_the_template_calls_it() {
    let dir = tree("hint", PROFILES);
    std::fs::write(dir.join("salt/db.sls"), "# ß\n{% set host = salt['cmd.run']('hostname') %}\npostgres: {test.nop: [{name: 'pg-{{ host }}'}]}\n").unwrap();
    let (code, out, err) = run(&dir, &["check", "--minion", "db1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("hint[not-analysed]: In the highstate of minion `db1`: `salt['cmd.run']` is not executed during analysis; it rendered as an empty value\n  --> salt/db.sls:2:1"),
        "{out}"
    );
    assert!(out.contains("\n0 error(s), 0 warning(s), 1 hint(s), for Salt 3008 ("), "{out}");
}

/// A templated SLS no top assigns is still rendered for each minion, as `state.apply NAME`
/// would: an undefined variable on one minion's branch is a warning for that minion only,
/// naming the SLS; the exit code stays 0 (no error).
#[test]
fn a_templated_file_outside_every_highstate_is_checked_applied_alone() {
    let dir = tree("alone", PROFILES);
    std::fs::write(dir.join("salt/extra.sls"), "{% if grains['role'] == 'db' %}\nextra_ß:\n  test.nop:\n    - name: {{ undefined_on_db }}\n{% endif %}\n")
        .unwrap();
    let (code, out, err) = run(&dir, &["check", "--format", "json", "salt/extra.sls"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {} {} {} {}", d["range"]["start"]["line"], d["severity"], d["code"], d["minion"], d["applied_alone"]))
        .collect();
    assert_eq!(found, [r#"3 "warning" "render-error" ["db1"] "extra""#], "{out}");
    let (_, text, _) = run(&dir, &["check", "salt/extra.sls"]);
    assert!(text.contains("warning[render-error]: Applying `extra` alone on minion `db1`: Rendering SLS 'base:extra' failed: Jinja variable 'undefined_on_db' is undefined; line 4"), "{text}");
}

/// A structural error the per-file check reads through the Jinja mask stays only while no
/// minion's render refutes it: a file that renders cleanly for the minions loses it, one
/// whose render has the same error keeps it.
#[test]
fn a_clean_render_refutes_the_masks_structural_error() {
    let dir = std::env::temp_dir().join(format!("sa-minions-refuted-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write("salt-analyzer.yaml", "{}\n");
    write("top.sls", "base:\n  '*': [only_redhat, text]\n");
    write("only_redhat.sls", "{% if grains.os == 'RedHat' %}\njust text\n{% endif %}\n");
    write("text.sls", "{% set x = 1 %}\n{% if x %}\njust text\n{% endif %}\n");
    let (_, static_only, _) = run(&dir, &["check", "--format", "json"]);
    write("salt-analyzer.yaml", "minions:\n  deb: {grains: {os: Debian}}\n");
    let (code, out, err) = run(&dir, &["check", "--minion", "deb", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(summary(&out), [r#"text.sls:0 malformed-state ["deb"]"#, "text.sls:2 malformed-state []"], "{out}");
    // Without a profile the mask's finding on only_redhat.sls is all there is to go on.
    assert!(summary(&static_only).iter().any(|s| s.starts_with("only_redhat.sls")), "{static_only}");
    let _ = std::fs::remove_dir_all(&dir);
}
