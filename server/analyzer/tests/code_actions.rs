//! Code actions over stdio: each quick fix, applied as a client applies its workspace edit, in
//! UTF-16 and UTF-8, on lines with ß, ℝ and 💣 before the edited text: a did-you-mean of a
//! misspelt state function, including the SLS that declares a requisite's target, removing a
//! repeated include, and moving a dotted SLS file (only for a client that takes renames).

mod support;

use serde_json::{json, Value};
use support::{apply_edits, position, ClientOptions, Lsp, TempTree};

const WEB: &str = "include: [common, .common]\n'💣 ℝ-ß': {pkg.instaled: []}\nsite_ß:\n  service.running:\n    - require: [{pkg: ngx_ℝ}]\n";

/// The code actions at the first `needle` of `rel`'s text.
fn actions_at(lsp: &mut Lsp, text: &str, rel: &str, needle: &str) -> Vec<Value> {
    let (line, character) = position(text, text.find(needle).expect("needle"), lsp.utf8);
    let at = json!({"line": line, "character": character});
    let params = json!({"textDocument": {"uri": lsp.uri(rel)}, "range": {"start": at, "end": at}, "context": {"diagnostics": []}});
    lsp.request("textDocument/codeAction", params).expect("code actions").as_array().cloned().unwrap_or_default()
}

/// The one action titled `title` applied to `text` (its edits of `rel`, by document changes).
fn apply(lsp: &Lsp, actions: &[Value], title: &str, text: &str, rel: &str) -> (Value, String) {
    let action = actions.iter().find(|a| a["title"] == json!(title)).unwrap_or_else(|| panic!("no {title:?} in {actions:#?}")).clone();
    let changes = action["edit"]["documentChanges"].as_array().expect("document changes");
    let edits: Vec<Value> =
        changes.iter().filter(|c| c["textDocument"]["uri"] == json!(lsp.uri(rel))).flat_map(|c| c["edits"].as_array().cloned().unwrap_or_default()).collect();
    (action, apply_edits(text, &edits, lsp.utf8))
}

#[test]
fn quick_fixes_apply_in_both_encodings() {
    for utf8 in [false, true] {
        let tree = TempTree::new("code_actions", None);
        tree.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
        tree.write("salt/web.sls", WEB);
        tree.write("salt/common.sls", "common: test.nop\n");
        tree.write("salt/pkgs.sls", "ngx_ℝ:\n  pkg.installed: []\n");
        tree.write("salt/web.conf.sls", "conf: test.nop\n");
        let mut lsp = Lsp::start(&tree.root, ClientOptions { utf8, ..ClientOptions::default() });
        lsp.open_from_disk("salt/web.sls");
        lsp.sync();

        // The did-you-mean replaces the misspelt function after `'💣 ℝ-ß': {` on its line.
        let actions = actions_at(&mut lsp, WEB, "salt/web.sls", "instaled");
        let (fix, text) = apply(&lsp, &actions, "Change `instaled` to `installed`", WEB, "salt/web.sls");
        assert_eq!(fix["kind"], json!("quickfix"));
        assert_eq!(fix["isPreferred"], json!(true));
        assert_eq!(text, WEB.replace("instaled", "installed"), "utf8: {utf8}");

        // The requisite's target is in pkgs.sls: include it, after the last entry of the list.
        let actions = actions_at(&mut lsp, WEB, "salt/web.sls", "ngx_ℝ");
        let (_, text) = apply(&lsp, &actions, "Include `pkgs`, which declares `pkg: ngx_ℝ`", WEB, "salt/web.sls");
        assert_eq!(text, WEB.replace("[common, .common]", "[common, .common, pkgs]"), "utf8: {utf8}");

        // `.common` is `common` again: remove it.
        let actions = actions_at(&mut lsp, WEB, "salt/web.sls", ".common");
        let (_, text) = apply(&lsp, &actions, "Remove the include of `.common` (it repeats an earlier entry)", WEB, "salt/web.sls");
        assert_eq!(text, WEB.replace("[common, .common]", "[common]"), "utf8: {utf8}");

        // This client takes no renames: the dotted file's fix is not offered.
        lsp.open_from_disk("salt/web.conf.sls");
        assert!(actions_at(&mut lsp, "conf: test.nop", "salt/web.conf.sls", "conf").iter().all(|a| !a["title"].as_str().unwrap_or("").starts_with("Rename")));
        lsp.finish();
    }
}

#[test]
fn a_dotted_sls_file_is_moved_where_salt_looks_for_its_name() {
    let tree = TempTree::new("code_actions_dotted", None);
    tree.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
    tree.write("salt/web.conf.sls", "conf_ß: test.nop\n");
    let mut lsp = Lsp::start(&tree.root, ClientOptions { rename_files: true, ..ClientOptions::default() });
    lsp.open_from_disk("salt/web.conf.sls");
    lsp.sync();
    assert!(lsp.diagnostics("salt/web.conf.sls").contains("dotted-sls-name"), "{}", lsp.all_diagnostics());
    let actions = actions_at(&mut lsp, "conf_ß", "salt/web.conf.sls", "conf");
    let titles: Vec<&str> = actions.iter().filter_map(|a| a["title"].as_str()).collect();
    assert_eq!(titles, ["Rename the file to `web/conf.sls`, where Salt looks for `web.conf`", "Rename the file to `web_conf.sls`"]);
    assert_eq!(
        actions[0]["edit"]["documentChanges"],
        json!([{"kind": "rename", "oldUri": lsp.uri("salt/web.conf.sls"), "newUri": lsp.uri("salt/web/conf.sls"), "options": {"overwrite": false, "ignoreIfExists": false}}])
    );
    lsp.finish();
}
