//! A template value as JSON (`serde_json`, the profile's and the models' form): [`to_json`],
//! and a dict key's `str()`. The other way, JSON into a template's mutable values, is
//! `render::mutable`'s.

use minijinja::value::{Value as JValue, ValueKind};
use serde_json::{Map, Value};

use crate::py::builtins as py;

/// A template value as JSON. Dict keys become their `str()` (`7` is `"7"`); what JSON cannot
/// hold (a macro, an undefined value) becomes `null`, or its text.
pub fn to_json(v: &JValue) -> Value {
    to_json_at(v, 0)
}

fn to_json_at(v: &JValue, depth: usize) -> Value {
    // A dict that contains itself has no JSON form; stop where Python's repr would print `{...}`.
    if depth > 256 {
        return Value::Null;
    }
    match v.kind() {
        ValueKind::Undefined | ValueKind::None | ValueKind::Invalid => Value::Null,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::Number => serde_json::to_value(v).unwrap_or(Value::Null),
        ValueKind::String => Value::String(v.as_str().unwrap_or_default().to_string()),
        ValueKind::Bytes => Value::String(String::from_utf8_lossy(v.as_bytes().unwrap_or_default()).into_owned()),
        ValueKind::Seq | ValueKind::Iterable => Value::Array(v.try_iter().map(|it| it.map(|x| to_json_at(&x, depth + 1)).collect()).unwrap_or_default()),
        ValueKind::Map => {
            let mut m = Map::new();
            if let Ok(keys) = v.try_iter() {
                for k in keys {
                    let item = v.get_item(&k).unwrap_or_default();
                    m.insert(key_text(&k), to_json_at(&item, depth + 1));
                }
            }
            Value::Object(m)
        }
        _ => Value::String(v.to_string()),
    }
}

/// Python's `str()` of a dict key.
pub fn key_text(k: &JValue) -> String {
    match k.as_str() {
        Some(s) => s.to_string(),
        None => py::str_of(&to_json(k)),
    }
}
