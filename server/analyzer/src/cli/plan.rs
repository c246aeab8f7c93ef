//! `plan`: the order `state.apply` runs the states in, as text, JSON or a Graphviz graph.

use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::json;

use super::low::{compile_low, low_scope};
use super::minions::{fleet_run, Answer};
use super::options::Common;
use super::output::{error_json, error_text, print_error_text};
use crate::out::{errln, out, outln};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum PlanFormat {
    Text,
    Json,
    Dot,
}

/// What `plan --format json` prints.
pub(super) fn plan_json(plan: &model::state::run::Plan) -> serde_json::Value {
    let out: Vec<_> = plan
        .states
        .iter()
        .map(|s| {
            let after: Vec<String> = s.after.iter().map(|(t, k)| if *k == "prereq" { format!("{t}_|-__prereq_test__") } else { t.clone() }).collect();
            let mut entry = json!({"tag": s.tag, "id": s.id, "sls": s.sls, "run_num": s.run_num, "after": after});
            entry["step"] = json!(s.step);
            if let (Some(n), Some(step)) = (s.test_run_num, s.test_step) {
                entry["test_run_num"] = json!(n);
                entry["test_step"] = json!(step);
            }
            if s.parallel {
                entry["parallel"] = json!(true);
            }
            if !s.may_wait.is_empty() {
                entry["may_wait"] = json!(s.may_wait);
            }
            if s.test_step.is_some() {
                let after: Vec<String> = s.test_after.iter().map(|(t, k)| if *k == "prereq" { format!("{t}_|-__prereq_test__") } else { t.clone() }).collect();
                entry["test_after"] = json!(after);
            }
            if !s.test_may_wait.is_empty() {
                entry["test_may_wait"] = json!(s.test_may_wait);
            }
            entry
        })
        .chain(plan.listeners.iter().map(|l| {
            let mut entry = json!({
                "tag": l.tag, "id": l.id, "sls": l.sls, "run_num": l.run_num, "after": [], "listener": true,
                "triggers": l.triggers.iter().map(|(step, tag)| json!({"step": step, "tag": tag})).collect::<Vec<_>>(),
            });
            if let Some(of) = &l.of {
                entry["of"] = json!(of);
            }
            if let Some(step) = l.always {
                entry["always"] = json!(step);
            }
            if let Some(comment) = &l.comment {
                entry["comment"] = json!(comment);
            }
            if l.lost_if_recorded_at_test {
                entry["lost_if_recorded_at_test"] = json!(true);
            }
            entry
        }))
        .collect();
    json!(out)
}

pub(super) fn plan(sls: &[String], saltenv: Option<&str>, common: &Common, format: PlanFormat) -> ExitCode {
    if common.fleet.fleet.is_some() {
        if format == PlanFormat::Dot {
            errln!("salt-analyzer: error: --format dot draws one minion's plan; give --minion ID");
            return ExitCode::from(2);
        }
        let env = if sls.is_empty() { saltenv } else { None };
        return fleet_run(
            common,
            |ws| low_scope(ws, sls, saltenv),
            env,
            false,
            |compiled| {
                let (Some(low), files) = (&compiled.low, &compiled.files) else { return Answer { failed: true, ..Answer::default() } };
                match model::state::run::plan(low) {
                    Ok(plan) => Answer { json: plan_json(&plan), text: plan_text(&plan), ..Answer::default() },
                    Err(errors) => Answer {
                        json: json!({"errors": errors.iter().flat_map(|e| error_json(e, files)).collect::<Vec<_>>()}),
                        errors: errors.iter().map(|e| error_text(e, files)).collect(),
                        failed: true,
                        ..Answer::default()
                    },
                }
            },
        );
    }
    let compiled = match compile_low(sls, saltenv, common) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Some(low), files) = (&compiled.low, &compiled.files) else { return ExitCode::from(2) };
    let plan = match model::state::run::plan(low) {
        Ok(plan) => plan,
        Err(errors) => {
            if format == PlanFormat::Json {
                let out = json!({"errors": errors.iter().flat_map(|e| error_json(e, files)).collect::<Vec<_>>()});
                outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            } else {
                for e in &errors {
                    print_error_text(e, files);
                }
            }
            return ExitCode::from(1);
        }
    };
    match format {
        PlanFormat::Json => outln!("{}", serde_json::to_string_pretty(&plan_json(&plan)).unwrap_or_default()),
        PlanFormat::Dot => outln!("{}", plan.dot),
        PlanFormat::Text => out!("{}", plan_text(&plan)),
    }
    if let Some(crash) = &plan.listen_crash {
        errln!("salt-analyzer: warning: {crash}");
    }
    ExitCode::SUCCESS
}

/// The run as a numbered list, each state with why it runs there.
pub(super) fn plan_text(plan: &model::state::run::Plan) -> String {
    let by_tag: std::collections::HashMap<&str, &model::state::run::Planned> = plan.states.iter().map(|s| (s.tag.as_str(), s)).collect();
    let width = (plan.states.len() + plan.listeners.len()).to_string().len();
    let mut out = String::new();
    for (i, s) in plan.states.iter().enumerate() {
        let name = if s.name == s.id { String::new() } else { format!(" ({})", s.name) };
        out.push_str(&format!("{:>width$}. {}.{} {}{name}  [{}]\n", i + 1, s.state, s.fun, s.id, s.sls));
        let pad = " ".repeat(width + 2);
        if let Some(n) = s.test_run_num {
            let by: Vec<String> = s
                .before
                .iter()
                .filter(|(_, k)| *k == "prereq")
                .map(|(t, _)| format!("`{}`", by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str())))
                .collect();
            out.push_str(&format!(
                "{pad}tested first for the prereq of {}; recorded there instead (as run {}) if that test run is not run (a requisite failed, no onchanges)\n",
                by.join(", "),
                n + 1
            ));
        }
        let ids = |tags: &[String]| -> String {
            tags.iter().map(|t| format!("`{}`", by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str()))).collect::<Vec<_>>().join(", ")
        };
        if !s.test_may_wait.is_empty() {
            out.push_str(&format!(
                "{pad}parallel: its test run is put off while {} still runs; if that is past this place, Salt does not run it at all\n",
                ids(&s.test_may_wait)
            ));
        }
        if !s.may_wait.is_empty() {
            out.push_str(&format!("{pad}parallel: put off while {} still runs, so it may run later\n", ids(&s.may_wait)));
        } else if s.parallel {
            out.push_str(&format!("{pad}parallel: started here in a process of its own\n"));
        }
        if s.after.is_empty() {
            out.push_str(&format!("{pad}by order {}\n", s.order));
        } else {
            let after: Vec<String> = s
                .after
                .iter()
                .map(|(t, k)| {
                    let id = by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str());
                    if *k == "prereq" {
                        format!("the test run of `{id}` (prereq)")
                    } else {
                        format!("`{id}` ({k})")
                    }
                })
                .collect();
            out.push_str(&format!("{pad}after {}\n", after.join(", ")));
        }
    }
    for (i, l) in plan.listeners.iter().enumerate() {
        let pad = " ".repeat(width + 2);
        let n = plan.states.len() + i + 1;
        let name = if l.name == l.id { String::new() } else { format!(" ({})", l.name) };
        out.push_str(&format!("{n:>width$}. {}.{} {}{name}  [{}]\n", l.state, l.fun, l.id, l.sls));
        let on: Vec<String> = {
            let mut ids: Vec<String> = Vec::new();
            for (_, t) in &l.triggers {
                let id = format!("`{}`", by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str()));
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            ids
        };
        match (&l.comment, l.always) {
            (Some(c), Some(_)) => out.push_str(&format!("{pad}after every state: {c}\n")),
            (Some(c), None) => out.push_str(&format!("{pad}after every state, if {} reports changes: {c}\n", on.join(" or "))),
            (None, _) => {
                out.push_str(&format!("{pad}listen: after every state, if {} reports changes\n", on.join(" or ")));
                if l.lost_if_recorded_at_test {
                    let of = l.of.as_deref().unwrap_or("");
                    let id = by_tag.get(of).map_or(of, |p| p.id.as_str());
                    out.push_str(&format!("{pad}not when `{id}` is recorded at its prereq test run (Salt files this run with the test runs)\n"));
                }
            }
        }
    }
    out
}
