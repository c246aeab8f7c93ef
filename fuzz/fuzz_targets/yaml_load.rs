//! The spanned YAML loader (PyYAML rules) on any text: never a panic, every span inside the
//! text on character boundaries; and a flow collection (what Salt's `yaml` and `json` filters
//! print) loads to the same value pasted after `k: ` at the top and deep in a block under a list
//! item, where its continuation lines fall left of their key (PyYAML checks no indentation
//! inside a flow collection), or the deep one is refused for the one reason libyaml has: a tab
//! leading a continuation line of a plain scalar, left of the deep block's indentation (its
//! plain scalar scan checks that column in flow collections too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use syntax::yaml::{Node, Value};

fn check_spans(text: &str, node: &Node) {
    let mut todo = vec![node];
    while let Some(n) = todo.pop() {
        assert!(n.span.start <= n.span.end && n.span.end <= text.len(), "span {:?} in {} bytes", n.span, text.len());
        assert!(text.is_char_boundary(n.span.start) && text.is_char_boundary(n.span.end), "span {:?} splits a character", n.span);
        match &n.value {
            Value::Seq(items) => todo.extend(items),
            Value::Map(pairs) => todo.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
}

/// The same value, spans aside (NaN equal to NaN).
fn same(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Seq(x), Value::Seq(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Map(x), Value::Map(y)) => x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| same(ka, kb) && same(va, vb)),
        (x, y) => x == y,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(node) = syntax::yaml::load(text) else { return };
    check_spans(text, &node);
    // One flow collection and nothing after it.
    let flow = text.starts_with(['[', '{']) && matches!(node.value, Value::Seq(_) | Value::Map(_)) && text[node.span.end..].trim().is_empty();
    if !flow || text.contains('\r') {
        return;
    }
    let top = format!("k: {text}");
    let deep = format!("x:\n  y:\n    - z: 1\n      k: {text}");
    let Ok(top_node) = syntax::yaml::load(&top) else { return };
    check_spans(&top, &top_node);
    let tab_leads_a_line = text.lines().skip(1).any(|l| l.trim_start_matches(' ').starts_with('\t'));
    let deep_node = match syntax::yaml::load(&deep) {
        Ok(node) => node,
        Err(e) if tab_leads_a_line && e.message == "found a tab character that violates indentation" => return,
        Err(e) => panic!("{top:?} loads, {deep:?} does not: {e:?}"),
    };
    check_spans(&deep, &deep_node);
    let k = |n: &Node| n.get("k").cloned();
    let deep_k = deep_node.get("x").and_then(|x| x.get("y")).and_then(|y| y.as_seq()).and_then(|s| s.first()).and_then(k);
    match (k(&top_node), deep_k) {
        (Some(a), Some(b)) => assert!(same(&a, &b), "{top:?} and {deep:?} load different values"),
        other => panic!("{top:?} and {deep:?}: {other:?}"),
    }
});
