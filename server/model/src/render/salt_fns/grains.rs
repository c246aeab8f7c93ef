//! `salt/modules/grains.py`: `grains.get`, `item`, `items`, `ls`, `has_value` and `filter_by`
//! (`salt.utils.data.filter_by`, which `pillar.filter_by` shares).

use super::args::Sig;
use super::common::{key_arg, merge_error, py_type, raised, string, traverse, Functions, DELIM};
use crate::py::builtins as py;
use crate::py::data::traverse_dict_and_list;
use crate::py::dictupdate;
use crate::py::fnmatch;
use crate::render::convert::{key_text, to_json};
use crate::render::mutable::{from_json, from_json_like};
use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;
use serde_json::{Map, Value};

/// Calls `grains.<name>` (the whole name, `grains.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let ctx = f.ctx;
    let a = |sig: &Sig| sig.bind(args);
    match name {
        "grains.filter_by" => {
            let b = a(&Sig::new("filter_by", &["lookup_dict", "grain", "merge", "default", "base"], 1))?;
            let grain = b.str_or(1, "os_family")?;
            f.filter_by(b.req(0), &grain, ctx.grains.traversed(&grain, DELIM).clone(), b.opt(2), b.get(3).unwrap_or_else(|| JValue::from("default")), b.opt(4))
        }
        "grains.get" => {
            let b = a(&Sig::new("get", &["key", "default", "delimiter", "ordered"], 1))?;
            let (key, delim) = (b.key(0)?, b.str_or(2, DELIM)?);
            Ok(match traverse(ctx.grains.traversed(&key, &delim), &key, &delim)? {
                Some(v) => from_json(v),
                None => b.get(1).unwrap_or_else(|| JValue::from("")),
            })
        }
        "grains.has_value" => {
            let b = a(&Sig::new("has_value", &["key"], 1))?;
            let key = b.key(0)?;
            Ok(JValue::from(traverse(ctx.grains.traversed(&key, DELIM), &key, DELIM)?.is_some()))
        }
        "grains.items" => {
            let b = a(&Sig::new("items", &["sanitize"], 0))?;
            Ok(from_json(&sanitized(ctx.grains.whole(), b.truthy(0))))
        }
        "grains.item" => {
            let b = a(&Sig::new("item", &[], 0).star_args().star_kwargs())?;
            let default = b.kwarg("default").unwrap_or_else(|| JValue::from(""));
            let delim = b.kwarg("delimiter").map(|d| string(&d)).transpose()?.unwrap_or_else(|| DELIM.to_string());
            let mut ret = Map::new();
            for key in &b.star {
                let key = key_arg(key)?;
                let v = traverse(ctx.grains.traversed(&key, &delim), &key, &delim)?.cloned().unwrap_or_else(|| to_json(&default));
                ret.insert(key, v);
            }
            let ret = Value::Object(ret);
            Ok(from_json(&if b.kwarg("sanitize").is_some_and(|v| v.is_true()) { sanitized(&ret, true) } else { ret }))
        }
        "grains.ls" => {
            a(&Sig::new("ls", &[], 0))?;
            let mut keys: Vec<&String> = ctx.grains.whole().as_object().map(|m| m.keys().collect()).unwrap_or_default();
            keys.sort();
            Ok(from_json(&Value::from(keys.into_iter().cloned().collect::<Vec<_>>())))
        }
        _ => Ok(f.inert(name)),
    }
}

impl Functions<'_> {
    /// `salt.utils.data.filter_by(lookup_dict, lookup, traverse, merge, default, base)`
    /// (`grains.filter_by`, `pillar.filter_by`):
    ///
    /// * the value at `lookup` in `traverse` (`[]` when missing), or each item of it when it is
    ///   a list, is `str()`-ed and matched with `fnmatch.fnmatchcase` against each key of
    ///   `lookup_dict` (`str()`-ed), in order; the first match wins, but a match whose value is
    ///   `None` counts as none and the next grain value is tried;
    /// * no match: `lookup_dict.get(default)`;
    /// * `base`, when it is a key: the base is used when nothing matched, else a dict base is
    ///   `dictupdate.update(deepcopy(base), ret)` (a non-dict `ret` raises);
    /// * `merge` (a truthy non-dict raises): becomes the result when there is none, else is
    ///   merged into the result **in place**, which without `base` is the lookup dict's own
    ///   value.
    pub(super) fn filter_by(
        &self,
        lookup_dict: JValue,
        lookup: &str,
        traverse: Value,
        merge: Option<JValue>,
        default: JValue,
        base: Option<JValue>,
    ) -> Result<JValue, Error> {
        if lookup_dict.kind() != ValueKind::Map {
            return Err(raised(format!("'{}' object has no attribute 'get'", py_type(&lookup_dict))));
        }
        let val = traverse_dict_and_list(&traverse, lookup, DELIM).cloned().unwrap_or(Value::Array(Vec::new()));
        let each: Vec<Value> = match val {
            Value::Array(items) => items,
            other => vec![other],
        };
        let keys: Vec<JValue> = lookup_dict.try_iter()?.collect();
        let mut ret: Option<JValue> = None;
        'values: for each in &each {
            let test_each = py::str_of(each);
            for key in &keys {
                if fnmatch::fnmatch(&test_each, &key_text(key)) {
                    ret = Some(lookup_dict.get_item(key)?).filter(|v| !v.is_none());
                    if ret.is_some() {
                        break 'values;
                    }
                    break;
                }
            }
        }
        if ret.is_none() {
            ret = Some(lookup_dict.get_item(&default)?).filter(|v| !v.is_none() && !v.is_undefined());
        }
        if let Some(base) = base.filter(JValue::is_true) {
            let base_values = lookup_dict.get_item(&base)?;
            if !base_values.is_undefined() {
                match ret.take() {
                    None => ret = Some(base_values).filter(|v| !v.is_none()),
                    Some(r) if base_values.kind() == ValueKind::Map => {
                        if r.kind() != ValueKind::Map {
                            return Err(raised("filter_by default and look-up values must both be dictionaries."));
                        }
                        let mut merged = to_json(&base_values);
                        dictupdate::update(&mut merged, &to_json(&r), true, false, false).map_err(merge_error)?;
                        ret = Some(from_json_like(&merged, &[&base_values, &r], false));
                    }
                    Some(r) => ret = Some(r),
                }
            }
        }
        if let Some(merge) = merge.filter(JValue::is_true) {
            if merge.kind() != ValueKind::Map {
                return Err(raised("filter_by merge argument must be a dictionary."));
            }
            ret = Some(match ret {
                None => merge,
                Some(r) => self.update_in_place("grains.filter_by", &r, &merge, true, false)?,
            });
        }
        Ok(ret.unwrap_or(JValue::from(())))
    }
}

/// `grains.items(sanitize=True)`'s `_SANITIZERS` (`salt/modules/grains.py`).
fn sanitized(grains: &Value, sanitize: bool) -> Value {
    let Value::Object(m) = grains else { return grains.clone() };
    if !sanitize {
        return grains.clone();
    }
    let mut out = m.clone();
    for (key, v) in out.iter_mut() {
        let new = match key.as_str() {
            // `_serial_sanitizer`: the last quarter of the string as X's.
            "serialnumber" => {
                let s = py::str_of(v);
                let chars: Vec<char> = s.chars().collect();
                let keep = (chars.len() as f64 * 0.75).floor() as usize;
                Some(chars[..keep].iter().collect::<String>() + &"X".repeat(chars.len() - keep))
            }
            "domain" => Some("DOMAINNAME".to_string()),
            "fqdn" | "id" => Some("MINION.DOMAINNAME".to_string()),
            "host" | "localhost" | "nodename" => Some("MINION".to_string()),
            _ => None,
        };
        if let Some(new) = new {
            *v = Value::String(new);
        }
    }
    Value::Object(out)
}
