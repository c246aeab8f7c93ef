//! Top-file compilation as Salt 3008 does it (SALT-SEMANTICS.md A.2-A.8): which top files
//! are read, how the merging strategies combine their sections, `verify_tops`, and which
//! targets match a minion, with the reason for every decision (the `top --explain` data the
//! editor shows on hover).

use std::path::PathBuf;

use indexmap::IndexMap;

use crate::config::Opts;
use crate::errors::{Code, SaltError};
use crate::fnmatch;
use crate::highstate::{get_envs, Matches};
use crate::jinja_render::JinjaSetup;
use crate::matchers::{self, MatchContext};
use crate::roots::FileRoots;
use crate::value::{Dict, Loc, Val, V};
use crate::vfs::{FileTable, Vfs};

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
    pub errors: Vec<SaltError>,
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
    /// `verify_tops` errors: `state.show_top` and `state.apply` return these and stop.
    pub verify_errors: Vec<SaltError>,
    /// Rendering and merging problems (Salt logs them and uses an empty top).
    pub render_errors: Vec<SaltError>,
    pub sections: Vec<SectionDecision>,
    pub targets: Vec<TargetDecision>,
    pub merged: MergedTop,
    pub strategy: String,
    pub env_order: Vec<String>,
}

fn str_of(v: &Val) -> String {
    v.py_str()
}

/// `get_tops`.
pub fn get_tops(fs: &dyn Vfs, opts: &Opts, roots: &FileRoots, files: &mut FileTable, jinja: Option<&JinjaSetup>) -> Result<Tops, SaltError> {
    let mut tops = Tops::default();
    let strategy = opts.top_file_merging_strategy.as_str();
    if strategy == "same" && opts.saltenv.is_none() && opts.default_top.is_empty() {
        return Err(SaltError::new(
            Code::RenderError,
            "top_file_merging_strategy set to 'same', but no default_top configuration option was set",
        ));
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
    for env in envs {
        let doc = match roots.find_file(&env, &top_rel) {
            Some(path) => render_top(fs, &path, &env, files, &mut tops.errors, None, jinja, &top_rel),
            None => TopDoc { env: env.clone(), path: None, data: Dict::new(), included_as: None },
        };
        tops.envs.entry(env).or_default().push(doc);
    }
    // One level of `include:`: globs over the same env's available names, each once.
    let mut include: IndexMap<String, Vec<String>> = IndexMap::new();
    for (env, docs) in tops.envs.iter_mut() {
        for doc in docs.iter_mut() {
            if let Some((_, inc)) = doc.data.remove("include") {
                let items: Vec<String> = match &inc.v {
                    V::List(l) => l.iter().map(str_of).collect(),
                    V::Str(s) => s.chars().map(|c| c.to_string()).collect(),
                    V::Dict(d) => d.keys().map(str_of).collect(),
                    _ => Vec::new(),
                };
                include.entry(env.clone()).or_default().extend(items);
            }
        }
    }
    for (env, states) in include {
        let avail = roots.list_states(&env);
        let mut done: Vec<String> = Vec::new();
        for sls_match in states {
            for sls in fnmatch::filter(avail.iter().map(String::as_str), &sls_match) {
                if done.iter().any(|d| d == sls) {
                    continue;
                }
                let doc = match roots.get_state(&env, sls) {
                    Some(f) => {
                        let rel = f.source.trim_start_matches("salt://").to_string();
                        render_top(fs, &f.path, &env, files, &mut tops.errors, Some(sls.to_string()), jinja, &rel)
                    }
                    None => TopDoc { env: env.clone(), path: None, data: Dict::new(), included_as: Some(sls.to_string()) },
                };
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
    path: &PathBuf,
    env: &str,
    files: &mut FileTable,
    errors: &mut Vec<SaltError>,
    included_as: Option<String>,
    jinja: Option<&JinjaSetup>,
    rel: &str,
) -> TopDoc {
    let mut doc = TopDoc { env: env.to_string(), path: Some(path.clone()), data: Dict::new(), included_as };
    let text = match fs.read(path) {
        Ok(t) => t,
        Err(e) => {
            errors.push(SaltError::new(Code::UnreadableFile, format!("Unable to read top file {}: {e}", path.display())));
            return doc;
        }
    };
    let id = files.add(path.clone(), text.clone().into());
    let ctx = jinja.map(|j| j.context(env, "", rel));
    match crate::render::render_with(&text, id, ctx.as_ref()) {
        Ok(v) => match v.v {
            V::Dict(d) => doc.data = d,
            _ => errors.push(
                SaltError::new(Code::MalformedState, "Top data was not formed as a dict").at(v.at),
            ),
        },
        Err(mut e) => {
            e.message = format!("Unable to render top file: {}", e.message);
            errors.push(e);
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
    out.push(SectionDecision {
        top_env: doc.env.clone(),
        path: doc.path.clone(),
        section: section.py_str(),
        loc: section_loc(doc, section),
        used,
        reason,
    });
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
        // Iterating a list or string yields keys that `ctop[env][tgt]` cannot index.
        V::List(_) | V::Str(_) => Err(no_targets()),
        _ => Err(no_targets()),
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
                    if let V::Dict(d) = &targets.v {
                        for (t, b) in &d.0 {
                            set_target(&mut top, cenv, t, b, &doc.path);
                        }
                    }
                    decide(
                        out,
                        doc,
                        section,
                        true,
                        format!("used: {cenv} has no top file, so its section comes from the default_top environment `{}` (top_file_merging_strategy: same)", opts.default_top),
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
                    decide(out, doc, section, false, format!("ignored: only the `{}` section of {} counts (top_file_merging_strategy: same)", cenv, doc_name(doc)));
                    continue;
                }
                copy_targets(&mut top, &name, targets, &doc.path)?;
                decide(out, doc, section, true, format!("used: {}'s own section in its own top file (top_file_merging_strategy: same)", cenv));
            }
        }
    }
    Ok(top)
}

fn read_tgt(body: &Val) -> (Option<Val>, Vec<Val>) {
    let mut match_type = None;
    let mut states = Vec::new();
    for item in body.as_list().into_iter().flatten() {
        match &item.v {
            V::Dict(_) => match_type = Some(item.clone()),
            V::Str(_) => states.push(item.clone()),
            _ => {}
        }
    }
    (match_type, states)
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
                let V::Dict(d) = &targets.v else { return Err(no_targets()) };
                for (t, b) in &d.0 {
                    let list = top.entry(name.clone()).or_default();
                    match list.iter_mut().find(|x| x.target == *t) {
                        None => list.push(TopTarget { target: t.clone(), body: b.clone(), source: doc.path.clone() }),
                        Some(existing) => {
                            let (m1, s1) = read_tgt(&existing.body);
                            let (m2, s2) = read_tgt(b);
                            let mut merged: Vec<Val> = Vec::new();
                            if let Some(m) = m2.or(m1) {
                                merged.push(m);
                            }
                            merged.extend(s1);
                            for x in s2 {
                                if !merged.contains(&x) {
                                    merged.push(x);
                                }
                            }
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

/// `verify_tops` (A.5).
pub fn verify_tops(top: &MergedTop) -> Vec<SaltError> {
    let mut errors = Vec::new();
    for (env, targets) in top {
        if env == "include" {
            continue;
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
                    V::Str(s) if s.is_empty() => errors.push(
                        SaltError::new(Code::MalformedState, format!("Environment {env} contains an empty sls index")).at(item.at.clone()),
                    ),
                    _ => {}
                }
            }
        }
    }
    errors
}

/// `top_matches` (A.6): the per-env SLS lists for the minion, with a decision per target.
pub fn top_matches(opts: &Opts, avail_envs: &[String], ctx: &MatchContext, top: &MergedTop) -> (Matches, Vec<TargetDecision>) {
    let mut matches = Matches::new();
    let mut decisions = Vec::new();
    for (env, targets) in top {
        if let Some(s) = &opts.saltenv {
            if s != env {
                continue;
            }
        }
        for t in targets {
            let body = match &t.body.v {
                V::Str(_) => Val::list(vec![t.body.clone()]),
                // Iterating a dict body visits its keys.
                V::Dict(d) => Val::list(d.keys().cloned().collect()),
                _ => t.body.clone(),
            };
            let outcome = matchers::confirm_top_value(ctx, &t.target.to_json(), &body.to_json(), matchers::TOP_DEFAULT_MATCHER);
            let mut decision = TargetDecision {
                section: env.clone(),
                target: t.target.py_str(),
                source: t.source.clone(),
                loc: t.target.at.clone(),
                matcher: outcome.matcher.clone(),
                matched: outcome.matched,
                explanation: outcome.explanation.clone(),
                errors: outcome.errors.iter().map(|e| e.message.clone()).collect(),
                contributes: Vec::new(),
            };
            if outcome.matched {
                if !matches.contains_key(env) {
                    matches.insert(env.clone(), Vec::new());
                }
                for item in body.as_list().into_iter().flatten() {
                    match &item.v {
                        V::Str(s) => {
                            matches.get_mut(env).map(|l| l.push(s.clone()));
                            decision.contributes.push((env.clone(), s.clone()));
                        }
                        V::Dict(d) => {
                            let Some((k, v)) = d.0.last() else { continue };
                            let key = k.py_str();
                            if key != "base" && !avail_envs.contains(&key) {
                                continue;
                            }
                            let sls = v.py_str();
                            matches.entry(key.clone()).or_default().push(sls.clone());
                            decision.contributes.push((key, sls));
                        }
                        _ => {}
                    }
                }
            }
            decisions.push(decision);
        }
    }
    (matches, decisions)
}

/// The whole top compilation for one minion.
pub fn compile_top(
    fs: &dyn Vfs,
    opts: &Opts,
    roots: &FileRoots,
    files: &mut FileTable,
    ctx: &MatchContext,
    jinja: Option<&JinjaSetup>,
) -> TopResult {
    let client_envs: Vec<String> = roots.env_names().map(str::to_string).collect();
    let env_order = get_envs(opts, &client_envs);
    let mut result = TopResult { env_order: env_order.clone(), ..Default::default() };
    let tops = match get_tops(fs, opts, roots, files, jinja) {
        Ok(t) => t,
        Err(e) => {
            result.render_errors.push(e);
            result.strategy = opts.top_file_merging_strategy.clone();
            return result;
        }
    };
    result.render_errors.extend(tops.errors.clone());
    let (merged, sections, strategy) = merge_tops(opts, &tops);
    result.sections = sections;
    result.strategy = strategy;
    let merged = match merged {
        Ok(m) => m,
        Err(e) => {
            result.render_errors.push(e);
            return result;
        }
    };
    result.verify_errors = verify_tops(&merged);
    let (matches, targets) = top_matches(opts, &env_order, ctx, &merged);
    result.matches = matches;
    result.targets = targets;
    result.merged = merged;
    result
}

impl TopResult {
    /// `state.show_top`'s JSON: the matches, or the verify errors.
    pub fn show_top_json(&self) -> serde_json::Value {
        if !self.verify_errors.is_empty() {
            return serde_json::Value::Array(self.verify_errors.iter().map(|e| e.message.clone().into()).collect());
        }
        serde_json::Value::Object(
            self.matches.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone()))).collect(),
        )
    }
}

impl TopResult {
    /// The `top --explain` text: every section decision and target outcome, then the result.
    pub fn explain_text(&self, minion: &str, files: &FileTable, rel: &dyn Fn(&std::path::Path) -> String) -> String {
        let mut out = String::new();
        let at = |loc: &Option<Loc>, path: &Option<PathBuf>| -> String {
            match (loc, path) {
                (Some(l), _) if (l.file as usize) < files.len() => {
                    format!("{}:{}", rel(files.path(l.file)), files.line_col(l.file, l.span.start).0)
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
            out.push_str(&format!("  {} [{}] target `{}` ({}, {}): {verdict}: {}\n", if t.matched { "✓" } else { "✗" }, t.section, t.target, t.matcher, at(&t.loc, &t.source), t.explanation));
            for e in &t.errors {
                out.push_str(&format!("      error: {e}\n"));
            }
            if !t.contributes.is_empty() {
                let list: Vec<String> = t.contributes.iter().map(|(e, s)| format!("{e}:{s}")).collect();
                out.push_str(&format!("      adds {}\n", list.join(", ")));
            }
        }
        out.push_str("\nResult:\n");
        if self.matches.is_empty() {
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
                json!({"file": files.path(l.file).display().to_string(), "line": files.line_col(l.file, l.span.start).0})
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
        })
    }
}
