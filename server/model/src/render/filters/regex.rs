//! The regular-expression filters of `salt/utils/jinja.py` (`regex_replace`, `regex_search`,
//! `regex_match`, `regex_escape`), with Python's `re`.

use super::args::{bind, invalid, required_str, text_of};
use crate::py::re::{PySearch, IGNORECASE, MULTILINE};
use minijinja::value::{Rest, Value};
use minijinja::{Environment, Error};

pub(super) fn register(env: &mut Environment<'_>) {
    // Regular expressions, with Python's `re` (`salt/utils/jinja.py`).
    env.add_filter("regex_replace", |txt: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("regex_replace", &args, &["rgx", "val", "ignorecase", "multiline"])?;
        let re = compile("regex_replace", &a, 2)?;
        let repl = required_str("regex_replace", "val", a[1].as_ref())?;
        re.sub(&repl, text_of(&txt)?).map(Value::from).map_err(invalid)
    });
    env.add_filter("regex_search", |txt: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("regex_search", &args, &["rgx", "ignorecase", "multiline"])?;
        let re = compile("regex_search", &a, 1)?;
        let text = text_of(&txt)?;
        Ok(match_groups(&re, text, re.search(text, 0).map_err(invalid)?))
    });
    env.add_filter("regex_match", |txt: Value, args: Rest<Value>| -> Result<Value, Error> {
        let a = bind("regex_match", &args, &["rgx", "ignorecase", "multiline"])?;
        let re = compile("regex_match", &a, 1)?;
        let text = text_of(&txt)?;
        Ok(match_groups(&re, text, re.match_start(text).map_err(invalid)?))
    });
    env.add_filter("regex_escape", |txt: Value| -> Result<Value, Error> { Ok(Value::from(re_escape(text_of(&txt)?))) });
}

/// `re.compile(rgx, flags)` from the bound `rgx`, `ignorecase`, `multiline` (`flag_at` is the
/// index of `ignorecase`).
pub(super) fn compile(name: &str, a: &[Option<Value>], flag_at: usize) -> Result<PySearch, Error> {
    let rgx = required_str(name, "rgx", a[0].as_ref())?;
    let mut flags = 0;
    if a[flag_at].as_ref().is_some_and(Value::is_true) {
        flags |= IGNORECASE;
    }
    if a[flag_at + 1].as_ref().is_some_and(Value::is_true) {
        flags |= MULTILINE;
    }
    PySearch::compile(&rgx, flags).map_err(invalid)
}

/// `regex_search` / `regex_match`'s answer: `None` without a match, else `obj.groups()`, or
/// `(obj.group(),)` for a pattern without groups. Python's tuple is a list here.
fn match_groups(re: &PySearch, text: &str, groups: Option<crate::py::re::Groups>) -> Value {
    let Some(groups) = groups else { return Value::from(()) };
    let wanted: Vec<_> = if re.groups() == 0 { groups[..1].to_vec() } else { groups[1..].to_vec() };
    Value::from(wanted.into_iter().map(|g| g.map_or(Value::from(()), |r| Value::from(&text[r]))).collect::<Vec<_>>())
}

/// `re.escape` (Python 3.7+): a backslash before each of `()[]{}?*+-|^$\.&~#`, space and the
/// whitespace controls.
fn re_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Data.
