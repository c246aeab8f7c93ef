//! Highstate diagnostics: the selected minion's whole highstate compiled as `state.apply`
//! would (`model::state::lowstate::compile_highstate`: its top file, Jinja rendered with its grains
//! and pillar, Salt's apply pipeline), its errors as diagnostics in the files they point to,
//! and the cache that keeps the result until the minion, the configuration or a file the
//! compilation read changes.
//!
//! The cache lives in the cross-file [`Index`](crate::semantic::Index), which replays the
//! change log into it ([`Highstate::note`]); it is brought up to a snapshot's minion only by
//! the queries that need diagnostics ([`Highstate::refresh`]), so navigation and hovers never
//! wait for a highstate compile.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use model::check::error_diagnostics;
use model::diagnostic::Diagnostic;
use model::diagnostic::{Code, SaltError};
use model::render::jinja::JinjaSetup;
use model::targeting::top::TopResult;
use model::value::{Loc, V};
use model::workspace::vfs::FileTable;

use crate::files::Files;
use crate::semantic::Change;
use crate::summaries::Summaries;
use crate::world::World;

/// Which minion a highstate is compiled for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Choice {
    /// A profile of `salt-analyzer.yaml`.
    Profile(String),
    /// The minion the Salt configuration describes (a workspace without profiles).
    Config,
}

/// The minion whose highstate is checked: the selected profile (the one hovers use: the
/// explicit selection, else `default_minion`). Without profiles, only an explicit selection of
/// the configuration's own minion counts, so that a bare checkout compiles no highstate.
pub(crate) fn choice(world: &World, explicit: Option<&str>) -> Option<Choice> {
    let ws = &world.ws;
    if ws.profiles.is_empty() {
        return explicit.filter(|id| *id == ws.opts.id).map(|_| Choice::Config);
    }
    explicit
        .filter(|id| ws.profiles.contains_key(*id))
        .or(ws.default_minion.as_deref().filter(|id| ws.profiles.contains_key(*id)))
        .map(|id| Choice::Profile(id.to_string()))
}

/// The cached highstate diagnostics of one minion.
#[derive(Default)]
pub(crate) struct Highstate {
    /// The minion the cached result is for (`Some(None)`: no minion was selected); `None`
    /// until the first refresh.
    computed_for: Option<Option<Choice>>,
    /// A change since the result was computed may affect it.
    dirty: bool,
    /// Every file the compilation read: rendered SLS files, top files, Jinja imports, the
    /// profile's grains and pillar files.
    deps: HashSet<PathBuf>,
    /// The diagnostics, by file.
    by_file: BTreeMap<PathBuf, Vec<Diagnostic>>,
    /// How many times a highstate was compiled (tests check what an edit recompiles).
    pub(crate) compiles: u64,
}

impl Highstate {
    /// Takes one change the index replays: an edit matters only to a file the compilation
    /// read; a created or deleted file (an include, a glob, a top entry may now resolve
    /// differently) and a configuration change always do.
    pub(crate) fn note(&mut self, change: &Change) {
        match change {
            Change::Content(p) => self.dirty |= self.deps.contains(p),
            Change::Layout(_) | Change::Reset => self.dirty = true,
        }
    }

    /// The highstate diagnostics of one file.
    pub(crate) fn diagnostics(&self, path: &Path) -> &[Diagnostic] {
        self.by_file.get(path).map_or(&[], Vec::as_slice)
    }

    /// Whether the result is for the minion `explicit` selects and no noted change affects it.
    pub(crate) fn is_current(&self, world: &World, explicit: Option<&str>) -> bool {
        let wanted = choice(world, explicit);
        // With no minion there is nothing a change could affect.
        (!self.dirty || wanted.is_none()) && self.computed_for.as_ref() == Some(&wanted)
    }

    /// Brings the result up to the minion `explicit` selects (see [`choice`]), compiling only
    /// when the minion changed or a noted change may affect the result. Files whose highstate
    /// diagnostics changed are added to `unreported`.
    pub(crate) fn refresh(&mut self, world: &Arc<World>, files: &Files, summaries: &Summaries, explicit: Option<&str>, unreported: &mut BTreeSet<PathBuf>) {
        if self.is_current(world, explicit) {
            return;
        }
        let wanted = choice(world, explicit);
        let (by_file, deps) = match &wanted {
            Some(c) => {
                self.compiles += 1;
                // A bug in the compiler must not take the per-root diagnostics down with it
                // (they are served from the same index): that highstate reports nothing until
                // a change recompiles it.
                let run = std::panic::AssertUnwindSafe(|| compile(world, files, summaries, c));
                std::panic::catch_unwind(run).unwrap_or_else(|_| (BTreeMap::new(), self.deps.clone()))
            }
            None => (BTreeMap::new(), HashSet::new()),
        };
        let touched: BTreeSet<&PathBuf> = self.by_file.keys().chain(by_file.keys()).collect();
        for f in touched {
            if self.by_file.get(f) != by_file.get(f) {
                unreported.insert(f.clone());
            }
        }
        self.by_file = by_file;
        self.deps = deps;
        self.computed_for = Some(wanted);
        self.dirty = false;
    }
}

/// Compiles the highstate of `choice` and returns its diagnostics by file and the files read.
fn compile(world: &Arc<World>, files: &Files, summaries: &Summaries, choice: &Choice) -> (BTreeMap<PathBuf, Vec<Diagnostic>>, HashSet<PathBuf>) {
    let ws = &world.ws;
    let mut deps: HashSet<PathBuf> = HashSet::new();
    let name = match choice {
        Choice::Profile(id) => Some(id.as_str()),
        Choice::Config => None,
    };
    if let Some(p) = name.and_then(|n| ws.profiles.get(n)) {
        deps.extend(p.grains_file.iter().chain(&p.pillar_file).cloned());
    }
    // A profile whose data cannot be read compiles nothing; hovers and `topExplain` say why.
    let Ok(minion) = model::workspace::minion::select(files, ws, name) else { return (BTreeMap::new(), deps) };
    let reads: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let setup = {
        let (world, files, reads) = (world.clone(), files.fork(), reads.clone());
        JinjaSetup::new(&minion, &ws.opts, move |env, rel| {
            let path = world.ctx.roots.find_file(env, rel)?;
            let text = files.text(&path).map(|t| t.to_string());
            if let Ok(mut r) = reads.lock() {
                r.push(path);
            }
            text
        })
    };
    let mut table = FileTable::default();
    let (low, top) = model::state::lowstate::compile_highstate(files, &ws.opts, &world.ctx.roots, &mut table, &minion.context(), Some(&setup));
    deps.extend((0..table.len() as u32).map(|id| table.path(id).to_path_buf()));
    deps.extend(low.highstate.rendered.iter().filter_map(|r| r.file.as_ref().map(|f| f.path.clone())));
    deps.extend(world.top_files().into_iter().map(|(_, p)| p));
    if let Ok(r) = reads.lock() {
        deps.extend(r.iter().cloned());
    }

    // A top file that fails to render for this minion makes its top empty: Salt compiles
    // nothing and says so only in its log, so the render error is reported too.
    let mut errors: Vec<&SaltError> = Vec::new();
    for e in top.render_errors.iter().chain(low.errors()) {
        if !errors.iter().any(|o| o.code == e.code && o.message == e.message && o.id == e.id) {
            errors.push(e);
        }
    }
    let prefix = format!("In the highstate of minion `{}`: ", minion.id);
    let mut by_file: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
    for e in errors {
        let (e, fallback) = place(e, world, files, summaries, &mut table, &top);
        for mut d in error_diagnostics(&e, &table, fallback.as_ref(), &world.ctx.dotted_names) {
            if let Some(id) = &e.id {
                let extend = e.code == Code::MissingExtendTarget;
                locate_by_id(world, files, summaries, id, extend, &d.file.clone(), &mut d.span);
                for r in &mut d.related {
                    locate_by_id(world, files, summaries, id, extend, &r.file.clone(), &mut r.span);
                }
            }
            d.message = format!("{prefix}{}", d.message);
            by_file.entry(d.file.clone()).or_default().push(d);
        }
    }
    for list in by_file.values_mut() {
        model::check::normalize(list);
    }
    (by_file, deps)
}

/// Where an error without a location goes: an SLS the top file assigns that no environment
/// has goes to that entry of the top file (as `missing-sls`, the code the top-file check
/// gives it); anything else to the top file of the environment it names, else the first top
/// file.
fn place(e: &SaltError, world: &World, files: &Files, summaries: &Summaries, table: &mut FileTable, top: &TopResult) -> (SaltError, Option<Loc>) {
    if e.loc.is_some() {
        return (e.clone(), None);
    }
    if let Some(rest) = e.message.strip_prefix("No matching sls found for '") {
        if let Some((sls, env)) = rest.split_once("' in env '").and_then(|(s, r)| Some((s, r.split_once('\'')?.0))) {
            if let Some((mut at, target)) = top_entry(top, env, sls) {
                if at.span == (0..0) {
                    // A templated top file: find the entry in its static structure.
                    if let Some(span) = top_item_span(world, files, summaries, table.path(at.file), env, &target, sls) {
                        at.span = span;
                    }
                }
                let mut e = e.clone();
                e.code = Code::MissingSls;
                e.loc = Some(at);
                return (e, None);
            }
        }
    }
    let named = ["in env '", "for environment '", "saltenv '"]
        .iter()
        .find_map(|p| e.message.split_once(p).and_then(|(_, r)| r.split_once('\'')).map(|(env, _)| env.to_string()));
    let tops = world.top_files();
    let path = named.and_then(|env| tops.iter().find(|(e, _)| *e == env)).or(tops.first()).map(|(_, p)| p.clone());
    let Some(path) = path else { return (e.clone(), None) };
    let id = match table.id(&path) {
        Some(id) => id,
        None => match files.text(&path) {
            Some(text) => table.add(path, text),
            None => return (e.clone(), None),
        },
    };
    (e.clone(), Some(Loc { file: id, span: 0..0 }))
}

/// The item `sls` of a target the minion matched in section `env` of the merged top, and the
/// target.
fn top_entry(top: &TopResult, env: &str, sls: &str) -> Option<(Loc, String)> {
    let targets = top.merged.get(env)?;
    for t in targets {
        let target = t.target.py_str();
        let matched = top.targets.iter().any(|d| d.section == env && d.target == target && d.source == t.source && d.matched);
        if !matched {
            continue;
        }
        let items: Vec<&model::value::Val> = match &t.body.v {
            V::List(l) => l.iter().collect(),
            _ => vec![&t.body],
        };
        if let Some(item) = items.into_iter().find(|i| i.as_str() == Some(sls)) {
            if let Some(at) = item.at.clone() {
                return Some((at, target));
            }
        }
    }
    None
}

/// Where a top file's static structure (the Jinja mask) writes entry `sls` of `target` in
/// section `env` (of any target of the section when that target has no such entry).
fn top_item_span(world: &World, files: &Files, summaries: &Summaries, path: &Path, env: &str, target: &str, sls: &str) -> Option<std::ops::Range<usize>> {
    let summary = summaries.get(world, files, path)?;
    let sections: Vec<&model::check::summary::TopEnv> = summary.top()?.envs.iter().filter(|e| e.env == env).collect();
    let find = |same_target: bool| {
        sections
            .iter()
            .flat_map(|e| &e.targets)
            .filter(|t| !same_target || t.target == target)
            .flat_map(|t| &t.sls)
            .find(|i| i.name == sls)
            .map(|i| i.span.clone())
    };
    find(true).or_else(|| find(false)).or_else(|| list_item_span(&files.text(path)?, sls))
}

/// The span of `sls` in the one line of `text` that is the list item `- sls` (an entry only
/// Jinja writes is not in the static structure, but usually still literally in the file).
fn list_item_span(text: &str, sls: &str) -> Option<std::ops::Range<usize>> {
    let mut found = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end();
        let item = body.trim_start().strip_prefix('-').map(str::trim_start);
        let name = item.map(|i| i.trim_matches(|c| c == '\'' || c == '"'));
        if name == Some(sls) {
            if found.is_some() {
                return None;
            }
            let offset = body.rfind(sls).unwrap_or(0);
            found = Some(start + offset..start + offset + sls.len());
        }
        start += line.len();
    }
    found
}

/// A rendered template loses its positions (the rendered text is not the file's): an error
/// about a state ID at a file's start is moved to that ID's declaration when the file's
/// static structure declares it once (as an `extend` key for an `extend` error), or when one
/// line of the file starts with it as a key (indented, for an `extend` key).
fn locate_by_id(world: &World, files: &Files, summaries: &Summaries, id: &str, extend: bool, file: &Path, span: &mut std::ops::Range<usize>) {
    if *span != (0..0) {
        return;
    }
    let Some(summary) = summaries.get(world, files, file) else { return };
    let Some(sls) = summary.sls() else { return };
    let spans: Vec<&std::ops::Range<usize>> = if extend {
        sls.extends.iter().filter(|k| k.id == id).map(|k| &k.span).collect()
    } else {
        sls.ids.iter().filter(|d| d.id == id).map(|d| &d.span).collect()
    };
    match spans.as_slice() {
        [one] => *span = (*one).clone(),
        [] => {
            // Written only inside a Jinja block: the one line that holds the key.
            if let Some(found) = files.text(file).and_then(|t| key_span(&t, id, extend)) {
                *span = found;
            }
        }
        _ => {}
    }
}

/// The span of `id` in the one line of `text` that is the key `id:` (at the line's start, or
/// after indentation when `indented`).
fn key_span(text: &str, id: &str, indented: bool) -> Option<std::ops::Range<usize>> {
    let mut found = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = if indented { line.trim_start_matches(' ') } else { line };
        let key = (indented == (body.len() < line.len())) && body.strip_prefix(id).is_some_and(|rest| rest.starts_with(':'));
        if key {
            if found.is_some() {
                return None;
            }
            let at = start + line.len() - body.len();
            found = Some(at..at + id.len());
        }
        start += line.len();
    }
    found
}
