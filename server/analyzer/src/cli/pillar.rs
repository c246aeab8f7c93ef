//! `pillar`: the minion's pillar as `salt-call --local pillar.items` prints it; `--explain`
//! says which SLS set each value.

use std::process::ExitCode;

use model::pipeline::Scope;
use serde_json::json;

use super::minions::load_and_compile;
use super::minions::{fleet_run, Answer};
use super::options::{Common, Format};
use super::output::{error_json, error_text, print_error_text, rel};
use crate::out::{errln, outln};

/// The pillar as `pillar`'s text prints it, without notes.
pub(super) fn pillar_lines(pillar: &serde_json::Value) -> String {
    let mut lines = Vec::new();
    model::mapstack::report::value_lines(pillar, 1, &mut Vec::new(), &mut lines);
    lines.into_iter().map(|(l, _)| l + "\n").collect()
}

pub(super) fn pillar(explain: bool, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        if explain {
            errln!("salt-analyzer: error: --explain explains one minion's pillar; give --minion ID");
            return ExitCode::from(2);
        }
        return fleet_run(
            common,
            |_| Scope::Pillar,
            None,
            false,
            |compiled| {
                let (Ok(minion), Some(computed), files) = (&compiled.minion, &compiled.pillar, &compiled.files) else {
                    return Answer { failed: true, ..Answer::default() };
                };
                Answer {
                    json: minion.pillar.clone(),
                    text: pillar_lines(&minion.pillar),
                    errors: computed.errors.iter().map(|e| error_text(&e.diag, files)).collect(),
                    failed: computed.errors.iter().any(|e| e.salt.is_some()),
                    ..Answer::default()
                }
            },
        );
    }
    let compiled = match load_and_compile(common, None, Scope::Pillar) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Ok(minion), Some(computed), files) = (&compiled.minion, &compiled.pillar, &compiled.files) else { return ExitCode::from(2) };
    let layer_json = |i: usize| {
        let l = &computed.layers[i];
        json!({"env": l.env, "sls": l.sls, "file": l.path.as_ref().map(|p| rel(p)), "included_by": l.included_by})
    };
    let describe = |o: &model::mapstack::origin::Origin| computed.describe(files, o, &rel);
    // Salt raised instead of answering: no pillar, its error, exit 1.
    if let Some(raised) = &computed.raised {
        match common.format {
            Format::Json => outln!("{}", serde_json::to_string_pretty(&json!({"errors": [raised]})).unwrap_or_default()),
            Format::Text => computed.errors.iter().for_each(|e| print_error_text(&e.diag, files)),
        }
        return ExitCode::from(1);
    }
    match (explain, common.format) {
        (false, Format::Json) => outln!("{}", serde_json::to_string_pretty(&minion.pillar).unwrap_or_default()),
        (true, Format::Json) => {
            let origins: Vec<serde_json::Value> = computed
                .origins
                .leaves()
                .iter()
                .map(|(path, o)| {
                    let line = o.at.as_ref().map(|at| files.human(at.file, at.span.start).0);
                    json!({"path": path, "layer": o.layer, "line": line, "overrode": o.overrode})
                })
                .collect();
            let errors: Vec<serde_json::Value> = computed.errors.iter().flat_map(|e| error_json(&e.diag, files)).collect();
            let layers: Vec<serde_json::Value> = (0..computed.layers.len()).map(layer_json).collect();
            let out = json!({"pillar": minion.pillar, "layers": layers, "origins": origins, "errors": errors});
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        (_, Format::Text) => {
            outln!("Pillar of minion `{}`:", minion.id);
            let mut lines = Vec::new();
            model::mapstack::report::value_lines(&minion.pillar, 1, &mut Vec::new(), &mut lines);
            let width = lines.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0).min(60);
            for (line, path) in lines {
                let overridden = path.as_ref().is_some_and(|p| minion.literal_pillar.as_ref().is_some_and(|l| p.iter().try_fold(l, |v, k| v.get(k)).is_some()));
                let note = match &path {
                    _ if !explain => None,
                    Some(_) if overridden => Some(format!("# {}", minion.source)),
                    Some(p) => computed.origins.at_path(&p.iter().map(String::as_str).collect::<Vec<_>>()).map(|o| format!("# {}", describe(&o.origin))),
                    None => None,
                };
                match note {
                    Some(n) => outln!("{line:width$}  {n}"),
                    None => outln!("{line}"),
                }
            }
            for e in &computed.errors {
                print_error_text(&e.diag, files);
            }
        }
    }
    if computed.errors.iter().any(|e| e.salt.is_some()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
