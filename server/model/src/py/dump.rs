//! The YAML text Salt's `yaml` Jinja filter prints (`salt/utils/jinja.py`
//! `SerializerExtension.format_yaml`): `salt.utils.yaml.safe_dump` in flow style, PyYAML's
//! Python emitter, keys sorted, lines wrapped past 80 columns as that emitter wraps them.
//! (Salt's YAML serializer goes through libyaml instead: `yaml_dump`.)

use serde_json::Value;

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

    /// Outputs printed by Salt 3008.4's `salt.utils.yaml.safe_dump(v, default_flow_style=True)`.
    #[test]
    fn like_python() {
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
