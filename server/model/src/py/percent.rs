//! Python's `%` operator (`str % args`, printf-style formatting, and numeric modulo with
//! Python's floor semantics), over JSON values as templates hand them to us.

use serde_json::Value;

use crate::py::builtins::{float_repr, repr, str_of, type_name};

/// The right operand of `%`: a tuple's items (each one argument), a mapping (`%(key)s`), or
/// any other single value.
pub enum Args<'a> {
    Tuple(&'a [Value]),
    One(&'a Value),
}

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

/// `format % args`, as Python's `str.__mod__`, with Python's `TypeError`/`ValueError` wording.
pub fn format(format: &str, args: Args<'_>) -> Result<String, String> {
    let (items, mapping): (&[Value], _) = match args {
        Args::Tuple(items) => (items, None),
        Args::One(v) => (std::slice::from_ref(v), v.as_object()),
    };
    let single_mapping = mapping.is_some();
    let mut out = String::new();
    let mut next = 0;
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        // `%(key)`
        let mut key = None;
        if chars.get(i) == Some(&'(') {
            let Some(m) = mapping else { return Err("format requires a mapping".into()) };
            let mut depth = 1;
            let start = i + 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err("incomplete format key".into());
            }
            let name: String = chars[start..i - 1].iter().collect();
            key = Some(m.get(&name).ok_or_else(|| repr(&Value::String(name.clone())))?);
        }
        let mut flags = String::new();
        while let Some(&f) = chars.get(i).filter(|f| matches!(f, '-' | '+' | ' ' | '#' | '0')) {
            flags.push(f);
            i += 1;
        }
        let take_arg = |next: &mut usize| -> Result<&Value, String> {
            let v = items.get(*next).ok_or("not enough arguments for format string")?;
            *next += 1;
            Ok(v)
        };
        let mut width = None;
        if chars.get(i) == Some(&'*') {
            i += 1;
            width = Some(take_arg(&mut next)?.as_i64().ok_or("* wants int")?);
        } else {
            let digits: String = chars[i..].iter().take_while(|d| d.is_ascii_digit()).collect();
            i += digits.len();
            width = digits.parse::<i64>().ok().or(width);
        }
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            if chars.get(i) == Some(&'*') {
                i += 1;
                precision = Some(take_arg(&mut next)?.as_i64().ok_or("* wants int")?.max(0) as usize);
            } else {
                let digits: String = chars[i..].iter().take_while(|d| d.is_ascii_digit()).collect();
                i += digits.len();
                precision = Some(digits.parse::<usize>().unwrap_or(0));
            }
        }
        // Length modifiers are accepted and ignored.
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else { return Err("incomplete format".into()) };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = match key {
            Some(v) => v,
            None if single_mapping => items.first().ok_or("not enough arguments for format string")?,
            None => take_arg(&mut next)?,
        };
        let body = convert(conv, arg, &flags, precision, i - 1)?;
        pad(&mut out, &body, width, &flags, matches!(conv, 'd' | 'i' | 'u' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'x' | 'X' | 'o'));
    }
    if !single_mapping && next < items.len() {
        return Err("not all arguments converted during string formatting".into());
    }
    Ok(out)
}

fn convert(conv: char, arg: &Value, flags: &str, precision: Option<usize>, at: usize) -> Result<String, String> {
    let sign = |neg: bool| {
        if neg {
            "-"
        } else if flags.contains('+') {
            "+"
        } else if flags.contains(' ') {
            " "
        } else {
            ""
        }
    };
    let number = |conv: char| -> Result<f64, String> {
        match arg {
            Value::Bool(b) => Ok(*b as i64 as f64),
            Value::Number(n) => Ok(n.as_f64().unwrap_or(0.0)),
            _ => Err(format!("%{conv} format: a real number is required, not {}", type_name(arg))),
        }
    };
    let integer = |conv: char| -> Result<i128, String> {
        match arg {
            Value::Bool(b) => Ok(*b as i128),
            Value::Number(n) => Ok(n.as_i64().map(i128::from).unwrap_or_else(|| n.as_f64().unwrap_or(0.0).trunc() as i128)),
            _ => Err(match conv {
                'x' | 'X' | 'o' => format!("%{conv} format: an integer is required, not {}", type_name(arg)),
                _ => format!("%{conv} format: a real number is required, not {}", type_name(arg)),
            }),
        }
    };
    Ok(match conv {
        's' => truncate(str_of(arg), precision),
        'r' | 'a' => truncate(repr(arg), precision),
        'd' | 'i' | 'u' => {
            let n = integer(conv)?;
            format!("{}{}", sign(n < 0), n.unsigned_abs())
        }
        'x' | 'X' | 'o' => {
            let n = integer(conv)?;
            let digits = match conv {
                'x' => format!("{:x}", n.unsigned_abs()),
                'X' => format!("{:X}", n.unsigned_abs()),
                _ => format!("{:o}", n.unsigned_abs()),
            };
            let prefix = if flags.contains('#') {
                match conv {
                    'x' => "0x",
                    'X' => "0X",
                    _ => "0o",
                }
            } else {
                ""
            };
            format!("{}{prefix}{digits}", sign(n < 0))
        }
        'f' | 'F' => {
            let f = number(conv)?;
            format!("{}{:.*}", sign(f.is_sign_negative() && f != 0.0), precision.unwrap_or(6), f.abs())
        }
        'e' | 'E' => {
            let f = number(conv)?;
            let s = format!("{:.*e}", precision.unwrap_or(6), f.abs());
            let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
            let e: i32 = e.parse().unwrap_or(0);
            let s = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
            format!("{}{}", sign(f.is_sign_negative() && f != 0.0), if conv == 'E' { s.to_uppercase() } else { s })
        }
        'g' | 'G' => {
            let f = number(conv)?;
            let s = float_repr(f.abs());
            let s = s.strip_suffix(".0").map(str::to_string).unwrap_or(s);
            format!("{}{}", sign(f.is_sign_negative() && f != 0.0), if conv == 'G' { s.to_uppercase() } else { s })
        }
        'c' => match arg {
            Value::String(s) if s.chars().count() == 1 => s.clone(),
            Value::Number(n) => n.as_u64().and_then(|n| char::from_u32(n as u32)).map(String::from).ok_or("%c arg not in range(0x110000)")?,
            _ => return Err("%c requires int or char".into()),
        },
        other => return Err(format!("unsupported format character '{other}' (0x{:x}) at index {at}", other as u32)),
    })
}

fn truncate(s: String, precision: Option<usize>) -> String {
    match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s,
    }
}

fn pad(out: &mut String, body: &str, width: Option<i64>, flags: &str, numeric: bool) {
    let len = body.chars().count();
    let width = width.unwrap_or(0);
    let left = flags.contains('-') || width < 0;
    let width = width.unsigned_abs() as usize;
    if len >= width {
        out.push_str(body);
    } else if left {
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', width - len));
    } else if numeric && flags.contains('0') {
        // Zeros go after the sign and any `0x` prefix.
        let sign_len = body.chars().take_while(|c| matches!(c, '-' | '+' | ' ')).count();
        let prefix_len = if body[sign_len..].starts_with("0x") || body[sign_len..].starts_with("0X") || body[sign_len..].starts_with("0o") { 2 } else { 0 };
        let (head, tail) = body.split_at(sign_len + prefix_len);
        out.push_str(head);
        out.extend(std::iter::repeat_n('0', width - len));
        out.push_str(tail);
    } else {
        out.extend(std::iter::repeat_n(' ', width - len));
        out.push_str(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(fmt: &str, args: Value) -> String {
        let r = match &args {
            Value::Array(items) => format(fmt, Args::Tuple(items)),
            v => format(fmt, Args::One(v)),
        };
        r.unwrap_or_else(|e| format!("TypeError: {e}"))
    }

    #[test]
    fn printf_formatting_as_python() {
        let out = [
            f("/home/%s", json!(["ß💣"])),
            f("%s-%d-%05.1f|%-4s|%4s|%x|%#o|%%|%r", json!(["a", 7, 3.12, "l", "r", 255, 8, "q"])),
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
                "a-7-003.1|l   |   r|ff|0o10|%|'q'",
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
