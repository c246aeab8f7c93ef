//! `extend`, `_in` requisites, `use` and `exclude` over high data (`salt/state.py`
//! `State.reconcile_extend`, `State.requisite_in`, `BaseHighState._apply_exclude`):
//! `find_name`, `reconcile_extend`, `requisite_in` and `apply_exclude`.

use std::collections::HashSet;

use crate::diagnostic::{Code, SaltError};
use crate::py::fnmatch;
use crate::requisites::{REQUISITE_IN, REQ_IN_ALL, STATE_REQUISITE_KEYWORDS};
use crate::value::{Dict, Val, V};
use crate::version::SaltVersion;

fn state_keys(body: &Val) -> Vec<String> {
    body.as_dict().map(|d| d.keys().map(Val::py_str).filter(|k| !k.starts_with("__")).collect()).unwrap_or_default()
}

/// `find_name(name, state, high, strict)`: `(ID, state)` pairs a reference names.
pub fn find_name(name: &str, state: &str, high: &Dict, strict: bool) -> Vec<(String, String)> {
    let mut ext_id = Vec::new();
    let check2 = !strict || high.get(name).and_then(Val::as_dict).is_some_and(|b| b.contains(state));
    if high.contains(name) && check2 {
        ext_id.push((name.to_string(), state.to_string()));
    } else if state == "sls" {
        for (nid, item) in &high.0 {
            let Some(b) = item.as_dict() else { continue };
            if b.get("__sls__").and_then(Val::as_str) == Some(name) {
                if let Some(first) = b.first_key() {
                    ext_id.push((nid.py_str(), first.py_str()));
                }
            }
        }
    } else {
        for (nid, item) in &high.0 {
            let Some(args) = item.as_dict().and_then(|b| b.get(state)).and_then(Val::as_list) else { continue };
            for arg in args {
                let Some(d) = arg.as_dict() else { continue };
                if d.len() == 1 && d.0[0].1.as_str() == Some(name) {
                    ext_id.push((nid.py_str(), state.to_string()));
                }
            }
        }
    }
    ext_id
}

/// `find_sls_ids(sls, high)`.
pub fn find_sls_ids(sls: &str, high: &Dict) -> Vec<(String, String)> {
    let mut ret = Vec::new();
    for (nid, item) in &high.0 {
        let Some(b) = item.as_dict() else { continue };
        if b.get("__sls__").and_then(Val::as_str) == Some(sls) {
            for st in state_keys(item) {
                ret.push((nid.py_str(), st));
            }
        }
    }
    ret
}

/// `reconcile_extend(high, strict)`: apply `__extend__` to the high data.
pub fn reconcile_extend(high: &mut Dict, strict: bool) -> Vec<SaltError> {
    let mut errors = Vec::new();
    let Some((_, ext)) = high.remove("__extend__") else { return errors };
    let ext = match ext.v {
        V::List(l) => l,
        _ => return errors,
    };
    for ext_chunk in ext {
        let Some(chunk) = ext_chunk.as_dict() else { continue };
        for (name_k, body) in &chunk.0 {
            let mut name = name_k.py_str();
            let Some(body_d) = body.as_dict() else { continue };
            let Some(state_type) = body_d.keys().map(Val::py_str).find(|k| !k.starts_with("__")) else {
                // Salt's `next()` raises StopIteration here; nothing can be extended.
                continue;
            };
            let has = high.get(&name).and_then(Val::as_dict).is_some_and(|b| b.contains(&state_type));
            if !has {
                let ids = find_name(&name, &state_type, high, strict);
                if ids.len() != 1 {
                    let env = body_d.get("__env__").map(Val::py_str).unwrap_or_else(|| "base".into());
                    let sls = body_d.get("__sls__").map(Val::py_str).unwrap_or_else(|| "base".into());
                    errors.push(
                        SaltError::new(
                            Code::MissingExtendTarget,
                            format!(
                                "Cannot extend ID '{name}' in '{env}:{sls}'. It is not part of the high state.\nThis is likely due to a missing include statement or an incorrectly typed ID.\nEnsure that a state with an ID of '{name}' is available\nin environment '{env}' and to SLS '{sls}'"
                            ),
                        )
                        .at(name_k.at.clone())
                        .id(name.clone()),
                    );
                    continue;
                }
                name = ids[0].0.clone();
            }
            let mut sls_excludes: Vec<String> = Vec::new();
            if let Some(excl) = high.get("__exclude__").and_then(Val::as_list) {
                for e in excl {
                    match &e.v {
                        V::Str(s) => sls_excludes.push(s.clone()),
                        V::Dict(d) => {
                            if let Some(s) = d.get("sls").filter(|v| v.truthy()) {
                                sls_excludes.push(s.py_str())
                            }
                        }
                        _ => {}
                    }
                }
            }
            if body_d.get("__sls__").is_some_and(|s| sls_excludes.contains(&s.py_str())) {
                continue;
            }
            let Some(target) = high.get_mut(&name).and_then(Val::as_dict_mut) else { continue };
            for (state_k, run) in &body_d.0 {
                let state = state_k.py_str();
                if state.starts_with("__") {
                    continue;
                }
                if !target.contains(&state) {
                    target.set(state_k.clone(), run.clone());
                    continue;
                }
                let Some(run_l) = run.as_list() else { continue };
                let Some(tlist) = target.get_mut(&state).and_then(Val::as_list_mut) else { continue };
                for arg in run_l {
                    let mut update = false;
                    for item in tlist.iter_mut() {
                        if arg.as_str().is_some() && item.as_str().is_some() {
                            *item = arg.clone();
                            update = true;
                            continue;
                        }
                        if let (Some(ad), Some(vd)) = (arg.as_dict(), item.as_dict()) {
                            let argfirst = ad.first_key_str().map(str::to_string);
                            let vfirst = vd.first_key_str().map(str::to_string);
                            if argfirst.is_some() && argfirst == vfirst {
                                let af = argfirst.clone().unwrap_or_default();
                                if STATE_REQUISITE_KEYWORDS.contains(&af.as_str()) {
                                    let extra = ad.0[0].1.as_list().cloned().unwrap_or_default();
                                    if let Some(l) = item.as_dict_mut().and_then(|d| d.0.first_mut()).and_then(|(_, v)| v.as_list_mut()) {
                                        l.extend(extra);
                                    }
                                } else {
                                    *item = arg.clone();
                                }
                                update = true;
                            }
                            let now_first = item.as_dict().and_then(Dict::first_key_str).map(str::to_string);
                            if argfirst.as_deref() == Some("name") && now_first.as_deref() == Some("names") {
                                *item = arg.clone();
                            }
                        }
                    }
                    if !update {
                        tlist.push(arg.clone());
                    }
                }
            }
        }
    }
    errors
}

fn ext_entry<'a>(extend: &'a mut Dict, name: &str) -> &'a mut Dict {
    if !extend.contains(name) {
        extend.set_str(name, Val::dict(Dict::new()));
    }
    extend.get_mut(name).and_then(Val::as_dict_mut).expect("just inserted")
}

fn list_entry<'a>(d: &'a mut Dict, key: &str) -> &'a mut Vec<Val> {
    if d.get(key).and_then(Val::as_list).is_none() {
        d.set_str(key, Val::list(Vec::new()));
    }
    d.get_mut(key).and_then(Val::as_list_mut).expect("just inserted")
}

/// Add `{rkey: [{state: id}]}` to `extend[name][_state]`, merging into an existing `rkey` entry.
// The arguments are `requisite_in`'s loop variables, as Salt's own helper takes them.
#[allow(clippy::too_many_arguments)]
fn add_req(extend: &mut Dict, name: &str, target_state: &str, rkey: &str, state: &str, id: &str, env: &Val, sls: &Val, at: Option<crate::value::Loc>) {
    let entry = ext_entry(extend, name);
    list_entry(entry, target_state);
    entry.set_str("__env__", env.clone());
    entry.set_str("__sls__", sls.clone());
    let mut req = Dict::new();
    req.set(Val::str(state), Val::str(id));
    let req = Val::dict(req).at(at);
    let list = list_entry(entry, target_state);
    let mut found = false;
    for item in list.iter_mut() {
        if let Some(d) = item.as_dict_mut() {
            if d.first_key_str() == Some(rkey) {
                if let Some(l) = d.0[0].1.as_list_mut() {
                    l.push(req.clone());
                }
                found = true;
            }
        }
    }
    if !found {
        let mut d = Dict::new();
        d.set_str(rkey, Val::list(vec![req]));
        list.push(Val::dict(d));
    }
}

/// `state_args(id, state, high)`: the first keys of one-key dict args.
fn state_args(id: &str, state: &str, high: &Dict) -> HashSet<String> {
    let mut args = HashSet::new();
    if let Some(l) = high.get(id).and_then(Val::as_dict).and_then(|b| b.get(state)).and_then(Val::as_list) {
        for item in l {
            if let Some(d) = item.as_dict() {
                if d.len() == 1 {
                    args.insert(d.0[0].0.py_str());
                }
            }
        }
    }
    args
}

/// Args of `src` that `use`/`use_in` copy: one-key dicts, not requisites, not `name(s)`,
/// not keys the receiver already has.
fn copyable_args(src: Option<&Vec<Val>>, ignore: &HashSet<String>) -> Vec<Val> {
    let mut out = Vec::new();
    for arg in src.into_iter().flatten() {
        let Some(d) = arg.as_dict() else { continue };
        if d.len() != 1 {
            continue;
        }
        let k = d.0[0].0.py_str();
        if ignore.contains(&k) || REQ_IN_ALL.contains(&k.as_str()) || k == "name" || k == "names" {
            continue;
        }
        out.push(arg.clone());
    }
    out
}

/// `requisite_in(high)`: expand `_in` requisites, `use` and `use_in` into extends, then
/// `reconcile_extend(strict=True)`.
pub fn requisite_in(high: &mut Dict, version: SaltVersion) -> Vec<SaltError> {
    let legacy = !version.requisite_graph();
    if !(has_requisite_in(high) || (legacy && has_prereq(high))) {
        // Nothing to extend with: `high` stays as it is (and is not copied to find that out).
        return Vec::new();
    }
    let mut extend = Dict::new();
    let mut errors = Vec::new();
    let snapshot = high.clone();
    for (id_k, body) in &snapshot.0 {
        let id = id_k.py_str();
        let Some(body_d) = body.as_dict() else { continue };
        let env = body_d.get("__env__").cloned().unwrap_or_else(|| Val::str("base"));
        let sls = body_d.get("__sls__").cloned().unwrap_or_else(|| Val::str(""));
        for (state_k, run) in &body_d.0 {
            let state = state_k.py_str();
            if state.starts_with("__") {
                continue;
            }
            let Some(run_l) = run.as_list() else { continue };
            for arg in run_l {
                let Some(ad) = arg.as_dict() else { continue };
                let Some(key) = ad.first_key_str().map(str::to_string) else { continue };
                // 3006 and 3007 also expand `prereq`: its target is `prerequired` by the state.
                if !(REQUISITE_IN.contains(&key.as_str()) || (legacy && key == "prereq")) {
                    continue;
                }
                let rkey = key.split('_').next().unwrap_or("").to_string();
                let items = &ad.0[0].1;
                if let Some(items_d) = items.as_dict() {
                    for (st_k, name_v) in &items_d.0 {
                        let mut st = st_k.py_str();
                        let name = name_v.py_str();
                        if let Some(dot) = st.find('.') {
                            errors.push(
                                SaltError::new(
                                    Code::MalformedState,
                                    format!(
                                        "Invalid requisite in {rkey}: {st} for {name} in SLS '{}'. Requisites must not contain dots, did you mean '{}'?",
                                        sls.py_str(),
                                        &st[..dot]
                                    ),
                                )
                                .at(st_k.at.clone())
                                .id(id.clone()),
                            );
                            st.truncate(dot);
                        }
                        add_req(&mut extend, &name, &st, &rkey, &state, &id, &env, &sls, st_k.at.clone());
                    }
                }
                let Some(items_l) = items.as_list() else { continue };
                let mut hinges: Vec<(String, String)> = Vec::new();
                for ind in items_l {
                    let (pstate, pname, at) = match &ind.v {
                        V::Dict(d) => match d.0.first() {
                            Some((k, v)) => (k.py_str(), v.py_str(), k.at.clone()),
                            None => continue,
                        },
                        _ => {
                            let s = ind.py_str();
                            if let Some(first) = snapshot.get(&s).map(state_keys).and_then(|k| k.into_iter().next()) {
                                (first, s, ind.at.clone())
                            } else {
                                let mut found = None;
                                for (nid, item) in &snapshot.0 {
                                    for st8 in state_keys(item) {
                                        let args = item.as_dict().and_then(|b| b.get(&st8)).and_then(Val::as_list);
                                        for j in args.into_iter().flatten() {
                                            if j.as_dict().and_then(|d| d.get("name")).is_some_and(|n| n.as_str() == Some(&s)) {
                                                found = Some((st8.clone(), nid.py_str()));
                                            }
                                        }
                                    }
                                }
                                match found {
                                    Some((st8, nid)) => (st8, nid, ind.at.clone()),
                                    // An unresolvable bare name is dropped silently (`State.requisite_in`).
                                    None => continue,
                                }
                            }
                        }
                    };
                    if pstate == "sls" {
                        hinges = find_sls_ids(&pname, &snapshot);
                    } else {
                        hinges.push((pname.clone(), pstate.clone()));
                    }
                    if let Some(dot) = pstate.find('.') {
                        errors.push(
                            SaltError::new(
                                Code::MalformedState,
                                format!(
                                    "Invalid requisite in {rkey}: {pstate} for {pname}, in SLS '{}'. Requisites must not contain dots, did you mean '{}'?",
                                    sls.py_str(),
                                    &pstate[..dot]
                                ),
                            )
                            .at(at.clone())
                            .id(id.clone()),
                        );
                    }
                    for (name, target_state) in hinges.clone() {
                        if legacy && key == "prereq_in" {
                            // The origin is `prerequired` by its target.
                            let req = Val::dict(Dict(vec![(Val::str(&target_state), Val::str(&name))]));
                            list_entry(ext_entry(&mut extend, &id), &state).push(Val::dict(Dict(vec![(Val::str("prerequired"), Val::list(vec![req]))])));
                        }
                        if legacy && key == "prereq" {
                            for (ext_id, req_state) in find_name(&name, &target_state, high, true) {
                                let req = Val::dict(Dict(vec![(Val::str(&state), Val::str(&id))]));
                                list_entry(ext_entry(&mut extend, &ext_id), &req_state)
                                    .push(Val::dict(Dict(vec![(Val::str("prerequired"), Val::list(vec![req]))])));
                            }
                            continue;
                        }
                        if key == "use_in" {
                            for (ext_id, req_state) in find_name(&name, &target_state, high, true) {
                                let ignore = state_args(&ext_id, &target_state, high);
                                let src = high.get(&id).and_then(Val::as_dict).and_then(|b| b.get(&state)).and_then(Val::as_list);
                                let copied = copyable_args(src, &ignore);
                                let entry = ext_entry(&mut extend, &ext_id);
                                list_entry(entry, &req_state).extend(copied);
                            }
                            continue;
                        }
                        if key == "use" {
                            for (ext_id, req_state) in find_name(&name, &target_state, high, true) {
                                let ignore = state_args(&id, &state, high);
                                let src = high.get(&ext_id).and_then(Val::as_dict).and_then(|b| b.get(&req_state)).and_then(Val::as_list);
                                let copied = copyable_args(src, &ignore);
                                let entry = ext_entry(&mut extend, &id);
                                list_entry(entry, &state).extend(copied);
                            }
                            continue;
                        }
                        add_req(&mut extend, &name, &target_state, &rkey, &state, &id, &env, &sls, at.clone());
                    }
                }
            }
        }
    }
    let ext_list: Vec<Val> = extend.0.into_iter().map(|(k, v)| Val::dict(Dict(vec![(k, v)]))).collect();
    high.set_str("__extend__", Val::list(ext_list));
    errors.extend(reconcile_extend(high, true));
    errors
}

/// Whether a state of `high` has a `prereq` argument (3006's and 3007's [`requisite_in`]
/// expands those too).
pub fn has_prereq(high: &Dict) -> bool {
    high.0
        .iter()
        .filter_map(|(_, body)| body.as_dict())
        .any(|b| b.0.iter().any(|(_, run)| run.as_list().is_some_and(|args| args.iter().any(|a| a.as_dict().and_then(Dict::first_key_str) == Some("prereq")))))
}

/// Whether a state of `high` has an argument [`requisite_in`] acts on (a `_in` requisite,
/// `use`, `use_in`, `prereq_in`).
pub fn has_requisite_in(high: &Dict) -> bool {
    high.0.iter().filter_map(|(_, body)| body.as_dict()).any(|b| {
        b.0.iter().any(|(k, run)| {
            !k.py_cow().starts_with("__")
                && run.as_list().into_iter().flatten().any(|arg| arg.as_dict().and_then(Dict::first_key_str).is_some_and(|k| REQUISITE_IN.contains(&k)))
        })
    })
}

/// Whether a state of `high` takes another's arguments (`use`) or gives its own (`use_in`):
/// then one state's arguments show up in another's chunks.
pub fn borrows_arguments(high: &Dict) -> bool {
    let borrows = |arg: &Val| arg.as_dict().and_then(Dict::first_key_str).is_some_and(|k| k == "use" || k == "use_in");
    high.0.iter().filter_map(|(_, body)| body.as_dict()).flat_map(|d| d.0.iter()).filter_map(|(_, run)| run.as_list()).flatten().any(borrows)
}

/// `_apply_exclude(high)`.
pub fn apply_exclude(high: &mut Dict) {
    let Some((_, exclude)) = high.remove("__exclude__") else { return };
    let mut ex_sls: Vec<String> = Vec::new();
    let mut ex_id: Vec<String> = Vec::new();
    for exc in exclude.as_list().into_iter().flatten() {
        match &exc.v {
            V::Str(s) => ex_sls.push(s.clone()),
            V::Dict(d) if d.len() == 1 => match d.first_key_str() {
                Some("sls") => ex_sls.push(d.0[0].1.py_str()),
                Some("id") => ex_id.push(d.0[0].1.py_str()),
                _ => {}
            },
            _ => {}
        }
    }
    if !ex_sls.is_empty() {
        let pats: Vec<fnmatch::Pattern> = ex_sls.iter().map(|p| fnmatch::Pattern::new(p)).collect();
        for (name, body) in &high.0 {
            let n = name.py_str();
            if n.starts_with("__") {
                continue;
            }
            let sls = body.as_dict().and_then(|b| b.get("__sls__")).map(Val::py_str).unwrap_or_default();
            if sls.is_empty() {
                continue;
            }
            if pats.iter().any(|p| p.matches(&sls)) {
                ex_id.push(n);
            }
        }
    }
    for id in ex_id {
        high.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn high(yaml: &str) -> Dict {
        let mut errors = Vec::new();
        let V::Dict(mut d) = crate::render::render_data(yaml, None, 0).expect("yaml").v else { panic!("a mapping") };
        crate::state::highstate::handle_state_decls(&mut d, "s", "base", &mut errors);
        d
    }

    #[test]
    fn only_in_requisites_and_use_need_requisite_in() {
        let plain = "a: {test.nop: [{require: [{test: b}]}, {watch: [b]}]}\nb: {test.nop: [{prereq: [{test: a}]}]}\n";
        assert!(!has_requisite_in(&high(plain)));
        let mut h = high(plain);
        assert!(requisite_in(&mut h, SaltVersion::V3008).is_empty());
        assert_eq!(h.to_json(), high(plain).to_json(), "left as it was");
        for with in
            ["require_in: [{test: b}]", "watch_in: [b]", "use: [{test: b}]", "use_in: [{test: b}]", "prereq_in: [{test: b}]", "onchanges_in: [{test: b}]"]
        {
            let text = format!("a: {{test.nop: [{{{with}}}]}}\nb: {{test.nop: []}}\n");
            assert!(has_requisite_in(&high(&text)), "{with}");
        }
    }
}
