//! Top-file compilation as Salt 3008 does it (`salt/state.py` `BaseHighState.get_tops`, `merge_tops`, `verify_tops`, `top_matches`): which top files
//! are read, how the merging strategies combine their sections, `verify_tops`, and which
//! targets match a minion, with the reason for every decision (the `top --explain` data the
//! editor shows on hover).

use std::path::PathBuf;

use indexmap::IndexMap;

use crate::diagnostic::{Code, SaltError};
use crate::py::fnmatch;
use crate::render::jinja::JinjaSetup;
use crate::targeting::matchers::{self, MatchContext};
use crate::targeting::Matches;
use crate::value::{Dict, Loc, Val, V};
use crate::workspace::config::Opts;
use crate::workspace::reads;
use crate::workspace::roots::get_envs;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// One rendered top file (or `{}` for an environment without one).
#[derive(Debug, Clone)]
pub struct TopDoc {
    /// The environment whose file roots it came from.
    pub env: String,
    pub path: Option<PathBuf>,
    pub data: Dict,
    /// The SLS name it was included as, for tops pulled in by `include:`.
    pub included_as: Option<String>,
}

/// `get_tops`: environment -> its top documents, in `_get_envs` order.
#[derive(Debug, Clone, Default)]
pub struct Tops {
    pub envs: IndexMap<String, Vec<TopDoc>>,
    /// Render failures (a top file that is not YAML, or uses Jinja we do not render yet).
    /// Salt raises `SaltRenderError` for the first one, which `get_top` catches: the whole
    /// top is then `{}` and nothing matches.
    pub errors: Vec<SaltError>,
    /// Problems Salt raises on that `get_top` does not catch, so `state.show_top`,
    /// `state.show_lowstate` and `state.apply` fail: a top file that renders to a list or a
    /// scalar (merging calls `.items()` on it), an `include:` that cannot be iterated.
    pub raised: Vec<SaltError>,
    /// Environments outside `_get_envs` whose SLS list `get_tops` asked `LazyAvailStates`
    /// for while globbing `include:` (a `saltenv` or `state_top_saltenv` top with includes).
    /// Asking adds them to `avail`, so later they count as available environments.
    pub listed_envs: Vec<String>,
}

/// A target in the merged top, with the file it came from.
#[derive(Debug, Clone)]
pub struct TopTarget {
    pub target: Val,
    pub body: Val,
    pub source: Option<PathBuf>,
}

/// The merged top: section env -> target -> body (a target written again keeps its place).
pub type MergedTop = IndexMap<String, Vec<TopTarget>>;

/// Why a section of a top file was used or ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionDecision {
    /// The environment whose top file holds the section.
    pub top_env: String,
    pub path: Option<PathBuf>,
    /// The section's name (the environment it assigns states in).
    pub section: String,
    pub loc: Option<Loc>,
    pub used: bool,
    pub reason: String,
}

/// Whether a target matched the minion, and what it contributed.
#[derive(Debug, Clone)]
pub struct TargetDecision {
    pub section: String,
    pub target: String,
    pub source: Option<PathBuf>,
    pub loc: Option<Loc>,
    pub matcher: String,
    pub matched: bool,
    pub explanation: String,
    pub errors: Vec<String>,
    /// `(env, sls)` pairs appended to the matches.
    pub contributes: Vec<(String, String)>,
}

/// Everything `state.show_top` computes, plus the reasons.
#[derive(Debug, Clone, Default)]
pub struct TopResult {
    pub matches: Matches,
    /// What `state.show_top` answers instead of the matches: `verify_tops` errors (which
    /// `state.apply` also returns and stops on), or, when there are none and Salt raises while
    /// merging or matching, the reason it raises ([`TopResult::raised`]).
    pub verify_errors: Vec<SaltError>,
    /// Salt raises instead of answering (a merge `No targets found`, a top file that renders to
    /// a list, a bad `pcre` regex, an unknown matcher): `state.show_top` (unless `verify_tops`
    /// failed first), `state.show_lowstate` and `state.apply` all fail with a traceback.
    pub raised: Option<SaltError>,
    /// The environments Salt's `avail` holds after `get_tops`: `base`, `_get_envs()`, and any
    /// env whose top `include:` list made Salt list its SLS files. Cross-env items naming
    /// other envs are dropped, and `render_highstate` reports them unavailable.
    pub avail_envs: Vec<String>,
    /// Rendering problems: Salt logs `Unable to render top file: ...` and uses an empty top,
    /// so nothing matches.
    pub render_errors: Vec<SaltError>,
    pub sections: Vec<SectionDecision>,
    pub targets: Vec<TargetDecision>,
    pub merged: MergedTop,
    pub strategy: String,
    pub env_order: Vec<String>,
}

/// `get_tops`.
pub fn get_tops(fs: &dyn Vfs, opts: &Opts, roots: &FileRoots, files: &mut FileTable, jinja: Option<&JinjaSetup>) -> Result<Tops, SaltError> {
    let mut tops = Tops::default();
    let strategy = opts.top_file_merging_strategy.as_str();
    if strategy == "same" && opts.saltenv.is_none() && opts.default_top.is_empty() {
        return Err(SaltError::new(Code::RenderError, "top_file_merging_strategy set to 'same', but no default_top configuration option was set"));
    }
    let top_rel = opts.state_top.trim_start_matches("salt://").trim_start_matches('/').to_string();
    let client_envs: Vec<String> = roots.env_names().map(str::to_string).collect();
    let envs: Vec<String> = if let Some(env) = &opts.saltenv {
        vec![env.clone()]
    } else if let Some(env) = opts.state_top_saltenv.as_ref().filter(|e| !e.is_empty()) {
        vec![env.clone()]
    } else {
        get_envs(opts, &client_envs)
    };
    let avail_envs = get_envs(opts, &client_envs);
    for env in envs {
        let doc = match reads::find_file(fs, roots, &env, &top_rel) {
            Some(path) => render_top(fs, &path, &env, files, &mut tops, None, jinja, &top_rel),
            None => TopDoc { env: env.clone(), path: None, data: Dict::new(), included_as: None },
        };
        tops.envs.entry(env).or_default().push(doc);
    }
    // Salt stops at the first render error; get_top then answers `{}`.
    if !tops.errors.is_empty() {
        return Ok(tops);
    }
    // One level of `include:`: globs over the same env's available names, each once.
    let mut include: IndexMap<String, Vec<Val>> = IndexMap::new();
    for (env, docs) in tops.envs.iter_mut() {
        for doc in docs.iter_mut() {
            if let Some((_, inc)) = doc.data.remove("include") {
                let items: Vec<Val> = match &inc.v {
                    V::List(l) => l.clone(),
                    V::Str(s) => s.chars().map(|c| Val { v: V::Str(c.to_string()), at: inc.at.clone() }).collect(),
                    V::Dict(d) => d.keys().cloned().collect(),
                    _ => {
                        tops.raised.push(
                            SaltError::new(
                                Code::MalformedTop,
                                format!(
                                    "`include:` in {env}'s top file is {}, which Salt cannot iterate (TypeError: '{}' object is not iterable)",
                                    inc.py_repr(),
                                    inc.py_type()
                                ),
                            )
                            .at(inc.at.clone()),
                        );
                        return Ok(tops);
                    }
                };
                include.entry(env.clone()).or_default().extend(items);
            }
        }
    }
    for (env, states) in include {
        if !states.is_empty() && env != "base" && !avail_envs.contains(&env) && !tops.listed_envs.contains(&env) {
            tops.listed_envs.push(env.clone());
        }
        let avail = roots.list_states(&env);
        let mut done: Vec<String> = Vec::new();
        for item in states {
            // `fnmatch.filter(avail, item)` starts with `os.path.normcase(item)`, which raises
            // TypeError for anything but a string (an SLS-style `- dev: name` included). Salt
            // gets there only after rendering the tops the earlier items matched.
            let Some(sls_match) = item.as_str() else {
                tops.raised.push(
                    SaltError::new(
                        Code::MalformedTop,
                        format!(
                            "`include:` item {} in {env}'s top file is not a string; Salt raises globbing it (TypeError: expected str, not {})",
                            item.py_repr(),
                            item.py_type()
                        ),
                    )
                    .at(item.at.clone()),
                );
                return Ok(tops);
            };
            reads::names(fs, roots, &env, sls_match);
            for sls in fnmatch::filter(avail.iter().map(String::as_str), sls_match) {
                if done.iter().any(|d| d == sls) {
                    continue;
                }
                let doc = match reads::state(fs, roots, &env, sls) {
                    Some(f) => {
                        let rel = f.source.trim_start_matches("salt://").to_string();
                        render_top(fs, &f.path, &env, files, &mut tops, Some(sls.to_string()), jinja, &rel)
                    }
                    None => TopDoc { env: env.clone(), path: None, data: Dict::new(), included_as: Some(sls.to_string()) },
                };
                if !tops.errors.is_empty() {
                    return Ok(tops);
                }
                tops.envs.entry(env.clone()).or_default().push(doc);
                done.push(sls.to_string());
            }
        }
    }
    Ok(tops)
}

#[allow(clippy::too_many_arguments)]
fn render_top(
    fs: &dyn Vfs,
    path: &std::path::Path,
    env: &str,
    files: &mut FileTable,
    tops: &mut Tops,
    included_as: Option<String>,
    jinja: Option<&JinjaSetup>,
    rel: &str,
) -> TopDoc {
    let mut doc = TopDoc { env: env.to_string(), path: Some(path.to_path_buf()), data: Dict::new(), included_as };
    let text = match fs.read(path) {
        Ok(t) => t,
        Err(e) => {
            tops.errors.push(SaltError::new(Code::UnreadableFile, format!("Unable to read top file {}: {e}", path.display())));
            return doc;
        }
    };
    let id = files.add(path.to_path_buf(), text.clone().into());
    // compile_template answers `{}` for an empty or whitespace-only file without rendering it.
    if text.trim().is_empty() {
        return doc;
    }
    let ctx = jinja.map(|j| j.context(env, "", rel));
    match crate::render::render_with(&text, id, ctx.as_ref()) {
        Ok(v) => match v.v {
            V::Dict(d) => doc.data = d,
            // The YAML renderer turns any falsy document (`~`, `[]`, `''`, `0`) into `{}`.
            _ if !v.truthy() => {}
            _ => tops.raised.push(
                SaltError::new(
                    Code::MalformedTop,
                    format!(
                        "Top data was not formed as a dict: {} renders to a {}, and Salt raises merging it (AttributeError: '{}' object has no attribute 'items')",
                        path.display(),
                        v.py_type(),
                        v.py_type()
                    ),
                )
                .at(v.at),
            ),
        },
        Err(mut e) => {
            e.message = format!("Unable to render top file: {}", e.message);
            tops.errors.push(e);
        }
    }
    doc
}

fn set_target(top: &mut MergedTop, env: &str, target: &Val, body: &Val, source: &Option<PathBuf>) {
    let list = top.entry(env.to_string()).or_default();
    match list.iter_mut().find(|t| t.target == *target) {
        Some(t) => {
            t.body = body.clone();
            t.source = source.clone();
        }
        None => list.push(TopTarget { target: target.clone(), body: body.clone(), source: source.clone() }),
    }
}

fn no_targets() -> SaltError {
    SaltError::new(Code::MalformedState, "Unable to render top file. No targets found.")
}

fn section_loc(doc: &TopDoc, section: &Val) -> Option<Loc> {
    let _ = doc;
    section.at.clone()
}

/// `merge_tops`, recording a decision for every section of every top document.
pub fn merge_tops(opts: &Opts, tops: &Tops) -> (Result<MergedTop, SaltError>, Vec<SectionDecision>, String) {
    let mut strategy = opts.top_file_merging_strategy.clone();
    if !matches!(strategy.as_str(), "merge" | "same" | "merge_all") {
        strategy = "merge".into();
    }
    let mut decisions = Vec::new();
    let result = match strategy.as_str() {
        "same" => merge_same(opts, tops, &mut decisions),
        "merge_all" => merge_all(tops, &mut decisions),
        _ => merge_merge(tops, &mut decisions),
    };
    (result, decisions, strategy)
}

fn decide(out: &mut Vec<SectionDecision>, doc: &TopDoc, section: &Val, used: bool, reason: String) {
    out.push(SectionDecision { top_env: doc.env.clone(), path: doc.path.clone(), section: section.py_str(), loc: section_loc(doc, section), used, reason });
}

fn doc_name(doc: &TopDoc) -> String {
    let file = match &doc.included_as {
        Some(sls) => format!("the top file included as `{sls}`"),
        None => "top file".to_string(),
    };
    format!("{}'s {file}", doc.env)
}

fn copy_targets(top: &mut MergedTop, section: &str, targets: &Val, source: &Option<PathBuf>) -> Result<(), SaltError> {
    match &targets.v {
        V::Dict(d) => {
            for (t, b) in &d.0 {
                set_target(top, section, t, b, source);
            }
            Ok(())
        }
        // `for tgt in targets` over an empty list or string does nothing at all.
        V::List(l) if l.is_empty() => Ok(()),
        V::Str(s) if s.is_empty() => Ok(()),
        // Iterating a list or string yields keys that `ctop[env][tgt]` cannot index, and
        // `None` or a number cannot be iterated: TypeError, which Salt re-raises.
        _ => Err(no_targets().at(targets.at.clone())),
    }
}

fn merge_merge(tops: &Tops, out: &mut Vec<SectionDecision>) -> Result<MergedTop, SaltError> {
    let mut top = MergedTop::new();
    if let Some(base) = tops.envs.get("base") {
        for doc in base {
            for (section, targets) in &doc.data.0 {
                if section.as_str() == Some("include") {
                    continue;
                }
                copy_targets(&mut top, &section.py_str(), targets, &doc.path)?;
                let why = if doc.included_as.is_some() {
                    "used: base's top files (the main one and its includes) are authoritative for every environment; a target written again replaces the earlier one".to_string()
                } else {
                    "used: base's top file is authoritative for every environment (top_file_merging_strategy: merge)".to_string()
                };
                decide(out, doc, section, true, why);
            }
        }
    }
    for (cenv, docs) in &tops.envs {
        if cenv == "base" {
            continue;
        }
        for doc in docs {
            for (section, targets) in &doc.data.0 {
                let name = section.py_str();
                if name == "include" {
                    continue;
                }
                if name != *cenv {
                    decide(
                        out,
                        doc,
                        section,
                        false,
                        format!("ignored: a `{name}` section in {} is only read from {name}'s own top file (top_file_merging_strategy: merge)", doc_name(doc)),
                    );
                    continue;
                }
                if top.contains_key(&name) {
                    let by = if out.iter().any(|d| d.used && d.section == name && d.top_env == "base") {
                        format!("base's top file already defines `{name}`")
                    } else {
                        format!("an earlier {name} top file already defined `{name}`")
                    };
                    decide(out, doc, section, false, format!("ignored: {by} (top_file_merging_strategy: merge)"));
                    continue;
                }
                copy_targets(&mut top, &name, targets, &doc.path)?;
                decide(out, doc, section, true, format!("used: no top file read before it defines `{name}` (top_file_merging_strategy: merge)"));
            }
        }
    }
    Ok(top)
}

fn merge_same(opts: &Opts, tops: &Tops, out: &mut Vec<SectionDecision>) -> Result<MergedTop, SaltError> {
    let mut top = MergedTop::new();
    let is_empty = |docs: &Vec<TopDoc>| docs.iter().all(|d| d.data.is_empty());
    for (cenv, docs) in &tops.envs {
        if is_empty(docs) {
            let fallback = tops.envs.get(&opts.default_top);
            let Some(fallback) = fallback.filter(|f| !is_empty(f)) else { continue };
            for doc in fallback {
                for (section, targets) in &doc.data.0 {
                    if section.py_str() != *cenv {
                        continue;
                    }
                    // No try/except here in Salt: a section that is not a mapping raises
                    // TypeError (the same failure as `No targets found` elsewhere).
                    copy_targets(&mut top, cenv, targets, &doc.path)?;
                    decide(
                        out,
                        doc,
                        section,
                        true,
                        format!(
                            "used: {cenv} has no top file, so its section comes from the default_top environment `{}` (top_file_merging_strategy: same)",
                            opts.default_top
                        ),
                    );
                    break;
                }
            }
            continue;
        }
        for doc in docs {
            for (section, targets) in &doc.data.0 {
                let name = section.py_str();
                if name == "include" {
                    continue;
                }
                if name != *cenv {
                    decide(
                        out,
                        doc,
                        section,
                        false,
                        format!("ignored: only the `{}` section of {} counts (top_file_merging_strategy: same)", cenv, doc_name(doc)),
                    );
                    continue;
                }
                copy_targets(&mut top, &name, targets, &doc.path)?;
                decide(out, doc, section, true, format!("used: {}'s own section in its own top file (top_file_merging_strategy: same)", cenv));
            }
        }
    }
    Ok(top)
}

/// `_read_tgt`: the last dict item (the "match type") and the string items, in order.
/// Iterating a string visits its characters and a dict its keys; anything else raises.
fn read_tgt(body: &Val) -> Result<(Option<Val>, Vec<Val>), SaltError> {
    let mut match_type = None;
    let mut states = Vec::new();
    match &body.v {
        V::List(items) => {
            for item in items {
                match &item.v {
                    V::Dict(_) => match_type = Some(item.clone()),
                    V::Str(_) => states.push(item.clone()),
                    _ => {}
                }
            }
        }
        V::Str(s) => states.extend(s.chars().map(|c| Val { v: V::Str(c.to_string()), at: body.at.clone() })),
        V::Dict(d) => states.extend(d.keys().filter(|k| matches!(k.v, V::Str(_))).cloned()),
        _ => return Err(no_targets().at(body.at.clone())),
    }
    Ok((match_type, states))
}

fn merge_all(tops: &Tops, out: &mut Vec<SectionDecision>) -> Result<MergedTop, SaltError> {
    let mut top = MergedTop::new();
    for docs in tops.envs.values() {
        for doc in docs {
            for (section, targets) in &doc.data.0 {
                let name = section.py_str();
                if name == "include" {
                    continue;
                }
                let d = match &targets.v {
                    V::Dict(d) => d,
                    V::List(l) if l.is_empty() => continue,
                    V::Str(s) if s.is_empty() => continue,
                    _ => return Err(no_targets().at(targets.at.clone())),
                };
                for (t, b) in &d.0 {
                    let list = top.entry(name.clone()).or_default();
                    match list.iter_mut().find(|x| x.target == *t) {
                        None => list.push(TopTarget { target: t.clone(), body: b.clone(), source: doc.path.clone() }),
                        Some(existing) => {
                            let (m1, s1) = read_tgt(&existing.body)?;
                            let (m2, s2) = read_tgt(b)?;
                            let mut merged: Vec<Val> = Vec::new();
                            if let Some(m) = m2.or(m1) {
                                merged.push(m);
                            }
                            merged.extend(s1);
                            // `merged.extend([x for x in m_states2 if x not in merged])`: the
                            // list is built before it is added, so repeats within the new body
                            // stay (only names already merged are dropped).
                            let new: Vec<Val> = s2.into_iter().filter(|x| !merged.contains(x)).collect();
                            merged.extend(new);
                            existing.body = Val::list(merged);
                        }
                    }
                }
                decide(out, doc, section, true, "used: every section of every top file is merged (top_file_merging_strategy: merge_all)".to_string());
            }
        }
    }
    Ok(top)
}

/// `BaseHighState.verify_tops`.
pub fn verify_tops(top: &MergedTop) -> Vec<SaltError> {
    verify_tops_keyed(top, &[])
}

/// [`verify_tops`], told which merged sections came from keys YAML did not load as strings
/// (`1:`, `true:`): Salt's merged top keeps the key's type, and rejects it.
fn verify_tops_keyed(top: &MergedTop, non_string: &[(String, Option<Loc>)]) -> Vec<SaltError> {
    let mut errors = Vec::new();
    for (env, targets) in top {
        if env == "include" {
            continue;
        }
        if let Some((_, at)) = non_string.iter().find(|(n, _)| n == env) {
            errors.push(SaltError::new(Code::MalformedState, format!("Environment {env} in top file is not formed as a string")).at(at.clone()));
        }
        if env.is_empty() {
            errors.push(SaltError::new(Code::MalformedState, "Empty saltenv statement in top file"));
        }
        for t in targets {
            let at = t.target.at.clone();
            let Some(list) = t.body.as_list() else {
                let mut e = SaltError::new(
                    Code::MalformedState,
                    format!(
                        "Malformed topfile: state declarations for matcher {} in saltenv {} are not formed as a list (got {})",
                        t.target.py_repr(),
                        crate::value::py_str_repr(env),
                        t.body.py_type()
                    ),
                )
                .at(at);
                if t.body.as_str().is_some() {
                    e.message.push_str(
                        "\nThe Salt docs show `'target': sls_name` as a shorthand, but state.apply and state.show_top reject it: write a list (`- sls_name`).",
                    );
                }
                errors.push(e);
                continue;
            };
            for item in list {
                match &item.v {
                    V::Dict(d) => {
                        for (_, v) in &d.0 {
                            if !v.truthy() {
                                errors.push(
                                    SaltError::new(
                                        Code::MalformedState,
                                        format!("Improperly formatted top file matcher in saltenv {}: {} file", item.py_repr(), v.py_str()),
                                    )
                                    .at(item.at.clone()),
                                );
                            }
                        }
                    }
                    V::Str(s) if s.is_empty() => {
                        errors.push(SaltError::new(Code::MalformedState, format!("Environment {env} contains an empty sls index")).at(item.at.clone()))
                    }
                    _ => {}
                }
            }
        }
    }
    errors
}

/// `BaseHighState.top_matches`: the per-env SLS lists for the minion, with a decision per target.
pub fn top_matches(opts: &Opts, avail_envs: &[String], ctx: &MatchContext, top: &MergedTop) -> (Matches, Vec<TargetDecision>) {
    let m = top_matches_checked(opts, avail_envs, ctx, top);
    (m.matches, m.decisions)
}

/// What [`top_matches_checked`] found.
#[derive(Debug, Clone, Default)]
pub struct TopMatches {
    pub matches: Matches,
    pub decisions: Vec<TargetDecision>,
    /// The first problem Salt raises on while matching (a bad regex in a `pcre` target, an
    /// unknown matcher, a body item it cannot handle): `state.show_top`, `state.show_lowstate`
    /// and `state.apply` then fail with a traceback instead of answering.
    pub raised: Option<SaltError>,
}

/// [`top_matches`], also saying whether Salt would raise. Every target is still evaluated (and
/// explained) after the first raise, although Salt stops there.
pub fn top_matches_checked(opts: &Opts, avail_envs: &[String], ctx: &MatchContext, top: &MergedTop) -> TopMatches {
    let mut out = TopMatches::default();
    for (env, targets) in top {
        if let Some(s) = &opts.saltenv {
            if s != env {
                continue;
            }
        }
        for t in targets {
            filter_matches(ctx, avail_envs, env, &t.target, &t.body, &t.source, &mut out);
        }
    }
    out
}

fn raise(out: &mut TopMatches, at: &Option<Loc>, message: String) {
    if out.raised.is_none() {
        out.raised = Some(SaltError::new(Code::InvalidTarget, message).at(at.clone()));
    }
}

/// `_filter_matches(match, data)` for one target of section `env`.
fn filter_matches(ctx: &MatchContext, avail_envs: &[String], env: &str, target: &Val, body: &Val, source: &Option<PathBuf>, out: &mut TopMatches) {
    let items: Vec<Val> = match &body.v {
        V::Str(_) => vec![body.clone()],
        // Iterating a dict body visits its keys.
        V::Dict(d) => d.keys().cloned().collect(),
        V::List(l) => l.clone(),
        _ => Vec::new(),
    };
    let probe = match &body.v {
        V::Str(_) | V::Dict(_) => Val::list(items.clone()),
        _ => body.clone(),
    };
    let outcome = matchers::confirm_top_value(ctx, &target.to_json(), &probe.to_json(), matchers::TOP_DEFAULT_MATCHER);
    let mut decision = TargetDecision {
        section: env.to_string(),
        target: target.py_str(),
        source: source.clone(),
        loc: target.at.clone(),
        matcher: outcome.matcher.clone(),
        matched: outcome.matched,
        explanation: outcome.explanation.clone(),
        errors: outcome.errors.iter().map(|e| e.message.clone()).collect(),
        contributes: Vec::new(),
    };
    if outcome.is_fatal() {
        let why = outcome.errors.iter().find(|e| e.fatal).map(|e| e.message.clone()).unwrap_or_default();
        raise(out, &target.at, format!("Salt raises matching target {} in saltenv {}: {why}", target.py_repr(), crate::value::py_str_repr(env)));
    }
    let index = out.decisions.len();
    out.decisions.push(decision.clone());
    if !outcome.matched {
        return;
    }
    if !out.matches.contains_key(env) {
        out.matches.insert(env.to_string(), Vec::new());
    }
    for item in &items {
        // `"subfilter" in item`: a substring test for strings, a membership test for lists
        // and dicts, and a TypeError for anything else.
        match &item.v {
            V::Str(s) if s.contains("subfilter") => {
                raise(out, &item.at, format!("SLS name {} contains `subfilter`, so Salt calls `.pop` on a string (AttributeError)", item.py_repr()));
                continue;
            }
            V::List(l) if l.iter().any(|x| x.as_str() == Some("subfilter")) => {
                raise(out, &item.at, format!("item {} holds `subfilter`, so Salt calls `list.pop('subfilter')` (TypeError)", item.py_repr()));
                continue;
            }
            V::None | V::Bool(_) | V::Int(_) | V::Float(_) => {
                raise(
                    out,
                    &item.at,
                    format!(
                        "item {} under a matching target is not a string or a dict (TypeError: argument of type '{}' is not iterable)",
                        item.py_repr(),
                        item.py_type()
                    ),
                );
                continue;
            }
            _ => {}
        }
        match &item.v {
            V::Str(s) => {
                if let Some(l) = out.matches.get_mut(env) {
                    l.push(s.clone());
                }
                decision.contributes.push((env.to_string(), s.clone()));
            }
            V::Dict(d) => {
                let mut d = d.clone();
                if let Some((_, sub)) = d.remove("subfilter") {
                    match &sub.v {
                        V::Dict(subs) => {
                            for (m, b) in &subs.0 {
                                filter_matches(ctx, avail_envs, env, m, b, source, out);
                            }
                        }
                        _ => raise(out, &sub.at, format!("`subfilter` is {}, not a mapping (AttributeError: no attribute 'items')", sub.py_repr())),
                    }
                }
                // `item.popitem()`: the last pair; an empty dict raises KeyError.
                let Some((k, v)) = d.0.last() else {
                    raise(out, &item.at, "an empty dict under a matching target makes Salt's `popitem()` raise KeyError".to_string());
                    continue;
                };
                let key = k.py_str();
                if key != "base" && !avail_envs.contains(&key) {
                    continue;
                }
                let sls = v.py_str();
                out.matches.entry(key.clone()).or_default().push(sls.clone());
                decision.contributes.push((key, sls));
            }
            _ => {}
        }
    }
    out.decisions[index] = decision;
}

/// The whole top compilation for one minion.
pub fn compile_top(fs: &dyn Vfs, opts: &Opts, roots: &FileRoots, files: &mut FileTable, ctx: &MatchContext, jinja: Option<&JinjaSetup>) -> TopResult {
    let client_envs: Vec<String> = roots.env_names().map(str::to_string).collect();
    let env_order = get_envs(opts, &client_envs);
    let mut result = TopResult { env_order: env_order.clone(), ..Default::default() };
    result.strategy = opts.top_file_merging_strategy.clone();
    let tops = match get_tops(fs, opts, roots, files, jinja) {
        Ok(t) => t,
        Err(e) => {
            // Raised inside get_tops, caught by get_top: the top is `{}`.
            result.render_errors.push(e);
            return result;
        }
    };
    let mut avail = vec!["base".to_string()];
    avail.extend(env_order.iter().filter(|e| *e != "base").cloned());
    avail.extend(tops.listed_envs.iter().cloned());
    result.avail_envs = avail.clone();
    if !tops.errors.is_empty() {
        // get_top catches the SaltRenderError and answers `{}`: nothing matches.
        result.render_errors.extend(tops.errors.clone());
        return result;
    }
    if let Some(e) = tops.raised.first() {
        result.raised = Some(e.clone());
        result.verify_errors = vec![e.clone()];
        return result;
    }
    let (merged, sections, strategy) = merge_tops(opts, &tops);
    result.sections = sections;
    result.strategy = strategy;
    let merged = match merged {
        Ok(m) => m,
        Err(e) => {
            // Raised by merge_tops, which get_top does not guard: Salt fails outright.
            result.raised = Some(e.clone());
            result.verify_errors = vec![e];
            return result;
        }
    };
    // Sections whose key is not a string and that the strategy used.
    let mut non_string: Vec<(String, Option<Loc>)> = Vec::new();
    for doc in tops.envs.values().flatten() {
        for (key, _) in &doc.data.0 {
            let name = key.py_str();
            if matches!(key.v, V::Str(_)) || non_string.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if result.sections.iter().any(|d| d.used && d.section == name && d.path == doc.path) {
                non_string.push((name, key.at.clone()));
            }
        }
    }
    result.verify_errors = verify_tops_keyed(&merged, &non_string);
    let m = top_matches_checked(opts, &avail, ctx, &merged);
    result.matches = m.matches;
    result.targets = m.decisions;
    result.raised = m.raised.clone();
    if result.verify_errors.is_empty() {
        // state.show_top returns verify_tops' errors before matching; without them it gets
        // as far as top_matches, and fails there.
        if let Some(e) = m.raised {
            result.verify_errors.push(e);
        }
    }
    result.merged = merged;
    result
}

impl TopResult {
    /// `state.show_top`'s JSON: the matches, or the verify errors.
    pub fn show_top_json(&self) -> serde_json::Value {
        if !self.verify_errors.is_empty() {
            return serde_json::Value::Array(self.verify_errors.iter().map(|e| e.message.clone().into()).collect());
        }
        serde_json::Value::Object(self.matches.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone()))).collect())
    }
}

impl TopResult {
    /// The `top --explain` text: every section decision and target outcome, then the result.
    pub fn explain_text(&self, minion: &str, files: &FileTable, rel: &dyn Fn(&std::path::Path) -> String) -> String {
        let mut out = String::new();
        let at = |loc: &Option<Loc>, path: &Option<PathBuf>| -> String {
            match (loc, path) {
                (Some(l), _) if (l.file as usize) < files.len() => {
                    format!("{}:{}", rel(files.path(l.file)), files.human(l.file, l.span.start).0)
                }
                (_, Some(p)) => rel(p),
                _ => "?".into(),
            }
        };
        out.push_str(&format!(
            "Top file for minion `{minion}` (top_file_merging_strategy: {}; environments in order: {})\n",
            self.strategy,
            self.env_order.join(", ")
        ));
        for e in self.render_errors.iter().chain(&self.verify_errors) {
            out.push_str(&format!("error: {}\n", e.message));
        }
        if let Some(e) = self.raised.as_ref().filter(|e| !self.verify_errors.contains(e)) {
            out.push_str(&format!("error: state.show_lowstate and state.apply fail: {}\n", e.message));
        }
        out.push_str("\nSections:\n");
        if self.sections.is_empty() {
            out.push_str("  (no top file defines any section)\n");
        }
        for s in &self.sections {
            out.push_str(&format!(
                "  {} section `{}` in {}'s top file ({}): {}\n",
                if s.used { "✓" } else { "✗" },
                s.section,
                s.top_env,
                at(&s.loc, &s.path),
                s.reason
            ));
        }
        out.push_str("\nTargets:\n");
        if self.targets.is_empty() {
            out.push_str("  (no targets)\n");
        }
        for t in &self.targets {
            let verdict = if t.matched { "matched" } else { "did not match" };
            out.push_str(&format!(
                "  {} [{}] target `{}` ({}, {}): {verdict}: {}\n",
                if t.matched { "✓" } else { "✗" },
                t.section,
                t.target,
                t.matcher,
                at(&t.loc, &t.source),
                t.explanation
            ));
            for e in &t.errors {
                out.push_str(&format!("      error: {e}\n"));
            }
            if !t.contributes.is_empty() {
                let list: Vec<String> = t.contributes.iter().map(|(e, s)| format!("{e}:{s}")).collect();
                out.push_str(&format!("      adds {}\n", list.join(", ")));
            }
        }
        out.push_str("\nResult:\n");
        if !self.render_errors.is_empty() {
            out.push_str("  (a top file failed to render, so Salt uses an empty top: nothing matches)\n");
        } else if self.matches.is_empty() {
            out.push_str("  (nothing matched: no states for this minion)\n");
        }
        for (env, list) in &self.matches {
            out.push_str(&format!("  {env}: {}\n", list.join(", ")));
        }
        out
    }

    /// The `top --explain --format json` data.
    pub fn explain_json(&self, files: &FileTable) -> serde_json::Value {
        use serde_json::json;
        let pos = |loc: &Option<Loc>, path: &Option<PathBuf>| match loc {
            Some(l) if (l.file as usize) < files.len() => {
                json!({"file": files.path(l.file).display().to_string(), "line": files.human(l.file, l.span.start).0})
            }
            _ => json!({"file": path.as_ref().map(|p| p.display().to_string()), "line": null}),
        };
        json!({
            "strategy": self.strategy,
            "env_order": self.env_order,
            "errors": self.render_errors.iter().chain(&self.verify_errors).map(|e| e.message.clone()).collect::<Vec<_>>(),
            "sections": self.sections.iter().map(|s| json!({
                "top_env": s.top_env, "section": s.section, "used": s.used, "reason": s.reason, "at": pos(&s.loc, &s.path),
            })).collect::<Vec<_>>(),
            "targets": self.targets.iter().map(|t| json!({
                "section": t.section, "target": t.target, "matcher": t.matcher, "matched": t.matched,
                "explanation": t.explanation, "errors": t.errors,
                "contributes": t.contributes.iter().map(|(e, s)| json!([e, s])).collect::<Vec<_>>(),
                "at": pos(&t.loc, &t.source),
            })).collect::<Vec<_>>(),
            "matches": self.show_top_json(),
            "raised": self.raised.as_ref().map(|e| e.message.clone()),
            "avail_envs": self.avail_envs,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{expect, Expect};
    use serde_json::json;

    use super::*;
    use crate::workspace::vfs::MemFs;
    use crate::workspace::Workspace;

    /// Compile the top of a `#- path` fixture (rooted at `/ws`, options in its
    /// `salt-analyzer.yaml`) for minion `web01` with grain `role: web`, and summarise what
    /// `state.show_top` prints, whether Salt raises, and the render errors.
    fn top(fixture: &str, saltenv: Option<&str>) -> TopResult {
        let fs = MemFs::from_fixture(fixture);
        let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
        let mut opts = ws.opts.clone();
        opts.saltenv = saltenv.map(str::to_string);
        let roots = FileRoots::scan(&fs, &opts.file_roots);
        let mut files = FileTable::default();
        let grains = json!({"id": "web01", "role": "web"});
        let pillar = json!({});
        let ctx = MatchContext::new("web01", &grains, &pillar);
        compile_top(&fs, &opts, &roots, &mut files, &ctx, None)
    }

    fn check(fixture: &str, saltenv: Option<&str>, expect: Expect) {
        let r = top(fixture, saltenv);
        let mut out = format!("show_top: {}\n", r.show_top_json());
        if let Some(e) = &r.raised {
            out.push_str(&format!("raised: {}\n", e.message.lines().next().unwrap_or("")));
        }
        for e in &r.render_errors {
            out.push_str(&format!("render error: {}\n", e.message.lines().next().unwrap_or("")));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn a_render_error_in_any_top_empties_the_whole_top() {
        // get_top catches the SaltRenderError of the included top's duplicate key: `{}`.
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
#- base/top.sls
base: {'*': [a]}
#- dev/top.sls
include: [tops.extra]
dev: {'*': [d]}
#- dev/tops/extra.sls
dev:
  '*': [x]
  '*': [y]
"#,
            None,
            expect![[r#"
                show_top: {}
                render error: Unable to render top file: while constructing a mapping: found conflicting ID '*'; line 3
            "#]],
        );
    }

    #[test]
    fn a_top_that_renders_to_a_list_makes_salt_raise() {
        let r = top("#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\n- a\n- b\n", None);
        assert!(r.raised.as_ref().is_some_and(|e| e.message.starts_with("Top data was not formed as a dict")), "{:?}", r.raised);
        assert_eq!(r.verify_errors.len(), 1);
        // A falsy document is `{}` for the YAML renderer, not an error.
        check(
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\n[]\n",
            None,
            expect![[r#"
            show_top: {}
        "#]],
        );
    }

    #[test]
    fn empty_sections_and_sections_that_are_not_mappings() {
        // Iterating `[]` or `''` does nothing; `~` or a non-empty list raises
        // "No targets found", which merge_tops re-raises past get_top.
        for strategy in ["merge", "merge_all", "same"] {
            let fixture = format!(
                "#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\ntop_file_merging_strategy: {strategy}\n#- base/top.sls\nnowhere: []\nbase: {{'*': [a]}}\nqa: ''\n"
            );
            let r = top(&fixture, None);
            assert_eq!(r.show_top_json(), json!({"base": ["a"]}), "{strategy}");
            assert!(r.raised.is_none(), "{strategy}");
            let fixture = format!("#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\ntop_file_merging_strategy: {strategy}\n#- base/top.sls\nbase: ~\n");
            let r = top(&fixture, None);
            assert!(r.raised.as_ref().is_some_and(|e| e.message == "Unable to render top file. No targets found."), "{strategy}: {:?}", r.raised);
            assert_eq!(r.show_top_json(), json!(["Unable to render top file. No targets found."]), "{strategy}");
        }
    }

    #[test]
    fn same_fallback_section_that_is_not_a_mapping_raises() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
top_file_merging_strategy: same
default_top: base
#- base/top.sls
base: {'*': [a]}
dev: [d]
"#,
            None,
            expect![[r#"
                show_top: ["Unable to render top file. No targets found."]
                raised: Unable to render top file. No targets found.
            "#]],
        );
    }

    #[test]
    fn merge_all_keeps_repeats_within_the_later_body() {
        // `merged.extend([x for x in m_states2 if x not in merged])` filters against the
        // names merged before, so `b, b` from the later top both stay and `a` is dropped.
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
top_file_merging_strategy: merge_all
#- base/top.sls
dev: {'*': [a, a]}
#- dev/top.sls
dev: {'*': [b, a, b]}
"#,
            None,
            expect![[r#"
                show_top: {"dev":["a","a","b","b"]}
            "#]],
        );
    }

    #[test]
    fn a_target_salt_raises_on_fails_show_top_unless_verify_tops_failed_first() {
        let fixture = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase:\n  '*': [a]\n  'web(': [{match: pcre}, b]\n";
        let r = top(fixture, None);
        assert!(r.raised.is_some());
        assert_eq!(r.verify_errors.len(), 1, "{:?}", r.verify_errors);
        assert!(r.verify_errors[0].message.contains("'web('"), "{}", r.verify_errors[0].message);
        // verify_tops runs first: its errors are what show_top prints, and Salt does not
        // get as far as the bad regex (state.show_lowstate, which skips verify_tops, does).
        let fixture = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase:\n  '*': ['']\n  'web(': [{match: pcre}, b]\n";
        let r = top(fixture, None);
        assert!(r.raised.is_some());
        assert_eq!(r.show_top_json(), json!(["Environment base contains an empty sls index"]));
    }

    #[test]
    fn body_items_salt_cannot_handle_raise_only_when_the_target_matches() {
        for item in ["{}", "1", "{subfilter: {'*': [x]}}", "has_subfilter_in_name"] {
            let fixture = format!("#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\n#- base/top.sls\nbase:\n  '*': [a, {item}]\n  nomatch: [b, {item}]\n");
            let r = top(&fixture, None);
            assert!(r.raised.is_some(), "{item}");
            let fixture = format!("#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\n#- base/top.sls\nbase:\n  nomatch: [b, {item}]\n");
            assert!(top(&fixture, None).raised.is_none(), "{item}");
        }
        // `subfilter` targets add to the same section, then the emptied dict raises.
        let fixture =
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase:\n  '*': [a, {subfilter: {'G@role:web': [x], 'G@role:db': [y]}}]\n";
        let r = top(fixture, None);
        assert_eq!(r.matches, Matches::from([("base".to_string(), vec!["a".to_string(), "x".to_string()])]));
        assert!(r.raised.as_ref().is_some_and(|e| e.message.contains("popitem")));
    }

    #[test]
    fn a_non_iterable_top_include_raises() {
        check(
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\ninclude:\nbase: {'*': [a]}\n",
            None,
            expect![[r#"
                show_top: ["`include:` in base's top file is None, which Salt cannot iterate (TypeError: 'NoneType' object is not iterable)"]
                raised: `include:` in base's top file is None, which Salt cannot iterate (TypeError: 'NoneType' object is not iterable)
            "#]],
        );
    }

    #[test]
    fn include_items_are_globbed_in_order_so_an_earlier_render_error_wins() {
        // The dict item raises TypeError, but only after the first item's top was rendered,
        // and that render failed: Salt's answer is `{}`.
        let fixture = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\ninclude: [tops.bad, {base: tops.ok}]\nbase: {'*': [a]}\n#- base/tops/bad.sls\nbase:\n  x: [a]\n  x: [b]\n#- base/tops/ok.sls\nbase: {'*': [b]}\n";
        let r = top(fixture, None);
        assert!(r.raised.is_none() && r.render_errors.len() == 1, "{:?} {:?}", r.raised, r.render_errors);
        assert_eq!(r.show_top_json(), json!({}));
        let r = top(&fixture.replace("tops.bad, ", ""), None);
        assert!(r.raised.as_ref().is_some_and(|e| e.message.contains("is not a string")), "{:?}", r.raised);
    }

    #[test]
    fn a_section_key_that_is_not_a_string_fails_verify_tops() {
        //, checked against Salt 3008: `1:` next to `base:` in base's top file.
        check(
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase: {'*': [a]}\n1: {'*': [a]}\n",
            None,
            expect![[r#"
                show_top: ["Environment 1 in top file is not formed as a string"]
            "#]],
        );
        // In dev's own top file, merge ignores it: it is not dev's section.
        let r = top("#- salt-analyzer.yaml\nfile_roots: {base: [base], dev: [dev]}\n#- dev/top.sls\ndev: {'*': [d]}\n1: {'*': [a]}\n", None);
        assert_eq!(r.show_top_json(), json!({"dev": ["d"]}));
    }

    #[test]
    fn globbing_a_top_include_makes_its_env_available() {
        // env_order drops dev, so a cross-env item for dev is ignored...
        let base = r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
env_order: [base]
state_top_saltenv: dev
#- dev/top.sls
dev: {'*': [d, {dev: x}]}
#- dev/x.sls
x: test.nop
"#;
        let r = top(base, None);
        assert_eq!(r.show_top_json(), json!({"dev": ["d"]}));
        assert_eq!(r.avail_envs, vec!["base".to_string()]);
        // ...unless dev's top has an `include:`, whose globbing asks LazyAvailStates for
        // dev's SLS list and so adds dev to it (even when the glob matches nothing).
        let with_include = base.replace("#- dev/top.sls\n", "#- dev/top.sls\ninclude: [nomatch]\n");
        let r = top(&with_include, None);
        assert_eq!(r.show_top_json(), json!({"dev": ["d", "x"]}));
        assert_eq!(r.avail_envs, vec!["base".to_string(), "dev".to_string()]);
        // An empty include list is never globbed.
        let empty = base.replace("#- dev/top.sls\n", "#- dev/top.sls\ninclude: []\n");
        assert_eq!(top(&empty, None).show_top_json(), json!({"dev": ["d"]}));
    }

    /// `top --explain` for a four-env tree: the sections and targets, as text.
    fn explain(strategy: &str, extra: &str) -> String {
        let fixture = format!(
            "#- salt-analyzer.yaml\nfile_roots: {{base: [b], dev: [d], qa: [q], zz: [z]}}\ntop_file_merging_strategy: {strategy}\n{extra}\n\
#- b/top.sls\nbase: {{'*': [b_common]}}\ndev: {{'*': [dev_from_base_top]}}\n\
#- d/top.sls\ndev: {{'*': [dev_from_dev_top]}}\nbase: {{'*': [base_from_dev_top]}}\nqa: {{'*': [qa_from_dev_top]}}\n\
#- q/top.sls\nqa: {{'*': [qa_from_qa_top], 'db*': [qa_db]}}\nzz: {{'*': [zz_from_qa_top]}}\n"
        );
        let r = top(&fixture, None);
        let files = FileTable::default();
        let text = r.explain_text("web01", &files, &|p| p.display().to_string());
        text.lines()
            .filter(|l| l.contains("section") || l.contains("target") || l.starts_with("  ") && l.contains(": "))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every rule of every strategy, as `top --explain` words it (`salt/state.py` `BaseHighState._merge_tops_merge`, `_merge_tops_same`, `_merge_tops_merge_all`).
    #[test]
    fn explain_covers_each_rule_of_each_strategy() {
        expect![[r#"
              ✓ section `base` in base's top file (/ws/b/top.sls): used: base's top file is authoritative for every environment (top_file_merging_strategy: merge)
              ✓ section `dev` in base's top file (/ws/b/top.sls): used: base's top file is authoritative for every environment (top_file_merging_strategy: merge)
              ✗ section `dev` in dev's top file (/ws/d/top.sls): ignored: base's top file already defines `dev` (top_file_merging_strategy: merge)
              ✗ section `base` in dev's top file (/ws/d/top.sls): ignored: a `base` section in dev's top file is only read from base's own top file (top_file_merging_strategy: merge)
              ✗ section `qa` in dev's top file (/ws/d/top.sls): ignored: a `qa` section in dev's top file is only read from qa's own top file (top_file_merging_strategy: merge)
              ✓ section `qa` in qa's top file (/ws/q/top.sls): used: no top file read before it defines `qa` (top_file_merging_strategy: merge)
              ✗ section `zz` in qa's top file (/ws/q/top.sls): ignored: a `zz` section in qa's top file is only read from zz's own top file (top_file_merging_strategy: merge)
              ✓ [base] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [dev] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [qa] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              ✗ [qa] target `db*` (compound, /ws/q/top.sls): did not match: compound: `db*` -> False
              base: b_common
              dev: dev_from_base_top
              qa: qa_from_qa_top"#]]
        .assert_eq(&explain("merge", ""));
        expect![[r#"
              ✓ section `base` in base's top file (/ws/b/top.sls): used: base's own section in its own top file (top_file_merging_strategy: same)
              ✗ section `dev` in base's top file (/ws/b/top.sls): ignored: only the `base` section of base's top file counts (top_file_merging_strategy: same)
              ✓ section `dev` in dev's top file (/ws/d/top.sls): used: dev's own section in its own top file (top_file_merging_strategy: same)
              ✗ section `base` in dev's top file (/ws/d/top.sls): ignored: only the `dev` section of dev's top file counts (top_file_merging_strategy: same)
              ✗ section `qa` in dev's top file (/ws/d/top.sls): ignored: only the `dev` section of dev's top file counts (top_file_merging_strategy: same)
              ✓ section `qa` in qa's top file (/ws/q/top.sls): used: qa's own section in its own top file (top_file_merging_strategy: same)
              ✗ section `zz` in qa's top file (/ws/q/top.sls): ignored: only the `qa` section of qa's top file counts (top_file_merging_strategy: same)
              ✓ section `zz` in qa's top file (/ws/q/top.sls): used: zz has no top file, so its section comes from the default_top environment `qa` (top_file_merging_strategy: same)
              ✓ [base] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [dev] target `*` (compound, /ws/d/top.sls): matched: compound: `*` -> True
              ✓ [qa] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              ✗ [qa] target `db*` (compound, /ws/q/top.sls): did not match: compound: `db*` -> False
              ✓ [zz] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              base: b_common
              dev: dev_from_dev_top
              qa: qa_from_qa_top
              zz: zz_from_qa_top"#]].assert_eq(&explain("same", "default_top: qa"));
        expect![[r#"
              ✓ section `base` in base's top file (/ws/b/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `dev` in base's top file (/ws/b/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `dev` in dev's top file (/ws/d/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `base` in dev's top file (/ws/d/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `qa` in dev's top file (/ws/d/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `qa` in qa's top file (/ws/q/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `zz` in qa's top file (/ws/q/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ [base] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [dev] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [qa] target `*` (compound, /ws/d/top.sls): matched: compound: `*` -> True
              ✗ [qa] target `db*` (compound, /ws/q/top.sls): did not match: compound: `db*` -> False
              ✓ [zz] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              base: b_common, base_from_dev_top
              dev: dev_from_base_top, dev_from_dev_top
              qa: qa_from_dev_top, qa_from_qa_top
              zz: zz_from_qa_top"#]]
        .assert_eq(&explain("merge_all", ""));
    }
}
