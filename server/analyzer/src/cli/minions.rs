//! Which minions a command answers for: the one `--minion` names (a profile or a fleet
//! minion), the fleet, compiling for the one minion and running a command for each of a
//! fleet's minions in parallel.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use model::pipeline::{Compiled, Request, Scope, Who};
use model::workspace::roots::FileRoots;
use model::workspace::vfs::{RealFs, Vfs};
use model::workspace::Workspace;
use serde_json::json;

use super::options::{disk, load_workspace, Common, Format};
use super::output::few;
use crate::out::{errln, out, outln};

/// The minion `--minion` names: a profile, else a minion of the fleet (`--fleet PATH` or the
/// workspace's `fleet:`) with that id; no `--minion`: the default one.
pub(crate) fn who_of(ws: &Workspace, common: &Common) -> Who {
    let Some(name) = &common.minion else { return Who::Default };
    if ws.profiles.contains_key(name) {
        return Who::Profile(name.clone());
    }
    if let Ok(paths) = fleet_paths(ws, common) {
        let fleet = model::workspace::fleet::read(&RealFs, &paths);
        if let Some(m) = fleet.minions.into_iter().find(|m| &m.id == name) {
            return Who::Fleet(m);
        }
    }
    Who::Profile(name.clone())
}

/// The fleet sources: `--fleet PATH`, else (`--fleet` alone, or `--minion` looking for a
/// fleet minion) the workspace's `fleet:`.
pub(super) fn fleet_paths(ws: &Workspace, common: &Common) -> Result<Vec<PathBuf>, String> {
    match &common.fleet.fleet {
        Some(Some(p)) => Ok(vec![std::env::current_dir().unwrap_or_default().join(p)]),
        _ if !ws.fleet.is_empty() => Ok(ws.fleet.clone()),
        _ => Err("no fleet: give `--fleet PATH`, or `fleet:` in salt-analyzer.yaml".into()),
    }
}

/// The fleet's minions as the pipeline takes them (a profile with the same id wins), with
/// the shard `--shard` asks for, and what could not be read.
pub(crate) fn fleet_who(ws: &Workspace, common: &Common) -> Result<(Vec<Who>, model::workspace::fleet::Fleet), ExitCode> {
    let paths = fleet_paths(ws, common).map_err(|e| {
        errln!("salt-analyzer: error: {e}");
        ExitCode::from(2)
    })?;
    let mut fleet = model::workspace::fleet::read(&RealFs, &paths);
    if let Some((k, n)) = common.fleet.shard {
        fleet.shard(k, n);
    }
    let who = fleet.minions.iter().map(|m| if ws.profiles.contains_key(&m.id) { Who::Profile(m.id.clone()) } else { Who::Fleet(m.clone()) }).collect();
    Ok((who, fleet))
}

/// The workspace and its fleet ([`fleet_who`]), each part that could not be read said on
/// stderr (stdout stays the command's answer).
pub(super) fn load_fleet(common: &Common) -> Result<(Workspace, Vec<Who>, model::workspace::fleet::Fleet), ExitCode> {
    let ws = load_workspace(common)?;
    let (who, fleet) = fleet_who(&ws, common)?;
    for p in &fleet.problems {
        errln!("salt-analyzer: error: {p}");
    }
    Ok((ws, who, fleet))
}

/// One minion's answer in a fleet command, made on the thread that compiled it (the compile
/// itself is dropped there).
#[derive(Default)]
pub(super) struct Answer {
    pub(super) id: String,
    /// What the one-minion command prints with `--format json`.
    pub(super) json: serde_json::Value,
    /// What it prints as text.
    pub(super) text: String,
    /// `(saltenv, sls)` the minion gets, for the matrix of `top` and `lowstate`.
    pub(super) sls: Vec<(String, String)>,
    /// Errors as text, printed once for every minion that has them.
    pub(super) errors: Vec<String>,
    pub(super) failed: bool,
}

/// Runs a command for every minion of the fleet, compiles in parallel, answers printed in the
/// fleet's order as they come: JSON is one object mapping each id to what the command prints
/// for that minion; text is the matrix of which minions get which SLS (`matrix`), else each
/// minion's text under its id.
pub(super) fn fleet_run(
    common: &Common,
    scope: impl Fn(&Workspace) -> Scope,
    saltenv: Option<&str>,
    matrix: bool,
    answer: impl Fn(&Compiled) -> Answer + Sync,
) -> ExitCode {
    let (ws, who, fleet) = match load_fleet(common) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let scope = scope(&ws);
    let roots = Arc::new(FileRoots::scan(disk(), &ws.opts.served_roots()));
    let (fs, memo): (Arc<dyn Vfs>, model::pipeline::Memo) = (Arc::new(disk()), model::pipeline::Memo::sharing());
    let work = |w: &Who| {
        let req = Request { minion: w.clone(), saltenv: saltenv.map(str::to_string), scope: scope.clone() };
        let compiled = model::pipeline::compile_with(fs.clone(), &ws, &roots, &req, &memo);
        match &compiled.minion {
            Ok(m) => Answer { id: m.id.clone(), ..answer(&compiled) },
            Err(e) => {
                Answer { id: who_id(w), json: json!({"errors": [e.to_string()]}), errors: vec![format!("error: {e}")], failed: true, ..Answer::default() }
            }
        }
    };
    let mut failed = !fleet.problems.is_empty();
    let mut matrix_rows: indexmap::IndexMap<(String, String), Vec<String>> = indexmap::IndexMap::new();
    let mut errors: indexmap::IndexMap<String, Vec<String>> = indexmap::IndexMap::new();
    let mut nothing = Vec::new();
    let json = common.format == Format::Json;
    // Written as the answers come; a closed pipe (`| head`) ends the run with exit 0.
    if json {
        out!("{{");
    }
    model::pipeline::each_in_parallel(&who, model::pipeline::parallelism(), work, |i, a| {
        failed |= a.failed;
        if json {
            let value = serde_json::to_string_pretty(&a.json).unwrap_or_default().replace('\n', "\n  ");
            out!("{}\n  {}: {value}", if i == 0 { "" } else { "," }, json!(a.id));
            return;
        }
        for e in a.errors {
            errors.entry(e).or_default().push(a.id.clone());
        }
        if !matrix {
            outln!("== minion `{}` ==\n{}", a.id, a.text);
        } else if a.sls.is_empty() && !a.failed {
            nothing.push(a.id);
        } else {
            for k in a.sls {
                matrix_rows.entry(k).or_default().push(a.id.clone());
            }
        }
    });
    if json {
        outln!("{}}}", if who.is_empty() { "" } else { "\n" });
    } else {
        if matrix {
            out!("{}", matrix_text(&matrix_rows, &nothing, who.len()));
        }
        for (e, minions) in &errors {
            outln!("{}:\n{e}", few(minions));
        }
    }
    sharing_stats(who.len(), &memo);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// For tests and benchmarks (`SALT_ANALYZER_FLEET_STATS=1`, on stderr): how many distinct
/// compiles a run's minions shared.
pub(super) fn sharing_stats(minions: usize, memo: &model::pipeline::Memo) {
    if std::env::var_os("SALT_ANALYZER_FLEET_STATS").is_some_and(|v| v == "1") {
        errln!("fleet stats: {minions} minions, {} distinct compiles kept for sharing", memo.shared_compiles());
    }
}

/// The id a minion request is for, before it is compiled.
pub(super) fn who_id(w: &Who) -> String {
    match w {
        Who::Profile(id) => id.clone(),
        Who::Fleet(m) => m.id.clone(),
        Who::Default | Who::Config => String::new(),
    }
}

/// Which minions get which SLS in which saltenv: per saltenv, the SLS that the same minions
/// get on one line (a few named, then a count), with how many minions get them and which.
pub(super) fn matrix_text(rows: &indexmap::IndexMap<(String, String), Vec<String>>, nothing: &[String], total: usize) -> String {
    let mut envs: indexmap::IndexMap<&str, indexmap::IndexMap<&[String], Vec<&str>>> = indexmap::IndexMap::new();
    for ((env, sls), minions) in rows {
        envs.entry(env.as_str()).or_default().entry(minions.as_slice()).or_default().push(sls.as_str());
    }
    let name = |sls: &[&str]| if sls.len() <= 4 { sls.join(", ") } else { format!("{} and {} more SLS", sls[..3].join(", "), sls.len() - 3) };
    let width = envs.values().flat_map(|g| g.values()).map(|sls| name(sls).chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (env, groups) in &envs {
        out.push_str(&format!("{env}:\n"));
        for (minions, sls) in groups {
            let all = if minions.len() == total { " (all)" } else { "" };
            out.push_str(&format!("  {:width$}  {:>5} of {total}{all}  {}\n", name(sls), minions.len(), few(minions)));
        }
    }
    if !nothing.is_empty() {
        out.push_str(&format!("no SLS: {:>5} of {total}  {}\n", nothing.len(), few(nothing)));
    }
    out
}

/// Compiles `scope` for the minion the options name, through the one pipeline; exit 2 when the
/// profile cannot be read.
pub(super) fn compile(ws: &Workspace, common: &Common, saltenv: Option<&str>, scope: Scope) -> Result<Compiled, ExitCode> {
    let roots = Arc::new(FileRoots::scan(disk(), &ws.opts.served_roots()));
    let mut req = Request { minion: who_of(ws, common), saltenv: None, scope };
    req.saltenv = saltenv.map(str::to_string);
    let compiled = model::pipeline::compile(Arc::new(disk()), ws, &roots, &req);
    if let Err(e) = &compiled.minion {
        errln!("salt-analyzer: error: {e}");
        return Err(ExitCode::from(2));
    }
    Ok(compiled)
}

/// The workspace of the current directory, then [`compile`] of `scope` in it.
pub(super) fn load_and_compile(common: &Common, saltenv: Option<&str>, scope: Scope) -> Result<Compiled, ExitCode> {
    compile(&load_workspace(common)?, common, saltenv, scope)
}
