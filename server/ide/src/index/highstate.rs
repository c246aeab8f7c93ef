//! Highstate diagnostics: the selected minion's whole highstate compiled as `state.apply`
//! would (`model::pipeline`, placed in files by `model::check::highstate`), and the cache that
//! keeps the result until the minion or the configuration changes, or until something the
//! compile read (a file's text, which file an SLS name resolves to) changes.
//!
//! The cache lives in the cross-file [`Index`](crate::index::semantic::Index), which replays the
//! change log into it ([`Highstate::note`]); it is brought up to a snapshot's minion only by
//! the queries that need it ([`Highstate::refresh`]): diagnostics, and the hover on a state ID,
//! which says where the state runs ([`Highstate::plan`]). Navigation and other hovers never
//! wait for a highstate compile.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use model::diagnostic::{Diagnostic, SaltError};
use model::pipeline::{Compiled, MinionCache, Request, Scope, Who};
use model::state::run::Plan;
use model::workspace::vfs::Vfs;

use crate::inputs::changes::Change;
use crate::inputs::files::Files;
use crate::inputs::world::World;

/// Which minion a highstate is compiled for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Choice {
    /// A profile of `salt-analyzer.yaml`.
    Profile(String),
    /// A minion of the workspace's fleet (`fleet:`).
    Fleet(std::sync::Arc<model::workspace::fleet::FleetMinion>),
    /// The minion the Salt configuration describes (a workspace without profiles).
    Config,
}

/// The minion whose highstate is checked: the selected profile (the one hovers use: the
/// explicit selection, else `default_minion`). Without profiles, only an explicit selection of
/// the configuration's own minion counts, so that a bare checkout compiles no highstate.
pub(crate) fn choice(world: &World, explicit: Option<&str>) -> Option<Choice> {
    let ws = &world.ws;
    // A fleet minion the user picked (a profile with its id wins).
    if let Some(m) = explicit.filter(|id| !ws.profiles.contains_key(*id)).and_then(|id| world.fleet_minion(id)) {
        return Some(Choice::Fleet(m));
    }
    if ws.profiles.is_empty() {
        return explicit.filter(|id| *id == ws.opts.id).map(|_| Choice::Config);
    }
    explicit
        .filter(|id| ws.profiles.contains_key(*id))
        .or(ws.default_minion.as_deref().filter(|id| ws.profiles.contains_key(*id)))
        .map(|id| Choice::Profile(id.to_string()))
}

impl Choice {
    fn request(&self) -> Request {
        match self {
            Choice::Profile(id) => Request::new(Some(id), Scope::Highstate),
            Choice::Fleet(m) => Request { minion: Who::Fleet(m.clone()), saltenv: None, scope: Scope::Highstate },
            Choice::Config => Request { minion: Who::Config, saltenv: None, scope: Scope::Highstate },
        }
    }
}

/// The order `state.apply` runs a highstate in, or the errors it stops on.
pub(crate) type RunOrder = Arc<Result<Plan, Vec<SaltError>>>;

/// The cached highstate diagnostics of one minion.
#[derive(Default)]
pub(crate) struct Highstate {
    /// The minion the cached result is for (`Some(None)`: no minion was selected); `None`
    /// until the first refresh.
    computed_for: Option<Option<Choice>>,
    /// A change since the result was computed may affect it.
    dirty: bool,
    /// The compile the diagnostics come from.
    compiled: Option<Arc<Compiled>>,
    /// Compiles by minion: switching back to a minion whose reads are unchanged costs a check
    /// of those reads, not a compile.
    pub(crate) cache: MinionCache,
    /// The diagnostics, by file.
    by_file: BTreeMap<PathBuf, Vec<Diagnostic>>,
    /// The run order of `compiled` (by its serial), once a query asked for it.
    plan: Option<(u64, RunOrder)>,
}

impl Highstate {
    /// Takes one change the index replays: an edit matters only to a file the compile read;
    /// a created or deleted file may change what a name resolves to (the cache then asks the
    /// compile's questions of the new listing); a configuration change drops every compile.
    pub(crate) fn note(&mut self, change: &Change) {
        match change {
            Change::Content(p) => self.dirty |= self.compiled.as_ref().is_some_and(|c| c.reads.touches(p)),
            Change::Layout(_) => self.dirty = true,
            Change::Reset | Change::Pillar => {
                self.cache.clear();
                self.dirty = true;
            }
            Change::Republish => {}
        }
    }

    /// The compile the diagnostics come from, when one was made.
    pub(crate) fn compiled(&self) -> Option<&Arc<Compiled>> {
        self.compiled.as_ref()
    }

    /// The files that have highstate diagnostics.
    pub(crate) fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.by_file.keys()
    }

    /// How many times a highstate was compiled (tests check what an edit recompiles).
    #[cfg(test)]
    pub(crate) fn compiles(&self) -> u64 {
        self.cache.compiles
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
    pub(crate) fn refresh(&mut self, world: &Arc<World>, files: &Files, explicit: Option<&str>, unreported: &mut BTreeSet<PathBuf>) {
        if self.is_current(world, explicit) {
            return;
        }
        let wanted = choice(world, explicit);
        // The cache patches a compile after an edit in place when nothing else holds it.
        let previous = self.compiled.take().map(|c| c.serial);
        let compiled = wanted.as_ref().and_then(|c| {
            let fs: Arc<dyn Vfs> = Arc::new(files.fork());
            // A bug in the compiler must not take the per-root diagnostics down with it
            // (they are served from the same index): that highstate reports nothing until
            // a change recompiles it.
            let run = std::panic::AssertUnwindSafe(|| self.cache.get(&fs, &world.ws, &world.ctx.roots, &c.request(), &world.ctx.memo));
            std::panic::catch_unwind(run).ok()
        });
        let same = compiled.as_ref().map(|c| c.serial) == previous;
        let by_file = if same {
            std::mem::take(&mut self.by_file)
        } else {
            let run = std::panic::AssertUnwindSafe(|| compiled.as_ref().map(|c| diagnostics(world, files, c)).unwrap_or_default());
            std::panic::catch_unwind(run).unwrap_or_default()
        };
        let touched: BTreeSet<&PathBuf> = self.by_file.keys().chain(by_file.keys()).collect();
        for f in touched {
            if self.by_file.get(f) != by_file.get(f) {
                unreported.insert(f.clone());
            }
        }
        self.by_file = by_file;
        self.compiled = compiled;
        self.computed_for = Some(wanted);
        self.dirty = false;
    }
}

impl Highstate {
    /// The minion the current result is for and the order `state.apply` runs its highstate
    /// in (computed once per compile).
    pub(crate) fn plan(&mut self) -> Option<(String, RunOrder)> {
        let compiled = self.compiled.clone()?;
        let minion = compiled.minion.as_ref().ok()?.id.clone();
        if let Some((of, plan)) = &self.plan {
            if *of == compiled.serial {
                return Some((minion, plan.clone()));
            }
        }
        let low = compiled.low.as_ref()?;
        let run = std::panic::AssertUnwindSafe(|| model::state::run::plan(low));
        let plan = Arc::new(std::panic::catch_unwind(run).ok()?);
        self.plan = Some((compiled.serial, plan.clone()));
        Some((minion, plan))
    }

    /// The diagnostics of `path` compiled alone for the selected minion (`state.apply NAME`),
    /// when it is a templated SLS file the highstate does not render: a Jinja error or an
    /// undefined variable there is found too, not only in files the top assigns. The compile
    /// is cached by what it read, as the highstate's is.
    pub(crate) fn alone(&mut self, world: &Arc<World>, files: &Files, explicit: Option<&str>, path: &Path) -> Vec<Diagnostic> {
        let (Some(wanted), Some(highstate)) = (choice(world, explicit), self.compiled.clone()) else { return Vec::new() };
        let Ok(minion) = &highstate.minion else { return Vec::new() };
        let Some(text) = files.text(path) else { return Vec::new() };
        let who = wanted.request().minion;
        let Some((req, sls)) = model::check::highstate::alone_request(&world.ctx, &who, &highstate, path, &text) else { return Vec::new() };
        let fs: Arc<dyn Vfs> = Arc::new(files.fork());
        let run = std::panic::AssertUnwindSafe(|| {
            let compiled = self.cache.get(&fs, &world.ws, &world.ctx.roots, &req, &world.ctx.memo);
            model::check::highstate::alone_found(&compiled, files, &world.ctx, &world.ws.opts)
        });
        let prefix = model::check::highstate::minion_prefix(std::slice::from_ref(&minion.id), Some(&sls));
        let found = std::panic::catch_unwind(run).unwrap_or_default();
        found
            .into_iter()
            .filter(|d| d.file == path)
            .map(|mut d| {
                d.message = format!("{prefix}{}", d.message);
                d
            })
            .collect()
    }
}

/// A compiled highstate's diagnostics by file, each saying which minion it is for.
fn diagnostics(world: &World, files: &Files, compiled: &Compiled) -> BTreeMap<PathBuf, Vec<Diagnostic>> {
    let Ok(minion) = &compiled.minion else { return BTreeMap::new() };
    let prefix = model::check::highstate::minion_prefix(std::slice::from_ref(&minion.id), None);
    let mut by_file: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
    for mut d in model::check::highstate::diagnostics(compiled, files, &world.ctx, &world.ws.opts) {
        d.message = format!("{prefix}{}", d.message);
        by_file.entry(d.file.clone()).or_default().push(d);
    }
    by_file
}
