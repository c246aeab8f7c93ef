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
    match map.get(each) {
        Some(v) => Some(v),
        None => map.get(&py::yamlify_to_other_string(each)?),
    }
}

/// [`traverse_dict_and_list`] over a key already split at the delimiter.
pub(crate) fn walk<'v>(data: &'v Value, parts: &[&str]) -> Option<&'v Value> {
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
                    items.get(i as usize)?
                }
                None => items.iter().filter_map(Value::as_object).find_map(|m| m.get(each))?,
            },
            Value::Object(map) => dict_get(map, each)?,
            // Indexing a string, number or None raises TypeError, which yields the default.
            _ => return None,
        };
    }
    Some(ptr)
}
