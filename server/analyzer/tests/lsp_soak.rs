//! Soak: 10,000 seeded random edits (inserts, deletes, undo-like reversals, in batches of one
//! to four changes) to three open documents (LF, CRLF, non-ASCII), checking after every batch
//! that the server's text of every document equals ours, and at the end that its diagnostics
//! equal those of a fresh server opened on the final texts.

mod support;

use serde_json::{json, Value};
use support::{position, ClientOptions, Lsp, TempTree};

/// xorshift64*: a small, seeded, reproducible generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SNIPPETS: &[&str] = &[
    "a",
    "x",
    "ß",
    "ℝ",
    "💣",
    " ",
    "  ",
    "\n",
    "\r\n",
    ": ",
    "- ",
    "{{ x }}",
    "{% if a %}",
    "{% endif %}",
    "include:\n  - b\n",
    "id_1:\n  test.nop: []\n",
    "[",
    "]",
    "{",
    "}",
    "'",
    "\"",
    "#",
    "    - require:\n      - a_id\n",
    "\t",
    "b_id: test.nop\r\n",
    "extend:\n  a_id: {}\n",
];

/// Byte offsets where an edit may start or end: character boundaries, never between the `\r`
/// and `\n` of a line break (the protocol has no position there).
fn boundaries(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).filter(|&i| !(i > 0 && i < b.len() && b[i] == b'\n' && b[i - 1] == b'\r')).collect()
}

struct Doc {
    rel: &'static str,
    text: String,
    version: i64,
    /// `(start, inserted length, removed text)` of edits not yet reversed.
    history: Vec<(usize, usize, String)>,
}

fn lsp_range(text: &str, start: usize, end: usize) -> [u32; 4] {
    let (sl, sc) = position(text, start, false);
    let (el, ec) = position(text, end, false);
    [sl, sc, el, ec]
}

fn diagnostics_of(lsp: &mut Lsp, rels: &[&str]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for rel in rels {
        let pushed = lsp.diagnostics(rel);
        let report = lsp.request("textDocument/diagnostic", json!({"textDocument": {"uri": lsp.uri(rel)}})).expect("pull");
        let pulled = support::render_diagnostics(report["items"].as_array().map(Vec::as_slice).unwrap_or(&[]));
        out.push((rel.to_string(), pushed, pulled));
    }
    out
}

#[test]
fn ten_thousand_random_edits() {
    let tree = TempTree::new("soak", None);
    let initial = [
        ("a.sls", "a_id:\n  test.nop:\n    - require:\n      - b_id\n".to_string()),
        ("b.sls", "include:\r\n  - a\r\nb_id:\r\n  test.nop: []\r\n".to_string()),
        ("c.sls", "ß_ℝ_💣:\n  test.nop:\n    - name: ℝ💣\n".to_string()),
    ];
    for (rel, text) in &initial {
        tree.write(rel, text);
    }
    tree.write("d.sls", "include: [a, b, c]\nd_id: {test.nop: [{require: [a_id, b_id]}]}\n");
    let opts = ClientOptions { pull: true, ..Default::default() };
    let mut lsp = Lsp::start(&tree.root, opts.clone());
    let mut docs: Vec<Doc> = initial.iter().map(|(rel, text)| Doc { rel, text: text.clone(), version: 1, history: Vec::new() }).collect();
    for d in &docs {
        lsp.open(d.rel, &d.text);
    }
    lsp.sync();
    let rels = ["a.sls", "b.sls", "c.sls", "d.sls"];
    let at_start = diagnostics_of(&mut lsp, &rels);
    assert!(at_start[0].1.contains("missing-requisite-target"), "{at_start:?}");
    let mut rng = Rng(0x5eed_5a17_a11a_1e5e);
    let mut edits = 0;
    let mut batches = 0;
    while edits < 10_000 {
        let which = rng.below(docs.len());
        let doc = &mut docs[which];
        let n = 1 + rng.below(4);
        let mut changes: Vec<(Option<[u32; 4]>, String)> = Vec::new();
        for _ in 0..n {
            let roll = rng.below(100);
            let (start, end, insert) = if roll < 20 && !doc.history.is_empty() {
                // Undo the document's latest edit exactly.
                let (start, len, removed) = doc.history.pop().unwrap_or_default();
                (start, start + len, removed)
            } else if roll < 60 || doc.text.len() < 8 {
                let b = boundaries(&doc.text);
                let at = b[rng.below(b.len())];
                (at, at, SNIPPETS[rng.below(SNIPPETS.len())].to_string())
            } else {
                let b = boundaries(&doc.text);
                let i = rng.below(b.len());
                let j = (i + 1 + rng.below(8)).min(b.len() - 1);
                (b[i], b[j], String::new())
            };
            changes.push((Some(lsp_range(&doc.text, start, end)), insert.clone()));
            let removed = doc.text[start..end].to_string();
            doc.text.replace_range(start..end, &insert);
            if roll >= 20 || doc.history.is_empty() {
                doc.history.push((start, insert.len(), removed));
            }
            edits += 1;
        }
        doc.version += 1;
        let refs: Vec<(Option<[u32; 4]>, &str)> = changes.iter().map(|(r, t)| (*r, t.as_str())).collect();
        lsp.change(doc.rel, doc.version, &refs);
        batches += 1;
        for d in &docs {
            let (text, version, _) = lsp.debug_text(&lsp.uri(d.rel));
            assert_eq!(text.as_deref(), Some(d.text.as_str()), "{} after {edits} edits", d.rel);
            assert_eq!(version, Some(d.version));
        }
    }
    assert!(batches > 2_000, "{batches} batches");
    lsp.sync();
    let soaked = diagnostics_of(&mut lsp, &rels);
    for (rel, pushed, pulled) in &soaked {
        assert_eq!(pushed, pulled, "{rel}: pushed and pulled diagnostics differ");
    }

    // Reverse every edit still recorded, newest first: the texts and diagnostics are back to
    // where they started.
    let saved: Vec<String> = docs.iter().map(|d| d.text.clone()).collect();
    for doc in docs.iter_mut() {
        while !doc.history.is_empty() {
            let mut changes = Vec::new();
            for _ in 0..4 {
                let Some((start, len, removed)) = doc.history.pop() else { break };
                changes.push((Some(lsp_range(&doc.text, start, start + len)), removed.clone()));
                doc.text.replace_range(start..start + len, &removed);
            }
            doc.version += 1;
            let refs: Vec<(Option<[u32; 4]>, &str)> = changes.iter().map(|(r, t)| (*r, t.as_str())).collect();
            lsp.change(doc.rel, doc.version, &refs);
        }
        let (text, _, _) = lsp.debug_text(&lsp.uri(doc.rel));
        assert_eq!(text.as_deref(), Some(doc.text.as_str()));
    }
    for (d, (_, text)) in docs.iter().zip(&initial) {
        assert_eq!(&d.text, text, "{} is back to its first text", d.rel);
    }
    lsp.sync();
    assert_eq!(diagnostics_of(&mut lsp, &rels), at_start);
    lsp.finish();
    for (d, text) in docs.iter_mut().zip(saved) {
        d.text = text;
    }

    let mut fresh = Lsp::start(&tree.root, opts);
    for d in &docs {
        fresh.open(d.rel, &d.text);
    }
    fresh.sync();
    let expected = diagnostics_of(&mut fresh, &rels);
    fresh.finish();
    assert_eq!(soaked, expected, "diagnostics after 10,000 edits differ from a fresh server's");
    let final_texts: Vec<Value> = docs.iter().map(|d| json!(d.text.len())).collect();
    eprintln!("soak: {edits} edits in {batches} batches; final sizes {final_texts:?}; diagnostics {soaked:#?}");
}
