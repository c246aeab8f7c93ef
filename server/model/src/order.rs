//! Salt 3008's chunk ordering (`State.order_chunks` and `salt.utils.requisite.DependencyGraph`,
//! SALT-SEMANTICS.md E.3, E.7, E.8): requisite edges, the priority topological sort, missing
//! requisite targets and the first cycle found.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use indexmap::{IndexMap, IndexSet};

use crate::compile::Chunk;
use crate::errors::{Code, SaltError};
use crate::fnmatch;
use crate::requisites::{has_mod_watch, weight, ORDERING_TYPES, REQUISITE_TYPES};
use crate::value::{py_str_repr, Dict, Val, V};

/// The ordered chunks, or the errors that stop the run.
pub struct Ordered {
    pub chunks: Vec<Chunk>,
    pub errors: Vec<SaltError>,
}

#[derive(Default)]
struct NodeData {
    chunk: Option<usize>,
    child_min: Option<f64>,
}

#[derive(Default)]
struct Graph {
    nodes: IndexMap<String, NodeData>,
    out: HashMap<String, IndexMap<String, IndexSet<&'static str>>>,
    inn: HashMap<String, IndexMap<String, IndexSet<&'static str>>>,
    lookup: IndexMap<(String, String), IndexSet<String>>,
    sls_to_nodes: IndexMap<String, IndexSet<String>>,
}

fn prereq_tag(tag: &str) -> String {
    format!("{tag}_|-__prereq_test__")
}

fn kind(name: &str) -> &'static str {
    REQUISITE_TYPES.iter().find(|k| **k == name).copied().unwrap_or("require")
}

impl Graph {
    fn add_node(&mut self, tag: &str) {
        if !self.nodes.contains_key(tag) {
            self.nodes.insert(tag.to_string(), NodeData::default());
        }
    }
    fn add_edge(&mut self, src: &str, dst: &str, key: &'static str) {
        self.add_node(src);
        self.add_node(dst);
        self.out.entry(src.to_string()).or_default().entry(dst.to_string()).or_default().insert(key);
        self.inn.entry(dst.to_string()).or_default().entry(src.to_string()).or_default().insert(key);
    }
    fn in_edges(&self, node: &str) -> Vec<(String, &'static str)> {
        let mut v = Vec::new();
        if let Some(m) = self.inn.get(node) {
            for (src, keys) in m {
                for k in keys {
                    v.push((src.clone(), *k));
                }
            }
        }
        v
    }
    fn out_edges(&self, node: &str) -> Vec<(String, &'static str)> {
        let mut v = Vec::new();
        if let Some(m) = self.out.get(node) {
            for (dst, keys) in m {
                for k in keys {
                    v.push((dst.clone(), *k));
                }
            }
        }
        v
    }
    fn has_chunk(&self, tag: &str) -> bool {
        self.nodes.get(tag).is_some_and(|n| n.chunk.is_some())
    }
}

fn num_of(v: &Val) -> Option<f64> {
    match v.v {
        V::Int(i) => Some(i as f64),
        V::Float(f) => Some(f),
        V::Bool(b) => Some(b as i64 as f64),
        _ => None,
    }
}

fn num_val(f: f64) -> Val {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Val::new(V::Int(f as i64))
    } else {
        Val::new(V::Float(f))
    }
}

/// Keep ints as ints and floats as floats, as Python arithmetic does.
fn num_val_like(f: f64, float: bool) -> Val {
    if float { Val::new(V::Float(f)) } else { num_val(f) }
}

struct Sorter<'c> {
    g: Graph,
    chunks: &'c mut Vec<Chunk>,
    cap: f64,
}

impl Sorter<'_> {
    /// Normalise a chunk's `order` value as `_get_chunk_order` does for a missing/invalid one.
    fn normalise(&mut self, ci: usize) -> f64 {
        let cap = self.cap;
        let d = &mut self.chunks[ci].d;
        let order = d.get("order").cloned();
        match order.as_ref().and_then(num_of) {
            Some(n) => n,
            None => {
                let n = match order.as_ref().and_then(Val::as_str) {
                    Some("last") => cap + 1_000_000.0,
                    Some("first") => 0.0,
                    _ => cap,
                };
                d.set_str("order", num_val(n));
                n
            }
        }
    }

    /// `_get_chunk_order(cap, node)`.
    fn chunk_order(&mut self, node: &str) -> (f64, f64) {
        let cap = self.cap;
        let ci = self.g.nodes.get(node).and_then(|n| n.chunk);
        let mut order = cap;
        if let Some(ci) = ci {
            let mut is_float = matches!(self.chunks[ci].d.get("order").map(|v| &v.v), Some(V::Float(_)));
            order = self.normalise(ci);
            let d = &mut self.chunks[ci].d;
            let name_order = d.remove("name_order").and_then(|(_, v)| num_of(&v)).unwrap_or(0.0);
            if name_order != 0.0 {
                order += name_order / 10000.0;
                is_float = true;
                d.set_str("order", Val::new(V::Float(order)));
            }
            if order < 0.0 {
                order += cap + 1_000_000.0;
                d.set_str("order", num_val_like(order, is_float));
            }
        } else {
            // A node without a chunk: `chunk.get("order")` is None, so it gets `cap`.
        }
        if self.g.nodes.get(node).is_some_and(|n| n.child_min.is_none()) {
            let mut child_min = f64::INFINITY;
            let mut req_order: f64 = f64::NEG_INFINITY;
            for (child, kind) in self.g.out_edges(node) {
                let w = weight(kind) as f64;
                if req_order <= w {
                    req_order = w;
                    let child_ci = self.g.nodes.get(&child).and_then(|n| n.chunk);
                    let child_order = match child_ci {
                        None => f64::INFINITY,
                        Some(c) => match self.chunks[c].d.get("order") {
                            None => f64::INFINITY,
                            Some(_) => self.normalise(c),
                        },
                    };
                    child_min = child_min.min(child_order);
                }
            }
            if let Some(n) = self.g.nodes.get_mut(node) {
                n.child_min = Some(child_min);
            }
            if order > child_min {
                order = child_min;
            }
        }
        let own = match ci {
            Some(ci) => self.chunks[ci].d.get("order").and_then(num_of).unwrap_or(cap),
            None => cap,
        };
        (order, own)
    }

    fn label(&self, node: &str) -> String {
        match self.g.nodes.get(node).and_then(|n| n.chunk) {
            Some(ci) => {
                let c = &self.chunks[ci];
                format!("{}{}{}", c.get_str("state"), c.get_str("name"), c.get_str("fun"))
            }
            None => String::new(),
        }
    }
}

#[derive(PartialEq)]
struct Key {
    order: (f64, f64),
    label: String,
    node: String,
}

impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and Python's heapq a min-heap.
        other
            .order
            .0
            .total_cmp(&self.order.0)
            .then(other.order.1.total_cmp(&self.order.1))
            .then_with(|| other.label.cmp(&self.label))
            .then_with(|| other.node.cmp(&self.node))
    }
}

/// `State.order_chunks(chunks)` on freshly compiled chunks (`compile_high_data`'s tail).
pub fn order_chunks(mut chunks: Vec<Chunk>) -> Ordered {
    let mut g = Graph::default();
    for (i, c) in chunks.iter().enumerate() {
        add_chunk(&mut g, c, i);
    }
    let mut errors = Vec::new();
    let mut cap: f64 = 1.0;
    for i in 0..chunks.len() {
        reconcile_watch_req(&mut chunks[i].d);
        match add_requisites(&mut g, &mut chunks, i) {
            Some(e) => errors.push(e),
            None => {
                if let Some(V::Int(o)) = chunks[i].d.get("order").map(|v| &v.v) {
                    let o = *o as f64;
                    if o > cap - 1.0 && o > 0.0 {
                        cap = o + 100.0;
                    }
                }
                if let Some(V::Bool(b)) = chunks[i].d.get("order").map(|v| &v.v) {
                    let o = *b as i64 as f64;
                    if o > cap - 1.0 && o > 0.0 {
                        cap = o + 100.0;
                    }
                }
            }
        }
    }
    let mut s = Sorter { g, chunks: &mut chunks, cap };
    let mut in_degree: IndexMap<String, usize> = s.g.nodes.keys().map(|k| (k.clone(), 0)).collect();
    for (target, srcs) in &s.g.inn {
        let n: usize = srcs.values().map(IndexSet::len).sum();
        if let Some(d) = in_degree.get_mut(target) {
            *d += n;
        }
    }
    let mut heap = BinaryHeap::new();
    let node_names: Vec<String> = s.g.nodes.keys().cloned().collect();
    for node in &node_names {
        if in_degree.get(node) == Some(&0) {
            let order = s.chunk_order(node);
            heap.push(Key { order, label: s.label(node), node: node.clone() });
        }
    }
    let mut topo: Vec<String> = Vec::new();
    while let Some(Key { node, .. }) = heap.pop() {
        topo.push(node.clone());
        let targets: Vec<(String, usize)> = s
            .g
            .out
            .get(&node)
            .map(|m| m.iter().map(|(t, k)| (t.clone(), k.len())).collect())
            .unwrap_or_default();
        for (t, n) in targets {
            if let Some(d) = in_degree.get_mut(&t) {
                *d = d.saturating_sub(n);
                if *d == 0 {
                    let order = s.chunk_order(&t);
                    heap.push(Key { order, label: s.label(&t), node: t.clone() });
                }
            }
        }
    }
    if topo.len() != node_names.len() {
        let edges = find_cycle(&s.g);
        let mut parts = Vec::new();
        let mut err = SaltError::new(Code::RequisiteCycle, String::new());
        for (dependency, dependent, mut kind) in edges {
            let dep_ci = s.g.nodes.get(&dependency).and_then(|n| n.chunk);
            let dnt_ci = s.g.nodes.get(&dependent).and_then(|n| n.chunk);
            let (Some(dep_ci), Some(dnt_ci)) = (dep_ci, dnt_ci) else { continue };
            if kind == "require" && !s.chunks[dnt_ci].d.contains(kind) {
                kind = "prereq";
            }
            let dependent_c = &s.chunks[dnt_ci];
            let dependency_c = &s.chunks[dep_ci];
            parts.push(format!("({}, '{kind}', {})", chunk_str(dependent_c), chunk_str(dependency_c)));
            err.cycle_ids.push((dependent_c.get_str("__id__"), dependent_c.id_loc.clone()));
            if err.id.is_none() {
                err.loc = dependent_c.id_loc.clone();
                err.id = Some(dependent_c.get_str("__id__"));
            }
            err = err.related(
                dependent_c.id_loc.clone(),
                format!(
                    "`{}` ({}) {kind} `{}` ({})",
                    dependent_c.get_str("__id__"),
                    dependent_c.get_str("__sls__"),
                    dependency_c.get_str("__id__"),
                    dependency_c.get_str("__sls__")
                ),
            );
        }
        err.message = format!("Recursive requisites were found: {}", parts.join(", "));
        errors.push(err);
        return Ordered { chunks: Vec::new(), errors };
    }
    let out = topo
        .iter()
        .map(|n| match s.g.nodes.get(n).and_then(|d| d.chunk) {
            Some(ci) => s.chunks[ci].clone(),
            None => Chunk { d: Dict::new(), id_loc: None },
        })
        .collect();
    Ordered { chunks: out, errors }
}

fn chunk_str(c: &Chunk) -> String {
    let mut s = format!("{{'SLS': {}, 'ID': {}", py_str_repr(&c.get_str("__sls__")), py_str_repr(&c.get_str("__id__")));
    if c.get_str("__id__") != c.get_str("name") {
        s.push_str(&format!(", 'NAME': {}", py_str_repr(&c.get_str("name"))));
    }
    s.push('}');
    s
}

fn add_chunk(g: &mut Graph, c: &Chunk, i: usize) {
    let tag = c.tag();
    g.add_node(&tag);
    if let Some(n) = g.nodes.get_mut(&tag) {
        n.chunk = Some(i);
    }
    let state = c.get_str("state");
    let name = c.get_str("name");
    let id = c.get_str("__id__");
    for key in [(state.clone(), name.clone()), (state, id.clone()), ("id".into(), id), ("id".into(), name)] {
        g.lookup.entry(key).or_default().insert(tag.clone());
    }
    if let Some(sls) = c.d.get("__sls__").filter(|v| v.truthy()) {
        g.sls_to_nodes.entry(sls.py_str()).or_default().insert(tag.clone());
    }
    if let Some(from) = c.d.get("__sls_included_from__").and_then(Val::as_list) {
        for sls in from {
            g.sls_to_nodes.entry(sls.py_str()).or_default().insert(tag.clone());
        }
    }
}

/// `_reconcile_watch_req`: `watch` becomes `require` on modules without `mod_watch`.
fn reconcile_watch_req(d: &mut Dict) {
    let state = d.get("state").map(Val::py_str).unwrap_or_default();
    if has_mod_watch(&state) {
        return;
    }
    for (from, to) in [("watch", "require"), ("watch_any", "require_any")] {
        if let Some((_, v)) = d.remove(from) {
            let items = match v.v {
                V::List(l) => l,
                _ => Vec::new(),
            };
            match d.get_mut(to).and_then(Val::as_list_mut) {
                Some(l) => l.extend(items),
                None => d.set_str(to, Val::list(items)),
            }
        }
    }
}

/// `DependencyGraph.add_requisites(low)`: the first problem, if any.
fn add_requisites(g: &mut Graph, chunks: &mut [Chunk], i: usize) -> Option<SaltError> {
    if !REQUISITE_TYPES.iter().any(|k| chunks[i].d.contains(k)) {
        return None;
    }
    for rtype in ORDERING_TYPES {
        let Some(reqs) = chunks[i].d.get(rtype).filter(|v| v.truthy()).cloned() else { continue };
        let items: Vec<Val> = match reqs.v {
            V::List(l) => l,
            _ => continue,
        };
        for req in items {
            let (mut key, val, at) = match &req.v {
                V::Str(s) => ("id".to_string(), Val::str(s.clone()), req.at.clone()),
                V::Dict(d) if !d.is_empty() => (d.0[0].0.py_str(), d.0[0].1.clone(), req.at.clone()),
                _ => continue,
            };
            if let Some(dot) = key.find('.') {
                key.truncate(dot);
            }
            if val.is_none() {
                continue;
            }
            let c = &chunks[i];
            let Some(val_s) = val.as_str().map(str::to_string) else {
                return Some(
                    SaltError::new(
                        Code::MalformedState,
                        format!(
                            "Requisite [{rtype}: {key}] in state [{}] in SLS [{}] must have a string as the value",
                            c.get_str("name"),
                            c.get_str("__sls__")
                        ),
                    )
                    .at(at)
                    .id(c.get_str("__id__")),
                );
            };
            if !add_dependency(g, chunks, i, kind(rtype), &key, &val_s) {
                let c = &chunks[i];
                return Some(
                    SaltError::new(
                        Code::MissingRequisiteTarget,
                        format!(
                            "Referenced state does not exist for requisite [{rtype}: ({key}: {val_s})] in state [{}] in SLS [{}]",
                            c.get_str("name"),
                            c.get_str("__sls__")
                        ),
                    )
                    .at(at.or(c.id_loc.clone()))
                    .id(c.get_str("__id__"))
                    .target(val_s),
                );
            }
        }
    }
    None
}

fn add_dependency(g: &mut Graph, chunks: &mut [Chunk], i: usize, rtype: &'static str, key: &str, val: &str) -> bool {
    let has_prereq = chunks[i].d.get("__prereq__").is_some_and(Val::truthy);
    let tag = chunks[i].tag();
    let magic = fnmatch::has_magic(val);
    let mut targets: Vec<Vec<String>> = Vec::new();
    let mut found = false;
    if key == "sls" {
        if magic {
            found = true;
            let p = fnmatch::Pattern::new(val);
            for (sls, tags) in &g.sls_to_nodes {
                if p.matches(sls) {
                    targets.push(tags.iter().cloned().collect());
                }
            }
        } else if let Some(tags) = g.sls_to_nodes.get(val).filter(|t| !t.is_empty()) {
            found = true;
            targets.push(tags.iter().cloned().collect());
        }
    } else if magic {
        let p = fnmatch::Pattern::new(val);
        for ((st, name), tags) in &g.lookup {
            if st == key && p.matches(name) {
                found = true;
                targets.push(tags.iter().cloned().collect());
            }
        }
    } else if let Some(tags) = g.lookup.get(&(key.to_string(), val.to_string())).filter(|t| !t.is_empty()) {
        found = true;
        targets.push(tags.iter().cloned().collect());
    }
    for group in targets {
        for req_tag in group {
            if rtype == "prereq" {
                add_prereq(g, chunks, &tag, &req_tag);
            } else {
                if has_prereq {
                    g.add_edge(&req_tag, &prereq_tag(&tag), rtype);
                }
                g.add_edge(&req_tag, &tag, rtype);
            }
        }
    }
    found
}

fn add_prereq(g: &mut Graph, chunks: &mut [Chunk], node_tag: &str, req_tag: &str) {
    if let Some(ci) = g.nodes.get(node_tag).and_then(|n| n.chunk) {
        chunks[ci].d.set_str("__prerequiring__", Val::new(V::Bool(true)));
    }
    let req_ci = g.nodes.get(req_tag).and_then(|n| n.chunk);
    if let Some(ci) = req_ci {
        chunks[ci].d.set_str("__prereq__", Val::new(V::Bool(true)));
    }
    let check = prereq_tag(req_tag);
    if !g.has_chunk(&check) {
        g.add_node(&check);
        if let Some(n) = g.nodes.get_mut(&check) {
            n.chunk = req_ci;
        }
        for (dep, kind) in g.in_edges(req_tag) {
            if kind != "prereq" {
                g.add_edge(&dep, &check, kind);
            }
        }
    }
    g.add_edge(&check, node_tag, "prereq");
    g.add_edge(node_tag, req_tag, "require");
    let node_check = prereq_tag(node_tag);
    if g.has_chunk(&node_check) {
        g.add_edge(&check, &node_check, "prereq");
    }
}

/// `MultiDiGraph.find_cycle`: the first cycle a colour DFS finds, as `(src, dst, kind)` edges.
fn find_cycle(g: &Graph) -> Vec<(String, String, &'static str)> {
    #[derive(Clone, Copy, PartialEq)]
    enum C {
        White,
        Gray,
        Black,
    }
    let mut color: HashMap<&str, C> = g.nodes.keys().map(|k| (k.as_str(), C::White)).collect();
    let mut parent: HashMap<String, (String, &'static str)> = HashMap::new();
    for start in g.nodes.keys() {
        if color.get(start.as_str()) != Some(&C::White) {
            continue;
        }
        // Iterative DFS keeping, per frame, the node and its remaining out-edges.
        let mut stack: Vec<(String, Vec<(String, &'static str)>, usize)> = Vec::new();
        color.insert(start, C::Gray);
        stack.push((start.clone(), g.out_edges(start), 0));
        while let Some((node, edges, idx)) = stack.last_mut() {
            if *idx >= edges.len() {
                let n = node.clone();
                stack.pop();
                if let Some(k) = g.nodes.get_key_value(&n) {
                    color.insert(k.0.as_str(), C::Black);
                }
                continue;
            }
            let (target, kind) = edges[*idx].clone();
            *idx += 1;
            let node = node.clone();
            match color.get(target.as_str()).copied().unwrap_or(C::White) {
                C::Gray => {
                    let mut cycle = vec![(node.clone(), target.clone(), kind)];
                    let mut current = node;
                    while current != target {
                        let Some((prev, k)) = parent.get(&current).cloned() else { break };
                        cycle.push((prev.clone(), current.clone(), k));
                        current = prev;
                    }
                    cycle.reverse();
                    return cycle;
                }
                C::White => {
                    parent.insert(target.clone(), (node, kind));
                    if let Some(k) = g.nodes.get_key_value(&target) {
                        color.insert(k.0.as_str(), C::Gray);
                    }
                    let edges = g.out_edges(&target);
                    stack.push((target, edges, 0));
                }
                C::Black => {}
            }
        }
    }
    Vec::new()
}
