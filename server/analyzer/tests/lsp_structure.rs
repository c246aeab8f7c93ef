//! Semantic tokens (full, range and delta), document links, folding and selection ranges,
//! document highlight and signature help over stdio with the real binary, on text where ß,
//! ℝ and 💣 come before the places that matter, in UTF-16 and UTF-8: every position the
//! server sends is turned back into text here with the test's own column count, so a byte
//! or character count anywhere would show as the wrong text.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use support::{position, ClientOptions, Lsp, TempTree};

const WEB: &str = "{% set ß = pillar.get('ℝ:💣', 'x') %}\n\
include:\n  - ß_lib\n\
ß_💣_id:\n  file.managed:\n    - source: salt://ß_files/💣.conf\n    - require:\n      - sls: ß_lib\n      - pkg: ℝ_pkg\n\
ℝ_pkg:\n  pkg.installed:\n    - name: {{ ß }}\n\
{% if grains.os == 'ℝ' %}\n💣_svc:\n  service.running:\n    - watch:\n      - pkg: ℝ_pkg\n{% endif %}\n";

fn doc(lsp: &Lsp, rel: &str) -> Value {
    json!({"textDocument": {"uri": lsp.uri(rel)}})
}

fn at(lsp: &Lsp, rel: &str, text: &str, offset: usize) -> Value {
    let (line, character) = position(text, offset, lsp.utf8);
    json!({"textDocument": {"uri": lsp.uri(rel)}, "position": {"line": line, "character": character}})
}

/// The text a protocol range covers.
fn slice<'a>(text: &'a str, r: &Value, utf8: bool) -> &'a str {
    let p = |v: &Value| support::offset(text, v["line"].as_u64().unwrap(), v["character"].as_u64().unwrap(), utf8);
    &text[p(&r["start"])..p(&r["end"])]
}

/// Decodes relative tokens into `type[+modifiers] "text"` lines.
fn tokens(lsp: &Lsp, text: &str, data: &[u64]) -> String {
    let legend = &lsp.capabilities["semanticTokensProvider"]["legend"];
    let (mut line, mut col) = (0u64, 0u64);
    let mut out = String::new();
    for t in data.chunks(5) {
        line += t[0];
        col = if t[0] == 0 { col + t[1] } else { t[1] };
        let start = support::offset(text, line, col, lsp.utf8);
        let end = support::offset(text, line, col + t[2], lsp.utf8);
        let mut name = legend["tokenTypes"][t[3] as usize].as_str().unwrap().to_string();
        for (i, m) in legend["tokenModifiers"].as_array().unwrap().iter().enumerate() {
            if t[4] & (1 << i) != 0 {
                name.push('+');
                name.push_str(m.as_str().unwrap());
            }
        }
        out.push_str(&format!("{name} {:?}\n", &text[start..end]));
    }
    out
}

fn data(v: &Value) -> Vec<u64> {
    v["data"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect()
}

#[test]
fn semantic_tokens_links_and_structure_in_both_encodings() {
    for utf8 in [false, true] {
        let tree = TempTree::new(if utf8 { "structure8" } else { "structure16" }, None);
        tree.write("ß_lib.sls", "lib: test.nop\n");
        tree.write("ß_files/💣.conf", "x\n");
        tree.write("web.sls", WEB);
        tree.write("_states/custom.py", "def ensure(name, ß_arg='💣', ℝ=None, **kwargs):\n    return {}\n");
        let mut lsp = Lsp::start(&tree.root, ClientOptions { utf8, ..Default::default() });
        let caps = &lsp.capabilities;
        assert_eq!(caps["semanticTokensProvider"]["full"], json!({"delta": true}));
        for cap in ["documentLinkProvider", "foldingRangeProvider", "selectionRangeProvider", "documentHighlightProvider", "signatureHelpProvider"] {
            assert!(!caps[cap].is_null(), "{cap} advertised");
        }
        lsp.open("web.sls", WEB);
        lsp.sync();

        // Whole-file tokens, decoded with our own column count.
        let full = lsp.request("textDocument/semanticTokens/full", doc(&lsp, "web.sls")).unwrap();
        let decoded = tokens(&lsp, WEB, &data(&full));
        expect![[r#"
            macro "{%"
            keyword "set"
            variable+declaration "ß"
            operator "="
            variable+readonly+defaultLibrary "pillar"
            operator "."
            property "get"
            operator "("
            property "'ℝ:💣'"
            operator ","
            string "'x'"
            operator ")"
            macro "%}"
            keyword "include"
            namespace "ß_lib"
            variable+declaration "ß_💣_id"
            namespace+defaultLibrary "file"
            function+defaultLibrary "managed"
            parameter "source"
            keyword "require"
            keyword "sls"
            namespace "ß_lib"
            namespace+defaultLibrary "pkg"
            variable "ℝ_pkg"
            variable+declaration "ℝ_pkg"
            namespace+defaultLibrary "pkg"
            function+defaultLibrary "installed"
            parameter "name"
            macro "{{"
            variable "ß"
            macro "}}"
            macro "{%"
            keyword "if"
            variable+readonly+defaultLibrary "grains"
            operator "."
            property "os"
            operator "=="
            string "'ℝ'"
            macro "%}"
            variable+declaration "💣_svc"
            namespace+defaultLibrary "service"
            function+defaultLibrary "running"
            keyword "watch"
            namespace+defaultLibrary "pkg"
            variable "ℝ_pkg"
            macro "{%"
            keyword "endif"
            macro "%}"
        "#]]
        .assert_eq(&decoded);

        // A range: only the tokens of the `ℝ_pkg` declaration's lines.
        let start = WEB.find("ℝ_pkg:").unwrap();
        let (sl, sc) = position(WEB, start, utf8);
        let (el, ec) = position(WEB, WEB.find("{% if").unwrap() - 1, utf8);
        let range =
            json!({"textDocument": {"uri": lsp.uri("web.sls")}, "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}});
        let part = lsp.request("textDocument/semanticTokens/range", range).unwrap();
        let part = tokens(&lsp, WEB, &data(&part));
        // The lines of the whole-file answer from the ID to the `}}` on its `name:` line.
        let from = decoded.find("variable+declaration \"ℝ_pkg\"").unwrap();
        let to = decoded[from..].find("macro \"}}\"\n").unwrap() + from + "macro \"}}\"\n".len();
        assert_eq!(part, decoded[from..to]);

        // A delta after typing after the bomb of `💣_svc`: applied to the last result, it
        // gives what a fresh full request gives.
        let typed = WEB.find("💣_svc").unwrap() + "💣".len();
        let (l, c) = position(WEB, typed, utf8);
        lsp.change("web.sls", 2, &[(Some([l, c, l, c]), "ß")]);
        let edited = WEB.replacen("💣_svc", "💣ß_svc", 1);
        let previous = full["resultId"].clone();
        let delta =
            lsp.request("textDocument/semanticTokens/full/delta", json!({"textDocument": {"uri": lsp.uri("web.sls")}, "previousResultId": previous})).unwrap();
        let edits = delta["edits"].as_array().expect("a delta, not a full result");
        assert_eq!(edits.len(), 1, "{delta}");
        let mut patched = data(&full);
        let e = &edits[0];
        let (s, n) = (e["start"].as_u64().unwrap() as usize, e["deleteCount"].as_u64().unwrap() as usize);
        patched.splice(s..s + n, data(e));
        let fresh = lsp.request("textDocument/semanticTokens/full", doc(&lsp, "web.sls")).unwrap();
        assert_eq!(patched, data(&fresh));
        assert!(tokens(&lsp, &edited, &patched).contains("variable+declaration \"💣ß_svc\""));
        // An unknown previous result gets the whole tokens.
        let full_again =
            lsp.request("textDocument/semanticTokens/full/delta", json!({"textDocument": {"uri": lsp.uri("web.sls")}, "previousResultId": "nope"})).unwrap();
        assert_eq!(data(&full_again), data(&fresh));

        // Links: the include, the `sls:` requisite and the `salt://` URL.
        let links = lsp.request("textDocument/documentLink", doc(&lsp, "web.sls")).unwrap();
        let shown: String = links
            .as_array()
            .unwrap()
            .iter()
            .map(|l| format!("{:?} -> {}\n", slice(&edited, &l["range"], utf8), l["target"].as_str().unwrap().rsplit('/').next().unwrap()))
            .collect();
        expect![[r#"
            "ß_lib" -> %C3%9F_lib.sls
            "salt://ß_files/💣.conf" -> %F0%9F%92%A3.conf
            "ß_lib" -> %C3%9F_lib.sls
        "#]]
        .assert_eq(&shown);

        // Folds, by line.
        let folds = lsp.request("textDocument/foldingRange", doc(&lsp, "web.sls")).unwrap();
        let shown: String = folds.as_array().unwrap().iter().map(|f| format!("{}-{} {}\n", f["startLine"], f["endLine"], f["kind"])).collect();
        expect![[r#"
            1-2 "region"
            3-8 "region"
            4-8 "region"
            6-8 "region"
            9-11 "region"
            10-11 "region"
            12-16 "region"
            13-16 "region"
            14-16 "region"
            15-16 "region"
        "#]]
        .assert_eq(&shown);

        // Selection from inside `ℝ_pkg` of the watch requisite, outwards.
        let at_req = edited.rfind("ℝ_pkg").unwrap() + "ℝ".len();
        let (l, c) = position(&edited, at_req, utf8);
        let sel = lsp
            .request("textDocument/selectionRange", json!({"textDocument": {"uri": lsp.uri("web.sls")}, "positions": [{"line": l, "character": c}]}))
            .unwrap();
        let mut chain = Vec::new();
        let mut node = &sel[0];
        while !node.is_null() {
            chain.push(slice(&edited, &node["range"], utf8).to_string());
            node = &node["parent"];
        }
        expect![[r#"
            [
                "ℝ_pkg",
                "pkg: ℝ_pkg",
                "- pkg: ℝ_pkg",
                "watch:\n      - pkg: ℝ_pkg",
                "- watch:\n      - pkg: ℝ_pkg",
            ]
        "#]]
        .assert_debug_eq(&chain.iter().take(5).collect::<Vec<_>>());

        // Highlight from that requisite: the declaration and both requisites naming it.
        let hs = lsp.request("textDocument/documentHighlight", at(&lsp, "web.sls", &edited, at_req)).unwrap();
        let shown: String = hs
            .as_array()
            .unwrap()
            .iter()
            .map(|h| format!("{}:{:?} kind {}\n", h["range"]["start"]["line"], slice(&edited, &h["range"], utf8), h["kind"]))
            .collect();
        expect![[r#"
            8:"ℝ_pkg" kind 2
            9:"ℝ_pkg" kind 3
            16:"ℝ_pkg" kind 2
        "#]]
        .assert_eq(&shown);

        // Signature help while typing an argument of `file.managed`, after a wide name.
        let at_src = edited.find("source").unwrap() + "sour".len();
        let help = lsp.request("textDocument/signatureHelp", at(&lsp, "web.sls", &edited, at_src)).unwrap();
        let sig = &help["signatures"][0];
        let label = sig["label"].as_str().unwrap();
        let active = &sig["parameters"][help["activeParameter"].as_u64().unwrap() as usize]["label"];
        // Offsets into the label, in the negotiated encoding (the label is ASCII).
        let (a, b) = (active[0].as_u64().unwrap() as usize, active[1].as_u64().unwrap() as usize);
        assert_eq!(&label[a..b], "source=None", "{help}");
        assert!(label.starts_with("file.managed(name, source=None"), "{label}");

        // A custom state module whose signature is not ASCII: the parameter offsets count the
        // label in the negotiated encoding.
        let custom = "c_ß:\n  custom.ensure:\n    - ℝ: 1\n";
        lsp.open("custom.sls", custom);
        let help = lsp.request("textDocument/signatureHelp", at(&lsp, "custom.sls", custom, custom.find("ℝ").unwrap())).unwrap();
        let sig = &help["signatures"][0];
        let label = sig["label"].as_str().unwrap();
        assert_eq!(label, "custom.ensure(name, ß_arg='💣', ℝ=None, **kwargs)");
        let active = &sig["parameters"][help["activeParameter"].as_u64().unwrap() as usize]["label"];
        let (a, b) = (active[0].as_u64().unwrap(), active[1].as_u64().unwrap());
        assert_eq!(slice(label, &json!({"start": {"line": 0, "character": a}, "end": {"line": 0, "character": b}}), utf8), "ℝ=None", "{help}");
        lsp.finish();
    }
}
