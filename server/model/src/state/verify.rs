//! `verify_high` (`salt/state.py` `_verify_high`, `State.verify_high` before 3008): the shape
//! checks Salt runs on high data before compiling it, with each release's error strings. 3006
//! and 3007 check four requisite types' shapes (3008 all of them), take a many-key requisite
//! dict by its first key, skip a `require:`/`watch:` "state" without a function, and refuse a
//! pair of states that require each other directly.

use crate::diagnostic::{Code, SaltError};
use crate::requisites::STATE_REQUISITE_KEYWORDS;
use crate::value::{Dict, Val, V};
use crate::version::SaltVersion;

/// The requisite types whose shape 3006 and 3007 check.
const LEGACY_CHECKED: &[&str] = &["require", "watch", "prereq", "onchanges"];

/// 3006's and 3007's direct-cycle check: per ID, its state module (`"state"`) and, per
/// requisite value, the requisite key it was named with; keyed by Python `repr`, as a dict
/// of mixed keys tells `1` from `'1'`.
type DirectReqs = indexmap::IndexMap<String, indexmap::IndexMap<String, String>>;

/// `_verify_high(high)` as `version` runs it.
pub fn verify_high(high: &Dict, version: SaltVersion) -> Vec<SaltError> {
    let legacy = !version.requisite_graph();
    let mut reqs = DirectReqs::new();
    let mut errors = Vec::new();
    for (id, body) in &high.0 {
        let sls = body.as_dict().and_then(|b| b.get("__sls__")).map(Val::py_cow).unwrap_or_default();
        let id_s = id.py_cow();
        let err = |msg: String, at: Option<crate::value::Loc>| SaltError::new(Code::MalformedState, msg).at(at).id(id_s.to_string());
        match &id.v {
            V::Str(s) if s.starts_with("__") => continue,
            V::Str(_) => {}
            _ => errors.push(err(
                format!(
                    "ID '{id_s}' in SLS '{sls}' is not formed as a string, but is {} {}. It may need to be quoted.",
                    if legacy { "a" } else { "type" },
                    id.py_type()
                ),
                id.at.clone(),
            )),
        }
        let Some(body_d) = body.as_dict() else {
            errors.push(err(format!("The type {id_s} in {} is not formatted as a dictionary", body.py_str()), id.at.clone()));
            continue;
        };
        for (state_k, run) in &body_d.0 {
            let state = state_k.py_cow();
            if state.starts_with("__") {
                continue;
            }
            let at = state_k.at.clone();
            if run.is_none() {
                errors.push(err(
                    format!(
                        "ID '{id_s}' in SLS '{sls}' contains a short declaration ({state}) with a trailing colon. When not passing any arguments to a state, the colon must be omitted."
                    ),
                    at,
                ));
                continue;
            }
            let Some(args) = run.as_list() else {
                errors.push(err(format!("State '{id_s}' in SLS '{sls}' is not formed as a list"), at));
                continue;
            };
            let mut fun_count = usize::from(state.contains('.'));
            for arg in args {
                match &arg.v {
                    V::Str(f) => {
                        fun_count += 1;
                        if f.trim().contains(' ') {
                            errors.push(err(
                                format!(
                                    "The function \"{f}\" in state \"{id_s}\" in SLS \"{sls}\" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a \":\""
                                ),
                                arg.at.clone(),
                            ));
                        }
                    }
                    V::Dict(d) => verify_arg(d, arg, (id, &id_s), (&state, &sls), legacy.then_some(&mut reqs), &mut errors),
                    _ => {}
                }
            }
            if fun_count == 0 {
                if legacy && (state == "require" || state == "watch") {
                    continue;
                }
                errors.push(err(format!("No function declared in state '{id_s}' in SLS '{sls}'"), at));
            } else if fun_count > 1 {
                let mut funs: Vec<String> = state.split_once('.').map(|(_, f)| vec![f.to_string()]).unwrap_or_default();
                funs.extend(args.iter().filter_map(|a| a.as_str().map(str::to_string)));
                errors.push(err(
                    format!("Too many functions declared in state '{id_s}' in SLS '{sls}'. Please choose one of the following: {}", funs.join(", ")),
                    at,
                ));
            }
        }
    }
    // A direct cycle's members, each at its ID, as a graph cycle's are.
    for e in errors.iter_mut().filter(|e| e.code == Code::RequisiteCycle && e.cycle_ids.is_empty()) {
        for member in e.id.iter().chain(&e.target).cloned().collect::<Vec<_>>() {
            let at = high.0.iter().find(|(k, _)| k.py_cow() == member).and_then(|(k, _)| k.at.clone());
            e.cycle_ids.push((member, at));
        }
    }
    errors
}

/// The checks of one dict argument of a state. `legacy`: Salt 3006's and 3007's, with their
/// direct-cycle bookkeeping.
fn verify_arg(d: &Dict, arg: &Val, (id, id_s): (&Val, &str), (state, sls): (&str, &str), mut legacy: Option<&mut DirectReqs>, errors: &mut Vec<SaltError>) {
    let Some(first) = d.first_key() else { return };
    let argfirst = first.py_cow();
    let value = &d.0[0].1;
    let err = |msg: String, at: Option<crate::value::Loc>| SaltError::new(Code::MalformedState, msg).at(at).id(id_s.to_string());
    if argfirst == "names" && value.as_list().is_none() {
        errors.push(err(format!("The 'names' argument in state '{id_s}' in SLS '{sls}' needs to be formed as a list"), first.at.clone()));
    }
    let checked = if legacy.is_some() { LEGACY_CHECKED } else { STATE_REQUISITE_KEYWORDS };
    if !checked.contains(&&*argfirst) {
        return;
    }
    match value.as_list() {
        None => errors.push(err(format!("The {argfirst} statement in state '{id_s}' in SLS '{sls}' needs to be formed as a list"), first.at.clone())),
        Some(list) => {
            let name = id.py_repr();
            if let Some(reqs) = legacy.as_deref_mut() {
                // `reqs[name] = HashableOrderedDict(state=state)`: anew for each requisite argument.
                reqs.insert(name.clone(), indexmap::IndexMap::from([("'state'".to_string(), state.to_string())]));
            }
            for req in list {
                let (k, key_at, v): (String, Option<crate::value::Loc>, &Val) = match &req.v {
                    // `{'id': s}`: a key without a dot and a hashable value.
                    V::Str(_) if legacy.is_none() => continue,
                    V::Str(_) => ("id".to_string(), None, req),
                    // 3006 and 3007 take a dict of many keys by its first.
                    V::Dict(d) if d.len() == 1 || (legacy.is_some() && !d.is_empty()) => (d.0[0].0.py_str(), d.0[0].0.at.clone(), &d.0[0].1),
                    _ => {
                        let message = match (&req.v, legacy.is_some()) {
                            (_, true) => format!("Requisite declaration {} in SLS {sls} is not formed as a single key dictionary", req.py_str()),
                            (V::Dict(_), false) => {
                                format!("Requisite declaration {} in state {id_s} in SLS {sls} is not formed as a single key dictionary", req.py_repr())
                            }
                            _ => format!("Requisite declaration {} in state {id_s} in SLS {sls} is not formed as a single key dictionary", req.py_str()),
                        };
                        errors.push(err(message, req.at.clone()));
                        continue;
                    }
                };
                if let Some(dot) = k.find('.') {
                    errors.push(err(
                        format!(
                            "Invalid requisite type '{k}' in state '{id_s}', in SLS '{sls}'. Requisite types must not contain dots, did you mean '{}'?",
                            &k[..dot]
                        ),
                        key_at.or(req.at.clone()),
                    ));
                }
                if !v.is_hashable() {
                    let message = match legacy {
                        Some(_) => format!("Illegal requisite \"{}\", please check your syntax.\n", v.py_str()),
                        None => format!("Illegal requisite \"{}\" in SLS \"{sls}\", please check your syntax.\n", v.py_str()),
                    };
                    errors.push(err(message, req.at.clone()));
                    continue;
                }
                if let Some(reqs) = legacy.as_deref_mut() {
                    if let Some(e) = direct_cycle(reqs, &name, (&k, v), (id_s, state, sls), req) {
                        errors.push(e);
                    }
                }
            }
        }
    }
    if d.len() != 1 {
        errors.push(err(format!("Multiple dictionaries defined in argument of state '{id_s}' in SLS '{sls}'"), arg.at.clone()));
    }
}

/// 3006's and 3007's "Check for global recursive requisites": `reqs[name][req_val] = req_key`,
/// and a cycle when the target requires `name` with this state's module while this state
/// names the target with the target's module.
fn direct_cycle(reqs: &mut DirectReqs, name: &str, (key, value): (&str, &Val), (id_s, state, sls): (&str, &str, &str), req: &Val) -> Option<SaltError> {
    let target = value.py_repr();
    if let Some(mine) = reqs.get_mut(name) {
        mine.insert(target.clone(), key.to_string());
    }
    let theirs = reqs.get(&target)?;
    let recursive = theirs.get(name).is_some_and(|their_key| their_key == state) && theirs.get("'state'").is_some_and(|their_state| their_state == key);
    recursive.then(|| {
        SaltError::new(Code::RequisiteCycle, format!("A recursive requisite was found, SLS \"{sls}\" ID \"{id_s}\" ID \"{}\"", value.py_str()))
            .at(req.at.clone())
            .id(id_s.to_string())
            .target(value.py_str())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    fn verify(text: &str, version: SaltVersion) -> Vec<(Code, String)> {
        let high = crate::render::render_yaml(text, 0).expect("yaml");
        verify_high(high.as_dict().expect("dict"), version).into_iter().map(|e| (e.code, e.message)).collect()
    }

    #[test]
    fn a_direct_cycle_is_refused_before_3008_only() {
        let text =
            "a:\n  __sls__: s\n  test:\n    - nop\n    - require:\n      - test: b\nb:\n  __sls__: s\n  test:\n    - nop\n    - require:\n      - test: a\n";
        let old = verify(text, SaltVersion::V3006);
        assert_eq!(old, [(Code::RequisiteCycle, "A recursive requisite was found, SLS \"s\" ID \"b\" ID \"a\"".to_string())]);
        assert!(verify(text, SaltVersion::V3008).is_empty());
    }

    #[test]
    fn each_release_words_and_checks_its_own_shapes() {
        // 3006 checks four requisite types' shapes; 3008 all of them.
        let text = "a:\n  __sls__: s\n  test:\n    - nop\n    - onfail: b\n";
        assert!(verify(text, SaltVersion::V3006).is_empty());
        assert_eq!(
            verify(text, SaltVersion::V3008),
            [(Code::MalformedState, "The onfail statement in state 'a' in SLS 's' needs to be formed as a list".to_string())]
        );
        // A requisite dict of two keys: 3006 takes the first, 3008 refuses it.
        let text = "a:\n  __sls__: s\n  test:\n    - nop\n    - require:\n      - {test: b, pkg: c}\nb:\n  test: [nop]\n";
        assert!(verify(text, SaltVersion::V3007).is_empty());
        assert_eq!(verify(text, SaltVersion::V3008).len(), 1);
        // A `require:` "state" without a function is skipped before 3008.
        let text = "a:\n  __sls__: s\n  require:\n    - test: b\n";
        assert!(verify(text, SaltVersion::V3006).is_empty());
        assert_eq!(verify(text, SaltVersion::V3008), [(Code::MalformedState, "No function declared in state 'a' in SLS 's'".to_string())]);
    }
}
