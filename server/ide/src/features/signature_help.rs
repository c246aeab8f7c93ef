//! Signature help while typing a state function's arguments: under `pkg.installed:` (or
//! `pkg:` with `- installed`), on a `- ` item or inside an argument's value, the function's
//! signature from the catalog completion uses (the release's core, the Salt extensions
//! listed, the workspace's `_states`), each argument required or with its default, and the
//! argument being typed active. The structure comes from indentation, as for completion: the
//! file is mid-edit.

use std::path::Path;

use crate::cursor::{module_body, Context};
use crate::explain::state_docs::{arg_doc, catalog, doc_of};
use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn signature_help(snap: &Snapshot, path: &Path, offset: usize) -> Option<SignatureHelp> {
    if snap.too_large(path) || snap.world().is_top(path) {
        return None;
    }
    let text = snap.text(path)?;
    if offset > text.len() || !text.is_char_boundary(offset) {
        return None;
    }
    let masked = syntax::jinja::mask(&text).text;
    let ctx = Context::at(&masked, offset);
    let p = &ctx.parents;
    // `- arg` under the module line, or a line inside an argument's value (`- names:` then
    // `  - a`): the module line is the second parent either way.
    let (module_line, typing) = match p.len() {
        2 if ctx.item && p[0].indent == 0 && !p[0].item && p[0].key != "extend" => (&p[1], item_key(&masked, offset)),
        n if n >= 3 && p[0].indent == 0 && !p[0].item && p[0].key != "extend" && p[2].item => (&p[1], p[2].key.clone()),
        _ => return None,
    };
    if p[0].key == "include" || p[0].key == "exclude" {
        return None;
    }
    let (module, function, _) = module_body(&masked, module_line, &typing);
    let catalog = catalog(snap);
    let m = catalog.module(&module)?;
    let f = m.function(function.as_deref()?)?;
    let mut label = format!("{}.{}(", m.name, f.name);
    let mut parameters = Vec::new();
    let docs = doc_of(snap, &m.name, f).ok();
    for (i, a) in f.args.iter().enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let start = label.len();
        label.push_str(&a.name);
        if let Some(d) = &a.default {
            label.push('=');
            label.push_str(d);
        }
        let mut what = match &a.default {
            None if a.name == "name" => "Required; Salt fills it from the state ID when it is not given.".to_string(),
            None => "Required.".to_string(),
            Some(d) => format!("Default: `{d}`"),
        };
        if let Some(p) = docs.and_then(|d| arg_doc(d, &a.name)) {
            what.push_str(&format!("\n\n```rst\n{p}\n```"));
        }
        parameters.push((start..label.len(), what));
    }
    if f.kwargs {
        label.push_str(if f.args.is_empty() { "**kwargs" } else { ", **kwargs" });
    }
    label.push(')');
    let required: Vec<&str> = f.args.iter().filter(|a| a.default.is_none() && a.name != "name").map(|a| a.name.as_str()).collect();
    let mut documentation =
        if required.is_empty() { "No argument is required besides `name`.".to_string() } else { format!("Required: `{}`.", required.join("`, `")) };
    if let Some(d) = &f.deprecated {
        documentation.push_str(&format!("\n\n**Deprecated**: {d}"));
    }
    // The argument typed so far: an exact name, else the only one it begins.
    let active = f.args.iter().position(|a| a.name == typing).or_else(|| {
        let mut starting = f.args.iter().enumerate().filter(|(_, a)| !typing.is_empty() && a.name.starts_with(typing.as_str()));
        match (starting.next(), starting.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    });
    Some(SignatureHelp { label, documentation, parameters, active })
}

/// The key of the `- key: value` item on the cursor's line (all of it, also what lies after
/// the cursor), or what the item says so far.
fn item_key(masked: &str, offset: usize) -> String {
    let start = syntax::line_index::line_start(masked, offset);
    let line = masked[start..].split('\n').next().unwrap_or("");
    let item = line.trim_start().strip_prefix('-').unwrap_or("");
    item.split(':').next().unwrap_or("").trim().to_string()
}
