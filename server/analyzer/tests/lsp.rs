//! Scripted sessions with the real `salt-analyzer` binary over stdio (fixtures in
//! `tests/lsp/`): diagnostics pushed and pulled, cross-file edits, navigation, symbols,
//! hovers, code actions, profile switches, position encodings, and failure isolation.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use support::{position, ClientOptions, Lsp, TempTree};

fn pos(lsp: &Lsp, rel: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": lsp.uri(rel)}, "position": {"line": line, "character": character}})
}

#[test]
fn initial_diagnostics_navigation_symbols_and_hover() {
    let tree = TempTree::new("nav", Some("web_db"));
    tree.write("salt/broken.sls", "include:\n  - nowhere\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    assert_eq!(lsp.capabilities["positionEncoding"], json!("utf-16"));
    lsp.sync();
    // Indexing publishes every file with diagnostics, unopened ones too.
    expect![[r#"
        salt/broken.sls:
          1:4-1:11 error missing-include: Specified SLS nowhere in saltenv base is not available on the salt master or through a configured fileserver
    "#]]
    .assert_eq(&lsp.all_diagnostics());

    lsp.open_from_disk("salt/db/init.sls");
    // Requisite `pkg: web_id` (line 5) -> the declaration in web/init.sls.
    let def = lsp.request("textDocument/definition", pos(&lsp, "salt/db/init.sls", 5, 15)).unwrap();
    expect![[r#"
        salt/web/init.sls 0:0-0:6
    "#]]
    .assert_eq(&lsp.render_locations(&def));
    // The include item -> the file (web/init.sls, since there is no web.sls).
    let def = lsp.request("textDocument/definition", pos(&lsp, "salt/db/init.sls", 1, 5)).unwrap();
    expect![[r#"
        salt/web/init.sls 0:0-0:0
    "#]]
    .assert_eq(&lsp.render_locations(&def));
    // `require: - pkg: nginx` in web/init.sls names web_id by its `name`.
    lsp.open_from_disk("salt/web/init.sls");
    let refs = lsp
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": lsp.uri("salt/web/init.sls")}, "position": {"line": 0, "character": 2}, "context": {"includeDeclaration": true}}),
        )
        .unwrap();
    expect![[r#"
        salt/db/init.sls 5:13-5:19
        salt/web/init.sls 0:0-0:6
        salt/web/init.sls 8:13-8:18
    "#]]
    .assert_eq(&lsp.render_locations(&refs));
    // The `salt://` URL -> the file.
    let def = lsp.request("textDocument/definition", pos(&lsp, "salt/web/init.sls", 6, 20)).unwrap();
    expect![[r#"
        salt/web/files/nginx.conf 0:0-0:0
    "#]]
    .assert_eq(&lsp.render_locations(&def));
    // References of the SLS `web`: the include, the `sls:` requisite and the top entry.
    let refs = lsp
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": lsp.uri("salt/db/init.sls")}, "position": {"line": 1, "character": 4}, "context": {"includeDeclaration": false}}),
        )
        .unwrap();
    expect![[r#"
        salt/db/init.sls 1:4-1:7
        salt/db/init.sls 6:13-6:16
        salt/top.sls 2:6-2:9
    "#]]
    .assert_eq(&lsp.render_locations(&refs));

    let syms = lsp.request("textDocument/documentSymbol", json!({"textDocument": {"uri": lsp.uri("salt/db/init.sls")}})).unwrap();
    let mut out = String::new();
    fn walk(v: &Value, depth: usize, out: &mut String) {
        for s in v.as_array().into_iter().flatten() {
            out.push_str(&format!(
                "{:indent$}{} (kind {}) {}\n",
                "",
                s["name"].as_str().unwrap_or(""),
                s["kind"],
                support::range(&s["selectionRange"]),
                indent = depth * 2
            ));
            walk(&s["children"], depth + 1, out);
        }
    }
    walk(&syms, 0, &mut out);
    expect![[r#"
        include (kind 3) 1:4-1:7
          web (kind 2) 1:4-1:7
        db_id (kind 23) 2:0-2:5
          test.nop (kind 6) 3:2-3:10
    "#]]
    .assert_eq(&out);

    let syms = lsp.request("workspace/symbol", json!({"query": "web"})).unwrap();
    let out: String = syms
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| format!("{} {} {}", s["name"].as_str().unwrap_or(""), s["containerName"].as_str().unwrap_or(""), lsp.render_locations(&s["location"])))
        .collect();
    expect![[r#"
        web base salt/web/init.sls 0:0-0:0
        web_conf base:web salt/web/init.sls 3:0-3:8
        web_id base:web salt/web/init.sls 0:0-0:6
    "#]]
    .assert_eq(&out);

    let hover = lsp.request("textDocument/hover", pos(&lsp, "salt/db/init.sls", 1, 5)).unwrap();
    expect![[r#"
        **include** `web`

        SLS `web` in environment `base`

        File: `salt/web/init.sls` (`salt://web/init.sls`)
    "#]]
    .assert_eq(hover["contents"]["value"].as_str().unwrap_or(""));
    assert_eq!(support::range(&hover["range"]), "1:4-1:7");
    let hover = lsp.request("textDocument/hover", pos(&lsp, "salt/web/init.sls", 0, 1)).unwrap();
    expect![[r#"
        **state ID** `web_id`

        State functions: `pkg.installed`

        Declared in SLS `web` (environment `base`), `salt/web/init.sls`

        Pulled in by:
        - include in `salt/db/init.sls`:2
        - top file in `salt/top.sls`:3

        In the highstate of minion `web01.example.com` through `base:web`

        Runs 1st of 2 in the highstate of `web01.example.com`, before `web_conf` (require)
    "#]]
    .assert_eq(hover["contents"]["value"].as_str().unwrap_or(""));
    lsp.finish();
}

#[test]
fn cross_file_edits_follow_as_you_type() {
    let tree = TempTree::new("edits", Some("web_db"));
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open_from_disk("salt/web/init.sls");
    lsp.open_from_disk("salt/db/init.sls");
    lsp.sync();
    expect![[""]].assert_eq(&lsp.all_diagnostics());

    // Deleting the ID `web_id` in web/init.sls (and its name, so `pkg: nginx` breaks too):
    // db/init.sls, which requires it, gets the error.
    lsp.change("salt/web/init.sls", 2, &[(Some([0, 0, 0, 6]), "gone"), (Some([2, 12, 2, 17]), "apache")]);
    lsp.sync();
    expect![[r#"
        salt/db/init.sls:
          5:8-5:19 error missing-requisite-target: Referenced state does not exist for requisite [require: (pkg: web_id)] in state [db_id] in SLS [db]
        salt/web/init.sls:
          8:8-8:18 error missing-requisite-target: Referenced state does not exist for requisite [require: (pkg: nginx)] in state [/etc/nginx/nginx.conf] in SLS [web]
    "#]]
    .assert_eq(&lsp.all_diagnostics());
    assert_eq!(lsp.published[&lsp.uri("salt/db/init.sls")].0, Some(1), "published with the document's version");
    assert_eq!(lsp.published[&lsp.uri("salt/web/init.sls")].0, Some(2));

    // Undo both in one batch.
    lsp.change("salt/web/init.sls", 3, &[(Some([2, 12, 2, 18]), "nginx"), (Some([0, 0, 0, 4]), "web_id")]);
    lsp.sync();
    expect![[""]].assert_eq(&lsp.all_diagnostics());
    let (text, version, _) = lsp.debug_text(&lsp.uri("salt/web/init.sls"));
    assert_eq!(text.as_deref(), Some(tree.read("salt/web/init.sls").as_str()));
    assert_eq!(version, Some(3));

    // Duplicate IDs across the include: both files report; renaming one clears both.
    lsp.change("salt/db/init.sls", 2, &[(Some([2, 0, 2, 5]), "web_conf")]);
    lsp.sync();
    expect![[r#"
        salt/db/init.sls:
          2:0-2:8 error duplicate-id: Detected conflicting IDs, SLS IDs need to be globally unique.
        salt/web/init.sls:
          3:0-3:8 error duplicate-id: Detected conflicting IDs, SLS IDs need to be globally unique.
    "#]]
    .assert_eq(&lsp.all_diagnostics());
    lsp.change("salt/web/init.sls", 4, &[(Some([3, 0, 3, 8]), "web_conf_ß")]);
    lsp.sync();
    expect![[""]].assert_eq(&lsp.all_diagnostics());

    // A syntax error is published at once, before the semantic round.
    let announced = lsp.status_revision;
    lsp.change("salt/db/init.sls", 3, &[(Some([7, 0, 7, 0]), "bad: [1,\n")]);
    let seen = lsp.wait_for_publish("salt/db/init.sls", |ds| ds.iter().any(|d| d["code"] == json!("syntax")));
    assert_eq!(seen, announced, "the syntax error came before the next semantic round");
    lsp.sync();
    expect![[r#"
        salt/db/init.sls:
          7:0-7:8 error syntax: YAML syntax: unexpected end of file
    "#]]
    .assert_eq(&lsp.all_diagnostics());
    lsp.finish();
}

#[test]
fn creating_the_missing_file_of_an_include_clears_it() {
    let tree = TempTree::new("create", Some("web_db"));
    tree.write("salt/db/init.sls", "include:\n  - web\n  - .replica\ndb_id: test.nop\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions { dynamic_watchers: true, ..Default::default() });
    lsp.open_from_disk("salt/db/init.sls");
    lsp.sync();
    expect![[r#"
        salt/db/init.sls:
          2:4-2:12 error missing-include: Specified SLS db.replica in saltenv base is not available on the salt master or through a configured fileserver
    "#]]
    .assert_eq(&lsp.all_diagnostics());
    let reg = lsp.server_requests.iter().find(|r| r["method"] == "client/registerCapability").expect("a watcher registration").clone();
    assert_eq!(
        reg["params"]["registrations"][0]["registerOptions"]["watchers"],
        json!([{"globPattern": "**/*.sls"}, {"globPattern": "**/*.jinja"}, {"globPattern": "**/*.yaml"}, {"globPattern": "**/*.yml"}, {"globPattern": "**/_states/*.py"}])
    );
    // The quick fix creates the file where Salt looks first.
    let actions = lsp
        .request("textDocument/codeAction", json!({"textDocument": {"uri": lsp.uri("salt/db/init.sls")}, "range": {"start": {"line": 2, "character": 6}, "end": {"line": 2, "character": 6}}, "context": {"diagnostics": []}}))
        .unwrap();
    assert_eq!(actions[0]["title"], json!("Create `salt/db/replica.sls`"));
    assert_eq!(
        actions[0]["edit"]["documentChanges"][0],
        json!({"kind": "create", "uri": lsp.uri("salt/db/replica.sls"), "options": {"overwrite": false, "ignoreIfExists": true}})
    );
    // The editor creates it; the watcher reports it.
    tree.write("salt/db/replica.sls", "replica_id: test.nop\n");
    lsp.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": lsp.uri("salt/db/replica.sls"), "type": 1}]}));
    lsp.sync();
    expect![[""]].assert_eq(&lsp.all_diagnostics());
    // And deleting it (a git checkout) brings the error back.
    std::fs::remove_file(tree.path("salt/db/replica.sls")).unwrap();
    lsp.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": lsp.uri("salt/db/replica.sls"), "type": 3}]}));
    lsp.sync();
    assert!(lsp.diagnostics("salt/db/init.sls").contains("missing-include"));
    lsp.finish();
}

#[test]
fn profile_switch_changes_hovers_and_the_top_explanation() {
    let tree = TempTree::new("profile", Some("web_db"));
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open_from_disk("salt/top.sls");
    lsp.sync();
    let minions = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.listMinions", "arguments": []})).unwrap();
    // Each with where it comes from and the grains a picker searches.
    let picked = |m: &Value| json!({"id": m["id"], "selected": m["selected"], "source": m["source"]});
    assert_eq!(
        minions.as_array().unwrap().iter().map(picked).collect::<Vec<_>>(),
        [json!({"id": "web01.example.com", "selected": true, "source": "profile"}), json!({"id": "db01.example.com", "selected": false, "source": "profile"})]
    );
    assert!(minions[0]["detail"].as_str().is_some_and(|d| d.contains("roles=")), "{minions}");
    let hover = |lsp: &mut Lsp| {
        let h = lsp.request("textDocument/hover", pos(lsp, "salt/top.sls", 3, 4)).unwrap();
        h["contents"]["value"].as_str().unwrap_or("").to_string()
    };
    expect![[r#"
        **target** `db*` in section `base` (matcher `compound`)

        Minion `web01.example.com` (Salt 3008) **does not match**: compound: `db*` -> False

        SLS: `db`
    "#]]
    .assert_eq(&hover(&mut lsp));
    let minions = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.selectMinion", "arguments": ["db01.example.com"]})).unwrap();
    assert_eq!(picked(&minions[1]), json!({"id": "db01.example.com", "selected": true, "source": "profile"}));
    expect![[r#"
        **target** `db*` in section `base` (matcher `compound`)

        Minion `db01.example.com` (Salt 3008) **matches**: compound: `db*` -> True

        Adds `base:db`

        SLS: `db`
    "#]]
    .assert_eq(&hover(&mut lsp));
    let explain = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.topExplain", "arguments": []})).unwrap();
    let explain = explain.as_str().unwrap_or("");
    assert!(explain.starts_with("Top file for minion `db01.example.com`"), "{explain}");
    assert!(explain.contains("  base: db\n"), "{explain}");
    // The configuration setting selects too.
    lsp.notify("workspace/didChangeConfiguration", json!({"settings": {"salt-analyzer": {"minion": "web01.example.com"}}}));
    assert!(hover(&mut lsp).contains("Minion `web01.example.com` (Salt 3008) **does not match**"));
    // An unknown profile is refused.
    let err = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.selectMinion", "arguments": ["nope"]})).unwrap_err();
    assert_eq!(err["code"], json!(-32602));
    lsp.finish();
}

#[test]
fn selecting_a_minion_publishes_its_highstate_diagnostics() {
    let tree = TempTree::new("highstate", Some("highstate"));
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.sync();
    // No minion selected: the per-root checks find nothing.
    expect![[""]].assert_eq(&lsp.all_diagnostics());
    let minions = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.selectMinion", "arguments": ["web01.example.com"]})).unwrap();
    assert_eq!((&minions[0]["id"], &minions[0]["selected"]), (&json!("web01.example.com"), &json!(true)));
    lsp.sync();
    // Lines 0-based, columns in UTF-16: `agent_💣` is 8 units long.
    expect![[r#"
        salt/monitoring.sls:
          1:0-1:8 error duplicate-id: In the highstate of minion `web01.example.com`: Detected conflicting IDs, SLS IDs need to be globally unique.
        salt/web.sls:
          4:0-4:8 error duplicate-id: In the highstate of minion `web01.example.com`: Detected conflicting IDs, SLS IDs need to be globally unique.
    "#]]
    .assert_eq(&lsp.all_diagnostics());
    // Another minion: both files are published again, empty.
    lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.selectMinion", "arguments": ["db01.example.com"]})).unwrap();
    lsp.sync();
    assert_eq!(lsp.diagnostics("salt/monitoring.sls"), "");
    assert_eq!(lsp.diagnostics("salt/web.sls"), "");
    // The setting selects too.
    lsp.notify("workspace/didChangeConfiguration", json!({"settings": {"salt-analyzer": {"minion": "web01.example.com"}}}));
    lsp.sync();
    assert!(lsp.diagnostics("salt/web.sls").contains("duplicate-id: In the highstate of minion `web01.example.com`"), "{}", lsp.diagnostics("salt/web.sls"));
    lsp.finish();
}

#[test]
fn non_ascii_and_crlf_in_utf16_and_utf8() {
    for utf8 in [false, true] {
        let tree = TempTree::new(if utf8 { "utf8" } else { "utf16" }, None);
        let text = "a_ß_ℝ_💣:\r\n  test.nop:\r\n    - require:\r\n      - b_💣\r\nb_💣: test.nop\r\n";
        tree.write("x.sls", text);
        let mut lsp = Lsp::start(&tree.root, ClientOptions { utf8, ..Default::default() });
        assert_eq!(lsp.capabilities["positionEncoding"], json!(if utf8 { "utf-8" } else { "utf-16" }));
        lsp.open("x.sls", text);
        lsp.sync();
        assert_eq!(lsp.diagnostics("x.sls"), "", "clean at first");
        // Go to `b_💣` from the requisite, whose column is after the bomb in the key above.
        let at = text.find("b_💣\r\nb").unwrap() + "b_💣".len();
        let (l, c) = position(text, at, utf8);
        let def = lsp.request("textDocument/definition", pos(&lsp, "x.sls", l, c)).unwrap();
        let (dl, dc) = position(text, text.rfind("b_💣").unwrap() + "b_💣".len(), utf8);
        assert_eq!(lsp.render_locations(&def), format!("x.sls 4:0-{dl}:{dc}\n"));
        // Rename the target by typing after the bomb: the requisite breaks.
        let key_end = text.rfind("b_💣").unwrap() + "b_💣".len();
        let (l, c) = position(text, key_end, utf8);
        lsp.change("x.sls", 2, &[(Some([l, c, l, c]), "ß")]);
        lsp.sync();
        let expected = text.replacen("b_💣: test", "b_💣ß: test", 1);
        assert_eq!(lsp.debug_text(&lsp.uri("x.sls")).0.as_deref(), Some(expected.as_str()));
        let req = expected.find("b_💣\r\nb").unwrap();
        let (sl, sc) = position(&expected, req, utf8);
        let (el, ec) = position(&expected, req + "b_💣".len(), utf8);
        let line = lsp.diagnostics("x.sls");
        assert!(line.starts_with(&format!("{sl}:{sc}-{el}:{ec} error missing-requisite-target")), "{utf8}: {line}");
        // A multi-change batch on one line holding all three wide characters, then a syntax
        // error after them: its column is counted in the negotiated encoding.
        let (l, c) = position(&expected, expected.find("ℝ").unwrap(), utf8);
        let width = if utf8 { 3 } else { 1 };
        lsp.change("x.sls", 3, &[(Some([l, c, l, c + width]), "R"), (Some([0, 0, 0, 0]), "{ ")]);
        let after = format!("{{ {}", expected.replacen('ℝ', "R", 1));
        assert_eq!(lsp.debug_text(&lsp.uri("x.sls")).0.as_deref(), Some(after.as_str()));
        lsp.sync();
        assert!(lsp.diagnostics("x.sls").contains("error syntax"), "{}", lsp.diagnostics("x.sls"));
        lsp.finish();
    }
}

#[test]
fn pull_diagnostics_progress_panics_and_bad_requests() {
    let tree = TempTree::new("pull", Some("web_db"));
    tree.write("salt/broken.sls", "include: [nowhere]\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions { pull: true, progress: true, ..Default::default() });
    assert_eq!(lsp.capabilities["diagnosticProvider"]["interFileDependencies"], json!(true));
    lsp.sync();
    assert!(lsp.server_requests.iter().any(|r| r["method"] == "window/workDoneProgress/create"));
    let kinds: Vec<&str> = lsp.progress.iter().filter_map(|p| p["value"]["kind"].as_str()).collect();
    assert_eq!(kinds, ["begin", "end"]);
    let report = lsp.request("textDocument/diagnostic", json!({"textDocument": {"uri": lsp.uri("salt/broken.sls")}})).unwrap();
    assert_eq!(report["kind"], json!("full"));
    expect![[r#"
        0:10-0:17 error missing-include: Specified SLS nowhere in saltenv base is not available on the salt master or through a configured fileserver
    "#]]
    .assert_eq(&support::render_diagnostics(report["items"].as_array().unwrap()));
    // A panic inside a request handler is an error reply, and the server keeps serving.
    let err = lsp.request("salt-analyzer/debugPanic", Value::Null).unwrap_err();
    assert_eq!(err["code"], json!(-32603));
    assert!(err["message"].as_str().unwrap_or("").contains("debugPanic was asked to panic"));
    // Malformed requests get errors too.
    let err = lsp.request("textDocument/hover", json!({"nonsense": true})).unwrap_err();
    assert_eq!(err["code"], json!(-32602));
    let err = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.nope"})).unwrap_err();
    assert_eq!(err["code"], json!(-32602));
    // Still serving.
    lsp.open_from_disk("salt/broken.sls");
    let h = lsp.request("textDocument/hover", pos(&lsp, "salt/broken.sls", 0, 12)).unwrap();
    assert!(h["contents"]["value"].as_str().unwrap_or("").contains("**not found**"));
    lsp.finish();
}

/// A root of 210 states, large enough for the server to keep a recheck session: keystrokes
/// inside one state's body (a requisite target, a non-ASCII name, a comment), in the big
/// file and in the file it includes, give after each keystroke what a fresh server gives.
#[test]
fn keystrokes_in_a_large_root_follow_like_a_fresh_check() {
    let tree = TempTree::new("large", None);
    tree.write("small.sls", "small_id:\n  test.nop:\n    - name: klein\n");
    let mut big = String::from("include:\n  - small\n");
    for i in 0..210 {
        let prev = if i == 0 { "small_id".to_string() } else { format!("e_{}", i - 1) };
        big.push_str(&format!("e_{i}:\n  test.nop:\n    - name: ℝ💣{i}\n    - require:\n      - test: {prev}\n"));
    }
    tree.write("big.sls", &big);
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    let mut texts = vec![("big.sls", big.clone()), ("small.sls", tree.read("small.sls"))];
    lsp.open("big.sls", &big);
    lsp.open("small.sls", &texts[1].1);
    lsp.sync();
    expect![[""]].assert_eq(&lsp.all_diagnostics());
    // (file, text that the edit starts right after, bytes removed, text inserted).
    let keys: &[(usize, &str, usize, &str)] = &[
        (0, "- test: e_149", 0, "x"),
        (0, "- test: e_149x", 0, "y"),
        (0, "- test: e_149", 2, ""),
        (0, "name: ℝ💣7", 0, "ß"),
        (0, "name: ℝ💣7ß", 0, "💣"),
        (0, "- test: ", 0, "e_9"),
        (0, "- test: e_9", 0, "\n      - sls: nope"),
        (1, "small_id", 0, "_x"),
        (1, "small_id", 2, ""),
        (1, "klein", 0, " # ü"),
        (0, "- test: e_9\n      - sls: nope", 0, ""),
    ];
    let mut versions = [1, 1];
    let mut seen = Vec::new();
    // Per keystroke: (roots checked from scratch, roots rechecked from their session).
    let mut work = Vec::new();
    for &(f, after, len, insert) in keys {
        let (rel, text) = (texts[f].0, &mut texts[f].1);
        let start = text.find(after).expect("anchor") + after.len();
        let (sl, sc) = position(text, start, false);
        let (el, ec) = position(text, start + len, false);
        text.replace_range(start..start + len, insert);
        versions[f] += 1;
        let before = lsp.debug_stats();
        lsp.change(rel, versions[f], &[(Some([sl, sc, el, ec]), insert)]);
        lsp.sync();
        let after = lsp.debug_stats();
        work.push((after.0 - before.0, after.1 - before.1));
        let ours = lsp.all_diagnostics();
        let mut fresh = Lsp::start(&tree.root, ClientOptions::default());
        for (rel, text) in &texts {
            fresh.open(rel, text);
        }
        fresh.sync();
        assert_eq!(ours, fresh.all_diagnostics(), "after typing {insert:?} after {after:?} in {rel}");
        fresh.finish();
        seen.push(ours);
    }
    // The edits did make and clear errors, so the comparison covered both.
    expect![[r#"
        big.sls:
          756:8-756:20 error missing-requisite-target: Referenced state does not exist for requisite [require: (test: e_149x)] in state [ℝ💣150] in SLS [big]
    "#]]
    .assert_eq(&seen[0]);
    assert_eq!(seen[2], "");
    // Every keystroke inside a state of big.sls rechecked its root from the kept session.
    // Renaming `small_id` (a key line) checked both roots again; the comment in small.sls
    // checked the small root (too small to keep a session) and rechecked the big one.
    let inside_big = (0, 1);
    assert_eq!(work, [inside_big, inside_big, inside_big, inside_big, inside_big, inside_big, inside_big, (2, 0), (2, 0), (1, 1), inside_big]);
    lsp.finish();
}

/// Inside a template, for the selected minion: hover on `{{ expr }}` shows its value, and go
/// to definition on an include Jinja writes opens the SLS file it names.
#[test]
fn hover_and_definition_inside_templates() {
    let tree = TempTree::new("templated", None);
    tree.write("salt-analyzer.yaml", "minions:\n  deb: {grains: {os_family: Debian}}\n  rh: {grains: {os_family: RedHat}}\ndefault_minion: deb\n");
    tree.write("TEMPLATE/map.jinja", "{% set TEMPLATE = {'pkg': {'name': 'apache2' if grains['os_family'] == 'Debian' else 'httpd'}} %}\n");
    tree.write("TEMPLATE/package/install.sls", "pkg_install: {pkg.installed: []}\n");
    let file = "{%- set tplroot = tpldir.split('/')[0] %}\n\
                {%- from tplroot ~ '/map.jinja' import TEMPLATE with context %}\n\
                include:\n  - {{ tplroot ~ '.package.install' }}\n\
                conf_ß💣:\n  file.managed:\n    - name: /etc/{{ TEMPLATE.pkg.name }}.conf\n";
    tree.write("TEMPLATE/config/file.sls", file);
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open_from_disk("TEMPLATE/config/file.sls");
    lsp.sync();
    // Line 6 `    - name: /etc/{{ TEMPLATE.pkg.name }}.conf`: on `pkg`.
    let hover = |lsp: &mut Lsp| {
        let h = lsp.request("textDocument/hover", pos(lsp, "TEMPLATE/config/file.sls", 6, 30)).unwrap();
        h["contents"]["value"].as_str().unwrap_or("").to_string()
    };
    expect![[r#"
        **Jinja** `TEMPLATE.pkg.name`

        for minion `deb`:
        ```
        apache2
        ```
    "#]]
    .assert_eq(&hover(&mut lsp));
    lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.selectMinion", "arguments": ["rh"]})).unwrap();
    assert!(hover(&mut lsp).contains("```\nhttpd\n```"), "{}", hover(&mut lsp));
    // Line 3 `  - {{ tplroot ~ '.package.install' }}`.
    let def = lsp.request("textDocument/definition", pos(&lsp, "TEMPLATE/config/file.sls", 3, 10)).unwrap();
    assert_eq!(lsp.render_locations(&def), "TEMPLATE/package/install.sls 0:0-0:0\n");
    lsp.finish();
}

/// Salt's state docs are asked of `salt-call` once, in the background, and cached per Salt
/// version: hovers show them once they arrive, a second server reads the cache.
#[test]
fn state_function_hover_with_salts_docs() {
    use std::os::unix::fs::PermissionsExt;
    let tree = TempTree::new("statedocs", None);
    tree.write("web.sls", "conf_ß:\n  file.replace:\n    - pattern: x\n    - repl: y\ndbuser:\n  mysql_user.present: []\nbroken:\n  file.replace: []\n");
    // A stand-in for the user's salt-call that logs how it was asked.
    let stub = tree.root.with_extension("salt-call");
    let log = tree.root.with_extension("log");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\ncase \"$*\" in\n  *--version*) echo 'salt-call 3008.4 (Chlorine)' ;;\n  *sys.state_doc*) printf '%s' '{{\"local\": {{\"file.replace\": \"Maintain an edit in a file.\\n\\npattern\\n    A regular expression 💣.\", \"mysql_user.present\": \"Ensure the user exists.\"}}}}' ;;\nesac\n",
        log.display()
    );
    std::fs::write(&stub, script).unwrap();
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    let hover_until = |lsp: &mut Lsp, line: u32, character: u32, want: &str| -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let h = lsp.request("textDocument/hover", pos(lsp, "web.sls", line, character)).unwrap();
            let text = h["contents"]["value"].as_str().unwrap_or("").to_string();
            if text.contains(want) || std::time::Instant::now() > deadline {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    for round in 0..2 {
        let opts = ClientOptions { init: json!({"saltCall": stub.display().to_string()}), ..ClientOptions::default() };
        let mut lsp = Lsp::start(&tree.root, opts);
        lsp.open_from_disk("web.sls");
        lsp.sync();
        // The user's Salt documents `mysql_user.present` (saltext-mysql): not unknown once the
        // docs arrive.
        lsp.wait_for_publish("web.sls", |ds| ds.iter().any(|d| d["code"] == "missing-parameter") && ds.iter().all(|d| d["code"] != "unknown-function"));
        // On `file.replace`, then on `pattern`.
        let function = hover_until(&mut lsp, 1, 5, "Maintain an edit");
        assert!(function.starts_with("```python\nfile.replace(name, pattern, repl, count=0,"), "round {round}: {function}");
        assert!(function.contains("Maintain an edit in a file."), "round {round}: {function}");
        expect![[r#"
            **pattern** — argument of `file.replace`

            Required.

            ```rst
            A regular expression 💣.
            ```
        "#]]
        .assert_eq(&hover_until(&mut lsp, 2, 7, "regular"));
        lsp.finish();
    }
    let asked = std::fs::read_to_string(&log).unwrap();
    assert_eq!(asked.matches("--version").count(), 2, "{asked}");
    assert_eq!(asked.matches("sys.state_doc").count(), 1, "the second server reads the cache: {asked}");
    assert!(asked.contains("--local --out=json"), "{asked}");
    let _ = std::fs::remove_file(&stub);
    let _ = std::fs::remove_file(&log);
    // Without Salt: the hover says where the docs would come from.
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open_from_disk("web.sls");
    lsp.sync();
    let h = lsp.request("textDocument/hover", pos(&lsp, "web.sls", 1, 5)).unwrap();
    assert!(h["contents"]["value"].as_str().unwrap().contains("the `saltCall` setting is `false`"), "{h}");
    lsp.finish();
}

/// Completion over the protocol: a state function after `pkg.`, then an argument, with text
/// edits in the client's encoding (UTF-16 here: `ß` and `💣` before the cursor count).
#[test]
fn completion_of_functions_and_arguments() {
    let tree = TempTree::new("completion", None);
    tree.write("web.sls", "nginx_ß💣:\n  pkg.ins\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    assert!(lsp.capabilities["completionProvider"]["triggerCharacters"].as_array().unwrap().contains(&json!(".")));
    lsp.open_from_disk("web.sls");
    lsp.sync();
    let list = lsp.request("textDocument/completion", pos(&lsp, "web.sls", 1, 9)).unwrap();
    let items = list["items"].as_array().unwrap();
    let installed = items.iter().find(|i| i["label"] == "installed").expect("pkg.installed offered");
    assert_eq!(installed["kind"], json!(3), "a function");
    assert_eq!(installed["textEdit"]["range"], json!({"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 9}}));
    // Accept it, then ask for arguments on a new item line.
    lsp.change("web.sls", 2, &[(Some([1, 6, 1, 9]), "installed:\n    - ")]);
    let list = lsp.request("textDocument/completion", pos(&lsp, "web.sls", 2, 6)).unwrap();
    let labels: Vec<&str> = list["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"version") && labels.contains(&"require"), "{labels:?}");
    let version = list["items"].as_array().unwrap().iter().find(|i| i["label"] == "version").unwrap();
    assert_eq!(version["detail"], json!("= None"));
    assert_eq!(version["textEdit"]["newText"], json!("version: "));
    // On the ID line's `ß💣`, UTF-16 columns: nothing to complete there, and no error.
    let none = lsp.request("textDocument/completion", pos(&lsp, "web.sls", 0, 8)).unwrap();
    assert_eq!(none["items"], json!([]));
    lsp.finish();
}

/// Formula configuration over the protocol: the hover on a `map.jinja` import lists the
/// layers, the hover on a value names the layer that set it, and go to definition lands on
/// that layer's line.
#[test]
fn mapstack_hovers_and_definition() {
    let tree = TempTree::new("mapstack", None);
    tree.write("salt-analyzer.yaml", "minions:\n  web01: {grains: {os_family: Debian}}\ndefault_minion: web01\n");
    tree.write("app/map.jinja", "{%- set mapdata = salt[\"map.data\"](tpldir) %}\n");
    tree.write("app/parameters/defaults.yaml", "values:\n  pkg:\n    name: app\n");
    tree.write("app/parameters/os_family/Debian.yaml", "values:\n  pkg:\n    name: app-debian-ß\n");
    tree.write(
        "app/init.sls",
        "{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}\napp_pkg:\n  pkg.installed:\n    - name: {{ mapdata.pkg.name }}\n",
    );
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open_from_disk("app/init.sls");
    lsp.sync();
    let import = lsp.request("textDocument/hover", pos(&lsp, "app/init.sls", 0, 10)).unwrap();
    let text = import["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("Layers of `app` for minion `web01`"), "{text}");
    assert!(text.contains("loaded   Y!G@os_family      app/parameters/os_family/Debian.yaml"), "{text}");
    // Line 3 `    - name: {{ mapdata.pkg.name }}`: on `name`.
    let value = lsp.request("textDocument/hover", pos(&lsp, "app/init.sls", 3, 31)).unwrap();
    expect![[r#"
        **`mapdata.pkg.name`** for minion `web01`

        ```json
        "app-debian-ß"
        ```

        Set by layer #8 `app/parameters/os_family/Debian.yaml:3` (source `Y!G@os_family`)

        Overriding:
        - layer #5 `app/parameters/defaults.yaml` (source `Y!P@defaults.yaml`)
    "#]]
    .assert_eq(value["contents"]["value"].as_str().unwrap_or_default());
    let def = lsp.request("textDocument/definition", pos(&lsp, "app/init.sls", 3, 31)).unwrap();
    assert_eq!(lsp.render_locations(&def), "app/parameters/os_family/Debian.yaml 2:4-2:8\n");
    lsp.finish();
}

/// An older-style `map.jinja` (`import_yaml`, `grains.filter_by` with `merge`, `pillar.get`
/// with `merge=True`): the hover on a use of the map it exports names the file and line that
/// set the value and the layers it overrode; go to definition lands on that line.
#[test]
fn older_map_jinja_hover_and_definition() {
    let tree = TempTree::new("oldmap", None);
    tree.write("salt-analyzer.yaml", "minions:\n  web01: {grains: {os_family: Debian}, pillar: {app: {user: admin}}}\ndefault_minion: web01\n");
    tree.write("app/defaults.yaml", "app:\n  pkg: app\n  user: root\n");
    tree.write("app/osfamilymap.yaml", "RedHat:\n  pkg: app-rh\nDebian:\n  pkg: app-deb\n");
    tree.write(
        "app/map.jinja",
        "{% import_yaml tpldir ~ '/defaults.yaml' as defaults %}\n{% import_yaml tpldir ~ '/osfamilymap.yaml' as osfamilymap %}\n\
{% set base = salt['grains.filter_by'](defaults, default='app', merge=salt['grains.filter_by'](osfamilymap)) %}\n\
{% set app = salt['pillar.get']('app', default=base, merge=True) %}\n",
    );
    tree.write("app/init.sls", "{%- from tpldir ~ \"/map.jinja\" import app with context %}\napp_pkg:\n  pkg.installed:\n    - name: {{ app.pkg }}\n  user.present:\n    - name: {{ app.user }}\n  cmd.run:\n    - name: echo {{ app.get('pkg') }}\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open_from_disk("app/init.sls");
    lsp.sync();
    // Line 3 `    - name: {{ app.pkg }}`: on `pkg`.
    let value = lsp.request("textDocument/hover", pos(&lsp, "app/init.sls", 3, 21)).unwrap();
    expect![[r#"
        **`app.pkg`** for minion `web01`

        ```json
        "app-deb"
        ```

        Set by layer #2 `app/osfamilymap.yaml:4` (source `import_yaml`)

        Overriding:
        - layer #1 `app/defaults.yaml` (source `import_yaml`)
    "#]]
    .assert_eq(value["contents"]["value"].as_str().unwrap_or_default());
    let def = lsp.request("textDocument/definition", pos(&lsp, "app/init.sls", 3, 21)).unwrap();
    assert_eq!(lsp.render_locations(&def), "app/osfamilymap.yaml 3:2-3:5\n");
    // Line 5 `    - name: {{ app.user }}`: the pillar's.
    let user = lsp.request("textDocument/hover", pos(&lsp, "app/init.sls", 5, 21)).unwrap();
    expect![[r#"
        **`app.user`** for minion `web01`

        ```json
        "admin"
        ```

        Set by layer #3 `pillar:app` (source `pillar`)

        Overriding:
        - layer #1 `app/defaults.yaml` (source `import_yaml`)
    "#]]
    .assert_eq(user["contents"]["value"].as_str().unwrap_or_default());
    // Line 7 `    - name: echo {{ app.get('pkg') }}`: on the key.
    let got = lsp.request("textDocument/hover", pos(&lsp, "app/init.sls", 7, 30)).unwrap();
    expect![[r#"
        **`app.get('pkg')`** for minion `web01`

        ```json
        "app-deb"
        ```

        Set by layer #2 `app/osfamilymap.yaml:4` (source `import_yaml`)

        Overriding:
        - layer #1 `app/defaults.yaml` (source `import_yaml`)
    "#]]
    .assert_eq(got["contents"]["value"].as_str().unwrap_or_default());
    // In the layer files: `pkg` of `Debian` wins for the minion; `pkg` of `defaults.yaml` lost.
    lsp.open_from_disk("app/osfamilymap.yaml");
    lsp.open_from_disk("app/defaults.yaml");
    lsp.sync();
    let wins = lsp.request("textDocument/hover", pos(&lsp, "app/osfamilymap.yaml", 3, 3)).unwrap();
    expect![[r#"
        **Formula configuration** of `app`

        Sets `pkg` = `"app-deb"` for minion `web01`, over layer #1 `app/defaults.yaml` (source `import_yaml`)
    "#]]
    .assert_eq(wins["contents"]["value"].as_str().unwrap_or_default());
    let lost = lsp.request("textDocument/hover", pos(&lsp, "app/defaults.yaml", 1, 3)).unwrap();
    expect![[r#"
        **Formula configuration** of `app`

        `pkg` = `"app-deb"` for minion `web01` is set by layer #2 `app/osfamilymap.yaml:4` (source `import_yaml`), over this one
    "#]]
    .assert_eq(lost["contents"]["value"].as_str().unwrap_or_default());
    lsp.finish();
}

/// The pillar hover over the protocol, and `salt-analyzer.refreshPillar`: a value from an
/// SQLite ext_pillar is cached until the command, which re-queries the database.
#[test]
fn pillar_hover_and_refresh() {
    let tree = TempTree::new("pillar", None);
    let db = tree.path("pillar.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("create table t(k text, v text, id text); insert into t values ('color', 'blue', 'web01');").unwrap();
    tree.write(
        "etc/minion",
        &format!(
            "id: web01\nfile_client: local\nfile_roots: {{base: [{root}/srv]}}\npillar_roots: {{base: [{root}/pillar]}}\nsqlite3: {{database: {db}}}\next_pillar:\n  - sqlite3:\n    - query: 'select k, v from t where id = ?'\n",
            root = tree.root.display(),
            db = db.display()
        ),
    );
    tree.write("salt-analyzer.yaml", "salt_config: etc\n");
    tree.write("pillar/top.sls", "base:\n  '*':\n    - app\n");
    tree.write("pillar/app.sls", "color: red\napp: {port: 80}\n");
    tree.write("srv/web.sls", "web:\n  test.nop:\n    - name: {{ salt['pillar.get']('color') }}\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open_from_disk("srv/web.sls");
    lsp.sync();
    // Line 2 `    - name: {{ salt['pillar.get']('color') }}`: on `color`.
    let hover =
        |lsp: &mut Lsp| lsp.request("textDocument/hover", pos(lsp, "srv/web.sls", 2, 38)).unwrap()["contents"]["value"].as_str().unwrap_or("").to_string();
    expect![[r#"
        **pillar** `color` for minion `web01`

        ```json
        "blue"
        ```

        Set by the ext_pillar entries (the configured queries), over [base] app
    "#]]
    .assert_eq(&hover(&mut lsp));
    conn.execute("update t set v = 'green'", []).unwrap();
    // Cached until the refresh.
    assert!(hover(&mut lsp).contains("\"blue\""), "{}", hover(&mut lsp));
    let r = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.refreshPillar", "arguments": []}));
    assert_eq!(r, Ok(Value::Null));
    assert!(hover(&mut lsp).contains("\"green\""), "{}", hover(&mut lsp));
    assert!(lsp.capabilities["executeCommandProvider"]["commands"].as_array().unwrap().contains(&json!("salt-analyzer.refreshPillar")));
    lsp.finish();
}

/// A repository without salt-analyzer.yaml: the server says once where it found the states and
/// the pillar (`window/showMessage`, and `salt-analyzer.workspaceInfo` for `:checkhealth`), and
/// the pillar tree inside the repository is not checked as states.
#[test]
fn zero_configuration_is_said_once_and_the_pillar_is_not_states() {
    let tree = TempTree::new("discover", None);
    tree.write("salt/top.sls", "base:\n  '*':\n    - ß\n");
    tree.write("salt/ß.sls", "ß_💣:\n  test.nop: []\n");
    tree.write("pillar/top.sls", "base:\n  '*':\n    - data\n");
    // Pillar data: as a state file it would be a malformed state.
    tree.write("pillar/data.sls", "users:\n  - alice\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    lsp.open("pillar/data.sls", "users:\n  - alice\n");
    lsp.sync();
    let said: Vec<String> = lsp.messages.iter().map(|m| m["message"].as_str().unwrap_or_default().to_string()).collect();
    expect_test::expect![[r#"
        [
            "salt-analyzer: no salt-analyzer.yaml: states from base: salt/, pillar from base: pillar/ (found salt/top.sls, pillar/top.sls); set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override",
        ]
    "#]]
    .assert_debug_eq(&said);
    let info = lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.workspaceInfo", "arguments": []})).unwrap();
    assert_eq!(info["discovery"].as_str(), said[0].strip_prefix("salt-analyzer: "));
    assert_eq!(lsp.diagnostics("pillar/data.sls"), "");
}
