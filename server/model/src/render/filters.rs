//! The filters and tests Salt adds to Jinja (`@jinja_filter` / `@jinja_test` across
//! `salt/utils/*.py`, and `SerializerExtension`'s filters in `salt/utils/jinja.py`), answered as
//! Salt 3008 answers them, plus the Jinja2 builtins whose minijinja versions print or convert
//! differently in ways a formula sees. Filters that would touch the host or are random never
//! run: they give an inert value and record a hint.

use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use minijinja::value::{Kwargs, Rest, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use sha2::Digest;

use serde_json::Value as J;

use crate::py::builtins::{is_py_space, parse_int, py_cmp, py_eq, str_of, type_name};
use crate::py::re::{PySearch, IGNORECASE, MULTILINE};
use crate::render::functions::{from_json, to_json};

/// Where a render collects what it could not do for real (the `hints` of
/// [`crate::render::jinja::Rendered`]).
pub type Hints = Arc<Mutex<Vec<String>>>;

/// The inert answer of a filter that is not run, from its value and arguments.
type Inert = fn(&[Value]) -> Value;

/// Adds Salt's filters and tests to `env`; the inert ones push their hints into `hints`.
pub fn register(env: &mut Environment<'_>, hints: Hints) {
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
    env.add_filter("load_json", |s: String| super::tags::load("json", &s));
    env.add_filter("load_yaml", |s: String| super::tags::load("yaml", &s));
    env.add_filter("load_text", |s: String| super::tags::load("text", &s));
    env.add_filter("yaml_dquote", |v: Value| -> Result<Value, Error> { Ok(Value::from(crate::py::dump::yaml_dquote(&str_of(&data(&v)?)))) });
    env.add_filter("yaml_squote", |v: Value| -> Result<Value, Error> { Ok(Value::from(crate::py::dump::yaml_squote(&str_of(&data(&v)?)))) });
    env.add_filter("yaml_encode", |v: Value| -> Result<Value, Error> { crate::py::dump::yaml_encode(&data(&v)?).map(Value::from).map_err(invalid) });

    // Regular expressions, with Python's `re` (`salt/utils/jinja.py`).
    env.add_filter("regex_replace", |txt: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("regex_replace", &args, &["rgx", "val", "ignorecase", "multiline"])?;
        let re = compile("regex_replace", &a, 2)?;
        let repl = required_str("regex_replace", "val", a[1].as_ref())?;
        re.sub(&repl, text_of(&txt)?).map(Value::from).map_err(invalid)
    });
    env.add_filter("regex_search", |txt: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("regex_search", &args, &["rgx", "ignorecase", "multiline"])?;
        let re = compile("regex_search", &a, 1)?;
        let text = text_of(&txt)?;
        Ok(match_groups(&re, text, re.search(text, 0).map_err(invalid)?))
    });
    env.add_filter("regex_match", |txt: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("regex_match", &args, &["rgx", "ignorecase", "multiline"])?;
        let re = compile("regex_match", &a, 1)?;
        let text = text_of(&txt)?;
        Ok(match_groups(&re, text, re.match_start(text).map_err(invalid)?))
    });
    env.add_filter("regex_escape", |txt: Value| -> Result<Value, Error> { Ok(Value::from(re_escape(text_of(&txt)?))) });

    // Data (`salt/utils/data.py`, `salt/utils/jinja.py`, `salt/utils/stringutils.py`).
    env.add_filter("traverse", traverse);
    env.add_filter("to_bool", |v: Value| to_bool(&v));
    env.add_filter("unique", |v: Value| -> Result<Value, Error> { Ok(from_json(&J::Array(dedup(py_iter(&data(&v)?)?)))) });
    env.add_filter("union", |a: Value, b: Value| set_op("union", &a, &b));
    env.add_filter("intersect", |a: Value, b: Value| set_op("intersect", &a, &b));
    env.add_filter("difference", |a: Value, b: Value| set_op("difference", &a, &b));
    env.add_filter("symmetric_difference", |a: Value, b: Value| set_op("symmetric_difference", &a, &b));
    // `isinstance(value, list)`: a tuple is none.
    env.add_filter("is_list", |v: Value| v.kind() == ValueKind::Seq && !super::mutable::is_tuple(&v));
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
    env.add_filter("is_hex", |v: Value| v.as_str().is_some_and(|s| py_int_base(s, 16).is_some()));
    env.add_filter("contains_whitespace", |v: Value| -> Result<bool, Error> {
        Ok(py_iter(&data(&v)?)?.iter().any(|c| matches!(c, J::String(s) if !s.is_empty() && s.chars().all(is_py_space))))
    });
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
    env.add_filter("compare_lists", compare_lists);
    env.add_filter("compare_dicts", compare_dicts);
    env.add_filter("human_to_bytes", human_to_bytes);

    env.add_filter("from_entries", from_entries);
    // Hashing and encoding (`salt/utils/hashutils.py`, `uuid_` in `salt/utils/jinja.py`).
    env.add_filter("md5", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&md5::Md5::digest(bytes_of(&v)?)))) });
    env.add_filter("sha1", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&sha1::Sha1::digest(bytes_of(&v)?)))) });
    env.add_filter("sha256", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&sha2::Sha256::digest(bytes_of(&v)?)))) });
    env.add_filter("sha512", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&sha2::Sha512::digest(bytes_of(&v)?)))) });
    env.add_filter("base64_encode", |v: Value| -> Result<Value, Error> { Ok(Value::from(BASE64.encode(bytes_of(&v)?))) });
    env.add_filter("base64_decode", base64_decode);
    env.add_filter("uuid", |v: Value| -> Result<Value, Error> { Ok(Value::from(uuid5(bytes_of(&v)?))) });
    env.add_filter("quote", |v: Value| -> Result<Value, Error> { Ok(Value::from(shlex_quote(text_of(&v)?))) });
    env.add_filter("to_snake_case", |v: Value| -> Result<Value, Error> { Ok(Value::from(camel_to_snake_case(text_of(&v)?))) });
    env.add_filter("to_camelcase", |v: Value, upper: Option<bool>| -> Result<Value, Error> {
        Ok(Value::from(snake_to_camel_case(text_of(&v)?, upper.unwrap_or(false))))
    });
    env.add_filter("sorted_ignorecase", sorted_ignorecase);
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
    // `salt/utils/network.py`: whether the text is an IP address (or an interface such as
    // `10.0.0.1/24`) of the version, and IPv6 addresses wrapped in brackets.
    env.add_filter("is_ip", |v: Value, options: Option<String>| is_ip(&v, None, options.as_deref()));
    env.add_filter("is_ipv4", |v: Value, options: Option<String>| is_ip(&v, Some(4), options.as_deref()));
    env.add_filter("is_ipv6", |v: Value, options: Option<String>| is_ip(&v, Some(6), options.as_deref()));
    env.add_filter("ipwrap", ipwrap);
    env.add_filter("ipaddr", |v: Value, options: Option<String>| ip_filter(&v, None, options.as_deref()));
    env.add_filter("ipv4", |v: Value, options: Option<String>| ip_filter(&v, Some(4), options.as_deref()));
    env.add_filter("ipv6", |v: Value, options: Option<String>| ip_filter(&v, Some(6), options.as_deref()));

    // Tests: Salt's (`salt/utils/jinja.py` `test_match`, `test_equalto`) and `list`, which
    // `render_jinja_tmpl` sets to `salt.utils.data.is_list`.
    env.add_test("equalto", |v: Value, other: Value| -> Result<bool, Error> { Ok(py_eq(&data(&v)?, &data(&other)?)) });
    env.add_test("match", |txt: Value, args: Rest<Value>| -> Result<bool, Error> {
        let a = bind("match", &args, &["rgx", "ignorecase", "multiline"])?;
        let re = compile("match", &a, 1)?;
        Ok(re.match_start(text_of(&txt)?).map_err(invalid)?.is_some())
    });
    env.add_test("list", |v: Value| v.kind() == ValueKind::Seq && !super::mutable::is_tuple(&v));

    // Jinja2 builtins minijinja answers differently.
    env.add_filter("indent", indent);
    env.add_filter("default", default);
    env.add_filter("d", default);
    env.add_filter("join", join);
    env.add_filter("int", int);
    env.add_filter("float", float);
    env.add_filter("string", |v: Value| -> Result<Value, Error> {
        defined(&v)?;
        Ok(if v.kind() == ValueKind::String { v } else { Value::from(super::mutable::py_str(&v)) })
    });
    env.add_filter("format", format);
    env.add_filter("center", |v: Value, width: Option<i64>| -> Result<Value, Error> {
        let width = width_of(width.unwrap_or(80))?;
        Ok(Value::from(crate::py::builtins::pad(&str_of(&data(&v)?), width, ' ', crate::py::builtins::Align::Center)))
    });
    env.add_filter("truncate", truncate);
    env.add_filter("wordwrap", wordwrap);
    env.add_filter("urlencode", urlencode);
    env.add_filter("xmlattr", xmlattr);
    env.add_filter("wordcount", |v: Value| -> Result<Value, Error> {
        // `len(re.findall(r"\w+", s))`.
        let text = str_of(&data(&v)?);
        let word = |c: char| c.is_alphanumeric() || c == '_';
        Ok(Value::from(text.split(|c: char| !word(c)).filter(|w| !w.is_empty()).count()))
    });
    env.add_filter("striptags", |v: Value| -> Result<Value, Error> { Ok(Value::from(striptags(&str_of(&data(&v)?)))) });
    env.add_filter("capitalize", |v: Value| -> Result<Value, Error> { Ok(Value::from(crate::py::builtins::capitalize(&str_of(&data(&v)?)))) });
    env.add_filter("title", |v: Value| -> Result<Value, Error> { Ok(Value::from(do_title(&str_of(&data(&v)?)))) });
    env.add_filter("round", round);
    env.add_filter("replace", replace);
    env.add_filter("dictsort", dictsort);
    // `do_items`: the `(key, value)` tuples of a mapping, as an iterator (printed as a list here).
    // Undefined (strict too) gives nothing.
    env.add_filter("items", |v: Value| -> Result<Value, Error> {
        if v.is_undefined() {
            return Ok(Value::from(Vec::<Value>::new()));
        }
        if v.kind() != ValueKind::Map {
            return Err(invalid("Can only get item pairs from a mapping."));
        }
        let pairs: Vec<Value> = v.try_iter()?.map(|k| Ok(super::mutable::tuple(vec![k.clone(), v.get_item(&k)?]))).collect::<Result<_, Error>>()?;
        Ok(Value::from(pairs))
    });
    env.add_test("callable", |v: Value| v.kind() == ValueKind::Plain);
    // `jinja2/tests.py`: a bool is a number; strings and dicts are sequences; None is not
    // iterable.
    env.add_test("number", |v: Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool));
    env.add_test("sequence", |v: Value| matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map));
    env.add_test("iterable", |v: Value| matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Iterable));
    env.add_filter("filesizeformat", filesizeformat);
    env.add_test("divisibleby", |v: Value, n: Value| -> Result<bool, Error> {
        match (i64::try_from(v), i64::try_from(n)) {
            (Ok(_), Ok(0)) => Err(invalid("integer division or modulo by zero")),
            (Ok(a), Ok(b)) => Ok(a.rem_euclid(b) == 0),
            _ => Err(invalid("divisibleby needs numbers")),
        }
    });

    // Host-touching or random filters: never run. Each inert value has the type Salt's
    // filter returns, so the template's own logic still works on it.
    let inert: [(&str, Inert); 16] = [
        ("http_query", |_| Value::from(IndexMap::<Value, Value>::new())),
        ("dns_check", |_| Value::from("")),
        ("file_hashsum", |_| Value::from("")),
        ("is_bin_file", |_| Value::from(false)),
        ("is_empty", |_| Value::from(false)),
        ("is_text_file", |_| Value::from(false)),
        ("list_files", |_| Value::from(Vec::<Value>::new())),
        ("which", |_| Value::from(())),
        ("get_uid", |_| Value::from(())),
        ("random_hash", |_| Value::from("")),
        ("rand_str", |_| Value::from("")),
        ("random_str", |_| Value::from("")),
        ("random_sample", |_| Value::from(Vec::<Value>::new())),
        // The list unshuffled: the same items, in a fixed order.
        ("random_shuffle", |args| args.first().cloned().unwrap_or_default()),
        ("gen_mac", |_| Value::from("")),
        // Jinja2's own `random` filter: the first item instead of a random one.
        ("random", |args| args.first().and_then(|v| v.try_iter().ok()?.next()).unwrap_or_default()),
    ];
    for (name, value) in inert {
        let hints = hints.clone();
        env.add_filter(name, move |v: Value, args: Rest<Value>| {
            if let Ok(mut h) = hints.lock() {
                h.push(format!("the `{name}` filter is not executed during analysis (it reads the host or is random); it rendered as an inert value"));
            }
            let mut all = vec![v];
            all.extend(args.0);
            value(&all)
        });
    }
}

use crate::py::percent::MAX_WIDTH;

/// A width argument as a count of characters, refused past [`MAX_WIDTH`].
fn width_of(n: i64) -> Result<usize, Error> {
    if n > MAX_WIDTH {
        return Err(invalid("width too big"));
    }
    Ok(n.max(0) as usize)
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg.into())
}

/// Salt's `StrictUndefined` raises as soon as a filter converts, iterates or prints it.
fn defined(v: &Value) -> Result<(), Error> {
    if v.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    Ok(())
}

/// Python's binding of a filter's arguments after the value: positional ones in order, then
/// keyword ones by name (minijinja passes keywords as a trailing [`Kwargs`] value).
fn bind(name: &str, args: &[Value], params: &[&str]) -> Result<Vec<Option<Value>>, Error> {
    super::budget::check()?;
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(Kwargs::try_from(last.clone())?)),
        _ => (args, None),
    };
    if positional.len() > params.len() {
        return Err(Error::new(ErrorKind::TooManyArguments, format!("{name}() takes at most {} arguments ({} given)", params.len() + 1, positional.len() + 1)));
    }
    let mut out: Vec<Option<Value>> = positional.iter().cloned().map(Some).collect();
    out.resize(params.len(), None);
    if let Some(kwargs) = kwargs {
        for key in kwargs.args() {
            let Some(i) = params.iter().position(|p| *p == key) else {
                return Err(invalid(format!("{name}() got an unexpected keyword argument '{key}'")));
            };
            if out[i].is_some() {
                return Err(invalid(format!("{name}() got multiple values for argument '{key}'")));
            }
            out[i] = Some(kwargs.peek::<Value>(key)?);
        }
    }
    Ok(out)
}

fn required_str(name: &str, param: &str, v: Option<&Value>) -> Result<String, Error> {
    match v {
        Some(v) => Ok(text_of(v)?.to_string()),
        None => Err(Error::new(ErrorKind::MissingArgument, format!("{name}() missing required argument: '{param}'"))),
    }
}

/// A string argument of `re`, with Python's `TypeError` for anything else.
fn text_of(v: &Value) -> Result<&str, Error> {
    v.as_str().ok_or_else(|| invalid(format!("expected string or bytes-like object, got '{}'", py_type(v))))
}

fn py_type(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::Undefined => "StrictUndefined",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "dict",
        _ => type_name(&to_json(v)),
    }
}

/// A template value as data (`render::functions::to_json`, which mutable lists and dicts go
/// through too). Undefined is an error, as Salt's `StrictUndefined` raises when a filter
/// converts, iterates or prints it.
fn data(v: &Value) -> Result<J, Error> {
    super::budget::check()?;
    defined(v)?;
    Ok(to_json(v))
}

// ---------------------------------------------------------------------------------------------
// Serialisation.

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
            if !super::mutable::is_ordered_dict(v) {
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
    if flow_style == Some(true) {
        return crate::py::dump::yaml_flow(v, false);
    }
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

/// `re.compile(rgx, flags)` from the bound `rgx`, `ignorecase`, `multiline` (`flag_at` is the
/// index of `ignorecase`).
fn compile(name: &str, a: &[Option<Value>], flag_at: usize) -> Result<PySearch, Error> {
    let rgx = required_str(name, "rgx", a[0].as_ref())?;
    let mut flags = 0;
    if a[flag_at].as_ref().is_some_and(Value::is_true) {
        flags |= IGNORECASE;
    }
    if a[flag_at + 1].as_ref().is_some_and(Value::is_true) {
        flags |= MULTILINE;
    }
    PySearch::compile(&rgx, flags).map_err(invalid)
}

/// `regex_search` / `regex_match`'s answer: `None` without a match, else `obj.groups()`, or
/// `(obj.group(),)` for a pattern without groups. Python's tuple is a list here.
fn match_groups(re: &PySearch, text: &str, groups: Option<crate::py::re::Groups>) -> Value {
    let Some(groups) = groups else { return Value::from(()) };
    let wanted: Vec<_> = if re.groups() == 0 { groups[..1].to_vec() } else { groups[1..].to_vec() };
    Value::from(wanted.into_iter().map(|g| g.map_or(Value::from(()), |r| Value::from(&text[r]))).collect::<Vec<_>>())
}

/// `re.escape` (Python 3.7+): a backslash before each of `()[]{}?*+-|^$\.&~#`, space and the
/// whitespace controls.
fn re_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Data.

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
fn py_iter(v: &J) -> Result<Vec<J>, Error> {
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
fn py_float(s: &str) -> Option<f64> {
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

/// `posixpath.normpath`.
fn normpath(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    // POSIX keeps exactly two leading slashes; three or more are one.
    let initial = if path.starts_with("//") && !path.starts_with("///") {
        "//"
    } else if path.starts_with('/') {
        "/"
    } else {
        ""
    };
    let mut comps: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        if comp.is_empty() || comp == "." {
            continue;
        }
        if comp != ".." || (initial.is_empty() && comps.is_empty()) || comps.last() == Some(&"..") {
            comps.push(comp);
        } else if !comps.is_empty() {
            comps.pop();
        }
    }
    let out = format!("{initial}{}", comps.join("/"));
    if out.is_empty() {
        ".".into()
    } else {
        out
    }
}

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

/// An address as `ipaddress.ip_address` reads it, else an interface (`10.0.0.1/24`, a netmask
/// too) as `ip_interface` reads it, with its prefix length.
fn ip_of(text: &str) -> Option<(std::net::IpAddr, Option<u8>)> {
    if let Ok(ip) = text.parse::<std::net::IpAddr>() {
        return Some((ip, None));
    }
    text.parse::<ipnetwork::IpNetwork>().ok().map(|n| (n.ip(), Some(n.prefix())))
}

/// `str()` of an address as Python's `ipaddress` writes it: IPv6 in lowercase hex with the
/// longest run of two or more zero groups (the first of equal ones) as `::`, an IPv4-mapped
/// one too (`::ffff:102:304`, where Rust writes `::ffff:1.2.3.4`).
fn ip_str(ip: std::net::IpAddr) -> String {
    let std::net::IpAddr::V6(a) = ip else { return ip.to_string() };
    let groups = a.segments();
    let (mut best, mut best_len, mut run, mut run_len) = (0, 0, 0, 0);
    for (i, g) in groups.iter().enumerate() {
        if *g == 0 {
            if run_len == 0 {
                run = i;
            }
            run_len += 1;
            if run_len > best_len {
                (best, best_len) = (run, run_len);
            }
        } else {
            run_len = 0;
        }
    }
    let hex = |gs: &[u16]| gs.iter().map(|g| format!("{g:x}")).collect::<Vec<_>>().join(":");
    if best_len < 2 {
        return hex(&groups);
    }
    format!("{}::{}", hex(&groups[..best]), hex(&groups[best + best_len..]))
}

/// Whether `ip` is in one of `nets` (CIDR text).
fn in_nets(ip: std::net::IpAddr, nets: &[&str]) -> bool {
    nets.iter().any(|n| n.parse::<ipnetwork::IpNetwork>().is_ok_and(|n| n.contains(ip)))
}

/// `_ip_options` (`salt/utils/network.py`) over Python 3.11's `ipaddress` properties, which
/// look at the address (of an interface too).
fn ip_passes(ip: std::net::IpAddr, option: &str) -> bool {
    use std::net::IpAddr::{V4, V6};
    // `_IPv4Constants` / `_IPv6Constants` of the Python Salt 3008.4 runs on (3.11).
    const PRIVATE_V4: &[&str] = &[
        "0.0.0.0/8",
        "10.0.0.0/8",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/29",
        "192.0.0.170/31",
        "192.0.2.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "255.255.255.255/32",
    ];
    const PRIVATE_V6: &[&str] =
        &["::1/128", "::/128", "::ffff:0:0/96", "100::/64", "2001::/23", "2001:2::/48", "2001:db8::/32", "2001:10::/28", "fc00::/7", "fe80::/10"];
    const RESERVED_V6: &[&str] = &[
        "::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3", "6000::/3", "8000::/3", "a000::/3", "c000::/3", "e000::/4", "f000::/5",
        "f800::/6", "fe00::/9",
    ];
    let private = |ip: std::net::IpAddr| match ip {
        V4(_) => in_nets(ip, PRIVATE_V4),
        // An IPv4-mapped address is private as its IPv4 address is.
        V6(a) => match a.to_ipv4_mapped() {
            Some(v4) => in_nets(V4(v4), PRIVATE_V4),
            None => in_nets(ip, PRIVATE_V6),
        },
    };
    match (option, ip) {
        // `_ip_options_global` is `not ip_obj.is_private` (so 100.64.0.0/10 counts).
        ("global" | "public", _) => !private(ip),
        ("private", _) => private(ip),
        ("reserved", V4(_)) => in_nets(ip, &["240.0.0.0/4"]),
        ("reserved", V6(_)) => in_nets(ip, RESERVED_V6),
        ("site-local" | "sl" | "site_local", V4(_)) => false,
        ("site-local" | "sl" | "site_local", V6(_)) => in_nets(ip, &["fec0::/10"]),
        ("loopback" | "lo", ip) => ip.is_loopback(),
        ("multicast", ip) => ip.is_multicast(),
        ("unspecified", ip) => ip.is_unspecified(),
        ("link-local" | "linklocal" | "ll" | "link_local", V4(a)) => a.is_link_local(),
        ("link-local" | "linklocal" | "ll" | "link_local", V6(a)) => a.is_unicast_link_local(),
        // Salt ignores an option it does not know.
        _ => true,
    }
}

/// `_is_ipv(ip_addr, version, options)` (`salt/utils/network.py`): `str()` of the address or
/// interface when it is one of the version (any, for `None`) and passes every test `options`
/// names, else `None`. `ipaddress.ip_address` takes an integer too: IPv4 below 2**32.
fn ipv(v: &J, version: Option<u8>, options: Option<&str>) -> Option<String> {
    let (ip, prefix) = match v {
        J::String(s) => ip_of(s)?,
        J::Number(n) if !n.is_f64() => match u32::try_from(n.as_u64()?) {
            Ok(small) => (std::net::IpAddr::V4(small.into()), None),
            Err(_) => (std::net::IpAddr::V6(u128::from(n.as_u64()?).into()), None),
        },
        _ => return None,
    };
    if version.is_some_and(|want| want != if ip.is_ipv4() { 4 } else { 6 }) {
        return None;
    }
    if !options.unwrap_or("").split(',').map(str::trim).all(|o| ip_passes(ip, o)) {
        return None;
    }
    Some(match prefix {
        Some(p) => format!("{}/{p}", ip_str(ip)),
        None => ip_str(ip),
    })
}

/// `is_ip_filter`, `is_ipv4_filter`, `is_ipv6_filter`: whether [`ipv`] finds an address.
fn is_ip(v: &Value, version: Option<u8>, options: Option<&str>) -> Result<bool, Error> {
    let d = data(v)?;
    Ok(match version {
        Some(_) => ipv(&d, version, options).is_some(),
        None => ipv(&d, Some(4), options).is_some() || ipv(&d, Some(6), options).is_some(),
    })
}

/// `ipv4`, `ipv6` (`_ipv_filter`) and `ipaddr` (`salt/utils/network.py`): for a string its
/// address of the version (`None` when it is none), for a list those of its items that are,
/// anything else `None`; `ipaddr` is the IPv4 answer, else the IPv6 one, and for a list both.
fn ip_filter(v: &Value, version: Option<u8>, options: Option<&str>) -> Result<Value, Error> {
    let d = data(v)?;
    let one = |version: u8| -> Option<J> {
        match &d {
            J::String(_) => Some(ipv(&d, Some(version), options).map_or(J::Null, J::String)),
            J::Array(items) => Some(J::Array(items.iter().filter_map(|x| ipv(x, Some(version), options).map(J::String)).collect())),
            _ => None,
        }
    };
    let out = match version {
        Some(ver) => one(ver).unwrap_or(J::Null),
        None => match (one(4), one(6)) {
            (Some(J::Array(mut a)), Some(J::Array(b))) => {
                a.extend(b);
                J::Array(a)
            }
            // `ipv4_obj or ipv6_obj`.
            (Some(a), Some(b)) => {
                if crate::py::builtins::truthy(&a) {
                    a
                } else {
                    b
                }
            }
            _ => J::Null,
        },
    };
    Ok(from_json(&out))
}

/// `ipwrap` (`salt/utils/network.py`): an IPv6 address (or each in a list) as
/// `ip_bracket` writes it, `[` its compressed form `]`; anything else as it is.
fn ipwrap(v: Value) -> Result<Value, Error> {
    let wrap = |item: &J| -> Result<J, Error> {
        let J::String(s) = item else { return Ok(item.clone()) };
        if !matches!(ip_of(s), Some((std::net::IpAddr::V6(_), _))) {
            return Ok(item.clone());
        }
        // `ip_bracket`: `ipaddress.ip_address` of the text without brackets.
        let bare = s.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<std::net::IpAddr>() {
            Ok(a @ std::net::IpAddr::V6(_)) => Ok(J::String(format!("[{}]", ip_str(a)))),
            Ok(a) => Ok(J::String(a.to_string())),
            Err(_) => Err(invalid(format!("{} does not appear to be an IPv4 or IPv6 address", crate::py::builtins::repr_str(bare)))),
        }
    };
    match data(&v)? {
        J::Array(items) => Ok(from_json(&J::Array(items.iter().map(wrap).collect::<Result<_, _>>()?))),
        other => Ok(from_json(&wrap(&other)?)),
    }
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

/// `set_dict_key_value`, `update_dict_key_value`, `append_dict_key_value` and
/// `extend_dict_key_value` (`salt/utils/dictupdate.py`): every key of the path but the last made
/// a dict (a missing key, or one that holds something else), then the last key set to `value`,
/// or its dict updated with it, or its list appended or extended (a missing or `None` value
/// starting empty). The dict itself changes, as Python's does.
fn dict_key_value(op: &str, d: Value, keys: &str, value: Value, delimiter: &str) -> Result<Value, Error> {
    use super::mutable::{mutable, MDict, MList};
    let lock = |m: &MDict| m.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let root = mutable(d);
    let Some(mut dict) = root.downcast_object::<MDict>() else {
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
    let text = super::mutable::py_str(&size);
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

/// `do_indent(s, width=4, first=False, blank=False)`: Jinja2 keeps a trailing line break
/// (minijinja drops it), splits lines as `str.splitlines` does, and takes a string width as
/// the indentation itself.
fn indent(s: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("indent", &args, &["width", "first", "blank"])?;
    let indention = match &a[0] {
        None => "    ".to_string(),
        Some(w) if w.kind() == ValueKind::String => w.as_str().unwrap_or_default().to_string(),
        Some(w) => " ".repeat(width_of(i64::try_from(w.clone()).map_err(|_| invalid("width must be an integer or a string"))?)?),
    };
    let first = a[1].as_ref().is_some_and(Value::is_true);
    let blank = a[2].as_ref().is_some_and(Value::is_true);
    let text = format!("{}\n", str_of(&data(&s)?));
    let lines = splitlines(&text);
    let mut rv = if blank {
        lines.join(&format!("\n{indention}"))
    } else {
        let mut rv = lines[0].to_string();
        if lines.len() > 1 {
            rv.push('\n');
            let rest: Vec<String> = lines[1..].iter().map(|l| if l.is_empty() { String::new() } else { format!("{indention}{l}") }).collect();
            rv.push_str(&rest.join("\n"));
        }
        rv
    };
    if first {
        rv = format!("{indention}{rv}");
    }
    Ok(if s.is_safe() { Value::from_safe_string(rv) } else { Value::from(rv) })
}

/// `str.splitlines()`: the line boundaries Python knows, no trailing empty line.
fn splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}') {
            out.push(&s[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' {
                if let Some((j, '\n')) = chars.peek().copied() {
                    chars.next();
                    end = j + 1;
                }
            }
            start = end;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    if out.is_empty() {
        out.push("");
    }
    out
}

/// `do_urlencode(value)`: a string (or any non-iterable, as `str()`) percent-encoded with `/`
/// kept; a dict's items or a list of pairs as `k=v` joined by `&`, each side encoded with
/// nothing kept and spaces as `+`.
fn urlencode(v: Value) -> Result<Value, Error> {
    defined(&v)?;
    let quote = |text: &str, for_qs: bool| -> String {
        let mut out = String::new();
        for b in text.bytes() {
            if b.is_ascii_alphanumeric() || b"_.-~".contains(&b) || (!for_qs && b == b'/') {
                out.push(b as char);
            } else if for_qs && b == b' ' {
                out.push('+');
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    };
    let pairs: Vec<(Value, Value)> = match v.kind() {
        ValueKind::String | ValueKind::None | ValueKind::Bool | ValueKind::Number => return Ok(Value::from(quote(&super::mutable::py_str(&v), false))),
        ValueKind::Map => v.try_iter()?.map(|k| Ok((k.clone(), v.get_item(&k)?))).collect::<Result<_, Error>>()?,
        _ => v.try_iter()?.map(|pair| Ok((pair.get_item(&Value::from(0))?, pair.get_item(&Value::from(1))?))).collect::<Result<_, Error>>()?,
    };
    let parts: Vec<String> =
        pairs.iter().map(|(k, x)| format!("{}={}", quote(&super::mutable::py_str(k), true), quote(&super::mutable::py_str(x), true))).collect();
    Ok(Value::from(parts.join("&")))
}

/// `do_xmlattr(d, autospace=True)`: ` key="value"` for each item whose value is not `None`,
/// both HTML-escaped as markupsafe escapes (`&`, `<`, `>`, `"`, `'`).
fn xmlattr(v: Value, autospace: Option<bool>) -> Result<Value, Error> {
    defined(&v)?;
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&#34;").replace('\'', "&#39;");
    let mut items = Vec::new();
    for k in v.try_iter()? {
        let x = v.get_item(&k)?;
        if x.is_none() || x.is_undefined() {
            continue;
        }
        let key = super::mutable::py_str(&k);
        if key.chars().any(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}' | '/' | '>' | '=')) {
            return Err(invalid(format!("Invalid character in attribute name: {}", crate::py::builtins::repr_str(&key))));
        }
        items.push(format!("{}=\"{}\"", escape(&key), escape(&super::mutable::py_str(&x))));
    }
    let rv = items.join(" ");
    Ok(Value::from_safe_string(if autospace.unwrap_or(true) && !rv.is_empty() { format!(" {rv}") } else { rv }))
}

/// `do_wordwrap(s, width=79, break_long_words=True, wrapstring=None, break_on_hyphens=True)`:
/// each line of `s` wrapped by `textwrap.wrap`, all joined with `wrapstring` (a line break).
fn wordwrap(v: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("wordwrap", &args, &["width", "break_long_words", "wrapstring", "break_on_hyphens"])?;
    let Some(text) = v.as_str() else {
        defined(&v)?;
        return Err(invalid(format!("'{}' object has no attribute 'splitlines'", py_type(&v))));
    };
    let width = match &a[0] {
        Some(w) => i64::try_from(w.clone()).map_err(|_| invalid(format!("'{}' object cannot be interpreted as an integer", py_type(w))))?,
        None => 79,
    };
    let wrapstring = match &a[2] {
        Some(w) if !w.is_none() => str_of(&data(w)?),
        _ => "\n".into(),
    };
    let (long, hyphens) = (a[1].as_ref().is_none_or(Value::is_true), a[3].as_ref().is_none_or(Value::is_true));
    let mut lines = Vec::new();
    for line in splitlines(text) {
        lines.push(crate::py::textwrap::wrap(line, width, long, hyphens).map_err(invalid)?.join(&wrapstring));
    }
    Ok(Value::from(lines.join(&wrapstring)))
}

/// `do_truncate(s, length=255, killwords=False, end='...', leeway=5)`: as it is within
/// `length + leeway` characters, else cut to leave room for `end`, at the last space unless
/// `killwords`.
fn truncate(v: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("truncate", &args, &["length", "killwords", "end", "leeway"])?;
    let int_arg = |v: &Option<Value>, default: i64| -> Result<i64, Error> {
        match v {
            Some(n) => i64::try_from(n.clone()).map_err(|_| invalid(format!("'{}' object cannot be interpreted as an integer", py_type(n)))),
            None => Ok(default),
        }
    };
    let length = int_arg(&a[0], 255)?;
    let killwords = a[1].as_ref().is_some_and(Value::is_true);
    let end = match &a[2] {
        Some(e) => str_of(&data(e)?),
        None => "...".into(),
    };
    let leeway = int_arg(&a[3], 5)?;
    let end_len = end.chars().count() as i64;
    if length < end_len {
        return Err(invalid(format!("expected length >= {end_len}, got {length}")));
    }
    if leeway < 0 {
        return Err(invalid(format!("expected leeway >= 0, got {leeway}")));
    }
    let text = str_of(&data(&v)?);
    let chars: Vec<char> = text.chars().collect();
    if chars.len() as i64 <= length + leeway {
        return Ok(Value::from(text));
    }
    let head: String = chars[..(length - end_len) as usize].iter().collect();
    if killwords {
        return Ok(Value::from(head + &end));
    }
    let kept = head.rsplit_once(' ').map_or(head.as_str(), |(h, _)| h);
    Ok(Value::from(format!("{kept}{end}")))
}

/// `Markup(s).striptags()` (markupsafe 3): comments and tags removed (an unclosed one ends the
/// removal), whitespace collapsed to single spaces, then the basic entities (`&amp;`, `&lt;`,
/// `&gt;`, `&quot;`, `&#39;`, `&apos;`, `&nbsp;`, numeric ones) unescaped. Other named entities
/// stay as written.
fn striptags(value: &str) -> String {
    let mut out = String::new();
    let mut pos = 0;
    while let Some(start) = value[pos..].find('<').map(|i| i + pos) {
        let end = if value[start..].starts_with("<!--") {
            value[start + 4..].find("-->").map(|e| start + 4 + e + 3)
        } else {
            value[start..].find('>').map(|e| start + e + 1)
        };
        let Some(end) = end else { break };
        out.push_str(&value[pos..start]);
        pos = end;
    }
    out.push_str(&value[pos..]);
    let collapsed = crate::py::builtins::split_whitespace(&out).join(" ");
    let mut text = String::with_capacity(collapsed.len());
    let mut rest = collapsed.as_str();
    while let Some(amp) = rest.find('&') {
        text.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let entity = rest[1..].find(';').map(|e| &rest[1..1 + e]);
        let decoded = entity.and_then(|e| match e {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            _ => {
                let n = e.strip_prefix('#')?;
                let code = match n.strip_prefix(['x', 'X']) {
                    Some(h) => u32::from_str_radix(h, 16).ok()?,
                    None => n.parse().ok()?,
                };
                char::from_u32(code)
            }
        });
        match (entity, decoded) {
            (Some(e), Some(c)) => {
                text.push(c);
                rest = &rest[e.len() + 2..];
            }
            _ => {
                text.push('&');
                rest = &rest[1..];
            }
        }
    }
    text.push_str(rest);
    text
}

/// `do_title(s)`: the text split before runs of `-`, whitespace and opening brackets, each
/// piece's first character uppercased (`ß` is `SS`) and the rest lowercased.
fn do_title(s: &str) -> String {
    let separator = |c: char| c == '-' || is_py_space(c) || "({[<".contains(c);
    let mut out = String::with_capacity(s.len());
    let mut piece_start = true;
    for c in s.chars() {
        if separator(c) {
            out.push(c);
            piece_start = true;
        } else if piece_start {
            out.extend(c.to_uppercase());
            piece_start = false;
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// `do_default(value, default_value='', boolean=False)`, with `boolean` by name too.
fn default(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("default", &args, &["default_value", "boolean"])?;
    let other = a[0].clone().unwrap_or(Value::from(""));
    let boolean = a[1].as_ref().is_some_and(Value::is_true);
    Ok(if value.is_undefined() || (boolean && !value.is_true()) { other } else { value })
}

/// `do_join(value, d='', attribute=None)`: items as Python's `str()` prints them (`None`,
/// `True`), and an `attribute` to join instead of the items.
fn join(state: &State, value: Value, args: Rest<Value>) -> Result<Value, Error> {
    defined(&value)?;
    let a = bind("join", &args, &["d", "attribute"])?;
    let sep = match &a[0] {
        Some(d) => str_of(&data(d)?),
        None => String::new(),
    };
    let mut out = Vec::new();
    for item in value.try_iter()? {
        let item = match &a[1] {
            Some(attr) => attribute(state, &item, attr)?,
            None => item,
        };
        out.push(match item.as_str() {
            Some(s) => s.to_string(),
            None => {
                defined(&item)?;
                super::mutable::py_str(&item)
            }
        });
    }
    Ok(Value::from(out.join(&sep)))
}

/// `environment.getitem` along a dotted attribute path (`'a.b'`, `'0'` for an index).
fn attribute(state: &State, item: &Value, attr: &Value) -> Result<Value, Error> {
    let _ = state;
    let mut v = item.clone();
    let path = match attr.as_str() {
        Some(p) => p.split('.').map(|part| part.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::from(part))).collect(),
        None => vec![attr.clone()],
    };
    for part in path {
        v = v.get_item(&part)?;
    }
    Ok(v)
}

/// `do_int(value, default=0, base=10)`: Python's `int()`, then `int(float(value))`, else the
/// default, never an error (`'x' | int` is 0, `' 7 '` is 7, `'1_000'` is 1000).
fn int(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    defined(&value)?;
    let a = bind("int", &args, &["default", "base"])?;
    let default = a[0].clone().unwrap_or(Value::from(0));
    let base = match &a[1] {
        Some(b) => u32::try_from(b.clone()).map_err(|_| invalid("int() base must be >= 2 and <= 36, or 0"))?,
        None => 10,
    };
    let as_int = match value.kind() {
        ValueKind::String => py_int_base(value.as_str().unwrap_or_default(), base),
        ValueKind::Bool => Some(value.is_true() as i128),
        ValueKind::Number if value.is_integer() => i128::try_from(value.clone()).ok(),
        _ => None,
    };
    if let Some(i) = as_int {
        return Ok(Value::from(i));
    }
    let as_float = match value.kind() {
        ValueKind::String => py_float(value.as_str().unwrap_or_default()),
        ValueKind::Number => f64::try_from(value.clone()).ok(),
        _ => None,
    };
    match as_float {
        Some(f) if f.is_finite() => Ok(Value::from(f.trunc() as i128)),
        Some(f) if f.is_nan() => Err(invalid("cannot convert float NaN to integer")),
        Some(_) => Err(invalid("cannot convert float infinity to integer")),
        None => Ok(default),
    }
}

/// `int(s, base)`: whitespace, a sign, `_` between digits, and a `0x`/`0o`/`0b` prefix that
/// matches the base (any of them with base 0).
fn py_int_base(s: &str, base: u32) -> Option<i128> {
    let t = s.trim_matches(is_py_space);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let prefixed =
        |p: &str, b: u32| (base == b || base == 0).then(|| lower.strip_prefix(p)).flatten().map(|rest| (rest.trim_start_matches('_').to_string(), b));
    let (digits, radix) =
        prefixed("0x", 16).or_else(|| prefixed("0o", 8)).or_else(|| prefixed("0b", 2)).unwrap_or((lower.clone(), if base == 0 { 10 } else { base }));
    if base == 0 && radix == 10 && digits.len() > 1 && digits.starts_with('0') && digits.chars().any(|c| c != '0' && c != '_') {
        return None;
    }
    if !(2..=36).contains(&radix) || digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let v = i128::from_str_radix(&digits.replace('_', ""), radix).ok()?;
    Some(if neg { -v } else { v })
}

/// `do_float(value, default=0.0)`: Python's `float()`, else the default.
fn float(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    defined(&value)?;
    let a = bind("float", &args, &["default"])?;
    let default = a[0].clone().unwrap_or(Value::from(0.0));
    let f = match value.kind() {
        ValueKind::String => py_float(value.as_str().unwrap_or_default()),
        ValueKind::Bool => Some(value.is_true() as i64 as f64),
        ValueKind::Number => f64::try_from(value.clone()).ok(),
        _ => None,
    };
    Ok(f.map(Value::from).unwrap_or(default))
}

/// `do_round(value, precision=0, method='common')`: Python's `round` (ties to even on the
/// exact binary value: `2.5` is `2.0`, `2.675` to 2 places is `2.67`; an integer stays an
/// integer), or `math.ceil` / `math.floor` at that precision, which give a float.
fn round(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("round", &args, &["precision", "method"])?;
    let precision = match &a[0] {
        // Past 400 places no double changes, and `round` gives the value back.
        Some(p) => i32::try_from(p.clone()).map_err(|_| invalid("'float' object cannot be interpreted as an integer"))?.clamp(-400, 400),
        None => 0,
    };
    let method = a[1].as_ref().and_then(|m| m.as_str().map(str::to_string)).unwrap_or_else(|| "common".into());
    let x = match data(&value)? {
        J::Number(n) if !n.is_f64() && method == "common" => return Ok(value),
        J::Number(n) => n.as_f64().unwrap_or(0.0),
        J::Bool(b) => b as i64 as f64,
        _ => return Err(invalid(format!("type {} doesn't define __round__ method", py_type(&value)))),
    };
    let scale = 10f64.powi(precision);
    let rounded = match method.as_str() {
        // Rust's fixed-point formatting rounds the exact value half to even, as `round` does.
        "common" if precision >= 0 && x.is_finite() => format!("{x:.p$}", p = precision as usize).parse().unwrap_or(x),
        "common" => (x / 10f64.powi(-precision)).round_ties_even() * 10f64.powi(-precision),
        "ceil" => (x * scale).ceil() / scale,
        "floor" => (x * scale).floor() / scale,
        _ => return Err(invalid("method must be common, ceil or floor")),
    };
    Ok(Value::from(rounded))
}

/// `do_replace(s, old, new, count=None)`: `str(s).replace(old, new, count)`.
fn replace(s: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("replace", &args, &["old", "new", "count"])?;
    let text = str_of(&data(&s)?);
    let old = str_of(&data(a[0].as_ref().ok_or_else(|| invalid("replace() missing required argument: 'old'"))?)?);
    let new = str_of(&data(a[1].as_ref().ok_or_else(|| invalid("replace() missing required argument: 'new'"))?)?);
    let count = match &a[2] {
        Some(c) if !c.is_none() => i64::try_from(c.clone()).map_err(|_| invalid("'str' object cannot be interpreted as an integer"))?,
        _ => -1,
    };
    let out = if count < 0 { py_replace(&text, &old, &new, usize::MAX) } else { py_replace(&text, &old, &new, count as usize) };
    Ok(if s.is_safe() { Value::from_safe_string(out) } else { Value::from(out) })
}

/// `str.replace`, whose empty `old` matches between every two characters (and at both ends).
fn py_replace(text: &str, old: &str, new: &str, count: usize) -> String {
    if !old.is_empty() {
        return text.replacen(old, new, count);
    }
    let mut out = String::new();
    let mut done = 0;
    for c in text.chars() {
        if done < count {
            out.push_str(new);
            done += 1;
        }
        out.push(c);
    }
    if done < count {
        out.push_str(new);
    }
    out
}

/// `do_dictsort(value, case_sensitive=False, by='key', reverse=False)`: the items as pairs,
/// sorted by key (or value), strings compared lowercased unless `case_sensitive`.
fn dictsort(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("dictsort", &args, &["case_sensitive", "by", "reverse"])?;
    let case_sensitive = a[0].as_ref().is_some_and(Value::is_true);
    let pos = match a[1].as_ref().and_then(|b| b.as_str().map(str::to_string)).as_deref() {
        None | Some("key") => 0,
        Some("value") => 1,
        Some(_) => return Err(invalid("You can only sort by either \"key\" or \"value\"")),
    };
    let reverse = a[2].as_ref().is_some_and(Value::is_true);
    let J::Object(d) = data(&value)? else {
        return Err(invalid(format!("'{}' object has no attribute 'items'", py_type(&value))));
    };
    let key = |pair: &(J, J)| {
        let v = if pos == 0 { &pair.0 } else { &pair.1 };
        match v {
            J::String(s) if !case_sensitive => J::String(s.to_lowercase()),
            _ => v.clone(),
        }
    };
    let mut keyed: Vec<(J, (J, J))> = d.into_iter().map(|(k, v)| (J::String(k), v)).map(|p| (key(&p), p)).collect();
    let mut err = None;
    keyed.sort_by(|x, y| {
        let ord = py_cmp(&x.0, &y.0).unwrap_or_else(|e| {
            err.get_or_insert(e);
            std::cmp::Ordering::Equal
        });
        if reverse {
            ord.reverse()
        } else {
            ord
        }
    });
    if let Some(e) = err {
        return Err(invalid(e));
    }
    // A list of `(key, value)` tuples.
    Ok(Value::from(keyed.into_iter().map(|(_, (k, v))| super::mutable::tuple(vec![from_json(&k), from_json(&v)])).collect::<Vec<_>>()))
}

/// `do_filesizeformat(value, binary=False)`: `1 Byte`, `N Bytes`, else one decimal and the
/// unit (`1.5 MB`, `1.5 MiB`).
fn filesizeformat(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("filesizeformat", &args, &["binary"])?;
    let binary = a[0].as_ref().is_some_and(Value::is_true);
    let bytes = match value.kind() {
        ValueKind::String => py_float(value.as_str().unwrap_or_default()),
        ValueKind::Number | ValueKind::Bool => f64::try_from(value.clone()).ok().or(Some(value.is_true() as i64 as f64)),
        _ => None,
    }
    .ok_or_else(|| invalid(format!("could not convert {} to float", py_type(&value))))?;
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let prefixes = if binary { ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"] } else { ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"] };
    if bytes == 1.0 {
        return Ok(Value::from("1 Byte"));
    }
    if bytes < base {
        return Ok(Value::from(format!("{} Bytes", bytes.trunc() as i64)));
    }
    let mut unit = base;
    let mut prefix = prefixes[0];
    for (i, p) in prefixes.iter().enumerate() {
        unit = base.powi(i as i32 + 2);
        prefix = p;
        if bytes < unit {
            break;
        }
    }
    Ok(Value::from(format!("{:.1} {prefix}", base * bytes / unit)))
}

/// `salt.utils.stringutils.to_bytes`: a string's UTF-8 bytes; anything else is a `TypeError`.
fn bytes_of(v: &Value) -> Result<&[u8], Error> {
    match v.kind() {
        ValueKind::String => Ok(v.as_str().unwrap_or_default().as_bytes()),
        ValueKind::Bytes => Ok(v.as_bytes().unwrap_or_default()),
        _ => Err(invalid(format!("expected str, bytes, or bytearray not <class '{}'>", py_type(v)))),
    }
}

/// `hexdigest()`: lowercase hex.
fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `base64_decode` (`salt/utils/hashutils.py`): `base64.b64decode`, which skips characters
/// outside the alphabet, then the text as UTF-8, or the bytes when they are not UTF-8.
fn base64_decode(v: Value) -> Result<Value, Error> {
    let kept: Vec<u8> = bytes_of(&v)?.iter().copied().filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')).collect();
    let decoded = BASE64.decode(&kept).map_err(|_| invalid("Incorrect padding"))?;
    Ok(match String::from_utf8(decoded) {
        Ok(text) => Value::from(text),
        Err(e) => Value::from_bytes(e.into_bytes()),
    })
}

/// `uuid` (`salt/utils/jinja.py` `uuid_`): `uuid.uuid5(GLOBAL_UUID, value)`, the name-based
/// UUID from SHA-1 of Salt's namespace and the value.
fn uuid5(name: &[u8]) -> String {
    // `GLOBAL_UUID = uuid.UUID("91633EBF-1C86-5E33-935A-28061F4B480E")`.
    const NAMESPACE: [u8; 16] = [0x91, 0x63, 0x3e, 0xbf, 0x1c, 0x86, 0x5e, 0x33, 0x93, 0x5a, 0x28, 0x06, 0x1f, 0x4b, 0x48, 0x0e];
    let mut hasher = sha1::Sha1::new();
    hasher.update(NAMESPACE);
    hasher.update(name);
    let digest = hasher.finalize();
    let mut b: Vec<u8> = digest[..16].to_vec();
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// `do_format(value, *args, **kwargs)`: `value % args`, or `value % kwargs`, with Python's
/// printf-style rules (`%s` is `str()`, `%r` is `repr()`, `%d` truncates a float, `%g`
/// switches notation, `%(name)s` reads the keyword arguments) and its `TypeError`s.
fn format(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest.to_vec(), Some(data(last)?)),
        _ => (args.0.clone(), None),
    };
    if !positional.is_empty() && kwargs.is_some() {
        return Err(invalid("can't handle positional and keyword arguments at the same time"));
    }
    let fmt = str_of(&data(&value)?);
    let args: Vec<J> = positional.iter().map(data).collect::<Result<_, _>>()?;
    crate::py::percent::printf(&fmt, &args, kwargs.as_ref()).map(Value::from).map_err(invalid)
}

/// One test per filter: the template, and the text Salt 3008.4 printed for it with
/// `salt.utils.templates.render_jinja_tmpl(template, context)` (context: `opts` from
/// `salt.config.minion_config(None)` with `file_client: local`, `saltenv: base`, grains
/// `{os: Debian}`, `generate_sls_context` for `web/tls.sls`). Structured results go through
/// `| json` so that both sides print them the same way.
#[cfg(test)]
mod salt_tests {
    use std::sync::Arc;

    use crate::render::jinja::{render, JinjaContext};

    fn run(src: &str) -> String {
        let ctx = JinjaContext {
            grains: serde_json::json!({"os": "Debian"}),
            pillar: serde_json::json!({}),
            opts: serde_json::json!({}),
            saltenv: "base".into(),
            sls: "web.tls".into(),
            tplfile: "web/tls.sls".into(),
            tplpath: "/srv/salt/web/tls.sls".into(),
            extra: Vec::new(),
            map_data: None,
            functions: serde_json::Value::Null,
            budget: crate::render::budget::DEFAULT,
            loader: Arc::new(|_| None),
            probe: None,
            matcher: None,
        };
        render(src, &ctx).map(|r| r.text).unwrap_or_else(|e| format!("ERROR {}", e.message))
    }

    #[test]
    fn yaml() {
        assert_eq!(
            run("{{ {'b': [1, 'ß'], 'a': {'k': 'yes', 'n': none}, 'ℝ': '💣'} | yaml }}|{{ {'b': [1, 'ß'], 'a': {'k': 'yes'}} | yaml(False) }}|{{ 'x' | yaml }}|{{ none | yaml }}|{{ [] | yaml(flow_style=False) }}"),
            "{a: {k: 'yes', n: null}, b: [1, ß], ℝ: \"\\U0001F4A3\"}|a:\n  k: 'yes'\nb:\n- 1\n- ß|x|null|[]"
        );
    }

    #[test]
    fn json() {
        assert_eq!(
            run("{{ {'b': 1, 'a': ['ß', 'ℝ', '💣', none, true, 1.5]} | json }}|{{ {'b': 1, 'a': 2} | json(sort_keys=False) }}|{{ [1, {'a': 'x'}] | json(indent=2) }}|{{ 'x' | json }}"),
            "{\"a\": [\"ß\", \"ℝ\", \"💣\", null, true, 1.5], \"b\": 1}|{\"b\": 1, \"a\": 2}|[\n  1,\n  {\n    \"a\": \"x\"\n  }\n]|\"x\""
        );
    }

    #[test]
    fn tojson() {
        assert_eq!(
            run("{{ {'b': 1, 'a': ['ß', 'ℝ', '💣', \"<&'>\"]} | tojson }}|{{ {'b': 1, 'a': 2} | tojson(sort_keys=True) }}|{{ [1] | tojson(indent=1) }}|{{ {'ß': 1} | tojson(ensure_ascii=False) }}"),
            "{\"b\": 1, \"a\": [\"\\u00df\", \"\\u211d\", \"\\ud83d\\udca3\", \"\\u003c\\u0026\\u0027\\u003e\"]}|{\"a\": 2, \"b\": 1}|[\n 1\n]|{\"ß\": 1}"
        );
    }

    #[test]
    fn regex_replace() {
        assert_eq!(
            run("{{ 'lets replace spaces' | regex_replace('\\s+', '__') }}|{{ 'abxd' | regex_replace('x*', '-') }}|{{ 'ab\\nAB' | regex_replace('^a', 'Z', ignorecase=True, multiline=True) }}|{{ 'john smith' | regex_replace('(\\w+) (?P<last>\\w+)', '\\g<last>, \\\\1') }}|{{ 'ß-ℝ-💣' | regex_replace('-', '💣') }}|{{ 'xx' | regex_replace('x*?', '-') }}|{{ 'abc' | regex_replace('', '-') }}|{{ 'abc' | regex_replace('(?P<x>b)', '[\\g<x>\\g<0>\\g<1>]') }}|{{ 'a1b22' | regex_replace('\\d', '\\\\t') }}"),
            "lets__replace__spaces|-a-b--d-|Zb\nZB|smith, john|ß💣ℝ💣💣|-----|-a-b-c-|a[bbb]c|a\tb\t\t"
        );
    }

    #[test]
    fn regex_search() {
        assert_eq!(
            run("{{ 'abcd' | regex_search('^(.*)BC(.*)$', ignorecase=True) | json }}|{{ 'abcd' | regex_search('bc') | json }}|{{ 'abcd' | regex_search('x') | json }}|{{ 'ß ℝ 💣' | regex_search('(\\w+) (\\w+)') | json }}|{{ 'x\\nab' | regex_search('^a(b)?$', multiline=True) | json }}"),
            "[\"a\", \"d\"]|[\"bc\"]|null|[\"ß\", \"ℝ\"]|[\"b\"]"
        );
    }

    #[test]
    fn regex_match() {
        assert_eq!(
            run("{{ 'abcd' | regex_match('bc') | json }}|{{ 'abcd' | regex_match('(a)(x)?') | json }}|{{ 'ABcd' | regex_match('ab', ignorecase=True) | json }}|{{ 'ß💣' | regex_match('\\w(.)') | json }}"),
            "null|[\"a\", null]|[\"AB\"]|[\"💣\"]"
        );
    }

    #[test]
    fn regex_escape() {
        assert_eq!(run("{{ 'a.b*c ß' | regex_escape }}"), "a\\.b\\*c\\ ß");
    }

    #[test]
    fn traverse() {
        assert_eq!(
            run("{{ {'a': {'b': [1, {'c': 'x'}]}} | traverse('a:b:1:c') }}|{{ {'a': {'b': [1, {'c': 'x'}]}} | traverse('a:b:c') }}|{{ {'a': 1} | traverse('z', 'def') }}|{{ {'a': {'b': 1}} | traverse('a/b', delimiter='/') }}|{{ {'a': [5, 6]} | traverse('a:-1') }}|{{ {'a': {1: 'int'}} | traverse('a:1') }}|{{ {'a': 1} | traverse('z') | json }}|{{ {'a': 'str'} | traverse('a:b', 'd') }}|{{ {'ß': {'ℝ': '💣'}} | traverse('ß:ℝ') }}|{{ {'a': [{'k': 1}]} | traverse(['a', 0, 'k']) }}|{{ {'a': [5]} | traverse('a:7', 'out') }}"),
            "x|x|def|1|6|int|null|d|💣|1|out"
        );
    }

    #[test]
    fn load_yaml() {
        assert_eq!(
            run("{{ \"{'a': 1, 'b': [x, y]}\" | load_yaml | json }}|{{ '' | load_yaml | json }}|{{ 'a: 0755\\nb: 1e3\\nc: 2001-01-01\\nd: yes\\ne: ß' | load_yaml | json }}"),
            "{\"a\": 1, \"b\": [\"x\", \"y\"]}|null|{\"a\": 755, \"b\": \"1e3\", \"c\": \"2001-01-01\", \"d\": true, \"e\": \"ß\"}"
        );
    }

    #[test]
    fn load_json() {
        assert_eq!(run("{{ '{\"b\": 1, \"a\": [1.5, \"ℝ\"]}' | load_json | json(sort_keys=False) }}"), "{\"b\": 1, \"a\": [1.5, \"ℝ\"]}");
    }

    #[test]
    fn load_text() {
        assert_eq!(run("{{ 'ß x' | load_text }}"), "ß x");
    }

    #[test]
    fn to_bool() {
        assert_eq!(
            run("{{ 'yes' | to_bool }}|{{ 'On' | to_bool }}|{{ 'TRUE' | to_bool }}|{{ '1' | to_bool }}|{{ 'y' | to_bool }}|{{ 0 | to_bool }}|{{ 2 | to_bool }}|{{ -1 | to_bool }}|{{ [] | to_bool }}|{{ [0] | to_bool }}|{{ {} | to_bool }}|{{ none | to_bool }}|{{ 1.5 | to_bool }}|{{ true | to_bool }}|{{ '' | to_bool }}|{{ 'ß' | to_bool }}"),
            "True|False|True|True|False|False|True|False|False|True|False|False|False|True|False|False"
        );
    }

    #[test]
    fn yaml_dquote() {
        assert_eq!(
            run("{{ 'a\"b\\\\c\\nß ℝ 💣\\t' | yaml_dquote }}|{{ 5 | yaml_dquote }}|{{ ('word ' * 20) | yaml_dquote }}"),
            "\"a\\\"b\\\\c\\n\\xDF \\u211D \\U0001F4A3\\t\"|\"5\"|\"word word word word word word word word word word word word word word word word word word word word \""
        );
    }

    #[test]
    fn yaml_squote() {
        assert_eq!(run("{{ \"it's ß ℝ 💣\" | yaml_squote }}|{{ 'a\\nb' | yaml_squote }}|{{ 5 | yaml_squote }}"), "'it''s ß ℝ 💣'|'a\n\nb'|'5'");
    }

    #[test]
    fn yaml_encode() {
        assert_eq!(
            run("{{ 'ß ℝ 💣' | yaml_encode }}|{{ false | yaml_encode }}|{{ none | yaml_encode }}|{{ 1e17 | yaml_encode }}|{{ 7 | yaml_encode }}"),
            "\"\\xDF \\u211D \\U0001F4A3\"|false|null|1.0e+17|7"
        );
    }

    #[test]
    fn unique() {
        assert_eq!(
            run("{{ [1, 2, 1, 'a', 'a', [1], [1], 'ß', 'ß'] | unique | json }}|{{ {'b': 1, 'a': 2} | unique | json }}|{{ 'abca' | unique | sort | json }}"),
            "[1, 2, \"a\", [1], \"ß\"]|[\"b\", \"a\"]|[\"a\", \"b\", \"c\"]"
        );
    }

    #[test]
    fn union() {
        assert_eq!(
            run("{{ [1, 2, 3, 4] | union([2, 4, 6]) | json }}|{{ [1, 1, 'ß'] | union(['ß', 'ℝ']) | json }}|{{ 'ab' | union('bc') | sort | json }}"),
            "[1, 2, 3, 4, 6]|[1, \"ß\", \"ℝ\"]|[\"a\", \"b\", \"c\"]"
        );
    }

    #[test]
    fn intersect() {
        assert_eq!(run("{{ [1, 2, 3, 4] | intersect([2, 4, 6]) | json }}|{{ ['ß', 'ℝ', 'ß'] | intersect(['ß']) | json }}"), "[2, 4]|[\"ß\"]");
    }

    #[test]
    fn difference() {
        assert_eq!(run("{{ [1, 2, 3, 4] | difference([2, 4, 6]) | json }}|{{ ['ß', 'ℝ', '💣'] | difference(['ℝ']) | json }}"), "[1, 3]|[\"ß\", \"💣\"]");
    }

    #[test]
    fn symmetric_difference() {
        assert_eq!(
            run("{{ [1, 2, 3, 4] | symmetric_difference([2, 4, 6]) | json }}|{{ ['ß', 'ℝ'] | symmetric_difference(['ℝ', '💣']) | json }}"),
            "[1, 3, 6]|[\"ß\", \"💣\"]"
        );
    }

    #[test]
    fn is_list() {
        assert_eq!(run("{{ [1] | is_list }}|{{ 'x' | is_list }}|{{ {} | is_list }}|{{ none | is_list }}"), "True|False|False|False");
    }

    #[test]
    fn is_iter() {
        assert_eq!(run("{{ [1] | is_iter }}|{{ 'x' | is_iter }}|{{ {} | is_iter }}|{{ 1 | is_iter }}|{{ none | is_iter }}"), "True|False|True|False|False");
    }

    #[test]
    fn sequence() {
        assert_eq!(
            run("{{ 'foo' | sequence | json }}|{{ ['bar'] | sequence | json }}|{{ {'baz': 'qux'} | sequence | json }}|{{ none | sequence | json }}|{{ 1 | sequence | json }}"),
            "[\"foo\"]|[\"bar\"]|{\"baz\": \"qux\"}|[null]|[1]"
        );
    }

    #[test]
    fn path_join() {
        assert_eq!(
            run("{{ '/a' | path_join('b', '/c') }}|{{ 'a' | path_join('b/../c', 'd/') }}|{{ '' | path_join('x') }}|{{ 'ß' | path_join('ℝ', '💣') }}|{{ '/a/' | path_join }}|{{ 'a//b' | path_join('./c') }}|{{ '//x' | path_join('..', '..', 'y') }}|{{ 'a' | path_join('../../b') }}"),
            "/a/b/c|a/c/d|x|ß/ℝ/💣|/a|a/b/c|//y|../b"
        );
    }

    #[test]
    fn flatten() {
        assert_eq!(
            run("{{ [3, [4, 2]] | flatten | json }}|{{ [3, [4, [2]]] | flatten(levels=1) | json }}|{{ [3, None, [4, [2]]] | flatten(levels=1, preserve_nulls=True) | json }}|{{ [3, None, 'None', 'null', [None, 'x']] | flatten | json }}|{{ [[{'a': 1}], 'ab', ['ß']] | flatten | json }}"),
            "[3, 4, 2]|[3, 4, [2]]|[3, null, 4, [2]]|[3, \"x\"]|[\"a\", \"ab\", \"ß\"]"
        );
    }

    #[test]
    fn to_num() {
        assert_eq!(
            run("{{ '5' | to_num }}|{{ '5.5' | to_num }}|{{ 'x' | to_num }}|{{ ' 7 ' | to_num }}|{{ '1_000' | to_num }}|{{ '1e3' | to_num }}|{{ 'inf' | to_num }}|{{ 5 | to_num }}|{{ '0x10' | to_num }}|{{ 'ß' | to_num }}|{{ 3.7 | to_num }}"),
            "5|5.5|x|7|1000|1000.0|inf|5|0x10|ß|3"
        );
    }

    #[test]
    fn str_to_num() {
        assert_eq!(run("{{ '-12' | str_to_num + 1 }}|{{ '2.5' | str_to_num * 2 }}|{{ 'ℝ' | str_to_num }}"), "-11|5.0|ℝ");
    }

    #[test]
    fn quote() {
        assert_eq!(
            run("{{ 'my_text' | quote }}|{{ \"it's\" | quote }}|{{ '' | quote }}|{{ 'a-b/c.d:e=f@g%h+i,j' | quote }}|{{ 'ß' | quote }}|{{ 'a b' | quote }}"),
            "my_text|'it'\"'\"'s'|''|a-b/c.d:e=f@g%h+i,j|'ß'|'a b'"
        );
    }

    #[test]
    fn tests() {
        assert_eq!(
            run("{{ 1 is equalto 1 }}|{{ 1 is equalto 1.0 }}|{{ 'a' is equalto 'a' }}|{{ [1, 'ß'] is equalto [1, 'ß'] }}|{{ 'abc' is match('b') }}|{{ 'abc' is match('A', ignorecase=True) }}|{{ 'x\\nabc' is match('^a', multiline=True) }}|{{ 'ßx' is match('\\w') }}|{{ [1] is list }}|{{ 'x' is list }}|{{ {} is list }}"),
            "True|True|True|True|False|True|False|True|True|False|False"
        );
    }

    #[test]
    fn indent() {
        assert_eq!(
            run("[{{ 'a\\nb\\n\\nc' | indent }}]|[{{ 'a\\nb' | indent(2, true) }}]|[{{ 'a\\n\\nb' | indent(2, blank=true) }}]|[{{ 'a\\nb\\n' | indent(first=true) }}]|[{{ 'a\\nb' | indent('> ') }}]|[{{ 'ß\\nℝ\\r\\n💣' | indent(1) }}]"),
            "[a\n    b\n\n    c]|[  a\n  b]|[a\n  \n  b]|[    a\n    b\n]|[a\n> b]|[ß\n ℝ\n 💣]"
        );
    }

    #[test]
    fn default() {
        assert_eq!(
            run("{{ '' | default('d') }}|{{ '' | default('d', true) }}|{{ none | default('d') }}|{{ none | default('d', true) }}|{{ 0 | default('d', true) }}|{{ undefined_x | default('ß') }}|{{ false | d('x', true) }}|{{ [] | default([1], boolean=true) | json }}|{{ '' | default('d', boolean=false) }}"),
            "|d|None|d|d|ß|x|[1]|"
        );
    }

    #[test]
    fn join() {
        assert_eq!(
            run("{{ {'b': 1, 'a': 2} | join(',') }}|{{ 'abc' | join('-') }}|{{ [1, 'ß', none, true, 1.5] | join }}|{{ [{'a': 1}, {'a': 2}] | join(',', attribute='a') }}|{{ ['ℝ', '💣'] | join(d='+') }}"),
            "b,a|a-b-c|1ßNoneTrue1.5|1,2|ℝ+💣"
        );
    }

    #[test]
    fn list() {
        assert_eq!(
            run("{{ 'abc' | list | json }}|{{ {'b': 1, 'a': 2} | list | json }}|{{ 'ßℝ💣' | list | json }}"),
            "[\"a\", \"b\", \"c\"]|[\"b\", \"a\"]|[\"ß\", \"ℝ\", \"💣\"]"
        );
    }

    #[test]
    fn int() {
        assert_eq!(
            run("{{ 3.7 | int }}|{{ '3.7' | int }}|{{ '42' | int }}|{{ 'x' | int }}|{{ 'x' | int(5) }}|{{ '0x1A' | int(0, 16) }}|{{ '0x1A' | int(base=16) }}|{{ '0b11' | int(0, 2) }}|{{ ' 7 ' | int }}|{{ '1_000' | int }}|{{ -3.7 | int }}|{{ true | int }}|{{ none | int }}|{{ '1e3' | int }}|{{ '12abc' | int }}|{{ 'ß' | int }}"),
            "3|3|42|0|5|26|26|3|7|1000|-3|1|0|1000|0|0"
        );
    }

    #[test]
    fn float() {
        assert_eq!(
            run("{{ '3' | float }}|{{ 'x' | float }}|{{ '1e3' | float }}|{{ 3 | float }}|{{ ' 2.5 ' | float }}|{{ 'inf' | float }}|{{ '1_0.5' | float }}|{{ 'ß' | float(1.5) }}"),
            "3.0|0.0|1000.0|3.0|2.5|inf|10.5|1.5"
        );
    }

    #[test]
    fn string() {
        assert_eq!(
            run("{{ 42 | string }}|{{ none | string }}|{{ [1, 'a'] | string }}|{{ true | string }}|{{ 'ß' | string }}|{{ {'a': none} | string }}|{{ 1.0 | string }}"),
            "42|None|[1, 'a']|True|ß|{'a': None}|1.0"
        );
    }

    #[test]
    fn format() {
        assert_eq!(
            run("{{ '%s-%d' | format('a', 3) }}|{{ '%s' | format([1, 'a']) }}|{{ '%5.2f|%x|%05d|%-4s|%r' | format(3.14159, 255, 42, 'ab', 'ß') }}|{{ '%(a)s' | format(a=1) }}|{{ '%s %s' | format(1.0, True) }}|{{ '%d' | format(3.9) }}|{{ '%i%%' | format(5) }}|{{ '%s' | format(none) }}|{{ '%s|%s' | format('ℝ', '💣') }}"),
            "a-3|[1, 'a']| 3.14|ff|00042|ab  |'ß'|1|1.0 True|3|5%|None|ℝ|💣"
        );
    }

    #[test]
    fn format_conversions() {
        assert_eq!(
            run("{{ '%e|%E|%g|%G|%.3g|%10.4e|%#x|%#o|%+d|% d|%-6d|%06.2f|%c|%c|%.2s|%5s|%-5s|%a' | format(1234.5, 0.000012, 1234567.0, 1e-5, 3.14159, 12345.678, 255, 8, 5, 5, 42, -3.14159, 65, 'z', 'ßℝ💣', 'ß', 'ℝ', 'ß') }}|{{ '%g|%g|%g|%g|%#g|%g|%g|%f' | format(100000.0, 1000000.0, 0.0001, 0.00001, 1.5, 1e16, 1.0, -0.0) }}|{{ '%(a)s %(b)05.1f' | format(a='ß', b=2.25) }}|{{ '%*d|%.*f' | format(5, 42, 2, 3.14159) }}|{{ '%x|%o' | format(-255, -8) }}|{{ '%s' | format(none) }}|{{ 'no args' | format }}|{{ '%%' | format }}|{{ '%5.1s|' | format(true) }}|{{ '%d %s' | format(true, {'a': [1, none]}) }}|{{ '%r' | format({'a': 'x'}) }}|{{ '%.0f|%.0f|%.0f|%.1f' | format(0.5, 1.5, 2.5, 0.25) }}|{{ '%.3e' | format(0) }}|{{ '%g' | format(123456789) }}|{{ '%s' | format(1e22) }}"),
            "1.234500e+03|1.200000E-05|1.23457e+06|1E-05|3.14|1.2346e+04|0xff|0o10|+5| 5|42    |-03.14|A|z|ßℝ|    ß|ℝ    |'\\xdf'|100000|1e+06|0.0001|1e-05|1.50000|1e+16|1|-0.000000|ß 002.2|   42|3.14|-ff|-10|None|no args|%|    T||1 {'a': [1, None]}|{'a': 'x'}|0|2|2|0.2|0.000e+00|1.23457e+08|1e+22"
        );
    }

    #[test]
    fn round() {
        assert_eq!(
            run("{{ 2.675 | round(99999) }}|{{ 2.675 | round(2) }}|{{ 2.5 | round }}|{{ 3.5 | round }}|{{ 7.3 | round(0, 'ceil') }}|{{ 7.7 | round(method='floor') }}|{{ 5 | round }}|{{ -2.5 | round }}|{{ 1234.5678 | round(-2) }}|{{ 0.125 | round(2) }}|{{ 2.567 | round(1, 'floor') }}"),
            "2.675|2.67|2.0|4.0|8.0|7.0|5|-2.0|1200.0|0.12|2.5"
        );
    }

    #[test]
    fn replace() {
        assert_eq!(
            run("{{ 'a-b-c-d' | replace('-', '_', 2) }}|{{ 'a-b' | replace('-', '+') }}|{{ 'ab' | replace('', '.') }}|{{ 'ab' | replace('', '.', 1) }}|{{ 5 | replace('5', 'ß') }}|{{ 'ßℝß' | replace('ß', '💣') }}"),
            "a_b_c-d|a+b|.a.b.|.ab|ß|💣ℝ💣"
        );
    }

    #[test]
    fn dictsort() {
        assert_eq!(
            run("{{ {'b': 1, 'A': 2, 'a': 3, 'ß': 0} | dictsort | json }}|{{ {'b': 1, 'A': 2, 'a': 3} | dictsort(true) | json }}|{{ {'b': 1, 'A': 2, 'a': 3} | dictsort(by='value', reverse=true) | json }}"),
            "[[\"A\", 2], [\"a\", 3], [\"b\", 1], [\"ß\", 0]]|[[\"A\", 2], [\"a\", 3], [\"b\", 1]]|[[\"a\", 3], [\"A\", 2], [\"b\", 1]]"
        );
    }

    #[test]
    fn more_tests() {
        assert_eq!(
            run("{{ range is callable }}|{{ 'x' is callable }}|{{ {} is callable }}|{{ 6 is divisibleby 3 }}|{{ 7 is divisibleby(3) }}"),
            "True|False|False|True|False"
        );
    }

    #[test]
    fn type_tests() {
        assert_eq!(
            run("{% for v in ['abc', 3, 1.5, true, none, [1], {'a': 1}, 'ß'] %}{{ v is number }} {{ v is sequence }} {{ v is iterable }} {{ v is mapping }} {{ v is string }} {{ v is integer }} {{ v is float }} {{ v is boolean }};{% endfor %}"),
            "False True True False True False False False;True False False False False True False False;True False False False False False True False;True False False False False False False True;False False False False False False False False;False True True False False False False False;False True True True False False False False;False True True False True False False False;"
        );
    }

    #[test]
    fn filesizeformat() {
        assert_eq!(
            run("{{ 1536000 | filesizeformat }}|{{ 1536000 | filesizeformat(true) }}|{{ 1 | filesizeformat }}|{{ 999 | filesizeformat }}|{{ 1000 | filesizeformat }}|{{ 1024 | filesizeformat(binary=true) }}|{{ '2048' | filesizeformat }}|{{ (10 ** 30) | filesizeformat }}|{{ 0.5 | filesizeformat }}"),
            "1.5 MB|1.5 MiB|1 Byte|999 Bytes|1.0 kB|1.0 KiB|2.0 kB|1000000.0 YB|0 Bytes"
        );
    }

    #[test]
    fn hashes() {
        assert_eq!(
            run("{{ 'abc' | md5 }}|{{ 'ß' | sha1 }}|{{ 'ß' | sha256 }}|{{ 'ℝ💣' | sha512 }}|{{ '' | md5 }}"),
            "900150983cd24fb0d6963f7d28e17f72|00b39d61cc9b61a36437c4de643ec56b831e36d5|cd3a7e92a9114307055e4a0583acd6549ec3bb6d7c10ecc6ce11ae3d76b3d7db|563d678ee2240892a6b898f38f3ffe2f9ac14c1133c09766cc20ec2524ed17ffe86216d486e0db0b29d723453ceb5b0d6e7625987aa1c0752a50e2f93a0d96c5|d41d8cd98f00b204e9800998ecf8427e"
        );
    }

    #[test]
    fn base64() {
        assert_eq!(
            run("{{ 'ß ℝ 💣' | base64_encode }}|{{ 'w58=' | base64_decode }}|{{ 'w5 8=' | base64_decode }}|{{ '' | base64_encode }}|{{ 'aGVsbG8=' | base64_decode }}"),
            "w58g4oSdIPCfkqM=|ß|ß||hello"
        );
    }

    #[test]
    fn uuid() {
        assert_eq!(run("{{ 'example' | uuid }}|{{ 'ß' | uuid }}"), "9ade8beb-355a-50d8-9011-1c99848a7719|a57b0635-1c37-55e3-a1a8-35460f7abbbc");
    }

    /// Salt's error text (the part after `Jinja error: `) is in ours.
    #[test]
    fn errors_carry_pythons_words() {
        let cases: &[(&str, &str)] = &[
            ("{{ '%d' | format('x') }}", "%d format: a real number is required, not str"),
            ("{{ '%s %s' | format('x') }}", "not enough arguments for format string"),
            ("{{ '%s' | format('ß', 'x') }}", "not all arguments converted during string formatting"),
            ("{{ '%q' | format('x') }}", "unsupported format character 'q' (0x71) at index 1"),
            ("{{ '%x' | format(2.5) }}", "%x format: an integer is required, not float"),
            ("{{ 'a' | regex_replace('(a)|b', '[\\\\2]') }}", "invalid group reference 2 at position 2"),
            ("{{ 'a' | regex_replace('a', '\\\\q') }}", "bad escape \\q at position 0"),
            ("{{ 5 | regex_search('x') }}", "expected string or bytes-like object, got 'int'"),
            ("{{ nope | yaml }}", "Jinja variable 'nope' is undefined"),
            ("{{ nope | traverse('a') }}", "Jinja variable 'nope' is undefined"),
            ("{{ nope | int }}", "Jinja variable 'nope' is undefined"),
            // Salt: "expected string or bytes-like object, got 'StrictUndefined'".
            ("{{ nope | regex_replace('a', 'b') }}", "got 'StrictUndefined'"),
            ("{{ [] | yaml_encode }}", "yaml_encode() only works with YAML scalar data; failed for <class 'list'>"),
            ("{{ 'w58' | base64_decode }}", "Incorrect padding"),
            ("{{ 5 | md5 }}", "expected str, bytes, or bytearray not <class 'int'>"),
            // Python would try to allocate these; ours refuses past a million characters.
            ("{{ '%99999999999s' | format('x') }}", "width too big"),
            ("{{ '%.99999999999f' % 1.5 }}", "precision too big"),
            ("{{ 'x' | center(99999999999) }}", "width too big"),
            ("{{ 'a\\nb' | indent(99999999999) }}", "width too big"),
            ("{{ {} | json(indent=99999999999) }}", "width too big"),
        ];
        for (src, msg) in cases {
            let out = run(src);
            assert!(out.starts_with("ERROR") && out.contains(msg), "{src}: {out}");
        }
    }

    /// Host-touching and random filters never run: an inert value and a hint each. (Salt, on
    /// a host without `x` on its PATH and no file `f`: `None|False`.)
    #[test]
    fn host_filters_are_inert_with_a_hint() {
        let ctx = JinjaContext {
            grains: serde_json::json!({}),
            pillar: serde_json::json!({}),
            opts: serde_json::json!({}),
            saltenv: "base".into(),
            sls: String::new(),
            tplfile: "top.sls".into(),
            tplpath: "/srv/salt/top.sls".into(),
            extra: Vec::new(),
            map_data: None,
            functions: serde_json::Value::Null,
            budget: crate::render::budget::DEFAULT,
            loader: Arc::new(|_| None),
            probe: None,
            matcher: None,
        };
        let r = render("{{ 'x' | which }}|{{ 'f' | is_bin_file }}|{{ [1, 2] | random_shuffle | json }}|{{ 'h' | http_query | json }}|{{ rand_str is defined }}|{{ [3, 1] | random }}", &ctx).unwrap();
        assert_eq!(r.text, "None|False|[1, 2]|{}|False|3");
        assert_eq!(r.hints.len(), 5, "{:?}", r.hints);
        assert!(r.hints[0].contains("`which` filter"), "{:?}", r.hints);
    }

    #[test]
    fn case_and_sorting() {
        assert_eq!(
            run("{{ 'camelCaseName' | to_snake_case }}|{{ 'HTTPServerError' | to_snake_case }}|{{ 'ABC' | to_snake_case }}|{{ 'snake_case_ßx' | to_camelcase }}|{{ 'snake_case' | to_camelcase(true) }}|{{ ['b', 'A', 'c', 'B', 'a'] | sorted_ignorecase | json }}"),
            "camel_case_name|http_server_error|abc|snakeCaseSsx|SnakeCase|[\"A\", \"a\", \"b\", \"B\", \"c\"]"
        );
    }

    #[test]
    fn ip_filters() {
        assert_eq!(
            run("{{ '10.0.0.1' | is_ip }}|{{ '::1' | is_ip }}|{{ '10.0.0.0/24' | is_ipv4 }}|{{ 'x' | is_ip }}|{{ '::1' | is_ipv4 }}|{{ '127.0.0.1' | is_ip('loopback') }}|{{ '10.0.0.1' | is_ip('loopback') }}|{{ 5 | is_ip }}|{{ '::1' | ipwrap }}|{{ '10.0.0.1' | ipwrap }}|{{ ['2001:DB8::1', 'x'] | ipwrap | json }}|{{ '[::1]' | ipwrap }}"),
            "True|True|True|False|False|True|False|True|[::1]|10.0.0.1|[\"[2001:db8::1]\", \"x\"]|[::1]"
        );
    }

    #[test]
    fn dict_to_sls_yaml_params() {
        assert_eq!(run("{{ {'name': '/etc/x', 'mode': '0644', 'n': 1} | dict_to_sls_yaml_params }}"), "- name: /etc/x\n- mode: '0644'\n- n: 1");
    }

    #[test]
    fn jinja_string_builtins() {
        assert_eq!(
            run("[{{ 'x' | center(6) }}]|[{{ 'ab' | center(5) }}]|{{ 'foo bar baz qux' | truncate(9) }}|{{ 'foo bar baz qux' | truncate(9, True) }}|{{ 'foo bar baz qux' | truncate(11) }}|{{ 'foo bar baz qux' | truncate(11, False, '...', 0) }}|{{ 'a, b_c ß-d 12' | wordcount }}|{{ '<b>x</b>  y &amp; &lt;z&gt; <!-- c --> &#65;' | striptags }}|{{ 'sALT ßx' | capitalize }}|{{ 'salt-stack (ßx) a_b' | title }}|{{ 'hello wORLD 1st' .title() }}"),
            "[  x   ]|[  ab ]|foo...|foo ba...|foo bar baz qux|foo bar...|5|x y & <z> A|Salt ßx|Salt-Stack (SSx) A_b|Hello World 1St"
        );
    }

    #[test]
    fn json_query() {
        assert_eq!(
            run("{{ {'b': [{'n': 'x', 'e': true, 'p': 1}, {'n': 'y', 'e': false, 'p': 2.5}]} | json_query('b[?e].n') | json }}|{{ {'a': [1, 2, 3]} | json_query('a[1:]') }}|{{ {'a': [{'z': 1, 'y': 2}]} | json_query('a[0]') }}|{{ [1, 2] | json_query('length(@)') }}|{{ {'a': 'x'} | json_query('b') }}"),
            "[\"x\"]|[2, 3]|{'z': 1, 'y': 2}|2|None"
        );
    }

    #[test]
    fn urlencode_and_xmlattr() {
        assert_eq!(
            run("{{ 'a b&c/ß' | urlencode }}|{{ {'a': 1, 'b c': 'x/y'} | urlencode }}|{{ [('k', 'v w')] | urlencode }}|{{ 5 | urlencode }}|{{ {'a': 1, 'b': none, 'c': 'x\"<y'} | xmlattr }}|{{ {'a': 'q'} | xmlattr(false) }}"),
            "a%20b%26c/%C3%9F|a=1&b+c=x%2Fy|k=v+w|5| a=\"1\" c=\"x&#34;&lt;y\"|a=\"q\""
        );
    }

    #[test]
    fn salt_list_and_text_helpers() {
        assert_eq!(
            run("{{ ['b', 'a', 'C'] | min }}|{{ ['b', 'a', 'C'] | max }}|{{ 'hello' | max }}|{{ {'b': 1, 'a': 2} | min }}|{{ [1, 2.5, 3] | avg }}|{{ 4 | avg }}|{{ [true, 0] | max }}"),
            "C|b|o|a|2.1666666666666665|4.0|True"
        );
        assert_eq!(
            run("{{ 'ff' | is_hex }}|{{ 'xz' | is_hex }}|{{ 5 | is_hex }}|{{ '0x1F' | is_hex }}|{{ 'a b' | contains_whitespace }}|{{ 'ab' | contains_whitespace }}|{{ 'ab' | substring_in_list(['xaby', 'z']) }}|{{ [0, 1, none] | exactly_one_true }}|{{ [1, 1, 0] | exactly_n_true(2) }}|{{ 'x' | skip }}|{{ {'a': 1} | to_entries }}|{{ ['x'] | to_entries }}|{{ [{'key': 'a', 'value': 1}, {'Name': 'b', 'Value': 2}, {'key': '', 'value': 3}] | from_entries }}"),
            "True|False|False|True|True|False|True|True|True||[{'key': 'a', 'value': 1}]|[{'key': 0, 'value': 'x'}]|{'a': 1, 'b': 2}"
        );
        assert!(run("{{ [] | min }}").contains("min() arg is an empty sequence"));
        assert!(run("{{ [1, 'a'] | min }}").contains("'<' not supported between instances of 'str' and 'int'"));
    }

    #[test]
    fn ip_address_filters() {
        assert_eq!(
            run("{{ ['10.0.0.1', '8.8.8.8', '::1', 'fe80::1', 'x', '2001:DB8::1', '100.64.1.1', '::ffff:1.2.3.4', '192.168.1.1/24', '10.0.0.1/255.255.255.0'] | ipaddr }}"),
            "['10.0.0.1', '8.8.8.8', '100.64.1.1', '192.168.1.1/24', '10.0.0.1/24', '::1', 'fe80::1', '2001:db8::1', '::ffff:102:304']"
        );
        assert_eq!(
            run("{{ ['10.0.0.1', '8.8.8.8', '::1', 'fe80::1', '2001:DB8::1', '100.64.1.1', '::ffff:1.2.3.4', '192.168.1.1/24', '2a00:1450::1'] | ipaddr('private') }}|{{ ['10.0.0.1', '8.8.8.8', '100.64.1.1', '2a00:1450::1', '::1'] | ipaddr('global') }}"),
            "['10.0.0.1', '192.168.1.1/24', '::1', 'fe80::1', '2001:db8::1']|['8.8.8.8', '100.64.1.1', '2a00:1450::1']"
        );
        assert_eq!(
            run("{{ '10.0.0.1' | ipv4 }}|{{ '10.0.0.1' | ipv6 }}|{{ 'x' | ipaddr }}|{{ '::1' | ipaddr }}|{{ 5 | ipv4 }}|{{ ['1:0:0:1:0:0:0:1', '1:2:3:4:5:6:7:0', '0:0:1::'] | ipv6 }}"),
            "10.0.0.1|None|None|::1|None|['1:0:0:1::1', '1:2:3:4:5:6:7:0', '0:0:1::']"
        );
        assert_eq!(
            run("{{ ['240.0.0.1', 'fec0::1', 'ff02::1', '224.0.0.1', '0.0.0.0', '::', '169.254.1.1'] | map('ipaddr', 'reserved') | list }}|{{ ['fec0::1', '10.0.0.1'] | map('is_ip', 'site-local') | list }}|{{ ['ff02::1', '224.0.0.1', '10.0.0.1'] | ipaddr('multicast') }}|{{ ['0.0.0.0', '::', '1.1.1.1'] | ipaddr('unspecified') }}|{{ ['169.254.1.1', 'fe80::2'] | ipaddr('link-local') }}|{{ ['10.0.0.1', '127.0.0.1'] | ipaddr('private,loopback') }}|{{ '::ffff:10.0.0.1' | is_ip('private') }}"),
            "['240.0.0.1', None, None, None, None, '::', None]|[True, False]|['224.0.0.1', 'ff02::1']|['0.0.0.0', '::']|['169.254.1.1', 'fe80::2']|['127.0.0.1']|True"
        );
    }

    #[test]
    fn dict_key_values_compare_and_sizes() {
        assert_eq!(
            run("{% set d = {'a': {'x': 1}, 'n': none} %}{{ d | set_dict_key_value('a:b:c', 5) }}|{{ d }}|{{ {} | update_dict_key_value('p:q', {'k': 1}) }}|{{ {'l': none} | append_dict_key_value('l', 3) }}|{{ {'l': [1]} | extend_dict_key_value('l', [2, 3]) }}|{{ {'a': 'str'} | set_dict_key_value('a/b', 1, delimiter='/') }}"),
            "{'a': {'x': 1, 'b': {'c': 5}}, 'n': None}|{'a': {'x': 1, 'b': {'c': 5}}, 'n': None}|{'p': {'q': {'k': 1}}}|{'l': [3]}|{'l': [1, 2, 3]}|{'a': {'b': 1}}"
        );
        assert!(run("{{ {'a': 1} | append_dict_key_value('a', 2) }}").contains("The last key contains a <class 'int'>, which cannot append."));
        assert_eq!(
            run("{{ [1, 2, 3] | compare_lists([2, 3, 4]) }}|{{ [1] | compare_lists([1]) }}|{{ {'a': 1, 'b': 2} | compare_dicts({'a': 1, 'b': 3}) }}"),
            "{'new': [4], 'old': [1]}|{}|{'b': {'old': 2, 'new': 3}}"
        );
        assert_eq!(
            run("{{ '2G' | human_to_bytes }}|{{ '30MB' | human_to_bytes }}|{{ '30MB' | human_to_bytes(handle_metric=true) }}|{{ '64KiB' | human_to_bytes }}|{{ '1.5k' | human_to_bytes }}|{{ '512' | human_to_bytes }}|{{ '10' | human_to_bytes('M') }}|{{ 'x' | human_to_bytes }}|{{ '5 qb' | human_to_bytes }}|{{ 2048 | human_to_bytes }}|{{ '1Y' | human_to_bytes }}"),
            "2147483648|31457280|30000000|65536|1536|512|10485760|0|0|2048|1208925819614629174706176"
        );
    }

    #[test]
    fn wordwrap() {
        assert_eq!(
            run("{{ 'The quick brown fox jumps over the lazy dog' | wordwrap(10) }}|{{ 'a well-known\\n\\nstate-of-the-art thing' | wordwrap(12, wrapstring='<br>') }}|{{ 'abcdefghij klm' | wordwrap(4, false) }}|{{ 'x-y-z-w' | wordwrap(3, break_on_hyphens=false) }}|{{ 'a b' | wordwrap }}"),
            "The quick\nbrown fox\njumps over\nthe lazy\ndog|a well-known<br><br>state-of-<br>the-art<br>thing|abcdefghij\nklm|x-y\n-z-\nw|a b"
        );
    }
}
