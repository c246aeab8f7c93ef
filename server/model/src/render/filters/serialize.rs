//! Salt's serialisation filters (`SerializerExtension` in `salt/utils/jinja.py`: `yaml`,
//! `json`, `tojson`, the `load_*` loaders, the YAML quoting filters, `dict_to_sls_yaml_params`).

use super::args::{bind, data, defined, invalid, py_type, text_of, width_of};
use crate::py::builtins::{is_py_space, py_cmp, str_of};
use crate::render::convert::to_json;
use minijinja::value::{Rest, Value, ValueKind};
use minijinja::{Environment, Error};
use serde_json::Value as J;

pub(super) fn register(env: &mut Environment<'_>) {
    // Serialisation (`SerializerExtension.format_yaml`, `format_json`, `tojson`, the loaders).
    env.add_filter("yaml", |v: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("yaml", &args, &["flow_style"])?;
        let flow = match &a[0] {
            None => Some(true),
            Some(f) if f.is_none() => None,
            Some(f) => Some(f.is_true()),
        };
        Ok(Value::from(format_yaml(&yaml_data(&v, 0)?, flow)))
    });
    env.add_filter("json", |v: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("json", &args, &["sort_keys", "indent"])?;
        let o = crate::py::json::DumpOptions { sort_keys: a[0].as_ref().is_none_or(Value::is_true), indent: json_indent(a[1].as_ref())?, ..Default::default() };
        Ok(Value::from(crate::py::json::dumps(&data(&v)?, &o).trim_matches(is_py_space)))
    });
    env.add_filter("tojson", tojson);
    env.add_filter("load_json", |s: String| crate::render::tags::load("json", &s));
    env.add_filter("load_yaml", |s: String| crate::render::tags::load("yaml", &s));
    env.add_filter("load_text", |s: String| crate::render::tags::load("text", &s));
    env.add_filter("yaml_dquote", |v: Value| -> Result<Value, Error> { Ok(Value::from(crate::py::dump::yaml_dquote(&str_of(&data(&v)?)))) });
    env.add_filter("yaml_squote", |v: Value| -> Result<Value, Error> { Ok(Value::from(crate::py::dump::yaml_squote(&str_of(&data(&v)?)))) });
    env.add_filter("yaml_encode", |v: Value| -> Result<Value, Error> { crate::py::dump::yaml_encode(&data(&v)?).map(Value::from).map_err(invalid) });
    env.add_filter("dict_to_sls_yaml_params", |v: Value, flow_style: Option<bool>| -> Result<Value, Error> {
        // `format_yaml([{key: val} for key, val in value.items()], flow_style=flow_style)`.
        defined(&v)?;
        if v.kind() != ValueKind::Map {
            return Err(invalid(format!("'{}' object has no attribute 'items'", py_type(&v))));
        }
        let mut items = Vec::new();
        for k in v.try_iter()? {
            items.push(J::Object([(str_of(&to_json(&k)), yaml_data(&v.get_item(&k)?, 1)?)].into_iter().collect()));
        }
        Ok(Value::from(format_yaml(&J::Array(items), Some(flow_style.unwrap_or(false)))))
    });
}

/// `json.dumps`'s `indent`: a number of spaces (`' ' * n`, so negative is none) or a string.
fn json_indent(v: Option<&Value>) -> Result<Option<String>, Error> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) if v.kind() == ValueKind::String => Ok(Some(v.as_str().unwrap_or_default().to_string())),
        Some(v) => {
            let n = i64::try_from(v.clone()).map_err(|_| invalid(format!("can't multiply sequence by non-int of type '{}'", py_type(v))))?;
            Ok(Some(" ".repeat(width_of(n)?)))
        }
    }
}

/// A template value as the data PyYAML's representer writes: a dict's keys sorted (Python's
/// `sorted`, left as they are when they do not compare), an `OrderedDict`'s kept in order.
fn yaml_data(v: &Value, depth: usize) -> Result<J, Error> {
    defined(v)?;
    if depth > 256 {
        return Ok(J::Null);
    }
    Ok(match v.kind() {
        ValueKind::Map => {
            let mut keys: Vec<(Value, J)> = v.try_iter()?.map(|k| (k.clone(), to_json(&k))).collect();
            if !crate::render::mutable::is_ordered_dict(v) {
                let mut sorted = keys.clone();
                let mut failed = false;
                sorted.sort_by(|a, b| {
                    py_cmp(&a.1, &b.1).unwrap_or_else(|_| {
                        failed = true;
                        std::cmp::Ordering::Equal
                    })
                });
                if !failed {
                    keys = sorted;
                }
            }
            let mut m = serde_json::Map::new();
            for (k, kj) in keys {
                m.insert(str_of(&kj), yaml_data(&v.get_item(&k)?, depth + 1)?);
            }
            J::Object(m)
        }
        ValueKind::Seq | ValueKind::Iterable => J::Array(v.try_iter()?.map(|x| yaml_data(&x, depth + 1)).collect::<Result<_, _>>()?),
        _ => to_json(v),
    })
}

/// The `yaml` filter (`SerializerExtension.format_yaml`): `salt.utils.yaml.safe_dump` with
/// `default_flow_style=flow_style` (unicode kept) of [`yaml_data`], stripped, without a
/// trailing `\n...` document end.
fn format_yaml(v: &J, flow_style: Option<bool>) -> String {
    let options = crate::py::yaml_dump::DumpOptions { default_flow_style: flow_style, allow_unicode: true, sort_keys: false, ..Default::default() };
    let text = crate::py::yaml_dump::dump(v, &options);
    let text = text.trim_matches(is_py_space);
    text.strip_suffix("\n...").unwrap_or(text).to_string()
}

/// `tojson(val, indent=None, **options)` (`salt/utils/jinja.py`): `json.dumps` ASCII-only by
/// default, keys in their order, then `<`, `>`, `&` and `'` written as `\u` escapes.
fn tojson(v: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("tojson", &args, &["indent", "sort_keys", "ensure_ascii", "separators"])?;
    let separators = match &a[3] {
        Some(s) if !s.is_none() => {
            let parts: Vec<Value> = s.try_iter()?.collect();
            match parts.as_slice() {
                [i, k] => Some((text_of(i)?.to_string(), text_of(k)?.to_string())),
                _ => return Err(invalid("separators must be a pair of strings")),
            }
        }
        _ => None,
    };
    let o = crate::py::json::DumpOptions {
        sort_keys: a[1].as_ref().is_some_and(Value::is_true),
        ensure_ascii: a[2].as_ref().is_none_or(Value::is_true),
        indent: json_indent(a[0].as_ref())?,
        separators,
    };
    let text = crate::py::json::dumps(&data(&v)?, &o);
    Ok(Value::from(text.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026").replace('\'', "\\u0027")))
}

// ---------------------------------------------------------------------------------------------
// Regular expressions.
