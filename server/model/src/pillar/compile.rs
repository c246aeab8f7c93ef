//! `Pillar.compile_pillar` (`salt/pillar/__init__.py` `compile_pillar`, `render_pillar`,
//! `render_pstate`, `ext_pillar`): the two compiles `salt-call pillar.items` runs, each
//! reading the top files, rendering and merging the matched SLS with their includes, then the
//! ext_pillar entries (git_pillar's remotes compiled through [`compile_once`], handed to
//! `git` as a closure).

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::diagnostic::{Code, SaltError};
use crate::mapstack::origin::Origins;
use crate::py::{dictupdate, fnmatch};
use crate::render::context::JinjaSetup;
use crate::targeting::matchers::MatchContext;
use crate::targeting::Matches;
use crate::value::{Loc, Val};
use crate::workspace::config::Opts;
use crate::workspace::reads;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

use super::error::PillarError;
use super::top::PillarTop;
use super::{ext, git, top, Layer, Pillar, PillarMinion, PillarOptions};

/// The minion's pillar from `roots` (its `pillar_roots`, scanned through the recorder so that
/// created and deleted files count as reads), starting from `base` (the configuration's
/// `pillar:`, when it has one). `jinja` reads imports from the pillar roots.
#[allow(clippy::too_many_arguments)]
pub fn compile(
    fs: &Arc<dyn Vfs>,
    roots: &FileRoots,
    files: &mut FileTable,
    opts: &Opts,
    who: &PillarMinion,
    base: Option<Value>,
    jinja: &JinjaSetup,
    sql: Option<&dyn ext::SqlConnector>,
) -> Pillar {
    let o = PillarOptions::from_opts(opts);
    let ext = Ext { opts: &opts.raw, sql, fs: Some(fs), git: opts.git_pillar.as_deref() };
    let fs = &**fs;
    let first = compile_once(fs, roots, files, &o, who, base.clone(), jinja, o.saltenv.clone(), &ext);
    if first.raised.is_some() {
        return first;
    }
    // `pillar.items` does not pass a saltenv.
    let mut second = compile_once(fs, roots, files, &o, who, Some(first.pillar), jinja, None, &ext);
    // Without errors of its own, the second compile keeps the first one's `_errors`.
    if !second.errors.iter().any(|e| e.salt.is_some() && !e.carried) && second.pillar.get("_errors").is_some() {
        second.errors.extend(first.errors.into_iter().filter(|e| e.salt.is_some() && !e.carried));
    }
    // The first compile mostly set what the second sets again: only a value of the
    // configuration's `pillar:` counts as overridden.
    forget_first_compile(&mut second.origins, base.as_ref());
    // What the ext_pillar entries said, once (both compiles ran them).
    let mut seen = std::collections::HashSet::new();
    second.errors.retain(|e| e.diag.code != Code::ExtPillar && e.diag.code != Code::NotAnalysed || seen.insert(e.diag.message.clone()));
    second
}

/// What ext_pillar needs: the options (the `ext_pillar` list, the modules' connection options,
/// `ext_pillar_first`), the databases, and for git_pillar the file system its trees are
/// mounted in and the served `- git:` entries.
struct Ext<'a> {
    opts: &'a Value,
    sql: Option<&'a dyn ext::SqlConnector>,
    fs: Option<&'a Arc<dyn Vfs>>,
    git: Option<&'a [crate::workspace::gitfs::PillarEntry]>,
}

/// What one compile hands its ext_pillar run besides the pillar (git_pillar compiles pillars
/// of its own).
struct ExtCompile<'b> {
    files: &'b mut FileTable,
    opts_pillar: Option<&'b Value>,
    saltenv: Option<&'b str>,
    jinja: &'b JinjaSetup,
    /// Where git_pillar's results go, with who set each of their values.
    git: &'b mut Vec<git::GitPillar>,
}

impl Ext<'_> {
    /// No ext_pillar (git_pillar's own compiles, `compile_pillar(ext=False)`).
    fn none() -> Ext<'static> {
        Ext { opts: &Value::Null, sql: None, fs: None, git: None }
    }

    fn configured(&self) -> bool {
        self.opts.get("ext_pillar").is_some_and(|e| !e.is_null())
    }

    /// `Pillar.ext_pillar(pillar)` with the pillar merge options; what it says as pillar errors
    /// (Salt's `_errors` entry when Salt reports the entry as failed, a warning otherwise).
    fn run(&self, pillar: Value, who: &PillarMinion, o: &PillarOptions, errors: &mut Vec<PillarError>, c: ExtCompile) -> Value {
        let merge = |a: &mut Value, b: &Value| dictupdate::merge(a, b, &o.strategy, &o.renderer, o.merge_lists);
        // The ext_pillar modules get the minion id (a query's `%s`).
        if let Some(log) = who.facts {
            log.record(crate::workspace::facts::Question::Id, || crate::workspace::reads::hash(who.id));
        }
        let ExtCompile { files, opts_pillar, saltenv, jinja, git: results } = c;
        let mut git_errors = Vec::new();
        let mut git = |n: usize| {
            let (fs, entry) = (self.fs?, self.git?.get(n)?);
            // `opts["saltenv"]` as `Pillar.__gen_opts` leaves it: the compile's, else the configuration's.
            let saltenv = saltenv.or(o.saltenv.as_deref());
            let compile = |roots: &FileRoots, files: &mut FileTable, jinja: &JinjaSetup, env: String| {
                compile_once(&**fs, roots, files, o, who, opts_pillar.cloned(), jinja, Some(env), &Ext::none())
            };
            let g = git::GitCompile { fs, o, raw: self.opts, saltenv, jinja, compile: &compile };
            Some(git::ext_pillar(&g, entry, files, &mut git_errors).map(|r| {
                let data = r.data.clone();
                results.push(r);
                data
            }))
        };
        let (out, issues) = ext::ext_pillar(pillar, self.opts, who.id, self.sql, &merge, &mut git);
        errors.append(&mut git_errors);
        for issue in issues {
            let (code, text) = match &issue.problem {
                ext::ExtProblem::NotEvaluated => (
                    Code::NotAnalysed,
                    format!("not analysed: the ext_pillar `{}` is not evaluated, so the values it would add are missing from this pillar", issue.module),
                ),
                ext::ExtProblem::Unavailable(e) => {
                    (Code::ExtPillar, format!("the ext_pillar `{}` could not open its database: {e}; its values are missing from this pillar", issue.module))
                }
                ext::ExtProblem::QueryFailed(e) => (
                    Code::ExtPillar,
                    format!("a query of the ext_pillar `{}` failed: {e}; Salt logs it and keeps the rows of the queries before it", issue.module),
                ),
                ext::ExtProblem::Raised(e) => (Code::ExtPillar, format!("the ext_pillar `{}` failed: {e}", issue.module)),
                ext::ExtProblem::Unbound(q) => (
                    Code::ExtPillar,
                    format!(
                        "the query `{q}` of the ext_pillar `{}` has no `{}` for the minion id: Salt always binds the minion id as its one parameter, so the query is refused and gives nothing (Salt only logs it)",
                        issue.module,
                        if issue.module == "sqlite3" { "?" } else { "%s" }
                    ),
                ),
            };
            errors.push(PillarError { salt: issue.salt, diag: SaltError::new(code, text), carried: false });
        }
        out
    }
}

/// Drops layer 0 (the pillar before the second compile) from what each value overrode, except
/// where `base` (the configuration's `pillar:`) has a value.
fn forget_first_compile(o: &mut Origins, base: Option<&Value>) {
    if base.is_none() {
        o.origin.overrode.retain(|l| *l != 0);
    }
    for (k, child) in &mut o.children {
        forget_first_compile(child, base.and_then(|b| b.get(k.as_str())));
    }
}

/// One `Pillar(...).compile_pillar()` over `pillar_data`, without ext_pillar.
#[allow(clippy::too_many_arguments)]
fn compile_once(
    fs: &dyn Vfs,
    roots: &FileRoots,
    files: &mut FileTable,
    o: &PillarOptions,
    who: &PillarMinion,
    opts_pillar: Option<Value>,
    jinja: &JinjaSetup,
    saltenv: Option<String>,
    ext: &Ext,
) -> Pillar {
    // 3008 starts from a copy of `opts["pillar"]`; before, from the override (`{}`).
    let mut pillar_data = match &opts_pillar {
        Some(Value::Object(m)) if o.version.pillar_data() => m.clone(),
        _ => Map::new(),
    };
    let mut ext_errors = Vec::new();
    // `ext_pillar_first`: the ext_pillar data (over the pillar override, `{}`) first, which the
    // pillar SLS files and targets then see.
    let first = ext.configured() && Val::from_json(ext.opts.get("ext_pillar_first").unwrap_or(&Value::Null), None).truthy();
    // What the templates and the pillar matchers see: `opts["pillar"]` (3006, 3007: replaced
    // by the ext_pillar data with `ext_pillar_first`), or 3008's `pillar_data`.
    let mut seen = match &opts_pillar {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let mut opts_pillar = opts_pillar;
    if first {
        let c = ExtCompile { files: &mut *files, opts_pillar: opts_pillar.as_ref(), saltenv: saltenv.as_deref(), jinja, git: &mut Vec::new() };
        if let Value::Object(data) = ext.run(Value::Object(Map::new()), who, o, &mut ext_errors, c) {
            if o.version.pillar_data() {
                pillar_data.extend(data);
                seen.clone_from(&pillar_data);
            } else {
                // `self.opts["pillar"], errors = self.ext_pillar(self.pillar_override)`.
                opts_pillar = Some(Value::Object(data.clone()));
                seen = data;
            }
        }
    }
    // 3006 and 3007's pillar matchers raise when `opts` has neither `pillar` nor `ext_pillar`
    // (git_pillar's own compiles, `Ext::none()`, run under options that have `ext_pillar`).
    let without_pillar = !o.version.pillar_data() && opts_pillar.is_none();
    let unbound = without_pillar && ext.opts.is_object() && ext.opts.get("ext_pillar").is_none();
    let ext_list = without_pillar.then(|| ext.opts.get("ext_pillar").cloned()).flatten();
    let jinja_in = jinja;
    let mut jinja = jinja.clone();
    // The pillar compiled so far follows from what the compile asked before: not recorded.
    jinja.pillar = crate::workspace::facts::Data::new(crate::workspace::facts::Which::Pillar, Value::Object(seen.clone()));
    let mut top_errors = Vec::new();
    let none_env = (o.strategy == "none").then(|| saltenv.clone().unwrap_or_else(|| "base".into()));
    let topts = top::TopOptions { state_top: &o.state_top, pillarenv: o.pillarenv.as_deref(), none_strategy_env: none_env.as_deref() };
    let tops = top::get_tops(fs, roots, files, &jinja, &topts, &mut top_errors);
    if o.version.pillar_tops_unordered() && tops.len() > 1 {
        let envs: Vec<&str> = tops.keys().map(String::as_str).collect();
        let msg = format!(
            "Salt 3007 reads the pillar top files of {} in the order of a Python set, which changes from run to run: where their targets or SLS files overlap, the pillar may differ between runs (this answer takes pillar_roots order, as 3006 and 3008 do)",
            envs.join(", ")
        );
        top_errors.push(PillarError { salt: None, diag: SaltError::new(Code::RenderUnsure, msg), carried: false });
    }
    let merged = top::merge_tops(&tops).unwrap_or_else(|at| {
        let msg = "Error encountered while rendering pillar top file.";
        top_errors.push(PillarError::new(msg, SaltError::new(Code::MalformedTop, format!("{msg} (a section or target Salt cannot iterate)")).at(at)));
        PillarTop::default()
    });
    let data = ext_list.unwrap_or_else(|| Value::Object(seen.clone()));
    let ctx = MatchContext::new(who.id, who.grains, &data).with_nodegroups(who.nodegroups).recording(who.facts, false).with_pillar_unbound(unbound);
    let (matches, targets) = match top::top_matches(&merged, &ctx, o.pillarenv.as_deref()) {
        Ok(m) => m,
        Err(raised) => return Pillar::from_raise(raised),
    };
    let avail = top::get_envs(roots).into_iter().map(|e| (e.clone(), roots.list_states_shared(&e))).collect();
    let mut r = Render { fs, roots, files, o, jinja, avail, top: &merged, layers: Vec::new(), errors: Vec::new() };
    r.layers.push(Layer { env: String::new(), sls: String::new(), path: None, included_by: None });
    let (rendered, rendered_origins) = r.render_pillar(&matches);
    let Render { mut layers, mut errors, .. } = r;
    // With `ext_pillar_first`, what the files rendered is merged over the ext_pillar data
    // (3006, 3007: over `opts["pillar"]`, which is that data).
    let rendered = match first {
        true => {
            let mut before = Value::Object(seen.clone());
            match dictupdate::merge(&mut before, &Value::Object(rendered.clone()), &o.strategy, &o.renderer, o.merge_lists) {
                Ok(Value::Object(m)) => m,
                _ => rendered,
            }
        }
        false => rendered,
    };
    // `self.pillar_data.update(pillar)`.
    let mut out = pillar_data;
    let mut origins = Origins::of(&Value::Object(out.clone()), 0, None, None);
    for (k, v) in rendered {
        let mut o = rendered_origins.child(&k).cloned().unwrap_or_else(|| Origins::of(&v, 0, None, None));
        if out.contains_key(&k) && o.origin.layer != 0 && !o.origin.overrode.contains(&0) {
            o.origin.overrode.insert(0, 0);
        }
        origins.set_child(&k, o);
        out.insert(k, v);
    }
    // Without `ext_pillar_first`, the ext_pillar entries are merged over what the files gave.
    if ext.configured() && !first {
        let before = Value::Object(out.clone());
        let mut gits = Vec::new();
        let c = ExtCompile { files: &mut *files, opts_pillar: opts_pillar.as_ref(), saltenv: saltenv.as_deref(), jinja: jinja_in, git: &mut gits };
        if let Value::Object(after) = ext.run(before.clone(), who, o, &mut ext_errors, c) {
            let layer = layers.len();
            layers.push(Layer { env: String::new(), sls: "ext_pillar".into(), path: None, included_by: None });
            // The entries' data was merged over `before`: what they changed is theirs.
            let merged = Value::Object(after.clone());
            if let Some(written) = crate::mapstack::origin::changed(&before, &merged) {
                origins = Origins::merged(Some(&origins), &merged, Some(&written), None, layer, None);
            }
            // What a git_pillar remote's file set, and the result still holds, is that file's.
            for g in gits {
                g.adopt_into(&mut origins, &merged, layer, &mut layers);
            }
            out = after;
        }
    }
    errors.extend(ext_errors);
    errors.extend(top_errors);
    // `ssh_merge_pillar` (on by default): `opts["pillar"]` merged under the result, so a value
    // of the earlier pillar that this compile replaced shallowly is merged back in.
    let mut out = match opts_pillar {
        Some(mut before) if before.is_object() && o.ssh_merge_pillar => {
            let mut prev = Origins::of(&before, 0, None, None);
            prev.origin.layer = 0;
            let after = Value::Object(out);
            match dictupdate::merge(&mut before, &after, &o.strategy, &o.renderer, o.merge_lists) {
                Ok(Value::Object(merged)) => {
                    origins = Origins::overlay(Some(&prev), &Value::Object(merged.clone()), Some(&after), &origins);
                    merged
                }
                _ => after.as_object().cloned().unwrap_or_default(),
            }
        }
        _ => out,
    };
    let salt: Vec<Value> = errors.iter().filter(|e| !e.carried).filter_map(|e| e.salt.clone().map(Value::String)).collect();
    if !salt.is_empty() {
        out.insert("_errors".into(), Value::Array(salt.clone()));
        origins.set_child("_errors", Origins::of(&Value::Array(salt), 0, None, None));
    }
    Pillar { pillar: Value::Object(out), errors, layers, origins, matches, targets, raised: None }
}

impl Pillar {
    /// The compile that raised at a top file's target.
    fn from_raise(r: top::TargetRaised) -> Pillar {
        let text = r.message.split(" (Salt raises").next().unwrap_or(&r.message).to_string();
        let diag = SaltError::new(Code::InvalidTarget, format!("Salt raises here, so the pillar fails to compile: {}", r.message)).at(r.loc);
        let mut p = Pillar::literal(Value::Object(Map::new()));
        p.errors.push(PillarError::new(text.clone(), diag));
        p.raised = Some(text);
        p
    }
}

/// A rendered pillar SLS (Python's `None` is `None`), and who set each of its values.
type Rendered = Option<(Value, Origins)>;

/// A state that is the very object `mods` holds for an SLS, as that object is now: an
/// `overwrite` merge in a nested include may have assigned into it since.
fn current(mods: &IndexMap<String, Rendered>, entry: (Value, Origins, Option<String>)) -> (Value, Origins, Option<String>) {
    match entry.2.as_ref().and_then(|name| mods.get(name)) {
        Some(Some((v, o))) => (v.clone(), o.clone(), entry.2),
        _ => entry,
    }
}

struct Render<'a> {
    fs: &'a dyn Vfs,
    roots: &'a FileRoots,
    files: &'a mut FileTable,
    o: &'a PillarOptions,
    jinja: JinjaSetup,
    /// `Pillar.avail`: the SLS names of `base` and every `pillar_roots` environment.
    avail: IndexMap<String, Arc<Vec<String>>>,
    top: &'a PillarTop,
    layers: Vec<Layer>,
    errors: Vec<PillarError>,
}

fn no_env(env: &str, at: Option<Loc>) -> PillarError {
    let msg = format!("No matching pillar environment for environment '{env}' found");
    PillarError::new(msg.clone(), SaltError::new(Code::UnknownEnvironment, format!("{msg}: `pillar_roots` has no environment `{env}`")).at(at))
}

impl Render<'_> {
    fn merge(&self, a: &mut Value, b: &Value) -> Option<Value> {
        dictupdate::merge(a, b, &self.o.strategy, &self.o.renderer, self.o.merge_lists).ok()
    }

    /// Where the top names `sls` in section `env` (the first matching entry).
    fn named_at(&self, env: &str, sls: &str) -> Option<Loc> {
        let targets = self.top.sections.get(env)?;
        let names = |t: &top::PillarTarget| t.body.iter().filter(|b| b.as_str().is_some()).cloned().collect::<Vec<_>>();
        let all: Vec<Val> = targets.iter().flat_map(names).collect();
        let exact = all.iter().find(|b| b.as_str() == Some(sls));
        let glob = || all.iter().find(|b| b.as_str().is_some_and(|p| fnmatch::filter([sls], p).len() == 1));
        exact.or_else(glob).and_then(|b| b.at.clone())
    }

    /// `Pillar.render_pillar`: every matched SLS of every environment (in `env_order` when
    /// set), merged in order.
    fn render_pillar(&mut self, matches: &Matches) -> (Map<String, Value>, Origins) {
        let mut pillar = Value::Object(Map::new());
        let mut origins = Origins::of(&pillar, 0, None, None);
        let mut envs: Vec<&String> = self.o.env_order.iter().filter(|e| matches.contains_key(*e)).collect();
        envs.extend(matches.keys().filter(|e| !self.o.env_order.contains(e)));
        for env in envs {
            let mut files = Vec::new();
            for sls_match in &matches[env] {
                match self.avail.get(env) {
                    Some(avail) => {
                        reads::names(self.fs, self.roots, env, sls_match);
                        let found = fnmatch::filter(avail.iter().map(String::as_str), sls_match);
                        if found.is_empty() {
                            files.push(sls_match.clone());
                        }
                        files.extend(found.into_iter().map(str::to_string));
                    }
                    None => {
                        let at = self.named_at(env, sls_match);
                        self.errors.push(no_env(env, at));
                        files.push(sls_match.clone());
                    }
                }
            }
            let mut mods = IndexMap::new();
            for sls in files {
                let at = self.named_at(env, &sls);
                let (pstate, err, _) = self.render_pstate(&sls, env, &mut mods, &Map::new(), at, None);
                self.errors.extend(err);
                let Some((p, o)) = pstate else { continue };
                if !p.is_object() {
                    continue;
                }
                if let Some(merged) = self.merge(&mut pillar, &p) {
                    origins = Origins::overlay(Some(&origins), &merged, Some(&p), &o);
                    pillar = merged;
                }
            }
        }
        match pillar {
            Value::Object(m) => (m, origins),
            _ => (Map::new(), origins),
        }
    }

    /// Reads and renders one pillar SLS file with the pillar SLS context (its `sls`, `saltenv`,
    /// ... and the include's `defaults`).
    fn render_file(&mut self, f: &crate::workspace::roots::StateFile, sls: &str, env: &str, defaults: &Map<String, Value>) -> Result<(Val, bool), SaltError> {
        let text = self.fs.read(&f.path).map_err(|e| SaltError::new(Code::UnreadableFile, format!("cannot read {}: {e}", f.path.display())))?;
        let id = self.files.add(f.path.clone(), Arc::from(text.as_str()));
        let at = Some(Loc { file: id, span: 0..0 });
        let rel = f.source.trim_start_matches("salt://");
        let mut ctx = self.jinja.context(env, sls, rel, &f.path);
        ctx.extra = defaults.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let templated = crate::render::is_templated(&text);
        match crate::render::render_with(&text, id, Some(&ctx)) {
            Ok(v) => Ok((v, templated)),
            Err(mut e) => {
                crate::render::place_in_template(&mut e, self.fs, self.roots, env, self.files);
                if e.loc.is_none() {
                    e.loc = at;
                }
                Err(e)
            }
        }
    }

    /// `Pillar.render_pstate(sls, saltenv, mods, defaults)`: the SLS rendered, its includes
    /// rendered and merged under it, and the errors Salt collects on the way. Over 150 lines
    /// because it mirrors `render_pstate` in `salt/pillar/__init__.py` step for step (its locals
    /// keep their values from item to item, as Python's do).
    fn render_pstate(
        &mut self,
        sls: &str,
        env: &str,
        mods: &mut IndexMap<String, Rendered>,
        defaults: &Map<String, Value>,
        named_at: Option<Loc>,
        included_by: Option<&str>,
    ) -> (Rendered, Vec<PillarError>, bool) {
        let mut errors = Vec::new();
        let layer = self.layers.len();
        let Some(f) = reads::state(self.fs, self.roots, env, sls) else {
            if self.top.ignored.get(env).is_some_and(|l| l.iter().any(|x| x == sls)) {
                return (None, errors, false);
            }
            if self.roots.envs.get(env).is_some_and(|e| !e.roots.is_empty()) {
                let msg = format!("Specified SLS '{sls}' in environment '{env}' is not available on the salt master");
                let why = match included_by {
                    Some(by) => {
                        format!("{msg}: pillar SLS `{by}` includes it, and no `{}.sls` or `{}/init.sls` exists", sls.replace('.', "/"), sls.replace('.', "/"))
                    }
                    None => format!("{msg}: the pillar top assigns it without `ignore_missing`, and no pillar root of `{env}` has it"),
                };
                errors.push(PillarError::new(msg, SaltError::new(Code::MissingSls, why).at(named_at)));
                // `compile_template(False)` is `{}`.
                self.layers.push(Layer { env: env.into(), sls: sls.into(), path: None, included_by: included_by.map(str::to_string) });
                let empty = Value::Object(Map::new());
                let r = Some((empty.clone(), Origins::of(&empty, layer, None, None)));
                mods.insert(sls.to_string(), r.clone());
                return (r, errors, true);
            }
            return (None, errors, false);
        };
        self.layers.push(Layer { env: env.into(), sls: sls.into(), path: Some(f.path.clone()), included_by: included_by.map(str::to_string) });
        let rendered = match self.render_file(&f, sls, env, defaults) {
            Ok(v) => Some(v),
            Err(e) if e.code == Code::NotAnalysed => {
                errors.push(PillarError { salt: None, diag: e, carried: false });
                None
            }
            Err(e) => {
                let salt = if self.o.safe_render_error {
                    format!("Rendering SLS '{sls}' failed. Please see master log for details.")
                } else {
                    format!("Rendering SLS '{sls}' failed, render error:\n{}", e.message)
                };
                let mut diag = e;
                diag.message = format!("Rendering pillar SLS '{sls}' failed: {}", diag.message);
                errors.push(PillarError::new(salt, diag));
                None
            }
        };
        let Some((val, templated)) = rendered else {
            mods.insert(sls.to_string(), None);
            return (None, errors, false);
        };
        let mut state = val.to_json();
        let own = |state: &Value| Origins::of(state, layer, (!templated).then_some(&val), None);
        let truthy = Val::from_json(&state, None).truthy();
        if !truthy {
            let r = Some((state.clone(), own(&state)));
            mods.insert(sls.to_string(), r.clone());
            return (r, errors, true);
        }
        let file_at = val.at.clone();
        let Value::Object(map) = &mut state else {
            let msg = format!("SLS '{sls}' does not render to a dictionary");
            errors.push(PillarError::new(msg.clone(), SaltError::new(Code::RenderError, msg).at(file_at)));
            let r = Some((state.clone(), own(&state)));
            mods.insert(sls.to_string(), r.clone());
            return (r, errors, true);
        };
        let include = match map.get("include") {
            None => None,
            Some(Value::Array(_)) => map.shift_remove("include"),
            Some(_) => {
                let msg = format!("Include Declaration in SLS '{sls}' is not formed as a list");
                errors.push(PillarError::new(msg.clone(), SaltError::new(Code::MalformedState, msg).at(file_at.clone())));
                None
            }
        };
        let own_origins = own(&state);
        mods.insert(sls.to_string(), Some((state.clone(), own_origins.clone())));
        let Some(Value::Array(items)) = include else {
            return (Some((state, own_origins)), errors, true);
        };
        let include_at = val.as_dict().and_then(|d| d.get("include")).and_then(|v| v.at.clone()).or(file_at);
        // `defaults` and `err` are Python locals that keep their values from item to item.
        let mut defaults = defaults.clone();
        let mut err: Vec<PillarError> = Vec::new();
        // Each entry: the value, its origins, and the `mods` entry it is the very object of.
        let mut include_states: Vec<(Value, Origins, Option<String>)> = Vec::new();
        let mut state_now = Some((state.clone(), own_origins.clone(), Some(sls.to_string())));
        for item in items {
            let (mut sub_sls, key) = match &item {
                Value::Object(d) => {
                    let Some((name, v)) = d.iter().next() else { continue };
                    defaults = v.get("defaults").and_then(Value::as_object).cloned().unwrap_or_default();
                    (name.clone(), v.get("key").and_then(Value::as_str).map(str::to_string))
                }
                Value::String(s) => (s.clone(), None),
                other => (Val::from_json(other, None).py_str(), None),
            };
            let mut matched: Vec<String> = match self.avail.get(env).cloned() {
                Some(avail) => {
                    let pattern = sub_sls.trim_start_matches('.').replace('/', ".");
                    reads::names(self.fs, self.roots, env, &pattern);
                    let mut m: Vec<String> = fnmatch::filter(avail.iter().map(String::as_str), &pattern).into_iter().map(str::to_string).collect();
                    if let Some(rest) = sub_sls.strip_prefix('.') {
                        let mut parts: Vec<&str> = sls.split('.').collect();
                        if !f.is_init() {
                            parts.pop();
                        }
                        parts.push(rest);
                        sub_sls = parts.join(".");
                    }
                    reads::names(self.fs, self.roots, env, &sub_sls);
                    m.extend(fnmatch::filter(avail.iter().map(String::as_str), &sub_sls).into_iter().map(str::to_string));
                    m
                }
                None => {
                    errors.push(no_env(env, include_at.clone()));
                    vec![sub_sls.clone()]
                }
            };
            if matched.is_empty() {
                matched.push(sub_sls.clone());
            }
            for m in matched {
                // Whether `nstate` is the very object `mods` holds (a fresh render's result is
                // when the SLS had no includes to merge).
                let (nstate, same) = match mods.get(&m) {
                    Some(r) => (r.clone(), true),
                    None => {
                        let (n, e, own) = self.render_pstate(&m, env, mods, &defaults, include_at.clone(), Some(sls));
                        err = e;
                        (n, own)
                    }
                };
                if let Some((mut n, mut o)) = nstate.filter(|(n, _)| Val::from_json(n, None).truthy()) {
                    let mut alias = same.then(|| m.clone());
                    if let Some(key) = &key {
                        for fragment in key.split(':').rev() {
                            n = Value::Object(Map::from_iter([(fragment.to_string(), n)]));
                            o = Origins { origin: o.origin.clone(), children: vec![(fragment.to_string(), o)] };
                        }
                        alias = None;
                    }
                    if !n.is_object() {
                        let msg = format!(
                            "pillar SLS `{m}` does not render to a mapping, and `{sls}` includes it: Salt raises merging it (TypeError: Cannot update using non-dict types in dictupdate.update()), so `pillar.items` fails"
                        );
                        errors.push(PillarError { salt: None, diag: SaltError::new(Code::RenderError, msg).at(include_at.clone()), carried: false });
                    } else if !self.o.includes_override_sls {
                        include_states.push((n, o, alias));
                    } else if let Some((mut s, so, s_alias)) = state_now.take().map(|e| current(mods, e)) {
                        if let Some(merged) = self.merge(&mut s, &n) {
                            self.write_back(mods, s_alias, &s, &so, &o);
                            let mo = Origins::overlay(Some(&so), &merged, Some(&n), &o);
                            state_now = Some((merged, mo, None));
                        } else {
                            state_now = Some((s, so, s_alias));
                        }
                    }
                }
                errors.extend(err.iter().cloned());
            }
        }
        if self.o.includes_override_sls {
            let own = state_now.as_ref().is_some_and(|e| e.2.as_deref() == Some(sls));
            return (state_now.map(|(s, o, _)| (s, o)), errors, own);
        }
        // Included states first, the SLS itself last, so its own values win.
        include_states.extend(state_now);
        let mut acc: Option<(Value, Origins, Option<String>)> = None;
        for entry in include_states {
            let (s, o, alias) = current(mods, entry);
            acc = Some(match acc {
                None => (s, o, alias),
                Some((mut a, ao, a_alias)) => match self.merge(&mut a, &s) {
                    Some(merged) => {
                        self.write_back(mods, a_alias, &a, &ao, &o);
                        let mo = Origins::overlay(Some(&ao), &merged, Some(&s), &o);
                        (merged, mo, None)
                    }
                    None => (a, ao, a_alias),
                },
            });
        }
        let own = acc.as_ref().is_some_and(|e| e.2.as_deref() == Some(sls));
        (acc.map(|(s, o, _)| (s, o)), errors, own)
    }

    /// `overwrite` assigns into the merge's first argument; when that is the very object a
    /// `mods` entry holds, later includes of that SLS see the change.
    /// `value` is that object after the merge assigned into it, `origins` its origins before,
    /// `assigned` the origins of the merged-in value, whose keys now hold its values.
    fn write_back(&self, mods: &mut IndexMap<String, Rendered>, alias: Option<String>, value: &Value, origins: &Origins, assigned: &Origins) {
        if self.o.strategy != "overwrite" {
            return;
        }
        if let Some(name) = alias {
            let mut origins = origins.clone();
            for (k, o) in &assigned.children {
                if origins.child(k).is_some() {
                    origins.set_child(k, o.clone());
                }
            }
            mods.insert(name, Some((value.clone(), origins)));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{expect, Expect};

    use super::*;
    use crate::version::SaltVersion;
    use crate::workspace::vfs::MemFs;
    use crate::workspace::Workspace;

    /// The pillar of the minion `/ws/etc` describes, as JSON, then each value's layer and the
    /// errors.
    fn check(fixture: &str, expect: Expect) {
        check_as(SaltVersion::V3008, fixture, expect)
    }

    /// [`check`] under the rules of `version`.
    fn check_as(version: SaltVersion, fixture: &str, expect: Expect) {
        let fs = MemFs::from_fixture(fixture);
        let mut ws = Workspace::load(&fs, Path::new("/ws"), Some(Path::new("/ws/etc"))).expect("workspace");
        ws.opts.version = version;
        let minion = crate::workspace::minion::from_config(&ws);
        let roots = FileRoots::scan(&fs, &ws.opts.pillar_roots);
        let jinja = {
            let (fs, roots) = (fs.clone(), roots.clone());
            JinjaSetup::new(&minion, &ws.opts, move |env, rel| fs.read(&roots.find_file(env, rel)?).ok())
        };
        let who = PillarMinion { id: &minion.id, grains: &minion.grains, nodegroups: &minion.nodegroups, facts: None };
        let mut files = FileTable::default();
        let fs: Arc<dyn Vfs> = Arc::new(fs);
        let p = compile(&fs, &roots, &mut files, &ws.opts, &who, ws.opts.raw.get("pillar").cloned(), &jinja, None);
        let mut out = format!("{}\n", p.pillar);
        for (path, o) in p.origins.leaves() {
            let l = &p.layers[o.layer];
            let line = o.at.as_ref().map(|at| format!(":{}", files.human(at.file, at.span.start).0)).unwrap_or_default();
            let over: Vec<String> = o.overrode.iter().map(|i| p.layers[*i].sls.clone()).collect();
            out.push_str(&format!("{} <- [{}] {}{line} over {over:?}\n", path.join("."), l.env, l.sls));
        }
        for e in &p.errors {
            let line = e.diag.loc.as_ref().map(|at| format!("{}:{}", files.path(at.file).display(), files.human(at.file, at.span.start).0));
            out.push_str(&format!("error at {line:?}: {}\n", e.diag.message));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn two_compiles_as_salt_call_does_and_the_config_pillar_merged_under() {
        // Salt 3008.4 `salt-call --local -c etc pillar.items unmask=True` printed
        // {"static": 1, "x": 1, "y": 1, "z": "fromconf", "d": "d dev", "_errors": [...], "late": 1, "c": "first"}:
        // templates and `I@` targets of the second compile see the first one's result.
        check(
            r#"
#- etc/minion
id: m1
pillar_roots: {base: [/ws/p/base], dev: [/ws/p/dev]}
pillar: {static: 1, x: fromconf}
grains: {role: web}
#- p/base/top.sls
base:
  '*': [a, b, missing]
  'I@x:1': [c]
dev:
  '*': [d]
#- p/base/a.sls
x: 1
#- p/base/b.sls
y: {{ pillar.get("x", "none") }}
z: {{ pillar.get("y", "none") }}
{% if pillar.get("y") %}late: 1{% endif %}
#- p/base/c.sls
c: {{ pillar.get("c", "first") }}
#- p/dev/d.sls
d: {{ sls }} {{ saltenv }}
"#,
            expect![[r#"
                {"static":1,"x":1,"y":1,"z":"fromconf","d":"d dev","_errors":["Specified SLS 'missing' in environment 'base' is not available on the salt master"],"late":1,"c":"first"}
                static <- []  over []
                x <- [base] a:1 over [""]
                y <- [base] b over []
                z <- [base] b over []
                d <- [dev] d over []
                _errors <- []  over []
                late <- [base] b over []
                c <- [base] c over []
                error at Some("/ws/p/base/top.sls:2"): Specified SLS 'missing' in environment 'base' is not available on the salt master: the pillar top assigns it without `ignore_missing`, and no pillar root of `base` has it
            "#]],
        );
    }

    #[test]
    fn before_3008_the_compile_starts_without_the_config_pillar_and_i_targets_need_one() {
        // Salt 3008.4 printed {"s1": [["web", "web"], ["web", "web"]]}: `pillar_data` starts
        // from `opts["pillar"]`, so the `list` merge of `ssh_merge_pillar` (which keeps only
        // `opts["pillar"]`'s keys) pairs `s1` with itself, in each compile. 3006.29 and
        // 3007.16 printed {"s1": "web"}: the compile starts from `{}`.
        let fixture = r#"
#- etc/minion
id: m1
pillar_roots: {base: [/ws/p]}
pillar_source_merging_strategy: list
pillar: {s1: web}
#- p/top.sls
base:
  '*': [b]
#- p/b.sls
b: 1
"#;
        check(
            fixture,
            expect![[r#"
                {"s1":[["web","web"],["web","web"]]}
                s1 <- []  over []
            "#]],
        );
        for version in [SaltVersion::V3006, SaltVersion::V3007] {
            check_as(
                version,
                fixture,
                expect![[r#"
                    {"s1":"web"}
                    s1 <- []  over []
                "#]],
            );
        }
        // Without a `pillar:` in the configuration, an `I@` target of the first compile finds
        // no pillar: 3006 and 3007's matcher raises (salt-call fails), 3008's reads `{}`.
        let fixture = r#"
#- etc/minion
id: m1
pillar_roots: {base: [/ws/p]}
#- p/top.sls
base:
  '*': [b]
  'I@b:1 or G@x:y': [c]
#- p/b.sls
b: 1
#- p/c.sls
c: 1
"#;
        check(
            fixture,
            expect![[r#"
                {"b":1,"c":1}
                b <- [base] b:1 over []
                c <- [base] c:1 over []
            "#]],
        );
        check_as(
            SaltVersion::V3006,
            fixture,
            expect![[r#"
                {}
                 <- []  over []
                error at Some("/ws/p/top.sls:3"): Salt raises here, so the pillar fails to compile: UnboundLocalError: cannot access local variable 'pillar' where it is not associated with a value
            "#]],
        );
    }

    #[test]
    fn salt_3007_reads_several_top_files_in_no_fixed_order() {
        let fixture = r#"
#- etc/minion
id: m1
pillar_roots: {base: [/ws/p/base], dev: [/ws/p/dev]}
#- p/base/top.sls
base:
  '*': [a]
#- p/base/a.sls
a: 1
#- p/dev/top.sls
dev:
  '*': [d]
#- p/dev/d.sls
d: 1
"#;
        let warned = |version| {
            let fs = MemFs::from_fixture(fixture);
            let mut ws = Workspace::load(&fs, Path::new("/ws"), Some(Path::new("/ws/etc"))).expect("workspace");
            ws.opts.version = version;
            let minion = crate::workspace::minion::from_config(&ws);
            let roots = FileRoots::scan(&fs, &ws.opts.pillar_roots);
            let jinja = JinjaSetup::new(&minion, &ws.opts, |_, _| None);
            let who = PillarMinion { id: &minion.id, grains: &minion.grains, nodegroups: &minion.nodegroups, facts: None };
            let fs: Arc<dyn Vfs> = Arc::new(fs);
            let p = compile(&fs, &roots, &mut FileTable::default(), &ws.opts, &who, None, &jinja, None);
            assert_eq!(p.pillar, serde_json::json!({"a": 1, "d": 1}));
            p.errors.iter().filter(|e| e.diag.code == Code::RenderUnsure).count()
        };
        // One warning (both compiles read the tops; the answer keeps the first).
        assert_eq!(warned(SaltVersion::V3007), 1);
        assert_eq!(warned(SaltVersion::V3006), 0);
        assert_eq!(warned(SaltVersion::V3008), 0);
    }

    #[test]
    fn an_overwrite_merge_assigns_into_the_including_sls_own_state() {
        // Salt 3008.4 printed {"conf": {"from": "web"}, "keep": 1, "web": 1}: merging
        // `roles.web` over the `defs` object its `.defs` include found in `mods` assigned
        // `conf` into the very dict `defs` merges last.
        check(
            r#"
#- etc/minion
id: m1
pillar_roots: {base: [/ws/p]}
pillar_source_merging_strategy: overwrite
#- p/top.sls
base:
  '*': [defs]
#- p/defs.sls
include: [roles.web]
conf: own
keep: 1
#- p/roles/web.sls
include: [.defs]
conf: {from: web}
web: 1
"#,
            expect![[r#"
                {"conf":{"from":"web"},"keep":1,"web":1}
                conf.from <- [base] roles.web:2 over []
                keep <- [base] defs:3 over []
                web <- [base] roles.web:3 over []
            "#]],
        );
    }

    #[test]
    fn includes_with_defaults_and_key_order_ignore_missing_and_merge_lists() {
        // Salt 3008.4 printed {"users": ["alice", "bob", "carol"], "app": {"port": 443,
        // "tls": true, "lib": {"color": "blue"}, "name": "app"}}.
        check(
            r#"
#- etc/minion
id: web01
pillar_roots: {base: [/ws/p/base], dev: [/ws/p/dev]}
grains: {role: web}
pillar_merge_lists: true
#- p/base/top.sls
base:
  'web*':
    - order: 2
    - app
  'G@role:web':
    - order: 1
    - common
    - ignore_missing: true
    - gone
dev:
  '*': [extra]
#- p/base/common.sls
users: [alice]
app: {port: 80}
#- p/base/app/init.sls
include:
  - .tls
  - lib:
      defaults: {color: blue}
      key: 'app:lib'
users: [bob]
app: {name: {{ sls }}}
#- p/base/app/tls.sls
app: {tls: true, port: 443}
#- p/base/lib.sls
color: {{ color }}
#- p/dev/extra.sls
users: [carol]
"#,
            expect![[r#"
                {"users":["alice","bob","carol"],"app":{"port":443,"tls":true,"lib":{"color":"blue"},"name":"app"}}
                users <- [dev] extra:1 over ["common", "app"]
                app.port <- [base] app.tls:1 over ["common"]
                app.tls <- [base] app.tls:1 over []
                app.lib.color <- [base] lib over []
                app.name <- [base] app over []
            "#]],
        );
    }
}
