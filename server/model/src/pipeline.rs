//! The one pipeline that compiles a minion: the workspace's options and file roots, a minion
//! profile and the Jinja setup made from them go in; the compiled top, the rendered high data,
//! the low chunks and their errors come out, with every file and file-root answer the compile
//! read ([`Reads`]). `top`, `lowstate`, `render`, `mapdata`, `check`, the editor's highstate
//! diagnostics, its top-file hovers and `top --explain` all call [`compile`]; [`MinionCache`] keeps results until
//! something they read changes.

mod cache;
mod parallel;

pub use cache::MinionCache;
pub use parallel::{each_in_parallel, parallelism};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Code, SaltError};
use crate::mapstack::{formula_map_data, map_data, MapData};
use crate::pillar::{self, Pillar, PillarMinion};
use crate::render::context::JinjaSetup;
use crate::render::context::Matcher;
use crate::render::memo::RenderMemo;
use crate::render::probe::{Probe, Tally, TracePoint};
use crate::render::salt_fns::catalog::{custom_modules as exec_custom_modules, ExecFunctions};
use crate::render::{self, Templated};
use crate::state::compile::compile_high_data;
use crate::state::extend::{apply_exclude, reconcile_extend, requisite_in};
use crate::state::highstate::{Builder, HighState};
use crate::state::lowstate::{self, LowState};
use crate::state::order::order_chunks_as;
use crate::state::verify::verify_high;
use crate::targeting::matchers;
use crate::targeting::top::{compile_top, TopResult};
use crate::targeting::Matches;
use crate::value::{Loc, Val};
use crate::workspace::config::ConfigError;
use crate::workspace::config::Opts;
use crate::workspace::facts::{Answers, FactLog, Facts, MatchQuestion, Shared};
use crate::workspace::minion::{self, Minion};
use crate::workspace::reads::{self, Reads, Recorder};
use crate::workspace::roots::{sls_name_of, FileRoots};
use crate::workspace::vfs::{FileTable, Vfs};
use crate::workspace::Workspace;

/// What to compile for the minion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Its top only (`state.show_top`).
    Top,
    /// Its whole highstate (`state.show_lowstate`, what `state.apply` runs).
    Highstate,
    /// Named SLS in one environment (`state.show_low_sls`), without the top.
    Sls { saltenv: String, names: Vec<String> },
    /// One file through its renderer pipe, with the context Salt's state system gives it (its
    /// environment, SLS name and path under the file roots).
    Render {
        path: PathBuf,
        /// What to record of the file's Jinja blocks while rendering it.
        probe: Option<ProbeAt>,
    },
    /// A formula's layered configuration, `salt["map.data"](tpldir)`.
    MapData { tpldir: String },
    /// Only the minion's pillar (`pillar.items`), which every scope computes first.
    Pillar,
    /// Its whole highstate, and the contents its `file.managed` states would write
    /// ([`crate::state::managed`]): what `diff` compares between two sides of a change.
    Impact,
}

/// What a [`Scope::Render`] records of the file's Jinja blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProbeAt {
    /// What the block at this byte offset evaluates to ([`crate::render::probe::instrument`]).
    Block(usize),
    /// What every expression, condition, loop and `set` takes
    /// ([`crate::render::probe::trace`]).
    Every,
}

/// One file rendered ([`Scope::Render`]).
pub struct FileRender {
    /// The template step's output (`None`: the pipe had no Jinja step or the file no Jinja),
    /// or why it failed.
    pub text: Result<Option<String>, SaltError>,
    /// The data the whole pipe produced, or why it failed.
    pub data: Result<Val, SaltError>,
    /// Salt functions the template called that were not executed.
    pub hints: Vec<String>,
    /// The probed block and every value it took (by the index of the probed name).
    pub probed: Option<(Probe, Vec<(usize, String)>)>,
    /// With [`ProbeAt::Every`], the traced blocks and what each index took.
    pub traced: Option<(Vec<TracePoint>, Vec<Tally>)>,
}

/// Which minion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    /// A profile of `salt-analyzer.yaml`.
    Profile(String),
    /// `default_minion`, else the minion the Salt configuration describes.
    Default,
    /// The minion the Salt configuration describes (`id`, static `grains` and `pillar`).
    Config,
    /// A minion of the fleet (`workspace::fleet`), with the grains its master cached.
    Fleet(Arc<crate::workspace::fleet::FleetMinion>),
}

/// Which minion and what of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub minion: Who,
    /// Restricts the top like Salt's `saltenv` option.
    pub saltenv: Option<String>,
    pub scope: Scope,
}

impl Request {
    /// The profile `minion`, else the default one.
    pub fn new(minion: Option<&str>, scope: Scope) -> Request {
        let minion = minion.map_or(Who::Default, |m| Who::Profile(m.to_string()));
        Request { minion, saltenv: None, scope }
    }
}

/// What compiling a minion gave.
pub struct Compiled {
    /// The minion, or why its profile could not be read (nothing else is compiled then).
    pub minion: Result<Minion, ConfigError>,
    /// The compiled top ([`Scope::Top`], [`Scope::Highstate`] and [`Scope::Impact`]).
    pub top: Option<TopResult>,
    /// The low chunks and errors ([`Scope::Highstate`], [`Scope::Impact`] and [`Scope::Sls`]).
    pub low: Option<LowState>,
    /// The rendered file ([`Scope::Render`]).
    pub rendered: Option<FileRender>,
    /// The formula configuration ([`Scope::MapData`]).
    pub mapdata: Option<MapData>,
    /// What the highstate's `file.managed` states would write ([`Scope::Impact`]).
    pub managed: Option<Vec<crate::state::managed::ManagedFile>>,
    /// The minion's pillar computed from `pillar_roots` (every scope), before the profile's
    /// own `pillar`/`pillar_file` went over it; `minion.pillar` is the result.
    pub pillar: Option<Pillar>,
    /// The files the compile read, which errors point into.
    pub files: FileTable,
    /// Everything the result depends on.
    pub reads: Reads,
    /// The paths read outside every rendered SLS file's part (the top file, the pillar, the
    /// profile): a file read only by renders can be re-rendered alone ([`MinionCache::get`]).
    pub read_outside_renders: std::collections::HashSet<PathBuf>,
    /// What patching this compile needs to know of it (found by the first patch, kept by the
    /// patched compiles: a patch changes no state, requisite or keyword).
    pub patch_facts: std::sync::OnceLock<Arc<crate::state::patch::Facts>>,
    /// The file roots the compile asked its questions of: while a caller passes the same
    /// listing, every answer is the same.
    pub roots: Arc<FileRoots>,
    /// Which result this is: a compile, or a compile patched after an edit, has a serial of
    /// its own (a caller that keeps a result's diagnostics compares serials, not pointers).
    pub serial: u64,
}

/// The next [`Compiled::serial`].
fn next_serial() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Frees a result nothing else holds on a short-lived thread: freeing a 2,000-file compile
/// takes milliseconds an edit's answer need not wait for.
fn free_later<T: Send + 'static>(t: T) {
    // Without a thread to spare, the closure (and `t`) is dropped here.
    let _ = std::thread::Builder::new().name("salt-analyzer-free".into()).spawn(move || drop(t));
}

/// Compiles `req` for the workspace `ws` whose file roots are `roots`, reading through `fs`,
/// computing the pillar and every render afresh (see [`compile_with`] to reuse them across compiles).
pub fn compile(fs: Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request) -> Compiled {
    compile_with(fs, ws, roots, req, &Memo::default())
}

/// [`compile`], reusing the pillars and renders `memo` holds while what they read is unchanged
/// (and keeping the one it computes there). The caller owns the cache: `check` one per run, the
/// editor one per workspace, emptied by its refresh command (a database is no file a memo can
/// check).
pub fn compile_with(fs: Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request, memo: &Memo) -> Compiled {
    let recorder = Arc::new(Recorder::new(fs));
    let mut files = FileTable::default();
    let mut minion = match &req.minion {
        Who::Profile(id) => minion::select(&*recorder, ws, Some(id)),
        Who::Default => minion::select(&*recorder, ws, None),
        Who::Config => Ok(minion::from_config(ws)),
        Who::Fleet(m) => Ok(crate::workspace::fleet::minion(ws, m)),
    };
    let (mut top, mut low, mut rendered, mut mapdata, mut pillar, mut managed) = (None, None, None, None, None, None);
    // What this compile asked of its minion, when the memo shares compiles.
    let mut shared_by = None;
    if let Ok(minion) = &mut minion {
        let mut opts = request_opts(ws, req);
        minion_version(&mut opts, minion);
        // grains -> pillar -> everything else: the pillar from `pillar_roots`, then the
        // profile's own pillar over it.
        let computed = minion_pillar(&recorder, &ws.opts, &mut files, minion, ws.sql.as_ref().map(|d| &*d.0), memo);
        minion.pillar = computed.pillar.clone();
        if let Some(literal) = &minion.literal_pillar {
            minion::merge_json(&mut minion.pillar, literal);
        }
        pillar = Some(computed);
        let minion = &*minion;
        // A compile another minion of the run made, when this one answers everything it
        // asked the same way.
        let log = memo.compiles.as_ref().filter(|_| SharedCompile::shares(&req.scope)).map(|_| FactLog::new());
        if let (Some(shared), Some(_)) = (&memo.compiles, &log) {
            if let Some(hit) = SharedCompile::find(shared, minion, &opts, req, &files) {
                return hit.for_minion(Ok(minion.clone()), pillar, roots);
            }
        }
        let ordered = rendered_pillar(pillar.as_ref(), minion);
        let jinja = jinja_setup(&recorder, roots, minion, &opts, memo, log.as_ref(), ordered);
        let ctx = minion.context().recording(log.as_deref(), true);
        if let Some(log) = &log {
            shared_by = Some((log.clone(), files.len(), opts.version));
        }
        match &req.scope {
            Scope::Top => top = Some(compile_top(&*recorder, &opts, roots, &mut files, &ctx, Some(&jinja))),
            Scope::Highstate => {
                let (l, t) = compile_highstate(&*recorder, &opts, roots, &mut files, &ctx, Some(&jinja));
                (top, low) = (Some(t), Some(l));
            }
            Scope::Impact => {
                let (l, t) = compile_highstate(&*recorder, &opts, roots, &mut files, &ctx, Some(&jinja));
                let chunks = l.chunks.as_deref().unwrap_or_default();
                managed = Some(crate::state::managed::managed_files(&*recorder, roots, chunks, &jinja));
                (top, low) = (Some(t), Some(l));
            }
            Scope::Sls { saltenv, names } => {
                let matches = Matches::from([(saltenv.clone(), names.clone())]);
                low = Some(lowstate::compile(&*recorder, &opts, roots, &mut files, &matches, Some(&jinja)));
            }
            Scope::Render { path, probe } => rendered = Some(render_file(&*recorder, roots, &opts, &mut files, &jinja, path, *probe)),
            Scope::MapData { tpldir } => {
                let mut data = formula_map_data(&*recorder, roots, &mut files, &jinja, tpldir);
                // An older-style map's values from the pillar: on the pillar file and line.
                if let Some(p) = &pillar {
                    let layers: Vec<crate::mapstack::attribute::PillarFile> =
                        p.layers.iter().map(|l| crate::mapstack::attribute::PillarFile { env: &l.env, sls: &l.sls, path: l.path.as_deref() }).collect();
                    crate::mapstack::attribute::place_pillar(&mut data, &p.pillar, &p.origins, &layers);
                }
                mapdata = Some(data);
            }
            Scope::Pillar => {}
        }
    }
    // The Jinja loader may still hold the recorder; what it read so far is all there is.
    let reads = recorder.reads();
    let read_outside_renders = recorder.read_outside_parts();
    let compiled = Compiled {
        minion,
        top,
        low,
        rendered,
        mapdata,
        managed,
        pillar,
        files,
        reads,
        read_outside_renders,
        patch_facts: Default::default(),
        roots: roots.clone(),
        serial: next_serial(),
    };
    if let (Some(shared), Some((log, pillar_files, version))) = (&memo.compiles, shared_by) {
        let kept = SharedCompile::of(&compiled, req, pillar_files, version);
        let weight = kept.weight();
        shared.put(log.facts(), Arc::new(kept), weight);
    }
    compiled
}

/// A compile kept for the other minions of a run ([`Memo::sharing`]) that answer every
/// question it asked of its minion ([`crate::workspace::facts`]) the same way: what it made,
/// without the minion and its pillar, which each minion has of its own.
pub struct SharedCompile {
    scope: Scope,
    /// The Salt release it was compiled for (a fleet that is upgrading has several).
    version: crate::version::SaltVersion,
    saltenv: Option<String>,
    /// The files the pillar put in the table first: another minion's pillar must have put the
    /// same there, so that the locations in what is kept point into its table too.
    pillar_files: Vec<PathBuf>,
    top: Option<TopResult>,
    low: Option<LowState>,
    managed: Option<Vec<crate::state::managed::ManagedFile>>,
    files: FileTable,
    reads: Reads,
    read_outside_renders: std::collections::HashSet<PathBuf>,
}

impl SharedCompile {
    /// Whether compiles of `scope` are kept for other minions: those of a fleet run (a top, a
    /// highstate, named SLS), not the one-file answers an editor asks for.
    fn shares(scope: &Scope) -> bool {
        matches!(scope, Scope::Top | Scope::Highstate | Scope::Impact | Scope::Sls { .. })
    }

    fn of(c: &Compiled, req: &Request, pillar_files: usize, version: crate::version::SaltVersion) -> SharedCompile {
        SharedCompile {
            scope: req.scope.clone(),
            version,
            saltenv: req.saltenv.clone(),
            pillar_files: (0..pillar_files).map(|i| c.files.path(i as crate::value::FileId).to_path_buf()).collect(),
            top: c.top.clone(),
            low: c.low.clone(),
            managed: c.managed.clone(),
            files: c.files.clone(),
            reads: c.reads.clone(),
            read_outside_renders: c.read_outside_renders.clone(),
        }
    }

    /// About how many bytes it holds: the texts of its files, and its states (a few KB each,
    /// with the high data they came from).
    fn weight(&self) -> usize {
        let texts: usize = (0..self.files.len()).map(|i| self.files.text(i as crate::value::FileId).len()).sum();
        let states = self.low.as_ref().and_then(|l| l.chunks.as_ref()).map_or(0, Vec::len);
        texts + 4096 * states
    }

    /// The kept compile `minion` (whose pillar put `files` in the table) would make.
    fn find(shared: &Shared<SharedCompile>, minion: &Minion, opts: &Opts, req: &Request, files: &FileTable) -> Option<Arc<SharedCompile>> {
        let template_opts = crate::render::context::minion_opts(minion, opts);
        let ctx = minion.context();
        let matcher = |q: &MatchQuestion| matchers::answer(&ctx, q);
        let answers = answers_of(minion, &minion.pillar, &template_opts, &matcher);
        let fits = |s: &SharedCompile| {
            s.scope == req.scope
                && s.version == opts.version
                && s.saltenv == req.saltenv
                && s.pillar_files.len() == files.len()
                && s.pillar_files.iter().enumerate().all(|(i, p)| files.path(i as crate::value::FileId) == p.as_path())
        };
        shared.find(&answers, fits)
    }

    /// The compile of `minion` with `pillar`.
    fn for_minion(&self, minion: Result<Minion, ConfigError>, pillar: Option<Pillar>, roots: &Arc<FileRoots>) -> Compiled {
        Compiled {
            minion,
            top: self.top.clone(),
            low: self.low.clone(),
            rendered: None,
            mapdata: None,
            managed: self.managed.clone(),
            pillar,
            files: self.files.clone(),
            reads: self.reads.clone(),
            read_outside_renders: self.read_outside_renders.clone(),
            patch_facts: Default::default(),
            roots: roots.clone(),
            serial: next_serial(),
        }
    }
}

/// The workspace's options as `req` asks for them.
fn request_opts(ws: &Workspace, req: &Request) -> Opts {
    let mut opts = ws.opts.clone();
    if req.saltenv.is_some() {
        opts.saltenv = req.saltenv.clone();
    }
    opts
}

/// The minion's own Salt release, its `saltversioninfo` grain, when neither the command line
/// nor the workspace file pins one: in a fleet that is upgrading, each minion is compiled as
/// its own Salt compiles it.
fn minion_version(opts: &mut Opts, minion: &Minion) {
    (opts.version, opts.version_source) = release_for(opts, &minion.grains);
}

/// The Salt release a minion with `grains` is compiled for under `opts`: the one the command
/// line or the workspace file pins, else its `saltversioninfo` grain, else the options' own.
pub fn release_for(opts: &Opts, grains: &serde_json::Value) -> (crate::version::SaltVersion, crate::version::VersionSource) {
    use crate::version::{SaltVersion, VersionSource};
    match grains.get("saltversioninfo").and_then(SaltVersion::from_grain).filter(|_| !opts.version_source.pins()) {
        Some(v) => {
            let full = grains.get("saltversion").and_then(|s| s.as_str()).map_or_else(|| v.to_string(), str::to_string);
            (v, VersionSource::Grain(full))
        }
        None => (opts.version, opts.version_source.clone()),
    }
}

/// The Jinja setup templates of `minion` render with, loading and reading through `recorder`,
/// keeping renders where `memo` does.
/// Whether the minion's pillar is what Salt renders from pillar SLS files (its dicts then are
/// `OrderedDict`s, which the `yaml` filter writes in their order, not sorted): some SLS file
/// rendered, and no profile pillar written over it.
fn rendered_pillar(pillar: Option<&Pillar>, minion: &Minion) -> bool {
    let literal = minion.literal_pillar.as_ref().is_some_and(|p| p.as_object().is_none_or(|m| !m.is_empty()));
    !literal && pillar.is_some_and(|p| p.layers.iter().any(|l| l.path.is_some()))
}

fn jinja_setup(
    recorder: &Arc<Recorder<Arc<dyn Vfs>>>,
    roots: &Arc<FileRoots>,
    minion: &Minion,
    opts: &Opts,
    memo: &Memo,
    log: Option<&Arc<FactLog>>,
    ordered_pillar: bool,
) -> JinjaSetup {
    let lister = {
        let (fs, roots) = (recorder.clone(), roots.clone());
        move |env: &str| {
            reads::names(&*fs, &roots, env, "*");
            roots.list_states(env)
        }
    };
    // What `salt['mod.fun']` finds: the release's core, the listed extensions, `_modules` (and,
    // on a release nobody stated, what any release or known extension has).
    let known = opts.version_source != crate::version::VersionSource::Default;
    let exec = ExecFunctions::with_release_known(opts.version, known, &opts.saltexts, exec_custom_modules(&**recorder, roots));
    let jinja = {
        let (fs, roots) = (recorder.clone(), roots.clone());
        JinjaSetup::new(minion, opts, move |env, rel| {
            let path = reads::find_file(&*fs, &roots, env, rel)?;
            fs.read(&path).ok()
        })
        .with_matcher(template_matcher(minion, log.cloned()))
        .with_exec(exec)
        .with_list_states(Arc::new(lister))
        .with_ordered_pillar(ordered_pillar)
        .recording(log)
    };
    let mut jinja = jinja.clone().with_map_data(template_map_data(recorder.clone(), roots.clone(), jinja));
    if let Some(renders) = &memo.renders {
        jinja = jinja.with_memo(renders.clone());
    }
    if let Some(parses) = &memo.parses {
        jinja = jinja.with_parses(parses.clone());
    }
    jinja
}

impl Compiled {
    /// A copy (of a compile something else still holds).
    fn duplicate(&self) -> Compiled {
        Compiled {
            minion: self.minion.clone(),
            top: self.top.clone(),
            low: self.low.clone(),
            rendered: None,
            mapdata: None,
            managed: self.managed.clone(),
            pillar: self.pillar.clone(),
            files: self.files.clone(),
            reads: self.reads.clone(),
            read_outside_renders: self.read_outside_renders.clone(),
            patch_facts: self.patch_facts.clone(),
            roots: self.roots.clone(),
            serial: self.serial,
        }
    }
}

/// The minion's pillar as Salt's master computes it from `pillar_roots` (with the
/// configuration's `pillar:` as the pillar it starts from), read through the recorder: the
/// roots are walked through it and their files read through it, so any change there counts.
fn minion_pillar(
    recorder: &Arc<Recorder<Arc<dyn Vfs>>>,
    opts: &Opts,
    files: &mut FileTable,
    minion: &Minion,
    sql: Option<&dyn crate::workspace::sql::SqlConnector>,
    memo: &Memo,
) -> Pillar {
    let base = opts.raw.get("pillar").cloned();
    if opts.pillar_roots.is_empty() && opts.raw.get("ext_pillar").is_none_or(serde_json::Value::is_null) {
        return Pillar::literal(base.filter(|p| p.is_object()).unwrap_or_else(|| serde_json::Value::Object(Default::default())));
    }
    // Everything the pillar depends on besides the files it reads and what it asks of the
    // minion (its id and grains: the facts a kept pillar is checked on), and the git_pillar
    // trees mounted.
    let key = serde_json::json!([
        opts.raw,
        format!("{:?} {:?} {:?} {:?}", opts.pillar_roots, opts.file_roots, opts.saltenv, opts.git_pillar),
        minion.pillar,
        minion.nodegroups
    ])
    .to_string();
    if files.is_empty() {
        if let Some(hit) = memo.get(&key, minion, opts, &**recorder, files) {
            return hit;
        }
    }
    let log = FactLog::new();
    let inner: Arc<Recorder<Arc<dyn Vfs>>> = Arc::new(Recorder::new(recorder.clone() as Arc<dyn Vfs>));
    let fs: Arc<dyn Vfs> = Arc::new(reads::OtherRoots(inner.clone()));
    let roots = Arc::new(FileRoots::scan(&*fs, &opts.pillar_roots));
    let jinja = {
        let (fs, roots) = (fs.clone(), roots.clone());
        JinjaSetup::new(minion, opts, move |env, rel| {
            let path = roots.find_file(env, rel)?;
            fs.read(&path).ok()
        })
        .with_matcher(template_matcher(minion, Some(log.clone())))
        .recording(Some(&log))
    };
    let who = PillarMinion { id: &minion.id, grains: &minion.grains, nodegroups: &minion.nodegroups, facts: Some(&log) };
    let was_empty = files.is_empty();
    let computed = pillar::compile(&fs, &roots, files, opts, &who, base, &jinja, sql);
    drop(jinja);
    if was_empty {
        memo.put(key, log.facts(), inner.reads(), &computed, files);
    }
    computed
}

/// What another minion answers to the questions a compile asked of its minion: its id,
/// grains, pillar (`pillar`: the one the compile saw) and options, and what the matchers say
/// of it.
fn answers_of<'a>(
    minion: &'a Minion,
    pillar: &'a serde_json::Value,
    template_opts: &'a serde_json::Value,
    matcher: &'a dyn Fn(&MatchQuestion) -> u64,
) -> Answers<'a> {
    Answers::new(&minion.id, &minion.grains, pillar, template_opts, matcher)
}

/// What compiles keep for the compiles after them, owned by the caller (`check` one per run,
/// the editor one per workspace); cloning shares it.
///
/// - `pillars`: pillars computed recently, reused while every file they read (and every
///   pillar root's listing) is unchanged: `check` compiles each minion's highstate and every
///   templated file outside it for that minion, and each compile needs the same pillar. The pillar is computed
///   first, into an empty [`FileTable`], so its files get the same ids again when a hit adds
///   them in the same order. Validating a hit reads through the compile's recorder, so the
///   compile depends on those files as if it had computed the pillar.
/// - `renders` (only [`Memo::keeping_renders`]: the editor's): rendered SLS files
///   ([`RenderMemo`]), reused while their text, the minion data and what their render read are
///   unchanged, so an edit re-renders the files it touches. A one-shot compile would only pay
///   for the copies.
#[derive(Clone, Default)]
pub struct Memo {
    pillars: Arc<std::sync::Mutex<Vec<PillarMemo>>>,
    pub renders: Option<RenderMemo>,
    /// Plain SLS files parsed once for every minion of a run ([`Memo::sharing`]: a
    /// fleet's compiles, which keep no renders).
    pub parses: Option<crate::render::memo::ParseMemo>,
    /// Compiles shared by the minions of a run that answer the same questions the same way
    /// ([`Memo::sharing`]).
    pub compiles: Option<Arc<Shared<SharedCompile>>>,
}

#[derive(Clone)]
struct PillarMemo {
    key: String,
    /// What the pillar asked of its minion.
    facts: Arc<Facts>,
    reads: Reads,
    pillar: Pillar,
    files: Vec<(PathBuf, Arc<str>)>,
}

/// How many pillars the memo keeps: a fleet's kinds of minion (a pillar asks a few of its
/// minion's grains), a few minions of a workspace.
const KEEP_PILLARS: usize = 256;

impl Memo {
    /// A memo that keeps rendered files too.
    pub fn keeping_renders() -> Memo {
        Memo { renders: Some(RenderMemo::default()), ..Memo::default() }
    }

    /// A memo for a run over many minions of one tree (a fleet, the profiles `diff`
    /// compares): plain files are parsed once, and a minion that answers every question
    /// another's compile asked of its minion (its grains, pillar and options keys, what the
    /// matchers said of it: not its id or addresses when nothing read them) gets that
    /// compile. Only a run's compiles of one tree may share (a memo does not check files);
    /// a shared top's match explanations are worded for the minion it was compiled for.
    ///
    /// `SALT_ANALYZER_NO_SHARING=1` turns the compile sharing off (to compare, and to measure).
    pub fn sharing() -> Memo {
        let off = std::env::var_os("SALT_ANALYZER_NO_SHARING").is_some_and(|v| v == "1");
        Memo { parses: Some(Default::default()), compiles: (!off).then(Default::default), ..Memo::default() }
    }

    /// This memo (its pillars and renders shared), with compiles shared as [`Memo::sharing`]
    /// shares them, from now on: for one run over the fleet on one tree.
    pub fn with_sharing(&self) -> Memo {
        let sharing = Memo::sharing();
        Memo { compiles: sharing.compiles, parses: self.parses.clone().or(sharing.parses), ..self.clone() }
    }

    /// How many compiles the memo keeps for other minions.
    pub fn shared_compiles(&self) -> usize {
        self.compiles.as_ref().map_or(0, |s| s.len())
    }

    /// Forgets every computed pillar: the next compile reads the pillar files and queries the
    /// ext_pillar databases again. (Renders are kept: they are keyed by the pillar's value.)
    pub fn forget_pillars(&self) {
        if let Ok(mut memo) = self.pillars.lock() {
            memo.clear();
        }
    }

    /// A kept pillar computed with the same options for a minion that asked the same of
    /// `minion`, whose files are unchanged (added to `files`, empty, in the order the compile
    /// added them).
    fn get(&self, key: &str, minion: &Minion, opts: &Opts, fs: &dyn Vfs, files: &mut FileTable) -> Option<Pillar> {
        let kept: Vec<PillarMemo> = self.pillars.lock().ok()?.iter().filter(|m| m.key == key).cloned().collect();
        if kept.is_empty() {
            return None;
        }
        let template_opts = crate::render::context::minion_opts(minion, opts);
        let ctx = minion.context();
        let matcher = |q: &MatchQuestion| matchers::answer(&ctx, q);
        let answers = answers_of(minion, &minion.pillar, &template_opts, &matcher);
        let PillarMemo { reads, pillar, files: texts, .. } = kept.into_iter().find(|m| m.facts.hold(&answers))?;
        if !reads.files_unchanged(fs) {
            return None;
        }
        for (i, (path, text)) in texts.into_iter().enumerate() {
            if files.add(path, text) as usize != i {
                return None;
            }
        }
        Some(pillar)
    }

    fn put(&self, key: String, facts: Facts, reads: Reads, pillar: &Pillar, files: &FileTable) {
        let texts = (0..files.len()).map(|i| (files.path(i as crate::value::FileId).to_path_buf(), Arc::from(files.text(i as crate::value::FileId)))).collect();
        if let Ok(mut memo) = self.pillars.lock() {
            memo.insert(0, PillarMemo { key, facts: Arc::new(facts), reads, pillar: pillar.clone(), files: texts });
            memo.truncate(KEEP_PILLARS);
        }
    }
}

/// What `match.filter_by` in a template asks: `salt/modules/match.py` calls
/// `<matcher>_match.match(tgt, opts=__opts__, minion_id=...)` (or `delimiter=...`) for this
/// minion, with `minion_id` standing in for its id where the matcher takes one.
pub fn template_matcher(minion: &Minion, log: Option<Arc<FactLog>>) -> Matcher {
    let minion = minion.clone();
    Arc::new(move |matcher: &str, tgt: &str, minion_id: Option<&str>, delimiter: Option<&str>| {
        matchers::answer_recorded(&minion.context().recording(log.as_deref(), true), matcher, tgt, minion_id, delimiter)
    })
}

/// What `salt["map.data"](tpldir)` in a template returns: the mapstack model run through the
/// same recorder (so the layer files it reads are among the compile's reads), once per
/// `tpldir`, as saltext-formula caches it in `__context__`. Layer templates rendered for it get
/// a setup without `map.data` (Salt would recurse without end).
fn template_map_data(fs: Arc<Recorder<Arc<dyn Vfs>>>, roots: Arc<FileRoots>, jinja: JinjaSetup) -> render::context::MapDataFn {
    type Cached = (Result<(serde_json::Value, Vec<String>), String>, Reads);
    let cache: std::sync::Mutex<std::collections::HashMap<String, Cached>> = Default::default();
    Arc::new(move |tpldir: &str| {
        // A template asking again reads what the first answer read (the render memo keeps
        // each file by its own reads).
        if let Some((hit, reads)) = cache.lock().ok().and_then(|c| c.get(tpldir).cloned()) {
            if let Some(log) = fs.log() {
                log.replay(&reads);
            }
            return hit;
        }
        let mut files = FileTable::default();
        if let Some(log) = fs.log() {
            log.begin();
        }
        let got = map_data(&*fs, &roots, &mut files, &jinja, tpldir);
        let reads = fs.log().map(|log| log.end()).unwrap_or_default();
        let notes = got.notes.iter().map(|n| n.message.clone()).collect();
        let out = got.values.map(|v| (v, notes)).map_err(|e| e.message);
        if let Ok(mut c) = cache.lock() {
            c.insert(tpldir.to_string(), (out.clone(), reads));
        }
        out
    })
}

/// Renders `path` as the state system would: in the environment and under the SLS name its
/// place in the file roots gives it (a file outside them: `saltenv`, else `base`, named by its
/// file name).
fn render_file(fs: &dyn Vfs, roots: &FileRoots, opts: &Opts, files: &mut FileTable, jinja: &JinjaSetup, path: &Path, probe: Option<ProbeAt>) -> FileRender {
    let (env, rel) = roots.locate(path).unwrap_or_else(|| {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        (opts.saltenv.clone().unwrap_or_else(|| "base".into()), name)
    });
    let sls = sls_name_of(&rel).unwrap_or_default();
    let text = match fs.read(path) {
        Ok(t) => t,
        Err(e) => {
            let id = files.add(path.to_path_buf(), Arc::from(""));
            let err = SaltError::new(Code::UnreadableFile, format!("cannot read {}: {e}", path.display())).at(Some(Loc { file: id, span: 0..0 }));
            return FileRender { text: Err(err.clone()), data: Err(err), hints: Vec::new(), probed: None, traced: None };
        }
    };
    let id = files.add(path.to_path_buf(), Arc::from(text.as_str()));
    let mut ctx = jinja.context(&env, &sls, &rel, path);
    // With a probe, the instrumented text is rendered (same lines) and the values recorded.
    let instrumented = match probe {
        Some(ProbeAt::Block(at)) => render::probe::instrument(&text, at),
        _ => None,
    };
    let traced = match probe {
        Some(ProbeAt::Every) => render::probe::trace(&text),
        _ => None,
    };
    let seen: Arc<std::sync::Mutex<Vec<(usize, String)>>> = Arc::default();
    let tallies: Arc<std::sync::Mutex<Vec<Tally>>> = Arc::default();
    let source = match (&instrumented, &traced) {
        (Some((_, source)), _) => {
            ctx.probe = Some(seen.clone());
            source.as_str()
        }
        (None, Some((_, source))) => {
            ctx.trace = Some(tallies.clone());
            source.as_str()
        }
        (None, None) => text.as_str(),
    };
    let probed = || instrumented.as_ref().map(|(p, _)| (p.clone(), seen.lock().map(|s| s.clone()).unwrap_or_default()));
    let traced = || traced.as_ref().map(|(points, _)| (points.clone(), tallies.lock().map(|t| t.clone()).unwrap_or_default()));
    match render::render_template(source, id, Some(&ctx)) {
        Err(mut e) => {
            render::place_in_template(&mut e, fs, roots, &env, files);
            FileRender { text: Err(e.clone()), data: Err(e), hints: Vec::new(), probed: probed(), traced: traced() }
        }
        Ok(Templated::Plain) => FileRender { text: Ok(None), data: render::render_data(&text, None, id), hints: Vec::new(), probed: None, traced: None },
        Ok(Templated::Rendered(r)) => {
            let data = render::render_data(&text, Some(&r.text), id);
            FileRender { text: Ok(Some(r.text)), data, hints: r.hints, probed: probed(), traced: traced() }
        }
    }
}

/// `state.show_lowstate` (`BaseHighState.compile_low_chunks`): the minion's top, its
/// highstate, then extend, verify, `_in`, exclude and ordering, errors pooled as Salt does.
fn compile_highstate(
    fs: &dyn Vfs,
    opts: &Opts,
    roots: &FileRoots,
    files: &mut FileTable,
    ctx: &crate::targeting::matchers::MatchContext,
    jinja: Option<&JinjaSetup>,
) -> (LowState, crate::targeting::top::TopResult) {
    let top = compile_top(fs, opts, roots, files, ctx, jinja);
    if let Some(raised) = top.raised.clone() {
        // `compile_low_chunks` runs get_top and top_matches unprotected: Salt raises here.
        let highstate = HighState::default();
        return (LowState { chunks: None, show_errors: vec![raised], apply_errors: Vec::new(), calls: Vec::new(), highstate, version: opts.version }, top);
    }
    let mut builder = Builder::new(fs, roots, opts, files);
    builder.jinja = jinja.cloned();
    // A top `include:` globbed in an env outside `_get_envs()` made Salt list that env too.
    for env in &top.avail_envs {
        if !builder.avail.contains_key(env) {
            builder.avail.insert(env.clone(), roots.list_states_shared(env));
        }
    }
    let highstate = builder.render_highstate(&top.matches);
    let mut errors = highstate.errors.clone();
    // Extending, `_in` requisites and excludes change a copy of the high data (the rendered
    // one is kept): without any of them there is nothing to copy.
    let rendered = &highstate.high;
    let extended = if lowstate::has_extend_or_requisite_in(rendered, opts.version) || rendered.contains("__exclude__") {
        let mut high = rendered.clone();
        errors.extend(reconcile_extend(&mut high, false));
        errors.extend(verify_high(&high, opts.version));
        errors.extend(requisite_in(&mut high, opts.version));
        apply_exclude(&mut high);
        Some(high)
    } else {
        errors.extend(verify_high(rendered, opts.version));
        None
    };
    let mut chunks = None;
    let mut run_errors = Vec::new();
    if errors.is_empty() {
        let high = extended.as_ref().unwrap_or(rendered);
        run_errors = lowstate::run_time_requisite_errors(opts.version, high);
        let compiled = compile_high_data(high);
        // The extended copy is done with once it is in chunks (ordering holds the chunks and
        // a graph over them).
        drop(extended);
        let ordered = order_chunks_as(compiled, opts.version);
        if ordered.errors.is_empty() {
            chunks = Some(ordered.chunks);
        } else {
            errors.extend(ordered.errors);
        }
    }
    // Declarations are found in the rendered high data (extend and `_in` change bodies, never
    // which IDs declare which functions where), as `state.sls`'s path does.
    let mut calls = match &chunks {
        Some(chunks) => crate::state::calls::call_errors(&highstate.high, chunks, &crate::state::catalog::workspace_catalog(fs, roots, opts), &|_| false),
        None => Vec::new(),
    };
    crate::state::calls::weigh_by_release(&mut calls, &opts.version_source);
    calls.extend(run_errors);
    (LowState { chunks, show_errors: errors, apply_errors: Vec::new(), calls, highstate, version: opts.version }, top)
}

#[cfg(test)]
mod tests;
