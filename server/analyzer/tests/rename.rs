//! Renaming a state ID over stdio: prepareRename gives the ID's range (quotes excluded) in the
//! client's encoding, or refuses with the reason where Jinja writes the name; rename answers a
//! workspace edit that, applied as a client applies it, renames the declaration and every
//! reference by ID in three files, in UTF-16 and UTF-8, with ß, ℝ and 💣 around. Renaming an SLS
//! file (`workspace/willRenameFiles`) answers the edits that keep its includes, top entry and
//! `sls:` requisites loading it.

mod support;

use serde_json::{json, Value};
use support::{ClientOptions, Lsp, TempTree};

const WEB: &str = "include:\n  - app\n'💣 ℝ-ß':\n  pkg.installed:\n    - name: nginx\n  service.running:\n    - watch:\n      - pkg: '💣 ℝ-ß'\n";
const APP: &str = "app:\n  test.nop:\n    - require_in:\n      - pkg: '💣 ℝ-ß'\n{% set x = 'y' %}\n{{ x }}-conf:\n  test.nop: []\n";
const DB: &str = "include:\n  - web\ndb:\n  test.nop:\n    - require:\n      - '💣 ℝ-ß'\n";

#[test]
fn rename_a_state_id_across_files_in_both_encodings() {
    for utf8 in [false, true] {
        let tree = TempTree::new("rename", None);
        tree.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
        tree.write("salt/top.sls", "base:\n  '*': [db]\n");
        for (rel, text) in [("salt/web.sls", WEB), ("salt/app.sls", APP), ("salt/db.sls", DB)] {
            tree.write(rel, text);
        }
        let mut lsp = Lsp::start(&tree.root, ClientOptions { utf8, ..ClientOptions::default() });
        assert_eq!(lsp.capabilities["renameProvider"], json!({"prepareProvider": true}));
        lsp.open_from_disk("salt/db.sls");
        lsp.sync();
        // On the reference in db.sls: the range inside its quotes.
        let at = DB.find("💣").unwrap() + "💣".len();
        let (line, col) = support::position(DB, at, utf8);
        let pos = json!({"textDocument": {"uri": lsp.uri("salt/db.sls")}, "position": {"line": line, "character": col}});
        let prep = lsp.request("textDocument/prepareRename", pos.clone()).unwrap();
        let start = support::position(DB, DB.find("'💣").unwrap() + 1, utf8);
        let end = support::position(DB, DB.find("ß'").unwrap() + "ß".len(), utf8);
        assert_eq!(
            prep,
            json!({"range": {"start": {"line": start.0, "character": start.1}, "end": {"line": end.0, "character": end.1}}, "placeholder": "💣 ℝ-ß"})
        );
        let mut params = pos.clone();
        params["newName"] = json!("web: ℝ");
        let edit = lsp.request("textDocument/rename", params).unwrap();
        let edited = edits_by_uri(&edit);
        let after = |rel: &str, text: &str| support::apply_edits(text, edited.get(&lsp.uri(rel)).map_or(&[][..], |e| e.as_slice()), utf8);
        assert_eq!(
            after("salt/web.sls", WEB),
            "include:\n  - app\n'web: ℝ':\n  pkg.installed:\n    - name: nginx\n  service.running:\n    - name: 💣 ℝ-ß\n    - watch:\n      - pkg: 'web: ℝ'\n"
        );
        assert_eq!(after("salt/app.sls", APP), APP.replace("'💣 ℝ-ß'", "'web: ℝ'"));
        assert_eq!(after("salt/db.sls", DB), DB.replace("'💣 ℝ-ß'", "'web: ℝ'"));
        // Where Jinja writes the name: refused, with the reason.
        lsp.open_from_disk("salt/app.sls");
        let (line, col) = support::position(APP, APP.find("-conf").unwrap() + 2, utf8);
        let refused =
            lsp.request("textDocument/prepareRename", json!({"textDocument": {"uri": lsp.uri("salt/app.sls")}, "position": {"line": line, "character": col}}));
        let err = refused.expect_err("refused");
        assert!(err["message"].as_str().unwrap().contains("no state ID here"), "{err}");
        lsp.finish();
    }
}

/// The edits of a workspace edit by document URI, from `changes` or `documentChanges`.
fn edits_by_uri(edit: &Value) -> std::collections::BTreeMap<String, Vec<Value>> {
    let mut edited = std::collections::BTreeMap::new();
    if let Some(ops) = edit["documentChanges"].as_array() {
        for op in ops {
            edited.insert(op["textDocument"]["uri"].as_str().unwrap().to_string(), op["edits"].as_array().unwrap().clone());
        }
    }
    for (uri, edits) in edit["changes"].as_object().cloned().unwrap_or_default() {
        edited.insert(uri, edits.as_array().unwrap().clone());
    }
    edited
}

#[test]
fn will_rename_files_keeps_includes_tops_and_sls_requisites_loading_the_moved_file() {
    const TOP: &str = "base:\n  'ß*': [web.ℝ, db]\n";
    const INIT: &str = "include:\n  - .ℝ\n";
    const DB: &str = "include:\n  - web.ℝ\ndb:\n  test.nop:\n    - require:\n      - sls: 'web.ℝ'\n";
    for utf8 in [false, true] {
        let tree = TempTree::new("rename-files", None);
        tree.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
        for (rel, text) in [("salt/top.sls", TOP), ("salt/web/init.sls", INIT), ("salt/db.sls", DB), ("salt/web/ℝ.sls", "ℝ:\n  test.nop: []\n")] {
            tree.write(rel, text);
        }
        let mut lsp = Lsp::start(&tree.root, ClientOptions { utf8, ..ClientOptions::default() });
        assert_eq!(lsp.capabilities["workspace"]["fileOperations"]["willRename"], json!({"filters": [{"scheme": "file", "pattern": {"glob": "**/*"}}]}));
        lsp.open_from_disk("salt/db.sls");
        lsp.sync();
        let edit =
            lsp.request("workspace/willRenameFiles", json!({"files": [{"oldUri": lsp.uri("salt/web/ℝ.sls"), "newUri": lsp.uri("salt/web/💣.sls")}]})).unwrap();
        let edited = edits_by_uri(&edit);
        let after = |rel: &str, text: &str| support::apply_edits(text, edited.get(&lsp.uri(rel)).map_or(&[][..], |e| e.as_slice()), utf8);
        assert_eq!(after("salt/top.sls", TOP), "base:\n  'ß*': [web.💣, db]\n");
        assert_eq!(after("salt/web/init.sls", INIT), "include:\n  - .💣\n");
        assert_eq!(after("salt/db.sls", DB), DB.replace('ℝ', "💣"));
        assert_eq!(edited.len(), 3, "{edit}");
        // A move that no reference names: no edit.
        let none =
            lsp.request("workspace/willRenameFiles", json!({"files": [{"oldUri": lsp.uri("salt/other.txt"), "newUri": lsp.uri("salt/x.txt")}]})).unwrap();
        assert_eq!(none, Value::Null);
        lsp.finish();
    }
}
