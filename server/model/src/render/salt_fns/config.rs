//! `salt/modules/config.py`: `config.get` and `config.option` (the lookup itself is
//! [`crate::render::config_lookup`]).

use super::args::{Bound, Sig};
use super::common::{merge_error, raised, Functions, DELIM};
use crate::py::builtins as py;
use crate::py::builtins::truthy;
use crate::py::data::traverse_dict_and_list;
use crate::py::fnmatch;
use crate::render::config_lookup::{config_defaults, config_locate, config_merged, config_source, ConfigSource, CONFIG_MISSING};
use crate::render::convert::to_json;
use crate::render::mutable::{from_data, from_json};
use minijinja::value::Value as JValue;
use minijinja::Error;
use serde_json::{Map, Value};

/// Calls `config.<name>` (the whole name, `config.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let a = |sig: &Sig| sig.bind(args);
    match name {
        "config.get" => {
            f.config_get(&a(&Sig::new("get", &["key", "default", "delimiter", "merge", "omit_opts", "omit_pillar", "omit_master", "omit_grains"], 1))?)
        }
        "config.option" => f.config_option(&a(&Sig::new(
            "option",
            &["value", "default", "omit_opts", "omit_grains", "omit_pillar", "omit_master", "omit_all", "wildcard"],
            1,
        ))?),
        _ => Ok(f.inert(name)),
    }
}

impl Functions<'_> {
    /// `salt/modules/config.py:get`. Without `merge`, the first of opts, grains, pillar,
    /// `pillar['master']` and the module's `DEFAULTS` that has the key wins. With `merge`
    /// (`recurse` or `overwrite`; anything else is `recurse`), `DEFAULTS`, the master pillar,
    /// the pillar, the grains and the opts are merged in that order (later wins) and the key
    /// is looked up in the result. `merge_lists` is the `pillar_merge_lists` of the master
    /// configuration at `/etc/salt/master`, which a sandbox does not read: false, the default.
    fn config_get(&self, b: &Bound) -> Result<JValue, Error> {
        let key = b.key(0)?;
        let default = b.get(1).unwrap_or_else(|| JValue::from(""));
        let delim = b.str_or(2, DELIM)?;
        let (omit_opts, omit_pillar, omit_master, omit_grains) = (b.truthy(4), b.truthy(5), b.truthy(6), b.truthy(7));
        if delim.is_empty() {
            return Err(raised("empty separator"));
        }
        let ctx = self.ctx;
        let mut from_pillar = false;
        let found = match b.get(3).filter(|v| !v.is_none()) {
            None => config_locate(&ctx.opts, &ctx.grains, &ctx.pillar, &key, &delim, [omit_opts, omit_grains, omit_pillar, omit_master]).and_then(
                |(source, path)| {
                    from_pillar = matches!(source, ConfigSource::Pillar | ConfigSource::Master);
                    config_source(&ctx.opts, &ctx.grains, &ctx.pillar, source, &path)
                },
            ),
            Some(merge) => {
                let data = config_merged(&ctx.opts, &ctx.grains, &ctx.pillar, &py::str_of(&to_json(&merge))).map_err(merge_error)?;
                traverse_dict_and_list(&data, &key, &delim).filter(|v| v.as_str() != Some(CONFIG_MISSING)).cloned()
            }
        };
        Ok(match found {
            // A pillar value's dicts are `OrderedDict`s (see `from_json_ordered`).
            Some(v) if from_pillar && !v.is_string() => from_data(&ctx.pillar, &v),
            Some(v) => self.sdb_get(v),
            None => default,
        })
    }

    /// `salt/utils/sdb.py:sdb_get` as `config.get` calls it: an `sdb://PROFILE/KEY` string whose
    /// profile (in the opts, else the pillar) names a `driver` is a query of that driver, which
    /// is never run; any other value is itself.
    fn sdb_get(&self, v: Value) -> JValue {
        if let Some(uri) = v.as_str().and_then(|s| s.strip_prefix("sdb://")) {
            if let Some((profile, rest)) = uri.split_once('/') {
                let in_opts = self.ctx.opts.get(profile).filter(|p| truthy(p));
                let profile_data = in_opts.or_else(|| self.ctx.pillar.get(profile));
                if !rest.is_empty() && profile_data.and_then(Value::as_object).is_some_and(|p| p.contains_key("driver")) {
                    return self.inert("sdb.get");
                }
            }
        }
        from_json(&v)
    }

    /// `salt/modules/config.py:option`: a top-level key (never traversed) of the opts, grains,
    /// pillar, master pillar or `DEFAULTS`; with `wildcard`, every key matching the glob, later
    /// sources winning (`master`, `pillar`, `grains`, `opts`), `DEFAULTS` filling in.
    fn config_option(&self, b: &Bound) -> Result<JValue, Error> {
        let value = b.string(0)?;
        let all = b.truthy(6);
        let (omit_opts, omit_grains, omit_pillar, omit_master) = (all || b.truthy(2), all || b.truthy(3), all || b.truthy(4), all || b.truthy(5));
        let wildcard = b.truthy(7);
        let default = match b.get(1).filter(|v| !v.is_none()) {
            Some(d) => d,
            None if wildcard => from_json(&Value::Object(Map::new())),
            None => JValue::from(""),
        };
        let ctx = self.ctx;
        let defaults = config_defaults();
        let empty = Value::Object(Map::new());
        if !wildcard {
            // Each source looked in is read at the key.
            for (i, omit) in [omit_opts, omit_grains, omit_pillar, omit_master, false].into_iter().enumerate() {
                let found = match (omit, i) {
                    (true, _) => None,
                    (_, 0) => ctx.opts.get(&value),
                    (_, 1) => ctx.grains.get(&value),
                    (_, 2) => ctx.pillar.get(&value),
                    (_, 3) => ctx.pillar.get("master").and_then(|m| m.get(&value)),
                    _ => defaults.get(&value),
                };
                if let Some(v) = found {
                    return Ok(from_json(v));
                }
            }
            return Ok(default);
        }
        let master = ctx.pillar.get("master").unwrap_or(&empty);
        let mut ret = Map::new();
        for (omit, data) in [(omit_master, master), (omit_pillar, ctx.pillar.whole()), (omit_grains, ctx.grains.whole()), (omit_opts, ctx.opts.whole())] {
            if let (false, Some(m)) = (omit, data.as_object()) {
                for (k, v) in m.iter().filter(|(k, _)| fnmatch::fnmatch(k, &value)) {
                    ret.insert(k.clone(), v.clone());
                }
            }
        }
        for (k, v) in defaults.as_object().into_iter().flatten() {
            if fnmatch::fnmatch(k, &value) && !ret.contains_key(k) {
                ret.insert(k.clone(), v.clone());
            }
        }
        Ok(if ret.is_empty() { default } else { from_json(&Value::Object(ret)) })
    }
}
