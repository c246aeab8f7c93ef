//! `compile_high_data` (`salt/state.py` `State.compile_high_data`): high data to low chunks, one per state module
//! of each ID (and per `names` entry), in high-data order, before ordering.

use std::borrow::Cow;

use crate::state::chunk::Chunk;
use crate::value::{Dict, Loc, Val, V};

/// Compile high data into unordered chunks. Functions: exactly one string arg is expected
/// (verification ran first); if several remain, Python's set order decides, so we take the
/// first.
pub fn compile_high_data(high: &Dict) -> Vec<Chunk> {
    let mut chunks = Vec::with_capacity(high.len());
    for (id_k, body) in &high.0 {
        let id = id_k.py_str();
        if id.starts_with("__") {
            continue;
        }
        let Some(body_d) = body.as_dict() else { continue };
        for (state_k, run) in &body_d.0 {
            let state = state_k.py_str();
            if state.starts_with("__") {
                continue;
            }
            let mut funs: Vec<&str> = Vec::new();
            let mut names: Vec<Val> = Vec::new();
            let args = run.as_list().map_or(0, Vec::len);
            // The first keys of a fresh dict are distinct: pushed, not looked up.
            let mut chunk = Dict(Vec::with_capacity(8 + args));
            chunk.0.push((Val::str("state"), Val::str(state.clone())));
            chunk.0.push((Val::str("name"), Val::str(id.clone())));
            for key in ["__sls__", "__env__", "__sls_included_from__"] {
                if let Some(v) = body_d.get(key) {
                    chunk.0.push((Val::str(key), v.clone()));
                }
            }
            chunk.0.push((Val::str("__id__"), Val::str(id.clone())));
            for arg in run.as_list().into_iter().flatten() {
                match &arg.v {
                    V::Str(f) if !funs.contains(&f.as_str()) => funs.push(f),
                    V::Dict(d) => {
                        for (k, v) in &d.0 {
                            match k.as_str() {
                                Some("names") => {
                                    for n in v.as_list().into_iter().flatten() {
                                        if !names.contains(n) {
                                            names.push(n.clone());
                                        }
                                    }
                                }
                                Some("state") => {}
                                Some("name") if v.as_str().is_none() => chunk.set_str("name", Val::str(id.clone())),
                                _ => chunk.set(k.clone(), v.clone()),
                            }
                        }
                    }
                    _ => {}
                }
            }
            let Some(fun) = funs.first() else { continue };
            if names.is_empty() {
                chunk.set_str("fun", Val::str(*fun));
                chunks.push(Chunk { d: chunk, id_loc: id_k.at.clone() });
                continue;
            }
            for (i, entry) in names.iter().enumerate() {
                let mut live = chunk.clone();
                match entry.as_dict() {
                    Some(d) if !d.is_empty() => {
                        let (n, extra) = &d.0[0];
                        live.set_str("name", n.clone());
                        for item in extra.as_list().into_iter().flatten() {
                            if let Some(kv) = item.as_dict() {
                                live.update(kv.clone());
                            }
                        }
                    }
                    _ => live.set_str("name", entry.clone()),
                }
                live.set_str("name_order", Val::new(V::Int(i as i64 + 1)));
                live.set_str("fun", Val::str(*fun));
                chunks.push(Chunk { d: live, id_loc: entry.at.clone().or(id_k.at.clone()) });
            }
        }
    }
    chunks
}

/// A low chunk as [`compile_high_data`] would build it, read through to the high data instead
/// of copied out of it: what the checker's ordering pass reads ([`crate::state::order::ordering_errors`]),
/// at no allocation per state. `get` answers what the chunk dict would hold, with the later
/// assignments of `compile_high_data` winning as they do there; the marks ordering sets and
/// `_reconcile_watch_req` are kept beside it.
pub struct LowView<'h> {
    id_key: &'h Val,
    /// `Val::str(id)` (the key itself when it is a string).
    id: Cow<'h, Val>,
    state: Cow<'h, Val>,
    /// The state declaration's own dict (`__sls__`, `__env__`, `__sls_included_from__`).
    body: &'h Dict,
    /// The state's argument list: its dicts are the arguments, in order.
    run: &'h [Val],
    /// The function (the first string of the list).
    fun: &'h Val,
    /// For a `names` entry: its name, its own arguments and its `name_order`.
    entry: Option<NamesEntry<'h>>,
    marks: Vec<&'static str>,
    /// `watch`/`watch_any` were turned into `require`/`require_any`.
    reconciled: bool,
    /// The chunk's value of each of the `ORDERING_TYPES`, looked up once.
    ordering: [Option<&'h Val>; ORDERING_LEN],
    /// Whether an argument is one of the `REQUISITE_TYPES`.
    has_requisite: bool,
}

const ORDERING_LEN: usize = crate::requisites::ORDERING_TYPES.len();
/// Positions of `require`, `require_any`, `watch` and `watch_any` in `ORDERING_TYPES`.
const REQUIRE: usize = 0;
const REQUIRE_ANY: usize = 1;
const WATCH: usize = 2;
const WATCH_ANY: usize = 3;

struct NamesEntry<'h> {
    at: &'h Val,
    name: &'h Val,
    extra: &'h [Val],
    order: Val,
}

static TRUE: Val = Val { v: V::Bool(true), at: None };

impl<'h> LowView<'h> {
    /// The value `compile_high_data`'s chunk has under `key`, before ordering touched it.
    fn compiled(&self, key: &str) -> Option<&Val> {
        if key == "fun" {
            return Some(self.fun);
        }
        if let Some(e) = &self.entry {
            if key == "name_order" {
                return Some(&e.order);
            }
            // `live.update(kv)` for each of the entry's dicts: the last one wins.
            if let Some(v) = e.extra.iter().rev().filter_map(Val::as_dict).find_map(|kv| kv.get(key)) {
                return Some(v);
            }
            if key == "name" {
                return Some(e.name);
            }
        }
        if key != "names" && key != "state" {
            if let Some(v) = self.run.iter().rev().filter_map(Val::as_dict).find_map(|d| d.get(key)) {
                return Some(if key == "name" && v.as_str().is_none() { &self.id } else { v });
            }
        }
        match key {
            "state" => Some(&self.state),
            "name" | "__id__" => Some(&self.id),
            "__sls__" | "__env__" | "__sls_included_from__" => self.body.get(key),
            _ => None,
        }
    }

    /// Looks the requisite arguments up once: the arguments in order, then a `names` entry's
    /// own (each assignment overriding the one before, as in `compile_high_data`).
    fn with_requisites(mut self) -> Self {
        use crate::requisites::{ORDERING_TYPES, REQUISITE_TYPES};
        let extra = self.entry.as_ref().map_or(&[][..], |e| e.extra);
        for d in self.run.iter().chain(extra).filter_map(Val::as_dict) {
            for (k, v) in &d.0 {
                let Some(k) = k.as_str() else { continue };
                if let Some(at) = ORDERING_TYPES.iter().position(|t| *t == k) {
                    self.ordering[at] = Some(v);
                    self.has_requisite = true;
                } else if REQUISITE_TYPES.contains(&k) {
                    self.has_requisite = true;
                }
            }
        }
        self
    }
}

impl crate::state::chunk::LowChunk for LowView<'_> {
    /// A reconciled `require` reads as before the merge: ordering reads requisites through
    /// [`crate::state::chunk::LowChunk::requisite_items`].
    fn get(&self, key: &str) -> Option<&Val> {
        if self.marks.contains(&key) {
            return Some(&TRUE);
        }
        if self.reconciled && (key == "watch" || key == "watch_any") {
            return None;
        }
        self.compiled(key)
    }
    fn contains(&self, key: &str) -> bool {
        if self.reconciled {
            match key {
                "require" if self.compiled("watch").is_some() => return true,
                "require_any" if self.compiled("watch_any").is_some() => return true,
                _ => {}
            }
        }
        self.get(key).is_some()
    }
    fn id_loc(&self) -> Option<&Loc> {
        match &self.entry {
            Some(e) => e.at.at.as_ref().or(self.id_key.at.as_ref()),
            None => self.id_key.at.as_ref(),
        }
    }
    fn mark(&mut self, key: &'static str) {
        if !self.marks.contains(&key) {
            self.marks.push(key);
        }
    }
    fn reconcile_watch_req(&mut self) {
        if self.reconciled || (self.compiled("watch").is_none() && self.compiled("watch_any").is_none()) {
            return;
        }
        let state = self.str("state");
        self.reconciled = !crate::requisites::has_mod_watch(&state);
    }
    fn requisite_items(&self, at: usize) -> (&[Val], &[Val]) {
        fn items(v: Option<&Val>) -> &[Val] {
            v.and_then(Val::as_list).map_or(&[], Vec::as_slice)
        }
        if self.reconciled {
            let from = match at {
                WATCH | WATCH_ANY => return (&[], &[]),
                REQUIRE => self.ordering[WATCH],
                REQUIRE_ANY => self.ordering[WATCH_ANY],
                _ => None,
            };
            if let Some(from) = from {
                // `_reconcile_watch_req` appends to a `require` list, or replaces anything else.
                return match self.ordering[at].and_then(Val::as_list) {
                    Some(list) => (list, items(Some(from))),
                    None => (items(Some(from)), &[]),
                };
            }
        }
        (items(self.ordering[at]), &[])
    }
    fn has_requisite(&self) -> bool {
        self.has_requisite
    }
}

/// The chunks of [`compile_high_data`], as views (same order, same `names` expansion).
pub fn low_views(high: &Dict) -> Vec<LowView<'_>> {
    let mut views = Vec::with_capacity(high.len());
    for (id_k, body) in &high.0 {
        let id = match id_k.as_str() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(id_k.py_str()),
        };
        if id.starts_with("__") {
            continue;
        }
        let Some(body_d) = body.as_dict() else { continue };
        let id_val: Cow<'_, Val> = match id {
            Cow::Borrowed(_) => Cow::Borrowed(id_k),
            Cow::Owned(s) => Cow::Owned(Val::str(s)),
        };
        for (state_k, run) in &body_d.0 {
            let state: Cow<'_, Val> = match state_k.as_str() {
                Some(s) if s.starts_with("__") => continue,
                Some(_) => Cow::Borrowed(state_k),
                None => {
                    let s = state_k.py_str();
                    if s.starts_with("__") {
                        continue;
                    }
                    Cow::Owned(Val::str(s))
                }
            };
            let run: &[Val] = run.as_list().map_or(&[], Vec::as_slice);
            // The first string argument is the function; `names` entries, deduplicated.
            let Some(fun) = run.iter().find(|a| a.as_str().is_some()) else { continue };
            let mut names: Vec<&Val> = Vec::new();
            for arg in run.iter().filter_map(Val::as_dict) {
                for n in arg.get("names").and_then(Val::as_list).into_iter().flatten() {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
            let view = |entry| {
                LowView {
                    id_key: id_k,
                    id: id_val.clone(),
                    state: state.clone(),
                    body: body_d,
                    run,
                    fun,
                    entry,
                    marks: Vec::new(),
                    reconciled: false,
                    ordering: [None; ORDERING_LEN],
                    has_requisite: false,
                }
                .with_requisites()
            };
            if names.is_empty() {
                views.push(view(None));
                continue;
            }
            for (i, entry) in names.iter().enumerate() {
                let (name, extra): (&Val, &[Val]) = match entry.as_dict() {
                    Some(d) if !d.is_empty() => (&d.0[0].0, d.0[0].1.as_list().map_or(&[], Vec::as_slice)),
                    _ => (entry, &[]),
                };
                views.push(view(Some(NamesEntry { at: entry, name, extra, order: Val::new(V::Int(i as i64 + 1)) })));
            }
        }
    }
    views
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_positions_name_the_right_types() {
        let types = crate::requisites::ORDERING_TYPES;
        assert_eq!([types[REQUIRE], types[REQUIRE_ANY], types[WATCH], types[WATCH_ANY]], ["require", "require_any", "watch", "watch_any"]);
    }
}
