//! Chunk ordering, `State.order_chunks`: Salt 3008's (`salt/utils/requisite.py`
//! `DependencyGraph`: requisite edges, the priority topological sort, missing requisite
//! targets and the first cycle found), and 3006's and 3007's (a sort by `order` alone; they
//! find requisite problems while running).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use indexmap::{IndexMap, IndexSet};
use smallvec::SmallVec;

use crate::diagnostic::{Code, SaltError};
use crate::py::fnmatch;
use crate::requisites::{weight, ORDERING_TYPES, REQUISITE_TYPES};
use crate::state::chunk::{Chunk, LowChunk};
use crate::value::{py_str_repr, Dict, Loc, Val, V};
use crate::version::SaltVersion;

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

/// The graph's hasher: its keys are our own tags and IDs, so a fast unkeyed-quality hash will
/// do (foldhash, already hashbrown's default).
type Fast = foldhash::fast::RandomState;

/// A node's edges to (or from) other nodes, in first-insertion order (networkx's adjacency
/// dicts), each with its requisite kinds in insertion order.
type Adjacency = Vec<(usize, SmallVec<[&'static str; 2]>)>;

/// The requisite multigraph; nodes are numbered in insertion order and named by their tag.
struct Graph {
    nodes: IndexMap<String, NodeData, Fast>,
    out: Vec<Adjacency>,
    inn: Vec<Adjacency>,
    /// `(src, dst)` -> position of `dst` in `out[src]` and of `src` in `inn[dst]`.
    edge_at: HashMap<(usize, usize), (usize, usize), Fast>,
    /// `(state or "id", name or ID)` -> nodes (a handful each: a plain list).
    lookup: IndexMap<(String, String), SmallVec<[usize; 2]>, Fast>,
    sls_to_nodes: IndexMap<String, IndexSet<usize, Fast>, Fast>,
    /// The node of each chunk.
    chunk_node: Vec<usize>,
}

fn prereq_tag(tag: &str) -> String {
    format!("{tag}_|-__prereq_test__")
}

fn kind(name: &str) -> &'static str {
    REQUISITE_TYPES.iter().find(|k| **k == name).copied().unwrap_or("require")
}

impl Graph {
    /// A graph sized for `n` chunks (about one node, two lookup keys and an edge each), so
    /// that building it does not grow and rehash its tables as it goes.
    fn with_capacity(n: usize) -> Graph {
        Graph {
            nodes: IndexMap::with_capacity_and_hasher(n, Fast::default()),
            out: Vec::with_capacity(n),
            inn: Vec::with_capacity(n),
            edge_at: HashMap::with_capacity_and_hasher(n, Fast::default()),
            lookup: IndexMap::with_capacity_and_hasher(2 * n, Fast::default()),
            sls_to_nodes: IndexMap::default(),
            chunk_node: Vec::with_capacity(n),
        }
    }
    fn add_node(&mut self, tag: &str) -> usize {
        match self.nodes.get_index_of(tag) {
            Some(i) => i,
            None => self.add_node_owned(tag.to_string()),
        }
    }
    /// [`Graph::add_node`] for a tag already owned.
    fn add_node_owned(&mut self, tag: String) -> usize {
        match self.nodes.entry(tag) {
            indexmap::map::Entry::Occupied(e) => e.index(),
            indexmap::map::Entry::Vacant(e) => {
                let i = e.index();
                e.insert(NodeData::default());
                self.out.push(Vec::new());
                self.inn.push(Vec::new());
                i
            }
        }
    }
    fn add_edge(&mut self, src: usize, dst: usize, key: &'static str) {
        let (o, i) = match self.edge_at.get(&(src, dst)) {
            Some(&at) => at,
            None => {
                let at = (self.out[src].len(), self.inn[dst].len());
                self.out[src].push((dst, SmallVec::new()));
                self.inn[dst].push((src, SmallVec::new()));
                self.edge_at.insert((src, dst), at);
                at
            }
        };
        let kinds = &mut self.out[src][o].1;
        if !kinds.contains(&key) {
            kinds.push(key);
            self.inn[dst][i].1.push(key);
        }
    }
    fn in_edges(&self, node: usize) -> Vec<(usize, &'static str)> {
        self.inn[node].iter().flat_map(|(src, keys)| keys.iter().map(move |k| (*src, *k))).collect()
    }
    fn out_edges(&self, node: usize) -> Vec<(usize, &'static str)> {
        self.out[node].iter().flat_map(|(dst, keys)| keys.iter().map(move |k| (*dst, *k))).collect()
    }
    fn chunk(&self, node: usize) -> Option<usize> {
        self.nodes.get_index(node).and_then(|(_, n)| n.chunk)
    }
    fn tag(&self, node: usize) -> &str {
        self.nodes.get_index(node).map_or("", |(t, _)| t.as_str())
    }
    fn has_chunk(&self, tag: &str) -> bool {
        self.nodes.get(tag).is_some_and(|n| n.chunk.is_some())
    }
}

/// A number's value (`True` is 1, as in Python).
pub(crate) fn num_of(v: &Val) -> Option<f64> {
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
    if float {
        Val::new(V::Float(f))
    } else {
        num_val(f)
    }
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
    fn chunk_order(&mut self, node: usize) -> (f64, f64) {
        let cap = self.cap;
        let ci = self.g.chunk(node);
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
        if self.g.nodes.get_index(node).is_some_and(|(_, n)| n.child_min.is_none()) {
            let mut child_min = f64::INFINITY;
            let mut req_order: f64 = f64::NEG_INFINITY;
            for (child, kind) in self.g.out_edges(node) {
                let w = weight(kind) as f64;
                if req_order <= w {
                    req_order = w;
                    let child_ci = self.g.chunk(child);
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
            if let Some((_, n)) = self.g.nodes.get_index_mut(node) {
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

    fn label(&self, node: usize) -> String {
        match self.g.chunk(node) {
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
    tag: String,
    node: usize,
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
            .then_with(|| other.tag.cmp(&self.tag))
    }
}

/// `State.order_chunks(chunks)` of Salt 3008 on freshly compiled chunks (`compile_high_data`'s tail).
pub fn order_chunks(chunks: Vec<Chunk>) -> Ordered {
    sort(chunks, false).0
}

/// `State.order_chunks(chunks)` as the minion's release does it: 3008's requisite graph, or
/// the sort by `order` of 3006 and 3007, which never fails.
pub fn order_chunks_as(chunks: Vec<Chunk>, version: SaltVersion) -> Ordered {
    if version.requisite_graph() {
        order_chunks(chunks)
    } else {
        Ordered { chunks: order_by_order(chunks), errors: Vec::new() }
    }
}

/// `State.order_chunks` of Salt 3006 and 3007: `cap` is 100 past the largest positive
/// integer `order` (a bool is an integer); a chunk without `order` gets `cap` (and keeps its
/// `name_order`); `last` is `cap + 1000000`, `first` 0, anything else not a number `cap`;
/// `name_order` adds a ten-thousandth per place; a negative order counts back from
/// `cap + 1000000`. Then a stable sort by `(order, state + name + fun)`.
fn order_by_order(mut chunks: Vec<Chunk>) -> Vec<Chunk> {
    let cap = order_cap(&chunks, &[]);
    let mut keys = Vec::with_capacity(chunks.len());
    for c in &mut chunks {
        let d = &mut c.d;
        let order = match d.get("order") {
            None => {
                d.set_str("order", num_val(cap));
                cap
            }
            Some(v) => {
                let (mut order, mut is_float) = match (&v.v, num_of(v)) {
                    (V::Float(_), Some(n)) => (n, true),
                    (_, Some(n)) => (n, false),
                    (V::Str(s), None) if s == "last" => (cap + 1_000_000.0, false),
                    (V::Str(s), None) if s == "first" => (0.0, false),
                    _ => (cap, false),
                };
                let mut changed = num_of(v).is_none();
                if let Some((_, n)) = d.remove("name_order") {
                    order += num_of(&n).unwrap_or(0.0) / 10000.0;
                    (is_float, changed) = (true, true);
                }
                if order < 0.0 {
                    order += cap + 1_000_000.0;
                    changed = true;
                }
                if changed {
                    d.set_str("order", num_val_like(order, is_float));
                }
                order
            }
        };
        keys.push((order, format!("{}{}{}", c.get_str("state"), c.get_str("name"), c.get_str("fun"))));
    }
    let mut at: Vec<usize> = (0..chunks.len()).collect();
    at.sort_by(|&a, &b| keys[a].0.total_cmp(&keys[b].0).then_with(|| keys[a].1.cmp(&keys[b].1)));
    let mut slots: Vec<Option<Chunk>> = chunks.into_iter().map(Some).collect();
    at.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// One node of the sorted requisite graph, at the same position as its chunk in
/// [`Ordered::chunks`].
#[derive(Debug, Clone)]
pub struct Step {
    /// The node's tag: the chunk's, or with `_|-__prereq_test__` appended for the test run
    /// of a state another state `prereq`s.
    pub tag: String,
    /// Whether this is that test run (its chunk is the prereq'd state's).
    pub prereq_test: bool,
    /// The nodes it waits for (positions in the sorted order) and the requisite kind of each
    /// edge, in the graph's insertion order (`DependencyGraph.get_dependencies`).
    pub after: Vec<(usize, &'static str)>,
}

/// [`order_chunks`], and the graph it sorted: one [`Step`] per ordered chunk (empty when
/// there were errors).
pub fn order_chunks_traced(chunks: Vec<Chunk>) -> (Ordered, Vec<Step>) {
    sort(chunks, true)
}

fn sort(mut chunks: Vec<Chunk>, trace: bool) -> (Ordered, Vec<Step>) {
    let (g, failed) = build_graph(&mut chunks);
    let cap = order_cap(&chunks, &failed);
    let mut errors: Vec<SaltError> = failed.into_iter().map(|(_, e)| e).collect();
    let mut s = Sorter { g, chunks: &mut chunks, cap };
    let count = s.g.nodes.len();
    let mut in_degree: Vec<usize> = s.g.inn.iter().map(|srcs| srcs.iter().map(|(_, k)| k.len()).sum()).collect();
    let mut heap = BinaryHeap::new();
    for (node, _) in in_degree.iter().enumerate().take(count).filter(|(_, d)| **d == 0) {
        {
            let order = s.chunk_order(node);
            heap.push(Key { order, label: s.label(node), tag: s.g.tag(node).to_string(), node });
        }
    }
    let mut topo: Vec<usize> = Vec::new();
    while let Some(Key { node, .. }) = heap.pop() {
        topo.push(node);
        let targets: Vec<(usize, usize)> = s.g.out[node].iter().map(|(t, k)| (*t, k.len())).collect();
        for (t, n) in targets {
            let d = &mut in_degree[t];
            *d = d.saturating_sub(n);
            if *d == 0 {
                let order = s.chunk_order(t);
                heap.push(Key { order, label: s.label(t), tag: s.g.tag(t).to_string(), node: t });
            }
        }
    }
    if topo.len() != count {
        errors.push(cycle_error(&s.g, s.chunks));
        return (Ordered { chunks: Vec::new(), errors }, Vec::new());
    }
    // Each chunk moves into the result at its last place in the order (a prereq's test run
    // puts a chunk there twice: the earlier place gets a copy).
    let mut uses = vec![0usize; s.chunks.len()];
    for ci in topo.iter().filter_map(|&n| s.g.chunk(n)) {
        uses[ci] += 1;
    }
    let out = topo
        .iter()
        .map(|&n| match s.g.chunk(n) {
            Some(ci) => {
                uses[ci] -= 1;
                if uses[ci] == 0 {
                    std::mem::replace(&mut s.chunks[ci], Chunk { d: Dict::new(), id_loc: None })
                } else {
                    s.chunks[ci].clone()
                }
            }
            None => Chunk { d: Dict::new(), id_loc: None },
        })
        .collect();
    let steps = if trace && errors.is_empty() { steps_of(&s.g, &topo) } else { Vec::new() };
    (Ordered { chunks: out, errors }, steps)
}

/// The [`Step`] of each node of `topo`.
fn steps_of(g: &Graph, topo: &[usize]) -> Vec<Step> {
    let mut at = vec![0; topo.len()];
    for (pos, &n) in topo.iter().enumerate() {
        at[n] = pos;
    }
    topo.iter()
        .map(|&n| {
            let tag = g.tag(n).to_string();
            let prereq_test = g.chunk(n).is_some_and(|ci| g.chunk_node.get(ci) != Some(&n));
            Step { tag, prereq_test, after: g.in_edges(n).into_iter().map(|(src, kind)| (at[src], kind)).collect() }
        })
        .collect()
}

/// The errors [`order_chunks`] would report on `compile_high_data(high)` (missing targets,
/// malformed requisites, the first cycle), without copying the high data into chunks and
/// without the priority sort that orders them: what the checker needs.
pub fn ordering_errors(high: &Dict) -> Vec<SaltError> {
    let mut chunks = crate::state::compile::low_views(high);
    let (g, failed) = build_graph(&mut chunks);
    let mut errors: Vec<SaltError> = failed.into_iter().map(|(_, e)| e).collect();
    // Whether the graph is acyclic does not depend on the order nodes are taken in.
    let in_degree: Vec<usize> = g.inn.iter().map(|srcs| srcs.iter().map(|(_, k)| k.len()).sum()).collect();
    if kahn_count(&g, in_degree) != g.nodes.len() {
        errors.push(cycle_error(&g, &chunks));
    }
    errors
}

/// The requisite graph of `chunks` and the first problem of each chunk's requisites, with
/// the index of the chunk it is about.
fn build_graph<C: LowChunk>(chunks: &mut [C]) -> (Graph, Vec<(usize, SaltError)>) {
    let mut g = Graph::with_capacity(chunks.len());
    for (i, c) in chunks.iter().enumerate() {
        add_chunk(&mut g, c, i);
    }
    let mut errors = Vec::new();
    for i in 0..chunks.len() {
        chunks[i].reconcile_watch_req();
        if let Some(e) = add_requisites(&mut g, chunks, i) {
            errors.push((i, e));
        }
    }
    (g, errors)
}

/// The `order` given to chunks without a numeric one: Salt walks the chunks whose
/// requisites were all found, in order, and moves the cap to 100 past each positive integer
/// `order` (a bool counts as 0 or 1, as in Python) above `cap - 1`. The walk's order matters.
fn order_cap(chunks: &[Chunk], failed: &[(usize, SaltError)]) -> f64 {
    let mut failed = failed.iter().map(|(i, _)| *i).peekable();
    let mut cap: f64 = 1.0;
    for (i, c) in chunks.iter().enumerate() {
        if failed.next_if_eq(&i).is_some() {
            continue;
        }
        let o = match c.d.get("order").map(|v| &v.v) {
            Some(V::Int(o)) => *o as f64,
            Some(V::Bool(b)) => *b as i64 as f64,
            _ => continue,
        };
        if o > cap - 1.0 && o > 0.0 {
            cap = o + 100.0;
        }
    }
    cap
}

/// The error for the first cycle `find_cycle` finds in `g`.
fn cycle_error<C: LowChunk>(g: &Graph, chunks: &[C]) -> SaltError {
    let edges = find_cycle(g);
    let mut parts = Vec::new();
    let mut err = SaltError::new(Code::RequisiteCycle, String::new());
    for (dependency, dependent, mut kind) in edges {
        let (Some(dep_ci), Some(dnt_ci)) = (g.chunk(dependency), g.chunk(dependent)) else { continue };
        if kind == "require" && !chunks[dnt_ci].contains(kind) {
            kind = "prereq";
        }
        let dependent_c = &chunks[dnt_ci];
        let dependency_c = &chunks[dep_ci];
        parts.push(format!("({}, '{kind}', {})", chunk_str(dependent_c), chunk_str(dependency_c)));
        let id = dependent_c.str("__id__").into_owned();
        err.cycle_ids.push((id.clone(), dependent_c.id_loc().cloned()));
        if err.id.is_none() {
            err.loc = dependent_c.id_loc().cloned();
            err.id = Some(id.clone());
        }
        err = err.related(
            dependent_c.id_loc().cloned(),
            format!("`{id}` ({}) {kind} `{}` ({})", dependent_c.str("__sls__"), dependency_c.str("__id__"), dependency_c.str("__sls__")),
        );
    }
    err.message = format!("Recursive requisites were found: {}", parts.join(", "));
    err
}

/// How many nodes a plain topological sort takes (all of them exactly when there is no cycle).
fn kahn_count(g: &Graph, mut degree: Vec<usize>) -> usize {
    let mut queue: Vec<usize> = (0..degree.len()).filter(|&i| degree[i] == 0).collect();
    let mut taken = 0;
    while let Some(i) = queue.pop() {
        taken += 1;
        for (t, keys) in &g.out[i] {
            degree[*t] = degree[*t].saturating_sub(keys.len());
            if degree[*t] == 0 {
                queue.push(*t);
            }
        }
    }
    taken
}

fn chunk_str<C: LowChunk>(c: &C) -> String {
    let mut s = format!("{{'SLS': {}, 'ID': {}", py_str_repr(&c.str("__sls__")), py_str_repr(&c.str("__id__")));
    if c.str("__id__") != c.str("name") {
        s.push_str(&format!(", 'NAME': {}", py_str_repr(&c.str("name"))));
    }
    s.push('}');
    s
}

fn add_chunk<C: LowChunk>(g: &mut Graph, c: &C, i: usize) {
    let tag = g.add_node_owned(c.tag());
    if let Some((_, n)) = g.nodes.get_index_mut(tag) {
        n.chunk = Some(i);
    }
    g.chunk_node.push(tag);
    let state = c.str("state");
    let name = c.str("name");
    let id = c.str("__id__");
    // In this order (the lookup's order is the order globbed requisites find targets in); when
    // the name is the ID, the second and fourth pairs repeat the first and third.
    let all = [(&*state, &*name), (&*state, &*id), ("id", &*id), ("id", &*name)];
    let distinct = [all[0], all[2]];
    for &(a, b) in if name == id { &distinct[..] } else { &all[..] } {
        // Most pairs are new: one hash for the owned key, at the price of a copy when not.
        let tags = g.lookup.entry((a.to_string(), b.to_string())).or_default();
        if !tags.contains(&tag) {
            tags.push(tag);
        }
    }
    let mut add_sls = |sls: &Val| {
        let owned;
        let name = match sls.as_str() {
            Some(s) => s,
            None => {
                owned = sls.py_str();
                &owned
            }
        };
        match g.sls_to_nodes.get_mut(name) {
            Some(tags) => {
                tags.insert(tag);
            }
            None => {
                let mut tags = IndexSet::with_hasher(Fast::default());
                tags.insert(tag);
                g.sls_to_nodes.insert(name.to_string(), tags);
            }
        }
    };
    if let Some(sls) = c.get("__sls__").filter(|v| v.truthy()) {
        add_sls(sls);
    }
    if let Some(from) = c.get("__sls_included_from__").and_then(Val::as_list) {
        for sls in from {
            add_sls(sls);
        }
    }
}

/// `DependencyGraph.add_requisites(low)`: the first problem, if any.
fn add_requisites<C: LowChunk>(g: &mut Graph, chunks: &mut [C], i: usize) -> Option<SaltError> {
    if !chunks[i].has_requisite() {
        return None;
    }
    for (at, rtype) in ORDERING_TYPES.iter().enumerate() {
        // The items are read off the chunk first (adding a dependency marks chunks).
        let (first, more) = chunks[i].requisite_items(at);
        let items: Vec<(String, Option<String>, Option<Loc>)> = first
            .iter()
            .chain(more)
            .filter_map(|req| {
                let (key, val) = match &req.v {
                    V::Str(s) => ("id".to_string(), Some(s.clone())),
                    V::Dict(d) if !d.is_empty() => {
                        let (k, v) = &d.0[0];
                        if v.is_none() {
                            return None;
                        }
                        let mut key = k.py_str();
                        if let Some(dot) = key.find('.') {
                            key.truncate(dot);
                        }
                        (key, v.as_str().map(str::to_string))
                    }
                    _ => return None,
                };
                Some((key, val, req.at.clone()))
            })
            .collect();
        for (key, val, at) in items {
            let c = &chunks[i];
            let Some(val_s) = val else {
                return Some(
                    SaltError::new(
                        Code::MalformedState,
                        format!("Requisite [{rtype}: {key}] in state [{}] in SLS [{}] must have a string as the value", c.str("name"), c.str("__sls__")),
                    )
                    .at(at)
                    .id(c.str("__id__").into_owned()),
                );
            };
            if !add_dependency(g, chunks, i, kind(rtype), &key, &val_s) {
                let c = &chunks[i];
                return Some(
                    SaltError::new(
                        Code::MissingRequisiteTarget,
                        format!(
                            "Referenced state does not exist for requisite [{rtype}: ({key}: {val_s})] in state [{}] in SLS [{}]",
                            c.str("name"),
                            c.str("__sls__")
                        ),
                    )
                    .at(at.or(c.id_loc().cloned()))
                    .id(c.str("__id__").into_owned())
                    .target(val_s),
                );
            }
        }
    }
    None
}

fn add_dependency<C: LowChunk>(g: &mut Graph, chunks: &mut [C], i: usize, rtype: &'static str, key: &str, val: &str) -> bool {
    let has_prereq = chunks[i].get("__prereq__").is_some_and(Val::truthy);
    let tag = g.chunk_node[i];
    let magic = fnmatch::has_magic(val);
    // The target nodes, group after group as Salt walks them.
    let mut targets: SmallVec<[usize; 4]> = SmallVec::new();
    let mut found = false;
    if key == "sls" {
        if magic {
            found = true;
            let p = fnmatch::Pattern::new(val);
            for (sls, tags) in &g.sls_to_nodes {
                if p.matches(sls) {
                    targets.extend(tags.iter().copied());
                }
            }
        } else if let Some(tags) = g.sls_to_nodes.get(val).filter(|t| !t.is_empty()) {
            found = true;
            targets.extend(tags.iter().copied());
        }
    } else if magic {
        let p = fnmatch::Pattern::new(val);
        for ((st, name), tags) in &g.lookup {
            if st == key && p.matches(name) {
                found = true;
                targets.extend(tags.iter().copied());
            }
        }
    } else if let Some(tags) = g.lookup.get(&PairRef(key, val)).filter(|t| !t.is_empty()) {
        found = true;
        targets.extend(tags.iter().copied());
    }
    for req_tag in targets {
        if rtype == "prereq" {
            add_prereq(g, chunks, tag, req_tag);
        } else {
            if has_prereq {
                let check = g.add_node(&prereq_tag(g.tag(tag)));
                g.add_edge(req_tag, check, rtype);
            }
            g.add_edge(req_tag, tag, rtype);
        }
    }
    found
}

/// A borrowed `(state, name)` lookup key: hashes as the owned `(String, String)` tuple does.
#[derive(Hash)]
struct PairRef<'a>(&'a str, &'a str);

impl indexmap::Equivalent<(String, String)> for PairRef<'_> {
    fn equivalent(&self, key: &(String, String)) -> bool {
        self.0 == key.0 && self.1 == key.1
    }
}

fn add_prereq<C: LowChunk>(g: &mut Graph, chunks: &mut [C], node: usize, req: usize) {
    if let Some(ci) = g.chunk(node) {
        chunks[ci].mark("__prerequiring__");
    }
    let req_ci = g.chunk(req);
    if let Some(ci) = req_ci {
        chunks[ci].mark("__prereq__");
    }
    let check_tag = prereq_tag(g.tag(req));
    let known = g.has_chunk(&check_tag);
    let check = g.add_node(&check_tag);
    if !known {
        if let Some((_, n)) = g.nodes.get_index_mut(check) {
            n.chunk = req_ci;
        }
        for (dep, kind) in g.in_edges(req) {
            if kind != "prereq" {
                g.add_edge(dep, check, kind);
            }
        }
    }
    g.add_edge(check, node, "prereq");
    g.add_edge(node, req, "require");
    let node_check = prereq_tag(g.tag(node));
    if g.has_chunk(&node_check) {
        let node_check = g.add_node(&node_check);
        g.add_edge(check, node_check, "prereq");
    }
}

/// `MultiDiGraph.find_cycle`: the first cycle a colour DFS finds, as `(src, dst, kind)` edges.
fn find_cycle(g: &Graph) -> Vec<(usize, usize, &'static str)> {
    #[derive(Clone, Copy, PartialEq)]
    enum C {
        White,
        Gray,
        Black,
    }
    let mut color: Vec<C> = vec![C::White; g.nodes.len()];
    let mut parent: HashMap<usize, (usize, &'static str)> = HashMap::new();
    for start in 0..g.nodes.len() {
        if color[start] != C::White {
            continue;
        }
        // Iterative DFS keeping, per frame, the node and its remaining out-edges.
        // Per frame: the node, its out-edges, and the next edge to follow.
        type Frame = (usize, Vec<(usize, &'static str)>, usize);
        let mut stack: Vec<Frame> = Vec::new();
        color[start] = C::Gray;
        stack.push((start, g.out_edges(start), 0));
        while let Some((node, edges, idx)) = stack.last_mut() {
            let node = *node;
            if *idx >= edges.len() {
                stack.pop();
                color[node] = C::Black;
                continue;
            }
            let (target, kind) = edges[*idx];
            *idx += 1;
            match color[target] {
                C::Gray => {
                    let mut cycle = vec![(node, target, kind)];
                    let mut current = node;
                    while current != target {
                        let Some(&(prev, k)) = parent.get(&current) else { break };
                        cycle.push((prev, current, k));
                        current = prev;
                    }
                    cycle.reverse();
                    return cycle;
                }
                C::White => {
                    parent.insert(target, (node, kind));
                    color[target] = C::Gray;
                    stack.push((target, g.out_edges(target), 0));
                }
                C::Black => {}
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::compile::compile_high_data;

    /// A small deterministic generator (the model crate has no property-testing dependency).
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    /// Random high data with every shape ordering reads: requisites of each kind by ID, by
    /// state, by SLS and by glob, `watch` on modules with and without `mod_watch`, `prereq`,
    /// `names` (plain, with their own requisites, repeated, not strings), non-string names and
    /// values, cycles and missing targets.
    fn random_high(rng: &mut Lcg) -> String {
        let ids = ["a", "b", "c", "d", "ß", "1"];
        let modules = ["pkg", "service", "cmd", "file", "test"];
        let kinds = ["require", "watch", "watch_any", "require_any", "prereq", "onchanges", "onfail", "listen", "use"];
        let mut out = String::new();
        let count = 1 + rng.below(6);
        let mut used = Vec::new();
        for _ in 0..count {
            let id = rng.pick(&ids);
            if used.contains(&id) {
                continue;
            }
            used.push(id);
            out.push_str(&format!("{id}:\n  __sls__: {}\n  __env__: base\n", rng.pick(&["s1", "s2", "dir.s3"])));
            if rng.below(4) == 0 {
                out.push_str("  __sls_included_from__: [s1]\n");
            }
            let mut mods = Vec::new();
            for _ in 0..1 + rng.below(2) {
                let m = rng.pick(&modules);
                if mods.contains(&m) {
                    continue;
                }
                mods.push(m);
                out.push_str(&format!("  {m}:\n    - {}\n", rng.pick(&["installed", "running", "run", "managed"])));
                if rng.below(5) == 0 {
                    out.push_str("    - other_fun\n");
                }
                for _ in 0..rng.below(4) {
                    match rng.below(6) {
                        0 => out.push_str(&format!("    - name: {}\n", rng.pick(&["x", "a", "5", "[1, 2]"]))),
                        1 => {
                            out.push_str("    - names:\n");
                            for _ in 0..1 + rng.below(3) {
                                match rng.below(3) {
                                    0 => out.push_str(&format!("      - {}\n", rng.pick(&["n1", "n2", "a", "7"]))),
                                    1 => out.push_str(&format!(
                                        "      - {}: [{{{}: [{}]}}, {{order: 3}}]\n",
                                        rng.pick(&["n1", "n3"]),
                                        rng.pick(&kinds),
                                        rng.pick(&["a", "b", "n1"])
                                    )),
                                    _ => out.push_str("      - {}\n"),
                                }
                            }
                        }
                        2 => out.push_str(&format!("    - order: {}\n", rng.pick(&["1", "last", "-1", "2.5"]))),
                        _ => {
                            out.push_str(&format!("    - {}:\n", rng.pick(&kinds)));
                            for _ in 0..1 + rng.below(3) {
                                let target = match rng.below(6) {
                                    0 => rng.pick(&ids).to_string(),
                                    1 => format!("{{sls: {}}}", rng.pick(&["s1", "s2", "s*", "nowhere"])),
                                    2 => format!("{{id: {}}}", rng.pick(&ids)),
                                    3 => format!("{{{}: {}}}", rng.pick(&["pkg.installed", "pkg", "cmd"]), rng.pick(&["'[ab]'", "~", "[1]", "n1"])),
                                    _ => format!("{{{}: {}}}", rng.pick(&modules), rng.pick(&["a", "b", "c", "x", "n1", "missing"])),
                                };
                                out.push_str(&format!("      - {target}\n"));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The checker's borrowed views give exactly the errors of sorting the compiled chunks.
    #[test]
    fn views_order_like_compiled_chunks() {
        let mut rng = Lcg(7);
        let (mut errors, mut cycles) = (0, 0);
        for _ in 0..3000 {
            let text = random_high(&mut rng);
            let Ok(v) = crate::render::render_yaml(&text, 0) else { panic!("not YAML:\n{text}") };
            let Some(high) = v.as_dict() else { continue };
            let expected = order_chunks(compile_high_data(high)).errors;
            let got = ordering_errors(high);
            assert_eq!(format!("{got:#?}"), format!("{expected:#?}"), "for high data:\n{text}");
            errors += expected.len();
            cycles += expected.iter().filter(|e| e.code == Code::RequisiteCycle).count();
        }
        // The generator reaches the interesting cases.
        assert!(errors > 1000 && cycles > 100, "{errors} errors, {cycles} cycles");
    }
}
