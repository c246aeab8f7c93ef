//! template-formula's Jinja mapstack (`libmapstack.jinja` `mapstack`, `map.jinja`; the rules
//! are docs/salt/mapstack.md §2, the differences from saltext-formula's
//! `saltext/formula/modules/map.py` §4), run over the same
//! [`Stack`] as `map.data`: sources parsed by [`source::parse_jinja`], every lookup made before
//! anything is merged, parameter directories as the outer loop, a missing lookup falling back to
//! a literal file path, `strategy`/`merge_lists` kept in looked-up values, layer files whose
//! extra keys are ignored and whose empty result is skipped, `merge_lists` through `to_bool`.

use serde_json::{json, Map, Value};

use super::mapdata::{Stage, Status};
use super::origin::Origins;
use super::source::{self, Kind};
use super::stack::{to_bool, Env, Stack};
use crate::diagnostic::{Code, SaltError};
use crate::py::builtins::{str_of, truthy};
use crate::py::data::traverse_dict_and_list;
use crate::render::config_lookup::{config_locate, config_source};

fn error(message: impl Into<String>) -> SaltError {
    SaltError::new(Code::MapData, message)
}

/// `salt["config.get"](key, default)`.
fn config_get(env: &Env, key: &str) -> Option<Value> {
    let (src, path) = config_locate(&env.opts, &env.grains, &env.pillar, key, ":", [false; 4])?;
    config_source(&env.opts, &env.grains, &env.pillar, src, &path)
}

/// `map.jinja`: the meta configuration from `map_jinja.yaml`, then `defaults.yaml` and the
/// sources over the formula's `parameters/`, with `map_jinja` added.
pub(super) fn run(env: &mut Env) -> Result<(Value, Origins), SaltError> {
    let tplroot = env.tplroot.clone();
    let strategy = config_get(env, &format!("{tplroot}:strategy")).filter(|v| !v.is_null());
    let default_lists = config_get(env, &format!("{tplroot}:merge_lists")).unwrap_or(Value::Bool(false));
    let sources: Vec<Value> = super::mapdata::default_sources(super::mapdata::Implementation::Jinja, &tplroot).into_iter().map(Value::String).collect();
    let defaults = json!({ "sources": sources });
    let mut meta = Stack {
        config_get_strategy: strategy.clone().filter(truthy),
        ..Stack::meta(env, "map.jinja defaults", defaults, vec!["parameters/".into(), format!("{tplroot}/parameters")])
    };
    mapstack(env, &mut meta, &[json!("map_jinja.yaml")])?;
    let sources = match meta.values.get("sources") {
        Some(Value::Array(s)) => s.clone(),
        other => {
            return Err(error(format!(
                "TypeError: map_jinja.yaml: `sources` is {}, not a list (an `aggregate` merge makes it NULL)",
                other.map_or("missing".into(), |v| v.to_string())
            )))
        }
    };
    let mut formula = Stack {
        config_get_strategy: strategy.clone().filter(truthy),
        // The quirk: `merge_strategy` is passed, `strategy` is read, so layers default to smart.
        merge_lists: Value::Bool(to_bool(&default_lists)),
        defaults: Map::from_iter([("merge_strategy".to_string(), strategy.unwrap_or(Value::Null)), ("merge_lists".to_string(), default_lists)]),
        ..Stack::new(Stage::Formula, Value::Object(Map::new()), vec![format!("{tplroot}/parameters")])
    };
    // `defaults.yaml` is always prepended, even when the sources list it.
    let all: Vec<Value> = std::iter::once(json!("defaults.yaml")).chain(sources).collect();
    mapstack(env, &mut formula, &all)?;
    let Value::Object(mut values) = formula.values else {
        return Err(error(
            "UndefinedError: 'None' has no attribute 'update' (an `aggregate` merge made the values a yamlex Map, which `| yaml` dumps as NULL)",
        ));
    };
    values.insert("map_jinja".into(), meta.values.clone());
    let mut origins = formula.origins;
    origins.set_child("map_jinja", meta.origins);
    Ok((Value::Object(values), origins))
}

/// `map.jinja`'s last step, `{% include tplroot ~ "/post-map.jinja" ignore missing %}`: the
/// file is rendered with `mapdata` (and `tplroot`, `tpldir`) in its context, and whatever it
/// does to `mapdata` (`do mapdata.update(...)`, `set` on a key) is what the formula exports.
/// The values it changed are the post-map layer's, over the layers that set them before.
pub fn post_map(env: &mut Env, values: Value, origins: Origins) -> Result<(Value, Origins), SaltError> {
    let rel = format!("{}/post-map.jinja", env.tplroot);
    let Some(file) = crate::workspace::reads::find_file(env.fs, env.roots, &env.saltenv, &rel) else { return Ok((values, origins)) };
    let Ok(text) = env.fs.read(&file) else { return Ok((values, origins)) };
    let id = env.files.add(file.clone(), text.as_str().into());
    let layer = env.layers.len();
    env.layers.push(super::mapdata::Layer {
        stage: Stage::Formula,
        source: "post-map.jinja".into(),
        path: Some(rel.clone()),
        file: Some(file.clone()),
        status: Status::Loaded,
        strategy: None,
        merge_lists: None,
    });
    let mut ctx = env.jinja.context(&env.saltenv, "", &rel, &file);
    (ctx.grains, ctx.pillar, ctx.opts) = (env.grains.clone(), env.pillar.clone(), env.opts.clone());
    ctx.extra =
        vec![("tplroot".into(), Value::String(env.tplroot.clone())), ("tpldir".into(), Value::String(env.tpldir.clone())), ("mapdata".into(), values.clone())];
    // The file, then `mapdata` as it left it, after a separator its output cannot contain.
    let source = format!("{text}\n\u{1e}{{{{ mapdata | json(sort_keys=False) }}}}");
    let whole = Some(crate::value::Loc { file: id, span: 0..0 });
    let r = crate::render::jinja::render(&source, &ctx).map_err(|e| {
        let start = e.line.and_then(|l| syntax::line_index::LineIndex::new(&text).line_range(l.saturating_sub(1) as u32)).map_or(0, |r| r.start);
        SaltError::new(Code::RenderError, e.message).at(Some(crate::value::Loc { file: id, span: start..start }))
    })?;
    for h in r.hints {
        env.notes.push(SaltError::new(Code::NotAnalysed, h).at(whole.clone()));
    }
    let after = r.text.rsplit_once('\u{1e}').map(|(_, json)| json.trim()).unwrap_or_default();
    let Ok(new) = serde_json::from_str::<Value>(after) else {
        return Err(error(format!("{rel}: `mapdata` is no longer a mapping after it: {after}")).at(whole));
    };
    let origins = match super::origin::changed(&values, &new) {
        Some(written) => Origins::merged(Some(&origins), &new, Some(&written), None, layer, None),
        None => origins,
    };
    Ok((new, origins))
}

/// The `mapstack(matchers, defaults, dirs)` macro over `stack`.
fn mapstack(env: &mut Env, stack: &mut Stack, sources: &[Value]) -> Result<(), SaltError> {
    // `parse_matchers` parses and looks up every source before anything is merged.
    let mut parsed = Vec::new();
    for source in sources {
        let Some(text) = source.as_str() else {
            return Err(error(format!("UndefinedError: 'int object' has no attribute 'split' (data source {source})")));
        };
        let chain = source::parse_jinja(text).map_err(|m| error(format!("data source `{text}`: {m}")))?;
        let matcher = chain.matchers[0].clone();
        // The macro's result goes through `| yaml | load_yaml`: PyYAML sorts every dict's keys.
        let found = stack.fetch_value(env, &matcher)?.map(sorted);
        parsed.push((text.to_string(), chain.yaml, matcher, found));
    }
    let first_layer = env.layers.len();
    for dir in stack.base_dirs.clone() {
        for (text, yaml, matcher, found) in &parsed {
            if *yaml {
                for rel in file_names(&dir, &matcher.query, found.as_ref()) {
                    match stack.load_file(env, text, &rel)? {
                        Some(loaded) => stack.merge_loaded(env, loaded)?,
                        None => continue,
                    }
                }
                continue;
            }
            let value = found.clone().unwrap_or(Value::Array(Vec::new()));
            let strategy = traverse_dict_and_list(&value, "strategy", ":").cloned();
            let merge_lists = traverse_dict_and_list(&value, "merge_lists", ":").map(|v| Value::Bool(to_bool(v)));
            let mut value = if truthy(&value) { value } else { Value::Object(Map::new()) };
            if matcher.kind != Kind::Static && matcher.options.first().is_some_and(|o| o == "SUB") {
                let key = matcher.query.strip_suffix(":lookup").unwrap_or(&matcher.query).to_string();
                value = Value::Object(Map::from_iter([(key, value)]));
            }
            let layer = stack.layer(env, text, None, if found.is_some() { Status::Loaded } else { Status::Missing });
            stack.merge(env, layer, value, None, strategy, merge_lists, None, None)?;
        }
    }
    // An `aggregate` merge returns a yamlex `Map` (a later `list` merge builds a plain dict
    // again, other strategies copy it), which Salt's YAML dumper writes as `NULL`.
    let aggregated = env.layers[first_layer..].iter().filter_map(|l| l.strategy.as_deref()).rfind(|s| *s == "aggregate" || *s == "list") == Some("aggregate");
    stack.values = if aggregated { Value::Null } else { sorted(std::mem::take(&mut stack.values)) };
    Ok(())
}

/// `value` as `yaml.dump` (`sort_keys=True`) and `load_yaml` give it back: dict keys sorted.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The files a YAML source names under `dir`: the looked-up value's names (a string, each item
/// of a sequence, a dict's keys, else its `str()`) under a directory named as the query, or,
/// when the lookup gave an empty sequence (`[]` when not found), the query as a literal path.
fn file_names(dir: &str, query: &str, found: Option<&Value>) -> Vec<String> {
    let value = found.cloned().unwrap_or(Value::Array(Vec::new()));
    let empty = match &value {
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    };
    let (dirname, names): (String, Vec<String>) = if empty {
        let (d, n) = query.rsplit_once('/').unwrap_or(("", query));
        (d.to_string(), vec![n.to_string()])
    } else {
        let names = match &value {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items.iter().map(str_of).collect(),
            Value::Object(m) => m.keys().cloned().collect(),
            other => vec![str_of(other)],
        };
        (query.to_string(), names)
    };
    let yaml_dir = [dir, dirname.as_str()].iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("/");
    let mut out = Vec::new();
    for name in names {
        let ext = name.rsplit_once('.').map_or(name.as_str(), |(_, e)| e);
        let files = match ext {
            "yaml" => vec![name.clone(), format!("{name}.jinja")],
            "jinja" => vec![name.clone()],
            _ => vec![format!("{name}.yaml"), format!("{name}.yaml.jinja")],
        };
        for f in files {
            out.push([yaml_dir.trim_end_matches('/'), f.as_str()].iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("/"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_macro() {
        let got = |dir: &str, q: &str, v: Option<Value>| file_names(dir, q, v.as_ref()).join(" ");
        assert_eq!(got("parameters/", "map_jinja.yaml", None), "parameters/map_jinja.yaml parameters/map_jinja.yaml.jinja");
        assert_eq!(got("t/parameters", "os", Some(json!("Ubuntu-22.04"))), "t/parameters/os/Ubuntu-22.04.yaml t/parameters/os/Ubuntu-22.04.yaml.jinja");
        assert_eq!(
            got("t/parameters", "roles", Some(json!(["a", 1]))),
            "t/parameters/roles/a.yaml t/parameters/roles/a.yaml.jinja t/parameters/roles/1.yaml t/parameters/roles/1.yaml.jinja"
        );
        assert_eq!(got("t/parameters", "x", Some(json!({"k": 1}))), "t/parameters/x/k.yaml t/parameters/x/k.yaml.jinja");
        assert_eq!(got("t/parameters", "x", Some(json!(true))), "t/parameters/x/True.yaml t/parameters/x/True.yaml.jinja");
        assert_eq!(got("t/parameters", "dns!domain", None), "t/parameters/dns!domain.yaml t/parameters/dns!domain.yaml.jinja");
        assert_eq!(got("t/parameters", "a/b.yaml.jinja", Some(json!(""))), "t/parameters/a/b.yaml.jinja");
        assert_eq!(got("t/parameters", "g", Some(json!("yaml"))), "t/parameters/g/yaml t/parameters/g/yaml.jinja");
    }

    #[test]
    fn to_bool_is_salts() {
        let got: Vec<bool> =
            [json!(null), json!("false"), json!("Yes"), json!("1"), json!(2), json!(0), json!(1.5), json!([]), json!({"a": 1})].iter().map(to_bool).collect();
        assert_eq!(got, [false, false, true, true, true, false, false, false, true]);
    }
}
