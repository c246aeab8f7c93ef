//! Python's text for data, as Salt's `json` and `yaml` Jinja filters print it
//! (`salt/utils/jinja.py` `SerializerExtension.format_json` / `format_yaml`): `json.dumps` with
//! `sort_keys=True` and `ensure_ascii=False` (`salt/utils/json.py` `dumps`), and PyYAML's
//! `safe_dump` in flow style, keys sorted, lines wrapped past 80 columns as its emitter wraps
//! them.

use serde_json::Value;

/// `json.dumps(v, sort_keys=sort_keys, ensure_ascii=False)` with Python's `", "` and `": "`.
pub fn json(v: &Value, sort_keys: bool) -> String {
    let mut out = String::new();
    json_into(v, sort_keys, &mut out);
    out
}

fn json_into(v: &Value, sort_keys: bool, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            if sort_keys {
                keys.sort();
            }
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                json_into(&m[k], sort_keys, out);
            }
            out.push('}');
        }
        Value::Array(l) => {
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                json_into(x, sort_keys, out);
            }
            out.push(']');
        }
        Value::Number(n) if n.is_f64() => out.push_str(&syntax::yaml::py_float(n.as_f64().unwrap_or(0.0))),
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}

/// PyYAML's best width: a flow collection breaks its line after an item that ends past it.
const WIDTH: usize = 80;

/// `yaml.safe_dump(v, default_flow_style=True)`, stripped, without the `...` document end.
pub fn yaml_flow(v: &Value) -> String {
    let mut e = Emitter { out: String::new(), column: 0 };
    e.node(v, 0);
    e.out
}

struct Emitter {
    out: String,
    column: usize,
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
                keys.sort();
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
    // What `syntax::yaml`'s resolvers (PyYAML's) would not read back as this string.
    let node = syntax::yaml::load(s);
    matches!(node.map(|n| n.value), Ok(syntax::yaml::Value::Str(ref t)) if t == s)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Outputs printed by Salt 3008.4's `salt.utils.json.dumps(v, sort_keys=True)` and
    /// `salt.utils.yaml.safe_dump(v, default_flow_style=True)`.
    #[test]
    fn like_python() {
        let v = json!({"b": [1, "ß💣", null, true, 1.0], "a": {"x": "y"}});
        assert_eq!(json(&v, true), r#"{"a": {"x": "y"}, "b": [1, "ß💣", null, true, 1.0]}"#);
        let v = json!({"b": [1, "ß💣 x", null, true, 1.0, "yes", "1.5", "a: b", ""], "a": {"x": "y"}});
        assert_eq!(yaml_flow(&v), r#"{a: {x: y}, b: [1, "ß\U0001F4A3 x", null, true, 1.0, 'yes', '1.5', 'a: b', '']}"#);
        assert_eq!(yaml_flow(&json!("plain")), "plain");
        let long = json!({"k": "x".repeat(100), "l": (0..30).collect::<Vec<_>>()});
        assert_eq!(
            yaml_flow(&long),
            format!(
                "{{k: {},\n  l: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,\n    22, 23, 24, 25, 26, 27, 28, 29]}}",
                "x".repeat(100)
            )
        );
    }
}
