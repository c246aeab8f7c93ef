//! Formula configuration in the editor, for the selected minion: the hover on a `map.jinja`
//! import, on `salt["map.data"](...)` and in a `map_jinja.yaml` (the layers, their status,
//! strategy and `merge_lists`, and the merged values, each with the layer that set it), the
//! hover on a use of the merged data (`mapdata.pkg.name`: the value, the layer that set it and
//! the layers it overrode), and go to definition from such a use to the winning layer's line
//! and from a `map_jinja.yaml` source to the files it loaded. For an older-style `map.jinja`
//! (`import_yaml`, `grains.filter_by`, `pillar.get` with `merge=True`) the same hover and
//! definition on a use of the name it exports, from the attributed origins, and the hover on a
//! key of a file it imports (whether that key wins for the minion). The data is the pipeline's
//! (`Scope::MapData`), the same `salt-analyzer mapdata` prints.

use std::path::Path;

use model::mapstack::{report, MapData, Status};
use model::pipeline::{Compiled, Scope};
use syntax::jinja::JinjaKind;

use crate::snapshot::Snapshot;
use crate::types::{HoverResult, NavTarget};

/// What the cursor is on.
enum Spot {
    /// A `map.jinja` import or a `map.data` call, or a `map_jinja.yaml` (with the source entry
    /// under the cursor, if any).
    Import { tplroot: String, range: std::ops::Range<usize>, source: Option<String> },
    /// A use of the data bound by such an import: its key path.
    Value { tplroot: String, range: std::ops::Range<usize>, expr: String, path: Vec<String> },
    /// A key of a YAML file of the formula (one an older-style `map.jinja` imports).
    LayerKey { tplroot: String, range: std::ops::Range<usize> },
}

pub(crate) fn hover(snap: &Snapshot, path: &Path, offset: usize) -> Option<HoverResult> {
    let spot = spot(snap, path, offset)?;
    match spot {
        Spot::Import { tplroot, range, source } => {
            let (compiled, minion) = compute(snap, &tplroot)?;
            let data = compiled.mapdata.as_ref()?;
            let mut out = format!("**Formula configuration** of `{tplroot}` for minion `{minion}`\n");
            if let Some(src) = &source {
                let files: Vec<String> = data
                    .layers
                    .iter()
                    .filter(|l| &l.source == src)
                    .map(|l| format!("- {} `{}`", l.status.as_str(), l.path.as_deref().unwrap_or("(a lookup)")))
                    .collect();
                out.push_str(&format!("\nSource `{src}`:\n{}\n", files.join("\n")));
            }
            let text = report::text(data, &compiled.files, &tplroot, &minion, &|p: &Path| snap.world().rel(p));
            out.push_str(&format!("\n```text\n{}```\n", truncate(&text, 80)));
            Some(HoverResult { range, markdown: out })
        }
        Spot::Value { tplroot, range, expr, path: keys } => {
            let (compiled, minion) = compute(snap, &tplroot)?;
            let data = compiled.mapdata.as_ref()?;
            let values = data.values.as_ref().ok()?;
            let value = keys.iter().try_fold(values, |v, k| v.get(k))?;
            let shown = serde_json::to_string_pretty(value).unwrap_or_default();
            let mut out = format!("**`{expr}`** for minion `{minion}`\n\n```json\n{}\n```\n", truncate(&shown, 30).trim_end());
            let origin = data.origins.as_ref().and_then(|o| o.at_path(&keys.iter().map(String::as_str).collect::<Vec<_>>()));
            // An older-style map's value no source writes (a dict, an expression): the Jinja
            // hover, which shows the value, says more.
            if data.implementation == model::mapstack::Implementation::MapJinja
                && origin.is_none_or(|o| o.origin.at.is_none() && data.layers.get(o.origin.layer).is_some_and(|l| l.source == "map.jinja"))
            {
                return None;
            }
            if let Some(o) = origin {
                out.push_str(&format!("\nSet by layer {}\n", layer_line(data, &compiled, o.origin.layer, o.origin.at.as_ref())));
                if !o.origin.overrode.is_empty() {
                    out.push_str("\nOverriding:\n");
                    for l in &o.origin.overrode {
                        out.push_str(&format!("- layer {}\n", layer_line(data, &compiled, *l, None)));
                    }
                }
            }
            Some(HoverResult { range, markdown: out })
        }
        Spot::LayerKey { tplroot, range } => {
            let (compiled, minion) = compute(snap, &tplroot)?;
            let data = compiled.mapdata.as_ref()?;
            let values = data.values.as_ref().ok()?;
            let leaves = data.origins.as_ref()?.leaves();
            let here = |at: &model::value::Loc| compiled.files.path(at.file) == path && at.span == range;
            let layer = data.layers.iter().position(|l| l.file.as_deref() == Some(path))?;
            let key = snap.text(path)?[range.clone()].trim_matches(['\'', '"']).to_string();
            let mut out = String::new();
            for (keys, o) in &leaves {
                let value = keys.iter().try_fold(values, |v, k| v.get(k)).map(|v| v.to_string()).unwrap_or_default();
                if o.at.as_ref().is_some_and(here) {
                    out.push_str(&format!("Sets `{}` = `{value}` for minion `{minion}`", keys.join(".")));
                    if !o.overrode.is_empty() {
                        let over: Vec<String> = o.overrode.iter().map(|l| layer_line(data, &compiled, *l, None)).collect();
                        out.push_str(&format!(", over layer {}", over.join(", ")));
                    }
                    out.push('\n');
                } else if o.overrode.contains(&layer) && keys.last() == Some(&key) {
                    out.push_str(&format!(
                        "`{}` = `{value}` for minion `{minion}` is set by layer {}, over this one\n",
                        keys.join("."),
                        layer_line(data, &compiled, o.layer, o.at.as_ref())
                    ));
                }
            }
            (!out.is_empty()).then(|| HoverResult { range, markdown: format!("**Formula configuration** of `{tplroot}`\n\n{out}") })
        }
    }
}

pub(crate) fn definition(snap: &Snapshot, path: &Path, offset: usize) -> Option<Vec<NavTarget>> {
    match spot(snap, path, offset)? {
        Spot::Value { tplroot, path: keys, expr, .. } => {
            let (compiled, _) = compute(snap, &tplroot)?;
            let data = compiled.mapdata.as_ref()?;
            let o = data.origins.as_ref()?.at_path(&keys.iter().map(String::as_str).collect::<Vec<_>>())?;
            if data.implementation == model::mapstack::Implementation::MapJinja && o.origin.at.is_none() {
                // No line to go to: the Jinja definition (the `set`) answers.
                return None;
            }
            let target = match &o.origin.at {
                Some(at) => {
                    NavTarget { path: compiled.files.path(at.file).to_path_buf(), full_range: at.span.clone(), focus_range: at.span.clone(), name: expr }
                }
                None => NavTarget { path: data.layers[o.origin.layer].file.clone()?, full_range: 0..0, focus_range: 0..0, name: expr },
            };
            Some(vec![target])
        }
        Spot::Import { tplroot, source: Some(src), .. } => {
            let (compiled, _) = compute(snap, &tplroot)?;
            let data = compiled.mapdata.as_ref()?;
            let files: Vec<NavTarget> = data
                .layers
                .iter()
                .filter(|l| l.source == src && l.status != Status::Missing)
                .filter_map(|l| Some(NavTarget { path: l.file.clone()?, full_range: 0..0, focus_range: 0..0, name: l.path.clone().unwrap_or_default() }))
                .collect();
            Some(files)
        }
        Spot::Import { .. } | Spot::LayerKey { .. } => None,
    }
}

/// `#9 `TEMPLATE/parameters/os_family/Debian.yaml:16` (source `Y:G@os_family`)`.
fn layer_line(data: &MapData, compiled: &Compiled, layer: usize, at: Option<&model::value::Loc>) -> String {
    let l = &data.layers[layer];
    let place = match (&l.path, at) {
        (Some(p), Some(at)) => format!("`{p}:{}`", compiled.files.human(at.file, at.span.start).0),
        (Some(p), None) => format!("`{p}`"),
        (None, _) => "(a lookup)".to_string(),
    };
    format!("#{layer} {place} (source `{}`)", l.source)
}

fn truncate(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    if all.len() <= lines {
        return text.to_string();
    }
    format!("{}\n... ({} more lines: `salt-analyzer mapdata` prints all)\n", all[..lines].join("\n"), all.len() - lines)
}

/// The formula's data for the selected minion, through the one pipeline.
fn compute(snap: &Snapshot, tplroot: &str) -> Option<(Compiled, String)> {
    let compiled = snap.compile(Scope::MapData { tpldir: tplroot.to_string() });
    let id = compiled.minion.as_ref().ok()?.id.clone();
    Some((compiled, id))
}

/// The formula (`tplroot`) a file belongs to: the first directory of its path in the roots.
fn tplroot_of(snap: &Snapshot, path: &Path) -> Option<String> {
    let (_, rel) = snap.world().locate(path)?;
    let first = rel.split('/').next()?;
    (first != rel).then(|| first.to_string())
}

fn spot(snap: &Snapshot, path: &Path, offset: usize) -> Option<Spot> {
    let text = snap.text(path)?;
    if path.file_name().is_some_and(|n| n == "map_jinja.yaml" || n == "map_jinja.yaml.jinja") {
        return map_jinja_spot(snap, path, &text, offset);
    }
    if path.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
        return layer_key_spot(snap, path, &text, offset);
    }
    let masked = syntax::jinja::mask(&text);
    let block = masked.block_at(offset)?;
    let inner = &text[block.range.clone()];
    let tplroot = tplroot_of(snap, path)?;
    if let Some(at) = inner.find("map.data") {
        let call = block.range.start + at;
        if offset + 20 >= call && offset <= call + 30 {
            return Some(Spot::Import { tplroot, range: block.range.clone(), source: None });
        }
    }
    let exported = match map_style(snap, path, &tplroot)? {
        MapStyle::Mapstack => {
            if block.kind == JinjaKind::Statement && block.keyword.as_deref() == Some("from") && inner.contains("map.jinja") {
                return Some(Spot::Import { tplroot, range: block.range.clone(), source: None });
            }
            "mapdata".to_string()
        }
        // An older-style map: only the uses of the name it exports (its import is the Jinja
        // hover's).
        MapStyle::Own(name) => name,
    };
    // A use of a name a `map.jinja` import of this file binds: `NAME.a.b` around the cursor.
    let is_part = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    if let Some(spot) = get_spot(&text, offset, block.range.clone(), &bound_names(&text, &exported)) {
        return Some(Spot::Value { tplroot, range: spot.0, expr: spot.1, path: spot.2 });
    }
    let start = text[..offset].rfind(|c: char| !is_part(c)).map_or(0, |i| i + 1);
    let end = offset + text[offset..].find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len() - offset);
    if start < block.range.start || end > block.range.end || start >= end {
        return None;
    }
    let expr = &text[start..end];
    let mut parts = expr.split('.');
    let name = parts.next()?;
    if !bound_names(&text, &exported).iter().any(|n| n == name) {
        return None;
    }
    let path: Vec<String> = parts.map(str::to_string).collect();
    if path.is_empty() || path.iter().any(String::is_empty) {
        return None;
    }
    Some(Spot::Value { tplroot, range: start..end, expr: expr.to_string(), path })
}

/// On the key of `NAME.a.get('KEY', ...)` (`NAME` one of `names`): the key's range, the
/// expression as written up to the key, and the path `a.KEY`.
fn get_spot(text: &str, offset: usize, block: std::ops::Range<usize>, names: &[String]) -> Option<(std::ops::Range<usize>, String, Vec<String>)> {
    let open = text[block.start..offset].rfind(['\'', '"']).map(|i| block.start + i)?;
    let quote = text[open..].chars().next()?;
    let close = open + 1 + text[open + 1..block.end].find(quote)?;
    if close < offset {
        return None;
    }
    let call = text[block.start..open].trim_end().strip_suffix('(')?.trim_end().strip_suffix(".get")?;
    let start = call.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).map_or(0, |i| i + 1);
    let mut parts = call[start..].split('.');
    let name = parts.next()?;
    if !names.iter().any(|n| n == name) {
        return None;
    }
    let mut path: Vec<String> = parts.map(str::to_string).collect();
    if path.iter().any(String::is_empty) {
        return None;
    }
    path.push(text[open + 1..close].to_string());
    Some((open..close + 1, format!("{}.get({})", &call[start..], &text[open..=close]), path))
}

/// How a formula's `map.jinja` builds its map.
enum MapStyle {
    /// It calls `map.data` (saltext-formula) or has template-formula's `libmapstack.jinja` beside it.
    Mapstack,
    /// It builds it itself and exports it under this name (`nginx`, else `mapdata`).
    Own(String),
}

/// How the formula `tplroot` builds its map, when it has a `map.jinja`.
fn map_style(snap: &Snapshot, path: &Path, tplroot: &str) -> Option<MapStyle> {
    let world = snap.world();
    let env = crate::resolve::file_env(snap, path);
    let roots = &world.ctx.roots;
    let map = roots.find_file(&env, &format!("{tplroot}/map.jinja")).and_then(|f| snap.text(&f))?;
    if map.contains("map.data") || roots.find_file(&env, &format!("{tplroot}/libmapstack.jinja")).is_some() {
        return Some(MapStyle::Mapstack);
    }
    model::mapstack::plain::exported(&map, tplroot).map(MapStyle::Own)
}

/// The names `{% from "<...>/map.jinja" import EXPORTED [as NAME] %}` statements of `text`
/// bind to the formula's configuration (`EXPORTED` is `mapdata`, or an older map's own name).
fn bound_names(text: &str, exported: &str) -> Vec<String> {
    let masked = syntax::jinja::mask(text);
    let mut out = Vec::new();
    for b in masked.blocks.iter().filter(|b| b.kind == JinjaKind::Statement && b.keyword.as_deref() == Some("from")) {
        let inner = text[b.range.clone()].trim_start_matches("{%").trim_end_matches("%}").trim_matches(['-', '+', ' ', '\n']);
        if !inner.contains("map.jinja") {
            continue;
        }
        let Some((_, names)) = inner.split_once(" import ") else { continue };
        let names = names.trim().trim_end_matches("with context").trim_end_matches("without context");
        for n in names.split(',') {
            let n = n.trim();
            let (name, bound) = n.split_once(" as ").map_or((n, n), |(name, alias)| (name.trim(), alias.trim()));
            if name == exported && !bound.is_empty() {
                out.push(bound.to_string());
            }
        }
    }
    out
}

/// On a key of a YAML file of a formula with an older-style map: the key's span as the YAML
/// loader places it (what the attributed origins point at).
fn layer_key_spot(snap: &Snapshot, path: &Path, text: &str, offset: usize) -> Option<Spot> {
    let tplroot = tplroot_of(snap, path)?;
    if !matches!(map_style(snap, path, &tplroot)?, MapStyle::Own(_)) {
        return None;
    }
    let doc = model::render::load_yaml(text, 0).ok()?;
    fn find(v: &model::value::Val, offset: usize) -> Option<std::ops::Range<usize>> {
        v.as_dict()?.0.iter().find_map(|(k, x)| match &k.at {
            Some(at) if at.span.contains(&offset) || at.span.end == offset => Some(at.span.clone()),
            _ => find(x, offset),
        })
    }
    let range = find(&doc, offset)?;
    Some(Spot::LayerKey { tplroot, range })
}

/// In a formula's `parameters/map_jinja.yaml`: the whole file, or a source entry.
fn map_jinja_spot(snap: &Snapshot, path: &Path, text: &str, offset: usize) -> Option<Spot> {
    let (_, rel) = snap.world().locate(path)?;
    let tplroot = rel.strip_suffix("/parameters/map_jinja.yaml").or_else(|| rel.strip_suffix("/parameters/map_jinja.yaml.jinja"))?.to_string();
    let line_start = syntax::line_index::line_start(text, offset);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let source = line.trim_start().strip_prefix("- ").map(|s| s.trim().trim_matches(['\'', '"']).to_string()).filter(|s| !s.is_empty());
    let range = match &source {
        Some(_) => line_start + (line.len() - line.trim_start().len())..line_end,
        None => line_start..line_end,
    };
    Some(Spot::Import { tplroot, range, source })
}

#[cfg(test)]
mod tests;
