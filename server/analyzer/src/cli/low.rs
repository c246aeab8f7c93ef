//! What `lowstate` and `plan` compile (the highstate, or named SLS in a saltenv) and the
//! errors that stop them.

use std::process::ExitCode;

use model::diagnostic::SaltError;
use model::pipeline::{Compiled, Scope};
use model::workspace::vfs::FileTable;
use model::workspace::Workspace;
use serde_json::json;

use super::minions::compile;
use super::options::{load_workspace, Common};
use super::output::error_json;

/// The minion's highstate, or with `sls` those SLS in `saltenv` (default: the options', else
/// base).
pub(super) fn compile_low(sls: &[String], saltenv: Option<&str>, common: &Common) -> Result<Compiled, ExitCode> {
    let ws = load_workspace(common)?;
    let env = if sls.is_empty() { saltenv } else { None };
    compile(&ws, common, env, low_scope(&ws, sls, saltenv))
}

/// The scope of `lowstate` and `plan`: the highstate, or the SLS `sls` in `saltenv` (default:
/// the options', else base).
pub(super) fn low_scope(ws: &Workspace, sls: &[String], saltenv: Option<&str>) -> Scope {
    if sls.is_empty() {
        Scope::Highstate
    } else {
        let env = saltenv.map(str::to_string).or(ws.opts.saltenv.clone()).unwrap_or_else(|| "base".into());
        Scope::Sls { saltenv: env, names: sls.to_vec() }
    }
}

/// What `lowstate` reports as errors: Salt refuses to compile states over a pillar with
/// `_errors`, else the low state's.
/// The errors `lowstate` answers with: the pillar's, else `state.show_lowstate`'s (which
/// applies extend, `_in` and exclude) for the highstate, or `state.show_low_sls`'s (which
/// applies none of them) for named SLS.
pub(super) fn low_errors<'a>(compiled: &'a Compiled, low: &'a model::state::lowstate::LowState, sls: bool) -> Vec<&'a SaltError> {
    let pillar_errors = compiled.pillar.as_ref().map(|p| p.salt_errors()).unwrap_or_default();
    if !pillar_errors.is_empty() {
        pillar_errors
    } else if sls {
        low.show_low_sls_errors()
    } else {
        low.errors()
    }
}

/// What `state.sls` of named SLS would stop on while `state.show_low_sls` shows its chunks:
/// said on stderr, and the exit code is 1, so stdout stays Salt's own answer.
pub(super) fn apply_stops<'a>(compiled: &'a Compiled, low: &'a model::state::lowstate::LowState, sls: bool) -> Vec<&'a SaltError> {
    let pillar_ok = compiled.pillar.as_ref().is_none_or(|p| p.salt_errors().is_empty());
    if sls && pillar_ok {
        low.apply_only_errors()
    } else {
        Vec::new()
    }
}

/// What `lowstate --format json` prints: the chunks, or the errors.
pub(super) fn low_json(low: &model::state::lowstate::LowState, errors: &[&SaltError], files: &FileTable) -> serde_json::Value {
    if errors.is_empty() {
        low.chunks_json()
    } else {
        json!({"errors": errors.iter().flat_map(|e| error_json(e, files)).collect::<Vec<_>>()})
    }
}
