//! How the merging strategies combine the sections of the top files: `salt/state.py`
//! `BaseHighState.merge_tops`, `_merge_tops_merge`, `_merge_tops_same` and `_merge_tops_merge_all`.

use std::path::PathBuf;

use super::{MergedTop, SectionDecision, TopDoc, TopTarget, Tops};
use crate::diagnostic::{Code, SaltError};
use crate::value::{Loc, Val, V};
use crate::workspace::config::Opts;

fn set_target(top: &mut MergedTop, env: &str, target: &Val, body: &Val, source: &Option<PathBuf>) {
    let list = top.entry(env.to_string()).or_default();
    match list.iter_mut().find(|t| t.target == *target) {
        Some(t) => {
            t.body = body.clone();
            t.source = source.clone();
        }
        None => list.push(TopTarget { target: target.clone(), body: body.clone(), source: source.clone() }),
    }
}

fn no_targets() -> SaltError {
    SaltError::new(Code::MalformedState, "Unable to render top file. No targets found.")
}

fn section_loc(doc: &TopDoc, section: &Val) -> Option<Loc> {
    let _ = doc;
    section.at.clone()
}

/// `merge_tops`, recording a decision for every section of every top document.
pub fn merge_tops(opts: &Opts, tops: &Tops) -> (Result<MergedTop, SaltError>, Vec<SectionDecision>, String) {
    let mut strategy = opts.top_file_merging_strategy.clone();
    if !matches!(strategy.as_str(), "merge" | "same" | "merge_all") {
        strategy = "merge".into();
    }
    let mut decisions = Vec::new();
    let result = match strategy.as_str() {
        "same" => merge_same(opts, tops, &mut decisions),
        "merge_all" => merge_all(tops, &mut decisions),
        _ => merge_merge(tops, &mut decisions),
    };
    (result, decisions, strategy)
}

fn decide(out: &mut Vec<SectionDecision>, doc: &TopDoc, section: &Val, used: bool, reason: String) {
    out.push(SectionDecision { top_env: doc.env.clone(), path: doc.path.clone(), section: section.py_str(), loc: section_loc(doc, section), used, reason });
}

fn doc_name(doc: &TopDoc) -> String {
    let file = match &doc.included_as {
        Some(sls) => format!("the top file included as `{sls}`"),
        None => "top file".to_string(),
    };
    format!("{}'s {file}", doc.env)
}

fn copy_targets(top: &mut MergedTop, section: &str, targets: &Val, source: &Option<PathBuf>) -> Result<(), SaltError> {
    match &targets.v {
        V::Dict(d) => {
            for (t, b) in &d.0 {
                set_target(top, section, t, b, source);
            }
            Ok(())
        }
        // `for tgt in targets` over an empty list or string does nothing at all.
        V::List(l) if l.is_empty() => Ok(()),
        V::Str(s) if s.is_empty() => Ok(()),
        // Iterating a list or string yields keys that `ctop[env][tgt]` cannot index, and
        // `None` or a number cannot be iterated: TypeError, which Salt re-raises.
        _ => Err(no_targets().at(targets.at.clone())),
    }
}

fn merge_merge(tops: &Tops, out: &mut Vec<SectionDecision>) -> Result<MergedTop, SaltError> {
    let mut top = MergedTop::new();
    if let Some(base) = tops.envs.get("base") {
        for doc in base {
            for (section, targets) in &doc.data.0 {
                if section.as_str() == Some("include") {
                    continue;
                }
                copy_targets(&mut top, &section.py_str(), targets, &doc.path)?;
                let why = if doc.included_as.is_some() {
                    "used: base's top files (the main one and its includes) are authoritative for every environment; a target written again replaces the earlier one".to_string()
                } else {
                    "used: base's top file is authoritative for every environment (top_file_merging_strategy: merge)".to_string()
                };
                decide(out, doc, section, true, why);
            }
        }
    }
    for (cenv, docs) in &tops.envs {
        if cenv == "base" {
            continue;
        }
        for doc in docs {
            for (section, targets) in &doc.data.0 {
                let name = section.py_str();
                if name == "include" {
                    continue;
                }
                if name != *cenv {
                    decide(
                        out,
                        doc,
                        section,
                        false,
                        format!("ignored: a `{name}` section in {} is only read from {name}'s own top file (top_file_merging_strategy: merge)", doc_name(doc)),
                    );
                    continue;
                }
                if top.contains_key(&name) {
                    let by = if out.iter().any(|d| d.used && d.section == name && d.top_env == "base") {
                        format!("base's top file already defines `{name}`")
                    } else {
                        format!("an earlier {name} top file already defined `{name}`")
                    };
                    decide(out, doc, section, false, format!("ignored: {by} (top_file_merging_strategy: merge)"));
                    continue;
                }
                copy_targets(&mut top, &name, targets, &doc.path)?;
                decide(out, doc, section, true, format!("used: no top file read before it defines `{name}` (top_file_merging_strategy: merge)"));
            }
        }
    }
    Ok(top)
}

fn merge_same(opts: &Opts, tops: &Tops, out: &mut Vec<SectionDecision>) -> Result<MergedTop, SaltError> {
    let mut top = MergedTop::new();
    let is_empty = |docs: &Vec<TopDoc>| docs.iter().all(|d| d.data.is_empty());
    for (cenv, docs) in &tops.envs {
        if is_empty(docs) {
            let fallback = tops.envs.get(&opts.default_top);
            let Some(fallback) = fallback.filter(|f| !is_empty(f)) else { continue };
            for doc in fallback {
                for (section, targets) in &doc.data.0 {
                    if section.py_str() != *cenv {
                        continue;
                    }
                    // No try/except here in Salt: a section that is not a mapping raises
                    // TypeError (the same failure as `No targets found` elsewhere).
                    copy_targets(&mut top, cenv, targets, &doc.path)?;
                    decide(
                        out,
                        doc,
                        section,
                        true,
                        format!(
                            "used: {cenv} has no top file, so its section comes from the default_top environment `{}` (top_file_merging_strategy: same)",
                            opts.default_top
                        ),
                    );
                    break;
                }
            }
            continue;
        }
        for doc in docs {
            for (section, targets) in &doc.data.0 {
                let name = section.py_str();
                if name == "include" {
                    continue;
                }
                if name != *cenv {
                    decide(
                        out,
                        doc,
                        section,
                        false,
                        format!("ignored: only the `{}` section of {} counts (top_file_merging_strategy: same)", cenv, doc_name(doc)),
                    );
                    continue;
                }
                copy_targets(&mut top, &name, targets, &doc.path)?;
                decide(out, doc, section, true, format!("used: {}'s own section in its own top file (top_file_merging_strategy: same)", cenv));
            }
        }
    }
    Ok(top)
}

/// `_read_tgt`: the last dict item (the "match type") and the string items, in order.
/// Iterating a string visits its characters and a dict its keys; anything else raises.
fn read_tgt(body: &Val) -> Result<(Option<Val>, Vec<Val>), SaltError> {
    let mut match_type = None;
    let mut states = Vec::new();
    match &body.v {
        V::List(items) => {
            for item in items {
                match &item.v {
                    V::Dict(_) => match_type = Some(item.clone()),
                    V::Str(_) => states.push(item.clone()),
                    _ => {}
                }
            }
        }
        V::Str(s) => states.extend(s.chars().map(|c| Val { v: V::Str(c.to_string()), at: body.at.clone() })),
        V::Dict(d) => states.extend(d.keys().filter(|k| matches!(k.v, V::Str(_))).cloned()),
        _ => return Err(no_targets().at(body.at.clone())),
    }
    Ok((match_type, states))
}

fn merge_all(tops: &Tops, out: &mut Vec<SectionDecision>) -> Result<MergedTop, SaltError> {
    let mut top = MergedTop::new();
    for docs in tops.envs.values() {
        for doc in docs {
            for (section, targets) in &doc.data.0 {
                let name = section.py_str();
                if name == "include" {
                    continue;
                }
                let d = match &targets.v {
                    V::Dict(d) => d,
                    V::List(l) if l.is_empty() => continue,
                    V::Str(s) if s.is_empty() => continue,
                    _ => return Err(no_targets().at(targets.at.clone())),
                };
                for (t, b) in &d.0 {
                    let list = top.entry(name.clone()).or_default();
                    match list.iter_mut().find(|x| x.target == *t) {
                        None => list.push(TopTarget { target: t.clone(), body: b.clone(), source: doc.path.clone() }),
                        Some(existing) => {
                            let (m1, s1) = read_tgt(&existing.body)?;
                            let (m2, s2) = read_tgt(b)?;
                            let mut merged: Vec<Val> = Vec::new();
                            if let Some(m) = m2.or(m1) {
                                merged.push(m);
                            }
                            merged.extend(s1);
                            // `merged.extend([x for x in m_states2 if x not in merged])`: the
                            // list is built before it is added, so repeats within the new body
                            // stay (only names already merged are dropped).
                            let new: Vec<Val> = s2.into_iter().filter(|x| !merged.contains(x)).collect();
                            merged.extend(new);
                            existing.body = Val::list(merged);
                        }
                    }
                }
                decide(out, doc, section, true, "used: every section of every top file is merged (top_file_merging_strategy: merge_all)".to_string());
            }
        }
    }
    Ok(top)
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::super::tests::{check, top};

    #[test]
    fn empty_sections_and_sections_that_are_not_mappings() {
        // Iterating `[]` or `''` does nothing; `~` or a non-empty list raises
        // "No targets found", which merge_tops re-raises past get_top.
        for strategy in ["merge", "merge_all", "same"] {
            let fixture = format!(
                "#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\ntop_file_merging_strategy: {strategy}\n#- base/top.sls\nnowhere: []\nbase: {{'*': [a]}}\nqa: ''\n"
            );
            let r = top(&fixture, None);
            assert_eq!(r.show_top_json(), json!({"base": ["a"]}), "{strategy}");
            assert!(r.raised.is_none(), "{strategy}");
            let fixture = format!("#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\ntop_file_merging_strategy: {strategy}\n#- base/top.sls\nbase: ~\n");
            let r = top(&fixture, None);
            assert!(r.raised.as_ref().is_some_and(|e| e.message == "Unable to render top file. No targets found."), "{strategy}: {:?}", r.raised);
            assert_eq!(r.show_top_json(), json!(["Unable to render top file. No targets found."]), "{strategy}");
        }
    }

    #[test]
    fn same_fallback_section_that_is_not_a_mapping_raises() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
top_file_merging_strategy: same
default_top: base
#- base/top.sls
base: {'*': [a]}
dev: [d]
"#,
            None,
            expect![[r#"
                show_top: ["Unable to render top file. No targets found."]
                raised: Unable to render top file. No targets found.
            "#]],
        );
    }

    #[test]
    fn merge_all_keeps_repeats_within_the_later_body() {
        // `merged.extend([x for x in m_states2 if x not in merged])` filters against the
        // names merged before, so `b, b` from the later top both stay and `a` is dropped.
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
top_file_merging_strategy: merge_all
#- base/top.sls
dev: {'*': [a, a]}
#- dev/top.sls
dev: {'*': [b, a, b]}
"#,
            None,
            expect![[r#"
                show_top: {"dev":["a","a","b","b"]}
            "#]],
        );
    }
}
