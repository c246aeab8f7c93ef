//! A formula whose `map.jinja` builds its map itself, the older way (`import_yaml` layers,
//! `grains.filter_by` with `merge`, `pillar.get` with `merge=True`): the map it exports, exactly
//! as the formula's own `_mapdata` state dumps it (the `context: {map: ...}` its rendered
//! `F._mapdata` SLS hands to `_mapdata.jinja`, less its `{"values": ...}` wrapper), else the
//! variable `map.jinja` exports under the formula's name (or `mapdata`). Rendered with the
//! minion's context through the same Jinja and file roots as any SLS, so its reads are the
//! compile's.

use serde_json::Value;

use super::mapdata::{Layer, Stage, Status};
use super::origin::Origins;
use super::stack::Env;
use crate::diagnostic::{Code, SaltError};
use crate::value::{Val, V};
use crate::workspace::reads::find_file;

/// The map `env.tplroot`'s `map.jinja` exports for the minion, and who set each of its values
/// (see [`super::attribute`]) when there is a `map.jinja` to read that from.
pub(super) fn run(env: &mut Env) -> Result<(Value, Option<Origins>), SaltError> {
    let tplroot = env.tplroot.clone();
    let dump = format!("{tplroot}/_mapdata/init.sls");
    let rel = format!("{tplroot}/map.jinja");
    let values = if let Some(path) = find_file(env.fs, env.roots, &env.saltenv, &dump) {
        let text = env.fs.read(&path).map_err(|e| SaltError::new(Code::UnreadableFile, format!("{dump}: {e}")))?;
        let id = env.files.add(path.clone(), text.as_str().into());
        env.layers.push(layer("_mapdata", &dump, path.clone()));
        let ctx = env.jinja.context(&env.saltenv, &format!("{tplroot}._mapdata"), &dump, &path);
        let rendered = crate::render::render_with(&text, id, Some(&ctx))?;
        dumped_map(&rendered).ok_or_else(|| {
            let message = if find_file(env.fs, env.roots, &env.saltenv, &rel).is_none() {
                // hostsfile-formula's `_mapdata` is a `test.succeed_without_changes` saying so.
                format!("no map to show: `{dump}` dumps no map and `{tplroot}` has no `map.jinja`")
            } else {
                format!("`{dump}` renders no state with `context: {{map: ...}}`, the map `_mapdata.jinja` dumps")
            };
            SaltError::new(Code::MapData, message).at(Some(crate::value::Loc { file: id, span: 0..0 }))
        })?
    } else {
        let Some(path) = find_file(env.fs, env.roots, &env.saltenv, &rel) else {
            return Err(SaltError::new(Code::MapData, format!("no map to show: `{tplroot}` has no `map.jinja`, no `_mapdata` state and no `parameters/`")));
        };
        let text = env.fs.read(&path).map_err(|e| SaltError::new(Code::UnreadableFile, format!("{rel}: {e}")))?;
        let id = env.files.add(path.clone(), text.as_str().into());
        let Some(name) = exported(&text, &tplroot) else {
            env.layers.push(layer("map.jinja", &rel, path.clone()));
            return Err(SaltError::new(Code::MapData, format!("no map to show: `{rel}` sets neither `{}` nor `mapdata`", tplroot.replace('-', "_")))
                .at(Some(crate::value::Loc { file: id, span: 0..0 })));
        };
        // What an SLS of the formula sees: `{% from tplroot ~ "/map.jinja" import NAME with context %}`.
        let probe = format!("{{%- from \"{rel}\" import {name} with context %}}{{{{ {name} | json }}}}");
        let init = format!("{tplroot}/init.sls");
        let ctx = env.jinja.context(&env.saltenv, &tplroot, &init, &path.with_file_name("init.sls"));
        let out = crate::render::jinja::render(&probe, &ctx).map_err(|f| {
            env.layers.push(layer("map.jinja", &rel, path.clone()));
            // An error inside `map.jinja` itself is placed at its line; one elsewhere at its start.
            let line = f.template.as_ref().filter(|(name, _)| name.ends_with(&rel)).map_or(1, |(_, line)| *line);
            let start = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum::<usize>();
            let at = Some(crate::value::Loc { file: id, span: start..start });
            SaltError::new(Code::RenderError, f.message).at(at)
        })?;
        serde_json::from_str(&out.text).map_err(|e| {
            env.layers.push(layer("map.jinja", &rel, path.clone()));
            SaltError::new(Code::MapData, format!("`{name}` of `{rel}` is not JSON data: {e}"))
        })?
    };
    // Who set what: read from the `map.jinja` that built the map, and the files it imports.
    let Some(path) = find_file(env.fs, env.roots, &env.saltenv, &rel) else { return Ok((values, None)) };
    let Ok(text) = env.fs.read(&path) else { return Ok((values, None)) };
    let id = env.files.add(path.clone(), text.as_str().into());
    let map_layer = env.layers.len();
    env.layers.push(layer("map.jinja", &rel, path));
    let origins = super::attribute::origins(env, &values, &text, id, map_layer);
    Ok((values, Some(origins)))
}

fn layer(source: &str, rel: &str, file: std::path::PathBuf) -> Layer {
    Layer { stage: Stage::Formula, source: source.into(), path: Some(rel.into()), file: Some(file), status: Status::Loaded, strategy: None, merge_lists: None }
}

/// The name `map.jinja` exports its map under: the formula's own (`nginx`, `php_fpm` for
/// `php-fpm`), else `mapdata` (template-formula's), as a top-level `{% set NAME = ... %}`.
pub fn exported(text: &str, tplroot: &str) -> Option<String> {
    let sets = |name: &str| {
        text.match_indices("set").any(|(i, _)| {
            let before = text[..i].trim_end();
            let after = text[i + 3..].trim_start();
            (before.ends_with("{%") || before.ends_with("{%-")) && after.strip_prefix(name).is_some_and(|r| r.trim_start().starts_with('='))
        })
    };
    [tplroot.replace('-', "_"), "mapdata".to_string()].into_iter().find(|n| sets(n))
}

/// The `map` of the first state in `rendered` whose arguments carry `context: {map: ...}`,
/// without the `{"values": MAP}` wrapper template-formula's `_mapdata` puts around it (as
/// `salt["map.data"]` and the Jinja flavour's `mapdata` have none), so `mapdata`'s `values` is
/// the map itself whichever implementation built it.
fn dumped_map(rendered: &Val) -> Option<Value> {
    let V::Dict(states) = &rendered.v else { return None };
    let map = states.0.iter().find_map(|(_, body)| {
        body.as_dict()?.0.iter().find_map(|(_, args)| {
            args.as_list()?.iter().find_map(|arg| {
                let context = arg.as_dict()?.get("context")?;
                context.as_dict()?.get("map").map(Val::to_json)
            })
        })
    })?;
    Some(unwrap_values(map))
}

/// `MAP` of `{"values": MAP}` (a dict whose one key is `values`), else `map` as it is.
fn unwrap_values(map: Value) -> Value {
    match map {
        Value::Object(mut m) if m.len() == 1 && m.contains_key("values") => m.remove("values").unwrap_or_default(),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_exported_name() {
        assert_eq!(super::exported("{% set nginx = salt['pillar.get']('nginx', {}, merge=True) %}", "nginx").as_deref(), Some("nginx"));
        assert_eq!(super::exported("{%- set php_fpm=1 %}", "php-fpm").as_deref(), Some("php_fpm"));
        assert_eq!(super::exported("{% set mapdata = {} %}{% set ngx = 1 %}", "nginx").as_deref(), Some("mapdata"));
        assert_eq!(super::exported("{% set other = 1 %}", "nginx"), None);
    }
}
