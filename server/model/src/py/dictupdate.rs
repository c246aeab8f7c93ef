//! Salt's dict-merge rules (`salt/utils/dictupdate.py`): `update`, `merge` and its strategies
//! (`smart`, `recurse`, `aggregate`, `overwrite`, `list`, `none`), and `merge_all`, over JSON
//! values in insertion order. Templates (`slsutil.merge`, `defaults.merge`, `pillar.get` with
//! `merge`, `config.get` with `merge`, `grains.filter_by`), pillar and mapstack all merge through
//! here, so these rules live in this one place.
//!
//! Keys are strings: a Python dict with `1` and `'1'` as two keys has no JSON equivalent.
//! Where Python aliases (`dest[key] = upd[key]` stores `upd`'s own object), the result here
//! holds a copy; only in-place changes to `dest` itself are modelled, by `&mut`.

use serde_json::{Map, Value};

use super::builtins::{py_eq, repr_str, type_name};

/// A Python exception raised by a merge, with the message `str(exc)` gives: Salt's Jinja
/// renderer reports it as `Jinja error: {message}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError {
    /// The exception class, e.g. `TypeError`.
    pub exception: &'static str,
    pub message: String,
}

impl MergeError {
    fn type_error(message: impl Into<String>) -> MergeError {
        MergeError { exception: "TypeError", message: message.into() }
    }
    fn non_dict() -> MergeError {
        MergeError::type_error("Cannot update using non-dict types in dictupdate.update()")
    }
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// `update(dest, upd, recursive_update=True, merge_lists=False, strict=False)`: merges `upd`
/// into `dest` in place. Both must be dicts.
///
/// * Both values dicts: recurse (with `merge_lists`; `strict` is not passed down).
/// * Both lists: with `merge_lists`, `dest + [x for x in upd if x not in dest]` (membership
///   against the original `dest` list only, with Python's `==`); without, `upd`'s list.
/// * `strict` and `merge_lists`, a `dest` list and an `upd` dict: `TypeError` (Salt 3008).
/// * Anything else: `upd`'s value replaces `dest`'s (a scalar a dict, `None` anything).
///
/// Keys are never removed; an existing key keeps its place, new keys are appended.
pub fn update(dest: &mut Value, upd: &Value, recursive_update: bool, merge_lists: bool, strict: bool) -> Result<(), MergeError> {
    match (dest, upd) {
        (Value::Object(dest), Value::Object(upd)) => update_map(dest, upd, recursive_update, merge_lists, strict),
        _ => Err(MergeError::non_dict()),
    }
}

/// [`update`] over two dicts, which cannot fail for a non-dict argument.
pub fn update_map(dest: &mut Map<String, Value>, upd: &Map<String, Value>, recursive_update: bool, merge_lists: bool, strict: bool) -> Result<(), MergeError> {
    // `if not set(dest.keys()) & set(updkeys): recursive_update = False`: no shared key
    // means a plain `dest[k] = upd[k]`, which is what the recursive branch would do anyway.
    if !recursive_update || !upd.keys().any(|k| dest.contains_key(k)) {
        for (k, v) in upd {
            dest.insert(k.clone(), v.clone());
        }
        return Ok(());
    }
    for (key, val) in upd {
        match (dest.get_mut(key), val) {
            (Some(Value::Object(sub)), Value::Object(val)) => update_map(sub, val, true, merge_lists, false)?,
            (Some(Value::Array(list)), Value::Array(val)) => {
                if merge_lists {
                    // `merged.extend([x for x in val if x not in merged])`: the comprehension
                    // runs before `extend`, so duplicates inside `val` survive.
                    let new: Vec<Value> = val.iter().filter(|x| !list.iter().any(|y| py_eq(x, y))).cloned().collect();
                    list.extend(new);
                } else {
                    *list = val.clone();
                }
            }
            (Some(Value::Array(_)), Value::Object(val)) if strict && merge_lists => {
                let keys: Vec<String> = val.keys().map(|k| repr_str(k)).collect();
                return Err(MergeError::type_error(format!(
                    "With merge_lists=True we cannot update list under key={} with mapping containing keys val.keys()=dict_keys([{}]) in dictupdate.update()",
                    repr_str(key),
                    keys.join(", ")
                )));
            }
            _ => {
                dest.insert(key.clone(), val.clone());
            }
        }
    }
    Ok(())
}

/// `merge_recurse(obj_a, obj_b, merge_lists)`: `update(deepcopy(obj_a), obj_b, merge_lists)`.
pub fn merge_recurse(a: &Value, b: &Value, merge_lists: bool) -> Result<Value, MergeError> {
    let mut copied = a.clone();
    update(&mut copied, b, true, merge_lists, false)?;
    Ok(copied)
}

/// `merge_list(obj_a, obj_b)`: `{k: [a[k], b[k]] if k in b else a[k] for k in a}`. Keys only
/// in `b` are dropped, and nothing is recursive.
pub fn merge_list(a: &Value, b: &Value) -> Result<Value, MergeError> {
    let Value::Object(a) = a else {
        return Err(MergeError { exception: "AttributeError", message: format!("'{}' object has no attribute 'items'", type_name(a)) });
    };
    let mut ret = Map::new();
    for (key, val) in a {
        // `key in obj_b` then `obj_b[key]`, for whatever `obj_b` is.
        let other = match b {
            Value::Object(b) => b.get(key).cloned(),
            Value::String(s) if s.contains(key.as_str()) => {
                return Err(MergeError::type_error("string indices must be integers, not 'str'"));
            }
            Value::Array(l) if l.iter().any(|x| x.as_str() == Some(key)) => {
                return Err(MergeError::type_error("list indices must be integers or slices, not str"));
            }
            Value::String(_) | Value::Array(_) => None,
            other => return Err(MergeError::type_error(format!("argument of type '{}' is not iterable", type_name(other)))),
        };
        ret.insert(
            key.clone(),
            match other {
                Some(o) => Value::Array(vec![val.clone(), o]),
                None => val.clone(),
            },
        );
    }
    Ok(Value::Object(ret))
}

/// `merge_aggregate(obj_a, obj_b)`: yamlex's `merge_recursive(obj_a, obj_b, level=1)`
/// (`salt/utils/aggregation.py:aggregate`). Only the top level is marked for aggregation, and
/// plain data carries no yamlex `!aggregate` tag, so:
///
/// * two dicts: `b`'s values replace `a`'s key by key, whole (nested dicts are not merged);
/// * neither a dict: both become lists (`mark` wraps a scalar as `[x]`) and `b`'s items not
///   in `a` are appended;
/// * otherwise `b`, marked: a dict stays a dict, a scalar becomes `[b]`.
pub fn merge_aggregate(a: &Value, b: &Value) -> Value {
    fn mark(v: &Value) -> Vec<Value> {
        match v {
            Value::Array(l) => l.clone(),
            other => vec![other.clone()],
        }
    }
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            // `response = copy.copy(obj_a)`, then `response[key] = aggregate(a[k], b[k],
            // level=0)` for each key of b, which without marks is b's value.
            let mut response = a.clone();
            for (k, v) in b {
                response.insert(k.clone(), v.clone());
            }
            Value::Object(response)
        }
        (_, Value::Object(b)) => Value::Object(b.clone()),
        (Value::Object(_), b) => Value::Array(mark(b)),
        (a, b) => {
            let a = mark(a);
            let mut response = a.clone();
            for v in mark(b) {
                if !a.iter().any(|x| py_eq(x, &v)) {
                    response.push(v);
                }
            }
            Value::Array(response)
        }
    }
}

/// `merge_overwrite(obj_a, obj_b, merge_lists)`: **mutates `a`** (`obj_a[k] = obj_b[k]` for
/// every key of `b` already in `a`), then `merge_recurse(a, b)`. Top-level keys of `b`
/// replace `a`'s whole; deeper levels are not merged.
pub fn merge_overwrite(a: &mut Value, b: &Value, merge_lists: bool) -> Result<Value, MergeError> {
    match (&mut *a, b) {
        (Value::Object(am), Value::Object(bm)) => {
            for (k, v) in bm {
                if let Some(slot) = am.get_mut(k) {
                    *slot = v.clone();
                }
            }
        }
        // `for obj in obj_b` fails first when `obj_b` cannot be iterated.
        (_, Value::Null | Value::Bool(_) | Value::Number(_)) => {
            return Err(MergeError::type_error(format!("'{}' object is not iterable", type_name(b))));
        }
        _ => {}
    }
    merge_recurse(a, b, merge_lists)
}

/// `merge(obj_a, obj_b, strategy="smart", renderer="yaml", merge_lists=False)`, which
/// `slsutil.merge`, `merge_all`, pillar and top-file merging call.
///
/// `smart` is `aggregate` when the last `|` part of `renderer` is `yamlex` or `renderer`
/// starts with `yamlex_`, else `recurse`; `none` and an unknown strategy (which Salt logs)
/// are `recurse` without `merge_lists`. Only `overwrite` changes `a`.
pub fn merge(a: &mut Value, b: &Value, strategy: &str, renderer: &str, merge_lists: bool) -> Result<Value, MergeError> {
    let strategy = match strategy {
        "smart" if renderer.rsplit('|').next() == Some("yamlex") || renderer.starts_with("yamlex_") => "aggregate",
        "smart" => "recurse",
        other => other,
    };
    match strategy {
        "list" => merge_list(a, b),
        "recurse" => merge_recurse(a, b, merge_lists),
        "aggregate" => Ok(merge_aggregate(a, b)),
        "overwrite" => merge_overwrite(a, b, merge_lists),
        _ => merge_recurse(a, b, false),
    }
}

/// `slsutil.merge_all(lst, strategy, renderer, merge_lists)`: `merge` folded from `{}`.
pub fn merge_all<'a>(items: impl IntoIterator<Item = &'a Value>, strategy: &str, renderer: &str, merge_lists: bool) -> Result<Value, MergeError> {
    let mut ret = Value::Object(Map::new());
    for obj in items {
        ret = merge(&mut ret, obj, strategy, renderer, merge_lists)?;
    }
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Every expected value below is what Salt 3008.4 printed for the same call, run as
    //   /work/main/tests/.work/venv/bin/python -c 'import json, copy, salt.utils.dictupdate as d; ...'
    // with `print(json.dumps(d.merge(copy.deepcopy(A), copy.deepcopy(B), strategy=S, merge_lists=M)))`
    // (or `d.update(...)`), and `json.dumps` of the inputs afterwards to see mutation.

    fn a() -> Value {
        json!({"a": 1, "l": [1, 2], "d": {"x": 1, "y": {"p": 1}, "l": ["a"]}, "only_a": true})
    }
    fn b() -> Value {
        json!({"a": 2, "l": [2, 3, 3], "d": {"y": {"q": 2}, "l": ["a", "b"], "z": 3}, "only_b": true})
    }

    fn text(v: &Value) -> String {
        serde_json::to_string(v).unwrap()
    }

    /// `merge(A, B, strategy, merge_lists=ml)`, its result and `A` afterwards.
    fn run(strategy: &str, renderer: &str, ml: bool) -> (String, String) {
        let (mut a, b) = (a(), b());
        let r = merge(&mut a, &b, strategy, renderer, ml).unwrap();
        (text(&r), if a == self::a() { "unchanged".into() } else { text(&a) })
    }

    #[test]
    fn every_strategy_with_and_without_merge_lists() {
        let recurse = r#"{"a":2,"l":[2,3,3],"d":{"x":1,"y":{"p":1,"q":2},"l":["a","b"],"z":3},"only_a":true,"only_b":true}"#;
        let recurse_ml = r#"{"a":2,"l":[1,2,3,3],"d":{"x":1,"y":{"p":1,"q":2},"l":["a","b"],"z":3},"only_a":true,"only_b":true}"#;
        let shallow = r#"{"a":2,"l":[2,3,3],"d":{"y":{"q":2},"l":["a","b"],"z":3},"only_a":true,"only_b":true}"#;
        let list = r#"{"a":[1,2],"l":[[1,2],[2,3,3]],"d":[{"x":1,"y":{"p":1},"l":["a"]},{"y":{"q":2},"l":["a","b"],"z":3}],"only_a":true}"#;
        // Salt: smart False/True, recurse False/True as above; aggregate False/True and
        // overwrite False/True the shallow result, overwrite leaving A as that minus only_b;
        // list (both) dropping only_b; none and 'bogus' (both) the plain recurse.
        let overwritten_a = r#"{"a":2,"l":[2,3,3],"d":{"y":{"q":2},"l":["a","b"],"z":3},"only_a":true}"#;
        let cases: &[(&str, bool, &str, &str)] = &[
            ("smart", false, recurse, "unchanged"),
            ("smart", true, recurse_ml, "unchanged"),
            ("recurse", false, recurse, "unchanged"),
            ("recurse", true, recurse_ml, "unchanged"),
            ("aggregate", false, shallow, "unchanged"),
            ("aggregate", true, shallow, "unchanged"),
            ("overwrite", false, shallow, overwritten_a),
            ("overwrite", true, shallow, overwritten_a),
            ("list", false, list, "unchanged"),
            ("list", true, list, "unchanged"),
            ("none", false, recurse, "unchanged"),
            ("none", true, recurse, "unchanged"),
            ("bogus", false, recurse, "unchanged"),
            ("bogus", true, recurse, "unchanged"),
        ];
        for (strategy, ml, want, want_a) in cases {
            assert_eq!(run(strategy, "yaml", *ml), (want.to_string(), want_a.to_string()), "{strategy} merge_lists={ml}");
        }
        // smart with renderer='jinja|yamlex' and 'yamlex_foo' aggregates; 'yamlex|jinja' does not.
        assert_eq!(run("smart", "jinja|yamlex", false).0, shallow);
        assert_eq!(run("smart", "yamlex_foo", false).0, shallow);
        assert_eq!(run("smart", "yamlex|jinja", false).0, recurse);
    }

    fn upd(dest: Value, u: Value, recursive: bool, ml: bool, strict: bool) -> Result<String, String> {
        let mut dest = dest;
        update(&mut dest, &u, recursive, ml, strict).map(|()| text(&dest)).map_err(|e| format!("{}: {}", e.exception, e.message))
    }

    #[test]
    fn update_cases() {
        let ok = |s: &str| Ok(s.to_string());
        assert_eq!(upd(json!({"a": 1}), json!({"b": {"c": 1}}), true, false, false), ok(r#"{"a":1,"b":{"c":1}}"#));
        assert_eq!(upd(json!({"a": 1, "k": 0}), json!({"a": {"x": 1}}), true, false, false), ok(r#"{"a":{"x":1},"k":0}"#));
        assert_eq!(upd(json!({"a": {"x": 1}}), json!({"a": 5}), true, false, false), ok(r#"{"a":5}"#));
        assert_eq!(upd(json!({"a": {"x": 1}}), json!({"a": null}), true, false, false), ok(r#"{"a":null}"#));
        assert_eq!(upd(json!({"a": [1]}), json!({"a": {"x": 1}}), true, true, false), ok(r#"{"a":{"x":1}}"#));
        assert_eq!(
            upd(json!({"a": [1]}), json!({"a": {"x": 1}}), true, true, true),
            Err("TypeError: With merge_lists=True we cannot update list under key='a' with mapping containing keys val.keys()=dict_keys(['x']) in dictupdate.update()".into())
        );
        // strict is not passed down to nested dicts.
        assert_eq!(upd(json!({"n": {"a": [1]}}), json!({"n": {"a": {"x": 1}}}), true, true, true), ok(r#"{"n":{"a":{"x":1}}}"#));
        assert_eq!(upd(json!({"l": [1, 2]}), json!({"l": [2, 3, 3]}), true, true, false), ok(r#"{"l":[1,2,3,3]}"#));
        assert_eq!(upd(json!({"l": [1, 1]}), json!({"l": [1, 2, 2]}), true, true, false), ok(r#"{"l":[1,1,2,2]}"#));
        // Python's `in`: True == 1, 1.0 == 1, False == 0 == 0.0.
        assert_eq!(upd(json!({"l": [1, 0, "a"]}), json!({"l": [true, 1.0, false, 0.0, 2.5, "a", null]}), true, true, false), ok(r#"{"l":[1,0,"a",2.5,null]}"#));
        assert_eq!(upd(json!({"l": [{"a": 1}]}), json!({"l": [{"a": 1}, {"a": 2}, {"a": true}]}), true, true, false), ok(r#"{"l":[{"a":1},{"a":2}]}"#));
        assert_eq!(upd(json!({"n": {"m": {"l": [1]}}}), json!({"n": {"m": {"l": [2]}}}), true, true, false), ok(r#"{"n":{"m":{"l":[1,2]}}}"#));
        assert_eq!(upd(json!({"n": {"a": 1}, "z": 1}), json!({"n": {"b": 2}}), false, false, false), ok(r#"{"n":{"b":2},"z":1}"#));
        assert_eq!(upd(json!({"a": 1, "b": 2, "c": 3}), json!({"c": 30, "x": 9, "a": 10}), true, false, false), ok(r#"{"a":10,"b":2,"c":30,"x":9}"#));
        assert_eq!(upd(json!([1]), json!({"a": 1}), true, false, false), Err("TypeError: Cannot update using non-dict types in dictupdate.update()".into()));
        assert_eq!(upd(json!({"a": 1}), json!([1]), true, false, false), Err("TypeError: Cannot update using non-dict types in dictupdate.update()".into()));
        assert_eq!(upd(json!({"a": 1}), json!({}), true, false, false), ok(r#"{"a":1}"#));
        assert_eq!(upd(json!({"l": [1, 2]}), json!({"l": [3]}), true, false, false), ok(r#"{"l":[3]}"#));
        assert_eq!(upd(json!({"l": [1, 2]}), json!({"l": 3}), true, true, false), ok(r#"{"l":3}"#));
        assert_eq!(upd(json!({"l": 3}), json!({"l": [1]}), true, true, false), ok(r#"{"l":[1]}"#));
    }

    fn m(a: Value, b: Value, strategy: &str) -> Result<String, String> {
        let mut a = a;
        merge(&mut a, &b, strategy, "yaml", false).map(|v| text(&v)).map_err(|e| format!("{}: {}", e.exception, e.message))
    }

    #[test]
    fn strategies_on_non_dicts() {
        let non_dict = || Err::<String, String>("TypeError: Cannot update using non-dict types in dictupdate.update()".into());
        for s in ["recurse", "none", "smart"] {
            assert_eq!(m(json!({"a": 1}), json!("x"), s), non_dict());
            assert_eq!(m(json!({"a": 1}), json!(null), s), non_dict());
            assert_eq!(m(json!([1]), json!({"a": 1}), s), non_dict());
            assert_eq!(m(json!([1, 2]), json!([2, 3]), s), non_dict());
            assert_eq!(m(json!("x"), json!("y"), s), non_dict());
        }
        assert_eq!(m(json!({"a": 1}), json!("x"), "aggregate"), Ok(r#"["x"]"#.into()));
        assert_eq!(m(json!({"a": 1}), json!(null), "aggregate"), Ok("[null]".into()));
        assert_eq!(m(json!([1]), json!({"a": 1}), "aggregate"), Ok(r#"{"a":1}"#.into()));
        assert_eq!(m(json!([1, 2]), json!([2, 3]), "aggregate"), Ok("[1,2,3]".into()));
        assert_eq!(m(json!("x"), json!("y"), "aggregate"), Ok(r#"["x","y"]"#.into()));
        assert_eq!(m(json!({"a": 1}), json!(5), "aggregate"), Ok("[5]".into()));
        assert_eq!(m(json!(5), json!({"a": 1}), "aggregate"), Ok(r#"{"a":1}"#.into()));
        assert_eq!(m(json!(5), json!(5), "aggregate"), Ok("[5]".into()));
        assert_eq!(m(json!({"a": 1}), json!("x"), "overwrite"), non_dict());
        assert_eq!(m(json!({"a": 1}), json!(null), "overwrite"), Err("TypeError: 'NoneType' object is not iterable".into()));
        assert_eq!(m(json!([1]), json!({"a": 1}), "overwrite"), non_dict());
        assert_eq!(m(json!("x"), json!("y"), "overwrite"), non_dict());
        assert_eq!(m(json!({"a": 1}), json!("x"), "list"), Ok(r#"{"a":1}"#.into()));
        assert_eq!(m(json!({"a": 1}), json!(null), "list"), Err("TypeError: argument of type 'NoneType' is not iterable".into()));
        assert_eq!(m(json!([1]), json!({"a": 1}), "list"), Err("AttributeError: 'list' object has no attribute 'items'".into()));
        assert_eq!(m(json!("x"), json!("y"), "list"), Err("AttributeError: 'str' object has no attribute 'items'".into()));
    }

    #[test]
    fn nested_and_ordering() {
        // aggregate keeps only b's keys in a nested dict; recurse merges them.
        let (a, b) = (json!({"t": {"a": 1, "b": {"x": 1, "y": 2}}}), json!({"t": {"b": {"y": 3}}, "n": 1}));
        assert_eq!(m(a.clone(), b.clone(), "aggregate"), Ok(r#"{"t":{"b":{"y":3}},"n":1}"#.into()));
        assert_eq!(m(a, b, "recurse"), Ok(r#"{"t":{"a":1,"b":{"x":1,"y":3}},"n":1}"#.into()));
        assert_eq!(m(json!({"t": {"a": 1}, "u": [1]}), json!({"t": {"c": {"y": 3}}, "u": [2]}), "aggregate"), Ok(r#"{"t":{"c":{"y":3}},"u":[2]}"#.into()));
        let (a, b) = (json!({"a": 1, "b": 2, "c": 3}), json!({"c": 30, "x": 9, "a": 10}));
        assert_eq!(m(a.clone(), b.clone(), "aggregate"), Ok(r#"{"a":10,"b":2,"c":30,"x":9}"#.into()));
        assert_eq!(m(a.clone(), b.clone(), "overwrite"), Ok(r#"{"a":10,"b":2,"c":30,"x":9}"#.into()));
        assert_eq!(m(a, b, "list"), Ok(r#"{"a":[1,10],"b":2,"c":[3,30]}"#.into()));
        assert_eq!(m(json!({"a": null}), json!({"a": null}), "list"), Ok(r#"{"a":[null,null]}"#.into()));
        assert_eq!(m(json!({}), json!({"a": {"b": 1}}), "recurse"), Ok(r#"{"a":{"b":1}}"#.into()));
        let mut a = json!({"a": {"l": [1]}});
        assert_eq!(text(&merge(&mut a, &json!({"a": {"l": [1, 2]}}), "recurse", "yaml", true).unwrap()), r#"{"a":{"l":[1,2]}}"#);
    }

    #[test]
    fn merge_all_folds_from_empty() {
        // d.merge(d.merge({}, {'a': {'x': 1}}), {'a': {'y': 2}, 'b': 1}) == {'a': {'x': 1, 'y': 2}, 'b': 1}
        let items = [json!({"a": {"x": 1}}), json!({"a": {"y": 2}, "b": 1})];
        assert_eq!(text(&merge_all(&items, "smart", "yaml", false).unwrap()), r#"{"a":{"x":1,"y":2},"b":1}"#);
    }
}
