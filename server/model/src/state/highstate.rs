//! Assembling high data from SLS files as Salt's `BaseHighState.render_state` and
//! `render_highstate` do (`salt/state.py` `BaseHighState.render_state`, `_handle_state_decls`, `merge_included_states`): fetch, render, pop
//! `include`/`extend`/`exclude`, pad declarations, follow includes (each SLS once), merge with
//! the conflicting-ID check, and number states with `state_auto_order`.

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::diagnostic::{Code, SaltError};
use crate::py::fnmatch;
use crate::render;
use crate::targeting::Matches;
use crate::value::{Dict, Loc, Val, V};
use crate::workspace::config::Opts;
use crate::workspace::reads;
use crate::workspace::roots::{get_envs, FileRoots, StateFile};
use crate::workspace::vfs::{FileTable, Vfs};

/// One SLS file that was rendered into the high data.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub env: String,
    pub sls: String,
    pub file: Option<StateFile>,
    /// Include items of this file that resolved, with where they were written.
    pub includes: Vec<ResolvedInclude>,
    /// Whether the file uses Jinja (static mode only knows its certain parts).
    pub templated: bool,
    /// What its render read and gave, where the compile keeps renders (the editor's).
    pub part: Option<Part>,
}

/// A file's render as a compile that keeps renders records it.
#[derive(Debug, Clone)]
pub enum Part {
    /// It rendered: the memo's entry (its data, hints and what it read besides its own text).
    Kept(Arc<render::memo::Entry>),
    /// It failed to render, after reading these (its own text too).
    Failed(crate::workspace::reads::Reads),
}

#[derive(Debug, Clone)]
pub struct ResolvedInclude {
    pub loc: Option<Loc>,
    pub env: String,
    pub sls: String,
}

/// The result of `render_highstate`: high data, errors, and what was read.
#[derive(Debug, Clone, Default)]
pub struct HighState {
    pub high: Dict,
    pub errors: Vec<SaltError>,
    /// What rendering could not do for real (a `salt[...]` function that was not executed),
    /// as `not-analysed` hints where the template calls it. Never an error: Salt would run it.
    pub hints: Vec<SaltError>,
    /// `env:sls` rendered, in the order their rendering started.
    pub rendered: Vec<Rendered>,
    /// Whether a file changed what the files rendered after it see (the pillar, in place):
    /// a file of this highstate cannot be rendered again alone.
    pub carried: bool,
}

/// Resolve an include name written in SLS `sls` (whose file is an `init.sls` when `is_init`):
/// absolute names are returned as they are; `.x`, `..x` climb one package per dot, and an
/// `init.sls` counts one extra level (as `render_state` resolves them). `None` when it climbs past the top.
pub fn resolve_relative(sls: &str, is_init: bool, name: &str) -> Option<String> {
    if !name.starts_with('.') {
        return Some(name.to_string());
    }
    let levels = name.len() - name.trim_start_matches('.').len();
    let mut comps = relative_base(sls, is_init, levels)?;
    comps.push(&name[levels..]);
    Some(comps.join("."))
}

/// The package `levels` leading dots climb to from SLS `sls` (an `init.sls` when `is_init`,
/// which counts one extra level), as its name's components: what a relative include's rest is
/// appended to. `None` when it climbs past the top.
pub fn relative_base(sls: &str, is_init: bool, levels: usize) -> Option<Vec<&str>> {
    let mut comps: Vec<&str> = sls.split('.').collect();
    if is_init {
        comps.push("init");
    }
    comps.truncate(comps.len().checked_sub(levels)?);
    Some(comps)
}

/// Renders SLS files into high data; one per compilation (it owns the `order` counter).
pub struct Builder<'a> {
    pub fs: &'a dyn Vfs,
    pub roots: &'a FileRoots,
    pub opts: &'a Opts,
    pub files: &'a mut FileTable,
    /// `avail`: available SLS names per environment (always has `base`), shared with the
    /// roots' cache rather than copied for every compilation.
    pub avail: IndexMap<String, Arc<Vec<String>>>,
    iorder: i64,
    rendered: Vec<Rendered>,
    hints: Vec<SaltError>,
    /// Static analysis: render templates through the Jinja mask instead of refusing them.
    pub static_mode: bool,
    /// The minion data templates are rendered with (none: templates are a render error).
    pub jinja: Option<crate::render::context::JinjaSetup>,
    /// What the files rendered so far left for the next ([`render::carry`]).
    carry: render::carry::Carry,
    /// Whether any file was rendered after one that left something.
    carried: bool,
    /// Plain files read and parsed ahead, on every core ([`Builder::prefetch`]): their text
    /// and data (located in file [`PREFETCHED`] until the walk gives them their id).
    prefetched: std::collections::HashMap<std::path::PathBuf, (Arc<str>, Result<Val, SaltError>)>,
    /// How many includes deep the walk is now ([`MAX_INCLUDE_DEPTH`]).
    depth: usize,
}

/// How deep includes may nest. Names that grow as they nest never meet `mods` again (`- ..`
/// from a file of a package whose `init.sls` includes it back names `pkg.`, then `pkg..`, ...):
/// Salt recurses until Python's recursion limit ends the render (about 470 levels, where the
/// render of the innermost file fails); we stop there with the same kind of error, before our
/// own stack could.
pub const MAX_INCLUDE_DEPTH: usize = 400;

/// The file id data parsed ahead is located in until the walk numbers its file.
const PREFETCHED: crate::value::FileId = crate::value::FileId::MAX;

impl<'a> Builder<'a> {
    pub fn new(fs: &'a dyn Vfs, roots: &'a FileRoots, opts: &'a Opts, files: &'a mut FileTable) -> Builder<'a> {
        let client_envs: Vec<String> = roots.env_names().map(str::to_string).collect();
        let mut avail = IndexMap::new();
        avail.insert("base".to_string(), roots.list_states_shared("base"));
        for env in get_envs(opts, &client_envs) {
            let states = roots.list_states_shared(&env);
            avail.insert(env, states);
        }
        Builder {
            fs,
            roots,
            opts,
            files,
            avail,
            iorder: 10000,
            rendered: Vec::new(),
            hints: Vec::new(),
            static_mode: false,
            jinja: None,
            carry: Default::default(),
            carried: false,
            prefetched: Default::default(),
            depth: 0,
        }
    }

    /// `render_highstate(matches)`.
    pub fn render_highstate(mut self, matches: &Matches) -> HighState {
        if !self.static_mode && !self.keeps_renders() {
            self.prefetch(matches);
        }
        let mut high = Dict::new();
        let mut known = HashSet::default();
        let mut all_errors = Vec::new();
        let mut mods: HashSet<String> = HashSet::new();
        // Salt declares `statefiles` once: for an environment that is not available it keeps
        // the previous entry's expansion (a quirk the conformance suite pins down).
        let mut statefiles: Vec<String> = Vec::new();
        for (saltenv, states) in matches {
            for sls_match in states {
                if let Some(avail) = self.avail.get(saltenv) {
                    reads::names(self.fs, self.roots, saltenv, sls_match);
                    statefiles = fnmatch::filter_sorted(avail, sls_match).into_iter().map(str::to_string).collect();
                } else {
                    all_errors.push(SaltError::new(Code::MissingInclude, format!("No matching salt environment for environment '{saltenv}' found")));
                }
                if statefiles.is_empty() {
                    statefiles = vec![sls_match.clone()];
                }
                for sls in statefiles.clone() {
                    if mods.contains(&format!("{saltenv}:{sls}")) {
                        continue;
                    }
                    let (state, mut errors) = self.render_state(&sls, saltenv, &mut mods, matches, None);
                    if let Some(state) = state {
                        merge_tracked(&mut high, state, &mut errors, &mut known);
                    }
                    let this_sls = format!("SLS {sls_match} in saltenv");
                    for e in errors.iter_mut() {
                        if e.message.contains("is not available") && e.message.contains(&this_sls) {
                            e.message = format!("No matching sls found for '{sls_match}' in env '{saltenv}'");
                        }
                    }
                    all_errors.extend(errors);
                }
            }
        }
        clean_duplicate_extends(&mut high);
        HighState { high, errors: all_errors, hints: self.hints, rendered: self.rendered, carried: self.carried }
    }

    /// `render_state(sls, saltenv, mods, matches)`; `origin` is the include item that asked.
    fn render_state(&mut self, sls: &str, saltenv: &str, mods: &mut HashSet<String>, matches: &Matches, origin: Option<Loc>) -> (Option<Dict>, Vec<SaltError>) {
        let mut errors = Vec::new();
        let (index, rendered) = self.fetch(sls, saltenv, &origin, &mut errors);
        let state_data = self.rendered[index].file.clone();
        if state_data.is_some() {
            mods.insert(format!("{saltenv}:{sls}"));
        }
        let Some(rendered) = rendered.filter(Val::truthy) else {
            return (Some(Dict::new()), errors);
        };
        let at = rendered.at.clone();
        let V::Dict(mut state) = rendered.v else {
            errors.push(SaltError::new(Code::MalformedState, format!("SLS {sls} does not render to a dictionary")).at(at));
            return (None, errors);
        };
        let mut include: Vec<Val> = Vec::new();
        if let Some(inc) = state.get("include") {
            match &inc.v {
                V::List(_) => {
                    if let Some((_, Val { v: V::List(l), .. })) = state.remove("include") {
                        include = l;
                    }
                }
                _ => errors.push(SaltError::new(Code::MalformedState, format!("Include Declaration in SLS {sls} is not formed as a list")).at(inc.at.clone())),
            }
        }
        handle_extend(&mut state, sls, saltenv, &mut errors);
        handle_exclude(&mut state, sls, &mut errors);
        handle_state_decls(&mut state, sls, saltenv, &mut errors);
        let is_init = state_data.as_ref().is_some_and(StateFile::is_init);
        for item in include {
            let item_loc = item.at.clone();
            let (env_key, inc_sls) = match item.v {
                V::Dict(mut d) => match d.0.pop() {
                    Some((k, v)) => (k.py_str(), v),
                    None => {
                        errors.push(SaltError::new(Code::MalformedState, format!("Include entry in SLS {sls} is an empty mapping")).at(item_loc));
                        continue;
                    }
                },
                other => (saltenv.to_string(), Val { v: other, at: item_loc.clone() }),
            };
            let Some(inc_name) = inc_sls.as_str().map(str::to_string) else {
                errors.push(SaltError::new(Code::MalformedState, format!("Include entry {} in SLS {sls} is not a string", inc_sls.py_repr())).at(item_loc));
                continue;
            };
            if !self.avail.contains_key(&env_key) && !self.avail.contains_key("__env__") {
                errors.push(
                    SaltError::new(
                        Code::MissingInclude,
                        format!("Nonexistent saltenv '{env_key}' found in include of '{inc_name}' within SLS '{saltenv}:{sls}'"),
                    )
                    .at(item_loc),
                );
                continue;
            }
            let inc_name = match resolve_relative(sls, is_init, &inc_name) {
                Some(n) => n,
                None => {
                    errors.push(
                        SaltError::new(
                            Code::MissingInclude,
                            format!("Attempted relative include of '{inc_name}' within SLS '{saltenv}:{sls}' goes beyond top level package "),
                        )
                        .at(item_loc),
                    );
                    continue;
                }
            };
            // Which environments have the name, and what it expands to in this one, depend on
            // the listing: a created or deleted file can change both.
            let asked: Vec<&str> = if env_key != "_xenv" { vec![env_key.as_str()] } else { matches.keys().map(String::as_str).collect() };
            for env in asked.into_iter().chain([saltenv]) {
                reads::names(self.fs, self.roots, env, &inc_name);
            }
            let resolved_envs: Vec<String> = if env_key != "_xenv" {
                let in_avail = self.avail.get(&env_key).is_some_and(|a| fnmatch::any_sorted(a, &inc_name));
                if matches.contains_key(&env_key) || in_avail {
                    vec![env_key.clone()]
                } else {
                    vec![]
                }
            } else {
                matches.keys().filter(|e| self.avail.get(*e).is_some_and(|a| fnmatch::any_sorted(a, &inc_name))).cloned().collect()
            };
            if resolved_envs.len() == 1 || resolved_envs.iter().any(|e| e == saltenv) {
                let cur_avail = self.avail.get(saltenv).cloned().unwrap_or_default();
                let mut targets: Vec<String> = fnmatch::filter_sorted(&cur_avail, &inc_name).into_iter().map(str::to_string).collect();
                if targets.is_empty() {
                    targets.push(inc_name.clone());
                }
                let r_env = if resolved_envs.len() == 1 { resolved_envs[0].clone() } else { saltenv.to_string() };
                for target in targets {
                    self.rendered[index].includes.push(ResolvedInclude { loc: item_loc.clone(), env: r_env.clone(), sls: target.clone() });
                    if mods.contains(&format!("{r_env}:{target}")) {
                        continue;
                    }
                    if self.depth >= MAX_INCLUDE_DEPTH {
                        let message = format!("Rendering SLS '{r_env}:{target}' failed: maximum recursion depth exceeded ({MAX_INCLUDE_DEPTH} includes deep)");
                        errors.push(SaltError::new(Code::RenderError, message).at(item_loc.clone()));
                        continue;
                    }
                    self.depth += 1;
                    let (nstate, err) = self.render_state(&target, &r_env, mods, matches, item_loc.clone());
                    self.depth -= 1;
                    if let Some(mut nstate) = nstate.filter(|n| !n.is_empty()) {
                        // 3006 does not mark included states.
                        let mark = self.opts.version.sls_included_from();
                        for (k, body) in nstate.0.iter_mut().filter(|_| mark) {
                            if k.as_str().is_some_and(|s| s.starts_with("__")) {
                                continue;
                            }
                            if let Some(b) = body.as_dict_mut() {
                                match b.get_mut("__sls_included_from__").and_then(Val::as_list_mut) {
                                    Some(l) => l.push(Val::str(sls)),
                                    None => b.set_str("__sls_included_from__", Val::list(vec![Val::str(sls)])),
                                }
                            }
                        }
                        merge_included_states(&mut state, nstate, &mut errors);
                    }
                    errors.extend(err);
                }
            } else {
                errors.push(
                    SaltError::new(
                        Code::MissingInclude,
                        format!(
                            "Unknown include: Specified SLS {env_key}: {inc_name} is not available on the salt master in saltenv(s): {} ",
                            if env_key == "_xenv" { matches.keys().cloned().collect::<Vec<_>>().join(", ") } else { env_key.clone() }
                        ),
                    )
                    .at(item_loc),
                );
            }
        }
        self.handle_iorder(&mut state);
        (Some(state), errors)
    }

    /// Finds, loads and renders SLS `sls` of `saltenv` (recorded in [`Builder::rendered`] at
    /// the index returned): its data, or the errors in `errors`. Where renders are kept, what
    /// it read (its own text included) is a part of the compile's reads ([`Rendered::part`]).
    fn fetch(&mut self, sls: &str, saltenv: &str, origin: &Option<Loc>, errors: &mut Vec<SaltError>) -> (usize, Option<Val>) {
        // Before 3008 the file server refuses the absolute path `/x` gives (`salt:///x.sls`),
        // whatever the roots hold.
        let refused = sls.starts_with('/') && !self.opts.version.strips_leading_slash();
        let state_data = if refused { None } else { reads::state(self.fs, self.roots, saltenv, sls) };
        let index = self.rendered.len();
        self.rendered.push(Rendered { env: saltenv.into(), sls: sls.into(), file: state_data.clone(), includes: Vec::new(), templated: false, part: None });
        let Some(file) = &state_data else {
            errors.push(
                SaltError::new(
                    Code::MissingInclude,
                    format!("Specified SLS {sls} in saltenv {saltenv} is not available on the salt master or through a configured fileserver"),
                )
                .at(origin.clone()),
            );
            return (index, None);
        };
        let log = self.fs.log().filter(|_| self.keeps_renders());
        if let Some(log) = log {
            log.begin();
        }
        let mut rendered = None;
        match self.load(&file.path) {
            Ok((text, id)) => match self.render_text(&text, id, index) {
                Ok(v) => rendered = Some(v),
                Err(mut e) => {
                    if e.code == Code::NotAnalysed {
                        self.rendered[index].templated = true;
                    } else {
                        e.message = format!("{}{}", render_error_prefix(saltenv, sls), e.message);
                    }
                    errors.push(e)
                }
            },
            Err(e) => errors.push(SaltError::new(Code::UnreadableFile, format!("Rendering SLS {sls} failed, render error: {e}")).at(origin.clone())),
        }
        if let Some(log) = log {
            let reads = log.end();
            let r = &mut self.rendered[index];
            if r.part.is_none() {
                r.part = Some(Part::Failed(reads));
            }
        }
        (index, rendered)
    }

    /// Reads and parses, on every core, the plain (Jinja-free) SLS files the walk of
    /// `matches` will load: the files the top assigns, then those their includes name, wave
    /// after wave. Only a head start: the walk still decides what it loads, in its order, and
    /// takes a file's data from here when it comes to it (a file named here that the walk
    /// never reaches was read for nothing). A templated file is left to the walk, which has
    /// the context to render it.
    fn prefetch(&mut self, matches: &Matches) {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
        if workers < 2 {
            return;
        }
        let mut wave: Vec<(String, String)> = Vec::new();
        for (env, states) in matches {
            let Some(avail) = self.avail.get(env) else { continue };
            for sls_match in states {
                let names = fnmatch::filter_sorted(avail, sls_match);
                if names.is_empty() {
                    wave.push((env.clone(), sls_match.clone()));
                }
                wave.extend(names.into_iter().map(|n| (env.clone(), n.to_string())));
            }
        }
        let mut seen: HashSet<(String, String)> = HashSet::new();
        while !wave.is_empty() {
            wave.retain(|k| seen.insert(k.clone()));
            let next = std::sync::atomic::AtomicUsize::new(0);
            let (fs, roots, wave_ref) = (self.fs, self.roots, &wave);
            let shared = self.jinja.as_ref().and_then(|j| j.parses.as_ref());
            type Found = Vec<(std::path::PathBuf, Arc<str>, Result<Val, SaltError>, Vec<(String, String)>)>;
            let work = || {
                let mut out: Found = Vec::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((env, sls)) = wave_ref.get(i) else { break };
                    let Some(file) = roots.get_state(env, sls) else { continue };
                    let Ok(text) = fs.read(&file.path) else { continue };
                    if render::is_templated(&text) || render::unsupported_renderer(&text).is_some() {
                        continue;
                    }
                    // Parsed for an earlier minion of the run: the same data.
                    if let Some(hit) = shared.and_then(|m| m.get(&file.path, env, sls, &text)) {
                        out.push((file.path, hit.text.clone(), hit.data.clone(), hit.includes.clone()));
                        continue;
                    }
                    let parsed = render::render_with_hints(&text, PREFETCHED, None).map(|(v, _)| v);
                    let includes = parsed.as_ref().map(|v| included(v, env, sls, file.is_init())).unwrap_or_default();
                    let text: Arc<str> = Arc::from(text);
                    if let Some(m) = shared {
                        let kept = crate::render::memo::Parsed { text: text.clone(), data: parsed.clone(), includes: includes.clone() };
                        m.put(&file.path, env, sls, Arc::new(kept));
                    }
                    out.push((file.path, text, parsed, includes));
                }
                out
            };
            // This thread works too: one thread fewer, one allocator heap fewer.
            let found: Vec<Found> = std::thread::scope(|scope| {
                let handles: Vec<_> = (1..workers).map(|_| scope.spawn(work)).collect();
                let mut found = vec![work()];
                found.extend(handles.into_iter().filter_map(|h| h.join().ok()));
                found
            });
            wave = Vec::new();
            for (path, text, parsed, includes) in found.into_iter().flatten() {
                // A file read ahead under another name: its includes were followed then. Names
                // can grow without end (`- ..` back into a package whose `init.sls` includes
                // the file: `pkg.`, `pkg..`, ...) while the files they load do not.
                if self.prefetched.insert(path, (text, parsed)).is_some() {
                    continue;
                }
                for (env, name) in includes {
                    match self.avail.get(&env) {
                        Some(avail) if fnmatch::has_magic(&name) => {
                            wave.extend(fnmatch::filter_sorted(avail, &name).into_iter().map(|n| (env.clone(), n.to_string())))
                        }
                        Some(_) => wave.push((env, name)),
                        None => {}
                    }
                }
            }
        }
    }

    /// Whether this compile keeps renders (a memo to keep them in, and reads recorded to
    /// say when one is stale).
    fn keeps_renders(&self) -> bool {
        !self.static_mode && self.fs.log().is_some() && self.jinja.as_ref().is_some_and(|j| j.memo.is_some())
    }

    /// Renders SLS `sls` of `saltenv` alone, as [`Builder::render_highstate`] would before it
    /// uses the data (a compile that patches an earlier one re-renders the files a change
    /// touched): the part it makes, with the errors a failed render gives.
    pub fn render_alone(mut self, sls: &str, saltenv: &str) -> (Option<Part>, Vec<SaltError>) {
        let mut errors = Vec::new();
        let (index, _) = self.fetch(sls, saltenv, &None, &mut errors);
        (self.rendered.swap_remove(index).part, errors)
    }

    fn render_text(&mut self, text: &str, id: u32, index: usize) -> Result<Val, SaltError> {
        if !self.static_mode {
            let r = &self.rendered[index];
            let rel = r.file.as_ref().map(|f| f.source.trim_start_matches("salt://").to_string()).unwrap_or_default();
            let path = r.file.as_ref().map(|f| f.path.clone()).unwrap_or_default();
            let (env, sls) = (r.env.clone(), r.sls.clone());
            // A render kept from an earlier compile, while what it read is unchanged (only
            // where reads are recorded: without a log nothing could say it is stale).
            let log = self.fs.log();
            let memo = self.jinja.as_ref().and_then(|j| Some((j.memo.clone()?, j.fingerprint))).filter(|_| log.is_some());
            let carry = self.carry.fingerprint();
            self.carried |= !self.carry.is_empty();
            let key = |setup| render::memo::Key { setup, carry, env: &env, sls: &sls, path: &path, id, text };
            if let (Some((memo, setup)), Some(log)) = (&memo, log) {
                if let Some(hit) = memo.get(&key(*setup)) {
                    if hit.reads.unchanged(self.fs, self.roots) {
                        log.replay(&hit.reads);
                        self.hints.extend(hit.hints.iter().cloned());
                        self.carry = hit.carry.clone();
                        let val = hit.val.clone();
                        self.rendered[index].part = Some(Part::Kept(hit));
                        return Ok(val);
                    }
                }
                log.begin();
            }
            // Parsed ahead: the same data, located in this file.
            if let Some((pre_text, parsed)) = self.prefetched.remove(&path) {
                if *pre_text == *text {
                    return parsed
                        .map(|mut v| {
                            relocate(&mut v, id);
                            v
                        })
                        .map_err(|mut e| {
                            if let Some(at) = e.loc.as_mut().filter(|at| at.file == PREFETCHED) {
                                at.file = id;
                            }
                            e
                        });
                }
            }
            // The context (the minion's grains, pillar and options, copied) only for a file
            // the Jinja renderer will see: a tenth of `lowstate` on plain trees otherwise.
            let ctx = self.jinja.as_ref().filter(|_| render::is_templated(text) || render::stateconf::argline(text).is_some()).map(|j| {
                let mut ctx = j.context(&env, &sls, &rel, &path);
                if !self.carry.is_empty() {
                    ctx.template_pillar = Some(self.carry.template_pillar_for(&ctx.pillar));
                    ctx.pillar = self.carry.pillar_for(&ctx.pillar);
                }
                ctx
            });
            let rendered = render::render_in_highstate(text, id, ctx.as_ref(), &self.carry);
            drop(ctx);
            if let (Some((memo, setup)), Some(log)) = (&memo, log) {
                let reads = log.end();
                if let Ok(out) = &rendered {
                    let entry = memo.put(&key(*setup), render::memo::Entry { val: out.val.clone(), hints: out.hints.clone(), reads, carry: out.carry.clone() });
                    self.rendered[index].part = Some(Part::Kept(entry));
                }
            }
            let out = rendered.map_err(|mut e| {
                render::place_in_template(&mut e, self.fs, self.roots, &env, self.files);
                e
            })?;
            self.hints.extend(out.hints);
            self.carry = out.carry;
            return Ok(out.val);
        }
        // What a template or a renderer we never run declares is not certain statically.
        let pipe = render::renderer_pipe(text);
        self.rendered[index].templated = render::unsupported_renderer(text).is_some() || (pipe.iter().any(|p| p == "jinja") && render::is_templated(text));
        render::render_static(text, id).map(|(v, _)| v)
    }

    fn load(&mut self, path: &std::path::Path) -> std::io::Result<(Arc<str>, u32)> {
        if let Some(id) = self.files.id(path) {
            let text: Arc<str> = Arc::from(self.files.text(id));
            return Ok((text, id));
        }
        let text: Arc<str> = match self.prefetched.get(path) {
            Some((text, _)) => text.clone(),
            None => Arc::from(self.fs.read(path)?),
        };
        let id = self.files.add(path.to_path_buf(), text.clone());
        Ok((text, id))
    }

    /// `_handle_iorder`: append `{order: N}` to every declaration without an `order` arg.
    fn handle_iorder(&mut self, state: &mut Dict) {
        if !self.opts.state_auto_order {
            return;
        }
        for (_, body) in state.0.iter_mut() {
            match &mut body.v {
                // Iterating these raises TypeError in Salt, which aborts the numbering.
                V::None | V::Bool(_) | V::Int(_) | V::Float(_) => return,
                V::Dict(decls) => {
                    for (key, run) in decls.0.iter_mut() {
                        let Some(k) = key.as_str() else { continue };
                        if k.starts_with('_') {
                            continue;
                        }
                        let Some(args) = run.as_list_mut() else { continue };
                        let found = args.iter().any(|a| a.as_dict().and_then(Dict::first_key_str) == Some("order"));
                        if !found {
                            let mut d = Dict::new();
                            d.set_str("order", Val::new(V::Int(self.iorder)));
                            args.push(Val::dict(d));
                            self.iorder += 1;
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// How the error of SLS `sls` of `env` that fails to render begins.
pub(crate) fn render_error_prefix(env: &str, sls: &str) -> String {
    format!("Rendering SLS '{env}:{sls}' failed: ")
}

/// Puts data parsed ahead ([`PREFETCHED`]) in file `id`.
fn relocate(v: &mut Val, id: crate::value::FileId) {
    v.locs_mut(&mut |at| {
        if let Some(at) = at.as_mut().filter(|at| at.file == PREFETCHED) {
            at.file = id;
        }
    });
}

/// The (env, SLS name) pairs the `include` list of `data` (SLS `sls` of `env`) names, as far
/// as [`Builder::prefetch`] needs them: strings and `{env: name}` items, relative names
/// resolved; a name may still be a glob.
fn included(data: &Val, env: &str, sls: &str, is_init: bool) -> Vec<(String, String)> {
    let Some(list) = data.as_dict().and_then(|d| d.get("include")).and_then(Val::as_list) else { return Vec::new() };
    list.iter()
        .filter_map(|item| match &item.v {
            V::Str(name) => Some((env.to_string(), name.clone())),
            V::Dict(d) if d.len() == 1 => Some((d.0[0].0.py_str(), d.0[0].1.as_str()?.to_string())),
            _ => None,
        })
        .filter_map(|(e, name)| Some((e, resolve_relative(sls, is_init, &name)?)))
        .collect()
}

/// `merge_included_states`: pool extends and excludes, flag conflicting IDs, then update.
pub fn merge_included_states(high: &mut Dict, state: Dict, errors: &mut Vec<SaltError>) {
    let mut known: HashSet<String, foldhash::fast::RandomState> = high.0.iter().filter_map(|(k, _)| k.as_str().map(str::to_string)).collect();
    merge_tracked(high, state, errors, &mut known);
}

/// [`merge_included_states`] with the string keys of `high` kept in `known` by the caller
/// across merges (the highstate merges one file at a time: rebuilding the set for each file
/// would cost the states merged so far, every time).
fn merge_tracked(high: &mut Dict, mut state: Dict, errors: &mut Vec<SaltError>, known: &mut HashSet<String, foldhash::fast::RandomState>) {
    let was_empty = high.is_empty();
    for key in ["__extend__", "__exclude__"] {
        if let Some((_, v)) = state.remove(key) {
            let items = match v.v {
                V::List(l) => l,
                _ => Vec::new(),
            };
            match high.get_mut(key).and_then(Val::as_list_mut) {
                Some(l) => l.extend(items),
                None => high.set_str(key, Val::list(items)),
            }
        }
    }
    // `state`'s keys are unique (the loader refuses repeats): when none is already in `high`
    // the update is an append. String keys are told apart without building the index (no
    // string equals a number or null in Python); other keys take the general path.
    let disjoint = was_empty || state.0.iter().all(|(k, _)| k.as_str().is_some_and(|k| !known.contains(k)));
    known.extend(state.0.iter().filter_map(|(k, _)| k.as_str().map(str::to_string)));
    if disjoint {
        high.0.extend(state.0);
        return;
    }
    let mut index = high.index();
    for (id, body) in &state.0 {
        if let Some(old) = index.get(&id.canonical()).map(|&i| &high.0[i].1) {
            if old != body {
                let field = |b: &Val, f: &str| b.as_dict().and_then(|d| d.get(f)).map(Val::py_str).unwrap_or_default();
                let old_key_at = index.get(&id.canonical()).and_then(|&i| high.0[i].0.at.clone());
                errors.push(
                    SaltError::new(
                        Code::DuplicateId,
                        format!(
                            "Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '{}' and is found in SLS '{}:{}' and SLS '{}:{}'",
                            id.py_str(),
                            field(old, "__env__"),
                            field(old, "__sls__"),
                            field(body, "__env__"),
                            field(body, "__sls__")
                        ),
                    )
                    .at(id.at.clone())
                    .id(id.py_str())
                    .related(old_key_at, format!("`{}` is also declared here", id.py_str())),
                );
            }
        }
    }
    high.update_indexed(state, &mut index);
}

/// `clean_duplicate_extends`: one `{name: body}` per distinct pair.
fn clean_duplicate_extends(high: &mut Dict) {
    let Some(ext) = high.get_mut("__extend__").and_then(Val::as_list_mut) else { return };
    let mut items: Vec<(Val, Val)> = Vec::new();
    for e in ext.iter() {
        if let Some(d) = e.as_dict() {
            for pair in &d.0 {
                if !items.contains(pair) {
                    items.push(pair.clone());
                }
            }
        }
    }
    *ext = items.into_iter().map(|(k, v)| Val::dict(Dict(vec![(k, v)]))).collect();
}

/// Split `mod.fun` keys into `mod: [..., fun]`, moving the declaration to the end of the body
/// when `mod` is new, as Python's pop-then-assign does. Returns the modules whose dotted key
/// repeated an earlier one (left in place).
fn split_dotted_keys(body: &mut Dict, check_repeats: bool) -> Vec<String> {
    if let [(key, run)] = &mut body.0[..] {
        // The usual body, one `module.function` key: popping it and setting `module` in the
        // emptied dict leaves it where it was, so it is rewritten in place.
        if let (Some(k), Some(list)) = (key.as_str(), run.as_list_mut()) {
            if let Some((module, fun)) = k.split_once('.').filter(|_| !k.starts_with('_')) {
                let fun = fun.split('.').next().unwrap_or("");
                list.push(Val::str(fun).at(key.at.clone()));
                *key = Val::str(module).at(key.at.clone());
            }
        }
        return Vec::new();
    }
    let mut skeys: Vec<String> = Vec::new();
    let mut repeats = Vec::new();
    // The keys as they were before any was split (string keys only: the others are skipped).
    let keys: Vec<String> = body.keys().filter_map(Val::as_str).filter(|k| !k.starts_with('_')).map(str::to_string).collect();
    for k in keys {
        if k.starts_with('_') {
            continue;
        }
        if body.get(&k).and_then(Val::as_list).is_none() {
            continue;
        }
        if let Some((module, fun)) = k.split_once('.') {
            let fun = fun.split('.').next().unwrap_or("").to_string();
            if check_repeats && skeys.iter().any(|s| s == module) {
                repeats.push(k.clone());
                continue;
            }
            let Some((old_key, mut run)) = body.remove(&k) else { continue };
            if let Some(l) = run.as_list_mut() {
                l.push(Val::str(fun).at(old_key.at.clone()));
            }
            body.set(Val::str(module).at(old_key.at.clone()), run);
            skeys.push(module.to_string());
            continue;
        }
        skeys.push(k);
    }
    repeats
}

/// `BaseHighState._handle_state_decls`.
pub(crate) fn handle_state_decls(state: &mut Dict, sls: &str, saltenv: &str, errors: &mut Vec<SaltError>) {
    for (name, body) in state.0.iter_mut() {
        let name_s = name.py_cow();
        if body.as_dict().is_none() {
            if name_s == "__extend__" || name_s == "__exclude__" {
                continue;
            }
            if let Some(s) = body.as_str() {
                if s.contains('.') {
                    let comps: Vec<&str> = s.split('.').collect();
                    let mut d = Dict::new();
                    d.set_str("__sls__", Val::str(sls));
                    d.set_str("__env__", Val::str(saltenv));
                    d.set(Val::str(comps[0]).at(body.at.clone()), Val::list(vec![Val::str(comps[1]).at(body.at.clone())]));
                    body.v = V::Dict(d);
                    continue;
                }
            }
            errors.push(SaltError::new(Code::MalformedState, format!("ID {name_s} in SLS {sls} is not a dictionary")).at(name.at.clone()).id(name_s));
            continue;
        }
        let Some(d) = body.as_dict_mut() else { continue };
        for _ in split_dotted_keys(d, true) {
            errors.push(
                SaltError::new(Code::MalformedState, format!("ID '{name_s}' in SLS '{sls}' contains multiple state declarations of the same type"))
                    .at(name.at.clone())
                    .id(name_s.clone()),
            );
        }
        if !d.contains("__sls__") {
            d.set_str("__sls__", Val::str(sls));
        }
        if !d.contains("__env__") {
            d.set_str("__env__", Val::str(saltenv));
        }
    }
}

/// `BaseHighState._handle_extend`.
fn handle_extend(state: &mut Dict, sls: &str, saltenv: &str, errors: &mut Vec<SaltError>) {
    let Some((key, mut ext)) = state.remove("extend") else { return };
    let Some(ext_d) = ext.as_dict_mut() else {
        errors.push(SaltError::new(Code::MalformedState, format!("Extension value in SLS '{sls}' is not a dictionary")).at(key.at));
        return;
    };
    for (name, body) in ext_d.0.iter_mut() {
        let Some(b) = body.as_dict_mut() else {
            errors.push(
                SaltError::new(Code::MalformedState, format!("Extension name '{}' in SLS '{sls}' is not a dictionary", name.py_str()))
                    .at(name.at.clone())
                    .id(name.py_str()),
            );
            continue;
        };
        if !b.contains("__sls__") {
            b.set_str("__sls__", Val::str(sls));
        }
        if !b.contains("__env__") {
            b.set_str("__env__", Val::str(saltenv));
        }
        split_dotted_keys(b, false);
    }
    let entry = Val { v: ext.v, at: ext.at };
    match state.get_mut("__extend__").and_then(Val::as_list_mut) {
        Some(l) => l.push(entry),
        None => state.set_str("__extend__", Val::list(vec![entry])),
    }
}

/// `BaseHighState._handle_exclude`: a non-list still extends the pool (a string by chars).
fn handle_exclude(state: &mut Dict, sls: &str, errors: &mut Vec<SaltError>) {
    let Some((key, exc)) = state.remove("exclude") else { return };
    let items: Vec<Val> = match exc.v {
        V::List(l) => l,
        other => {
            errors.push(SaltError::new(Code::MalformedState, format!("Exclude Declaration in SLS {sls} is not formed as a list")).at(key.at));
            match other {
                V::Str(s) => s.chars().map(|c| Val::str(c.to_string())).collect(),
                V::Dict(d) => d.0.into_iter().map(|(k, _)| k).collect(),
                _ => Vec::new(),
            }
        }
    };
    match state.get_mut("__exclude__").and_then(Val::as_list_mut) {
        Some(l) => l.extend(items),
        None => state.set_str("__exclude__", Val::list(items)),
    }
}

#[cfg(test)]
mod tests {
    use super::resolve_relative;

    /// `salt/state.py` `BaseHighState.render_state`, relative includes, checked against Salt.
    #[test]
    fn relative_includes() {
        let cases = [
            ("example.dev.virtual", false, ".virt", Some("example.dev.virt")),
            ("example.dev.virtual", false, "..http", Some("example.http")),
            ("example.dev.virtual", false, ".", Some("example.dev.")),
            ("example.pkgdir", true, ".sub", Some("example.pkgdir.sub")),
            ("example.pkgdir", true, "..sibling", Some("example.sibling")),
            ("example.dev.virtual", true, ".virt", Some("example.dev.virtual.virt")),
            ("example.dev.virtual", true, "..http", Some("example.dev.http")),
            ("a.b.init", true, ".x", Some("a.b.init.x")),
            ("foo", false, "..bar", None),
            ("foo", false, "abs.name", Some("abs.name")),
        ];
        for (sls, init, name, want) in cases {
            assert_eq!(resolve_relative(sls, init, name).as_deref(), want, "{sls} {init} {name}");
        }
    }
}
