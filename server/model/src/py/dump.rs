//! The YAML text Salt's `yaml` Jinja filter prints (`salt/utils/jinja.py`
//! `SerializerExtension.format_yaml`): `salt.utils.yaml.safe_dump` in flow style, PyYAML's
//! Python emitter, keys sorted, lines wrapped past 80 columns as that emitter wraps them.
//! (Salt's YAML serializer goes through libyaml instead: `yaml_dump`.) Also the quoting helpers
//! of `salt/utils/yamlencoding.py` (`yaml_dquote`, `yaml_squote`, `yaml_encode`), which call
//! that emitter's scalar writers directly.

use serde_json::Value;

/// PyYAML's best width: a flow collection breaks its line after an item that ends past it.
const WIDTH: usize = 80;

/// `yaml.safe_dump(v, default_flow_style=True)`, stripped, without the `...` document end;
/// with `sort_keys` off, mappings keep their order (an `OrderedDict`, or keys the caller sorted).
pub fn yaml_flow(v: &Value, sort_keys: bool) -> String {
    let mut e = Emitter { out: String::new(), column: 0, sort_keys };
    e.node(v, 0);
    e.out
}

struct Emitter {
    out: String,
    column: usize,
    sort_keys: bool,
}

impl Emitter {
    fn write(&mut self, s: &str) {
        self.out.push_str(s);
        match s.rfind('\n') {
            Some(p) => self.column = s[p + 1..].chars().count(),
            None => self.column += s.chars().count(),
        }
    }

    /// `, ` between items, or `,` and a new line indented for `level` once past the width.
    fn separator(&mut self, level: usize) {
        self.write(",");
        if self.column > WIDTH {
            self.write(&format!("\n{}", " ".repeat(level * 2)));
        } else {
            self.write(" ");
        }
    }

    fn node(&mut self, v: &Value, level: usize) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                if self.sort_keys {
                    keys.sort();
                }
                self.write("{");
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        self.separator(level + 1);
                    }
                    self.write(&scalar(k));
                    self.write(": ");
                    self.node(&m[k], level + 1);
                }
                self.write("}");
            }
            Value::Array(l) => {
                self.write("[");
                for (i, x) in l.iter().enumerate() {
                    if i > 0 {
                        self.separator(level + 1);
                    }
                    self.node(x, level + 1);
                }
                self.write("]");
            }
            Value::Null => self.write("null"),
            Value::Bool(b) => self.write(if *b { "true" } else { "false" }),
            Value::Number(n) if n.is_f64() => self.write(&syntax::yaml::py_float(n.as_f64().unwrap_or(0.0))),
            Value::Number(n) => self.write(&n.to_string()),
            Value::String(s) => self.write(&scalar(s)),
        }
    }
}

/// A string as PyYAML writes it in flow context: plain when that reads back as the same
/// string, else single-quoted, else (characters it will not write raw) double-quoted.
fn scalar(s: &str) -> String {
    if s.chars().any(|c| (c as u32) > 0xFFFF || (c.is_control() && c != '\n' && c != '\t')) {
        return double_quoted(s);
    }
    if plain_ok(s) {
        return s.to_string();
    }
    if s.contains('\n') {
        return double_quoted(s);
    }
    format!("'{}'", s.replace('\'', "''"))
}

fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) > 0xFFFF => out.push_str(&format!("\\U{:08X}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether PyYAML writes `s` as a plain scalar in flow context: not empty, no space at either
/// end, no indicator that would start or end something else, and not a string the YAML 1.1
/// resolvers would read as a bool, null, number or timestamp.
fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    if s.starts_with(' ')
        || s.ends_with(' ')
        || "-?:,[]{}#&*!|>'\"%@`".contains(first) && !(matches!(first, '-' | '?' | ':') && s.len() > 1 && !s[1..].starts_with(' '))
    {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') || s.contains(['[', ']', '{', '}', ',', '\n', '\t']) {
        return false;
    }
    // PyYAML's implicit resolvers (timestamps too, which Salt's loader reads as text) must
    // leave it a string, and it must read back as itself.
    if !super::yaml_dump::resolves_to_str(s) {
        return false;
    }
    let node = syntax::yaml::load(s);
    matches!(node.map(|n| n.value), Ok(syntax::yaml::Value::Str(ref t)) if t == s)
}

/// `yaml_dquote` (`salt/utils/yamlencoding.py`): PyYAML's Python `Emitter.write_double_quoted`
/// with `allow_unicode` off and no line width, so every character outside `0x20..=0x7E` is
/// escaped.
pub fn yaml_dquote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if matches!(c, '"' | '\\' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}') || !(' '..='~').contains(&c) {
            out.push_str(&super::yaml_dump::double_quoted_escape(c));
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// `yaml_squote` (`salt/utils/yamlencoding.py`): `Emitter.write_single_quoted` with no line
/// width: `'` doubled, and a run of line breaks written with one more `\n` when it starts with
/// one (YAML folds a single break in single quotes).
pub fn yaml_squote(text: &str) -> String {
    let is_break = |c: char| matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let mut out = String::from("'");
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_break(c) {
            let start = i;
            while i < chars.len() && is_break(chars[i]) {
                i += 1;
            }
            if chars[start] == '\n' {
                out.push('\n');
            }
            out.extend(&chars[start..i]);
            continue;
        }
        if c == '\'' {
            out.push_str("''");
        } else {
            out.push(c);
        }
        i += 1;
    }
    out.push('\'');
    out
}

/// `yaml_encode` (`salt/utils/yamlencoding.py`): the scalar `SafeRepresenter` makes of `v`, a
/// string through [`yaml_dquote`]; a list or dict is Python's `TypeError`.
pub fn yaml_encode(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::Null => "null".into(),
        Value::Bool(b) => (if *b { "true" } else { "false" }).into(),
        Value::Number(n) if n.is_f64() => super::yaml_dump::represent_float(n.as_f64().unwrap_or(0.0)),
        Value::Number(n) => n.to_string(),
        Value::String(s) => yaml_dquote(s),
        Value::Array(_) | Value::Object(_) => {
            let class = if v.is_array() { "list" } else { "dict" };
            return Err(format!("yaml_encode() only works with YAML scalar data; failed for <class '{class}'>"));
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Outputs printed by Salt 3008.4's `salt.utils.yaml.safe_dump(v, default_flow_style=True)`.
    #[test]
    fn like_python() {
        let v = json!({"b": [1, "ß💣 x", null, true, 1.0, "yes", "1.5", "a: b", "", "2024-01-01"], "a": {"x": "y"}});
        assert_eq!(yaml_flow(&v, true), r#"{a: {x: y}, b: [1, "ß\U0001F4A3 x", null, true, 1.0, 'yes', '1.5', 'a: b', '', '2024-01-01']}"#);
        assert_eq!(yaml_flow(&json!("plain"), true), "plain");
        let long = json!({"k": "x".repeat(100), "l": (0..30).collect::<Vec<_>>()});
        assert_eq!(
            yaml_flow(&long, true),
            format!(
                "{{k: {},\n  l: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,\n    22, 23, 24, 25, 26, 27, 28, 29]}}",
                "x".repeat(100)
            )
        );
    }

    /// Outputs of Salt 3008.4's `salt.utils.yamlencoding` functions.
    #[test]
    fn yamlencoding_like_salt() {
        assert_eq!(yaml_dquote("a\"b\\c\nß ℝ 💣\t"), r#""a\"b\\c\n\xDF \u211D \U0001F4A3\t""#);
        assert_eq!(yaml_squote("it's ß ℝ 💣"), "'it''s ß ℝ 💣'");
        assert_eq!(yaml_squote("a\nb"), "'a\n\nb'");
        assert_eq!(yaml_encode(&json!("ß ℝ 💣")).unwrap(), r#""\xDF \u211D \U0001F4A3""#);
        assert_eq!(yaml_encode(&json!(false)).unwrap(), "false");
        assert_eq!(yaml_encode(&json!(null)).unwrap(), "null");
        assert_eq!(yaml_encode(&json!(1e17)).unwrap(), "1.0e+17");
        assert_eq!(yaml_encode(&json!(7)).unwrap(), "7");
        assert_eq!(yaml_encode(&json!([])).unwrap_err(), "yaml_encode() only works with YAML scalar data; failed for <class 'list'>");
    }
}
