//! The `*_dict_key_value` filters (`salt/utils/dictupdate.py`): change the dict at a key path in
//! place, and return the dict.

use super::args::{bind, invalid, py_type, required_str, text_of};
use minijinja::value::{Rest, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind};

pub(super) fn register(env: &mut Environment<'_>) {
    // `salt/utils/dictupdate.py`: change the dict at a key path in place, and return the dict.
    for op in ["set", "update", "append", "extend"] {
        env.add_filter(format!("{op}_dict_key_value"), move |d: Value, args: Rest<Value>| {
            let a = bind(&format!("{op}_dict_key_value"), &args, &["keys", "value", "delimiter", "ordered_dict"])?;
            let keys = required_str("dict_key_value", "keys", a[0].as_ref())?;
            let value = a[1].clone().ok_or_else(|| Error::new(ErrorKind::MissingArgument, "missing required argument: 'value'"))?;
            let delimiter = match &a[2] {
                Some(d) => text_of(d)?.to_string(),
                None => ":".into(),
            };
            dict_key_value(op, d, &keys, value, &delimiter)
        });
    }
}

/// `set_dict_key_value`, `update_dict_key_value`, `append_dict_key_value` and
/// `extend_dict_key_value` (`salt/utils/dictupdate.py`): every key of the path but the last made
/// a dict (a missing key, or one that holds something else), then the last key set to `value`,
/// or its dict updated with it, or its list appended or extended (a missing or `None` value
/// starting empty). The dict itself changes, as Python's does.
fn dict_key_value(op: &str, d: Value, keys: &str, value: Value, delimiter: &str) -> Result<Value, Error> {
    use crate::render::mutable::{mutable, MDict, MList};
    let lock = |m: &MDict| m.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let root = mutable(d);
    let Some(mut dict) = crate::render::mutable::dict_of(&root) else {
        return Err(invalid(format!("'{}' object does not support item assignment", py_type(&root))));
    };
    let (path, last) = match keys.rsplit_once(delimiter).filter(|_| !delimiter.is_empty()) {
        Some((path, last)) => (path.split(delimiter).collect::<Vec<_>>(), last),
        None => (Vec::new(), keys),
    };
    for key in path {
        let k = Value::from(key);
        let next = lock(&dict).get(&k).and_then(|v| v.downcast_object::<MDict>());
        dict = match next {
            Some(n) => n,
            None => {
                let fresh = std::sync::Arc::new(MDict::default());
                dict.0.lock().unwrap_or_else(|e| e.into_inner()).insert(k, Value::from_dyn_object(fresh.clone()));
                fresh
            }
        };
    }
    let k = Value::from(last);
    let current = lock(&dict).get(&k).cloned().filter(|v| !v.is_none());
    let class = |v: &Value| format!("<class '{}'>", py_type(v));
    let new = match op {
        "set" => mutable(value),
        "update" => {
            let target = current.unwrap_or_else(|| Value::from_object(MDict::default()));
            let Some(m) = target.downcast_object::<MDict>() else {
                return Err(invalid(format!("The last key contains a {}, which cannot update.", class(&target))));
            };
            if value.kind() != ValueKind::Map {
                return Err(invalid(format!("Cannot update {} with a {}.", class(&target), class(&value))));
            }
            for key in value.try_iter()? {
                let item = mutable(value.get_item(&key)?);
                m.0.lock().unwrap_or_else(|e| e.into_inner()).insert(key, item);
            }
            target
        }
        _ => {
            let target = current.unwrap_or_else(|| Value::from_object(MList::default()));
            let Some(l) = target.downcast_object::<MList>() else {
                return Err(invalid(format!("The last key contains a {}, which cannot {op}.", class(&target))));
            };
            let more: Vec<Value> = if op == "append" {
                vec![mutable(value)]
            } else {
                value.try_iter().map_err(|_| invalid(format!("Cannot extend {} with a {}.", class(&target), class(&value))))?.map(mutable).collect()
            };
            l.0.lock().unwrap_or_else(|e| e.into_inner()).extend(more);
            target
        }
    };
    dict.0.lock().unwrap_or_else(|e| e.into_inner()).insert(k, new);
    Ok(root)
}
