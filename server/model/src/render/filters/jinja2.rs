//! The Jinja2 builtin filters (`jinja2/filters.py`) whose minijinja versions print or convert
//! differently in ways a formula sees, answered as Jinja2 under Salt 3008 answers them.

use super::args::{bind, data, defined, invalid, py_type, width_of};
use super::data::py_float;
use crate::py::builtins::{is_py_space, py_cmp, str_of};
use crate::render::mutable::from_json;
use minijinja::value::{Rest, Value, ValueKind};
use minijinja::{Environment, Error, State};
use serde_json::Value as J;

pub(super) fn register(env: &mut Environment<'_>) {
    // Jinja2 builtins minijinja answers differently.
    env.add_filter("indent", indent);
    env.add_filter("default", default);
    env.add_filter("d", default);
    env.add_filter("join", join);
    env.add_filter("int", int);
    env.add_filter("float", float);
    env.add_filter("string", |v: Value| -> Result<Value, Error> {
        defined(&v)?;
        Ok(if v.kind() == ValueKind::String { v } else { Value::from(crate::render::mutable::py_str(&v)) })
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
    env.add_filter("sort", sort);
    // `do_items`: the `(key, value)` tuples of a mapping, as an iterator (printed as a list here).
    // Undefined (strict too) gives nothing.
    env.add_filter("items", |v: Value| -> Result<Value, Error> {
        if v.is_undefined() {
            return Ok(Value::from(Vec::<Value>::new()));
        }
        if v.kind() != ValueKind::Map {
            return Err(invalid("Can only get item pairs from a mapping."));
        }
        let pairs: Vec<Value> = v.try_iter()?.map(|k| Ok(crate::render::mutable::tuple(vec![k.clone(), v.get_item(&k)?]))).collect::<Result<_, Error>>()?;
        Ok(Value::from(pairs))
    });
    env.add_filter("filesizeformat", filesizeformat);
}

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
        ValueKind::String | ValueKind::None | ValueKind::Bool | ValueKind::Number => return Ok(Value::from(quote(&crate::render::mutable::py_str(&v), false))),
        ValueKind::Map => v.try_iter()?.map(|k| Ok((k.clone(), v.get_item(&k)?))).collect::<Result<_, Error>>()?,
        _ => v.try_iter()?.map(|pair| Ok((pair.get_item(&Value::from(0))?, pair.get_item(&Value::from(1))?))).collect::<Result<_, Error>>()?,
    };
    let parts: Vec<String> =
        pairs.iter().map(|(k, x)| format!("{}={}", quote(&crate::render::mutable::py_str(k), true), quote(&crate::render::mutable::py_str(x), true))).collect();
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
        let key = crate::render::mutable::py_str(&k);
        if key.chars().any(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}' | '/' | '>' | '=')) {
            return Err(invalid(format!("Invalid character in attribute name: {}", crate::py::builtins::repr_str(&key))));
        }
        items.push(format!("{}=\"{}\"", escape(&key), escape(&crate::render::mutable::py_str(&x))));
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
pub(super) fn default(value: Value, args: Rest<Value>) -> Result<Value, Error> {
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
                crate::render::mutable::py_str(&item)
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
pub(super) fn int(value: Value, args: Rest<Value>) -> Result<Value, Error> {
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
pub(super) fn py_int_base(s: &str, base: u32) -> Option<i128> {
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
pub(super) fn float(value: Value, args: Rest<Value>) -> Result<Value, Error> {
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
    let key = |pair: &(J, J)| ignore_case(if pos == 0 { &pair.0 } else { &pair.1 }.clone(), case_sensitive);
    let mut keyed: Vec<(J, (J, J))> = d.into_iter().map(|(k, v)| (J::String(k), v)).map(|p| (key(&p), p)).collect();
    py_sorted(&mut keyed, reverse)?;
    // A list of `(key, value)` tuples.
    Ok(Value::from(keyed.into_iter().map(|(_, (k, v))| crate::render::mutable::tuple(vec![from_json(&k), from_json(&v)])).collect::<Vec<_>>()))
}

/// `do_sort(value, reverse=False, case_sensitive=False, attribute=None)`: `sorted(value,
/// key=..., reverse=reverse)`, the key the item (or its attributes, `a.b,c` a tuple of
/// them, `0` an index), strings lowercased as Python's `str.lower` does unless
/// `case_sensitive` (minijinja folds `ß` to `ss`; Python keeps it, and sorts by code point).
fn sort(value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let a = bind("sort", &args, &["reverse", "case_sensitive", "attribute"])?;
    let reverse = a[0].as_ref().is_some_and(Value::is_true);
    let case_sensitive = a[1].as_ref().is_some_and(Value::is_true);
    let attribute = a[2].as_ref().filter(|v| !v.is_none() && !v.is_undefined()).map(|v| v.to_string());
    let items: Vec<Value> = value.try_iter().map_err(|_| invalid(format!("'{}' object is not iterable", py_type(&value))))?.collect();
    let lower = |k: J| ignore_case(k, case_sensitive);
    // Jinja2's `make_multi_attrgetter`: each comma-separated part a dotted path, a digit a
    // list index.
    let path = |item: &J, dotted: &str| -> Option<J> {
        dotted.split('.').try_fold(item.clone(), |cur, part| match (&cur, part.parse::<usize>()) {
            (J::Array(xs), Ok(i)) => xs.get(i).cloned(),
            (J::Object(m), _) => m.get(part).cloned(),
            _ => None,
        })
    };
    let mut keyed = Vec::with_capacity(items.len());
    for item in items {
        let d = data(&item)?;
        let key = match &attribute {
            None => lower(d),
            Some(attr) => {
                let parts: Vec<&str> = attr.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
                let mut keys = Vec::with_capacity(parts.len());
                for p in &parts {
                    let k = path(&d, p).ok_or_else(|| invalid(format!("'<' not supported between instances of 'Undefined' and '{}'", py_type(&item))))?;
                    keys.push(lower(k));
                }
                if parts.len() == 1 {
                    keys.pop().unwrap_or(J::Null)
                } else {
                    J::Array(keys)
                }
            }
        };
        keyed.push((key, item));
    }
    py_sorted(&mut keyed, reverse)?;
    Ok(Value::from(keyed.into_iter().map(|(_, item)| item).collect::<Vec<_>>()))
}

/// Jinja2's `ignore_case` key step: a string lowercased as Python's `str.lower` does (unless
/// `case_sensitive`), anything else as it is.
fn ignore_case(key: J, case_sensitive: bool) -> J {
    match key {
        J::String(s) if !case_sensitive => J::String(s.to_lowercase()),
        other => other,
    }
}

/// `sorted(..., key=..., reverse=reverse)` over `(key, item)` pairs: Python's comparison of the
/// keys (its TypeError for keys it cannot order), stable, and with `reverse` equal items keep
/// their order, as Python's does.
fn py_sorted<T>(keyed: &mut [(J, T)], reverse: bool) -> Result<(), Error> {
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
    err.map_or(Ok(()), |e| Err(invalid(e)))
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
