//! The Salt execution-module functions templates call (`salt['pillar.get'](...)`,
//! `salt.grains.filter_by(...)`), answered from the minion profile (grains, pillar, opts), the
//! file roots and the target matchers, with Python's argument binding (positional and keyword
//! arguments, Python's `TypeError` wording) and Python's in-place changes to mutable dicts.
//! A function that would touch the host, the network or a process is never run: it renders as
//! an empty string, with a hint. A function the minion does not have at all ([`catalog`]) never
//! gets here: the `salt` object leaves it undefined, as Salt's loader does.

use std::sync::Mutex;

use minijinja::value::Value as JValue;
use minijinja::Error;
use serde_json::Value;

use crate::py::builtins as py;
use crate::render::context::JinjaContext;
use crate::render::convert::to_json;
use crate::render::mutable::from_json;
use args::split_kwargs;
use common::Functions;

mod args;
pub mod catalog;
mod common;
mod config;
mod cp;
mod defaults;
mod file;
mod grains;
mod log;
mod map;
mod r#match;
mod pillar;
mod slsutil;
mod test_module;

#[cfg(test)]
mod tests;

/// Calls Salt function `name` (`pillar.get`) with a template's arguments (keyword arguments
/// last, as minijinja passes them).
/// `pillar` is the render's `__pillar__` object, whose values `pillar.get` returns.
pub fn call(ctx: &JinjaContext, hints: &Mutex<Vec<String>>, pillar: Option<&JValue>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let f = Functions { ctx, hints, pillar };
    if let Some(answer) = pinned(ctx, name, args) {
        return Ok(from_json(&answer));
    }
    match name.split_once('.').map_or("", |(module, _)| module) {
        "grains" => grains::call(&f, name, args),
        "pillar" => pillar::call(&f, name, args),
        "config" => config::call(&f, name, args),
        "slsutil" => slsutil::call(&f, name, args),
        "defaults" => defaults::call(&f, name, args),
        "match" => r#match::call(&f, name, args),
        "file" => file::call(&f, name, args),
        "log" => log::call(&f, name, args),
        "test" => test_module::call(&f, name, args),
        "map" => map::call(&f, name, args),
        "cp" => cp::call(&f, name, args),
        _ => Ok(f.inert(name)),
    }
}

/// The answer the profile pins for `name` called with `args` (`functions: {file.file_exists:
/// {/etc/localtime: true}}` in `salt-analyzer.yaml`): keyed by the first argument, positional
/// or the function's first keyword argument, as Python's `str()` prints it.
fn pinned(ctx: &JinjaContext, name: &str, args: &[JValue]) -> Option<Value> {
    let answers = ctx.functions.get(name)?.as_object()?;
    let (positional, keywords) = split_kwargs(args).ok()?;
    let first = match positional.first() {
        Some(v) => v.clone(),
        None => keywords.first().map(|(_, v)| v.clone())?,
    };
    let key = match first.as_str() {
        Some(s) => s.to_string(),
        None => py::str_of(&to_json(&first)),
    };
    answers.get(&key).cloned()
}
