//! Scalars as PyYAML 1.1 resolves them (`yes` is true, `0755` is 755, `1e3` a string, tags),
//! Python's `str()` of a value, and the key two values equal to Python share.

use saphyr_parser::ScalarStyle;

use super::tree::Value;

/// A string equal for keys Python considers equal (`1`, `1.0` and `True` are one key).
pub fn canonical_key(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::Bool(b) => format!("n:{}", *b as i64 as f64),
        Value::Int(i) => format!("n:{}", *i as f64),
        Value::Float(f) => format!("n:{f}"),
        Value::Str(s) => format!("s:{s}"),
        Value::Seq(_) | Value::Map(_) => "unhashable".into(),
    }
}

/// Salt's error for a tag on a collection it cannot construct (`None`: the tag fits).
/// `!!set` and `!!pairs` build a Python set and a list of tuples, which [`Value`] has not: they
/// load as the mapping and the sequence they are written as.
pub(super) fn collection_tag_error(tag: &str, kind: &str) -> Option<String> {
    if tag == "!" {
        return None;
    }
    let suffix = tag.strip_prefix("tag:yaml.org,2002:").or_else(|| tag.strip_prefix("!!"));
    let want = match suffix {
        Some("map" | "omap" | "set") => "mapping",
        Some("seq") => "sequence",
        Some("pairs") => return (kind != "sequence").then(|| format!("expected a sequence, but found {kind}")),
        Some("str" | "int" | "float" | "bool" | "null" | "timestamp" | "binary" | "python/unicode" | "value" | "merge") => "scalar",
        _ => return Some(format!("could not determine a constructor for the tag '{}'", full_tag(tag))),
    };
    (want != kind).then(|| format!("expected a {want} node, but found {kind}"))
}

/// A tag as PyYAML names it in messages (`!!x` is `tag:yaml.org,2002:x`).
pub(super) fn full_tag(tag: &str) -> String {
    match tag.strip_prefix("!!") {
        Some(suffix) => format!("tag:yaml.org,2002:{suffix}"),
        None => tag.to_string(),
    }
}

/// Python's `str()` of a scalar, for messages.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => py_float(*f),
        Value::Str(s) => s.clone(),
        Value::Seq(_) | Value::Map(_) => "<collection>".into(),
    }
}

/// Python's `repr(float)`.
pub fn py_float(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if f == f.trunc() && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

pub(super) fn resolve_scalar(text: &str, style: ScalarStyle, tag: Option<&str>) -> Result<Value, String> {
    // The non-specific tag `!`: libyaml's loader resolves the scalar as if it were plain,
    // whatever its style (`! '7'` is the int 7).
    if tag == Some("!") {
        // Python's `$` in the resolvers' patterns also matches before a last line break, and
        // the constructors get the text with it: `int()` and `float()` skip it, the bool
        // constructor's lookup fails.
        let Some(body) = text.strip_suffix('\n') else {
            return Ok(resolve_plain(text));
        };
        return match resolve_plain(body) {
            Value::Str(_) => Ok(Value::Str(text.to_string())),
            Value::Bool(_) => Err(format!("KeyError: '{}\\n'", body.to_lowercase())),
            other => Ok(other),
        };
    }
    if let Some(tag) = tag {
        return resolve_tagged(text, tag);
    }
    if style != ScalarStyle::Plain {
        return Ok(Value::Str(text.to_string()));
    }
    Ok(resolve_plain(text))
}

pub(super) fn resolve_tagged(text: &str, tag: &str) -> Result<Value, String> {
    let suffix = tag.strip_prefix("tag:yaml.org,2002:").or_else(|| tag.strip_prefix("!!"));
    match suffix {
        // Salt registers `!!python/unicode` (its old dumps of `unicode` values).
        Some("str" | "python/unicode") => Ok(Value::Str(text.to_string())),
        Some("int") => parse_int(text).map(Value::Int).ok_or_else(|| format!("invalid literal for int(): '{text}'")),
        Some("float") => parse_float(text).map(Value::Float).ok_or_else(|| format!("could not convert string to float: '{text}'")),
        Some("bool") => parse_bool(text).map(Value::Bool).ok_or_else(|| format!("invalid boolean '{text}'")),
        Some("null") => Ok(Value::Null),
        // Salt keeps timestamps as strings; binary and others are rare in SLS files.
        Some("timestamp") => Ok(Value::Str(text.to_string())),
        // Kept as its text (`Value` has no bytes), once PyYAML would decode it.
        Some("binary") => check_base64(text).map(|()| Value::Str(text.to_string())),
        Some("map" | "omap" | "set") => Err("expected a mapping node, but found scalar".to_string()),
        Some("seq") => Err("expected a sequence node, but found scalar".to_string()),
        _ => Err(format!("could not determine a constructor for the tag '{}'", full_tag(tag))),
    }
}

/// Salt's `!!binary` constructor: ASCII, `=` added up to a multiple of 4 bytes (counting every
/// byte), then Python's lenient `base64.decodebytes` (characters outside the alphabet
/// skipped, a complete padding ends the data).
pub(super) fn check_base64(text: &str) -> Result<(), String> {
    if let Some((i, c)) = text.chars().enumerate().find(|&(_, c)| !c.is_ascii()) {
        let shown = if (c as u32) < 0x100 {
            format!("\\x{:02x}", c as u32)
        } else if (c as u32) < 0x10000 {
            format!("\\u{:04x}", c as u32)
        } else {
            format!("\\U{:08x}", c as u32)
        };
        return Err(format!(
            "failed to convert base64 data into ascii: 'ascii' codec can't encode character '{shown}' in position {i}: ordinal not in range(128)"
        ));
    }
    let (mut quad, mut pads, mut decoded) = (0usize, 0usize, 0usize);
    let padding = (4 - text.len() % 4) % 4;
    for b in text.bytes().chain(std::iter::repeat_n(b'=', padding)) {
        if b == b'=' {
            pads += 1;
            if quad >= 2 && quad + pads >= 4 {
                return Ok(());
            }
            continue;
        }
        if !(b.is_ascii_alphanumeric() || b == b'+' || b == b'/') {
            continue;
        }
        pads = 0;
        if quad > 0 {
            decoded += 1;
        }
        quad = (quad + 1) % 4;
    }
    match quad {
        0 => Ok(()),
        1 => Err(format!(
            "failed to decode base64 data: Invalid base64-encoded string: number of data characters ({}) cannot be 1 more than a multiple of 4",
            decoded / 3 * 4 + 1
        )),
        _ => Err("failed to decode base64 data: Incorrect padding".to_string()),
    }
}

/// PyYAML's implicit resolvers for plain scalars (YAML 1.1).
pub(super) fn resolve_plain(text: &str) -> Value {
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Value::Null;
    }
    if let Some(b) = parse_bool(text) {
        return Value::Bool(b);
    }
    if is_int(text) {
        if let Some(i) = parse_int(text) {
            return Value::Int(i);
        }
    }
    if is_float(text) {
        if let Some(f) = parse_float(text) {
            return Value::Float(f);
        }
    }
    Value::Str(text.to_string())
}

pub(super) fn parse_bool(t: &str) -> Option<bool> {
    match t {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// `[-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+ | [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+`
pub(super) fn is_int(t: &str) -> bool {
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    if let Some(b) = body.strip_prefix("0b") {
        return !b.is_empty() && b.chars().all(|c| matches!(c, '0' | '1' | '_'));
    }
    if let Some(x) = body.strip_prefix("0x") {
        return !x.is_empty() && x.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
    }
    if body == "0" {
        return true;
    }
    if let Some(o) = body.strip_prefix('0') {
        return !o.is_empty() && o.chars().all(|c| matches!(c, '0'..='7' | '_'));
    }
    let mut parts = body.split(':');
    let first = parts.next().unwrap_or("");
    let first_ok = first.starts_with(|c: char| matches!(c, '1'..='9')) && first.chars().all(|c| c.is_ascii_digit() || c == '_');
    if !first_ok {
        return false;
    }
    parts.all(is_sexagesimal_part)
}

pub(super) fn is_sexagesimal_part(p: &str) -> bool {
    let b = p.as_bytes();
    match b.len() {
        1 => b[0].is_ascii_digit(),
        2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
        _ => false,
    }
}

/// PyYAML's `construct_yaml_int`, after Salt's leading-zero strip (an unsigned value
/// starting with `0` that is not `0b`/`0x` loses its zeros and is read as decimal).
pub(super) fn parse_int(t: &str) -> Option<i64> {
    let mut v = t.replace('_', "");
    if v != "0" && v.starts_with('0') && !v.starts_with("0b") && !v.starts_with("0x") {
        v = v.trim_start_matches('0').to_string();
        if v.is_empty() {
            v = "0".into();
        }
    }
    let (sign, body) = match v.strip_prefix('-') {
        Some(rest) => (-1i64, rest.to_string()),
        None => (1, v.strip_prefix('+').unwrap_or(&v).to_string()),
    };
    // Python's `int()` skips blanks around the digits (`!!int ' 7'`, a `0` Salt strips).
    let n = if body == "0" {
        0
    } else if let Some(b) = body.strip_prefix("0b") {
        i64::from_str_radix(b.trim(), 2).ok()?
    } else if let Some(x) = body.strip_prefix("0x") {
        i64::from_str_radix(x.trim(), 16).ok()?
    } else if body.starts_with('0') {
        i64::from_str_radix(body.trim(), 8).ok()?
    } else if body.contains(':') {
        let mut n: i64 = 0;
        for part in body.split(':') {
            n = n.checked_mul(60)?.checked_add(part.trim().parse::<i64>().ok()?)?;
        }
        n
    } else {
        body.trim().parse::<i64>().ok()?
    };
    n.checked_mul(sign)
}

/// `[-+]?([0-9][0-9_]*)\.[0-9_]*([eE][-+][0-9]+)? | \.[0-9][0-9_]*([eE][-+][0-9]+)?
///  | [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN)`
pub(super) fn is_float(t: &str) -> bool {
    if matches!(t, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let signed = t.starts_with(['-', '+']);
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    if let Some(e) = exp {
        let digits = match e.strip_prefix(['-', '+']) {
            Some(d) => d,
            None => return false,
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return false;
        }
    }
    let Some(dot) = mantissa.find('.') else { return false };
    let (int_part, frac) = (&mantissa[..dot], &mantissa[dot + 1..]);
    if !frac.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    if int_part.is_empty() {
        // `\.[0-9][0-9_]*`, unsigned only.
        return !signed && frac.starts_with(|c: char| c.is_ascii_digit());
    }
    if int_part.contains(':') {
        if exp.is_some() {
            return false;
        }
        let mut parts = int_part.split(':');
        let first = parts.next().unwrap_or("");
        return first.starts_with(|c: char| c.is_ascii_digit()) && first.chars().all(|c| c.is_ascii_digit() || c == '_') && parts.all(is_sexagesimal_part);
    }
    int_part.starts_with(|c: char| c.is_ascii_digit()) && int_part.chars().all(|c| c.is_ascii_digit() || c == '_')
}

pub(super) fn parse_float(t: &str) -> Option<f64> {
    let v = t.replace('_', "").to_lowercase();
    let (sign, body) = match v.strip_prefix('-') {
        Some(rest) => (-1.0, rest.to_string()),
        None => (1.0, v.strip_prefix('+').unwrap_or(&v).to_string()),
    };
    if body == ".inf" {
        return Some(sign * f64::INFINITY);
    }
    if body == ".nan" {
        return Some(f64::NAN);
    }
    // Python's `float()` skips blanks around the number (`!!float '1\t'`).
    if body.contains(':') {
        let mut n = 0.0;
        for part in body.split(':') {
            n = n * 60.0 + part.trim().parse::<f64>().ok()?;
        }
        return Some(sign * n);
    }
    body.trim().parse::<f64>().ok().map(|f| sign * f)
}
