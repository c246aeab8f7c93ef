//! The text filters of `salt/utils/stringutils.py` and `salt/utils/jinja.py` (`is_hex`,
//! `contains_whitespace`, `quote`, the case conversions, `sorted_ignorecase`).

use super::args::{data, invalid, text_of};
use super::data::py_iter;
use super::jinja2::py_int_base;
use crate::py::builtins::{is_py_space, type_name};
use crate::render::mutable::from_json;
use minijinja::value::Value;
use minijinja::{Environment, Error};
use serde_json::Value as J;

pub(super) fn register(env: &mut Environment<'_>) {
    env.add_filter("is_hex", |v: Value| v.as_str().is_some_and(|s| py_int_base(s, 16).is_some()));
    env.add_filter("contains_whitespace", |v: Value| -> Result<bool, Error> {
        Ok(py_iter(&data(&v)?)?.iter().any(|c| matches!(c, J::String(s) if !s.is_empty() && s.chars().all(is_py_space))))
    });
    env.add_filter("quote", |v: Value| -> Result<Value, Error> { Ok(Value::from(shlex_quote(text_of(&v)?))) });
    env.add_filter("to_snake_case", |v: Value| -> Result<Value, Error> { Ok(Value::from(camel_to_snake_case(text_of(&v)?))) });
    env.add_filter("to_camelcase", |v: Value, upper: Option<bool>| -> Result<Value, Error> {
        Ok(Value::from(snake_to_camel_case(text_of(&v)?, upper.unwrap_or(false))))
    });
    env.add_filter("sorted_ignorecase", sorted_ignorecase);
}

/// `shlex.quote`: as it is when made only of `[A-Za-z0-9_@%+=:,./-]`, else in single quotes.
fn shlex_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".into();
    }
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c)) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\"'\"'"))
}

// ---------------------------------------------------------------------------------------------
// Jinja2 builtins (`jinja2/filters.py`) where minijinja's answer differs.

/// `camel_to_snake_case` (`salt/utils/stringutils.py`, the `to_snake_case` filter): `_` before
/// an uppercase letter that follows a lowercase one or comes before one, all lowercased.
fn camel_to_snake_case(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && c.is_uppercase() && (chars[i - 1].is_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_lowercase())) {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// `snake_to_camel_case(snake_input, uppercamel=False)` (the `to_camelcase` filter): the
/// words after the first (and the first too with `uppercamel`) capitalized, joined.
fn snake_to_camel_case(s: &str, upper: bool) -> String {
    s.split('_').enumerate().map(|(i, w)| if i > 0 || upper { crate::py::builtins::capitalize(w) } else { w.to_string() }).collect()
}

/// `sorted_ignorecase` (`salt/utils/data.py`): `sorted(to_sort, key=lambda x: x.lower())`.
fn sorted_ignorecase(v: Value) -> Result<Value, Error> {
    let mut items = py_iter(&data(&v)?)?;
    let mut keys = Vec::with_capacity(items.len());
    for item in &items {
        match item {
            J::String(s) => keys.push(s.to_lowercase()),
            other => return Err(invalid(format!("'{}' object has no attribute 'lower'", type_name(other)))),
        }
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let sorted = order.into_iter().map(|i| std::mem::take(&mut items[i])).collect();
    Ok(from_json(&J::Array(sorted)))
}
