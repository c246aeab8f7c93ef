//! Whether each state's call fits its state function, as `State.call` finds out only at apply
//! time: an unknown module or function (`verify_data`: "State 'x.y' was not found in SLS"), a
//! required argument not given ("Missing parameter"), an argument a function without
//! `**kwargs` does not take (`format_call`: "... is an invalid keyword argument for ...", which
//! aborts the whole run), an argument of a function with `**kwargs` that is a likely typo of a
//! named parameter (Salt ignores it silently), and a function Salt says is deprecated. Checked on low chunks (after
//! `names`, `extend` and `use` gave each state its arguments), against a
//! [`Catalog`](crate::state::catalog::Catalog).

use crate::diagnostic::{Code, SaltError};
use crate::requisites::is_internal_keyword;
use crate::state::catalog::Catalog;
use crate::state::compile::Chunk;
use crate::value::{Dict, Loc};

/// Keys a low chunk carries that `State.call` never passes on: `name_order` (popped while
/// ordering, `salt/utils/requisite.py`).
const CHUNK_BOOKKEEPING: &[&str] = &["name_order"];

/// The call problems of `chunks` (compiled from `high`), each once. `skip` says which
/// declarations not to judge (a static check leaves templated files to the rendered
/// highstate).
pub fn call_errors(high: &Dict, chunks: &[Chunk], catalog: &Catalog, skip: &dyn Fn(Option<&Loc>) -> bool) -> Vec<SaltError> {
    let mut out: Vec<SaltError> = Vec::new();
    let mut push = |e: SaltError| {
        if !out.iter().any(|o| o.code == e.code && o.message == e.message && o.loc == e.loc) {
            out.push(e);
        }
    };
    // Each chunk's declaration, found by ID once rather than by a scan per chunk.
    let bodies: std::collections::HashMap<String, &crate::value::Val> = high.0.iter().map(|(k, v)| (k.py_cow().into_owned(), v)).collect();
    for chunk in chunks {
        let state = chunk.get_str("state");
        let fun = chunk.get_str("fun");
        let id = chunk.get_str("__id__");
        let sls = chunk.get_str("__sls__");
        let full = format!("{state}.{fun}");
        let decl = bodies.get(id.as_str()).and_then(|body| declaration(body, &state, &fun)).or_else(|| chunk.id_loc.clone());
        if skip(decl.as_ref()) {
            continue;
        }
        let Some(function) = catalog.function(&state, &fun) else {
            let mut message = format!("State '{full}' was not found in SLS '{sls}'\nReason: '{full}' is not available.");
            if let Some(near) = did_you_mean(&full, catalog.modules().flat_map(|m| m.functions.iter().map(move |f| format!("{}.{}", m.name, f.name)))) {
                message.push_str(&format!("\nDid you mean '{near}'?"));
            }
            push(SaltError::new(Code::UnknownFunction, message).at(decl.clone()).id(id.clone()));
            continue;
        };
        for arg in function.args.iter().filter(|a| a.default.is_none()) {
            if chunk.d.get(&arg.name).is_none() {
                push(SaltError::new(Code::MissingParameter, format!("Missing parameter {} for state {full}", arg.name)).at(decl.clone()).id(id.clone()));
            }
        }
        for (k, _) in &chunk.d.0 {
            let Some(key) = k.as_str() else { continue };
            if is_internal_keyword(key) || CHUNK_BOOKKEEPING.contains(&key) || function.arg(key).is_some() {
                continue;
            }
            if function.kwargs {
                // Salt passes it in `**kwargs`, where the function never looks for it.
                if let Some(near) = near_miss(key, function.args.iter().map(|a| a.name.as_str())) {
                    let message = format!("'{key}' is not a parameter of '{full}': Salt passes it on in **kwargs, where it is ignored\nDid you mean '{near}'?");
                    push(SaltError::new(Code::LikelyTypo, message).at(k.at.clone().or(decl.clone())).id(id.clone()));
                }
            } else {
                let mut message = format!("'{key}' is an invalid keyword argument for '{full}'");
                if let Some(near) = did_you_mean(key, function.args.iter().map(|a| a.name.clone())) {
                    message.push_str(&format!("\nDid you mean '{near}'?"));
                }
                push(SaltError::new(Code::UnknownArgument, message).at(k.at.clone().or(decl.clone())).id(id.clone()));
            }
        }
        if let Some(words) = &function.deprecated {
            push(SaltError::new(Code::DeprecatedFunction, format!("State '{full}' is deprecated: {words}")).at(decl.clone()).id(id.clone()));
        }
    }
    out
}

/// The `module.function` an [`Code::UnknownFunction`] message is about (the editor drops the
/// warning when the user's own Salt documents that function: an extension it loads).
pub fn unknown_function_name(message: &str) -> Option<&str> {
    message.strip_prefix("State '")?.split_once("' was not found").map(|(name, _)| name)
}

/// Where a state's body (`body`) declares `state` (`pkg.installed:` or `pkg:` with `- installed`): the
/// dotted key, else the function's list item, else the module key.
fn declaration(body: &crate::value::Val, state: &str, fun: &str) -> Option<Loc> {
    let body = body.as_dict()?;
    for (k, run) in &body.0 {
        let key = k.py_cow();
        if key == format!("{state}.{fun}") {
            return k.at.clone();
        }
        if key == state {
            let item = run.as_list().into_iter().flatten().find(|a| a.as_str() == Some(fun));
            return item.and_then(|a| a.at.clone()).or_else(|| k.at.clone());
        }
    }
    None
}

/// The named parameter `key` is one or two edits (Damerau-Levenshtein) from, the closest
/// first; one edit only for parameters of four characters or more and two for six or more: a
/// short name is one or two edits from many unrelated words.
fn near_miss<'a>(key: &str, params: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    params
        .map(|p| (strsim::damerau_levenshtein(key, p), p))
        .filter(|(d, p)| *d >= 1 && (*d == 1 && p.chars().count() >= 4 || *d == 2 && p.chars().count() >= 6))
        .min_by_key(|(d, _)| *d)
        .map(|(_, p)| p)
}

/// The candidate closest to `word`, when one is close enough to be a likely typo.
pub fn did_you_mean(word: &str, candidates: impl Iterator<Item = String>) -> Option<String> {
    let mut best: Option<(f64, String)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(word, &c);
        if score >= 0.85 && best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}
