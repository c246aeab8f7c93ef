//! Python's `json.dumps` (CPython `json/encoder.py`) as `salt.utils.json.dumps` calls it
//! (`ensure_ascii=False` unless told otherwise): the text `slsutil.serialize('json', ...)`
//! and Salt's `json` Jinja filter produce, byte for byte.

use serde_json::Value;

use super::builtins::float_repr;

/// The keyword arguments of `json.dumps` that change its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpOptions {
    /// `indent`: `None` is one line; a number of spaces or a string starts a new line for
    /// every item (`0` and `""` too, with no indentation).
    pub indent: Option<String>,
    /// `separators=(item, key)`; `None` is `(', ', ': ')`, or `(',', ': ')` with an indent.
    pub separators: Option<(String, String)>,
    pub sort_keys: bool,
    /// `ensure_ascii`: escape everything outside printable ASCII as `\uXXXX`.
    pub ensure_ascii: bool,
}

impl Default for DumpOptions {
    /// `salt.utils.json.dumps`' defaults: `json.dumps` with `ensure_ascii=False`.
    fn default() -> DumpOptions {
        DumpOptions { indent: None, separators: None, sort_keys: false, ensure_ascii: false }
    }
}

/// `json.dumps(v, **options)`.
pub fn dumps(v: &Value, options: &DumpOptions) -> String {
    let (item_sep, key_sep) = match &options.separators {
        Some((i, k)) => (i.clone(), k.clone()),
        None if options.indent.is_some() => (",".to_string(), ": ".to_string()),
        None => (", ".to_string(), ": ".to_string()),
    };
    let mut out = String::new();
    Encoder { options, item_sep, key_sep }.encode(v, 0, &mut out);
    out
}

struct Encoder<'a> {
    options: &'a DumpOptions,
    item_sep: String,
    key_sep: String,
}

impl Encoder<'_> {
    /// With an indent, a line break and the indent repeated `level` times
    /// (`_iterencode_list`'s `newline_indent`).
    fn newline(&self, level: usize, out: &mut String) {
        if let Some(indent) = &self.options.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(indent);
            }
        }
    }

    fn encode(&self, v: &Value, level: usize, out: &mut String) {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(&number(n)),
            Value::String(s) => string(s, self.options.ensure_ascii, out),
            Value::Array(items) => {
                if items.is_empty() {
                    out.push_str("[]");
                    return;
                }
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&self.item_sep);
                    }
                    self.newline(level + 1, out);
                    self.encode(item, level + 1, out);
                }
                self.newline(level, out);
                out.push(']');
            }
            Value::Object(map) => {
                if map.is_empty() {
                    out.push_str("{}");
                    return;
                }
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                if self.options.sort_keys {
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                }
                out.push('{');
                for (i, (k, item)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(&self.item_sep);
                    }
                    self.newline(level + 1, out);
                    string(k, self.options.ensure_ascii, out);
                    out.push_str(&self.key_sep);
                    self.encode(item, level + 1, out);
                }
                self.newline(level, out);
                out.push('}');
            }
        }
    }
}

/// `int.__repr__`, or `float.__repr__` with `NaN`, `Infinity` and `-Infinity` for the
/// values JSON has no number for (`allow_nan=True`).
fn number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        Some(f) if f.is_nan() => "NaN".into(),
        Some(f) if f.is_infinite() => (if f > 0.0 { "Infinity" } else { "-Infinity" }).into(),
        Some(f) => float_repr(f),
        None => n.to_string(),
    }
}

/// `py_encode_basestring` (`"`, `\`, and control characters escaped; `\b \f \n \r \t` by
/// name), or with `ensure_ascii` `py_encode_basestring_ascii` (everything outside ` `..`~`
/// as `\uXXXX`, characters beyond the BMP as a surrogate pair).
fn string(s: &str, ensure_ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ensure_ascii && !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(indent: Option<&str>, sort_keys: bool, ensure_ascii: bool) -> DumpOptions {
        DumpOptions { indent: indent.map(str::to_string), separators: None, sort_keys, ensure_ascii }
    }

    #[test]
    fn like_python() {
        // python3 -c 'import json; print(json.dumps({"u": "ß", "f": 1.5, "e": 1e20, "n": None, "t": True, "l": [1, "x"]}, ensure_ascii=False))'
        // {"u": "ß", "f": 1.5, "e": 1e+20, "n": null, "t": true, "l": [1, "x"]}
        let v = json!({"u": "ß", "f": 1.5, "e": 1e20, "n": null, "t": true, "l": [1, "x"]});
        assert_eq!(dumps(&v, &DumpOptions::default()), r#"{"u": "ß", "f": 1.5, "e": 1e+20, "n": null, "t": true, "l": [1, "x"]}"#);
        // json.dumps({"b": 1, "a": [1, 2]}, indent=2)
        assert_eq!(dumps(&json!({"b": 1, "a": [1, 2]}), &opts(Some("  "), false, false)), "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2\n  ]\n}");
        // json.dumps({"b": 1, "a": 2}, sort_keys=True); json.dumps('x"y\\z'); separators=(",", ":")
        assert_eq!(dumps(&json!({"b": 1, "a": 2}), &opts(None, true, false)), r#"{"a": 2, "b": 1}"#);
        // json.dumps('x"y\\z\x01\x7f', ensure_ascii=False): DEL is not escaped.
        assert_eq!(dumps(&json!("x\"y\\z\u{1}\u{7f}"), &DumpOptions::default()), "\"x\\\"y\\\\z\\u0001\u{7f}\"");
        let compact = DumpOptions { separators: Some((",".into(), ":".into())), ..DumpOptions::default() };
        assert_eq!(dumps(&json!({"a": [1, 2]}), &compact), r#"{"a":[1,2]}"#);
        // json.dumps({"u": "ß💣"}) (ensure_ascii=True); json.dumps([{}], indent=0)
        assert_eq!(dumps(&json!({"u": "ß💣"}), &opts(None, false, true)), r#"{"u": "\u00df\ud83d\udca3"}"#);
        assert_eq!(dumps(&json!([{}]), &opts(Some(""), false, false)), "[\n{}\n]");
        assert_eq!(dumps(&json!({"a": [1, {"b": []}]}), &opts(Some("  "), false, false)), "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    }\n  ]\n}");
    }
}
