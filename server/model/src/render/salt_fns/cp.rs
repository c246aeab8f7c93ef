//! `salt/modules/cp.py`: `list_states`, answered from the file roots' listing (a read of the
//! compile, so a created or deleted SLS file re-renders what asked).

use super::args::Sig;
use super::common::{string, Functions};
use crate::render::mutable::from_json;
use minijinja::value::Value as JValue;
use minijinja::Error;

/// Calls `cp.<name>` (the whole name, `cp.list_states`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    match (name, &f.ctx.list_states) {
        // `cp.list_states(saltenv=None)`: `saltenv or opts['saltenv'] or 'base'`, then the file
        // client's `list_states`: every `.sls` file as an SLS name (`a/init.sls` is `a`), sorted.
        ("cp.list_states", Some(list)) => {
            let b = Sig::new("list_states", &["saltenv"], 0).bind(args)?;
            let env = match b.opt(0).filter(JValue::is_true) {
                Some(v) => string(&v)?,
                None => f.ctx.opts.get("saltenv").and_then(|v| v.as_str()).filter(|s| !s.is_empty()).unwrap_or("base").to_string(),
            };
            Ok(from_json(&serde_json::Value::from(list(&env))))
        }
        _ => Ok(f.inert(name)),
    }
}
