//! What the files of Salt's modules share: one call's view of the minion ([`Functions`]: its
//! data, the hints, the render's `__pillar__`), Python's in-place dict updates, and the
//! conversions and errors of their arguments.

use std::sync::{Arc, Mutex};

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::{Error, ErrorKind};
use serde_json::{Map, Value};

use crate::py::builtins as py;
use crate::py::data::traverse_dict_and_list;
use crate::py::dictupdate::{self, MergeError};
use crate::render::context::JinjaContext;
use crate::render::convert::{key_text, to_json};
use crate::render::mutable::{child, from_json_like, MDict, MList};

/// `DEFAULT_TARGET_DELIM` (`salt/defaults/__init__.py`).
pub(super) const DELIM: &str = ":";

/// One call's view of the minion.
pub(super) struct Functions<'a> {
    pub(super) ctx: &'a JinjaContext,
    pub(super) hints: &'a Mutex<Vec<String>>,
    /// The render's `__pillar__` (what `pillar.get` hands out, as Python hands out the
    /// objects inside it; not the template's `pillar` variable).
    pub(super) pillar: Option<&'a JValue>,
}

impl Functions<'_> {
    pub(super) fn hint(&self, text: impl Into<String>) {
        if let Ok(mut h) = self.hints.lock() {
            h.push(text.into());
        }
    }

    pub(super) fn inert(&self, name: &str) -> JValue {
        self.hint(format!("`salt['{name}']` is not executed during analysis; it rendered as an empty value"));
        inert_value(name)
    }

    /// `dictupdate.update(dest, upd, ...)` where Python changes `dest` itself: a mutable dict
    /// is changed in place (nested dicts that are merged keep their identity, so other names
    /// bound to them see the change) and returned; any other dict cannot change, so the
    /// merged copy is returned, with a hint.
    pub(super) fn update_in_place(&self, func: &str, dest: &JValue, upd: &JValue, recursive: bool, merge_lists: bool) -> Result<JValue, Error> {
        let mut merged = to_json(dest);
        dictupdate::update(&mut merged, &to_json(upd), recursive, merge_lists, false).map_err(merge_error)?;
        Ok(self.write_back(func, dest, &merged, upd))
    }

    /// `dest` changed to `result` in place (see `update_in_place`); `upd` is where the new
    /// values came from (their dicts keep its dicts' types: `OrderedDict` stays one).
    pub(super) fn write_back(&self, func: &str, dest: &JValue, result: &Value, upd: &JValue) -> JValue {
        match (crate::render::mutable::dict_of(dest), result) {
            (Some(d), Value::Object(r)) => {
                sync(&d, r, upd);
                dest.clone()
            }
            _ => {
                if dest.kind() == ValueKind::Map {
                    self.hint(format!(
                        "`{func}` changes its first argument in place in Salt; here that dict is read-only, so only the returned value has the change"
                    ));
                }
                from_json_like(result, &[dest, upd], false)
            }
        }
    }
}

/// `traverse_dict_and_list` with Python's `str.split`, which refuses an empty separator.
pub(super) fn traverse<'v>(data: &'v Value, key: &str, delimiter: &str) -> Result<Option<&'v Value>, Error> {
    if delimiter.is_empty() {
        return Err(raised("empty separator"));
    }
    Ok(traverse_dict_and_list(data, key, delimiter))
}

/// Python's `type(v).__name__`, for messages.
pub(super) fn py_type(v: &JValue) -> &'static str {
    match v.kind() {
        ValueKind::Undefined | ValueKind::None => "NoneType",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "dict",
        _ => py::type_name(&to_json(v)),
    }
}

/// Makes mutable dict `dest` hold `result`: keys it no longer has go, new keys are appended,
/// and a key whose old value is a mutable dict and new value a dict is synced recursively, so
/// the nested dict keeps its identity as Python's in-place `update` keeps it.
pub(super) fn sync(dest: &Arc<MDict>, result: &Map<String, Value>, upd: &JValue) {
    // Read `upd` and build the new values with `dest` unlocked: either may be `dest` or hold it.
    let froms: Vec<JValue> = result.keys().map(|k| if upd.kind() == ValueKind::Map { child(upd, k) } else { JValue::UNDEFINED }).collect();
    let plan: Vec<(JValue, Option<JValue>)> = {
        let mut map = dest.0.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|k, _| result.contains_key(&key_text(k)));
        result
            .keys()
            .map(|k| {
                let key = if map.contains_key(&JValue::from(k.as_str())) {
                    JValue::from(k.as_str())
                } else {
                    // A non-string key (`7`) that the JSON form spelled as text.
                    map.keys().find(|mk| mk.as_str().is_none() && key_text(mk) == *k).cloned().unwrap_or_else(|| JValue::from(k.as_str()))
                };
                let old = map.get(&key).cloned();
                (key, old)
            })
            .collect()
    };
    let mut new = Vec::new();
    for (((key, old), v), from) in plan.into_iter().zip(result.values()).zip(froms) {
        let nested = old.as_ref().and_then(|o| o.downcast_object::<MDict>()).filter(|sub| !Arc::ptr_eq(sub, dest));
        match (nested, v) {
            (Some(sub), Value::Object(vm)) => sync(&sub, vm, &from),
            _ => new.push((key, from_json_like(v, &[&old.unwrap_or(JValue::UNDEFINED), &from], false))),
        }
    }
    let mut map = dest.0.lock().unwrap_or_else(|e| e.into_inner());
    for (key, v) in new {
        map.insert(key, v);
    }
}

/// A Python exception raised inside a Salt function; Salt's renderer reports its text.
pub(super) fn raised(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message.into())
}

pub(super) fn merge_error(e: MergeError) -> Error {
    raised(e.message)
}

/// A key path argument: a string, or a number or bool, which `traverse_dict_and_list` looks up
/// as itself (the profile's JSON keys are its `str()`).
pub(super) fn key_arg(v: &JValue) -> Result<String, Error> {
    match v.kind() {
        ValueKind::Number | ValueKind::Bool => Ok(py::str_of(&to_json(v))),
        _ => string(v),
    }
}

/// A `str` argument (Python calls `str` methods on it, which other types lack).
pub(super) fn string(v: &JValue) -> Result<String, Error> {
    match v.as_str() {
        Some(s) => Ok(s.to_string()),
        None => Err(raised(format!("expected a string, got {} {}", py_type(v), py::repr(&to_json(v))))),
    }
}

/// The empty value of the type a function that is not executed returns, so that what a
/// template does with it (`.items()`, `.get()`, a loop) still works: Salt's functions that
/// answer a mapping or a list answer an empty one when there is nothing (`mine.get` on a
/// masterless minion is `{}`); everything else is an empty string.
fn inert_value(name: &str) -> JValue {
    const DICTS: &[&str] = &[
        "mine.get",
        "publish.publish",
        "publish.full_data",
        "user.info",
        "group.info",
        "pkg.list_pkgs",
        "pkg.list_repos",
        "network.interfaces",
        "network.routes",
        "file.stats",
        "cmd.run_all",
        "disk.usage",
        "status.meminfo",
        "x509.read_certificate",
    ];
    const LISTS: &[&str] = &[
        "network.ip_addrs",
        "network.ip_addrs6",
        "file.find",
        "cp.list_master",
        "cp.list_master_dirs",
        "cp.list_states",
        "service.get_all",
        "service.get_enabled",
        "service.get_running",
        "user.list_users",
        "file.readdir",
        "dnsutil.A",
        "dnsutil.AAAA",
        "dig.A",
        "dig.AAAA",
    ];
    if DICTS.contains(&name) {
        JValue::from_object(MDict::default())
    } else if LISTS.contains(&name) {
        JValue::from_object(MList::default())
    } else {
        JValue::from("")
    }
}
