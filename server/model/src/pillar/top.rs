//! The pillar's top files (`salt/pillar/__init__.py` `Pillar.get_tops`, `merge_tops`,
//! `sort_top_targets`, `top_matches`): unlike the state top, every section of every top file is
//! merged, targets are sorted by `order`, `ignore_missing` is kept per environment, matched SLS
//! names are de-duplicated, and dict items never add other environments.

use std::path::PathBuf;

use indexmap::IndexMap;
use serde_json::Value;

use crate::render::context::JinjaSetup;
use crate::targeting::matchers::{self, MatchContext};
use crate::targeting::top::{render_top, TopDoc, Tops};
use crate::targeting::Matches;
use crate::value::{Loc, Val, V};
use crate::workspace::reads;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

use super::error::PillarError;

/// One target of the merged pillar top: `[match dicts...] + [SLS names...]`, its `order` and
/// where it was written.
#[derive(Debug, Clone)]
pub struct PillarTarget {
    pub target: Val,
    pub body: Vec<Val>,
    pub order: i64,
    pub source: Option<PathBuf>,
}

/// The merged pillar top: section -> targets (sorted by `order`), and the SLS names each
/// environment's `ignore_missing` targets name.
#[derive(Debug, Clone, Default)]
pub struct PillarTop {
    pub sections: IndexMap<String, Vec<PillarTarget>>,
    pub ignored: IndexMap<String, Vec<String>>,
}

/// What `get_tops` and `merge_tops` need to know besides the roots.
pub struct TopOptions<'a> {
    pub state_top: &'a str,
    pub pillarenv: Option<&'a str>,
    /// `pillar_source_merging_strategy: none` reads only this environment's top.
    pub none_strategy_env: Option<&'a str>,
}

/// `Pillar._get_envs`: `base`, then the `pillar_roots` keys in configuration order.
pub fn get_envs(roots: &FileRoots) -> Vec<String> {
    let mut envs = vec!["base".to_string()];
    envs.extend(roots.env_names().filter(|e| *e != "base").map(str::to_string));
    envs
}

/// `Pillar.get_tops`: the top documents per environment and the errors Salt collects.
pub fn get_tops(
    fs: &dyn Vfs,
    roots: &FileRoots,
    files: &mut FileTable,
    jinja: &JinjaSetup,
    o: &TopOptions,
    errors: &mut Vec<PillarError>,
) -> IndexMap<String, Vec<TopDoc>> {
    let mut tops: IndexMap<String, Vec<TopDoc>> = IndexMap::new();
    let saltenvs: Vec<String> = match o.pillarenv {
        Some(env) if roots.envs.contains_key(env) => vec![env.to_string()],
        Some(_) => Vec::new(),
        None => {
            let all = get_envs(roots);
            match o.none_strategy_env {
                Some(only) => all.into_iter().filter(|e| e == only).collect(),
                None => all,
            }
        }
    };
    let top_rel = o.state_top.trim_start_matches("salt://").trim_start_matches('/').to_string();
    for env in saltenvs {
        let Some(path) = reads::find_file(fs, roots, &env, &top_rel) else { continue };
        let mut scratch = Tops::default();
        let doc = render_top(fs, &path, &env, files, &mut scratch, None, Some(jinja), &top_rel);
        if let Some(e) = scratch.errors.into_iter().chain(scratch.raised).next() {
            // The first failure ends the loop: later environments' tops are not read.
            let detail = e.message.trim_start_matches("Unable to render top file: ").to_string();
            errors.push(PillarError::new(format!("Rendering Primary Top file failed, render error:\n{detail}"), e));
            break;
        }
        tops.entry(env).or_default().push(doc);
    }
    // `include:` of the first tops (one level, exact names, each once per environment).
    let mut include: IndexMap<String, Vec<Val>> = IndexMap::new();
    for (env, docs) in tops.iter_mut() {
        for doc in docs.iter_mut() {
            if let Some((_, inc)) = doc.data.remove("include") {
                let items = match inc.v {
                    V::List(l) => l,
                    V::Dict(d) => d.keys().cloned().collect(),
                    _ => Vec::new(),
                };
                include.entry(env.clone()).or_default().extend(items);
            }
        }
    }
    for (env, names) in include {
        let mut done: Vec<String> = Vec::new();
        for item in names {
            let sls = item.py_str();
            if done.contains(&sls) {
                continue;
            }
            let doc = match reads::state(fs, roots, &env, &sls) {
                Some(f) => {
                    let rel = f.source.trim_start_matches("salt://").to_string();
                    let mut scratch = Tops::default();
                    let doc = render_top(fs, &f.path, &env, files, &mut scratch, Some(sls.clone()), Some(jinja), &rel);
                    match scratch.errors.into_iter().chain(scratch.raised).next() {
                        Some(e) => {
                            let detail = e.message.trim_start_matches("Unable to render top file: ").to_string();
                            errors.push(PillarError::new(format!("Rendering Top file {sls} failed, render error:\n{detail}"), e));
                            None
                        }
                        None => Some(doc),
                    }
                }
                // `compile_template(False)`: `{}`.
                None => Some(TopDoc { env: env.clone(), path: None, data: Default::default(), included_as: Some(sls.clone()) }),
            };
            if let Some(doc) = doc {
                tops.entry(env.clone()).or_default().push(doc);
            }
            done.push(sls);
        }
    }
    tops
}

/// `Pillar.merge_tops` and `sort_top_targets`. `Err` is the `TypeError` that `get_top` turns
/// into "Error encountered while rendering pillar top file." (and an empty top).
pub fn merge_tops(tops: &IndexMap<String, Vec<TopDoc>>) -> Result<PillarTop, Option<Loc>> {
    let mut top = PillarTop::default();
    for doc in tops.values().flatten() {
        for (section, targets) in &doc.data.0 {
            let env = section.py_str();
            if env == "include" {
                continue;
            }
            let targets = match &targets.v {
                V::Dict(d) => d.0.clone(),
                V::List(l) if l.is_empty() => Vec::new(),
                V::Str(s) if s.is_empty() => Vec::new(),
                // `ctop[saltenv][tgt]` on a list or a string, `for tgt in None`: TypeError.
                _ => return Err(targets.at.clone()),
            };
            for (tgt, body) in targets {
                let comps: Vec<Val> = match &body.v {
                    V::List(l) => l.clone(),
                    V::Dict(d) => d.keys().cloned().collect(),
                    V::Str(s) => s.chars().map(|c| Val { v: V::Str(c.to_string()), at: body.at.clone() }).collect(),
                    _ => return Err(body.at.clone()),
                };
                let mut matches = Vec::new();
                let mut states: Vec<Val> = Vec::new();
                let mut order = 0i64;
                let mut ignore_missing = false;
                for comp in comps {
                    match &comp.v {
                        V::Dict(d) => {
                            if d.contains("match") {
                                matches.push(comp.clone());
                            }
                            if let Some(o) = d.get("order") {
                                order = int_or_zero(o);
                            }
                            if d.get("ignore_missing").is_some_and(Val::truthy) {
                                ignore_missing = true;
                            }
                        }
                        V::Str(s) if !states.iter().any(|x| x.as_str() == Some(s)) => states.push(comp.clone()),
                        _ => {}
                    }
                }
                if ignore_missing {
                    top.ignored.entry(env.clone()).or_default().extend(states.iter().map(Val::py_str));
                }
                matches.extend(states);
                let list = top.sections.entry(env.clone()).or_default();
                match list.iter_mut().find(|t| t.target == tgt) {
                    Some(t) => {
                        t.body = matches;
                        t.order = order;
                        t.source = doc.path.clone();
                    }
                    None => list.push(PillarTarget { target: tgt.clone(), body: matches, order, source: doc.path.clone() }),
                }
            }
        }
    }
    for targets in top.sections.values_mut() {
        targets.sort_by_key(|t| t.order);
    }
    Ok(top)
}

/// `int(order)` for a value that is not an int, `0` when Python's `int()` raises `ValueError`.
fn int_or_zero(v: &Val) -> i64 {
    match &v.v {
        V::Int(i) => *i,
        V::Bool(b) => i64::from(*b),
        V::Float(f) if f.is_finite() => f.trunc() as i64,
        V::Str(s) => s.trim().replace('_', "").parse().unwrap_or(0),
        _ => 0,
    }
}

/// What matched and why, per target.
#[derive(Debug, Clone)]
pub struct PillarTargetDecision {
    pub section: String,
    pub target: String,
    pub source: Option<PathBuf>,
    pub loc: Option<Loc>,
    pub matched: bool,
    pub explanation: String,
}

/// A target whose matcher raises: Salt's `top_matches` does not catch it, so the pillar
/// compile (and the `salt-call` around it) fails.
#[derive(Debug, Clone)]
pub struct TargetRaised {
    pub message: String,
    pub loc: Option<Loc>,
}

/// `Pillar.top_matches`: the SLS names per environment for the minion (de-duplicated, dict
/// items ignored), only the `pillarenv` section when one is set; `Err` at the first target
/// whose matcher raises.
pub fn top_matches(top: &PillarTop, ctx: &MatchContext, pillarenv: Option<&str>) -> Result<(Matches, Vec<PillarTargetDecision>), TargetRaised> {
    let mut matches = Matches::new();
    let mut decisions = Vec::new();
    for (env, targets) in &top.sections {
        if pillarenv.is_some_and(|p| p != env) {
            continue;
        }
        for t in targets {
            let body = Value::Array(t.body.iter().map(Val::to_json).collect());
            let outcome = matchers::confirm_top_value(ctx, &t.target.to_json(), &body, matchers::TOP_DEFAULT_MATCHER);
            decisions.push(PillarTargetDecision {
                section: env.clone(),
                target: t.target.py_str(),
                source: t.source.clone(),
                loc: t.target.at.clone(),
                matched: outcome.matched,
                explanation: outcome.explanation.clone(),
            });
            if let Some(e) = outcome.errors.iter().find(|e| e.fatal).or_else(|| first_fatal(&outcome.parts)) {
                return Err(TargetRaised { message: e.message.clone(), loc: t.target.at.clone() });
            }
            if !outcome.matched {
                continue;
            }
            let list = matches.entry(env.clone()).or_default();
            for item in &t.body {
                if let Some(s) = item.as_str() {
                    if !list.iter().any(|x| x == s) {
                        list.push(s.to_string());
                    }
                }
            }
        }
    }
    Ok((matches, decisions))
}

/// The first raising error among a compound's or nodegroup's parts.
fn first_fatal(parts: &[crate::targeting::matchers::MatchOutcome]) -> Option<&crate::targeting::matchers::MatchError> {
    parts.iter().find_map(|p| p.errors.iter().find(|e| e.fatal).or_else(|| first_fatal(&p.parts)))
}
