//! The fleet in the editor over stdio: the picker lists the fleet with its grains, a fleet
//! minion can be selected, top-file targets and SLS files carry code lenses with fleet counts,
//! and the target hover names the minions.

mod support;

use expect_test::expect;
use serde_json::json;
use support::{ClientOptions, Lsp, TempTree};

#[test]
fn fleet_minions_in_the_picker_lenses_and_hovers() {
    let tree = TempTree::new("fleet-editor", None);
    tree.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\nminions:\n  dev01: {grains: {roles: [web]}}\nfleet: fleet.json\n");
    let mut fleet = serde_json::Map::new();
    for i in 1..=25 {
        let id = format!("web{i:02}");
        fleet.insert(id.clone(), json!({"id": id, "os_family": "Debian", "roles": ["web"]}));
    }
    fleet.insert("db01".into(), json!({"id": "db01", "os_family": "RedHat", "roles": ["db"]}));
    tree.write("fleet.json", &serde_json::to_string(&fleet).unwrap());
    tree.write("salt/top.sls", "base:\n  'G@roles:web':\n    - web\n  'G@roles:db':\n    - db\n");
    tree.write("salt/web.sls", "nginx: {pkg.installed: []}\n");
    tree.write("salt/db.sls", "postgres: {pkg.installed: []}\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.sync();
    let listed = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.listMinions", "arguments": []})).unwrap();
    // Each minion says which Salt release it is answered for (none here has a saltversioninfo
    // grain, so the workspace's: the default); the rest of each entry is compared without it.
    let default_release = json!({"version": "3008", "source": "the default: set salt_version: in salt-analyzer.yaml or --salt-version"});
    assert!(listed.as_array().unwrap().iter().all(|m| m["salt"] == default_release), "{listed}");
    let strip = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.as_object_mut().unwrap().remove("salt");
                m
            })
            .collect()
    };
    let listed = strip(&listed);
    assert_eq!(listed.len(), 27);
    assert_eq!(listed[0], json!({"id": "dev01", "selected": true, "source": "profile", "detail": "roles=web"}));
    assert!(listed.contains(&json!({"id": "db01", "selected": false, "source": "fleet", "detail": "os_family=RedHat roles=db"})));
    // A fleet minion can be selected.
    let after = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.selectMinion", "arguments": ["db01"]})).unwrap();
    assert!(strip(&after).contains(&json!({"id": "db01", "selected": true, "source": "fleet", "detail": "os_family=RedHat roles=db"})));

    let lenses = |lsp: &mut Lsp, rel: &str| -> Vec<String> {
        let got = lsp.request("textDocument/codeLens", json!({"textDocument": {"uri": lsp.uri(rel)}})).unwrap();
        got.as_array().into_iter().flatten().map(|l| format!("{}: {}", l["range"]["start"]["line"], l["command"]["title"].as_str().unwrap_or(""))).collect()
    };
    lsp.open_from_disk("salt/top.sls");
    expect![[r#"
        [
            "1: 25 of 26 fleet minions",
            "3: 1 of 26 fleet minions",
        ]
    "#]]
    .assert_debug_eq(&lenses(&mut lsp, "salt/top.sls"));
    lsp.open_from_disk("salt/db.sls");
    expect![[r#"
        [
            "0: 1 of 26 fleet minions get this from the top file: db01",
        ]
    "#]]
    .assert_debug_eq(&lenses(&mut lsp, "salt/db.sls"));
    // The target's hover names the first 20 and counts the rest.
    let hover = lsp.request("textDocument/hover", json!({"textDocument": {"uri": lsp.uri("salt/top.sls")}, "position": {"line": 1, "character": 4}})).unwrap();
    let text = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(text.contains("Fleet: matches 25 of 26 minions: `web01`, `web02`"), "{text}");
    assert!(text.contains("`web20` and 5 more"), "{text}");

    // "Check Fleet": a finding only the fleet's highstates have (two SLS the top gives the web
    // minions declare one ID) is published once with the minions' names.
    tree.write("salt/web2.sls", "nginx: {pkg.installed: []}\n");
    lsp.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": lsp.uri("salt/web2.sls"), "type": 1}]}));
    lsp.change("salt/top.sls", 2, &[(None, "base:\n  'G@roles:web':\n    - web\n    - web2\n  'G@roles:db':\n    - db\n")]);
    lsp.sync();
    let summary = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.checkFleet", "arguments": []})).unwrap();
    assert_eq!(summary["minions"], json!(26));
    assert!(summary["findings"].as_u64().unwrap() >= 1, "{summary}");
    lsp.sync();
    let published = lsp.diagnostics("salt/web2.sls");
    assert!(published.contains("duplicate-id"), "{published}");
    assert!(published.contains("`web01`, `web02`, `web03` and 22 more"), "{published}");

    // A suppression comment silences a fleet finding as it silences the file's own, and
    // `rules:` applies per path: the duplicate is left out of web2.sls by its comment and
    // weighed a warning in web.sls.
    tree.write("salt/web2.sls", "nginx: {pkg.installed: []}  # salt-analyzer: disable=duplicate-id\n");
    tree.write(
        "salt-analyzer.yaml",
        "file_roots: {base: [salt]}\nminions:\n  dev01: {grains: {roles: [web]}}\nfleet: fleet.json\nrules:\n  paths:\n    'salt/web.sls': {severity: {duplicate-id: warning}}\n",
    );
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": lsp.uri("salt/web2.sls"), "type": 2}, {"uri": lsp.uri("salt-analyzer.yaml"), "type": 2}]}),
    );
    lsp.sync();
    lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.checkFleet", "arguments": []})).unwrap();
    lsp.sync();
    let web2 = lsp.diagnostics("salt/web2.sls");
    assert!(!web2.contains("duplicate-id"), "{web2}");
    let web = lsp.diagnostics("salt/web.sls");
    assert!(web.contains("warning duplicate-id"), "{web}");
    lsp.finish();
}
