//! `verify_high` (`salt/state.py` `_verify_high`): the shape checks Salt runs on high data before
//! compiling it, with Salt 3008's error strings.

use crate::diagnostic::{Code, SaltError};
use crate::requisites::STATE_REQUISITE_KEYWORDS;
use crate::value::{Dict, Val, V};

/// `_verify_high(high)`.
pub fn verify_high(high: &Dict) -> Vec<SaltError> {
    let mut errors = Vec::new();
    for (id, body) in &high.0 {
        let sls = body.as_dict().and_then(|b| b.get("__sls__")).map(Val::py_cow).unwrap_or_default();
        let id_s = id.py_cow();
        let err = |msg: String, at: Option<crate::value::Loc>| SaltError::new(Code::MalformedState, msg).at(at).id(id_s.to_string());
        match &id.v {
            V::Str(s) if s.starts_with("__") => continue,
            V::Str(_) => {}
            _ => errors.push(err(
                format!("ID '{id_s}' in SLS '{sls}' is not formed as a string, but is type {}. It may need to be quoted.", id.py_type()),
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
                    V::Dict(d) => verify_arg(d, arg, &id_s, &sls, &mut errors),
                    _ => {}
                }
            }
            if fun_count == 0 {
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
    errors
}

fn verify_arg(d: &Dict, arg: &Val, id: &str, sls: &str, errors: &mut Vec<SaltError>) {
    let Some(first) = d.first_key() else { return };
    let argfirst = first.py_cow();
    let value = &d.0[0].1;
    let err = |msg: String, at: Option<crate::value::Loc>| SaltError::new(Code::MalformedState, msg).at(at).id(id.to_string());
    if argfirst == "names" && value.as_list().is_none() {
        errors.push(err(format!("The 'names' argument in state '{id}' in SLS '{sls}' needs to be formed as a list"), first.at.clone()));
    }
    if !STATE_REQUISITE_KEYWORDS.contains(&&*argfirst) {
        return;
    }
    match value.as_list() {
        None => errors.push(err(format!("The {argfirst} statement in state '{id}' in SLS '{sls}' needs to be formed as a list"), first.at.clone())),
        Some(reqs) => {
            for req in reqs {
                let (k, v) = match &req.v {
                    // `{'id': s}`: a key without a dot and a hashable value, nothing to report.
                    V::Str(_) => continue,
                    V::Dict(d) if d.len() == 1 => (&d.0[0].0, &d.0[0].1),
                    _ => {
                        let shown = match &req.v {
                            V::Dict(_) => req.py_repr(),
                            _ => req.py_str(),
                        };
                        errors.push(err(
                            format!("Requisite declaration {shown} in state {id} in SLS {sls} is not formed as a single key dictionary"),
                            req.at.clone(),
                        ));
                        continue;
                    }
                };
                let key = k.py_cow();
                if let Some(dot) = key.find('.') {
                    errors.push(err(
                        format!(
                            "Invalid requisite type '{key}' in state '{id}', in SLS '{sls}'. Requisite types must not contain dots, did you mean '{}'?",
                            &key[..dot]
                        ),
                        k.at.clone().or(req.at.clone()),
                    ));
                }
                if !v.is_hashable() {
                    errors.push(err(format!("Illegal requisite \"{}\" in SLS \"{sls}\", please check your syntax.\n", v.py_str()), req.at.clone()));
                    continue;
                }
            }
        }
    }
    if d.len() != 1 {
        errors.push(err(format!("Multiple dictionaries defined in argument of state '{id}' in SLS '{sls}'"), arg.at.clone()));
    }
}
