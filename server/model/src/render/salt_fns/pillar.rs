//! `salt/modules/pillar.py`: `pillar.get`, `items`, `item`, `raw`, `keys` and `filter_by`.

use super::args::{Bound, Sig};
use super::common::{key_arg, merge_error, raised, string, traverse, Functions, DELIM};
use crate::py::builtins as py;
use crate::py::builtins::truthy;
use crate::py::dictupdate;
use crate::render::convert::to_json;
use crate::render::mutable::{from_data, from_data_whole, from_json, from_json_like};
use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;
use serde_json::{Map, Value};

/// Calls `pillar.<name>` (the whole name, `pillar.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let ctx = f.ctx;
    let a = |sig: &Sig| sig.bind(args);
    match name {
        "pillar.filter_by" => {
            let b = a(&Sig::new("filter_by", &["lookup_dict", "pillar", "merge", "default", "base"], 2))?;
            let lookup = b.string(1)?;
            f.filter_by(
                b.req(0),
                &lookup,
                ctx.pillar.traversed(&lookup, DELIM).clone(),
                b.opt(2),
                b.get(3).unwrap_or_else(|| JValue::from("default")),
                b.opt(4),
            )
        }
        "pillar.get" | "pillar.fetch" => {
            f.pillar_get(&a(&Sig::new("get", &["key", "default", "merge", "merge_nested_lists", "delimiter", "pillarenv", "saltenv", "unmask"], 1))?)
        }
        "pillar.items" | "pillar.data" => {
            let b = a(&Sig::new("items", &[], 0).star_args().kwonly(&["pillar", "pillar_enc", "pillarenv", "saltenv", "unmask"]))?;
            if !b.star.is_empty() {
                return f.pillar_item(&b.star, None, None);
            }
            if b.get(0).is_some_and(|v| v.is_true()) {
                f.hint("`pillar.items(pillar=...)`: the pillar override is not applied; the profile's pillar is used");
            }
            Ok(from_data_whole(&ctx.pillar, ctx.pillar.whole()))
        }
        "pillar.item" => {
            let b = a(&Sig::new("item", &[], 0).star_args().kwonly(&["default", "delimiter", "pillarenv", "saltenv", "unmask"]))?;
            f.pillar_item(&b.star, b.opt(0), b.opt(1))
        }
        "pillar.raw" => {
            let b = a(&Sig::new("raw", &["key", "unmask"], 0))?;
            Ok(match b.opt(0).filter(JValue::is_true) {
                Some(key) => from_data(&ctx.pillar, ctx.pillar.get(&string(&key)?).unwrap_or(&Value::Object(Map::new()))),
                None => from_data_whole(&ctx.pillar, ctx.pillar.whole()),
            })
        }
        "pillar.keys" => {
            let b = a(&Sig::new("keys", &["key", "delimiter", "unmask"], 1))?;
            let key = b.key(0)?;
            let delim = b.str_or(1, DELIM)?;
            match traverse(ctx.pillar.traversed(&key, &delim), &key, &delim)? {
                None => Err(raised(format!("'Pillar key not found: {key}'"))),
                Some(Value::Object(m)) => Ok(from_json(&Value::from(m.keys().cloned().collect::<Vec<_>>()))),
                Some(_) => Err(raised(format!("Pillar value in key {key} is not a dict"))),
            }
        }
        _ => Ok(f.inert(name)),
    }
}

impl Functions<'_> {
    /// `salt/modules/pillar.py:get`. Without a default, a missing key is `''`, or raises
    /// `KeyError` under the `pillar_raise_on_missing` option. With `merge`, a dict default is
    /// `dictupdate.update(deepcopy(default), value, merge_lists)` (the option
    /// `pillar_merge_lists` unless `merge_nested_lists` says otherwise) and a list default is
    /// `default + [x for x in value if x not in default]`; a value of another type is returned
    /// as it is (Salt logs an error).
    fn pillar_get(&self, b: &Bound) -> Result<JValue, Error> {
        let key = b.key(0)?;
        let delim = b.str_or(4, DELIM)?;
        let pillar = self.ctx.pillar.traversed(&key, &delim);
        if b.get(5).is_some_and(|v| !v.is_none()) || b.get(6).is_some_and(|v| !v.is_none()) {
            self.hint("`pillar.get` with `saltenv`/`pillarenv` compiles that environment's pillar; the profile's pillar is used");
        }
        let default = b.get(1);
        if b.truthy(2) {
            let merge_lists = match b.get(3).filter(|v| !v.is_none()) {
                Some(v) => v.is_true(),
                None => self.ctx.opts.get("pillar_merge_lists").is_some_and(truthy),
            };
            let found = traverse(pillar, &key, &delim)?;
            match (default.as_ref().map(JValue::kind), found) {
                (Some(ValueKind::Map), found) => {
                    let found = found.cloned().unwrap_or(Value::Object(Map::new()));
                    if found.is_object() {
                        let default = default.unwrap_or(JValue::UNDEFINED);
                        let mut merged = to_json(&default);
                        dictupdate::update(&mut merged, &found, true, merge_lists, false).map_err(merge_error)?;
                        return Ok(from_json_like(&merged, &[&default, &from_data(&self.ctx.pillar, &found)], self.ctx.pillar.ordered_dicts()));
                    }
                }
                (Some(ValueKind::Seq), found) => {
                    let found = found.cloned().unwrap_or(Value::Array(Vec::new()));
                    if let (Value::Array(mut list), Value::Array(more)) = (to_json(default.as_ref().unwrap_or(&JValue::UNDEFINED)), found) {
                        let new: Vec<Value> = more.into_iter().filter(|x| !list.iter().any(|y| py::py_eq(x, y))).collect();
                        list.extend(new);
                        return Ok(from_json_like(&Value::Array(list), &[default.as_ref().unwrap_or(&JValue::UNDEFINED)], self.ctx.pillar.ordered_dicts()));
                    }
                }
                _ => {}
            }
        }
        match traverse(pillar, &key, &delim)? {
            Some(v) => Ok(self.live_pillar(&key, &delim).unwrap_or_else(|| from_data(&self.ctx.pillar, v))),
            None => match default {
                Some(d) => Ok(d),
                None if self.ctx.opts.get("pillar_raise_on_missing").is_some_and(truthy) => Err(raised(format!("'Pillar key not found: {key}'"))),
                None => Ok(JValue::from("")),
            },
        }
    }

    /// The object at `key` in the render's `__pillar__`, as `traverse_dict_and_list` returns it
    /// (not a copy: a change made through it is the pillar's, for this template and the files
    /// rendered after it). The steps are the ones the pillar the render started with gives;
    /// `None` without a `__pillar__` object or when the template changed it so that they lead
    /// nowhere.
    fn live_pillar(&self, key: &str, delim: &str) -> Option<JValue> {
        let steps = crate::py::data::locate(self.ctx.pillar.unrecorded(), key, delim)?;
        let mut ptr = self.pillar?.clone();
        for step in steps {
            ptr = match step {
                crate::py::data::Step::Key(k) => ptr.get_item(&JValue::from(k)).ok()?,
                crate::py::data::Step::Index(i) => ptr.get_item(&JValue::from(i)).ok()?,
            };
            if ptr.is_undefined() {
                return None;
            }
        }
        Some(ptr)
    }

    /// `salt/modules/pillar.py:item`: `{key: value or default}` for each key.
    fn pillar_item(&self, keys: &[JValue], default: Option<JValue>, delimiter: Option<JValue>) -> Result<JValue, Error> {
        let default = to_json(&default.filter(|v| !v.is_none()).unwrap_or_else(|| JValue::from("")));
        let delim = match delimiter.filter(|v| !v.is_none()) {
            Some(d) => string(&d)?,
            None => DELIM.to_string(),
        };
        let mut ret = Map::new();
        for key in keys {
            let key = key_arg(key)?;
            let v = traverse(self.ctx.pillar.traversed(&key, &delim), &key, &delim)?.cloned().unwrap_or_else(|| default.clone());
            ret.insert(key, v);
        }
        Ok(from_data_whole(&self.ctx.pillar, &Value::Object(ret)))
    }
}
