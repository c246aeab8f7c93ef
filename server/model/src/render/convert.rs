//! The value conversions between a template's values (minijinja, with Python's mutable dicts and
//! lists) and JSON (`serde_json`, the profile's and the models' form), and `copy.deepcopy`.

use std::sync::Mutex;

use minijinja::value::{Value as JValue, ValueKind};
use serde_json::{Map, Value};

use crate::py::builtins as py;
use crate::render::mutable::{self, MDict, MList};

/// A JSON value as a template sees it: dicts and lists mutable, as Python's are.
pub fn from_json(v: &Value) -> JValue {
    mutable::mutable(JValue::from_serialize(v))
}

/// A pillar value as a template sees it: every dict in it an `OrderedDict`, as Salt's YAML
/// renderer (`SaltYamlSafeLoader(dictclass=OrderedDict)`) builds the pillar's SLS data; the
/// `yaml` filter writes those in their own order, a plain dict's keys sorted.
pub fn from_json_ordered(v: &Value) -> JValue {
    from_json_like(v, &[], true)
}

/// A value of `data` (the pillar) as a template sees it: [`from_json_ordered`] when its dicts
/// are `OrderedDict`s, else [`from_json`].
pub fn from_data(data: &crate::workspace::facts::Data, v: &Value) -> JValue {
    if data.ordered_dicts() {
        from_json_ordered(v)
    } else {
        from_json(v)
    }
}

/// The pillar itself (or a dict of its values, as `pillar.item` builds): a plain dict whose
/// dicts are `OrderedDict`s when the pillar's are.
pub fn from_data_whole(data: &crate::workspace::facts::Data, v: &Value) -> JValue {
    from_json_like(v, &[&JValue::from_object(MDict::default())], data.ordered_dicts())
}

/// The JSON result of a `dictupdate`-style merge as a template sees it: each dict is of the
/// type Python's merge leaves there, that of the first of `like` (the destination, then the
/// sources, at the same path) with a dict at that path; `ordered` when none has (a template's
/// own values are plain dicts; pass `true` for a pillar value's).
pub fn from_json_like(v: &Value, like: &[&JValue], ordered: bool) -> JValue {
    match v {
        Value::Object(m) => {
            let at: Vec<Option<JValue>> = like.iter().map(|l| Some((*l).clone()).filter(|l| l.kind() == ValueKind::Map)).collect();
            let flag = at.iter().flatten().next().map(mutable::is_ordered_dict).unwrap_or(ordered);
            let mut map = indexmap::IndexMap::new();
            for (k, item) in m {
                let key = JValue::from(k.as_str());
                let subs: Vec<JValue> = at.iter().flatten().map(|l| child(l, k)).collect();
                let refs: Vec<&JValue> = subs.iter().collect();
                map.insert(key, from_json_like(item, &refs, ordered));
            }
            JValue::from_object(MDict(Mutex::new(map), flag))
        }
        Value::Array(items) => {
            let lists: Vec<&JValue> = like.iter().copied().filter(|l| l.kind() == ValueKind::Seq).collect();
            let out = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let subs: Vec<JValue> = lists.iter().filter_map(|l| l.get_item_by_index(i).ok()).filter(|x| !x.is_undefined()).collect();
                    let refs: Vec<&JValue> = subs.iter().collect();
                    from_json_like(item, &refs, ordered)
                })
                .collect();
            JValue::from_object(MList(Mutex::new(out)))
        }
        _ => from_json(v),
    }
}

/// `l[k]` for a JSON key `k` (a non-string key is matched by its `str()`).
pub fn child(l: &JValue, k: &str) -> JValue {
    let direct = l.get_item(&JValue::from(k)).unwrap_or_default();
    if !direct.is_undefined() {
        return direct;
    }
    l.try_iter()
        .ok()
        .and_then(|mut keys| keys.find(|mk| mk.as_str().is_none() && key_text(mk) == k))
        .map(|mk| l.get_item(&mk).unwrap_or_default())
        .unwrap_or_default()
}

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

/// `copy.deepcopy`: new dicts and lists all the way down, keys kept as they are.
pub fn deepcopy(v: &JValue) -> JValue {
    if let Some(d) = mutable::dict_of(v) {
        let map = d.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        return JValue::from_object(MDict(Mutex::new(map.into_iter().map(|(k, v)| (k, deepcopy(&v))).collect()), d.1));
    }
    if let Some(l) = v.downcast_object::<MList>() {
        let items = l.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        return JValue::from_object(MList(Mutex::new(items.iter().map(deepcopy).collect())));
    }
    match v.kind() {
        ValueKind::Seq | ValueKind::Map => deepcopy(&mutable::mutable(v.clone())),
        _ => v.clone(),
    }
}
