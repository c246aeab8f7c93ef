//! `salt.utils.data.traverse_dict_and_list`, the walk along a delimited key path (`a:b:0`) that
//! the grain and pillar matchers, `pillar.get`, `grains.get`, `config.get` and
//! `grains.filter_by` all share.

use serde_json::{Map, Value};

use super::builtins as py;

/// `salt.utils.data.traverse_dict_and_list(data, key, default, delimiter)`: `None` where
/// Salt returns the default. In a list, a numeric part is an index (negative counts from the
/// end) and any other part looks into the first embedded dict that has it; a dict key that
/// is missing is retried as YAML would load it (`'a'` is `a`).
pub fn traverse_dict_and_list<'v>(data: &'v Value, key: &str, delimiter: &str) -> Option<&'v Value> {
    let parts: Vec<&str> = if delimiter.is_empty() { vec![key] } else { key.split(delimiter).collect() };
    walk(data, &parts)
}

/// One dict step of [`traverse_dict_and_list`]: the key, else the key as YAML loads it.
pub(crate) fn dict_get<'v>(map: &'v Map<String, Value>, each: &str) -> Option<&'v Value> {
    dict_entry(map, each).map(|(_, v)| v)
}

/// [`dict_get`], with the key as the dict stores it.
fn dict_entry<'v>(map: &'v Map<String, Value>, each: &str) -> Option<(&'v String, &'v Value)> {
    match map.get_key_value(each) {
        Some(kv) => Some(kv),
        None => map.get_key_value(&py::yamlify_to_other_string(each)?),
    }
}

/// [`traverse_dict_and_list`] over a key already split at the delimiter.
pub(crate) fn walk<'v>(data: &'v Value, parts: &[&str]) -> Option<&'v Value> {
    walk_with(data, parts, |_| {})
}

/// One step of a walk: a dict key as the dict stores it, or a list index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Where [`traverse_dict_and_list`] finds `key`: the steps from `data` to the value Salt
/// returns (Python returns that object itself, so a caller that changes it changes `data`).
pub fn locate(data: &Value, key: &str, delimiter: &str) -> Option<Vec<Step>> {
    let parts: Vec<&str> = if delimiter.is_empty() { vec![key] } else { key.split(delimiter).collect() };
    let mut steps = Vec::new();
    walk_with(data, &parts, |s| steps.push(s))?;
    Some(steps)
}

/// The value at the end of `path` (from [`locate`]).
pub fn at<'v>(data: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(data, |ptr, step| match (ptr, step) {
        (Value::Object(m), Step::Key(k)) => m.get(k),
        (Value::Array(l), Step::Index(i)) => l.get(*i),
        _ => None,
    })
}

/// The value at the end of `path` (from [`locate`]), to change it in place.
pub fn at_mut<'v>(data: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    let mut ptr = data;
    for step in path {
        ptr = match (ptr, step) {
            (Value::Object(m), Step::Key(k)) => m.get_mut(k)?,
            (Value::Array(l), Step::Index(i)) => l.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(ptr)
}

/// The walk, telling `record` each step it takes.
fn walk_with<'v>(data: &'v Value, parts: &[&str], mut record: impl FnMut(Step)) -> Option<&'v Value> {
    let mut ptr = data;
    for &each in parts {
        ptr = match ptr {
            Value::Array(items) => match py::parse_int(each) {
                // Embedded dicts are searched for the int key first, but JSON keys are strings.
                Some(idx) => {
                    let len = items.len() as i128;
                    let i = if idx < 0 { idx + len } else { idx };
                    if i < 0 || i >= len {
                        return None;
                    }
                    record(Step::Index(i as usize));
                    items.get(i as usize)?
                }
                None => {
                    let (i, v) = items.iter().enumerate().find_map(|(i, x)| x.as_object().and_then(|m| m.get(each)).map(|v| (i, v)))?;
                    record(Step::Index(i));
                    record(Step::Key(each.to_string()));
                    v
                }
            },
            Value::Object(map) => {
                let (k, v) = dict_entry(map, each)?;
                record(Step::Key(k.clone()));
                v
            }
            // Indexing a string, number or None raises TypeError, which yields the default.
            _ => return None,
        };
    }
    Some(ptr)
}
