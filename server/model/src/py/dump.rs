//! The quoting helpers of `salt/utils/yamlencoding.py` (`yaml_dquote`, `yaml_squote`,
//! `yaml_encode`), which call PyYAML's Python emitter's scalar writers directly, and
//! [`yaml_flow`], `salt.utils.yaml.safe_dump` in flow style (libyaml's emitter, as Salt's
//! `CSafeDumper` has it, through `yaml_dump`).

use serde_json::Value;

/// `salt.utils.yaml.safe_dump(v, default_flow_style=True)` (unicode kept), stripped, without the
/// `...` document end: the `yaml` filter's text. Salt's dumper is PyYAML's `CSafeDumper`, so
/// libyaml's emitter ([`super::yaml_dump`]) writes it: scalar styles, plain scalars and
/// collections folded at 80 columns as libyaml folds them. With `sort_keys` off, mappings keep
/// their order (an `OrderedDict`, or keys the caller sorted).
pub fn yaml_flow(v: &Value, sort_keys: bool) -> String {
    let options = super::yaml_dump::DumpOptions { default_flow_style: Some(true), sort_keys, allow_unicode: true, ..Default::default() };
    let text = super::yaml_dump::dump(v, &options);
    let text = text.trim();
    text.strip_suffix("\n...").unwrap_or(text).to_string()
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
