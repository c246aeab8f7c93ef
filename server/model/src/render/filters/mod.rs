//! The filters and tests Salt adds to Jinja (`@jinja_filter` / `@jinja_test` across
//! `salt/utils/*.py`, and `SerializerExtension`'s filters in `salt/utils/jinja.py`), answered as
//! Salt 3008 answers them, plus the Jinja2 builtins whose minijinja versions print or convert
//! differently in ways a formula sees. Filters that would touch the host or are random never
//! run: they give an inert value and record a hint.

use minijinja::Environment;

pub use inert::Hints;

mod args;
mod data;
mod dictupdate;
mod hashutils;
mod inert;
mod is_tests;
mod jinja2;
mod network;
mod regex;
mod serialize;
mod stringutils;

#[cfg(test)]
mod salt_tests;

/// Adds Salt's filters and tests to `env`; the inert ones push their hints into `hints`.
pub fn register(env: &mut Environment<'_>, hints: Hints) {
    serialize::register(env);
    regex::register(env);
    data::register(env);
    dictupdate::register(env);
    hashutils::register(env);
    stringutils::register(env);
    network::register(env);
    is_tests::register(env);
    jinja2::register(env);
    inert::register(env, hints);
}
