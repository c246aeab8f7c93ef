//! The requisite graph as a call hierarchy over stdio: prepare on a state ID, incoming calls
//! (who requires or watches it, across files) and outgoing calls (what it requires), each
//! range turned back into text in UTF-16 and UTF-8 with ß, ℝ and 💣 before it; expanding the
//! calls of a requisite cycle comes back to where it started.

mod support;

use serde_json::{json, Value};
use support::{ClientOptions, Lsp, TempTree};

const WEB: &str = "include:\n  - app\n'💣 web':\n  pkg.installed: []\n  service.running:\n    - watch:\n      - file: ℝ-conf\nℝ-conf:\n  file.managed:\n    - require:\n      - pkg: '💣 web'\n";
const APP: &str = "ß-app:\n  test.nop:\n    - require_in:\n      - pkg: '💣 web'\n";

/// The text a range covers in `text` (positions in the client's encoding).
fn text_at(text: &str, r: &Value, utf8: bool) -> String {
    let offset = |p: &Value| support::offset(text, p["line"].as_u64().unwrap(), p["character"].as_u64().unwrap(), utf8);
    text[offset(&r["start"])..offset(&r["end"])].to_string()
}

#[test]
fn incoming_and_outgoing_requisites_in_both_encodings() {
    for utf8 in [false, true] {
        let tree = TempTree::new("call-hierarchy", None);
        tree.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
        tree.write("salt/web.sls", WEB);
        tree.write("salt/app.sls", APP);
        let mut lsp = Lsp::start(&tree.root, ClientOptions { utf8, ..ClientOptions::default() });
        assert_eq!(lsp.capabilities["callHierarchyProvider"], json!(true));
        lsp.open_from_disk("salt/web.sls");
        lsp.sync();
        let (line, col) = support::position(WEB, WEB.find("💣 web':").unwrap() + "💣".len(), utf8);
        let items = lsp
            .request(
                "textDocument/prepareCallHierarchy",
                json!({"textDocument": {"uri": lsp.uri("salt/web.sls")}, "position": {"line": line, "character": col}}),
            )
            .unwrap();
        let item = items[0].clone();
        assert_eq!((item["name"].as_str(), item["detail"].as_str()), (Some("💣 web"), Some("pkg.installed, service.running")));
        assert_eq!(text_at(WEB, &item["selectionRange"], utf8), "'💣 web'");
        let incoming = lsp.request("callHierarchy/incomingCalls", json!({"item": item})).unwrap();
        let got: Vec<(String, String)> =
            incoming.as_array().unwrap().iter().map(|c| (c["from"]["name"].as_str().unwrap().to_string(), text_at(WEB, &c["fromRanges"][0], utf8))).collect();
        assert_eq!(got, [("ℝ-conf".to_string(), "'💣 web'".to_string())]);
        let outgoing = lsp.request("callHierarchy/outgoingCalls", json!({"item": item})).unwrap();
        let mut got: Vec<(String, String)> =
            outgoing.as_array().unwrap().iter().map(|c| (c["to"]["name"].as_str().unwrap().to_string(), text_at(WEB, &c["fromRanges"][0], utf8))).collect();
        got.sort();
        // ß-app's `require_in` is written in app.sls: the range is the state's own ID.
        assert_eq!(got, [("ß-app".to_string(), "'💣 web'".to_string()), ("ℝ-conf".to_string(), "ℝ-conf".to_string())]);
        // ℝ-conf and '💣 web' need each other: ℝ-conf's outgoing call is back to it.
        let conf = outgoing.as_array().unwrap().iter().find(|c| c["to"]["name"] == "ℝ-conf").unwrap()["to"].clone();
        let back = lsp.request("callHierarchy/outgoingCalls", json!({"item": conf})).unwrap();
        assert_eq!(back[0]["to"]["name"], "💣 web");
        lsp.finish();
    }
}
