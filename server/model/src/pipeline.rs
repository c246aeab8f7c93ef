//! The one pipeline that compiles a minion: the workspace's options and file roots, a minion
//! profile and the Jinja setup made from them go in; the compiled top, the rendered high data,
//! the low chunks and their errors come out, with every file and file-root answer the compile
//! read ([`Reads`]). `top`, `lowstate`, `render`, `mapdata`, `check`, the editor's highstate
//! diagnostics, its top-file hovers and `top --explain` all call [`compile`]; [`MinionCache`] keeps results until
//! something they read changes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Code, SaltError};
use crate::mapstack::{formula_map_data, map_data, MapData};
use crate::pillar::{self, Pillar, PillarMinion};
use crate::render::functions::Matcher;
use crate::render::jinja::JinjaSetup;
use crate::render::memo::RenderMemo;
use crate::render::probe::Probe;
use crate::render::{self, Templated};
use crate::state::compile::compile_high_data;
use crate::state::extend::{apply_exclude, reconcile_extend, requisite_in};
use crate::state::highstate::{Builder, HighState};
use crate::state::lowstate::{self, LowState};
use crate::state::order::order_chunks;
use crate::state::verify::verify_high;
use crate::targeting::matchers::{self, subdict};
use crate::targeting::top::{compile_top, TopResult};
use crate::targeting::Matches;
use crate::value::{Loc, Val};
use crate::workspace::config::ConfigError;
use crate::workspace::config::Opts;
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
        /// A byte offset in the file: record what the Jinja block there evaluates to.
        probe: Option<usize>,
    },
    /// A formula's layered configuration, `salt["map.data"](tpldir)`.
    MapData { tpldir: String },
    /// Only the minion's pillar (`pillar.items`), which every scope computes first.
    Pillar,
    /// Its whole highstate, and the contents its `file.managed` states would write
    /// ([`crate::state::managed`]): what `diff` compares between two sides of a change.
    Impact,
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
    if let Ok(minion) = &mut minion {
        let opts = request_opts(ws, req);
        // grains -> pillar -> everything else: the pillar from `pillar_roots`, then the
        // profile's own pillar over it.
        let computed = minion_pillar(&recorder, &ws.opts, &mut files, minion, ws.sql.as_ref().map(|d| &*d.0), memo);
        minion.pillar = computed.pillar.clone();
        if let Some(literal) = &minion.literal_pillar {
            minion::merge_json(&mut minion.pillar, literal);
        }
        pillar = Some(computed);
        let minion = &*minion;
        let jinja = jinja_setup(&recorder, roots, minion, &opts, memo);
        let ctx = minion.context();
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
            Scope::MapData { tpldir } => mapdata = Some(formula_map_data(&*recorder, roots, &mut files, &jinja, tpldir)),
            Scope::Pillar => {}
        }
    }
    // The Jinja loader may still hold the recorder; what it read so far is all there is.
    let reads = recorder.reads();
    let read_outside_renders = recorder.read_outside_parts();
    Compiled {
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
    }
}

/// Runs `work` on each of `items` (a fleet's minions: each a compile of its own) on `threads`
/// threads, and hands each result to `sink` in the items' order as soon as it and every one
/// before it are done. Workers run at most a few items ahead of `sink`, so a caller that
/// reduces each compile to what it prints holds a bounded number of results, never the fleet.
pub fn each_in_parallel<I: Sync, T: Send>(items: &[I], threads: usize, work: impl Fn(&I) -> T + Sync, mut sink: impl FnMut(usize, T)) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex};
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        for (i, item) in items.iter().enumerate() {
            sink(i, work(item));
        }
        return;
    }
    let window = 4 * threads;
    let next = AtomicUsize::new(0);
    let emitted = (Mutex::new(0usize), Condvar::new());
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, T)>();
        for _ in 0..threads {
            let (tx, next, emitted, work) = (tx.clone(), &next, &emitted, &work);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                // Wait while `sink` is `window` items behind (item `i - window` is in
                // progress on another thread, since items are taken in order).
                if let Ok(mut done) = emitted.0.lock() {
                    while i >= *done + window {
                        match emitted.1.wait(done) {
                            Ok(d) => done = d,
                            Err(_) => return,
                        }
                    }
                }
                if tx.send((i, work(&items[i]))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut want = 0;
        for (i, t) in rx {
            pending.insert(i, t);
            while let Some(t) = pending.remove(&want) {
                sink(want, t);
                want += 1;
                if let Ok(mut done) = emitted.0.lock() {
                    *done = want;
                }
                emitted.1.notify_all();
            }
        }
    });
}

/// How many compiles of different minions run at once: one per core.
pub fn parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The workspace's options as `req` asks for them.
fn request_opts(ws: &Workspace, req: &Request) -> Opts {
    let mut opts = ws.opts.clone();
    if req.saltenv.is_some() {
        opts.saltenv = req.saltenv.clone();
    }
    opts
}

/// The Jinja setup templates of `minion` render with, loading and reading through `recorder`,
/// keeping renders where `memo` does.
fn jinja_setup(recorder: &Arc<Recorder<Arc<dyn Vfs>>>, roots: &Arc<FileRoots>, minion: &Minion, opts: &Opts, memo: &Memo) -> JinjaSetup {
    let jinja = {
        let (fs, roots) = (recorder.clone(), roots.clone());
        JinjaSetup::new(minion, opts, move |env, rel| {
            let path = reads::find_file(&*fs, &roots, env, rel)?;
            fs.read(&path).ok()
        })
        .with_matcher(template_matcher(minion))
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

/// A highstate compile after files read only by rendered SLS files changed (`changed`), made
/// from the earlier one `old` by rendering those files again and putting the argument values
/// they changed in place ([`crate::state::patch`]): what a compile would give, when the new
/// renders declare the same states, requisites and keywords as before. `None` otherwise (and
/// where renders are not kept): the caller compiles.
fn patch(old: Arc<Compiled>, changed: &[PathBuf], fs: &Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request, memo: &Memo) -> Option<Compiled> {
    let Some(redone) = rerender(&old, changed, fs, ws, roots, req, memo) else {
        free_later(old);
        return None;
    };
    patched(old, redone, changed, fs)
}

/// One file a patch rendered again (render `i` of the kept compile's list).
enum Redo {
    /// It rendered before and does now, declaring the same states: these argument values
    /// changed.
    /// (`edit`: the file's own text changed and it is plain YAML, whose data is located in its
    /// text: every location after the edit moves.)
    Values {
        i: usize,
        old: Arc<render::memo::Entry>,
        new: Arc<render::memo::Entry>,
        changes: Vec<crate::state::patch::ArgChange>,
        edit: Option<crate::state::patch::Edit>,
    },
    /// It failed to render before and does again (it declares nothing either way): its error
    /// is this one now, after these reads.
    Error { i: usize, error: SaltError, reads: Reads, file: crate::value::FileId },
}

/// The files a patch renders again; the file table with the new texts; what the renders read.
type Redone = (Vec<Redo>, FileTable, Reads);

/// [`patch`]'s renders, when every changed file is read only by renders and each of them
/// changes argument values only (or fails to render as it did).
fn rerender(old: &Compiled, changed: &[PathBuf], fs: &Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request, memo: &Memo) -> Option<Redone> {
    use crate::state::highstate::Part;
    use crate::state::patch;
    if req.scope != Scope::Highstate || memo.renders.is_none() || changed.iter().any(|p| old.read_outside_renders.contains(p)) {
        return None;
    }
    let (Ok(minion), Some(low)) = (&old.minion, &old.low) else { return None };
    // The renders that read a changed file (their own text or an import, a layer, a
    // `salt://` file): each is rendered again.
    let mut redo: Vec<usize> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut covered = std::collections::HashSet::new();
    for (i, r) in low.highstate.rendered.iter().enumerate() {
        let Some(file) = &r.file else { continue };
        let reads = match &r.part {
            Some(Part::Kept(e)) => &e.reads,
            Some(Part::Failed(reads)) => reads,
            None => continue,
        };
        let touched: Vec<&PathBuf> = changed.iter().filter(|c| **c == file.path || reads.paths().any(|p| p == c.as_path())).collect();
        if !touched.is_empty() {
            // One render per file: the same file under two names is left to a compile.
            if !seen.insert(file.path.clone()) {
                return None;
            }
            covered.extend(touched);
            redo.push(i);
        }
    }
    if redo.is_empty() || covered.len() != changed.len() {
        return None;
    }
    if old.patch_facts.get_or_init(|| Arc::new(patch::facts(&low.highstate.high))).copies_arguments {
        return None;
    }
    let opts = request_opts(ws, req);
    let recorder = Arc::new(Recorder::new(fs.clone()));
    let jinja = jinja_setup(&recorder, roots, minion, &opts, memo);
    let mut files = old.files.clone();
    let mut edits = Vec::new();
    for c in changed {
        if let Some(id) = files.id(c) {
            let text: Arc<str> = Arc::from(fs.read(c).ok()?);
            let was = files.text(id);
            // A plain file's data is located in its text (a template's in the file only).
            match (render::is_templated(was), render::is_templated(&text)) {
                (true, true) => {}
                (false, false) => edits.extend(crate::state::patch::Edit::between(id, was, &text).map(|e| (c.clone(), e))),
                _ => return None,
            }
            files.add(c.clone(), text);
        }
    }
    let mut renders = Vec::new();
    for i in redo {
        let r = &low.highstate.rendered[i];
        let mut builder = Builder::new(&*recorder, roots, &opts, &mut files);
        builder.jinja = Some(jinja.clone());
        let (part, mut errors) = builder.render_alone(&r.sls, &r.env);
        match (&r.part, part) {
            (Some(Part::Kept(old)), Some(Part::Kept(new))) if errors.is_empty() => {
                let edit = r.file.as_ref().and_then(|f| edits.iter().find(|(p, _)| *p == f.path)).map(|(_, e)| *e);
                let changes = match &edit {
                    Some(edit) => patch::changed_args_after(&old.val, &new.val, edit)?,
                    None => patch::changed_args(&old.val, &new.val)?,
                };
                renders.push(Redo::Values { i, old: old.clone(), new, changes, edit });
            }
            (Some(Part::Failed(_)), Some(Part::Failed(reads))) if errors.len() == 1 => {
                let error = errors.pop()?;
                // `render_highstate` rewrites an "is not available" message, and an error
                // placed in an imported file numbers that file: left to a compile.
                let file = r.file.as_ref().and_then(|f| files.id(&f.path))?;
                let in_file = error.loc.as_ref().is_some_and(|l| l.file == file);
                if !in_file
                    || error.code == Code::NotAnalysed
                    || !error.message.starts_with(&crate::state::highstate::render_error_prefix(&r.env, &r.sls))
                    || error.message.contains("is not available")
                {
                    return None;
                }
                renders.push(Redo::Error { i, error, reads, file });
            }
            _ => return None,
        }
    }
    drop(jinja);
    Some((renders, files, recorder.reads()))
}

/// `old` with the renders of [`rerender`] put in place.
fn patched(old: Arc<Compiled>, (renders, files, more): Redone, changed: &[PathBuf], fs: &Arc<dyn Vfs>) -> Option<Compiled> {
    // The kept compile when nothing else holds it, else a copy.
    let old = Arc::try_unwrap(old).unwrap_or_else(|shared| shared.duplicate());
    let facts = old.patch_facts.get().cloned()?;
    let mut low = old.low?;
    for redo in renders {
        if !patch_one(&mut low, &facts, redo) {
            free_later(low);
            return None;
        }
    }
    let mut reads = old.reads;
    reads.refresh(&**fs, changed, &more);
    Some(Compiled { low: Some(low), files, reads, serial: next_serial(), ..old })
}

/// Puts one [`Redo`] in place; `false` when it has no single place to go.
fn patch_one(low: &mut LowState, facts: &crate::state::patch::Facts, redo: Redo) -> bool {
    use crate::state::highstate::Part;
    match redo {
        Redo::Values { i, old, new, changes, edit } => {
            let (env, sls) = (low.highstate.rendered[i].env.clone(), low.highstate.rendered[i].sls.clone());
            // Everything of the file moves to the new text first; the changed values come
            // from the new render, already there.
            if edit.is_some_and(|edit| !crate::state::patch::shift_low(&edit, low)) || !crate::state::patch::apply(low, facts, &env, &sls, &changes) {
                return false;
            }
            // The file's render hints where its earlier ones were: renders add theirs in order.
            if old.hints != new.hints {
                let hints_of = |r: &crate::state::highstate::Rendered| match &r.part {
                    Some(Part::Kept(e)) => e.hints.len(),
                    _ => 0,
                };
                let at: usize = low.highstate.rendered[..i].iter().map(hints_of).sum();
                let n = old.hints.len();
                if low.highstate.hints.get(at..at + n) != Some(&old.hints[..]) {
                    return false;
                }
                low.highstate.hints.splice(at..at + n, new.hints.iter().cloned());
            }
            low.highstate.rendered[i].part = Some(Part::Kept(new));
        }
        Redo::Error { i, error, reads, file } => {
            // The render error is where it was, among the highstate's errors and at the same
            // place in what `show_low_sls` answers (which starts with them).
            let prefix = crate::state::highstate::render_error_prefix(&low.highstate.rendered[i].env, &low.highstate.rendered[i].sls);
            let mut at = low.highstate.errors.iter().enumerate().filter(|(_, e)| e.code != Code::NotAnalysed && e.message.starts_with(&prefix)).map(|(k, _)| k);
            let (Some(k), None) = (at.next(), at.next()) else { return false };
            if low.show_errors.get(k) != Some(&low.highstate.errors[k]) || low.highstate.errors[k].loc.as_ref().is_none_or(|l| l.file != file) {
                return false;
            }
            low.show_errors[k] = error.clone();
            low.highstate.errors[k] = error;
            low.highstate.rendered[i].part = Some(Part::Failed(reads));
        }
    }
    true
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
    // Everything the pillar depends on besides the files it reads.
    let key = serde_json::json!([
        opts.raw,
        format!("{:?} {:?} {:?}", opts.pillar_roots, opts.file_roots, opts.saltenv),
        minion.id,
        minion.grains,
        minion.pillar,
        minion.nodegroups
    ])
    .to_string();
    if files.is_empty() {
        if let Some(hit) = memo.get(&key, &**recorder, files) {
            return hit;
        }
    }
    let inner: Arc<Recorder<Arc<dyn Vfs>>> = Arc::new(Recorder::new(recorder.clone() as Arc<dyn Vfs>));
    let fs: Arc<dyn Vfs> = Arc::new(reads::OtherRoots(inner.clone()));
    let roots = Arc::new(FileRoots::scan(&*fs, &opts.pillar_roots));
    let jinja = {
        let (fs, roots) = (fs.clone(), roots.clone());
        JinjaSetup::new(minion, opts, move |env, rel| {
            let path = roots.find_file(env, rel)?;
            fs.read(&path).ok()
        })
        .with_matcher(template_matcher(minion))
    };
    let who = PillarMinion { id: &minion.id, grains: &minion.grains, nodegroups: &minion.nodegroups };
    let was_empty = files.is_empty();
    let computed = pillar::compile(&*fs, &roots, files, opts, &who, base, &jinja, sql);
    if was_empty {
        memo.put(key, inner.reads(), &computed, files);
    }
    computed
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
    /// Plain SLS files parsed once for every minion of a run ([`Memo::sharing_parses`]: a
    /// fleet's compiles, which keep no renders).
    pub parses: Option<crate::render::memo::ParseMemo>,
}

struct PillarMemo {
    key: String,
    reads: Reads,
    pillar: Pillar,
    files: Vec<(PathBuf, Arc<str>)>,
}

/// How many pillars the memo keeps (a few minions of a workspace).
const KEEP_PILLARS: usize = 8;

impl Memo {
    /// A memo that keeps rendered files too.
    pub fn keeping_renders() -> Memo {
        Memo { renders: Some(RenderMemo::default()), ..Memo::default() }
    }

    /// A memo whose compiles share the parses of plain SLS files: a run over many minions
    /// (a fleet) parses each plain file once, not once per minion.
    pub fn sharing_parses() -> Memo {
        Memo { parses: Some(Default::default()), ..Memo::default() }
    }

    /// Forgets every computed pillar: the next compile reads the pillar files and queries the
    /// ext_pillar databases again. (Renders are kept: they are keyed by the pillar's value.)
    pub fn forget_pillars(&self) {
        if let Ok(mut memo) = self.pillars.lock() {
            memo.clear();
        }
    }

    fn get(&self, key: &str, fs: &dyn Vfs, files: &mut FileTable) -> Option<Pillar> {
        let (reads, pillar, texts) = {
            let memo = self.pillars.lock().ok()?;
            let m = memo.iter().find(|m| m.key == key)?;
            (m.reads.clone(), m.pillar.clone(), m.files.clone())
        };
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

    fn put(&self, key: String, reads: Reads, pillar: &Pillar, files: &FileTable) {
        let texts = (0..files.len()).map(|i| (files.path(i as crate::value::FileId).to_path_buf(), Arc::from(files.text(i as crate::value::FileId)))).collect();
        if let Ok(mut memo) = self.pillars.lock() {
            memo.retain(|m| m.key != key);
            memo.insert(0, PillarMemo { key, reads, pillar: pillar.clone(), files: texts });
            memo.truncate(KEEP_PILLARS);
        }
    }
}

/// What `match.filter_by` in a template asks: `salt/modules/match.py` calls
/// `<matcher>_match.match(tgt, opts=__opts__, minion_id=...)` (or `delimiter=...`) for this
/// minion, with `minion_id` standing in for its id where the matcher takes one.
pub fn template_matcher(minion: &Minion) -> Matcher {
    let minion = minion.clone();
    Arc::new(move |matcher: &str, tgt: &str, minion_id: Option<&str>, delimiter: Option<&str>| {
        let mut ctx = minion.context();
        if let Some(id) = minion_id {
            ctx.minion_id = id;
        }
        match subdict::Kind::from_matcher(matcher) {
            Some(kind) => subdict::matches(&ctx, kind, tgt, delimiter).matched,
            None => matchers::matches_str(&ctx, matcher, tgt).matched,
        }
    })
}

/// What `salt["map.data"](tpldir)` in a template returns: the mapstack model run through the
/// same recorder (so the layer files it reads are among the compile's reads), once per
/// `tpldir`, as saltext-formula caches it in `__context__`. Layer templates rendered for it get
/// a setup without `map.data` (Salt would recurse without end).
fn template_map_data(fs: Arc<Recorder<Arc<dyn Vfs>>>, roots: Arc<FileRoots>, jinja: JinjaSetup) -> render::functions::MapDataFn {
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
fn render_file(fs: &dyn Vfs, roots: &FileRoots, opts: &Opts, files: &mut FileTable, jinja: &JinjaSetup, path: &Path, probe: Option<usize>) -> FileRender {
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
            return FileRender { text: Err(err.clone()), data: Err(err), hints: Vec::new(), probed: None };
        }
    };
    let id = files.add(path.to_path_buf(), Arc::from(text.as_str()));
    let mut ctx = jinja.context(&env, &sls, &rel, path);
    // With a probe, the instrumented text is rendered (same lines) and the values recorded.
    let instrumented = probe.and_then(|at| render::probe::instrument(&text, at));
    let seen: Arc<std::sync::Mutex<Vec<(usize, String)>>> = Arc::default();
    let source = match &instrumented {
        Some((_, source)) => {
            ctx.probe = Some(seen.clone());
            source.as_str()
        }
        None => text.as_str(),
    };
    let probed = |seen: &Arc<std::sync::Mutex<Vec<(usize, String)>>>| {
        instrumented.as_ref().map(|(p, _)| (p.clone(), seen.lock().map(|s| s.clone()).unwrap_or_default()))
    };
    match render::render_template(source, id, Some(&ctx)) {
        Err(mut e) => {
            render::place_in_template(&mut e, fs, roots, &env, files);
            FileRender { text: Err(e.clone()), data: Err(e), hints: Vec::new(), probed: probed(&seen) }
        }
        Ok(Templated::Plain) => FileRender { text: Ok(None), data: render::render_data(&text, None, id), hints: Vec::new(), probed: None },
        Ok(Templated::Rendered(r)) => {
            let data = render::render_data(&text, Some(&r.text), id);
            FileRender { text: Ok(Some(r.text)), data, hints: r.hints, probed: probed(&seen) }
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
        return (LowState { chunks: None, show_errors: vec![raised], apply_errors: Vec::new(), calls: Vec::new(), highstate }, top);
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
    let extended = if lowstate::has_extend_or_requisite_in(rendered) || rendered.contains("__exclude__") {
        let mut high = rendered.clone();
        errors.extend(reconcile_extend(&mut high, false));
        errors.extend(verify_high(&high));
        errors.extend(requisite_in(&mut high));
        apply_exclude(&mut high);
        Some(high)
    } else {
        errors.extend(verify_high(rendered));
        None
    };
    let mut chunks = None;
    if errors.is_empty() {
        let compiled = compile_high_data(extended.as_ref().unwrap_or(rendered));
        // The extended copy is done with once it is in chunks (ordering holds the chunks and
        // a graph over them).
        drop(extended);
        let ordered = order_chunks(compiled);
        if ordered.errors.is_empty() {
            chunks = Some(ordered.chunks);
        } else {
            errors.extend(ordered.errors);
        }
    }
    // Declarations are found in the rendered high data (extend and `_in` change bodies, never
    // which IDs declare which functions where), as `state.sls`'s path does.
    let calls = match &chunks {
        Some(chunks) => crate::state::calls::call_errors(&highstate.high, chunks, &crate::state::catalog::workspace_catalog(fs, roots), &|_| false),
        None => Vec::new(),
    };
    (LowState { chunks, show_errors: errors, apply_errors: Vec::new(), calls, highstate }, top)
}

/// Compiled minions kept until something they read changes. A hit costs re-reading (and
/// hashing) the files the result read and re-asking its questions of the file roots; callers
/// that know which files changed can skip asking (the editor does, through its change log).
#[derive(Default)]
pub struct MinionCache {
    entries: Vec<(Request, Arc<Compiled>)>,
    /// How many compiles ran (tests count what a change recomputes).
    pub compiles: u64,
    /// How many results were patched after an edit instead of compiled.
    pub patches: u64,
}

/// How many results a cache keeps (a few minions and scopes: the selected one, hovers of
/// others, `top --explain`, open templated files outside the highstate compiled alone).
const KEEP: usize = 16;

impl MinionCache {
    /// The result for `req`: the cached one while everything it read is unchanged on `fs` and
    /// under `roots`, else a fresh compile.
    pub fn get(&mut self, fs: &Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request, memo: &Memo) -> Arc<Compiled> {
        if let Some(i) = self.entries.iter().position(|(r, _)| r == req) {
            let (r, c) = self.entries.remove(i);
            match c.reads.changed_texts(&**fs, (!Arc::ptr_eq(&c.roots, roots)).then_some(&**roots)) {
                Some(changed) if changed.is_empty() => {
                    self.entries.insert(0, (r, c.clone()));
                    return c;
                }
                // Only files' texts changed: files only renders read may be re-rendered alone.
                Some(changed) => {
                    if let Some(patched) = patch(c, &changed, fs, ws, roots, req, memo) {
                        self.patches += 1;
                        let c = Arc::new(patched);
                        self.entries.insert(0, (r, c.clone()));
                        return c;
                    }
                }
                None => free_later(c),
            }
        }
        self.compiles += 1;
        let c = Arc::new(compile_with(fs.clone(), ws, roots, req, memo));
        self.entries.insert(0, (req.clone(), c.clone()));
        self.entries.truncate(KEEP);
        c
    }

    /// Forgets everything (the configuration changed: results were made with other options).
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn each_in_parallel_hands_every_result_over_in_order() {
        let items: Vec<u64> = (0..200).collect();
        let mut got = Vec::new();
        // Uneven work, so results finish out of order.
        super::each_in_parallel(&items, 3, |&i| (i * i, std::thread::sleep(std::time::Duration::from_micros((i * 37) % 500))).0, |i, sq| got.push((i, sq)));
        assert_eq!(got, items.iter().map(|&i| (i as usize, i * i)).collect::<Vec<_>>());
    }

    use std::path::PathBuf;

    use super::*;
    use crate::workspace::vfs::MemFs;

    const TREE: &str = "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  web01: {grains: {role: web}}
  db01: {grains: {role: db}}
#- base/top.sls
base:
  'G@role:web': [web]
  'G@role:db': [db]
#- base/web.sls
{% from 'lib.jinja' import port %}
nginx: {pkg.installed: [], service.running: [{port: {{ port }}}]}
#- base/lib.jinja
{% set port = 80 %}
#- base/db.sls
postgres: {pkg.installed: []}
#- base/unrelated.sls
x: test.nop
";

    fn setup(fs: &MemFs) -> (Workspace, Arc<FileRoots>) {
        let ws = Workspace::load(fs, Path::new("/ws"), None).expect("workspace");
        let roots = Arc::new(FileRoots::scan(fs, &ws.opts.file_roots));
        (ws, roots)
    }

    fn ids(c: &Compiled) -> Vec<String> {
        c.low.as_ref().and_then(|l| l.chunks.as_ref()).into_iter().flatten().map(|ch| ch.get_str("__id__").to_string()).collect()
    }

    #[test]
    fn one_compile_gives_the_top_the_chunks_and_what_they_read() {
        let fs = MemFs::from_fixture(TREE);
        let (ws, roots) = setup(&fs);
        let c = compile(Arc::new(fs), &ws, &roots, &Request::new(Some("web01"), Scope::Highstate));
        assert_eq!(c.minion.as_ref().map(|m| m.id.as_str()).ok(), Some("web01"));
        assert_eq!(c.top.as_ref().map(|t| t.show_top_json().to_string()).as_deref(), Some(r#"{"base":["web"]}"#));
        assert_eq!(ids(&c), ["nginx", "nginx"]);
        let read: Vec<PathBuf> = c.reads.paths().map(Path::to_path_buf).collect();
        // The Jinja import is read through the same recorder as the SLS files.
        for f in ["base/top.sls", "base/web.sls", "base/lib.jinja"] {
            assert!(read.contains(&Path::new("/ws").join(f)), "{f} not in {read:?}");
        }
        assert!(!read.contains(&PathBuf::from("/ws/base/db.sls")));
    }

    #[test]
    fn an_edit_re_renders_only_the_files_whose_reads_changed() {
        let mut fs = MemFs::from_fixture(
            "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  m1: {grains: {os_family: Debian}}
  m2: {grains: {os_family: RedHat}}
#- base/top.sls
base:
  '*': [f, f.conf, plain, lone]
#- base/f/map.jinja
{%- set mapdata = salt[\"map.data\"](tpldir) %}
#- base/f/parameters/defaults.yaml
values: {pkg: nginx, port: 80}
#- base/f/init.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
ß-pkg: {pkg.installed: [{name: '{{ mapdata.pkg }}'}]}
#- base/f/conf.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
ℝ-conf: {test.nop: [{name: 'port={{ mapdata.port }}'}]}
#- base/plain.sls
💣: {test.nop: []}
#- base/lone.sls
lone: {test.nop: [{name: '{{ grains.os_family }}'}]}
",
        );
        let (ws, roots) = setup(&fs);
        let memo = Memo::keeping_renders();
        let renders = || memo.renders.as_ref().map_or(0, RenderMemo::renders);
        let compile = |fs: &MemFs, who: &str| compile_with(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some(who), Scope::Highstate), &memo);
        let names = |c: &Compiled| {
            c.low.as_ref().and_then(|l| l.chunks.as_ref()).into_iter().flatten().map(|ch| ch.get_str("name").to_string()).collect::<Vec<_>>().join(" ")
        };
        let first = compile(&fs, "m1");
        assert_eq!(names(&first), "nginx port=80 💣 Debian");
        assert_eq!(renders(), 4);
        // Nothing changed: nothing rendered, the same answer and the same reads.
        let again = compile(&fs, "m1");
        assert_eq!(renders(), 4);
        assert_eq!(names(&again), names(&first));
        assert!(first.reads.paths().all(|p| again.reads.touches(p)), "a kept render's reads count for the compile");
        // One file edited: that file only.
        fs.files.insert("/ws/base/plain.sls".into(), "💣: {test.nop: [{name: edited}]}\n".into());
        assert_eq!(names(&compile(&fs, "m1")), "nginx port=80 edited Debian");
        assert_eq!(renders(), 5);
        // A layer both formula files read through `map.data` (the second through the first's
        // answer): both, and only they.
        fs.files.insert("/ws/base/f/parameters/defaults.yaml".into(), "values: {pkg: apache2, port: 8080}\n".into());
        assert_eq!(names(&compile(&fs, "m1")), "apache2 port=8080 edited Debian");
        assert_eq!(renders(), 7);
        // Another minion: its own renders; back to the first: kept.
        assert_eq!(names(&compile(&fs, "m2")), "apache2 port=8080 edited RedHat");
        assert_eq!(renders(), 11);
        compile(&fs, "m1");
        assert_eq!(renders(), 11);
    }

    /// Everything a compile answers, to compare a patched compile with a fresh one.
    fn answer(c: &Compiled) -> String {
        let low = c.low.as_ref().expect("a highstate");
        let errors = |l: &[SaltError]| l.iter().map(|e| format!("{:?} {} {:?}", e.code, e.message, e.loc)).collect::<Vec<_>>();
        let rendered: Vec<String> =
            low.highstate.rendered.iter().map(|r| format!("{}:{} {:?}", r.env, r.sls, r.includes.iter().map(|i| &i.sls).collect::<Vec<_>>())).collect();
        let texts: Vec<String> = (0..c.files.len()).map(|i| format!("{} {}", c.files.path(i as u32).display(), c.files.text(i as u32))).collect();
        format!(
            "chunks {}\nhigh {}\nshow {:?}\napply {:?}\ncalls {:?}\nhints {:?}\nrendered {rendered:?}\nfiles {texts:?}",
            low.chunks_json(),
            low.highstate.high.to_json(),
            errors(&low.show_errors),
            errors(&low.apply_errors),
            errors(&low.calls),
            errors(&low.highstate.hints),
        )
    }

    #[test]
    fn an_edit_of_argument_values_is_patched_into_the_kept_compile() {
        let mut fs = MemFs::from_fixture(
            "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  m1: {grains: {os_family: Debian}}
#- base/top.sls
base:
  '*': [f, f.conf, plain]
#- base/f/map.jinja
{%- set mapdata = salt[\"map.data\"](tpldir) %}
#- base/f/parameters/defaults.yaml
values: {pkg: nginx, port: 80, mode: '0644'}
#- base/f/init.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
ß-pkg: {pkg.installed: [{name: '{{ mapdata.pkg }}'}, {version: latest}]}
#- base/f/conf.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
include: [f]
{%- for i in range(2) %}
ℝ-conf-{{ i }}:
  file.managed:
    - name: /etc/f{{ i }}.conf
    - contents: 'port={{ mapdata.port }}'
    - mode: '{{ mapdata.mode }}'
    - require: [{pkg: ß-pkg}]
u-{{ i }}:
  user.present:
    - home: '/home/{{ mapdata.port }}'
    - bogus: 1
{%- endfor %}
#- base/plain.sls
💣: {test.nop: [{name: '{{ grains.os_family }}'}]}
",
        );
        let (ws, roots) = setup(&fs);
        let memo = Memo::keeping_renders();
        let mut cache = MinionCache::default();
        let req = Request::new(Some("m1"), Scope::Highstate);
        let mut check = |fs: &MemFs, patched: bool, why: &str| {
            let (before, compiles) = (cache.patches, cache.compiles);
            let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
            assert_eq!((cache.patches - before, cache.compiles - compiles), if patched { (1, 0) } else { (0, 1) }, "{why}");
            let fresh = compile(Arc::new(fs.clone()), &ws, &roots, &req);
            assert_eq!(answer(&c), answer(&fresh), "{why}");
            c
        };
        let first = check(&fs, false, "the first compile");
        assert!(first.low.as_ref().is_some_and(|l| !l.calls.is_empty()), "the unknown argument is found");
        let conf = "/ws/base/f/conf.sls";
        let edit = |fs: &mut MemFs, path: &str, from: &str, to: &str| {
            let text = fs.files[Path::new(path)].replace(from, to);
            fs.files.insert(path.into(), text);
        };
        edit(&mut fs, conf, "port=", "listen=");
        check(&fs, true, "a value in a templated file");
        edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "port: 80", "port: 8080");
        check(&fs, true, "a layer both formula files read, changing a value only");
        edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "mode: '0644'", "mode: '0600'");
        edit(&mut fs, conf, "listen=", "port=");
        check(&fs, true, "two files, values only");
        edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "pkg: nginx", "pkg: apache2");
        check(&fs, true, "a layer that changes a name no requisite names");
        edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "pkg: apache2", "pkg: ß-pkg");
        check(&fs, false, "a name a requisite names");
        edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "pkg: ß-pkg", "pkg: nginx");
        check(&fs, false, "a name a requisite named");
        edit(&mut fs, conf, "bogus: 1", "mode2: 1");
        check(&fs, false, "an argument renamed");
        edit(&mut fs, conf, "range(2)", "range(3)");
        check(&fs, false, "another state");
        edit(&mut fs, conf, "{pkg: ß-pkg}", "{pkg: ß-pkg}, {file: /etc/f0.conf}");
        check(&fs, false, "another requisite");
        edit(&mut fs, conf, "'port={{", "'{{ salt['cmd.run']('x') }} port={{");
        check(&fs, true, "a value and a render hint");
        edit(&mut fs, conf, "'{{ salt['cmd.run']('x') }} port={{", "'{{ salt['cmd.run']('y') }} port={{");
        check(&fs, true, "a value and its hint again");
        edit(&mut fs, conf, "{% endfor %}", "");
        edit(&mut fs, conf, "{%- endfor %}", "{%- endfor");
        check(&fs, false, "a render error");
        edit(&mut fs, conf, "'{{ mapdata.mode }}'", "'{{ (mapdata.mode }}'");
        check(&fs, true, "another render error in the same file");
        edit(&mut fs, conf, "'{{ (mapdata.mode }}'", "'{{ mapdata.mode }}'");
        check(&fs, true, "the first error again");
        edit(&mut fs, conf, "{%- endfor", "{%- endfor %}");
        check(&fs, false, "renders again");
        edit(&mut fs, "/ws/base/top.sls", "plain]", "plain ]");
        check(&fs, false, "the top file");
        edit(&mut fs, "/ws/base/f/init.sls", "{version: latest}", "{version: '1.0'}");
        check(&fs, true, "a value in the included file");
        edit(&mut fs, "/ws/base/plain.sls", "test.nop: [", "test.nop: [{use: [{pkg: ß-pkg}]}, ");
        check(&fs, false, "a state that copies arguments");
        edit(&mut fs, "/ws/base/f/init.sls", "{version: '1.0'}", "{version: '2.0'}");
        check(&fs, false, "while one does, values are compiled");
    }

    /// A generated tree of templated SLS files whose states take their names and values from
    /// a Jinja dict (and a shared import), so that most edits of a value change only argument
    /// values or names: some may be patched, some not; every result must be a compile's.
    fn generated_tree(seed: u64) -> (MemFs, Vec<(String, String)>) {
        let mut rng = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) | 1;
        let mut next = move |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let pool = ["/x", "/y", "a0", "b1", "p", "q", "s-1", "c2"];
        let funs = ["test.nop", "file.managed", "pkg.installed", "cmd.run", "user.present"];
        let mut fs =
            String::from("#- salt-analyzer.yaml\nfile_roots: {base: [base]}\nminions:\n  m: {grains: {os: x}}\n#- base/top.sls\nbase:\n  '*': [a, b, c]\n");
        fs.push_str(&format!("#- base/lib.jinja\n{{%- set shared = {{'n': '{}', 'c': '{}'}} %}}\n", pool[next(8)], pool[next(8)]));
        let mut values = Vec::new();
        // `c` is plain YAML in half the trees: its values are written in it, located in its
        // text, and an edit moves what follows.
        let plain_c = next(2) == 0;
        for f in ["a", "b", "c"] {
            let plain = plain_c && f == "c";
            let path = format!("/ws/base/{f}.sls");
            let states = 1 + next(4);
            let mut vars = Vec::new();
            let mut body = String::new();
            for k in 0..states {
                let id = format!("{f}{k}");
                vars.push(format!("'n{k}': '{}', 'c{k}': '{}'", pool[next(8)], pool[next(8)]));
                body.push_str(&format!("{id}:\n  {}:\n", funs[next(funs.len())]));
                if plain {
                    let name = match next(3) {
                        0 => format!("    # n{k}\n    - names: ['{}', '{}']\n", pool[next(8)], pool[next(8)]),
                        _ => format!("    # n{k}\n    - name: '{}'\n", pool[next(8)]),
                    };
                    values.push((path.clone(), name[..name.rfind('\'').and_then(|e| name[..e].rfind('\'')).map_or(0, |q| q + 1)].to_string()));
                    body.push_str(&name);
                    let contents = format!("    # c{k}\n    - contents: '{}'\n", pool[next(8)]);
                    values.push((path.clone(), format!("# c{k}\n    - contents: '")));
                    body.push_str(&contents);
                } else {
                    values.push((path.clone(), format!("'n{k}': '")));
                    values.push((path.clone(), format!("'c{k}': '")));
                    body.push_str(&match next(4) {
                        0 => "    - name: {{ shared.n }}\n".to_string(),
                        1 => format!("    - names: ['{{{{ v.n{k} }}}}', '{}']\n", pool[next(8)]),
                        _ => format!("    - name: '{{{{ v.n{k} }}}}'\n"),
                    });
                    body.push_str(&format!("    - contents: '{{{{ v.c{k} }}}} {{{{ shared.c }}}}'\n"));
                }
                if next(3) == 0 {
                    body.push_str(&format!("    - order: {}\n", next(3)));
                }
                for req in ["require", "watch", "require_in", "onchanges"] {
                    if next(4) == 0 {
                        let kind = ["file", "id", "id", "id", "test"][next(5)];
                        let target = if next(3) != 0 { format!("{}{}", ["a", "b", "c"][next(3)], next(2)) } else { pool[next(8)].to_string() };
                        body.push_str(&format!("    - {req}:\n      - {kind}: '{target}'\n"));
                    }
                }
                if next(30) == 0 {
                    body.push_str(&format!("    - use:\n      - id: {}0\n", ["a", "b", "c"][next(3)]));
                }
            }
            if next(15) == 0 {
                body.push_str("extend:\n  a0:\n    test.nop:\n      - contents: extended\n");
            }
            if plain {
                fs.push_str(&format!("#- base/{f}.sls\n{body}"));
            } else {
                fs.push_str(&format!("#- base/{f}.sls\n{{%- from 'lib.jinja' import shared %}}\n{{%- set v = {{{}}} %}}\n{body}", vars.join(", ")));
            }
        }
        values.push(("/ws/base/lib.jinja".into(), "'n': '".into()));
        values.push(("/ws/base/lib.jinja".into(), "'c': '".into()));
        (MemFs::from_fixture(&fs), values)
    }

    #[test]
    fn patched_compiles_match_fresh_ones_on_generated_trees() {
        // More with SALT_PATCH_SEEDS (3,000 were run once, in release).
        let seeds: u64 = std::env::var("SALT_PATCH_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
        let (mut patched, mut edits) = (0, 0);
        // The last value breaks the template for good: later edits of that file find it broken.
        let pool = ["/x", "/y", "a0", "b1", "p", "q", "s-1", "c2", "zz", "a1", "b' ~ ("];
        for seed in 0..seeds {
            let (mut fs, values) = generated_tree(seed);
            let (ws, roots) = setup(&fs);
            let memo = Memo::keeping_renders();
            let mut cache = MinionCache::default();
            let req = Request::new(Some("m"), Scope::Highstate);
            cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
            for e in 0..12u64 {
                let (path, key) = &values[((seed * 31 + e * 7) as usize) % values.len()];
                let text = fs.files[Path::new(path)].clone();
                let Some(at) = text.find(key.as_str()) else { continue };
                let start = at + key.len();
                let end = start + text[start..].find('\'').expect("a quoted value");
                let value = pool[((seed + e * 3) as usize) % pool.len()];
                fs.files.insert(path.into(), format!("{}{value}{}", &text[..start], &text[end..]));
                let before = cache.patches;
                let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
                let fresh = compile(Arc::new(fs.clone()), &ws, &roots, &req);
                assert_eq!(answer(&c), answer(&fresh), "seed {seed} edit {e}: {path} {key} = {value}\n{}", fs.files[Path::new(path)]);
                edits += 1;
                patched += cache.patches - before;
            }
        }
        // Most edits change a value or a name no requisite names: many are patched.
        assert!(patched * 4 > edits, "{patched} of {edits} edits patched");
        eprintln!("{patched} of {edits} edits patched");
    }

    #[test]
    fn an_edit_in_a_plain_file_moves_what_follows_it() {
        let mut fs = MemFs::from_fixture(
            "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  m: {grains: {os: ß}}
#- base/top.sls
base:
  '*': [plain, other]
#- base/plain.sls
ß-conf:
  file.managed:
    - name: /etc/ß.conf
    - contents: ℝ
    - require:
      - user: 💣
💣:
  user.present:
    - home: /home/💣
    - bogus: 1
#- base/other.sls
other:
  test.nop:
    - require_in:
      - user: 💣
",
        );
        let (ws, roots) = setup(&fs);
        let memo = Memo::keeping_renders();
        let mut cache = MinionCache::default();
        let req = Request::new(Some("m"), Scope::Highstate);
        let mut check = |fs: &MemFs, patched: bool, why: &str| {
            let (before, compiles) = (cache.patches, cache.compiles);
            let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
            assert_eq!((cache.patches - before, cache.compiles - compiles), if patched { (1, 0) } else { (0, 1) }, "{why}");
            assert_eq!(answer(&c), answer(&compile(Arc::new(fs.clone()), &ws, &roots, &req)), "{why}");
            c
        };
        let first = check(&fs, false, "the first compile");
        assert!(first.low.as_ref().is_some_and(|l| l.calls.iter().any(|e| e.message.contains("bogus"))), "the unknown argument is found");
        let path = "/ws/base/plain.sls";
        let edit = |fs: &mut MemFs, from: &str, to: &str| {
            let text = fs.files[Path::new(path)].replace(from, to);
            fs.files.insert(path.into(), text);
        };
        // Longer, shorter, a name: what follows (the requisite, the other state, the unknown
        // argument's place) moves.
        edit(&mut fs, "contents: ℝ", "contents: ℝℝℝ");
        check(&fs, true, "a longer value");
        edit(&mut fs, "/home/💣", "/h");
        check(&fs, true, "a shorter value after the requisite");
        edit(&mut fs, "/etc/ß.conf", "/etc/ß-2.conf");
        check(&fs, true, "a name");
        edit(&mut fs, "user: 💣", "user:  💣");
        check(&fs, false, "a requisite, even one that reads the same");
        edit(&mut fs, "contents: ℝℝℝ", "contents: 💣");
        check(&fs, false, "a value a requisite names");
    }

    #[test]
    fn a_compile_that_parses_ahead_gives_what_one_that_does_not_gives() {
        // `compile` parses plain files ahead on every core; a compile that keeps renders does
        // not (its memo does better).
        let fs = MemFs::from_fixture(
            "\
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
minions:
  m: {grains: {os: ß}}
#- base/top.sls
base:
  '*': ['app*', broken, tpl, ℝ]
#- base/app/init.sls
include: [.web, {dev: tools}, 'lib.*']
app: {test.nop: [{name: '💣'}]}
#- base/app/web.sls
include: [..lib.one]
web: {test.nop: [{require: [{test: one}]}]}
#- base/lib/one.sls
one: {test.nop: []}
#- base/lib/two.sls
two: {test.nop: []}
app: {test.nop: []}
#- base/broken.sls
x: [unclosed
#- base/tpl.sls
include: [lib.one]
tpl: {test.nop: [{name: '{{ grains.os }}'}]}
#- base/ℝ.sls
#!json
{\"ℝ\": {\"test.nop\": []}}
#- dev/tools.sls
tools: {test.nop: []}
",
        );
        let (ws, roots) = setup(&fs);
        let req = Request::new(Some("m"), Scope::Highstate);
        let ahead = compile(Arc::new(fs.clone()), &ws, &roots, &req);
        let walked = compile_with(Arc::new(fs.clone()), &ws, &roots, &req, &Memo::keeping_renders());
        assert_eq!(answer(&ahead), answer(&walked));
        let low = ahead.low.as_ref().expect("a highstate");
        assert!(low.show_errors.iter().any(|e| e.message.contains("broken")), "{:?}", low.show_errors);
        for id in ["app", "web", "one", "two", "tools", "tpl", "ℝ"] {
            assert!(low.highstate.high.contains(id), "{id}");
        }
    }

    #[test]
    fn the_cache_recompiles_only_when_something_read_changed() {
        let mut fs = MemFs::from_fixture(TREE);
        let (ws, roots) = setup(&fs);
        let mut cache = MinionCache::default();
        let req = Request::new(Some("web01"), Scope::Highstate);
        let get = |cache: &mut MinionCache, fs: &MemFs, roots: &Arc<FileRoots>| {
            let fs: Arc<dyn Vfs> = Arc::new(fs.clone());
            cache.get(&fs, &ws, roots, &req, &Memo::default())
        };
        get(&mut cache, &fs, &roots);
        assert_eq!(cache.compiles, 1);
        // Files web01's highstate never read: cached.
        fs.files.insert("/ws/base/db.sls".into(), "postgres: {pkg.removed: []}\n".into());
        fs.files.insert("/ws/base/unrelated.sls".into(), "y: test.nop\n".into());
        get(&mut cache, &fs, &roots);
        assert_eq!(cache.compiles, 1);
        // A created file no include or top entry can resolve to: cached.
        fs.files.insert("/ws/base/new/ß💣.sls".into(), "z: test.nop\n".into());
        let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.file_roots));
        get(&mut cache, &fs, &roots);
        assert_eq!(cache.compiles, 1);
        // The imported library changed: recompiled, with the new value.
        fs.files.insert("/ws/base/lib.jinja".into(), "{% set port = 8080 %}\n".into());
        let c = get(&mut cache, &fs, &roots);
        assert_eq!(cache.compiles, 2);
        assert!(c.low.as_ref().and_then(|l| l.chunks.as_ref()).is_some_and(|ch| ch.iter().any(|c| format!("{:?}", c.d).contains("8080"))));
        // A file that shadows a resolved SLS (`web.sls` by nothing, `web/init.sls` loses to
        // `web.sls`): a created `web/init.sls` changes nothing, a deleted `web.sls` does.
        fs.files.insert("/ws/base/web/init.sls".into(), "other: test.nop\n".into());
        let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.file_roots));
        get(&mut cache, &fs, &roots);
        assert_eq!(cache.compiles, 2);
        fs.files.remove(Path::new("/ws/base/web.sls"));
        let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.file_roots));
        let c = get(&mut cache, &fs, &roots);
        assert_eq!(cache.compiles, 3);
        assert_eq!(ids(&c), ["other"]);
        // Another minion is another result.
        get(&mut cache, &fs, &roots);
        let fs2: Arc<dyn Vfs> = Arc::new(fs.clone());
        cache.get(&fs2, &ws, &roots, &Request::new(Some("db01"), Scope::Highstate), &Memo::default());
        assert_eq!(cache.compiles, 4);
    }

    #[test]
    fn the_pillar_comes_from_pillar_roots_and_its_files_are_reads() {
        let tree = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\npillar_roots: {base: [pillar]}\nminions: {web01: {grains: {role: web}}}\n\
                    #- base/top.sls\nbase: {'*': [web]}\n#- base/web.sls\nsite: {test.nop: [{name: p{{ pillar['port'] }}}]}\n\
                    #- pillar/top.sls\nbase: {'G@role:web': [app]}\n#- pillar/app.sls\nport: 80\n#- pillar/other.sls\nport: 1\n";
        let mut fs = MemFs::from_fixture(tree);
        let (ws, roots) = setup(&fs);
        let mut cache = MinionCache::default();
        let req = Request::new(Some("web01"), Scope::Highstate);
        let arc = |fs: &MemFs| -> Arc<dyn Vfs> { Arc::new(fs.clone()) };
        let name = |c: &Compiled| c.low.as_ref().and_then(|l| l.chunks.as_ref()).map(|ch| ch[0].get_str("name").to_string());
        assert_eq!(name(&cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default())).as_deref(), Some("p80"));
        // A pillar file the top never assigns: cached.
        fs.files.insert("/ws/pillar/other.sls".into(), "port: 2\n".into());
        cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
        assert_eq!(cache.compiles, 1);
        // The assigned one changed: recompiled, and the state sees the new value.
        fs.files.insert("/ws/pillar/app.sls".into(), "port: 8080\n".into());
        assert_eq!(name(&cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default())).as_deref(), Some("p8080"));
        assert_eq!(cache.compiles, 2);
        // A created pillar file counts (the pillar roots' listing is a read).
        fs.files.insert("/ws/pillar/new.sls".into(), "x: 1\n".into());
        cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
        assert_eq!(cache.compiles, 3);
    }

    #[test]
    fn a_profile_that_cannot_be_read_is_an_answer_that_depends_on_its_file() {
        let mut fs = MemFs::from_fixture("#- salt-analyzer.yaml\nminions: {web01: {grains_file: g.json}}\n#- top.sls\nbase: {'*': [a]}\n");
        let (ws, roots) = setup(&fs);
        let mut cache = MinionCache::default();
        let req = Request::new(Some("web01"), Scope::Top);
        let arc = |fs: &MemFs| -> Arc<dyn Vfs> { Arc::new(fs.clone()) };
        assert!(cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default()).minion.is_err());
        fs.files.insert("/ws/g.json".into(), "{\"os\": \"Debian\"}".into());
        let c = cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
        assert_eq!(c.minion.as_ref().map(|m| m.grains["os"].clone()).ok(), Some("Debian".into()));
        assert_eq!(cache.compiles, 2);
    }

    #[test]
    fn mapdata_layers_values_and_who_set_them() {
        // Salt 3008.4 + saltext-formula 0.3.0, `salt["map.data"]("tpl")` for this minion:
        // {"pkg": "nginx", "l": [1, 2], "conf": {"a": 1, "b": 2}, "map_jinja": {...}}.
        let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01: {grains: {os_family: Debian, os: Debian, roles: [web]}}
#- srv/tpl/parameters/defaults.yaml
values:
  pkg: apache2
  l: [1]
  conf: {a: 1}
#- srv/tpl/parameters/os_family/Debian.yaml
merge_lists: true
values:
  pkg: nginx
  l: [2]
#- srv/parameters/map_jinja.yaml
merge_lists: true
values:
  sources: [Y!G@roles]
#- srv/tpl/parameters/roles/web.yaml.jinja
values: {conf: {b: {{ 1 + 1 }}}}
";
        let fs = MemFs::from_fixture(tree);
        let (ws, roots) = setup(&fs);
        let req = Request::new(Some("web01"), Scope::MapData { tpldir: "tpl".into() });
        let c = compile(Arc::new(fs.clone()), &ws, &roots, &req);
        let data = c.mapdata.as_ref().expect("mapdata");
        let values = data.values.as_ref().expect("values");
        expect_test::expect![[r#"{"pkg":"nginx","l":[1,2],"conf":{"a":1,"b":2},"map_jinja":{"sources":["Y!P@defaults.yaml","Y!G@osarch","Y!G@os_family","Y!G@os","Y!G@osfinger","C@tpl","Y!G@id","Y!G@roles"],"parameter_dirs":["tpl/parameters"],"config_get_strategy":null,"default_merge_strategy":null,"default_merge_lists":false,"post_map":"post-map.jinja","post_map_template":"jinja","cache":true}}"#]]
            .assert_eq(&values.to_string());
        let origins = data.origins.as_ref().expect("origins");
        let who = |path: &[&str]| {
            let o = &origins.at_path(path).expect("origin").origin;
            let layer = &data.layers[o.layer];
            let line = o.at.as_ref().map(|at| c.files.human(at.file, at.span.start).0);
            format!(
                "{} {} line {:?} over {:?}",
                layer.source,
                layer.path.as_deref().unwrap_or("-"),
                line,
                o.overrode.iter().map(|i| data.layers[*i].path.clone().unwrap_or_default()).collect::<Vec<_>>()
            )
        };
        expect_test::expect![[r#"
            Y!G@os_family tpl/parameters/os_family/Debian.yaml line Some(3) over ["tpl/parameters/defaults.yaml"]
            Y!G@os_family tpl/parameters/os_family/Debian.yaml line Some(4) over ["tpl/parameters/defaults.yaml"]
            Y!P@defaults.yaml tpl/parameters/defaults.yaml line Some(4) over []
            Y!G@roles tpl/parameters/roles/web.yaml.jinja line None over []
            map_jinja.yaml parameters/map_jinja.yaml line Some(3) over [""]"#]]
        .assert_eq(&[who(&["pkg"]), who(&["l"]), who(&["conf", "a"]), who(&["conf", "b"]), who(&["map_jinja", "sources"])].join("\n"));
        // The layer files are among the reads: changing one invalidates the cached result.
        let read: Vec<PathBuf> = c.reads.paths().map(Path::to_path_buf).collect();
        assert!(read.contains(&PathBuf::from("/ws/srv/tpl/parameters/os_family/Debian.yaml")), "{read:?}");
        let mut cache = MinionCache::default();
        let arc = |fs: &MemFs| -> Arc<dyn Vfs> { Arc::new(fs.clone()) };
        cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
        let mut fs2 = fs.clone();
        fs2.files.insert("/ws/srv/tpl/parameters/defaults.yaml".into(), "values: {pkg: x, other: 1}\n".into());
        let c2 = cache.get(&arc(&fs2), &ws, &roots, &req, &Memo::default());
        assert_eq!(cache.compiles, 2);
        assert_eq!(c2.mapdata.as_ref().and_then(|d| d.values.as_ref().ok()).map(|v| v["other"].clone()), Some(serde_json::json!(1)));
    }

    #[test]
    fn mapdata_of_a_template_formula_follows_libmapstack() {
        // Salt 3008.4 rendering `{% from tplroot ~ "/map.jinja" import mapdata with context %}`
        // (tests/conformance/mapstack/jinja's libraries, which the stubs stand for) gave:
        // {"a":2,"dns":"literal","l":[2,3],"pkg":{"name":"custom"},"tpl":{"pkg":{"name":"custom"}},
        //  "web":true,"z":1,"map_jinja":{"sources":[...]}}. `merge_lists: 'false'` is false
        // (to_bool), `tpl:merge_lists` the default, an empty file skipped, extra keys ignored,
        // the `!` delimiter ignored for grains (a literal file instead), keys sorted.
        let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01:
    grains: {os_family: Debian, os: Debian, roles: [web], dns: {domain: x.net}}
    pillar: {tpl: {lookup: {pkg: {name: custom}}, merge_lists: true, strategy: recurse}}
#- srv/tpl/map.jinja
{#- imports mapstack from libmapstack.jinja #}
#- srv/tpl/libmapstack.jinja
{#- the macro #}
#- srv/tpl/parameters/defaults.yaml
values:
  pkg: {name: tpl}
  l: [1]
  z: 1
  a: 2
#- srv/tpl/parameters/os_family/Debian.yaml
merge_lists: 'false'
values:
  l: [2]
#- srv/tpl/parameters/os/Debian.yaml
#- srv/parameters/map_jinja.yaml
values:
  sources: [Y:G@os_family, Y:G@os, C@tpl:lookup, C:SUB@tpl:lookup, Y:G@roles, Y:G:!@dns!domain]
#- srv/tpl/parameters/roles/web.yaml
ignored: 1
values: {web: true, l: [3]}
#- srv/tpl/parameters/dns!domain.yaml
values: {dns: literal}
";
        let fs = MemFs::from_fixture(tree);
        let (ws, roots) = setup(&fs);
        let c = compile(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some("web01"), Scope::MapData { tpldir: "tpl".into() }));
        let data = c.mapdata.as_ref().expect("mapdata");
        assert_eq!(data.implementation, crate::mapstack::Implementation::Jinja);
        expect_test::expect![[r#"{"a":2,"dns":"literal","l":[2,3],"pkg":{"name":"custom"},"tpl":{"pkg":{"name":"custom"}},"web":true,"z":1,"map_jinja":{"sources":["Y:G@os_family","Y:G@os","C@tpl:lookup","C:SUB@tpl:lookup","Y:G@roles","Y:G:!@dns!domain"]}}"#]]
            .assert_eq(&data.values.as_ref().expect("values").to_string());
        let layers: Vec<String> = data.layers.iter().map(|l| format!("{} {} {}", l.source, l.path.as_deref().unwrap_or("-"), l.status.as_str())).collect();
        assert!(layers.contains(&"Y:G@os tpl/parameters/os/Debian.yaml empty".to_string()), "{layers:?}");
        // A map.jinja that calls map.data is saltext-formula's, libmapstack.jinja or not.
        let mut fs2 = fs.clone();
        fs2.files.insert("/ws/srv/tpl/map.jinja".into(), "{%- set mapdata = salt['map.data'](tpldir) %}\n".into());
        let c2 = compile(Arc::new(fs2), &ws, &roots, &Request::new(Some("web01"), Scope::MapData { tpldir: "tpl".into() }));
        assert_eq!(c2.mapdata.as_ref().map(|d| d.implementation), Some(crate::mapstack::Implementation::Saltext));
    }

    /// A `map.jinja` built the older way: what the formula's `_mapdata` state dumps (Salt 3008,
    /// `state.show_sls ngx._mapdata` on this tree for `web01`: the `context.map` below), what
    /// `map.jinja` exports when there is no such state, and "no map to show" without a map.
    #[test]
    fn mapdata_of_an_older_map_jinja() {
        let tree = r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01:
    grains: {os_family: Debian, os: Debian}
    pillar: {ngx: {lookup: {service: custom}, extra: [1]}}
#- srv/ngx/defaults.yaml
ngx:
  port: 80
  lookup: {package: nginx}
#- srv/ngx/osfamilymap.yaml
Debian:
  lookup: {service: nginx, user: www-data}
RedHat:
  lookup: {service: nginx, user: nginx}
#- srv/ngx/map.jinja
{% import_yaml "ngx/defaults.yaml" as defaults %}
{% import_yaml "ngx/osfamilymap.yaml" as osfamilymap %}
{% set osfamily = salt['grains.filter_by'](osfamilymap, grain='os_family') or {} %}
{% do defaults.ngx.update(salt['defaults.merge'](defaults.ngx, osfamily, in_place=False)) %}
{% set ngx = salt['pillar.get']('ngx', default=defaults.ngx, merge=True) %}
#- srv/ngx/_mapdata/init.sls
{%- set tplroot = tpldir.split("/")[0] %}
{%- from tplroot ~ "/map.jinja" import ngx with context %}
{%- set _mapdata = {"values": ngx} %}
{{ tplroot }}-mapdata-dump:
  file.managed:
    - name: /tmp/salt_mapdata_dump.yaml
    - source: salt://{{ tplroot }}/_mapdata/_mapdata.jinja
    - template: jinja
    - context:
        map: {{ _mapdata | yaml }}
#- srv/other/init.sls
x: test.nop
"#;
        let fs = MemFs::from_fixture(tree);
        let mapdata = |fs: &MemFs, tpldir: &str| {
            let (ws, roots) = setup(fs);
            let c = compile(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some("web01"), Scope::MapData { tpldir: tpldir.into() }));
            let d = c.mapdata.expect("mapdata");
            let layers: Vec<String> = d.layers.iter().map(|l| format!("{} {}", l.source, l.path.as_deref().unwrap_or("-"))).collect();
            let values = match &d.values {
                Ok(v) => v.to_string(),
                Err(e) => format!("error: {}", e.message),
            };
            format!("{} {layers:?} {values}", d.implementation.as_str())
        };
        expect_test::expect![[r#"map.jinja ["_mapdata ngx/_mapdata/init.sls"] {"values":{"extra":[1],"lookup":{"package":"nginx","service":"custom","user":"www-data"},"port":80}}"#]]
            .assert_eq(&mapdata(&fs, "ngx"));
        let mut no_state = fs.clone();
        no_state.files.remove(std::path::Path::new("/ws/srv/ngx/_mapdata/init.sls"));
        expect_test::expect![[
            r#"map.jinja ["map.jinja ngx/map.jinja"] {"extra":[1],"lookup":{"package":"nginx","service":"custom","user":"www-data"},"port":80}"#
        ]]
        .assert_eq(&mapdata(&no_state, "ngx"));
        expect_test::expect![[r#"none [] error: no map to show: `other` has no `map.jinja`, no `_mapdata` state and no `parameters/`"#]]
            .assert_eq(&mapdata(&fs, "other"));
    }

    #[test]
    fn map_data_in_a_template_reads_its_layers_through_the_compile() {
        let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01: {grains: {os_family: Debian}}
#- srv/tpl/parameters/defaults.yaml
values: {port: 80}
#- srv/tpl/parameters/os_family/Debian.yaml
values: {port: 8080}
#- srv/tpl/init.sls
{%- set m = salt['map.data'](tpldir) %}
port: {{ m.port }}
again: {{ salt['map.data'](tpldir).port }}
";
        let fs = MemFs::from_fixture(tree);
        let (ws, roots) = setup(&fs);
        let req = Request::new(Some("web01"), Scope::Render { path: "/ws/srv/tpl/init.sls".into(), probe: None });
        let c = compile(Arc::new(fs.clone()), &ws, &roots, &req);
        let r = c.rendered.as_ref().expect("rendered");
        assert_eq!(r.data.as_ref().expect("data").to_json(), serde_json::json!({"port": 8080, "again": 8080}));
        assert!(r.hints.is_empty(), "{:?}", r.hints);
        let read: Vec<PathBuf> = c.reads.paths().map(Path::to_path_buf).collect();
        assert!(read.contains(&PathBuf::from("/ws/srv/tpl/parameters/os_family/Debian.yaml")), "{read:?}");
    }

    #[test]
    fn match_filter_by_in_a_template_asks_this_minions_matchers() {
        // Salt 3008.4 printed MATCHED for this template rendered by salt.utils.templates.JINJA
        // with minion_mods over minion_config(None) (file_client local, id m1) and these grains
        // and pillar (see render/functions.rs tests).
        const TEMPLATE: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ salt['match.filter_by']({'m1': 'me', '*': 'all'}) }}
2 {{ salt['match.filter_by']({'web*': 'web', '*': 'all'}) }}
3 {{ salt['match.filter_by']({'G@os:Debian': 'deb', 'G@os:CentOS and m*': 'centos'}) }}
4 {{ salt['match.filter_by']({'os:CentOS': 'grain'}, tgt_type='grain') }}
5 {{ salt['match.filter_by']({'m1': 'me', 'other': 'other'}, minion_id='other') }}
6 {{ salt['match.filter_by']({'x': 1, 'default': 'dflt'}) }} {{ J('json', salt['match.filter_by']({'x': 1})) }}
7 {{ J('json', salt['match.filter_by']({'m1': {'a': 1, 'l': [1]}}, merge={'l': [2]}, merge_lists=True)) }}
8 {{ J('json', salt['match.filter_by']({'m1': None}, merge={'b': 1})) }}
9 {{ salt['match.filter_by']({'m1': 'L'}, tgt_type='list_') }} {{ salt['match.filter_by']({'m.*': 'P'}, 'pcre') }} {{ salt['match.filter_by']({'nginx:port:8080': 'I'}, 'pillar') }}
10 {{ salt['match.filter_by']({'m1': 'x', 'default': 'y'}, tgt_type='glob', default='nope') }} {{ J('json', salt['match.filter_by']({'q': 'x'}, default='nope')) }}
"#;
        const MATCHED: &str = r#"1 me
2 all
3 centos
4 grain
5 other
6 dflt null
7 {"a": 1, "l": [1, 2]}
8 {"b": 1}
9 L P I
10 x null
"#;
        let tree = format!(
            "#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\nminions:\n  m1: {}\n#- base/t.sls\n{TEMPLATE}",
            r#"{"grains": {"os_family": "RedHat", "os": "CentOS", "osmajorrelease": 7, "osfinger": "CentOS-7", "roles": ["db", "web"], "ip_interfaces": {"eth0": ["10.0.0.5"]}, "num_cpus": 4, "selinux": {"enabled": true}, "id": "m1", "empty": "", "zero": 0, "flag": false, "nested": {"list": [{"name": "a"}, {"name": "b"}]}, "shared": "fromgrains", "gonly": {"g": 1}}, "pillar": {"nginx": {"port": 8080, "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]}, "users": ["alice", "bob"], "master": {"mkey": "mv", "shared": "frommaster", "mdict": {"m": 1}}, "shared": "frompillar", "pdict": {"p": 1, "both": "pillar"}, "gonly": {"p": 2}, "word": "text", "numkey": {"1": "one"}}}"#
        );
        let fs = MemFs::from_fixture(&tree);
        let (ws, roots) = setup(&fs);
        let c = compile(Arc::new(fs), &ws, &roots, &Request::new(Some("m1"), Scope::Render { path: "/ws/base/t.sls".into(), probe: None }));
        let text = c.rendered.map(|r| r.text);
        assert_eq!(text.as_ref().map(|t| t.as_ref().map(|t| t.as_deref())), Some(Ok(Some(MATCHED))), "{text:?}");
    }
}
