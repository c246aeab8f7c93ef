//! Jinja tests: Salt's (`test_match`, `test_equalto` in `salt/utils/jinja.py`, and `list`), and
//! the Jinja2 builtins (`jinja2/tests.py`) minijinja answers differently.

use super::args::{bind, data, invalid, text_of};
use super::regex::compile;
use crate::py::builtins::py_eq;
use minijinja::value::{Rest, Value, ValueKind};
use minijinja::{Environment, Error};

pub(super) fn register(env: &mut Environment<'_>) {
    // Tests: Salt's (`salt/utils/jinja.py` `test_match`, `test_equalto`) and `list`, which
    // `render_jinja_tmpl` sets to `salt.utils.data.is_list`.
    env.add_test("equalto", |v: Value, other: Value| -> Result<bool, Error> { Ok(py_eq(&data(&v)?, &data(&other)?)) });
    env.add_test("match", |txt: Value, args: Rest<Value>| -> Result<bool, Error> {
        let a = bind("match", &args, &["rgx", "ignorecase", "multiline"])?;
        let re = compile("match", &a, 1)?;
        Ok(re.match_start(text_of(&txt)?).map_err(invalid)?.is_some())
    });
    env.add_test("list", |v: Value| v.kind() == ValueKind::Seq && !crate::render::mutable::is_tuple(&v));
    env.add_test("callable", |v: Value| v.kind() == ValueKind::Plain);
    // `jinja2/tests.py`: a bool is a number; strings and dicts are sequences; None is not
    // iterable.
    env.add_test("number", |v: Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool));
    env.add_test("sequence", |v: Value| matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map));
    env.add_test("iterable", |v: Value| matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Iterable));
    env.add_test("divisibleby", |v: Value, n: Value| -> Result<bool, Error> {
        match (i64::try_from(v), i64::try_from(n)) {
            (Ok(_), Ok(0)) => Err(invalid("integer division or modulo by zero")),
            (Ok(a), Ok(b)) => Ok(a.rem_euclid(b) == 0),
            _ => Err(invalid("divisibleby needs numbers")),
        }
    });
}
