//! Formula configuration layered from `parameters/` files, as saltext-formula's
//! `salt["map.data"](tpldir)` computes it (`saltext/formula/modules/map.py` 0.3.0; the rules
//! are docs/salt/mapstack.md §3): the `map_jinja.yaml` meta configuration, then `defaults.yaml` and
//! every data source in order, each merged with `py::dictupdate`'s strategies, plus which
//! layer set each value. `mapdata` is what it gives, `source` parses data sources, `stack` runs them, `origin` keeps the
//! provenance. Nothing is executed: lookups answer from the minion's grains, pillar and opts,
//! and layer files are read through the [`Vfs`] (a [`crate::workspace::reads::Recorder`] in
//! the pipeline, so a result is reused while what it read is unchanged).

pub mod attribute;
pub mod libmapstack;
pub mod mapdata;
pub mod origin;
pub mod plain;
pub mod report;
pub mod source;
pub mod stack;

use serde_json::{json, Map, Value};

use crate::diagnostic::{Code, SaltError};
use crate::render::context::JinjaSetup;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};
pub use mapdata::{default_sources, selectable_name, Implementation, Layer, MapData, Stage, Status};
use origin::Origins;
use stack::{Env, Stack};

/// Which implementation the formula `tplroot` uses: a `map.jinja` that calls `map.data` is
/// saltext-formula's, else a `libmapstack.jinja` beside `map.jinja` is template-formula's, else
/// a `map.jinja` builds its map itself (the older way); without a `map.jinja`, `parameters/`
/// layers (or a `defaults.yaml`) are saltext-formula's, a `_mapdata` state alone is read as it
/// dumps, and anything else has no map. The files are read through `fs` and looked up
/// in `saltenv`'s roots, so the answer is among a compile's reads.
pub fn detect(fs: &dyn Vfs, roots: &FileRoots, saltenv: &str, tplroot: &str) -> Implementation {
    let find = |name: &str| crate::workspace::reads::find_file(fs, roots, saltenv, &format!("{tplroot}/{name}"));
    let map = find("map.jinja").and_then(|f| fs.read(&f).ok());
    if map.as_deref().is_some_and(|t| t.contains("map.data")) {
        return Implementation::Saltext;
    }
    match (map, find("libmapstack.jinja")) {
        (Some(_), Some(_)) => Implementation::Jinja,
        (Some(_), None) => Implementation::MapJinja,
        // `map.data` called from the SLS files, with `parameters/` layers (the formula's or the
        // global ones; the first such file found is looked up, so its answer is a read).
        (None, _)
            if parameters_file(roots, saltenv, tplroot).is_some_and(|rel| crate::workspace::reads::find_file(fs, roots, saltenv, &rel).is_some())
                || find("defaults.yaml").is_some() =>
        {
            Implementation::Saltext
        }
        (None, _) if find("_mapdata/init.sls").is_some() => Implementation::MapJinja,
        (None, _) => Implementation::NoMap,
    }
}

/// The first file under `tplroot/parameters/`, else under the global `parameters/`, in
/// `saltenv`'s listing (relative to the root).
fn parameters_file(roots: &FileRoots, saltenv: &str, tplroot: &str) -> Option<String> {
    let env = roots.envs.get(saltenv)?;
    let own = format!("{tplroot}/parameters/");
    let found =
        [own.as_str(), "parameters/"].into_iter().find_map(|prefix| env.files.iter().flat_map(|f| f.iter()).find(|rel| rel.starts_with(prefix)).cloned());
    found
}

/// `salt["map.data"](tpldir)` for the minion `jinja` describes, reading `salt://` files of its
/// `saltenv` (else `base`) from `roots` through `fs`; files it read are added to `files`.
pub fn map_data(fs: &dyn Vfs, roots: &FileRoots, files: &mut FileTable, jinja: &JinjaSetup, tpldir: &str) -> MapData {
    compute(fs, roots, files, jinja, tpldir, Implementation::Saltext)
}

/// The formula configuration of `tpldir` for the minion `jinja` describes, as the
/// implementation [`detect`] finds computes it: saltext-formula's `map.data`, or the `mapdata`
/// template-formula's `map.jinja` exports.
pub fn formula_map_data(fs: &dyn Vfs, roots: &FileRoots, files: &mut FileTable, jinja: &JinjaSetup, tpldir: &str) -> MapData {
    let implementation = detect(fs, roots, &saltenv_of(jinja), tpldir.split('/').next().unwrap_or(""));
    compute(fs, roots, files, jinja, tpldir, implementation)
}

/// The environment `cp.get_template` reads layer files from.
fn saltenv_of(jinja: &JinjaSetup) -> String {
    jinja.opts.get("saltenv").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or("base").to_string()
}

fn compute(fs: &dyn Vfs, roots: &FileRoots, files: &mut FileTable, jinja: &JinjaSetup, tpldir: &str, implementation: Implementation) -> MapData {
    let tplroot = tpldir.split('/').next().unwrap_or("").to_string();
    let saltenv = saltenv_of(jinja);
    let mut env = Env {
        implementation,
        fs,
        roots,
        files,
        jinja,
        saltenv,
        tpldir: tplroot.clone(),
        tplroot: tplroot.clone(),
        grains: jinja.grains.clone(),
        pillar: jinja.pillar.clone(),
        opts: jinja.opts.clone(),
        layers: Vec::new(),
        notes: Vec::new(),
    };
    let result = match implementation {
        Implementation::Saltext => run(&mut env),
        Implementation::Jinja => libmapstack::run(&mut env).and_then(|(values, origins)| libmapstack::post_map(&mut env, values, origins)),
        // Provenance attributed after the template's own merges (see `attribute`).
        Implementation::MapJinja | Implementation::NoMap => {
            return match plain::run(&mut env) {
                Ok((values, origins)) => MapData { implementation, values: Ok(values), layers: env.layers, origins, notes: env.notes },
                Err(e) => MapData { implementation, values: Err(e), layers: env.layers, origins: None, notes: env.notes },
            };
        }
    };
    let (values, origins) = match result {
        Ok((v, o)) => (Ok(v), Some(o)),
        Err(e) => (Err(e), None),
    };
    MapData { implementation, values, layers: env.layers, origins, notes: env.notes }
}

/// `data()`: the meta stack, `defaults.yaml` first, the formula stack, `map_jinja` added.
fn run(env: &mut Env) -> Result<(Value, Origins), SaltError> {
    let tplroot = env.tplroot.clone();
    let sources: Vec<Value> = default_sources(Implementation::Saltext, &tplroot).into_iter().map(Value::String).collect();
    let defaults = json!({
        "sources": sources,
        "parameter_dirs": [format!("{tplroot}/parameters")],
        "config_get_strategy": null,
        "default_merge_strategy": null,
        "default_merge_lists": false,
        "post_map": "post-map.jinja",
        "post_map_template": "jinja",
        "cache": true,
    });
    let mut meta = Stack::meta(env, "map.data defaults", defaults, vec!["parameters".into(), format!("{tplroot}/parameters")]);
    meta.render(env, "map_jinja.yaml")?;
    let mut config = meta.values;
    let sources = match config.get_mut("sources") {
        Some(Value::Array(sources)) => {
            if !sources.iter().any(|s| matches!(s.as_str(), Some("defaults.yaml" | "Y!defaults.yaml" | "Y!P@defaults.yaml"))) {
                sources.insert(0, json!("Y!P@defaults.yaml"));
            }
            sources.clone()
        }
        other => {
            return Err(SaltError::new(
                Code::MapData,
                format!("map_jinja.yaml: `sources` is {}, not a list", other.map_or("missing".into(), |v| v.to_string())),
            ))
        }
    };
    let get = |k: &str| config.get(k).cloned().unwrap_or(Value::Null);
    let base_dirs = match get("parameter_dirs") {
        Value::Null => vec!["parameters".into(), format!("{tplroot}/parameters")],
        Value::Array(dirs) => dirs.iter().map(crate::py::builtins::str_of).collect(),
        other => return Err(SaltError::new(Code::MapData, format!("map_jinja.yaml: `parameter_dirs` is {other}, not a list"))),
    };
    let merge_strategy = Some(get("default_merge_strategy")).filter(crate::py::builtins::truthy).unwrap_or(json!("smart"));
    let merge_lists = Some(get("default_merge_lists")).filter(|v| !v.is_null()).unwrap_or(json!(false));
    let mut formula = Stack {
        config_get_strategy: Some(get("config_get_strategy")).filter(|v| !v.is_null()),
        merge_strategy,
        merge_lists,
        ..Stack::new(Stage::Formula, Value::Object(Map::new()), base_dirs)
    };
    for source in &sources {
        let Some(source) = source.as_str() else {
            return Err(SaltError::new(Code::MapData, format!("AttributeError: data source {source} is not a string")));
        };
        formula.render(env, source)?;
    }
    let Value::Object(mut values) = formula.values else {
        return Err(SaltError::new(Code::MapData, "TypeError: the merged formula configuration is not a dict"));
    };
    values.insert("map_jinja".into(), config.clone());
    let mut origins = formula.origins;
    origins.set_child("map_jinja", meta.origins);
    if get("post_map") != Value::Bool(false) {
        post_map_note(env, &crate::py::builtins::str_of(&get("post_map")));
    }
    Ok((Value::Object(values), origins))
}

/// A `not-analysed` note when a saltext-formula formula has the post-processing template
/// `name` (its `map.data` renders it with the `post_map_template` renderer, which is not
/// modelled; template-formula's `post-map.jinja` is applied, see [`libmapstack::post_map`]).
fn post_map_note(env: &mut Env, name: &str) {
    let rel = format!("{}/{name}", env.tplroot);
    if let Some(file) = crate::workspace::reads::find_file(env.fs, env.roots, &env.saltenv, &rel) {
        let id = env.fs.read(&file).ok().map(|t| env.files.add(file, t.as_str().into()));
        env.notes.push(
            SaltError::new(Code::NotAnalysed, format!("not analysed: `{rel}` may change mapdata, and its changes are not applied"))
                .at(id.map(|file| crate::value::Loc { file, span: 0..0 })),
        );
    }
}
