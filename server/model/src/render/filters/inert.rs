//! Host-touching or random filters: never run. Each inert value has the type Salt's filter
//! returns, so the template's own logic still works on it; each use records a hint.

use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use minijinja::value::{Rest, Value};
use minijinja::Environment;

/// Where a render collects what it could not do for real (the `hints` of
/// [`crate::render::jinja::Rendered`]).
pub type Hints = Arc<Mutex<Vec<String>>>;

/// The inert answer of a filter that is not run, from its value and arguments.
type Inert = fn(&[Value]) -> Value;

pub(super) fn register(env: &mut Environment<'_>, hints: Hints) {
    // Host-touching or random filters: never run. Each inert value has the type Salt's
    // filter returns, so the template's own logic still works on it.
    let inert: [(&str, Inert); 16] = [
        ("http_query", |_| Value::from(IndexMap::<Value, Value>::new())),
        ("dns_check", |_| Value::from("")),
        ("file_hashsum", |_| Value::from("")),
        ("is_bin_file", |_| Value::from(false)),
        ("is_empty", |_| Value::from(false)),
        ("is_text_file", |_| Value::from(false)),
        ("list_files", |_| Value::from(Vec::<Value>::new())),
        ("which", |_| Value::from(())),
        ("get_uid", |_| Value::from(())),
        ("random_hash", |_| Value::from("")),
        ("rand_str", |_| Value::from("")),
        ("random_str", |_| Value::from("")),
        ("random_sample", |_| Value::from(Vec::<Value>::new())),
        // The list unshuffled: the same items, in a fixed order.
        ("random_shuffle", |args| args.first().cloned().unwrap_or_default()),
        ("gen_mac", |_| Value::from("")),
        // Jinja2's own `random` filter: the first item instead of a random one.
        ("random", |args| args.first().and_then(|v| v.try_iter().ok()?.next()).unwrap_or_default()),
    ];
    for (name, value) in inert {
        let hints = hints.clone();
        env.add_filter(name, move |v: Value, args: Rest<Value>| {
            if let Ok(mut h) = hints.lock() {
                h.push(format!("the `{name}` filter is not executed during analysis (it reads the host or is random); it rendered as an inert value"));
            }
            let mut all = vec![v];
            all.extend(args.0);
            value(&all)
        });
    }
}
