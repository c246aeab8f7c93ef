//! `lowstate`: the ordered low chunks, as `state.show_lowstate` / `state.show_low_sls` print them.

use std::process::ExitCode;

use serde_json::json;

use super::low::{apply_stops, compile_low, low_errors, low_json, low_scope};
use super::minions::{fleet_run, Answer};
use super::options::{Common, Format};
use super::output::{error_json, error_text, leave_to_exit, print_error_text};
use crate::out::{errln, outln};

pub(super) fn lowstate(sls: &[String], saltenv: Option<&str>, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        let env = if sls.is_empty() { saltenv } else { None };
        return fleet_run(
            common,
            |ws| low_scope(ws, sls, saltenv),
            env,
            true,
            |compiled| {
                let (Some(low), files) = (&compiled.low, &compiled.files) else { return Answer { failed: true, ..Answer::default() } };
                let mut errors = low_errors(compiled, low, !sls.is_empty());
                let stops = apply_stops(compiled, low, !sls.is_empty());
                let json = low_json(low, &errors, files);
                errors.extend(stops);
                let mut seen = std::collections::HashSet::new();
                let sls = low.chunks.iter().flatten().map(|c| (c.get_str("__env__"), c.get_str("__sls__"))).filter(|k| seen.insert(k.clone())).collect();
                let texts = errors.iter().map(|e| error_text(e, files)).collect();
                Answer { json, sls, errors: texts, failed: !errors.is_empty(), ..Answer::default() }
            },
        );
    }
    let compiled = match compile_low(sls, saltenv, common) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Some(low), files) = (&compiled.low, &compiled.files) else { return ExitCode::from(2) };
    let errors = low_errors(&compiled, low, !sls.is_empty());
    let stops = apply_stops(&compiled, low, !sls.is_empty());
    if common.format == Format::Json {
        outln!("{}", serde_json::to_string_pretty(&low_json(low, &errors, files)).unwrap_or_default());
        if !stops.is_empty() {
            let apply: Vec<_> = stops.iter().flat_map(|e| error_json(e, files)).collect();
            errln!("{}", serde_json::to_string_pretty(&json!({ "apply_errors": apply })).unwrap_or_default());
        }
    } else if errors.is_empty() {
        for c in low.chunks.iter().flatten() {
            outln!(
                "{:>10}  {}.{}  {} ({}:{})",
                c.get_str("order"),
                c.get_str("state"),
                c.get_str("fun"),
                c.get_str("__id__"),
                c.get_str("__env__"),
                c.get_str("__sls__")
            );
        }
    } else {
        for e in &errors {
            print_error_text(e, files);
        }
    }
    if !stops.is_empty() && common.format != Format::Json {
        errln!("state.sls would stop before running a state (state.show_low_sls applies no extend, _in or exclude):");
        for e in &stops {
            errln!("{}", error_text(e, files));
        }
    }
    let code = if errors.is_empty() && stops.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    drop((errors, stops));
    leave_to_exit(compiled);
    code
}
