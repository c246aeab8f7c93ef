//! `salt/modules/test.py`: `ping`, `true_`, `false_` and `echo`.

use super::args::Sig;
use super::common::Functions;
use minijinja::value::Value as JValue;
use minijinja::Error;

/// Calls `test.<name>` (the whole name, `test.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let a = |sig: &Sig| sig.bind(args);
    match name {
        // `salt/modules/test.py:ping`: True on a minion that is not a proxy.
        "test.ping" => {
            a(&Sig::new("ping", &[], 0))?;
            Ok(JValue::from(true))
        }
        // `test.true_` and `test.false_`, aliased `true` and `false`.
        "test.true" | "test.false" => {
            a(&Sig::new(if name == "test.true" { "true_" } else { "false_" }, &[], 0))?;
            Ok(JValue::from(name == "test.true"))
        }
        // `test.echo(text)`: `text`, as given.
        "test.echo" => Ok(a(&Sig::new("echo", &["text"], 1))?.req(0)),
        _ => Ok(f.inert(name)),
    }
}
