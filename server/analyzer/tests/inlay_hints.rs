//! Inlay hints of rendered values over stdio: the values, conditions, loops and `set`s of a
//! template for the selected minion, at positions in UTF-16 and in UTF-8 (ß, ℝ and 💣 before
//! them), turned off per kind by the settings, changing when the minion changes (with a
//! `workspace/inlayHint/refresh` to the client), and none in a file the minion does not render.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use support::{ClientOptions, Lsp, TempTree};

const WEB: &str = "{%- set greeting = 'ß-' ~ grains.id %}\n{%- if grains.os_family == 'Debian' %}\n💣-{{ greeting }}: {test.nop: [{name: 'ℝ {{ pillar.ℝ }}'}]}\n{%- endif %}\n{%- for site in pillar.sites %}\nsite-{{ site }}: {test.nop: []}\n{%- endfor %}\n";

fn tree() -> TempTree {
    let tree = TempTree::new("inlay-hints", None);
    tree.write(
        "salt-analyzer.yaml",
        "file_roots: {base: [salt]}\nminions:\n  web01:\n    grains: {id: web01, os_family: Debian}\n    pillar: {ℝ: 💣, sites: [a, b]}\n  db01:\n    grains: {id: db01, os_family: RedHat}\n    pillar: {ℝ: x, sites: []}\ndefault_minion: web01\n",
    );
    tree.write("salt/top.sls", "base:\n  '*': [web]\n");
    tree.write("salt/web.sls", WEB);
    tree.write("salt/other.sls", "{{ grains.id }}: {test.nop: []}\n");
    tree
}

/// The hints of `rel` as `line:col label`, the column in the client's encoding, checked
/// against the test's own position of the end of the block each follows.
fn hints(lsp: &mut Lsp, rel: &str, text: &str, utf8: bool) -> Vec<String> {
    let got = lsp
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": lsp.uri(rel)}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}}),
        )
        .unwrap();
    let ends: Vec<(u32, u32)> = syntax::jinja::mask(text).blocks.iter().map(|b| support::position(text, b.range.end, utf8)).collect();
    got.as_array()
        .into_iter()
        .flatten()
        .map(|h: &Value| {
            let (l, c) = (h["position"]["line"].as_u64().unwrap() as u32, h["position"]["character"].as_u64().unwrap() as u32);
            assert!(ends.contains(&(l, c)), "a hint at {l}:{c}, not at the end of a block: {h}");
            assert_eq!(h["paddingLeft"], json!(true));
            format!("{l}:{c} {}", h["label"].as_str().unwrap())
        })
        .collect()
}

#[test]
fn hints_follow_the_minion_in_both_encodings() {
    for utf8 in [false, true] {
        let tree = tree();
        let mut lsp = Lsp::start(&tree.root, ClientOptions { utf8, inlay_refresh: true, ..ClientOptions::default() });
        lsp.open_from_disk("salt/web.sls");
        lsp.sync();
        let web01 = hints(&mut lsp, "salt/web.sls", WEB, utf8);
        if utf8 {
            expect![[r#"
                [
                    "0:39 = ß-web01",
                    "1:38 true",
                    "2:19 ß-web01",
                    "2:61 💣",
                    "4:31 2 iterations",
                    "5:15 a (+1 more)",
                ]
            "#]]
            .assert_debug_eq(&web01);
        } else {
            expect![[r#"
                [
                    "0:38 = ß-web01",
                    "1:38 true",
                    "2:17 ß-web01",
                    "2:55 💣",
                    "4:31 2 iterations",
                    "5:15 a (+1 more)",
                ]
            "#]]
            .assert_debug_eq(&web01);
        }
        // Another minion: other values, a condition that fails, a loop that never runs; the
        // client is asked to refresh.
        lsp.request("workspace/executeCommand", json!({"command": "salt-analyzer.selectMinion", "arguments": ["db01"]})).unwrap();
        lsp.sync();
        assert!(lsp.server_requests.iter().any(|r| r["method"] == "workspace/inlayHint/refresh"), "{:?}", lsp.server_requests);
        let db01: Vec<String> = hints(&mut lsp, "salt/web.sls", WEB, utf8).into_iter().map(|h| h.split_once(' ').unwrap().1.to_string()).collect();
        assert_eq!(db01, ["= ß-db01", "false", "0 iterations"]);
        // A file the minion's highstate does not render: no hints, rather than a guess.
        lsp.open_from_disk("salt/other.sls");
        assert!(hints(&mut lsp, "salt/other.sls", "{{ grains.id }}: {test.nop: []}\n", utf8).is_empty());
        lsp.finish();
    }
}

#[test]
fn kinds_are_turned_off_by_the_settings() {
    let tree = tree();
    let init = json!({"inlayHints": {"values": false, "sets": false}});
    let mut lsp = Lsp::start(&tree.root, ClientOptions { init, ..ClientOptions::default() });
    lsp.open_from_disk("salt/web.sls");
    lsp.sync();
    let got: Vec<String> = hints(&mut lsp, "salt/web.sls", WEB, false).into_iter().map(|h| h.split_once(' ').unwrap().1.to_string()).collect();
    assert_eq!(got, ["true", "2 iterations"]);
    lsp.notify("workspace/didChangeConfiguration", json!({"settings": {"salt-analyzer": {"inlayHints": {"loops": false, "conditions": false}}}}));
    lsp.sync();
    let got: Vec<String> = hints(&mut lsp, "salt/web.sls", WEB, false).into_iter().map(|h| h.split_once(' ').unwrap().1.to_string()).collect();
    assert_eq!(got, ["= ß-web01", "ß-web01", "💣", "a (+1 more)"]);
    lsp.finish();
}
