//! The impact code lens and report: a file with unsaved or uncommitted changes says how many
//! minions' highstates the change alters against `HEAD`, and the report groups them.

mod support;

use expect_test::expect;
use serde_json::json;
use support::{ClientOptions, Lsp, TempTree};

fn git(root: &std::path::Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs")
        .status
        .success();
    assert!(ok, "git {args:?}");
}

fn lenses(lsp: &mut Lsp, rel: &str) -> Vec<String> {
    let got = lsp.request("textDocument/codeLens", json!({"textDocument": {"uri": lsp.uri(rel)}})).expect("codeLens answers");
    got.as_array()
        .into_iter()
        .flatten()
        .map(|l| format!("{} -> {}", l["command"]["title"].as_str().unwrap_or(""), l["command"]["command"].as_str().unwrap_or("")))
        .collect()
}

/// A repository committed once: web servers `webs` whose `web.sls` pins nginx 1.0, and db01
/// with `db` as its `db.sls`.
fn committed(name: &str, webs: &[&str], db: &str) -> TempTree {
    let tree = TempTree::new(name, None);
    let webs: String = webs.iter().map(|w| format!("  {w}: {{grains: {{role: web}}}}\n")).collect();
    tree.write("salt-analyzer.yaml", &format!("file_roots: {{base: [salt]}}\nminions:\n{webs}  db01: {{grains: {{role: db}}}}\n"));
    tree.write("salt/top.sls", "base:\n  'G@role:web': [web]\n  'G@role:db': [db]\n");
    tree.write("salt/web.sls", "nginx: {pkg.installed: [{version: '1.0'}]}\n");
    tree.write("salt/db.sls", db);
    git(&tree.root, &["init", "-q"]);
    git(&tree.root, &["add", "-A"]);
    git(&tree.root, &["commit", "-qm", "init"]);
    tree
}

#[test]
fn a_changed_file_counts_the_minions_it_alters_and_the_report_groups_them() {
    let tree = committed("impact", &["web01", "web02"], "postgres: {pkg.installed: []}\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    assert_eq!(lsp.capabilities["codeLensProvider"], json!({"resolveProvider": false}));
    lsp.sync();
    // Nothing differs from HEAD: no lens.
    lsp.open_from_disk("salt/web.sls");
    assert_eq!(lenses(&mut lsp, "salt/web.sls"), Vec::<String>::new());
    // An unsaved edit counts: both web minions change.
    lsp.change("salt/web.sls", 2, &[(None, "nginx: {pkg.installed: [{version: '1.2'}]}\n")]);
    expect![[r#"
        [
            "changes vs HEAD: 2 of 3 minions' highstates change -> salt-analyzer.showImpact",
        ]
    "#]]
    .assert_debug_eq(&lenses(&mut lsp, "salt/web.sls"));
    // A break is loud.
    lsp.open_from_disk("salt/db.sls");
    lsp.change("salt/db.sls", 2, &[(None, "postgres: {pkg.installed: [}\n")]);
    expect![[r#"
        [
            "changes vs HEAD: 3 of 3 minions' highstates change, 1 now fail -> salt-analyzer.showImpact",
        ]
    "#]]
    .assert_debug_eq(&lenses(&mut lsp, "salt/db.sls"));
    let report = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.impactReport", "arguments": []})).expect("the report");
    let report = report.as_str().unwrap_or_default().to_string();
    assert!(report.contains("**3 minion(s) changed, 0 unchanged, 1 now failing; findings: 1 new, 0 resolved**"), "{report}");
    // The check findings the edit brings, each once with its minions.
    assert!(report.contains("<b>1 new finding(s)</b>"), "{report}");
    assert!(report.contains("+ error[yaml-syntax]: Rendering SLS 'base:db' failed"), "{report}");
    assert!(report.contains("      on 1 minion(s): db01\n"), "{report}");
    assert!(report.contains("<b>1 minion(s) fails now</b>: db01"), "{report}");
    assert!(report.contains("<b>2 minion(s) changed</b>: web01, web02"), "{report}");
    assert!(report.contains("version: \"1.0\" -> \"1.2\""), "{report}");
    // Undone, the lens goes.
    lsp.change("salt/db.sls", 3, &[(None, "postgres: {pkg.installed: []}\n")]);
    lsp.change("salt/web.sls", 3, &[(None, "nginx: {pkg.installed: [{version: '1.0'}]}\n")]);
    assert_eq!(lenses(&mut lsp, "salt/web.sls"), Vec::<String>::new());
    lsp.finish();
}

#[test]
fn a_minion_broken_at_head_and_still_broken_is_counted_apart() {
    let tree = committed("impact-still", &["web01"], "postgres: {pkg.installed: [}\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.sync();
    lsp.open_from_disk("salt/web.sls");
    lsp.change("salt/web.sls", 2, &[(None, "nginx: {pkg.installed: [{version: '1.2'}]}\n")]);
    // db01 failed at HEAD and fails now: not one of the changed, not unchanged either.
    expect![[r#"
        [
            "changes vs HEAD: 1 of 2 minions' highstates change, 1 still fail -> salt-analyzer.showImpact",
        ]
    "#]]
    .assert_debug_eq(&lenses(&mut lsp, "salt/web.sls"));
    lsp.finish();
}

/// With a target release (the `impact.toSaltVersion` setting, or the report command's
/// argument), the changes compile on that release while `HEAD` keeps the workspace's: the
/// change and an upgrade at once. 3006 does not mark included states, 3008 does.
#[test]
fn a_target_release_compiles_the_changes_on_it() {
    let tree = TempTree::new("impact-release", None);
    tree.write(
        "salt-analyzer.yaml",
        "salt_version: 3006\nfile_roots: {base: [salt]}\nminions:\n  web01: {grains: {role: web}}\n  db01: {grains: {role: db}}\n",
    );
    tree.write("salt/top.sls", "base:\n  web01: [web]\n  db01: [db]\n");
    tree.write("salt/web.sls", "include: [common]\nnginx: {pkg.installed: []}\n");
    tree.write("salt/common.sls", "ntp: {pkg.installed: []}\n");
    tree.write("salt/db.sls", "postgres: {pkg.installed: []}\napp_db: {mysql_database.present: []}\n");
    git(&tree.root, &["init", "-q"]);
    git(&tree.root, &["add", "-A"]);
    git(&tree.root, &["commit", "-qm", "init"]);
    let init = json!({"salt-analyzer": {"impact": {"toSaltVersion": "3008"}}});
    let mut lsp = Lsp::start(&tree.root, ClientOptions { init, ..ClientOptions::default() });
    lsp.sync();
    lsp.open_from_disk("salt/db.sls");
    lsp.change("salt/db.sls", 2, &[(None, "postgres: {pkg.installed: [{version: '15'}]}\napp_db: {mysql_database.present: []}\n")]);
    // db01's state changes, and web01's included ntp now carries __sls_included_from__.
    expect![[r#"
        [
            "changes vs HEAD, on Salt 3008: 2 of 2 minions' highstates change -> salt-analyzer.showImpact",
        ]
    "#]]
    .assert_debug_eq(&lenses(&mut lsp, "salt/db.sls"));
    let report = |lsp: &mut Lsp, args: serde_json::Value| {
        let r = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.impactReport", "arguments": args}));
        r.map(|r| r.as_str().unwrap_or_default().lines().take(3).collect::<Vec<_>>().join("\n"))
    };
    let full = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.impactReport", "arguments": []})).expect("the report");
    // The module 3008 moved out of its core is a new finding of the upgrade.
    let full = full.as_str().unwrap_or_default();
    assert!(full.contains("not-in-core") && full.contains("install saltext-mysql"), "{full}");
    let upgrade = report(&mut lsp, json!([])).expect("the report");
    assert!(upgrade.contains("HEAD on Salt 3006") && upgrade.contains("unsaved and uncommitted changes on Salt 3008"), "{upgrade}");
    assert!(upgrade.contains("**2 minion(s) changed, 0 unchanged; findings: 1 new, 0 resolved**"), "{upgrade}");
    // The argument overrides the setting: `null` is the change alone.
    let alone = report(&mut lsp, json!([{"toSaltVersion": null}])).expect("the report");
    assert!(alone.contains("**1 minion(s) changed, 1 unchanged**") && !alone.contains("on Salt"), "{alone}");
    let bad = report(&mut lsp, json!([{"toSaltVersion": "2019.2"}])).expect_err("an unknown release is refused");
    expect![[r#""toSaltVersion: \"2019.2\" is not a supported Salt release (3006, 3007 or 3008)""#]].assert_eq(&bad["message"].to_string());
    // The setting changed to nothing: the lens is the change's alone.
    lsp.notify("workspace/didChangeConfiguration", json!({"settings": {"salt-analyzer": {"impact": {"toSaltVersion": null}}}}));
    expect![[r#"
        [
            "changes vs HEAD: 1 of 2 minions' highstates change -> salt-analyzer.showImpact",
        ]
    "#]]
    .assert_debug_eq(&lenses(&mut lsp, "salt/db.sls"));
    lsp.finish();
}
