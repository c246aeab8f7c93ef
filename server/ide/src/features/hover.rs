//! Hover: what the item under the cursor is and where it comes from.

use std::path::Path;

use crate::resolve::*;
use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn hover(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Option<HoverResult>> {
    if snap.too_large(path) {
        return Ok(None);
    }
    if let Some(h) = crate::explain::mapstack::hover(snap, path, offset) {
        return Ok(Some(h));
    }
    if let Some(h) = crate::explain::pillar::hover(snap, path, offset) {
        return Ok(Some(h));
    }
    if let Some(h) = jinja_hover(snap, path, offset) {
        return Ok(Some(h));
    }
    let Some(item) = item_at(snap, path, offset) else { return Ok(None) };
    let world = snap.world();
    let env = file_env(snap, path);
    let range = item.range();
    let markdown = match &item {
        Item::Include(i) => {
            let mut out = format!("**include** `{}`\n", i.raw);
            match include_target(snap, path, i) {
                None => out.push_str("\nThis relative include climbs above the top of the file roots: Salt refuses it.\n"),
                Some((ienv, name)) => {
                    let found = resolve_sls(snap, &ienv, &name, &env);
                    if found.is_empty() {
                        let file = name.replace('.', "/");
                        out.push_str(&format!(
                            "\nSLS `{name}` in environment `{ienv}`: **not found** (Salt looks for `{file}.sls`, then `{file}/init.sls`).\n"
                        ));
                    }
                    for f in found {
                        let sls = model::workspace::roots::sls_name_of(f.source.trim_start_matches("salt://")).unwrap_or_default();
                        out.push_str(&format!("\nSLS `{sls}` in environment `{}`\n\nFile: `{}` (`{}`)\n", f.env, world.rel(&f.path), f.source));
                    }
                }
            }
            out
        }
        Item::Function(_, f) if crate::explain::state_docs::hover_function(snap, f).is_some() => {
            crate::explain::state_docs::hover_function(snap, f).unwrap_or_default()
        }
        Item::Argument(f, name, _) => match crate::explain::state_docs::hover_argument(snap, f, name) {
            Some(h) => h,
            None => return Ok(None),
        },
        Item::Id(d) | Item::Function(d, _) => {
            let mut out = format!("**state ID** `{}`\n", d.id);
            if !d.functions.is_empty() {
                let funs: Vec<String> = d.functions.iter().map(|f| format!("`{}.{}`", f.module, f.function.as_deref().unwrap_or("?"))).collect();
                out.push_str(&format!("\nState functions: {}\n", funs.join(", ")));
            }
            if let Some((senv, name, _)) = world.sls_of(path) {
                out.push_str(&format!("\nDeclared in SLS `{name}` (environment `{senv}`), `{}`\n", world.rel(path)));
                let target = SlsTarget { env: senv.clone(), name: name.clone(), file: Some(path.to_path_buf()) };
                let refs: Vec<_> = sls_references(snap, &target).into_iter().filter(|(_, k)| matches!(k, SlsRefKind::Include | SlsRefKind::Top)).collect();
                if !refs.is_empty() {
                    out.push_str("\nPulled in by:\n");
                    for (r, kind) in &refs {
                        let line = snap.line_index(&r.path).map_or(0, |li| li.human(r.range.start).0);
                        let what = if *kind == SlsRefKind::Top { "top file" } else { "include" };
                        out.push_str(&format!("- {what} in `{}`:{line}\n", world.rel(&r.path)));
                    }
                }
                out.push_str(&highstate_line(snap, path)?);
                out.push_str(&run_line(snap, &name, &d.id)?);
            }
            out
        }
        Item::Requisite(r) => {
            let mut out = format!("**{}** `{}: {}`\n", r.kind, r.key, r.value);
            if r.key == "sls" {
                for f in resolve_sls(snap, &env, &r.value, &env) {
                    out.push_str(&format!("\nEvery state of SLS `{}` (and of what it includes), `{}`\n", r.value, world.rel(&f.path)));
                }
            } else {
                let targets = requisite_targets(snap, path, r)?;
                if targets.is_empty() {
                    out.push_str("\nNo state in this file's include closures has this ID or name.\n");
                }
                for t in targets {
                    let line = snap.line_index(&t.path).map_or(0, |li| li.human(t.decl.span.start).0);
                    out.push_str(&format!("\n→ `{}` in `{}`:{line}\n", t.decl.id, world.rel(&t.path)));
                }
            }
            out
        }
        Item::Extend(e) => {
            let mut out = format!("**extend** `{}`\n", e.id);
            for t in extend_targets(snap, path, e)? {
                out.push_str(&format!("\n→ declared in `{}`\n", world.rel(&t.path)));
            }
            out
        }
        Item::Url(u) => match url_target(snap, path, u) {
            Some(p) => format!("**{}**\n\nFile: `{}`\n", u.url, world.rel(&p)),
            None => format!("**{}**\n\nNo such file under the file roots of environment `{}`.\n", u.url, u.env.clone().unwrap_or(env)),
        },
        Item::Exclude(e) => format!("**exclude** {} `{}`\n", e.kind, e.value),
        Item::TopEnv(e) => crate::explain::top_files::hover_env(snap, path, e),
        Item::TopTarget(e, t) => crate::explain::top_files::hover_target(snap, path, e, t),
        Item::TopSls(e, s) => {
            let mut out = format!("**SLS** `{}` in environment `{}`\n", s.name, e.env);
            let found = resolve_sls(snap, &e.env, &s.name, &e.env);
            if found.is_empty() {
                out.push_str("\n**not found** in this environment's file roots.\n");
            }
            for f in found {
                out.push_str(&format!("\nFile: `{}`\n", world.rel(&f.path)));
            }
            out
        }
    };
    Ok(Some(HoverResult { range, markdown }))
}

/// On a Jinja expression, or a `set` / `import` that binds names: what it evaluates to when the
/// file is rendered for the selected minion (every value, when a loop visits it several times).
fn jinja_hover(snap: &Snapshot, path: &Path, offset: usize) -> Option<HoverResult> {
    let probed = crate::explain::jinja_values::probe(snap, path, offset)?;
    let probe = &probed.probe;
    let mut out = format!("**Jinja** `{}`\n", probe.what.join("`, `"));
    match &probed.outcome {
        Err(e) => out.push_str(&format!("\n{e}\n")),
        Ok(crate::explain::jinja_values::Seen { minion, values: seen, failure }) => {
            if seen.is_empty() {
                match failure {
                    Some(e) => out.push_str(&format!("\nFor minion `{minion}` the file does not render: {e}\n")),
                    None => out.push_str(&format!("\nFor minion `{minion}` this is not evaluated (a branch or loop it does not take).\n")),
                }
            }
            for (i, name) in probe.what.iter().enumerate() {
                let values = crate::explain::jinja_values::distinct(seen, i);
                let label = if probe.what.len() > 1 { format!("`{name}` ") } else { String::new() };
                match values.as_slice() {
                    [] => {}
                    [one] => out.push_str(&format!("\n{label}for minion `{minion}`:\n```\n{one}\n```\n")),
                    many => {
                        out.push_str(&format!("\n{label}for minion `{minion}`, {} values:\n", many.len()));
                        for v in many.iter().take(10) {
                            out.push_str(&format!("```\n{v}\n```\n"));
                        }
                    }
                }
            }
        }
    }
    Some(HoverResult { range: probe.block.clone(), markdown: out })
}

/// Whether the selected minion's highstate renders the file, and through which top entry.
fn highstate_line(snap: &Snapshot, path: &Path) -> Cancellable<String> {
    let Ok((minion, result, _)) = crate::explain::top_files::compile(snap, None) else { return Ok(String::new()) };
    let roots = &snap.world().ctx.roots;
    let mut via = Vec::new();
    for (env, list) in &result.matches {
        for sls in list {
            let Some(file) = roots.get_state(env, sls) else { continue };
            let rel = file.source.trim_start_matches("salt://").to_string();
            let contains = snap.with_index(|idx| idx.root(env, &rel).is_some_and(|r| r.closure.iter().any(|c| c == path)))?;
            if contains {
                via.push(format!("`{env}:{sls}`"));
            }
        }
    }
    Ok(if via.is_empty() {
        format!("\nNot in the highstate of minion `{}`.\n", minion.id)
    } else {
        format!("\nIn the highstate of minion `{}` through {}\n", minion.id, via.join(", "))
    })
}

/// Where the states of ID `id` (declared in SLS `sls`) run in the selected minion's
/// highstate: "runs 3rd of 12, after `a` (require), before `b` (watch)".
fn run_line(snap: &Snapshot, sls: &str, id: &str) -> Cancellable<String> {
    let Some((minion, plan)) = snap.with_highstate(|idx| idx.highstate.plan())? else { return Ok(String::new()) };
    let plan = match &*plan {
        Ok(plan) => plan,
        Err(_) => return Ok(format!("\nThe highstate of minion `{minion}` does not compile, so no state of it runs.\n")),
    };
    let total = plan.states.len();
    let id_of = |tag: &str| plan.states.iter().find(|s| s.tag == tag).map_or_else(|| tag.to_string(), |s| s.id.clone());
    let list = |deps: &[(String, &str)]| {
        let mut parts: Vec<String> = Vec::new();
        for (tag, kind) in deps {
            let part = format!("`{}` ({kind})", id_of(tag));
            if !parts.contains(&part) {
                parts.push(part);
            }
        }
        parts.join(", ")
    };
    let mut out = String::new();
    let ours: Vec<_> = plan.of_id(id).filter(|(_, s)| s.sls == sls).collect();
    for (at, s) in &ours {
        let what = if ours.len() > 1 { format!("`{}.{}` (`{}`) runs", s.state, s.fun, s.name) } else { "Runs".to_string() };
        let mut line = format!("\n{what} {} of {total} in the highstate of `{minion}`", ordinal(at + 1));
        if !s.after.is_empty() {
            line.push_str(&format!(", after {}", list(&s.after)));
        }
        if !s.before.is_empty() {
            line.push_str(&format!(", before {}", list(&s.before)));
        }
        out.push_str(&line);
        if !s.may_wait.is_empty() {
            out.push_str(&format!(
                "; `parallel`, so it may be put off while {} still runs",
                s.may_wait.iter().map(|t| format!("`{}`", id_of(t))).collect::<Vec<_>>().join(", ")
            ));
        }
        out.push('\n');
        for l in plan.listeners.iter().filter(|l| l.of.as_deref() == Some(s.tag.as_str())) {
            let mut on: Vec<String> = Vec::new();
            for (_, t) in &l.triggers {
                let id = format!("`{}`", id_of(t));
                if !on.contains(&id) {
                    on.push(id);
                }
            }
            out.push_str(&format!("\nIts `listen` runs `{}.mod_watch` after every state if {} reports changes\n", l.state, on.join(" or ")));
        }
    }
    Ok(out)
}

/// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `12th`, `13th`, `21st`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests;
