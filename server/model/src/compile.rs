//! `compile_high_data` (SALT-SEMANTICS.md D.4): high data to low chunks, one per state module
//! of each ID (and per `names` entry), in high-data order, before ordering.

use crate::value::{Dict, Loc, Val, V};

/// A low chunk: Salt's dict, plus where its ID was declared.
#[derive(Debug, Clone)]
pub struct Chunk {
    pub d: Dict,
    pub id_loc: Option<Loc>,
}

impl Chunk {
    pub fn get_str(&self, key: &str) -> String {
        self.d.get(key).map(Val::py_str).unwrap_or_default()
    }
    /// `_gen_tag`: `state_|-id_|-name_|-fun`.
    pub fn tag(&self) -> String {
        format!("{}_|-{}_|-{}_|-{}", self.get_str("state"), self.get_str("__id__"), self.get_str("name"), self.get_str("fun"))
    }
}

/// Compile high data into unordered chunks. Functions: exactly one string arg is expected
/// (verification ran first); if several remain, Python's set order decides, so we take the
/// first.
pub fn compile_high_data(high: &Dict) -> Vec<Chunk> {
    let mut chunks = Vec::new();
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
            let mut funs: Vec<String> = Vec::new();
            let mut names: Vec<Val> = Vec::new();
            let mut chunk = Dict::new();
            chunk.set_str("state", Val::str(state.clone()));
            chunk.set_str("name", Val::str(id.clone()));
            for key in ["__sls__", "__env__", "__sls_included_from__"] {
                if let Some(v) = body_d.get(key) {
                    chunk.set_str(key, v.clone());
                }
            }
            chunk.set_str("__id__", Val::str(id.clone()));
            for arg in run.as_list().into_iter().flatten() {
                match &arg.v {
                    V::Str(f) => {
                        if !funs.contains(f) {
                            funs.push(f.clone())
                        }
                    }
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
                chunk.set_str("fun", Val::str(fun.clone()));
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
                live.set_str("fun", Val::str(fun.clone()));
                chunks.push(Chunk { d: live, id_loc: entry.at.clone().or(id_k.at.clone()) });
            }
        }
    }
    chunks
}
