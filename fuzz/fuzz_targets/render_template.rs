//! Rendering with Salt's Jinja environment (`render`: the filters, tests, globals, the `salt`
//! object's functions, `match.filter_by` through the real matchers, imports through the loader)
//! and then the YAML step, as a compile renders an SLS file: any template over any grains and
//! pillar. The input is NUL-separated: the template, the grains (JSON), the pillar (JSON), the
//! minion options (JSON, e.g. `jinja_sls_env`), then files the template may import, each
//! `path\ntext`. Never a panic.
#![no_main]

#[path = "minion_input.rs"]
mod minion_input;

use std::collections::HashMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use minion_input::{json, minion};
use model::pipeline::template_matcher;
use model::render::context::JinjaSetup;
use model::workspace::config::Opts;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut parts = text.split('\0');
    let template = parts.next().unwrap_or("");
    let grains = json(parts.next());
    let pillar = json(parts.next());
    let minion_opts = json(parts.next());
    let files: HashMap<String, String> = parts.filter_map(|f| f.split_once('\n')).map(|(p, t)| (p.to_string(), t.to_string())).collect();
    let mut opts = Opts::default();
    if let (Some(raw), Value::Object(extra)) = (opts.raw.as_object_mut(), minion_opts) {
        raw.extend(extra);
    }
    let minion = minion(grains, pillar, Value::Object(Default::default()));
    let setup =
        JinjaSetup::new(&minion, &opts, move |env, path| if env == "base" { files.get(path).cloned() } else { None }).with_matcher(template_matcher(&minion, None));
    let ctx = setup.context("base", "web.tls", "web/tls.sls", Path::new("/srv/salt/web/tls.sls"));
    let _ = model::render::render_with_hints(template, 0, Some(&ctx));
});
