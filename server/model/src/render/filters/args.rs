//! What the filters share: Python's binding of a filter's arguments, the argument
//! conversions and the errors Salt's filters raise (`TypeError`, `StrictUndefined`).

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, ErrorKind};
use serde_json::Value as J;

use crate::py::builtins::type_name;
use crate::py::percent::MAX_WIDTH;
use crate::render::convert::to_json;

/// A width argument as a count of characters, refused past [`MAX_WIDTH`].
pub(super) fn width_of(n: i64) -> Result<usize, Error> {
    if n > MAX_WIDTH {
        return Err(invalid("width too big"));
    }
    Ok(n.max(0) as usize)
}

pub(super) fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg.into())
}

/// Salt's `StrictUndefined` raises as soon as a filter converts, iterates or prints it.
pub(super) fn defined(v: &Value) -> Result<(), Error> {
    if v.is_undefined() {
        return Err(Error::from(ErrorKind::UndefinedError));
    }
    Ok(())
}

/// Python's binding of a filter's arguments after the value: positional ones in order, then
/// keyword ones by name (minijinja passes keywords as a trailing [`Kwargs`] value).
pub(super) fn bind(name: &str, args: &[Value], params: &[&str]) -> Result<Vec<Option<Value>>, Error> {
    crate::render::budget::check()?;
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(Kwargs::try_from(last.clone())?)),
        _ => (args, None),
    };
    if positional.len() > params.len() {
        return Err(Error::new(ErrorKind::TooManyArguments, format!("{name}() takes at most {} arguments ({} given)", params.len() + 1, positional.len() + 1)));
    }
    let mut out: Vec<Option<Value>> = positional.iter().cloned().map(Some).collect();
    out.resize(params.len(), None);
    if let Some(kwargs) = kwargs {
        for key in kwargs.args() {
            let Some(i) = params.iter().position(|p| *p == key) else {
                return Err(invalid(format!("{name}() got an unexpected keyword argument '{key}'")));
            };
            if out[i].is_some() {
                return Err(invalid(format!("{name}() got multiple values for argument '{key}'")));
            }
            out[i] = Some(kwargs.peek::<Value>(key)?);
        }
    }
    Ok(out)
}

pub(super) fn required_str(name: &str, param: &str, v: Option<&Value>) -> Result<String, Error> {
    match v {
        Some(v) => Ok(text_of(v)?.to_string()),
        None => Err(Error::new(ErrorKind::MissingArgument, format!("{name}() missing required argument: '{param}'"))),
    }
}

/// A string argument of `re`, with Python's `TypeError` for anything else.
pub(super) fn text_of(v: &Value) -> Result<&str, Error> {
    v.as_str().ok_or_else(|| invalid(format!("expected string or bytes-like object, got '{}'", py_type(v))))
}

pub(super) fn py_type(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::Undefined => "StrictUndefined",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "dict",
        _ => type_name(&to_json(v)),
    }
}

/// A template value as data (`render::convert::to_json`, which mutable lists and dicts go
/// through too). Undefined is an error, as Salt's `StrictUndefined` raises when a filter
/// converts, iterates or prints it.
pub(super) fn data(v: &Value) -> Result<J, Error> {
    crate::render::budget::check()?;
    defined(v)?;
    Ok(to_json(v))
}
