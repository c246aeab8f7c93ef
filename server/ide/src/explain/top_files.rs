//! Minion profiles and the top-file explanation (`model::targeting::top`): which profile is selected,
//! the `top --explain` text, and what hovers on a top file's environment sections and
//! targets say for the selected minion.

use std::path::Path;

use model::check::summary::{TopEnv, TopTarget};
use model::pipeline::Scope;
use model::targeting::top::TopResult;
use model::workspace::minion::Minion;
use model::workspace::vfs::FileTable;

use crate::snapshot::Snapshot;
use crate::types::MinionInfo;

pub(crate) fn minions(snap: &Snapshot) -> Vec<MinionInfo> {
    let ws = &snap.world().ws;
    let chosen = snap.selected_minion();
    let fleet = &snap.world().fleet.minions;
    let in_fleet = |c: &String| fleet.iter().any(|m| &m.id == c);
    if ws.profiles.is_empty() && fleet.is_empty() {
        // No profiles: the minion the Salt configuration describes is the only one.
        let (salt, salt_source) = release(ws, &serde_json::Value::Null);
        return vec![MinionInfo { id: ws.opts.id.clone(), selected: true, source: "config", detail: String::new(), salt, salt_source }];
    }
    let chosen = chosen.filter(|c| ws.profiles.contains_key(c) || in_fleet(c)).or_else(|| ws.profiles.keys().next().cloned());
    let mut out: Vec<MinionInfo> = ws
        .profiles
        .iter()
        .map(|(id, p)| {
            let (salt, salt_source) = release(ws, &p.grains);
            MinionInfo { id: id.clone(), selected: Some(id) == chosen.as_ref(), source: "profile", detail: grains_detail(&p.grains), salt, salt_source }
        })
        .collect();
    out.extend(fleet.iter().filter(|m| !ws.profiles.contains_key(&m.id)).map(|m| {
        let (salt, salt_source) = release(ws, &m.grains);
        MinionInfo { id: m.id.clone(), selected: Some(&m.id) == chosen.as_ref(), source: "fleet", detail: grains_detail(&m.grains), salt, salt_source }
    }));
    out
}

/// The Salt release a minion with `grains` is answered for, and where it came from.
fn release(ws: &model::workspace::Workspace, grains: &serde_json::Value) -> (String, String) {
    let (v, source) = model::pipeline::release_for(&ws.opts, grains);
    (v.to_string(), source.to_string())
}

/// The grains people target by, as one searchable line (`os_family=Debian osfinger=Debian-12
/// roles=web,db ipv4=10.0.0.5`).
fn grains_detail(grains: &serde_json::Value) -> String {
    let shown = ["os", "os_family", "osfinger", "osarch", "roles", "role", "fqdn", "ipv4", "kernel", "virtual"];
    let mut parts = Vec::new();
    for key in shown {
        let text = match grains.get(key) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Array(items)) => {
                items.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect::<Vec<_>>().join(",")
            }
            Some(serde_json::Value::Null) | None => continue,
            Some(v) => v.to_string(),
        };
        parts.push(format!("{key}={text}"));
    }
    parts.join(" ")
}

/// The minion for `wanted` (else the selected one) and its compiled top.
pub(crate) fn compile(snap: &Snapshot, wanted: Option<&str>) -> Result<(Minion, TopResult, FileTable), String> {
    let compiled = snap.compile_for(wanted, snap.files.fork(), Scope::Top);
    let minion = compiled.minion.map_err(|e| e.to_string())?;
    let top = compiled.top.ok_or_else(|| "the top was not compiled".to_string())?;
    Ok((minion, top, compiled.files))
}

pub(crate) fn explain(snap: &Snapshot, wanted: Option<&str>) -> String {
    match compile(snap, wanted) {
        Ok((minion, result, files)) => result.explain_text(&minion.id, &files, &|p: &Path| snap.world().rel(p)),
        Err(e) => format!("error: {e}\n"),
    }
}

/// Hover text for an environment section of the top file at `path`.
pub(crate) fn hover_env(snap: &Snapshot, path: &Path, env: &TopEnv) -> String {
    let world = snap.world();
    let mut out = format!("**top-file section** `{}`\n", env.env);
    match compile(snap, None) {
        Ok((minion, result, _)) => match result.sections.iter().find(|s| s.section == env.env && s.path.as_deref() == Some(path)) {
            Some(s) => out.push_str(&format!(
                "\nFor minion `{}` on Salt {} (`top_file_merging_strategy: {}`): **{}**. {}\n",
                minion.id,
                release(&world.ws, &minion.grains).0,
                result.strategy,
                if s.used { "used" } else { "ignored" },
                s.reason.trim_start_matches("used: ").trim_start_matches("ignored: ")
            )),
            None => out.push_str(&format!("\nFor minion `{}`: this section is not read (this top file is not one Salt reads).\n", minion.id)),
        },
        Err(e) => out.push_str(&format!("\nThe top file could not be compiled: {e}\n")),
    }
    let others: Vec<String> = world
        .top_files()
        .into_iter()
        .filter(|(_, p)| p != path)
        .filter(|(_, p)| snap.summary(p).and_then(|s| s.top().map(|t| t.envs.iter().any(|e| e.env == env.env))).unwrap_or(false))
        .map(|(top_env, p)| format!("- `{}` ({top_env}'s top file)", world.rel(&p)))
        .collect();
    if !others.is_empty() {
        out.push_str(&format!("\nOther top files defining `{}`:\n{}\n", env.env, others.join("\n")));
    }
    out
}

/// Hover text for a target of a top-file section.
pub(crate) fn hover_target(snap: &Snapshot, path: &Path, env: &TopEnv, target: &TopTarget) -> String {
    let sls: Vec<&str> = target.sls.iter().map(|s| s.name.as_str()).collect();
    let written = target.matcher.as_deref().unwrap_or("compound");
    let body = match compile(snap, None) {
        Ok((minion, result, _)) => {
            match result.targets.iter().find(|t| t.section == env.env && t.target == target.target && t.source.as_deref() == Some(path)) {
                Some(t) => {
                    let mut out = format!("**target** `{}` in section `{}` (matcher `{}`)\n", target.target, env.env, t.matcher);
                    let salt = release(&snap.world().ws, &minion.grains).0;
                    out.push_str(&format!(
                        "\nMinion `{}` (Salt {salt}) **{}**: {}\n",
                        minion.id,
                        if t.matched { "matches" } else { "does not match" },
                        t.explanation
                    ));
                    for e in &t.errors {
                        out.push_str(&format!("\nerror: {e}\n"));
                    }
                    if !t.contributes.is_empty() {
                        let list: Vec<String> = t.contributes.iter().map(|(e, s)| format!("`{e}:{s}`")).collect();
                        out.push_str(&format!("\nAdds {}\n", list.join(", ")));
                    }
                    out
                }
                None => format!(
                    "**target** `{}` in section `{}` (matcher `{written}`)\n\nNot evaluated for minion `{}`: its section is not used.\n",
                    target.target, env.env, minion.id
                ),
            }
        }
        Err(e) => format!("**target** `{}` in section `{}` (matcher `{written}`)\n\nThe top file could not be compiled: {e}\n", target.target, env.env),
    };
    let mut out = body;
    if let Some(fleet) = crate::explain::fleet_tops::target_hover(snap, path, &env.env, &target.target) {
        out.push_str(&fleet);
    }
    if !sls.is_empty() {
        out.push_str(&format!("\nSLS: {}\n", sls.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")));
    }
    out
}

#[cfg(test)]
mod tests;
