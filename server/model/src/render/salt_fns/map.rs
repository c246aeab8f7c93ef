//! saltext-formula's `map.data`, answered by the mapstack model the pipeline passes in.

use super::args::Sig;
use super::common::{raised, Functions};
use crate::render::mutable::from_json;
use minijinja::value::Value as JValue;
use minijinja::Error;

/// Calls `map.<name>` (the whole name, `map.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let ctx = f.ctx;
    let a = |sig: &Sig| sig.bind(args);
    match name {
        // saltext-formula's `map.data(tpldir, sources=None, ...)`: only the default arguments
        // are modelled.
        "map.data" => {
            let b = a(&Sig::new(
                "data",
                &[
                    "tpldir",
                    "sources",
                    "parameter_dirs",
                    "config_get_strategy",
                    "default_merge_strategy",
                    "default_merge_lists",
                    "post_map",
                    "post_map_template",
                    "cache",
                    "custom_data",
                ],
                1,
            ))?;
            match (&ctx.map_data, (1..10).all(|i| b.get(i).is_none())) {
                (Some(map_data), true) => {
                    let (values, notes) = map_data(&b.string(0)?).map_err(raised)?;
                    notes.into_iter().for_each(|n| f.hint(n));
                    Ok(from_json(&values))
                }
                _ => Ok(f.inert(name)),
            }
        }
        _ => Ok(f.inert(name)),
    }
}
