//! Go to definition and find references.

use std::path::Path;

use crate::resolve::*;
use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn goto_definition(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Vec<NavTarget>> {
    if snap.too_large(path) {
        return Ok(Vec::new());
    }
    if let Some(targets) = crate::explain::mapstack::definition(snap, path, offset) {
        return Ok(targets);
    }
    let Some(item) = item_at(snap, path, offset) else { return templated_definition(snap, path, offset) };
    let env = file_env(snap, path);
    let mut out = match item {
        Item::Include(i) => match include_target(snap, path, &i) {
            Some((ienv, name)) => files(resolve_sls(snap, &ienv, &name, &env)),
            None => Vec::new(),
        },
        Item::Exclude(e) if e.kind == "id" => decls(extend_like(snap, path, &e.value)?),
        Item::Exclude(e) => files(resolve_sls(snap, &env, &e.value, &env)),
        Item::Requisite(r) if r.key == "sls" => files(resolve_sls(snap, &env, &r.value, &env)),
        Item::Requisite(r) => decls(requisite_targets(snap, path, &r)?),
        Item::Extend(e) => decls(extend_targets(snap, path, &e)?),
        Item::Url(u) => {
            url_target(snap, path, &u).map(|p| NavTarget { path: p, full_range: 0..0, focus_range: 0..0, name: u.url.clone() }).into_iter().collect()
        }
        Item::TopSls(section, sls) => files(resolve_sls(snap, &section.env, &sls.name, &section.env)),
        Item::Function(_, f) => crate::explain::state_docs::custom_definition(snap, &f).into_iter().collect(),
        Item::Id(_) | Item::Argument(..) | Item::TopEnv(_) | Item::TopTarget(..) => Vec::new(),
    };
    out.sort();
    out.dedup();
    Ok(out)
}

/// Go to definition on a Jinja expression (`- {{ sls_package_install }}`, `- pkg: {{ id }}`):
/// each value it takes for the selected minion, as an SLS name (relative to this file, as an
/// include resolves it) or else as a state ID of the file's include closure.
fn templated_definition(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Vec<NavTarget>> {
    let Some(probed) = crate::explain::jinja_values::probe(snap, path, offset) else { return Ok(Vec::new()) };
    let Ok(seen) = &probed.outcome else { return Ok(Vec::new()) };
    let world = snap.world();
    let env = file_env(snap, path);
    let mut out = Vec::new();
    for value in crate::explain::jinja_values::distinct(&seen.values, 0) {
        let name = match world.sls_of(path) {
            Some((_, sls, is_init)) => model::state::highstate::resolve_relative(&sls, is_init, value),
            None => Some(value.to_string()),
        };
        let found = name.map(|n| resolve_sls(snap, &env, &n, &env)).unwrap_or_default();
        if !found.is_empty() {
            out.extend(files(found));
        } else {
            out.extend(decls(extend_like(snap, path, value)?));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn extend_like(snap: &Snapshot, path: &Path, id: &str) -> Cancellable<Vec<Decl>> {
    let key = model::check::summary::ExtendKey { id: id.to_string(), span: 0..0, functions: Vec::new() };
    extend_targets(snap, path, &key)
}

fn files(found: Vec<model::workspace::roots::StateFile>) -> Vec<NavTarget> {
    found
        .into_iter()
        .map(|f| {
            // The file's own name, as the roots list it (`/formulas/x` and `pkg.` load
            // `formulas.x` and `pkg`).
            let served = model::workspace::roots::served_path(f.source.trim_start_matches("salt://")).unwrap_or_default();
            let name = model::workspace::roots::sls_name_of(&served).unwrap_or_default();
            NavTarget { path: f.path, full_range: 0..0, focus_range: 0..0, name }
        })
        .collect()
}

fn decls(found: Vec<Decl>) -> Vec<NavTarget> {
    found.into_iter().map(|d| NavTarget { path: d.path, full_range: d.decl.full_span.clone(), focus_range: d.decl.span.clone(), name: d.decl.id }).collect()
}

/// What the references query is about at `offset`.
enum Subject {
    Decls(Vec<Decl>),
    Sls(SlsTarget),
}

fn subject(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Option<Subject>> {
    let env = file_env(snap, path);
    let sls = |env: String, name: String| {
        let file = snap.world().ctx.roots.get_state(&env, &name).map(|f| f.path);
        Subject::Sls(SlsTarget { env, name, file })
    };
    Ok(match item_at(snap, path, offset) {
        Some(Item::Id(d)) | Some(Item::Function(d, _)) => Some(Subject::Decls(vec![Decl { path: path.to_path_buf(), decl: d }])),
        Some(Item::Requisite(r)) if r.key == "sls" => Some(sls(env, r.value)),
        Some(Item::Requisite(r)) => Some(Subject::Decls(requisite_targets(snap, path, &r)?)),
        Some(Item::Extend(e)) => Some(Subject::Decls(extend_targets(snap, path, &e)?)),
        Some(Item::Include(i)) => include_target(snap, path, &i).map(|(e, n)| sls(e, n)),
        Some(Item::Exclude(e)) if e.kind != "id" => Some(sls(env, e.value)),
        Some(Item::TopSls(section, s)) => Some(sls(section.env, s.name)),
        Some(_) => None,
        // Anywhere else in an SLS file: the file's own SLS.
        None => snap.world().sls_of(path).map(|(env, name, _)| Subject::Sls(SlsTarget { env, name, file: Some(path.to_path_buf()) })),
    })
}

pub(crate) fn references(snap: &Snapshot, path: &Path, offset: usize, include_declaration: bool) -> Cancellable<Vec<FileRange>> {
    if snap.too_large(path) {
        return Ok(Vec::new());
    }
    let mut out = match subject(snap, path, offset)? {
        None => Vec::new(),
        Some(Subject::Decls(ds)) => {
            let mut out = Vec::new();
            for d in &ds {
                out.extend(decl_references(snap, &d.path, &d.decl)?);
                if include_declaration {
                    out.push(FileRange { path: d.path.clone(), range: d.decl.span.clone() });
                }
            }
            out
        }
        Some(Subject::Sls(target)) => sls_references(snap, &target).into_iter().map(|(r, _)| r).collect(),
    };
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests;
