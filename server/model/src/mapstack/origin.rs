//! Provenance of merged mapstack data: for every value of the result, the layer that set it
//! (and where in that layer's file), and the layers it overrode. Worked out after each merge
//! from what the layer wrote, so it holds for every strategy `py::dictupdate` implements: a
//! path the layer wrote is the layer's, a path it did not write keeps its earlier origin.

use serde_json::Value;

use crate::value::{Loc, Val};

/// What of `new` differs from `old`: the changed and added keys of two mappings (recursively),
/// else `new` itself when it differs. What a step that hands back a whole new value (a
/// `post-map.jinja`, the ext_pillar merge) wrote, for [`Origins::merged`].
pub fn changed(old: &Value, new: &Value) -> Option<Value> {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            let out: serde_json::Map<String, Value> = n
                .iter()
                .filter_map(|(k, v)| match o.get(k) {
                    Some(prev) => changed(prev, v).map(|c| (k.clone(), c)),
                    None => Some((k.clone(), v.clone())),
                })
                .collect();
            (!out.is_empty()).then_some(Value::Object(out))
        }
        _ => (old != new).then(|| new.clone()),
    }
}

/// Who set one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The index of the layer in [`super::mapdata::MapData::layers`].
    pub layer: usize,
    /// Where the layer's file writes it (its key), when the layer is a file read as it is.
    pub at: Option<Loc>,
    /// The layers that set it before, oldest first.
    pub overrode: Vec<usize>,
}

/// The origins of a value and, for a dict, of each of its keys (in the value's order).
#[derive(Debug, Clone, PartialEq)]
pub struct Origins {
    pub origin: Origin,
    pub children: Vec<(String, Origins)>,
}

impl Origins {
    /// Everything in `value` set by `layer` (written as `spans` in its file, if known).
    pub fn of(value: &Value, layer: usize, spans: Option<&Val>, at: Option<Loc>) -> Origins {
        Origins::merged(None, value, Some(value), spans, layer, at)
    }

    /// The origins of `merged`, the result of merging the layer's `written` (its value at this
    /// path, if it wrote one) over a value whose origins were `prev`.
    pub fn merged(prev: Option<&Origins>, merged: &Value, written: Option<&Value>, spans: Option<&Val>, layer: usize, at: Option<Loc>) -> Origins {
        let Some(written) = written else {
            return match prev {
                Some(p) => p.clone(),
                // A value the layer did not write and nothing set before: the merge made it.
                None => Origins::of(merged, layer, None, None),
            };
        };
        let mut overrode = prev.map(|p| p.origin.overrode.clone()).unwrap_or_default();
        if let Some(p) = prev.filter(|p| p.origin.layer != layer) {
            overrode.push(p.origin.layer);
        }
        let origin = Origin { layer, at, overrode };
        let children = match (merged, written) {
            (Value::Object(m), Value::Object(w)) => m
                .iter()
                .map(|(k, v)| {
                    let (key_at, sub) = child_span(spans, k);
                    (k.clone(), Origins::merged(prev.and_then(|p| p.child(k)), v, w.get(k), sub, layer, key_at))
                })
                .collect(),
            // A merge that made a dict of something else (aggregate): all the layer's.
            (Value::Object(m), _) => m.iter().map(|(k, v)| (k.clone(), Origins::of(v, layer, None, None))).collect(),
            _ => Vec::new(),
        };
        Origins { origin, children }
    }

    /// The origins of `merged`, the result of merging `written` (whose own origins are
    /// `written_origins`, several layers possibly) over a value whose origins were `prev`: what
    /// `written` holds at a path is from `written_origins`, with the earlier layer as overridden.
    pub fn overlay(prev: Option<&Origins>, merged: &Value, written: Option<&Value>, written_origins: &Origins) -> Origins {
        let Some(written) = written else {
            return prev.cloned().unwrap_or_else(|| Origins::of(merged, written_origins.origin.layer, None, None));
        };
        let mut origin = written_origins.origin.clone();
        if let Some(p) = prev {
            let mut overrode = p.origin.overrode.clone();
            if p.origin.layer != origin.layer {
                overrode.push(p.origin.layer);
            }
            overrode.extend(origin.overrode.iter().filter(|l| !p.origin.overrode.contains(l) && **l != p.origin.layer));
            origin.overrode = overrode;
        }
        let children = match (merged, written) {
            (Value::Object(m), Value::Object(w)) => m
                .iter()
                .map(|(k, v)| {
                    let sub = written_origins.child(k).cloned().unwrap_or_else(|| Origins { origin: written_origins.origin.clone(), children: Vec::new() });
                    (k.clone(), Origins::overlay(prev.and_then(|p| p.child(k)), v, w.get(k), &sub))
                })
                .collect(),
            (Value::Object(m), _) => m.iter().map(|(k, v)| (k.clone(), Origins::of(v, origin.layer, None, None))).collect(),
            _ => Vec::new(),
        };
        Origins { origin, children }
    }

    /// The origins of key `k`.
    pub fn child(&self, k: &str) -> Option<&Origins> {
        self.children.iter().find(|(c, _)| c == k).map(|(_, o)| o)
    }

    /// The origins at a key path.
    pub fn at_path(&self, path: &[&str]) -> Option<&Origins> {
        path.iter().try_fold(self, |o, k| o.child(k))
    }

    /// Sets the origins of key `k` (replacing it where it is, else appended).
    pub fn set_child(&mut self, k: &str, o: Origins) {
        match self.children.iter_mut().find(|(c, _)| c == k) {
            Some(slot) => slot.1 = o,
            None => self.children.push((k.to_string(), o)),
        }
    }

    /// Every value that is not a dict with keys, with its key path, in order.
    pub fn leaves(&self) -> Vec<(Vec<String>, &Origin)> {
        let mut out = Vec::new();
        self.walk(&mut Vec::new(), &mut out);
        out
    }

    fn walk<'a>(&'a self, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, &'a Origin)>) {
        if self.children.is_empty() {
            out.push((path.clone(), &self.origin));
            return;
        }
        for (k, o) in &self.children {
            path.push(k.clone());
            o.walk(path, out);
            path.pop();
        }
    }
}

/// In a layer file's spanned value, the key `k` (as JSON spells it) and its value.
fn child_span<'v>(spans: Option<&'v Val>, k: &str) -> (Option<Loc>, Option<&'v Val>) {
    let Some(dict) = spans.and_then(Val::as_dict) else { return (None, None) };
    match dict.0.iter().find(|(key, _)| key.json_key() == k) {
        Some((key, value)) => (key.at.clone(), Some(value)),
        None => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::dictupdate;
    use serde_json::json;

    /// `layers` merged in order (the first with `recurse`, the others with `strategy`), and
    /// the layer of every leaf.
    fn run(layers: &[Value], strategy: &str, merge_lists: bool) -> String {
        let mut stack = json!({});
        let mut origins = Origins::of(&stack, 0, None, None);
        for (i, l) in layers.iter().enumerate() {
            let strategy = if i == 0 { "recurse" } else { strategy };
            let merged = dictupdate::merge(&mut stack, l, strategy, "yaml", merge_lists).unwrap();
            origins = Origins::merged(Some(&origins), &merged, Some(l), None, i + 1, None);
            stack = merged;
        }
        origins.leaves().iter().map(|(p, o)| format!("{}={}{:?}", p.join("."), o.layer, o.overrode)).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn every_strategy_keeps_who_set_what() {
        let a = json!({"a": 1, "d": {"x": 1, "y": {"p": 1}}, "l": [1], "only_a": true});
        let b = json!({"a": 2, "d": {"y": {"q": 2}, "z": 3}, "l": [2], "only_b": true});
        let got: Vec<String> =
            ["recurse", "overwrite", "aggregate", "list"].iter().map(|s| format!("{s}: {}", run(&[a.clone(), b.clone()], s, true))).collect();
        expect_test::expect![[r#"
            recurse: a=2[1] d.x=1[] d.y.p=1[] d.y.q=2[] d.z=2[] l=2[1] only_a=1[] only_b=2[]
            overwrite: a=2[1] d.y.q=2[] d.z=2[] l=2[1] only_a=1[] only_b=2[]
            aggregate: a=2[1] d.y.q=2[] d.z=2[] l=2[1] only_a=1[] only_b=2[]
            list: a=2[1] d=2[1] l=2[1] only_a=1[]"#]]
        .assert_eq(&got.join("\n"));
    }
}
