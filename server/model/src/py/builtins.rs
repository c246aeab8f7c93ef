//! Small pieces of Python behaviour the matchers and templates depend on: `str()` of a value,
//! `str.split()`, `str.capitalize()` and `str.title()`, `int()` of a string, `repr()` of a
//! string, ordering and equality, and Salt's `yamlify_arg` for dictionary keys.

use serde_json::Value;

/// Python's `str.split()` with no argument: split on runs of whitespace, dropping empty words.
/// Python's `str.isspace` also counts the information separators U+001C..U+001F, which
/// Rust's `char::is_whitespace` does not.
pub(crate) fn split_whitespace(s: &str) -> Vec<&str> {
    s.split(is_py_space).filter(|w| !w.is_empty()).collect()
}

/// Whether Python's `str.isspace` holds for one character.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str(v)` for a JSON value: strings are themselves, everything else is its repr.
pub(crate) fn str_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => repr(other),
    }
}

/// Python's `repr(v)` for a JSON value loaded the way `json.loads` loads it.
pub(crate) fn repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(v, &mut out);
    out
}

fn write_repr(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else if let Some(f) = n.as_f64() {
                out.push_str(&float_repr(f));
            }
        }
        Value::String(s) => out.push_str(&repr_str(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&repr_str(k));
                out.push_str(": ");
                write_repr(item, out);
            }
            out.push('}');
        }
    }
}

/// Python's `==` between two values loaded the way `json.loads` loads them: `True == 1`,
/// `False == 0.0`, `1 == 1.0`, dicts equal whatever their key order, and a string never equals
/// a number. Salt's `x not in list` tests (`dictupdate.update` with `merge_lists`,
/// `pillar.get` with a list default) compare with it.
pub(crate) fn py_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w))),
        (Value::Bool(_) | Value::Number(_), Value::Bool(_) | Value::Number(_)) => num_eq(a, b),
        _ => false,
    }
}

/// A bool or number as Python compares it: an exact integer when it is one, else a float.
enum Num {
    Int(i128),
    Float(f64),
}

fn as_num(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::Int(i128::from(*b))),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Some(Num::Int(i128::from(i))),
            (None, Some(u)) => Some(Num::Int(i128::from(u))),
            _ => n.as_f64().map(Num::Float),
        },
        _ => None,
    }
}

/// Python compares an int with a float exactly (`2**53 + 1 != float(2**53)`), not by converting
/// the int to a float.
fn num_eq(a: &Value, b: &Value) -> bool {
    match (as_num(a), as_num(b)) {
        (Some(Num::Int(x)), Some(Num::Int(y))) => x == y,
        (Some(Num::Float(x)), Some(Num::Float(y))) => x == y,
        (Some(Num::Int(i)), Some(Num::Float(f))) | (Some(Num::Float(f)), Some(Num::Int(i))) => {
            f.is_finite() && f.fract() == 0.0 && f.abs() < 1.7e38 && f as i128 == i
        }
        _ => false,
    }
}

/// Python's `a < b` as `sorted` needs it: numbers (and bools) with numbers, exactly; strings
/// by code point; lists item by item; anything else is Python's `TypeError`, worded as
/// CPython words it.
pub(crate) fn py_cmp(a: &Value, b: &Value) -> Result<std::cmp::Ordering, String> {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x.cmp(y)),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                if !py_eq(p, q) {
                    return py_cmp(p, q);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        _ => match (as_num(a), as_num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => Ok(x.cmp(&y)),
            (Some(x), Some(y)) => {
                let f = |n: Num| match n {
                    Num::Int(i) => i as f64,
                    Num::Float(f) => f,
                };
                Ok(f(x).partial_cmp(&f(y)).unwrap_or(Ordering::Equal))
            }
            _ => Err(format!("'<' not supported between instances of '{}' and '{}'", type_name(a), type_name(b))),
        },
    }
}

/// Python's `type(v).__name__` for a value loaded by `json.loads`, as exception messages name it.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `repr(str)`: single quotes unless the text has a `'` and no `"`, with Python's
/// escapes for backslashes, the chosen quote and characters that are not printable.
pub(crate) fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let n = c as u32;
                if n < 0x100 {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// An approximation of Python's `str.isprintable` for one character: control characters,
/// separators other than the space, format characters and private-use characters are not
/// printable. (Unassigned code points, which Python also escapes, are not detected.)
fn is_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let n = c as u32;
    let format_or_private = matches!(n,
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f
        | 0xfeff | 0xfff9..=0xfffb | 0x110bd | 0x110cd | 0x13430..=0x1343f
        | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
        | 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd);
    !format_or_private
}

/// Python's `repr(float)`: the shortest digits that round-trip, written in fixed notation when
/// the decimal exponent is in `-4..16` and in scientific notation (`1e+16`, `1.5e-05`) otherwise.
pub(crate) fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. `1.5e-5` or `-2e16`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    }
    out
}

/// Python's `int(s)` for a string: surrounding whitespace, an optional sign, decimal digits
/// with single underscores between them. `None` where Python raises `ValueError`.
pub(crate) fn parse_int(s: &str) -> Option<i128> {
    let t = s.trim_matches(is_py_space);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") {
        return None;
    }
    let mut value: i128 = 0;
    for c in body.chars() {
        if c == '_' {
            continue;
        }
        let d = c.to_digit(10)?;
        // Values beyond i128 cannot index any list, so saturating keeps them out of range.
        value = value.saturating_mul(10).saturating_add(i128::from(d));
    }
    Some(if neg { -value } else { value })
}

/// What Salt's `yamlify_arg` turns a dictionary-key string into, but only when the result is
/// a *different string*: our data has string keys only (it came from JSON), so a non-string
/// result can never be found, and an unchanged string was already looked up.
pub(crate) fn yamlify_to_other_string(arg: &str) -> Option<String> {
    let stripped = arg.trim_matches(is_py_space);
    if matches!(stripped, "" | "---" | "...") {
        return None;
    }
    if arg.contains('_') && stripped.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return None;
    }
    if arg.contains(['\t', '\r', '\n']) {
        return None;
    }
    if arg.contains('#') {
        // Salt keeps the original unless it parses into a non-string.
        return None;
    }
    if arg == "None" {
        return None;
    }
    // A plain scalar without surrounding spaces loads as itself or as a non-string; only
    // quoting, tags, anchors, block indicators and the like can give a different string.
    let plain_start = arg.chars().next().is_some_and(|c| !c.is_whitespace() && !"-?:,[]{}#&*!|>'\"%@`".contains(c));
    let plain_end = arg.chars().last().is_some_and(|c| !c.is_whitespace());
    if plain_start && plain_end {
        return None;
    }
    let node = syntax::yaml::load(arg).ok()?;
    match node.value {
        syntax::yaml::Value::Str(s) => {
            // `yaml.safe_load('|')` is '' and Salt restores the original for `|` and `!`.
            if s.is_empty() && (arg == "|" || arg == "!") {
                return None;
            }
            (s != arg).then_some(s)
        }
        _ => None,
    }
}

/// Python's `str.capitalize()`: the first character in title case, the rest lowercased.
pub(crate) fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    let Some(first) = chars.next() else { return String::new() };
    let mut out = title_case(first);
    out.extend(chars.flat_map(char::to_lowercase));
    out
}

/// The title case of one character, which Unicode gives for the few characters whose upper
/// case is two letters or a ligature (`ß` is `Ss`, `ǆ` is `ǅ`); otherwise its upper case.
fn title_case(c: char) -> String {
    match c {
        'ß' => "Ss".into(),
        'ǆ' | 'ǅ' | 'Ǆ' => "ǅ".into(),
        'ǉ' | 'ǈ' | 'Ǉ' => "ǈ".into(),
        'ǌ' | 'ǋ' | 'Ǌ' => "ǋ".into(),
        'ǳ' | 'ǲ' | 'Ǳ' => "ǲ".into(),
        'ﬀ' => "Ff".into(),
        'ﬁ' => "Fi".into(),
        'ﬂ' => "Fl".into(),
        'ﬃ' => "Ffi".into(),
        'ﬄ' => "Ffl".into(),
        'ﬅ' | 'ﬆ' => "St".into(),
        c => c.to_uppercase().collect(),
    }
}

/// Python's `str.title()`: a character after a cased one lowercased, any other in title case.
pub(crate) fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.push_str(&title_case(c));
        }
        prev_cased = c.is_lowercase() || c.is_uppercase();
    }
    out
}

/// Where [`pad`] puts the text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
    Center,
}

/// `str.ljust`, `str.rjust` and `str.center(width, fill)`: `fill` around the text up to `width`
/// characters; centred, the odd one goes left when the width is odd and the margin too
/// (CPython's `pad`).
pub(crate) fn pad(s: &str, width: usize, fill: char, align: Align) -> String {
    let len = s.chars().count();
    if width <= len {
        return s.to_string();
    }
    let marg = width - len;
    let left = match align {
        Align::Left => 0,
        Align::Right => marg,
        Align::Center => marg / 2 + (marg & width & 1),
    };
    let fill = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    format!("{}{s}{}", fill(left), fill(marg - left))
}

/// Python's `str.swapcase()`: each letter in the other case (`ß` becomes `SS`).
pub(crate) fn swapcase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_uppercase() {
            out.extend(c.to_lowercase());
        } else if c.is_lowercase() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Python's `str.istitle()`: some cased character, uppercase ones only after uncased ones and
/// lowercase ones only after cased ones.
pub(crate) fn istitle(s: &str) -> bool {
    let (mut cased, mut prev_cased) = (false, false);
    for c in s.chars() {
        if c.is_uppercase() {
            if prev_cased {
                return false;
            }
            prev_cased = true;
            cased = true;
        } else if c.is_lowercase() {
            if !prev_cased {
                return false;
            }
            prev_cased = true;
            cased = true;
        } else {
            prev_cased = false;
        }
    }
    cased
}

/// Python's `str.find(sub, start, end)` (`rfind` with `last`): the character index of `sub`
/// within `s[start:end]` (slice bounds as Python clamps them), or -1.
pub(crate) fn find(s: &str, sub: &str, start: Option<i64>, end: Option<i64>, last: bool) -> i64 {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let len = chars.len() as i64;
    let clamp = |i: i64| if i < 0 { (i + len).max(0) } else { i.min(len) };
    let (from, to) = (clamp(start.unwrap_or(0)), clamp(end.unwrap_or(len)));
    // An empty `sub` is found at `start`, but not past the end.
    if from > to || start.is_some_and(|st| st > len) {
        return -1;
    }
    let byte = |i: i64| chars.get(i as usize).map_or(s.len(), |(b, _)| *b);
    let hay = &s[byte(from)..byte(to)];
    let found = if last { hay.rfind(sub) } else { hay.find(sub) };
    match found {
        Some(b) => from + hay[..b].chars().count() as i64,
        None => -1,
    }
}

/// Python's `bool()` of a JSON value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(l) => !l.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_str_of_values() {
        assert_eq!(str_of(&json!(true)), "True");
        assert_eq!(str_of(&json!(null)), "None");
        assert_eq!(str_of(&json!(42)), "42");
        assert_eq!(str_of(&json!(1.0)), "1.0");
        assert_eq!(str_of(&json!(1.5e-5)), "1.5e-05");
        assert_eq!(str_of(&json!(1e16)), "1e+16");
        assert_eq!(str_of(&json!(123456.789)), "123456.789");
        assert_eq!(str_of(&json!(0.0001)), "0.0001");
        assert_eq!(str_of(&json!(["a", 1, {"k": "it's"}])), r#"['a', 1, {'k': "it's"}]"#);
        assert_eq!(str_of(&json!("x\ny")), "x\ny");
        assert_eq!(repr_str("a\\b\u{7}"), r"'a\\b\x07'");
    }

    #[test]
    fn python_split_and_int() {
        assert_eq!(split_whitespace(" a\u{1f}b  c\n"), vec!["a", "b", "c"]);
        assert_eq!(parse_int(" -1_0 "), Some(-10));
        assert_eq!(parse_int("1__0"), None);
        assert_eq!(parse_int("x"), None);
        assert_eq!(parse_int("+007"), Some(7));
    }

    #[test]
    fn python_equality() {
        // python3 -c 'print(True == 1, False == 0.0, 1 == 1.0, 2**53 + 1 == float(2**53), "1" == 1, {"a": 1, "b": 2} == {"b": 2, "a": True})'
        // True True True False False True
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(py_eq(&json!(false), &json!(0.0)));
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(!py_eq(&json!(9007199254740993u64), &json!(9007199254740992.0)));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(py_eq(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": true})));
        assert!(!py_eq(&json!([1, 2]), &json!([1])));
        assert!(!py_eq(&json!(null), &json!(false)));
        assert_eq!(type_name(&json!(1.5)), "float");
    }

    #[test]
    fn yamlify_keys() {
        assert_eq!(yamlify_to_other_string("'a b'"), Some("a b".into()));
        assert_eq!(yamlify_to_other_string("plain"), None);
        assert_eq!(yamlify_to_other_string("1"), None);
        assert_eq!(yamlify_to_other_string("|"), None);
    }
}
