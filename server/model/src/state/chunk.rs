//! A low chunk (`Chunk`: Salt's chunk dict and where its ID was declared) and `LowChunk`, what
//! ordering reads of one and the marks it leaves: the one vocabulary `compile` produces,
//! `order` sorts and `run`/`walk` step through.

use std::borrow::Cow;

use crate::requisites::{has_mod_watch, ORDERING_TYPES, REQUISITE_TYPES};
use crate::value::{Dict, Loc, Val, V};

/// A low chunk: Salt's dict, plus where its ID was declared.
#[derive(Debug, Clone)]
pub struct Chunk {
    pub d: Dict,
    pub id_loc: Option<Loc>,
}

impl Chunk {
    /// `str(chunk.get(key, ""))`.
    pub fn get_str(&self, key: &str) -> String {
        LowChunk::str(self, key).into_owned()
    }
}
/// What ordering reads of a low chunk, and the marks it leaves on one: Salt's chunk dicts
/// when ordering for real ([`Chunk`]), or borrowed views of the high data when only the errors
/// are wanted ([`crate::state::compile::LowView`], which copies nothing).
pub trait LowChunk {
    /// `chunk.get(key)`.
    fn get(&self, key: &str) -> Option<&Val>;
    /// `key in chunk`.
    fn contains(&self, key: &str) -> bool;
    /// Where the chunk's ID (or `names` entry) was written.
    fn id_loc(&self) -> Option<&Loc>;
    /// `chunk[key] = True`.
    fn mark(&mut self, key: &'static str);
    /// `_reconcile_watch_req`: `watch` becomes `require` on modules without `mod_watch`.
    fn reconcile_watch_req(&mut self);
    /// The items of the requisite argument `ORDERING_TYPES[at]` when it is a list (in two
    /// parts: a `require` that a reconciled `watch` was appended to).
    fn requisite_items(&self, at: usize) -> (&[Val], &[Val]);
    /// Whether the chunk has an argument of one of the `REQUISITE_TYPES`.
    fn has_requisite(&self) -> bool {
        REQUISITE_TYPES.iter().any(|k| self.contains(k))
    }
    /// `str(chunk.get(key, ""))`, borrowed when the value is a string.
    fn str(&self, key: &str) -> Cow<'_, str> {
        self.get(key).map_or(Cow::Borrowed(""), Val::py_cow)
    }
    /// `_gen_tag`: `state_|-id_|-name_|-fun`.
    fn tag(&self) -> String {
        let parts = [self.str("state"), self.str("__id__"), self.str("name"), self.str("fun")];
        let mut tag = String::with_capacity(parts.iter().map(|p| p.len() + 3).sum());
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                tag.push_str("_|-");
            }
            tag.push_str(part);
        }
        tag
    }
}

impl LowChunk for Chunk {
    fn get(&self, key: &str) -> Option<&Val> {
        self.d.get(key)
    }
    fn contains(&self, key: &str) -> bool {
        self.d.contains(key)
    }
    fn id_loc(&self) -> Option<&Loc> {
        self.id_loc.as_ref()
    }
    fn mark(&mut self, key: &'static str) {
        self.d.set_str(key, Val::new(V::Bool(true)));
    }
    fn reconcile_watch_req(&mut self) {
        reconcile_watch_req(&mut self.d);
    }
    fn requisite_items(&self, at: usize) -> (&[Val], &[Val]) {
        match self.d.get(ORDERING_TYPES[at]).map(|v| &v.v) {
            Some(V::List(l)) => (l, &[]),
            _ => (&[], &[]),
        }
    }
}
/// `_reconcile_watch_req`: `watch` becomes `require` on modules without `mod_watch`.
fn reconcile_watch_req(d: &mut Dict) {
    if !d.contains("watch") && !d.contains("watch_any") {
        return;
    }
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
