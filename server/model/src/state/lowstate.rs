//! The state compiler pipelines end to end: `state.show_low_sls` (render, verify, compile,
//! order) and what `state.apply` adds before it runs anything (extend, `_in`, exclude).

use crate::diagnostic::SaltError;
use crate::render::context::JinjaSetup;
use crate::state::calls::call_errors;
use crate::state::catalog::workspace_catalog;
use crate::state::chunk::Chunk;
use crate::state::compile::compile_high_data;
use crate::state::extend::{apply_exclude, reconcile_extend, requisite_in};
use crate::state::highstate::{Builder, HighState};
use crate::state::order::{order_chunks, order_chunks_as, ordering_errors};
use crate::state::verify::verify_high;
use crate::targeting::Matches;
use crate::version::SaltVersion;
use crate::workspace::config::Opts;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// What compiling a set of SLS gives.
#[derive(Clone)]
pub struct LowState {
    /// `state.show_low_sls`'s answer when it has no errors.
    pub chunks: Option<Vec<Chunk>>,
    /// The errors `state.show_low_sls` returns.
    pub show_errors: Vec<SaltError>,
    /// The errors `state.apply` would stop on before running a state (empty when the
    /// show pipeline already failed, since apply stops at the same render errors).
    pub apply_errors: Vec<SaltError>,
    /// What `State.call` would find wrong with each call once the states run (an unknown
    /// function, a missing or unknown argument, a deprecated function): never part of
    /// [`LowState::errors`], since Salt compiles these states fine.
    pub calls: Vec<SaltError>,
    pub highstate: HighState,
    /// The Salt release the chunks were compiled and ordered for.
    pub version: SaltVersion,
}

impl LowState {
    /// The errors Salt would answer with: `show_low_sls`'s own when it has any, else what
    /// `state.apply` stops on. Repeats (the same error found by both) are dropped.
    pub fn errors(&self) -> Vec<&SaltError> {
        pick_errors(&self.show_errors, &self.apply_errors)
    }
    /// `state.show_low_sls`'s own errors: it renders, verifies and compiles, and applies no
    /// `extend`, `_in` or `exclude`, so their problems are not among them.
    pub fn show_low_sls_errors(&self) -> Vec<&SaltError> {
        pick_errors(&self.show_errors, &[])
    }
    /// What `state.sls` would stop on that `state.show_low_sls` does not say (`Cannot extend
    /// ID`, an `_in` naming no state, a requisite an `exclude` took away).
    pub fn apply_only_errors(&self) -> Vec<&SaltError> {
        if self.show_errors.is_empty() {
            pick_errors(&[], &self.apply_errors)
        } else {
            Vec::new()
        }
    }
    pub fn chunks_json(&self) -> serde_json::Value {
        serde_json::Value::Array(self.chunks.iter().flatten().map(|c| c.d.to_json()).collect())
    }
}

/// [`LowState::errors`] of a show and an apply error list.
pub(crate) fn pick_errors<'e>(show: &'e [SaltError], apply: &'e [SaltError]) -> Vec<&'e SaltError> {
    let list = if show.is_empty() { apply } else { show };
    let mut out: Vec<&SaltError> = Vec::new();
    for e in list {
        if !out.iter().any(|o| o.code == e.code && o.message == e.message && o.id == e.id) {
            out.push(e);
        }
    }
    out
}

/// Compile `matches` (`{saltenv: [sls...]}`) as `state.show_low_sls` and `state.apply` would.
pub fn compile(fs: &dyn Vfs, opts: &Opts, roots: &FileRoots, files: &mut FileTable, matches: &Matches, jinja: Option<&JinjaSetup>) -> LowState {
    let mut builder = Builder::new(fs, roots, opts, files);
    builder.jinja = jinja.cloned();
    run(builder, matches)
}

fn run(builder: Builder<'_>, matches: &Matches) -> LowState {
    let (fs, roots, opts) = (builder.fs, builder.roots, builder.opts);
    let version = opts.version;
    let highstate = builder.render_highstate(matches);
    let mut show_errors = highstate.errors.clone();
    if !show_errors.is_empty() {
        // `show_low_sls` verifies what did render before it returns the render errors;
        // `state.sls` stops at them.
        show_errors.extend(verify_high(&highstate.high, version));
        return LowState { chunks: None, show_errors, apply_errors: Vec::new(), calls: Vec::new(), highstate, version };
    }
    show_errors.extend(verify_high(&highstate.high, version));
    let mut chunks = None;
    if show_errors.is_empty() {
        let ordered = order_chunks_as(compile_high_data(&highstate.high), version);
        if ordered.errors.is_empty() {
            chunks = Some(ordered.chunks);
        } else {
            show_errors.extend(ordered.errors);
        }
    }
    // `State.call_high` up to the point where states would run; the calls are judged on
    // the chunks it would run, when it would run them.
    let (apply_errors, calls) = match apply_high(&highstate.high, version) {
        Ok(applied_high) => {
            let applied = compile_high_data(&applied_high);
            let mut calls = call_errors(&highstate.high, &applied, &workspace_catalog(fs, roots, opts), &|_| false);
            crate::state::calls::weigh_by_release(&mut calls, &opts.version_source);
            let errors = if version.requisite_graph() {
                order_chunks(applied).errors
            } else {
                calls.extend(run_time_requisite_errors(version, &applied_high));
                Vec::new()
            };
            let calls = if show_errors.is_empty() && errors.is_empty() { calls } else { Vec::new() };
            (errors, calls)
        }
        Err(errors) => (errors, Vec::new()),
    };
    LowState { chunks, show_errors, apply_errors, calls, highstate, version }
}

/// The static pipeline's show and apply errors for rendered high data whose
/// [`ordering_errors`] are `ordering` (computed by the caller, which may have kept them from
/// an earlier compile), and whether [`apply_chunks`] gets through (without `extend`: no
/// `verify_high` error, no `_in` error).
pub(crate) fn static_errors(highstate: &HighState, ordering: &[SaltError], version: SaltVersion) -> (Vec<SaltError>, Vec<SaltError>, bool) {
    // A checker keeps going past render and shape errors to find requisite problems too;
    // a target that exists but was malformed is not reported missing.
    let mut show_errors = highstate.errors.clone();
    let verify = verify_high(&highstate.high, version);
    let mut applies = verify.is_empty();
    show_errors.extend(verify);
    let high = &highstate.high;
    show_errors.extend(
        ordering
            .iter()
            .filter(|e| {
                e.code != crate::diagnostic::Code::MissingRequisiteTarget
                    || e.target.as_deref().is_some_and(|t| !high.contains(t) && !crate::py::fnmatch::has_magic(t))
            })
            .cloned(),
    );
    let mut apply_errors = apply_pipeline(&highstate.high, version);
    applies &= apply_errors.is_empty();
    apply_errors.retain(|e| !show_errors.contains(e));
    (show_errors, apply_errors, applies)
}

/// The checker's part of `State.call_high` before states run: only extend/`_in` problems
/// are looked for and returned, and it keeps going past them (it gets shape and ordering
/// problems from the show pipeline).
fn apply_pipeline(high: &crate::value::Dict, version: SaltVersion) -> Vec<SaltError> {
    if !has_extend_or_requisite_in(high, version) {
        // Without `extend` and `_in` requisites, extending and `requisite_in` find nothing.
        return Vec::new();
    }
    let mut high = high.clone();
    let mut errors = reconcile_extend(&mut high, false);
    errors.extend(requisite_in(&mut high, version));
    errors
}

/// The unordered chunks `State.call_high` would order before running them (after extend,
/// `verify_high`, `_in` and `use`, exclude), or the errors it stops on first.
pub(crate) fn apply_chunks(high: &crate::value::Dict, version: SaltVersion) -> Result<Vec<Chunk>, Vec<SaltError>> {
    apply_high(high, version).map(|high| compile_high_data(&high))
}

/// The high data [`apply_chunks`] compiles, or the errors `State.call_high` stops on first.
fn apply_high(high: &crate::value::Dict, version: SaltVersion) -> Result<crate::value::Dict, Vec<SaltError>> {
    let mut high = high.clone();
    let mut errors = reconcile_extend(&mut high, false);
    errors.extend(verify_high(&high, version));
    if !errors.is_empty() {
        return Err(errors);
    }
    errors.extend(requisite_in(&mut high, version));
    apply_exclude(&mut high);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(high)
}

/// What Salt 3006 and 3007 find wrong with the requisites of `high` (extended, `_in`
/// applied) only once the states run: a requisite naming no state fails that state ("The
/// following requisites were not found"), a cycle fails its members ("Recursive requisite
/// found"); the other states run. Salt 3008 refuses both before running anything, so they
/// are among its compile errors instead, and this is empty.
pub(crate) fn run_time_requisite_errors(version: SaltVersion, high: &crate::value::Dict) -> Vec<SaltError> {
    if version.requisite_graph() {
        return Vec::new();
    }
    ordering_errors(high)
}

/// Whether `high` has an `extend` or a state argument that is an `_in` requisite (or `use`).
pub(crate) fn has_extend_or_requisite_in(high: &crate::value::Dict, version: SaltVersion) -> bool {
    high.contains("__extend__") || crate::state::extend::has_requisite_in(high) || (!version.requisite_graph() && crate::state::extend::has_prereq(high))
}
