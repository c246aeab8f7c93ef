//! `salt/modules/defaults.py`: `merge`, `deepcopy`, `update`, `get`.

use super::args::Sig;
use super::common::{merge_error, py_type, raised, traverse, Functions, DELIM};
use crate::py::builtins::truthy;
use crate::py::dictupdate;
use crate::render::convert::to_json;
use crate::render::mutable::{deepcopy, from_json, from_json_like, MDict};
use minijinja::value::Value as JValue;
use minijinja::Error;
use serde_json::{Map, Value};

/// Calls `defaults.<name>` (the whole name, `defaults.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let a = |sig: &Sig| sig.bind(args);
    match name {
        "defaults.merge" => {
            let b = a(&Sig::new("merge", &["dest", "src", "merge_lists", "in_place", "convert_none"], 2))?;
            let in_place = b.get(3).is_none_or(|v| v.is_true());
            let convert_none = b.get(4).is_none_or(|v| v.is_true());
            f.defaults_merge(b.req(0), b.req(1), b.truthy(2), in_place, convert_none)
        }
        "defaults.deepcopy" => Ok(deepcopy(&a(&Sig::new("deepcopy", &["source"], 1))?.req(0))),
        "defaults.update" => {
            let b = a(&Sig::new("update", &["dest", "defaults", "merge_lists", "in_place", "convert_none"], 2))?;
            let merge_lists = b.get(2).is_none_or(|v| v.is_true());
            let in_place = b.get(3).is_none_or(|v| v.is_true());
            let convert_none = b.get(4).is_none_or(|v| v.is_true());
            f.defaults_update(b.req(0), b.req(1), merge_lists, in_place, convert_none)
        }
        "defaults.get" => {
            let b = a(&Sig::new("get", &["key", "default"], 1))?;
            f.defaults_get(&b.string(0)?, b.get(1).unwrap_or_else(|| JValue::from("")))
        }
        _ => Ok(f.inert(name)),
    }
}

impl Functions<'_> {
    /// `salt/modules/defaults.py:merge(dest, src, merge_lists, in_place, convert_none)`:
    /// `dictupdate.update` of `dest` itself (in place, the default) or of a deep copy, returned.
    fn defaults_merge(&self, dest: JValue, src: JValue, merge_lists: bool, in_place: bool, convert_none: bool) -> Result<JValue, Error> {
        let src = if src.is_none() && convert_none { JValue::from_object(MDict::default()) } else { src };
        let src_json = to_json(&src);
        if dest.is_none() && convert_none {
            if in_place {
                return Err(raised("Can't perform in-place merge into NoneType"));
            }
            let mut merged = Value::Object(Map::new());
            dictupdate::update(&mut merged, &src_json, true, merge_lists, false).map_err(merge_error)?;
            return Ok(from_json_like(&merged, &[&JValue::from_object(MDict::default()), &src], false));
        }
        if in_place {
            return self.update_in_place("defaults.merge", &dest, &src, true, merge_lists);
        }
        let mut merged = to_json(&dest);
        dictupdate::update(&mut merged, &src_json, true, merge_lists, false).map_err(merge_error)?;
        Ok(from_json_like(&merged, &[&dest, &src], false))
    }

    /// `salt/modules/defaults.py:update(dest, defaults, merge_lists, in_place, convert_none)`:
    /// every value of `dest` becomes `merge(deepcopy(defaults), value)`.
    fn defaults_update(&self, dest: JValue, defaults: JValue, merge_lists: bool, in_place: bool, convert_none: bool) -> Result<JValue, Error> {
        if in_place && dest.is_none() {
            return Err(raised("Can't perform in-place update into NoneType"));
        }
        let nodes = if dest.is_none() && convert_none { Value::Object(Map::new()) } else { to_json(&dest) };
        let defaults = if defaults.is_none() && convert_none { Value::Object(Map::new()) } else { to_json(&defaults) };
        let Value::Object(mut nodes_map) = nodes else {
            return Err(raised(format!("'{}' object has no attribute 'items'", py_type(&dest))));
        };
        for (_, node_vars) in nodes_map.iter_mut() {
            let src = if node_vars.is_null() && convert_none { Value::Object(Map::new()) } else { node_vars.clone() };
            let mut merged = defaults.clone();
            dictupdate::update(&mut merged, &src, true, merge_lists, false).map_err(merge_error)?;
            *node_vars = merged;
        }
        let nodes = Value::Object(nodes_map);
        Ok(if in_place { self.write_back("defaults.update", &dest, &nodes, &JValue::UNDEFINED) } else { from_json_like(&nodes, &[&dest], false) })
    }

    /// `salt/modules/defaults.py:get(key, default)`: `salt://NAMESPACE/defaults.yaml` (else
    /// `.json`) of the file roots, then `KEY` traversed in it (`NAMESPACE:KEY`).
    fn defaults_get(&self, key: &str, default: JValue) -> Result<JValue, Error> {
        let (namespace, rest) = match key.split_once(':') {
            Some((ns, rest)) => (ns, Some(rest)),
            None => (key, None),
        };
        let mut defaults = Value::Null;
        for ext in ["yaml", "json"] {
            if let Some(text) = (self.ctx.loader)(&format!("{namespace}/defaults.{ext}")) {
                let node = syntax::yaml::load(&text).map_err(|e| raised(e.message))?;
                defaults = crate::value::Val::from_node(&node, 0).to_json();
                // `return defaults or {}`: the first file that exists decides.
                if !truthy(&defaults) {
                    defaults = Value::Object(Map::new());
                }
                break;
            }
        }
        match rest.filter(|r| !r.is_empty()) {
            Some(rest) => Ok(traverse(&defaults, rest, DELIM)?.map(from_json).unwrap_or(default)),
            None => Ok(from_json(&defaults)),
        }
    }
}
