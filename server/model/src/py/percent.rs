//! Python's `%` operator (`str % args`, printf-style formatting as `PyUnicode_Format` does it,
//! and numeric modulo with Python's floor semantics), over JSON values as templates hand them to
//! us; Jinja's `format` filter uses the same formatting.

use serde_json::Value;
use serde_json::Value as J;

/// The widest padding, indentation or precision a template may ask for (a million
/// characters): more is refused rather than allocated.
pub const MAX_WIDTH: i64 = 1 << 20;

use crate::py::builtins::{repr, str_of, type_name};

/// `left % right` for two numbers: Python's modulo (the result has the divisor's sign).
pub fn modulo(left: &Value, right: &Value) -> Result<Value, String> {
    let num = |v: &Value| match v {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    let int = |v: &Value| match v {
        Value::Bool(b) => Some(*b as i64),
        Value::Number(n) => n.as_i64(),
        _ => None,
    };
    if let (Some(a), Some(b)) = (int(left), int(right)) {
        if b == 0 {
            return Err("integer division or modulo by zero".into());
        }
        let r = a.checked_rem_euclid(b).unwrap_or(0);
        return Ok(Value::from(if b < 0 && r != 0 { r + b } else { r }));
    }
    match (num(left), num(right)) {
        (Some(_), Some(0.0)) => Err("float modulo".into()),
        (Some(a), Some(b)) => {
            let r = a % b;
            let r = if r != 0.0 && (r < 0.0) != (b < 0.0) { r + b } else { r };
            Ok(serde_json::Number::from_f64(r).map(Value::Number).unwrap_or(Value::Null))
        }
        _ => Err(format!("unsupported operand type(s) for %: '{}' and '{}'", type_name(left), type_name(right))),
    }
}

/// `str % args` (`Objects/unicodeobject.c` `PyUnicode_Format`).
pub fn printf(fmt: &str, args: &[J], mapping: Option<&J>) -> Result<String, String> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut next = 0;
    let take = |next: &mut usize| -> Result<J, String> {
        if let Some(m) = mapping {
            return Ok(m.clone());
        }
        let v = args.get(*next).cloned().ok_or("not enough arguments for format string")?;
        *next += 1;
        Ok(v)
    };
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut keyed = None;
        if chars.get(i) == Some(&'(') {
            let Some(m) = mapping else { return Err("format requires a mapping".into()) };
            let (mut depth, start) = (1, i + 1);
            while depth > 0 {
                i += 1;
                match chars.get(i) {
                    Some('(') => depth += 1,
                    Some(')') => depth -= 1,
                    Some(_) => {}
                    None => return Err("incomplete format key".into()),
                }
            }
            let key: String = chars[start..i].iter().collect();
            i += 1;
            let found = m.as_object().and_then(|d| d.get(&key)).cloned();
            keyed = Some(found.ok_or_else(|| format!("'{key}'"))?);
        }
        let (mut left, mut zero, mut plus, mut space, mut alt) = (false, false, false, false, false);
        while let Some(&c) = chars.get(i) {
            match c {
                '-' => left = true,
                '0' => zero = true,
                '+' => plus = true,
                ' ' => space = true,
                '#' => alt = true,
                _ => break,
            }
            i += 1;
        }
        let number = |i: &mut usize, next: &mut usize| -> Result<Option<i64>, String> {
            if chars.get(*i) == Some(&'*') {
                *i += 1;
                return match take(next)? {
                    J::Number(n) if !n.is_f64() => Ok(n.as_i64()),
                    _ => Err("* wants int".into()),
                };
            }
            let start = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            Ok((*i > start).then(|| chars[start..*i].iter().collect::<String>().parse().unwrap_or(i64::MAX)))
        };
        let mut width = number(&mut i, &mut next)?;
        if width.is_some_and(|w| w < 0) {
            left = true;
            width = width.map(|w| w.saturating_abs());
        }
        if width.is_some_and(|w| w > MAX_WIDTH) {
            return Err("width too big".into());
        }
        let precision = if chars.get(i) == Some(&'.') {
            i += 1;
            let p = number(&mut i, &mut next)?.unwrap_or(0);
            if p > MAX_WIDTH {
                return Err("precision too big".into());
            }
            Some(p.max(0) as usize)
        } else {
            None
        };
        while chars.get(i).is_some_and(|c| matches!(c, 'h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else { return Err("incomplete format".into()) };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = match keyed.take() {
            Some(v) => v,
            None => take(&mut next)?,
        };
        let (sign, body) = convert(conv, &arg, precision, alt, i - 1)?;
        let numeric = !matches!(conv, 's' | 'r' | 'a' | 'c');
        let sign = match sign {
            Some(s) => s,
            None if numeric && plus => "+",
            None if numeric && space => " ",
            None => "",
        };
        let len = sign.chars().count() + body.chars().count();
        let pad = (width.unwrap_or(0).max(0) as usize).saturating_sub(len);
        if left {
            out.push_str(sign);
            out.push_str(&body);
            out.push_str(&" ".repeat(pad));
        } else if zero && numeric {
            // Zeros go after the sign and any `0x`/`0o` prefix.
            let prefix_len = if alt && matches!(conv, 'x' | 'X' | 'o') { 2 } else { 0 };
            out.push_str(sign);
            out.push_str(&body[..prefix_len]);
            out.push_str(&"0".repeat(pad));
            out.push_str(&body[prefix_len..]);
        } else {
            out.push_str(&" ".repeat(pad));
            out.push_str(sign);
            out.push_str(&body);
        }
    }
    if mapping.is_none() && next < args.len() {
        return Err("not all arguments converted during string formatting".into());
    }
    Ok(out)
}

/// One conversion: the sign (`Some("-")` for a negative number) and the digits or text.
fn convert(conv: char, arg: &J, precision: Option<usize>, alt: bool, index: usize) -> Result<(Option<&'static str>, String), String> {
    let int = match arg {
        J::Number(n) if !n.is_f64() => n.as_i64(),
        J::Bool(b) => Some(*b as i64),
        _ => None,
    };
    let number = |what: &str| -> Result<f64, String> {
        match arg {
            J::Number(n) => Ok(n.as_f64().unwrap_or(0.0)),
            J::Bool(b) => Ok(*b as i64 as f64),
            _ => Err(format!("%{conv} format: {what} is required, not {}", type_name(arg))),
        }
    };
    let signed = |neg: bool, body: String| (neg.then_some("-"), body);
    Ok(match conv {
        's' | 'r' | 'a' => {
            let text = match conv {
                's' => str_of(arg),
                'r' => repr(arg),
                _ => repr(arg).chars().map(|c| if c.is_ascii() { c.to_string() } else { ascii_escape(c) }).collect(),
            };
            (
                None,
                match precision {
                    Some(p) => text.chars().take(p).collect(),
                    None => text,
                },
            )
        }
        'd' | 'i' | 'u' => match int {
            Some(i) => signed(i < 0, i.unsigned_abs().to_string()),
            _ => {
                let f = number("a real number")?;
                if !f.is_finite() {
                    return Err(format!("cannot convert float {} to integer", if f.is_nan() { "NaN" } else { "infinity" }));
                }
                let t = f.trunc();
                signed(t < 0.0, format!("{:.0}", t.abs()))
            }
        },
        'x' | 'X' | 'o' => {
            let Some(i) = int else {
                return Err(format!("%{conv} format: an integer is required, not {}", type_name(arg)));
            };
            let digits = match conv {
                'x' => format!("{:x}", i.unsigned_abs()),
                'X' => format!("{:X}", i.unsigned_abs()),
                _ => format!("{:o}", i.unsigned_abs()),
            };
            let prefix = match (alt, conv) {
                (false, _) => "",
                (true, 'x') => "0x",
                (true, 'X') => "0X",
                _ => "0o",
            };
            signed(i < 0, format!("{prefix}{digits}"))
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let f = number("a real number")?;
            let body = py_float_format(f.abs(), conv.to_ascii_lowercase(), precision.unwrap_or(6), alt);
            let body = if conv.is_ascii_uppercase() { body.to_uppercase() } else { body };
            signed(f.is_sign_negative() && !f.is_nan(), body)
        }
        'c' => match arg {
            J::Number(n) if !n.is_f64() => {
                (None, n.as_u64().and_then(|i| u32::try_from(i).ok()).and_then(char::from_u32).ok_or("%c arg not in range(0x110000)")?.to_string())
            }
            J::String(s) if s.chars().count() == 1 => (None, s.clone()),
            _ => return Err("%c requires int or char".into()),
        },
        other => return Err(format!("unsupported format character '{other}' (0x{:x}) at index {index}", other as u32)),
    })
}

/// `ascii()`'s escape for one non-ASCII character.
fn ascii_escape(c: char) -> String {
    let u = c as u32;
    if u <= 0xff {
        format!("\\x{u:02x}")
    } else if u <= 0xffff {
        format!("\\u{u:04x}")
    } else {
        format!("\\U{u:08x}")
    }
}

/// A non-negative float in `%e`, `%f` or `%g` notation, as Python writes it (`1.5e+03`).
fn py_float_format(f: f64, conv: char, precision: usize, alt: bool) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return "inf".into();
    }
    let exp_form = |p: usize| {
        let s = format!("{f:.p$e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let mantissa = if alt && p == 0 { format!("{mantissa}.") } else { mantissa.to_string() };
        format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    };
    match conv {
        'e' => exp_form(precision),
        'f' => {
            let s = format!("{f:.precision$}");
            if alt && precision == 0 {
                format!("{s}.")
            } else {
                s
            }
        }
        _ => {
            let p = precision.max(1);
            let exp: i32 = if f == 0.0 {
                0
            } else {
                let s = format!("{f:.prec$e}", prec = p - 1);
                s.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0)
            };
            let s = if -4 <= exp && exp < p as i32 { format!("{f:.prec$}", prec = (p as i32 - 1 - exp).max(0) as usize) } else { exp_form(p - 1) };
            if alt {
                return if s.contains('.') { s } else { format!("{s}.") };
            }
            // Without `#`, trailing zeros (and a bare point) go.
            match s.split_once('e') {
                Some((m, e)) if m.contains('.') => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
                None if s.contains('.') => s.trim_end_matches('0').trim_end_matches('.').to_string(),
                _ => s,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(fmt: &str, args: Value) -> String {
        let r = match &args {
            Value::Array(items) => printf(fmt, items, None),
            v @ Value::Object(_) => printf(fmt, &[], Some(v)),
            v => printf(fmt, std::slice::from_ref(v), None),
        };
        r.unwrap_or_else(|e| format!("TypeError: {e}"))
    }

    #[test]
    fn printf_formatting_as_python() {
        let out = [
            f("/home/%s", json!(["ß💣"])),
            f("%s-%d-%05.1f|%-4s|%4s|%x|%#o|%%|%r", json!(["a", 7, 2.75, "l", "r", 255, 8, "q"])),
            f("%s and %s", json!([true, null])),
            f("%s", json!({"a": 1})),
            f("%(name)s is %(age)03d", json!({"name": "ℝ", "age": 5})),
            f("%s %s", json!(["one"])),
            f("%s", json!(["a", "b"])),
            f("%d", json!(["x"])),
            f("%.2s|%+d|% d|%e|%g", json!(["abc", 3, 4, 12345.678, 0.5])),
        ];
        expect_test::expect![[r#"
            [
                "/home/ß💣",
                "a-7-002.8|l   |   r|ff|0o10|%|'q'",
                "True and None",
                "{'a': 1}",
                "ℝ is 005",
                "TypeError: not enough arguments for format string",
                "TypeError: not all arguments converted during string formatting",
                "TypeError: %d format: a real number is required, not str",
                "ab|+3| 4|1.234568e+04|0.5",
            ]
        "#]]
        .assert_debug_eq(&out);
    }

    #[test]
    fn modulo_has_the_divisors_sign() {
        let out: Vec<String> = [(json!(-7), json!(3)), (json!(7), json!(-3)), (json!(7.5), json!(2)), (json!(-1.5), json!(1)), (json!(1), json!(0))]
            .iter()
            .map(|(a, b)| modulo(a, b).map(|v| v.to_string()).unwrap_or_else(|e| e))
            .collect();
        expect_test::expect![[r#"
            [
                "2",
                "-2",
                "1.5",
                "0.5",
                "integer division or modulo by zero",
            ]
        "#]]
        .assert_debug_eq(&out);
    }
}
