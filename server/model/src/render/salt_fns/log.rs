//! `salt/modules/logmod.py`: each logs its message and returns True.

use super::args::Sig;
use super::common::Functions;
use minijinja::value::Value as JValue;
use minijinja::Error;

/// Calls `log.<name>` (the whole name, `log.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let a = |sig: &Sig| sig.bind(args);
    match name {
        // `salt/modules/logmod.py`: each logs its message and returns True.
        "log.debug" | "log.info" | "log.warning" | "log.error" | "log.critical" | "log.exception" => {
            let fname = name.trim_start_matches("log.");
            let fname = ["debug", "info", "warning", "error", "critical", "exception"].into_iter().find(|n| *n == fname).unwrap_or("debug");
            a(&Sig::new(fname, &["message"], 1))?;
            Ok(JValue::from(true))
        }
        _ => Ok(f.inert(name)),
    }
}
