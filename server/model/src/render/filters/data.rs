//! The data filters (`salt/utils/data.py`, and those `salt/utils/jinja.py` defines over lists
//! and dicts: `unique`, the set operations, `flatten`, `min`/`max`/`avg`, `json_query`, ...).

use super::args::{bind, data, invalid, py_type, text_of};
use crate::py::builtins::{is_py_space, parse_int, py_cmp, py_eq, str_of, type_name};
use crate::py::path::normpath;
use crate::render::mutable::from_json;
use minijinja::value::{Kwargs, Rest, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind};
use serde_json::Value as J;

pub(super) fn register(env: &mut Environment<'_>) {
    // Data (`salt/utils/data.py`, `salt/utils/jinja.py`, `salt/utils/stringutils.py`).
    env.add_filter("traverse", traverse);
    env.add_filter("to_bool", |v: Value| to_bool(&v));
    env.add_filter("unique", |v: Value| -> Result<Value, Error> { Ok(from_json(&J::Array(dedup(py_iter(&data(&v)?)?)))) });
    env.add_filter("union", |a: Value, b: Value| set_op("union", &a, &b));
    env.add_filter("intersect", |a: Value, b: Value| set_op("intersect", &a, &b));
    env.add_filter("difference", |a: Value, b: Value| set_op("difference", &a, &b));
    env.add_filter("symmetric_difference", |a: Value, b: Value| set_op("symmetric_difference", &a, &b));
    // `isinstance(value, list)`: a tuple is none.
    env.add_filter("is_list", |v: Value| v.kind() == ValueKind::Seq && !crate::render::mutable::is_tuple(&v));
    env.add_filter("is_iter", |v: Value| matches!(v.kind(), ValueKind::Seq | ValueKind::Map | ValueKind::Iterable));
    env.add_filter("sequence", |v: Value| if matches!(v.kind(), ValueKind::Seq | ValueKind::Map) { v } else { Value::from(vec![v]) });
    env.add_filter("flatten", |v: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("flatten", &args, &["levels", "preserve_nulls"])?;
        let levels = match &a[0] {
            Some(l) if !l.is_none() => Some(i64::try_from(l.clone()).map_err(|_| invalid("levels must be an integer"))?),
            _ => None,
        };
        let items = flatten(&data(&v)?, levels, a[1].as_ref().is_some_and(Value::is_true))?;
        Ok(from_json(&J::Array(items)))
    });
    env.add_filter("to_num", |v: Value| to_num(&v));
    env.add_filter("str_to_num", |v: Value| to_num(&v));
    env.add_filter("path_join", path_join);
    env.add_filter("json_query", json_query);
    // `lst_min`, `lst_max`, `lst_avg` (`salt/utils/jinja.py`) replace Jinja2's `min`/`max`:
    // Python's `min()`/`max()`, case-sensitive.
    env.add_filter("min", |v: Value| extreme(&v, "min"));
    env.add_filter("max", |v: Value| extreme(&v, "max"));
    env.add_filter("avg", avg);
    env.add_filter("substring_in_list", |v: Value, list: Value| -> Result<bool, Error> {
        let needle = data(&v)?;
        for item in py_iter(&data(&list)?)? {
            if py_contains(&item, &needle)? {
                return Ok(true);
            }
        }
        Ok(false)
    });
    env.add_filter("exactly_n_true", |v: Value, amount: Option<i64>| -> Result<bool, Error> { exactly_n(&v, amount.unwrap_or(1)) });
    env.add_filter("exactly_one_true", |v: Value| -> Result<bool, Error> { exactly_n(&v, 1) });
    env.add_filter("skip", |_: Value| "");
    env.add_filter("to_entries", to_entries);
    env.add_filter("compare_lists", compare_lists);
    env.add_filter("compare_dicts", compare_dicts);
    env.add_filter("human_to_bytes", human_to_bytes);

    env.add_filter("from_entries", from_entries);
}

/// `traverse(data, key, default=None, delimiter=':')`: `salt.utils.data.traverse_dict_and_list`.
fn traverse(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("traverse", &args, &["key", "default", "delimiter"])?;
    let key = a[0].clone().ok_or_else(|| Error::new(ErrorKind::MissingArgument, "traverse() missing required argument: 'key'"))?;
    let default = a[1].clone().unwrap_or(Value::from(()));
    let delimiter = match &a[2] {
        Some(d) => text_of(d)?.to_string(),
        None => ":".into(),
    };
    // A string is split at the delimiter; a list is the path itself.
    let parts: Vec<String> = match data(&key)? {
        J::String(_) if delimiter.is_empty() => return Err(invalid("empty separator")),
        J::String(k) => k.split(delimiter.as_str()).map(str::to_string).collect(),
        J::Array(items) => items.iter().map(str_of).collect(),
        other => vec![str_of(&other)],
    };
    // `StrictUndefined.__getitem__` raises.
    let d = data(&value)?;
    Ok(match crate::py::data::walk(&d, &parts.iter().map(String::as_str).collect::<Vec<_>>()) {
        Some(found) => from_json(found),
        None => default,
    })
}

/// `to_bool` (`salt/utils/jinja.py`): strings `yes`, `1`, `true` in any case; integers above
/// zero; non-empty lists and dicts; everything else (floats included) false.
fn to_bool(v: &Value) -> bool {
    match v.kind() {
        ValueKind::None | ValueKind::Undefined => false,
        ValueKind::Bool => v.is_true(),
        ValueKind::String => matches!(v.as_str().unwrap_or_default().to_lowercase().as_str(), "yes" | "1" | "true"),
        ValueKind::Number => v.is_integer() && v.as_i64().is_some_and(|i| i > 0),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => v.len().is_some_and(|n| n > 0) || v.try_iter().is_ok_and(|mut i| i.next().is_some()),
        _ => false,
    }
}

/// What `for x in value` gives in Python: list items, dict keys, a string's characters.
pub(super) fn py_iter(v: &J) -> Result<Vec<J>, Error> {
    match v {
        J::Array(items) => Ok(items.clone()),
        J::Object(d) => Ok(d.keys().map(|k| J::String(k.clone())).collect()),
        J::String(s) => Ok(s.chars().map(|c| J::String(c.to_string())).collect()),
        _ => Err(invalid(format!("'{}' object is not iterable", type_name(v)))),
    }
}

/// Python's `x in container`.
fn py_contains(container: &J, x: &J) -> Result<bool, Error> {
    match (container, x) {
        (J::Array(items), _) => Ok(items.iter().any(|i| py_eq(i, x))),
        (J::Object(d), J::String(k)) => Ok(d.contains_key(k)),
        (J::Object(_), _) => Ok(false),
        (J::String(s), J::String(sub)) => Ok(s.contains(sub.as_str())),
        (J::String(_), _) => Err(invalid(format!("'in <string>' requires string as left operand, not {}", type_name(x)))),
        _ => Err(invalid(format!("argument of type '{}' is not iterable", type_name(container)))),
    }
}

/// Whether Python's `isinstance(v, Hashable)` holds (lists and dicts are not).
fn hashable(v: &J) -> bool {
    !matches!(v, J::Array(_) | J::Object(_))
}

/// The items without repeats, by Python `==` (so `1` and `1.0` are one), first ones kept.
fn dedup(items: Vec<J>) -> Vec<J> {
    let mut out: Vec<J> = Vec::with_capacity(items.len());
    for x in items {
        if !out.iter().any(|o| py_eq(o, &x)) {
            out.push(x);
        }
    }
    out
}

/// `union`, `intersect`, `difference`, `symmetric_difference` (`salt/utils/jinja.py`): on two
/// hashable values (strings) Python's set operations, else lists built with `unique`. (A
/// Python set's order is not fixed; here it is the order of first appearance.)
fn set_op(op: &str, a: &Value, b: &Value) -> Result<Value, Error> {
    let (a, b) = (data(a)?, data(b)?);
    let (ia, ib) = (py_iter(&a)?, py_iter(&b)?);
    let sets = hashable(&a) && hashable(&b);
    let in_b = |x: &J| if sets { Ok(ib.iter().any(|y| py_eq(x, y))) } else { py_contains(&b, x) };
    let union = || -> Result<Vec<J>, Error> {
        if !sets && !matches!((&a, &b), (J::Array(_), J::Array(_))) {
            return Err(invalid(format!("unsupported operand type(s) for +: '{}' and '{}'", type_name(&a), type_name(&b))));
        }
        Ok(dedup(ia.iter().chain(ib.iter()).cloned().collect()))
    };
    let mut intersect = Vec::new();
    let mut difference = Vec::new();
    for x in &ia {
        if in_b(x)? {
            intersect.push(x.clone());
        } else {
            difference.push(x.clone());
        }
    }
    let out = match op {
        "union" => union()?,
        "intersect" => dedup(intersect),
        "difference" => dedup(difference),
        _ => {
            let both = dedup(intersect);
            union()?.into_iter().filter(|x| !both.iter().any(|y| py_eq(x, y))).collect()
        }
    };
    Ok(from_json(&J::Array(out)))
}

/// `flatten(data, levels=None, preserve_nulls=False)` (`salt/utils/data.py`): nested lists
/// (and dicts, whose keys Python iterates) spliced in; `None`, `'None'` and `'null'` dropped
/// unless kept.
fn flatten(data: &J, levels: Option<i64>, preserve_nulls: bool) -> Result<Vec<J>, Error> {
    let mut out = Vec::new();
    for element in py_iter(data)? {
        let null = matches!(&element, J::Null) || matches!(&element, J::String(s) if s == "None" || s == "null");
        if !preserve_nulls && null {
            continue;
        }
        let iterable = matches!(element, J::Array(_) | J::Object(_));
        match levels {
            _ if !iterable => out.push(element),
            None => out.extend(flatten(&element, None, preserve_nulls)?),
            Some(l) if l >= 1 => out.extend(flatten(&element, Some(l - 1), preserve_nulls)?),
            Some(_) => out.push(element),
        }
    }
    Ok(out)
}

/// `to_num` / `str_to_num` (`salt/utils/stringutils.py`): `int(text)`, else `float(text)`,
/// else the text as it was.
fn to_num(v: &Value) -> Result<Value, Error> {
    match v.kind() {
        ValueKind::String => {
            let s = v.as_str().unwrap_or_default();
            if let Some(i) = parse_int(s) {
                return Ok(Value::from(i));
            }
            Ok(py_float(s).map(Value::from).unwrap_or_else(|| v.clone()))
        }
        ValueKind::Bool => Ok(Value::from(v.is_true() as i64)),
        // `int(3.7)` is 3.
        ValueKind::Number if !v.is_integer() => Ok(Value::from(f64::try_from(v.clone()).unwrap_or(0.0).trunc() as i128)),
        ValueKind::Number => Ok(v.clone()),
        _ => Err(invalid(format!("int() argument must be a string, a bytes-like object or a real number, not '{}'", py_type(v)))),
    }
}

/// Python's `float(s)` for a string: surrounding whitespace, `_` between digits, `inf`,
/// `infinity` and `nan` in any case.
pub(super) fn py_float(s: &str) -> Option<f64> {
    let t = s.trim_matches(is_py_space);
    let b = t.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' && !(i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            return None;
        }
    }
    let cleaned = t.replace('_', "");
    let body = cleaned.trim_start_matches(['+', '-']);
    if matches!(body.to_lowercase().as_str(), "inf" | "infinity" | "nan")
        || body.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return cleaned.parse::<f64>().ok();
    }
    None
}

/// `path_join(*parts, use_posixpath=False)` (`salt/utils/path.py` `join`): every part
/// normalised, the parts after the first stripped of leading slashes, joined, normalised.
fn path_join(first: Value, args: Rest<Value>) -> Result<Value, Error> {
    let mut parts = vec![first];
    for a in args.0 {
        if a.is_kwargs() {
            let kwargs = Kwargs::try_from(a)?;
            let _: Option<Value> = kwargs.get("use_posixpath")?;
            kwargs.assert_all_used()?;
        } else {
            parts.push(a);
        }
    }
    let parts: Vec<String> = parts.iter().map(|p| text_of(p).map(normpath)).collect::<Result<_, _>>()?;
    let (root, rest) = parts.split_first().map(|(r, rest)| (r.clone(), rest)).unwrap_or_default();
    if rest.is_empty() {
        return Ok(Value::from(normpath(&root)));
    }
    let mut path = root;
    for p in rest {
        let p = p.trim_start_matches('/');
        if path.is_empty() || path.ends_with('/') {
            path.push_str(p);
        } else {
            path.push('/');
            path.push_str(p);
        }
    }
    Ok(Value::from(normpath(&path)))
}

/// `json_query(data, expr)` (`salt/utils/data.py`): `jmespath.search(expr, data)`. A
/// multi-select hash (`{y: b, x: a}`) comes out with its keys sorted, where Python keeps the
/// expression's order.
fn json_query(v: Value, expr: Value) -> Result<Value, Error> {
    let expr = text_of(&expr)?;
    let compiled = jmespath::compile(expr).map_err(|e| invalid(e.to_string()))?;
    let input = data(&v)?;
    let found = compiled.search(&input).map_err(|e| invalid(e.to_string()))?;
    let mut out = serde_json::to_value(&*found).map_err(|e| invalid(e.to_string()))?;
    // The crate sorts object keys; an object the query took from the data gets the data's
    // order back (the first object there with the same keys).
    let mut orders = std::collections::HashMap::new();
    key_orders(&input, &mut orders);
    reorder(&mut out, &orders);
    Ok(from_json(&out))
}

/// The key order of every object in `v`, by its sorted keys (the first one seen kept).
fn key_orders(v: &J, orders: &mut std::collections::HashMap<Vec<String>, Vec<String>>) {
    match v {
        J::Object(m) => {
            let order: Vec<String> = m.keys().cloned().collect();
            let mut sorted = order.clone();
            sorted.sort();
            orders.entry(sorted).or_insert(order);
            m.values().for_each(|x| key_orders(x, orders));
        }
        J::Array(items) => items.iter().for_each(|x| key_orders(x, orders)),
        _ => {}
    }
}

/// `v` with each object's keys in the order [`key_orders`] found for its key set.
fn reorder(v: &mut J, orders: &std::collections::HashMap<Vec<String>, Vec<String>>) {
    match v {
        J::Object(m) => {
            m.values_mut().for_each(|x| reorder(x, orders));
            let mut sorted: Vec<String> = m.keys().cloned().collect();
            sorted.sort();
            if let Some(order) = orders.get(&sorted) {
                *m = order.iter().filter_map(|k| m.remove(k).map(|x| (k.clone(), x))).collect();
            }
        }
        J::Array(items) => items.iter_mut().for_each(|x| reorder(x, orders)),
        _ => {}
    }
}

/// Python's `min(obj)` / `max(obj)`: the first smallest (largest) item.
fn extreme(v: &Value, which: &str) -> Result<Value, Error> {
    let items = py_iter(&data(v)?)?;
    let mut best: Option<&J> = None;
    for item in &items {
        best = Some(match best {
            None => item,
            Some(b) => {
                let ord = if which == "min" { py_cmp(item, b) } else { py_cmp(b, item) };
                if ord.map_err(invalid)? == std::cmp::Ordering::Less {
                    item
                } else {
                    b
                }
            }
        });
    }
    best.map(from_json).ok_or_else(|| invalid(format!("{which}() arg is an empty sequence")))
}

/// `lst_avg`: `float(sum(lst) / len(lst))`, or `float(lst)` of a hashable value.
fn avg(v: Value) -> Result<Value, Error> {
    let number = |x: &J| match x {
        J::Number(n) => Ok(n.as_f64().unwrap_or(0.0)),
        J::Bool(b) => Ok(f64::from(u8::from(*b))),
        other => Err(invalid(format!("unsupported operand type(s) for +: 'int' and '{}'", type_name(other)))),
    };
    match data(&v)? {
        J::Array(items) => {
            if items.is_empty() {
                return Err(invalid("division by zero"));
            }
            let total = items.iter().map(number).sum::<Result<f64, Error>>()?;
            Ok(Value::from(total / items.len() as f64))
        }
        J::Object(_) => Err(invalid("unsupported operand type(s) for +: 'int' and 'str'")),
        J::String(s) => {
            py_float(&s).map(Value::from).ok_or_else(|| invalid(format!("could not convert string to float: {}", crate::py::builtins::repr_str(&s))))
        }
        other => number(&other).map(Value::from),
    }
}

/// `exactly_n(iterable, amount)` (`salt/utils/data.py`): exactly `amount` items are truthy.
fn exactly_n(v: &Value, amount: i64) -> Result<bool, Error> {
    let truthy = py_iter(&data(v)?)?.iter().filter(|x| crate::py::builtins::truthy(x)).count();
    Ok(amount >= 0 && truthy == amount as usize)
}

/// `compare_lists(old, new)` (`salt/utils/data.py`): `{'new': [items only in new], 'old':
/// [items only in old]}`, each key only when it has items.
fn compare_lists(old: Value, new: Value) -> Result<Value, Error> {
    let (old, new) = (py_iter(&data(&old)?)?, py_iter(&data(&new)?)?);
    let only = |a: &[J], b: &[J]| a.iter().filter(|x| !b.iter().any(|y| py_eq(x, y))).cloned().collect::<Vec<_>>();
    let mut out = serde_json::Map::new();
    for (name, items) in [("new", only(&new, &old)), ("old", only(&old, &new))] {
        if !items.is_empty() {
            out.insert(name.into(), J::Array(items));
        }
    }
    Ok(from_json(&J::Object(out)))
}

/// `compare_dicts(old, new)` (`salt/utils/data.py`): for each key added, removed or changed,
/// `{'old': ..., 'new': ...}` (`''` for the side without it). Salt walks a set of the keys,
/// whose order Python does not fix; here the new dict's keys come first.
fn compare_dicts(old: Value, new: Value) -> Result<Value, Error> {
    let as_map = |v: J| match v {
        J::Object(m) => Ok(m),
        J::Null => Ok(serde_json::Map::new()),
        other => Err(invalid(format!("'{}' object is not iterable", type_name(&other)))),
    };
    let (old, new) = (as_map(data(&old)?)?, as_map(data(&new)?)?);
    let mut out = serde_json::Map::new();
    let pair = |o: J, n: J| J::Object([("old".to_string(), o), ("new".to_string(), n)].into_iter().collect());
    for key in new.keys().chain(old.keys().filter(|k| !new.contains_key(*k))) {
        match (old.get(key), new.get(key)) {
            (None, Some(n)) => out.insert(key.clone(), pair(J::from(""), n.clone())),
            (Some(o), None) => out.insert(key.clone(), pair(o.clone(), J::from(""))),
            (Some(o), Some(n)) if !py_eq(o, n) => out.insert(key.clone(), pair(o.clone(), n.clone())),
            _ => None,
        };
    }
    Ok(from_json(&J::Object(out)))
}

/// `human_to_bytes(size, default_unit='B', handle_metric=False)` (`salt/utils/stringutils.py`):
/// `2G`, `30MB`, `64KiB` as bytes (powers of 1024, of 1000 for `kb`..`yb` with
/// `handle_metric`); 0 for anything else.
fn human_to_bytes(size: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("human_to_bytes", &args, &["default_unit", "handle_metric"])?;
    let default_unit = match &a[0] {
        Some(u) => str_of(&data(u)?),
        None => "B".into(),
    };
    let metric = a[1].as_ref().is_some_and(Value::is_true);
    let text = crate::render::mutable::py_str(&size);
    let text = text.trim_matches(is_py_space);
    let digits = text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len());
    let (value, unit) = text.split_at(digits);
    let unit = unit.trim_start_matches(is_py_space);
    if unit.contains(['\n', '\r']) {
        return Err(invalid("'NoneType' object has no attribute 'group'"));
    }
    let unit = if unit.is_empty() { default_unit.to_lowercase() } else { unit.to_lowercase() };
    enum Num {
        Int(i128),
        Float(f64),
    }
    let value = match value.parse::<i128>() {
        Ok(i) => Num::Int(i),
        Err(_) => match py_float(value) {
            Some(f) => Num::Float(f),
            None => return Ok(Value::from(0)),
        },
    };
    let prefixes = "bkmgtpezy";
    let metric_unit = unit.len() == 2 && unit.ends_with('b') && unit.starts_with(|c: char| "kmgtpezy".contains(c));
    let known = unit == "b" || (unit.len() == 1 || unit.len() == 3 && unit.ends_with("ib")) && unit.starts_with(|c: char| "kmgtpezy".contains(c));
    if !metric_unit && !known {
        return Ok(Value::from(0));
    }
    let p = prefixes.find(unit.chars().next().unwrap_or('b')).unwrap_or(0) as u32;
    let scale: i128 = if metric_unit && metric { 10i128.pow(p * 3) } else { 2i128.pow(p * 10) };
    let bytes = match value {
        Num::Int(i) => i.checked_mul(scale).ok_or_else(|| invalid("the size is too large"))?,
        Num::Float(f) => {
            let b = (f * scale as f64).trunc();
            if !b.is_finite() || b.abs() >= 1.7e38 {
                return Err(invalid("the size is too large"));
            }
            b as i128
        }
    };
    Ok(Value::from(bytes))
}

/// `to_entries` (`salt/utils/data.py`): a dict's items, or a list's items by index, as
/// `{'key': k, 'value': v}` dicts.
fn to_entries(v: Value) -> Result<Value, Error> {
    let entry = |k: J, x: J| J::Object([("key".to_string(), k), ("value".to_string(), x)].into_iter().collect());
    let out: Vec<J> = match data(&v)? {
        J::Object(m) => m.into_iter().map(|(k, x)| entry(J::String(k), x)).collect(),
        J::Array(items) => items.into_iter().enumerate().map(|(i, x)| entry(J::from(i), x)).collect(),
        _ => return Err(invalid("Input data must be a dict or list")),
    };
    Ok(from_json(&J::Array(out)))
}

/// `from_entries` (`salt/utils/data.py`): a dict from entries whose `key` (else `name`), in
/// any case, is truthy, with their `value` (`None` when there is none).
fn from_entries(v: Value) -> Result<Value, Error> {
    let mut out = serde_json::Map::new();
    for entry in py_iter(&data(&v)?)? {
        let J::Object(m) = entry else {
            return Err(invalid(format!("'{}' object is not iterable", type_name(&entry))));
        };
        let get = |name: &str| m.iter().find(|(k, _)| k.to_lowercase() == name).map(|(_, x)| x.clone());
        for name in ["key", "name"] {
            if let Some(key) = get(name).filter(crate::py::builtins::truthy) {
                out.insert(str_of(&key), get("value").unwrap_or(J::Null));
                break;
            }
        }
    }
    Ok(from_json(&J::Object(out)))
}
