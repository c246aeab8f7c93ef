//! Protocol abuse over stdio: malformed frames, bad requests, hostile positions and edits,
//! huge and deeply nested documents, cancellation storms and bursts of changes. After each the
//! server answers what JSON-RPC says it answers, keeps every document's text equal to ours, and
//! goes on serving; it exits only on `exit` (`finish` checks a clean exit after `shutdown`).

mod support;

use serde_json::{json, Value};
use support::{ClientOptions, Lsp, TempTree};

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn error_code(resp: &Value) -> i64 {
    resp["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {resp}"))
}

fn tree(name: &str) -> TempTree {
    let tree = TempTree::new(name, None);
    tree.write("salt-analyzer.yaml", "minions:\n  web01: {grains: {os_family: Debian}}\ndefault_minion: web01\n");
    tree.write("top.sls", "base:\n  '*':\n    - a\n");
    tree.write("a.sls", "a_id:\n  test.nop: []\n");
    tree
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

#[test]
fn requests_and_garbage_before_initialize() {
    let tree = tree("abuse-init");
    let mut lsp = Lsp::spawn(&tree.root, &ClientOptions::default());
    let hover = lsp.request("textDocument/hover", json!({"textDocument": {"uri": tree.uri("a.sls")}, "position": {"line": 0, "character": 0}}));
    assert_eq!(hover.unwrap_err()["code"], json!(-32002), "ServerNotInitialized");
    lsp.send_raw(&frame("this is not JSON"));
    assert_eq!(error_code(&lsp.response_to(Value::Null)), PARSE_ERROR);
    assert!(lsp.request("no/such/method", json!({})).is_err());
    lsp.initialize(ClientOptions::default());
    lsp.open_from_disk("a.sls");
    assert_eq!(lsp.debug_text(&tree.uri("a.sls")).0.as_deref(), Some("a_id:\n  test.nop: []\n"));
    lsp.finish();
}

#[test]
fn malformed_frames_are_answered_and_serving_goes_on() {
    let tree = tree("abuse-frames");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    let deep = |id: &str| format!(r#"{{"jsonrpc":"2.0",{id}"method":"textDocument/hover","params":{}0{}}}"#, "[".repeat(100_000), "]".repeat(100_000));
    let cases: Vec<(Vec<u8>, Value, i64)> = vec![
        (frame(r#"{"jsonrpc": "2.0", "id": 3, "method": "#), Value::Null, PARSE_ERROR),
        (frame("[1, 2, 3]"), Value::Null, INVALID_REQUEST),
        (frame(r#""a string""#), Value::Null, INVALID_REQUEST),
        (frame(r#"{"jsonrpc":"1.0","id":4,"method":"shutdown"}"#), json!(4), INVALID_REQUEST),
        (frame(&deep(r#""id":900,"#)), json!(900), INVALID_REQUEST),
        (frame(&deep("")), Value::Null, INVALID_REQUEST),
        (frame("\u{1F4A3}\u{0}"), Value::Null, PARSE_ERROR),
        (b"Content-Length: abc\r\n\r\n{}".to_vec(), Value::Null, PARSE_ERROR),
        (b"Content-Length: 99999999999999\r\n\r\n{\"x\": 1}".to_vec(), Value::Null, PARSE_ERROR),
        (b"Content-Length: 184467440737095516160\r\n\r\n{}".to_vec(), Value::Null, PARSE_ERROR),
        (b"Content-Type: text/plain\r\n\r\n".to_vec(), Value::Null, PARSE_ERROR),
        (b"a stray line someone printed\n".to_vec(), Value::Null, PARSE_ERROR),
    ];
    for (bytes, id, code) in cases {
        lsp.send_raw(&bytes);
        // The frame after the bad one is read as it should be.
        lsp.send_raw(&frame(r#"{"jsonrpc":"2.0","id":"after","method":"salt-analyzer/debugStats"}"#));
        let resp = lsp.response_to(id);
        assert_eq!(error_code(&resp), code, "{}: {resp}", String::from_utf8_lossy(&bytes[..bytes.len().min(80)]));
        assert!(lsp.response_to(json!("after"))["result"]["checked"].is_u64());
        assert!(lsp.running());
    }
    // Unknown methods, wrong parameter types.
    assert_eq!(lsp.request("no/such/method", json!({})).unwrap_err()["code"], json!(-32601));
    lsp.notify("no/such/notification", json!({"x": 1}));
    lsp.notify("$/no/such/notification", json!(null));
    let bad_params = lsp.request("textDocument/hover", json!({"textDocument": 5, "position": "here"}));
    assert_eq!(bad_params.unwrap_err()["code"], json!(-32602));
    assert_eq!(lsp.request("textDocument/hover", json!([1, 2])).unwrap_err()["code"], json!(-32602));
    lsp.notify("textDocument/didOpen", json!({"textDocument": {"uri": 5, "text": []}}));
    lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": tree.uri("a.sls")}, "contentChanges": "x"}));
    lsp.notify("$/cancelRequest", json!({"id": {"not": "an id"}}));
    lsp.open_from_disk("a.sls");
    assert_eq!(lsp.debug_text(&tree.uri("a.sls")).0.as_deref(), Some("a_id:\n  test.nop: []\n"));
    lsp.finish();
}

#[test]
fn hostile_positions_and_edits_keep_the_text_right() {
    let tree = tree("abuse-edits");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    let uri = tree.uri("a.sls");
    lsp.open("a.sls", "a: 1\n\u{1F4A3}x\n");
    let far = json!({"line": u32::MAX, "character": u32::MAX});
    for method in ["textDocument/hover", "textDocument/definition", "textDocument/completion", "textDocument/references"] {
        let mut params = json!({"textDocument": {"uri": uri}, "position": far});
        if method == "textDocument/references" {
            params["context"] = json!({"includeDeclaration": true});
        }
        let r = lsp.request(method, params);
        assert!(r.is_ok() || r.as_ref().unwrap_err()["code"] == json!(-32601), "{method}: {r:?}");
    }
    // A range past the end is the end of the text; a column inside a surrogate pair rounds
    // down to the pair's start; an end before the start is the start.
    lsp.change("a.sls", 2, &[(Some([99, 0, u32::MAX, 5]), "END")]);
    lsp.change("a.sls", 3, &[(Some([1, 1, 1, 1]), "Z")]);
    lsp.change("a.sls", 4, &[(Some([0, 4, 0, 1]), "!")]);
    lsp.change("a.sls", 5, &[(Some([0, 1000, 0, 2000]), "?")]);
    let (text, version, _) = lsp.debug_text(&uri);
    assert_eq!((text.as_deref(), version), (Some("a: 1!?\nZ\u{1F4A3}x\nEND"), Some(5)));
    // Edits to a document never opened change nothing, and open nothing.
    let never = tree.uri("never.sls");
    lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": never, "version": 9}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]}));
    lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": never, "version": 10}, "contentChanges": [{"text": "whole"}]}));
    lsp.notify("textDocument/didClose", json!({"textDocument": {"uri": never}}));
    lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": never}}));
    assert_eq!(lsp.debug_text(&never).0, None);
    assert_eq!(lsp.debug_text(&uri).0.as_deref(), Some("a: 1!?\nZ\u{1F4A3}x\nEND"));
    assert!(!tree.path("never.sls").exists());
    lsp.finish();
}

#[test]
fn huge_and_deeply_nested_documents() {
    let tree = tree("abuse-big");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    let big: String = (0..1_200_000).map(|i| format!("k{i:07}: v{i:07}\n")).collect::<String>();
    assert!(big.len() >= 20_000_000);
    let nested = format!("{}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let mapping = format!("{}1{}\n", "{a: ".repeat(100_000), "}".repeat(100_000));
    let jinja = format!("{}x{}\n", "{% if True %}".repeat(100_000), "{% endif %}".repeat(100_000));
    let docs = [("big.sls", &big), ("nested.sls", &nested), ("mapping.sls", &mapping), ("jinja.sls", &jinja)];
    for (rel, text) in docs {
        lsp.open(rel, text);
        let hover = lsp.request("textDocument/hover", json!({"textDocument": {"uri": tree.uri(rel)}, "position": {"line": 0, "character": 3}}));
        assert!(hover.is_ok(), "{rel}: {hover:?}");
        lsp.change(rel, 2, &[(Some([0, 0, 0, 0]), "# ")]);
        let (got, version, _) = lsp.debug_text(&tree.uri(rel));
        assert_eq!((got.map(|t| t.len()), version), (Some(text.len() + 2), Some(2)), "{rel}");
        assert!(lsp.running());
    }
    // Twenty more edits of the 20 MB document: no copy of it is kept per version.
    lsp.sync();
    let (before, _) = lsp.memory_mib();
    for v in 3..23 {
        lsp.change("big.sls", v, &[(Some([1, 0, 1, 0]), "# ")]);
    }
    let (got, version, _) = lsp.debug_text(&tree.uri("big.sls"));
    assert_eq!((got.map(|t| t.len()), version), (Some(big.len() + 42), Some(22)));
    lsp.sync();
    let (after, peak) = lsp.memory_mib();
    // Measured in a debug build: a peak of 587 MiB for the four documents, and a few MiB
    // more after the twenty edits.
    assert!(peak < 1536, "peak resident memory {peak} MiB");
    assert!(after < before + 200, "twenty edits of a 20 MB document grew the server from {before} to {after} MiB");
    lsp.finish();
}

#[test]
fn cancellation_storms_and_bursts_of_changes() {
    let tree = tree("abuse-storm");
    let mut lsp = Lsp::start(&tree.root, ClientOptions::default());
    let uri = tree.uri("a.sls");
    let mut ours = "a_id:\n  test.nop: []\n".to_string();
    lsp.open("a.sls", &ours);
    // 3,000 changes in bursts of 1,000, each typed at the end of the first line.
    let mut rss = Vec::new();
    for v in 0..3000 {
        if v % 1000 == 0 {
            lsp.sync();
            rss.push(lsp.memory_mib().0);
        }
        let ch = ["x", "\u{df}", "\u{1F4A3}", " "][v % 4];
        let col = ours.lines().next().unwrap().encode_utf16().count() as u32;
        lsp.change("a.sls", v as i64 + 2, &[(Some([0, col, 0, col]), ch)]);
        let at = ours.find('\n').unwrap();
        ours.insert_str(at, ch);
    }
    let (text, version, _) = lsp.debug_text(&uri);
    assert_eq!((text.as_deref(), version), (Some(ours.as_str()), Some(3001)));
    // Measured: 38, 40 and 41 MiB before each burst; a leak per change would grow by bursts.
    assert!(rss[2] < rss[0] + 32, "resident memory before each burst of 1,000 changes: {rss:?} MiB");
    // A storm: requests each cancelled at once, and cancellations of ids never sent.
    for i in 0..300 {
        let id = 10_000 + i;
        let req = json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}});
        lsp.send_raw(&frame(&req.to_string()));
        lsp.notify("$/cancelRequest", json!({"id": id}));
        lsp.notify("$/cancelRequest", json!({"id": 1_000_000 + i}));
        lsp.notify("$/cancelRequest", json!({"id": format!("s{i}")}));
    }
    let mut answered = std::collections::BTreeSet::new();
    for _ in 0..300 {
        let resp = lsp.next_response();
        assert!(resp.get("result").is_some() || error_code(&resp) == -32800, "{resp}");
        answered.insert(resp["id"].as_i64().expect("id"));
    }
    assert_eq!(answered.len(), 300);
    assert_eq!(lsp.debug_text(&uri).0.as_deref(), Some(ours.as_str()));
    lsp.finish();
}
