//! `top`: the compiled top for a minion, as `state.show_top` prints it; `--explain` says why
//! each section and target was used or matched; `--fleet` the matrix of who gets which SLS.

use std::process::ExitCode;

use model::pipeline::Scope;

use super::minions::load_and_compile;
use super::minions::{fleet_run, Answer};
use super::options::{Common, Format};
use super::output::{error_text, print_error_text, rel};
use crate::out::{errln, out, outln};

pub(super) fn top(explain: bool, saltenv: Option<&str>, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        if explain {
            errln!("salt-analyzer: error: --explain explains one minion's top; give --minion ID");
            return ExitCode::from(2);
        }
        return fleet_run(
            common,
            |_| Scope::Top,
            saltenv,
            true,
            |compiled| {
                let (Some(r), files) = (&compiled.top, &compiled.files) else { return Answer { failed: true, ..Answer::default() } };
                Answer {
                    json: r.show_top_json(),
                    sls: r.matches.iter().flat_map(|(env, list)| list.iter().map(move |s| (env.clone(), s.clone()))).collect(),
                    errors: r.render_errors.iter().chain(&r.verify_errors).map(|e| error_text(e, files)).collect(),
                    failed: !r.verify_errors.is_empty(),
                    ..Answer::default()
                }
            },
        );
    }
    let compiled = match load_and_compile(common, saltenv, Scope::Top) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Ok(minion), Some(result), files) = (&compiled.minion, &compiled.top, &compiled.files) else { return ExitCode::from(2) };
    // `state.show_top` refuses when the pillar has errors (`_get_pillar_errors`): Salt raises
    // "Pillar failed to render" with them.
    let pillar_errors = compiled.pillar.as_ref().map(|p| p.salt_errors()).unwrap_or_default();
    if !explain && !pillar_errors.is_empty() {
        match common.format {
            Format::Json => {
                let texts = compiled.pillar.as_ref().map(|p| p.salt_error_texts()).unwrap_or_default();
                let said: Vec<&str> = std::iter::once("Pillar failed to render").chain(texts).collect();
                outln!("{}", serde_json::to_string_pretty(&said).unwrap_or_default());
            }
            Format::Text => {
                outln!("state.show_top refuses: Pillar failed to render");
                for e in &pillar_errors {
                    print_error_text(e, files);
                }
            }
        }
        return ExitCode::from(1);
    }
    let failed = !result.verify_errors.is_empty();
    match (explain, common.format) {
        (true, Format::Json) => outln!("{}", serde_json::to_string_pretty(&result.explain_json(files)).unwrap_or_default()),
        (true, Format::Text) => out!("{}", result.explain_text(&minion.id, files, &|p| rel(p))),
        (false, Format::Json) => outln!("{}", serde_json::to_string_pretty(&result.show_top_json()).unwrap_or_default()),
        (false, Format::Text) => {
            for e in result.render_errors.iter().chain(&result.verify_errors) {
                print_error_text(e, files);
            }
            for (env, list) in &result.matches {
                outln!("{env}:");
                for s in list {
                    outln!("  - {s}");
                }
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
