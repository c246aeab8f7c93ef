//! An edit that changes only argument values: which values a file's new render changes
//! ([`changed_args`]) when it declares the same states, functions, requisites, names and
//! orders as before, and the compiled highstate with those values put in place
//! ([`apply`]) -- what compiling the whole highstate again would give, without doing it.
//!
//! Exact because nothing between the render and the low chunks reads a plain argument's
//! value (one that is no Salt keyword: not `name`, `names`, a requisite, `order`, `onlyif`
//! ...) but the chunk that carries it: `verify_high`, ordering and the call check look at
//! keys, functions and keywords only, and `_in` requisites at values only where a requisite
//! names them (`find_name` matches any one-key argument), which [`apply`] checks. `extend`
//! and `use` copy values between states, so a highstate with either is compiled again.

use crate::requisites::is_internal_keyword;
use crate::state::lowstate::LowState;
use crate::value::{Dict, Loc, Val, V};

/// A state argument whose value an edit changed: state ID `id`, module `module`, argument
/// `key`, new value `value`.
#[derive(Debug, Clone)]
pub struct ArgChange {
    pub id: Val,
    pub module: String,
    pub key: String,
    pub value: Val,
}

/// The edit of a plain file's text (its data is located in it): what follows moves.
pub type Edit = crate::value::TextEdit;

/// Where an old location is in the edited text: `None` when it lies across the edit.
fn moved(edit: &Edit, loc: &Option<Loc>) -> Option<Option<Loc>> {
    match loc {
        Some(l) => edit.moved(l).map(Some),
        None => Some(None),
    }
}

/// Moves every location of `low` in the edited file (high data, chunks, errors, hints,
/// includes) to the new text; `false` when an error, an include or a state's ID lies across
/// the edit. A value across it is left: it is one the patch replaces.
pub fn shift_low(edit: &Edit, low: &mut LowState) -> bool {
    let mut fits = true;
    let mut value = |at: &mut Option<Loc>| {
        if let Some(Some(moved)) = moved(edit, at) {
            *at = Some(moved);
        }
    };
    let mut must = |at: &mut Loc| match edit.moved(at) {
        Some(moved) => *at = moved,
        None => fits = false,
    };
    for (k, v) in &mut low.highstate.high.0 {
        k.locs_mut(&mut value);
        v.locs_mut(&mut value);
    }
    for chunk in low.chunks.iter_mut().flatten() {
        for (k, v) in &mut chunk.d.0 {
            k.locs_mut(&mut value);
            v.locs_mut(&mut value);
        }
        chunk.id_loc.iter_mut().for_each(&mut must);
    }
    let errors = low.show_errors.iter_mut().chain(&mut low.apply_errors).chain(&mut low.calls).chain(&mut low.highstate.errors).chain(&mut low.highstate.hints);
    for e in errors {
        e.locs_mut(&mut must);
    }
    low.highstate.rendered.iter_mut().flat_map(|r| &mut r.includes).filter_map(|i| i.loc.as_mut()).for_each(&mut must);
    fits
}

/// How [`changed_args`] compares locations: where an old one is in the new text.
type Places<'a> = &'a dyn Fn(&Option<Loc>) -> Option<Option<Loc>>;

/// Whether two values are the same value of the same type, written in the same place (after
/// `places` moved the old one; Python equality is looser: `1 == True`, dicts in any order).
fn identical_at(a: &Val, b: &Val, places: Places) -> bool {
    places(&a.at).is_some_and(|at| at == b.at)
        && match (&a.v, &b.v) {
            (V::None, V::None) => true,
            (V::Bool(x), V::Bool(y)) => x == y,
            (V::Int(x), V::Int(y)) => x == y,
            (V::Float(x), V::Float(y)) => x.to_bits() == y.to_bits(),
            (V::Str(x), V::Str(y)) => x == y,
            (V::List(x), V::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| identical_at(p, q, places)),
            (V::Dict(x), V::Dict(y)) => same_keys(x, y, places) && x.0.iter().zip(&y.0).all(|((_, p), (_, q))| identical_at(p, q, places)),
            _ => false,
        }
}

/// Whether two values are the same value of the same type, written in the same place.
pub fn identical(a: &Val, b: &Val) -> bool {
    identical_at(a, b, &|l| Some(l.clone()))
}

/// The same keys in the same order.
fn same_keys(a: &Dict, b: &Dict, places: Places) -> bool {
    a.0.len() == b.0.len() && a.0.iter().zip(&b.0).all(|((k, _), (l, _))| identical_at(k, l, places))
}

/// Whether an argument's value only ever reaches its own chunk: not a keyword Salt reads while
/// compiling, ordering or calling (requisites, `order`, `onlyif` ...), not `names`, not
/// bookkeeping. `name` is one too, but requisites find states by it and ordering breaks ties
/// with it: [`apply`] patches a name only where neither can tell.
fn plain(key: &str) -> bool {
    !(is_internal_keyword(key) || key.starts_with("__") || matches!(key, "names" | "name_order"))
}

/// The module of a state key (`pkg` of `pkg.installed`).
fn module(key: &str) -> &str {
    key.split('.').next().unwrap_or(key)
}

/// The plain argument values `new` (a file's new render) changes from `old` (its earlier
/// render), or `None` when it changes anything else: another ID, function, keyword or
/// requisite, an `include`, `extend` or `exclude`, the shape of an argument list. An
/// argument given twice in one list, a module declared twice under one ID and `names` with
/// per-name arguments are left to a full compile.
pub fn changed_args(old: &Val, new: &Val) -> Option<Vec<ArgChange>> {
    changed_args_at(old, new, &|l| Some(l.clone()))
}

/// [`changed_args`] of a file whose text had `edit` (a plain file's data is located in its
/// text: what follows the edit moved).
pub fn changed_args_after(old: &Val, new: &Val, edit: &Edit) -> Option<Vec<ArgChange>> {
    changed_args_at(old, new, &|l| moved(edit, l))
}

fn changed_args_at(old: &Val, new: &Val, places: Places) -> Option<Vec<ArgChange>> {
    let identical = |a: &Val, b: &Val| identical_at(a, b, places);
    let (V::Dict(old), V::Dict(new)) = (&old.v, &new.v) else { return identical(old, new).then(Vec::new) };
    // (The document's own location is not kept by a compile, and spans the edit.)
    if !same_keys(old, new, places) {
        return None;
    }
    let mut changes = Vec::new();
    for ((id, a), (_, b)) in old.0.iter().zip(&new.0) {
        let key = id.as_str();
        let state_like = key.is_some_and(|k| !matches!(k, "include" | "extend" | "exclude") && !k.starts_with("__"));
        match (&a.v, &b.v) {
            (V::Dict(a), V::Dict(b)) if state_like => body_changes(id, a, b, places, &mut changes)?,
            _ if identical(a, b) => {}
            _ => return None,
        }
    }
    Some(changes)
}

/// [`changed_args`] within one state's body.
fn body_changes(id: &Val, old: &Dict, new: &Dict, places: Places, changes: &mut Vec<ArgChange>) -> Option<()> {
    let identical = |a: &Val, b: &Val| identical_at(a, b, places);
    if !same_keys(old, new, places) {
        return None;
    }
    let mut modules: Vec<&str> = Vec::new();
    for ((state, a), (_, b)) in old.0.iter().zip(&new.0) {
        let Some(state) = state.as_str().filter(|s| !s.starts_with("__")) else {
            if identical(a, b) {
                continue;
            }
            return None;
        };
        if modules.contains(&module(state)) {
            return None;
        }
        modules.push(module(state));
        let (Some(a), Some(b)) = (a.as_list(), b.as_list()) else {
            if identical(a, b) {
                continue;
            }
            return None;
        };
        if a.len() != b.len() {
            return None;
        }
        let keys: Vec<&str> = a.iter().filter_map(Val::as_dict).flat_map(|d| d.0.iter().filter_map(|(k, _)| k.as_str())).collect();
        let per_name_args =
            a.iter().filter_map(Val::as_dict).filter_map(|d| d.get("names")).any(|n| n.as_list().is_some_and(|l| l.iter().any(|e| e.as_dict().is_some())));
        for (x, y) in a.iter().zip(b) {
            let (Some(x), Some(y)) = (x.as_dict(), y.as_dict()) else {
                if identical(x, y) {
                    continue;
                }
                return None;
            };
            if !same_keys(x, y, places) {
                return None;
            }
            for ((k, p), (_, q)) in x.0.iter().zip(&y.0) {
                if identical(p, q) {
                    continue;
                }
                let key = k.as_str().filter(|k| plain(k))?;
                if per_name_args || keys.iter().filter(|o| **o == key).count() != 1 {
                    return None;
                }
                changes.push(ArgChange { id: id.clone(), module: module(state).to_string(), key: key.to_string(), value: q.clone() });
            }
        }
    }
    Some(())
}

/// What a patch needs to know of a whole compile: the same for every patch of it (a patch
/// changes no keyword, requisite or state), so it is found once per compile.
#[derive(Debug)]
pub struct Facts {
    /// Some state copies another's arguments (`use`, `use_in`) or the highstate extends
    /// states: a changed value may then show up in other states too.
    pub copies_arguments: bool,
    /// Every string in a requisite argument (keys too).
    targets: std::collections::HashSet<String>,
    /// One of them is a glob, which could match any name.
    glob: bool,
}

/// The [`Facts`] of rendered high data.
pub fn facts(high: &Dict) -> Facts {
    let copies_arguments = high.contains("__extend__") || crate::state::extend::borrows_arguments(high);
    // Every string of every requisite argument (any requisite or `_in` keyword).
    let mut strings_in = Vec::new();
    let args = high.0.iter().filter_map(|(_, body)| body.as_dict()).flat_map(|b| b.0.iter().filter_map(|(_, run)| run.as_list()).flatten());
    for (_, v) in args.filter_map(Val::as_dict).flat_map(|d| &d.0).filter(|(k, _)| k.as_str().is_some_and(crate::requisites::is_requisite_key)) {
        strings(v, &mut strings_in);
    }
    let glob = strings_in.iter().any(|t| crate::py::fnmatch::has_magic(t));
    Facts { copies_arguments, targets: strings_in.into_iter().map(str::to_string).collect(), glob }
}

/// Every string inside `v` (dict keys too).
fn strings<'v>(v: &'v Val, out: &mut Vec<&'v str>) {
    match &v.v {
        V::Str(s) => out.push(s),
        V::List(l) => l.iter().for_each(|x| strings(x, out)),
        V::Dict(d) => d.0.iter().for_each(|(k, x)| {
            strings(k, out);
            strings(x, out)
        }),
        _ => {}
    }
}

/// Whether the state `id`'s `module` chunk may be renamed from `old` to `new` without a
/// compile seeing the difference anywhere but in that chunk: both are strings, the state has
/// no `names`, the compile has no errors (their messages name states), no requisite
/// anywhere names either (or is a glob), and the chunk's ordering label (`state + name +
/// fun`, the tie-break among equal orders) cannot decide anything: its own order is unique,
/// or no other chunk's label lies between the old label and the new one.
fn renamable(low: &LowState, facts: &Facts, id: &str, module: &str, old: &Val, new: &Val) -> bool {
    let (Some(old), Some(new)) = (old.as_str(), new.as_str()) else { return false };
    let Some(chunks) = &low.chunks else { return false };
    if !low.show_errors.is_empty() || !low.apply_errors.is_empty() {
        return false;
    }
    if facts.glob || facts.targets.contains(old) || facts.targets.contains(new) {
        return false;
    }
    let mut mine = chunks.iter().filter(|c| c.d.get("__id__").and_then(Val::as_str) == Some(id) && c.d.get("state").and_then(Val::as_str) == Some(module));
    let (Some(chunk), None) = (mine.next(), mine.next()) else { return false };
    if chunk.d.contains("name_order") || chunk.d.get("name").and_then(Val::as_str) != Some(old) {
        return false;
    }
    // The label breaks ties of the order key (the order after requisites, then the chunk's own
    // order, numeric once ordered): a chunk whose own order no other chunk has never ties.
    let own = |c: &crate::state::chunk::Chunk| c.d.get("order").and_then(crate::state::order::num_of);
    if let Some(mine) = own(chunk) {
        if chunks.iter().filter(|c| !std::ptr::eq(*c, chunk)).all(|c| own(c).is_some_and(|o| o != mine)) {
            return true;
        }
    }
    let fun = chunk.d.get("fun").and_then(Val::as_str).unwrap_or("");
    let label = |name: &str| format!("{module}{name}{fun}");
    let (a, b) = (label(old), label(new));
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    // Each label compared as the concatenation it is, without making it.
    let cmp = |c: &crate::state::chunk::Chunk, with: &str| {
        let part = |k: &str| c.d.get(k).map_or(std::borrow::Cow::Borrowed(""), Val::py_cow);
        let (s, n, f) = (part("state"), part("name"), part("fun"));
        s.bytes().chain(n.bytes()).chain(f.bytes()).cmp(with.bytes())
    };
    chunks.iter().filter(|c| !std::ptr::eq(*c, chunk)).all(|c| cmp(c, &lo).is_lt() || cmp(c, &hi).is_gt())
}

/// Puts `changes` (made to SLS `sls` of `env`) into the compiled highstate `low`: its
/// rendered high data and every low chunk of the changed states. `false` when a change has no
/// single place there (the ID is declared by another file, the argument is not where the
/// render put it): the caller compiles afresh, having changed `low` in part.
pub fn apply(low: &mut LowState, facts: &Facts, env: &str, sls: &str, changes: &[ArgChange]) -> bool {
    changes.iter().all(|c| apply_one(low, facts, env, sls, c))
}

/// [`apply`] of one change.
fn apply_one(low: &mut LowState, facts: &Facts, env: &str, sls: &str, change: &ArgChange) -> bool {
    let from_file = |d: &Dict| d.get("__sls__").and_then(Val::as_str) == Some(sls) && d.get("__env__").and_then(Val::as_str) == Some(env);
    let id = change.id.py_str();
    let Some(at) = low.highstate.high.0.iter().position(|(k, _)| k == &change.id) else { return false };
    {
        let Some(body) = low.highstate.high.0[at].1.as_dict() else { return false };
        let Some(run) = body.get(&change.module).and_then(Val::as_list).filter(|_| from_file(body)) else { return false };
        let olds: Vec<&Val> = run.iter().filter_map(Val::as_dict).filter_map(|d| d.get(&change.key)).collect();
        if olds.len() != 1 || (change.key == "name" && !renamable(low, facts, &id, &change.module, olds[0], &change.value)) {
            return false;
        }
        // An `_in` requisite finds its target by any one-key argument whose value is the
        // name it gives (`find_name`), not only by `name`: a value a requisite names is no
        // plain value.
        if [olds[0], &change.value].iter().any(|v| v.as_str().is_some_and(|s| facts.targets.contains(s))) {
            return false;
        }
    }
    let run = low.highstate.high.0[at].1.as_dict_mut().and_then(|b| b.get_mut(&change.module));
    for arg in run.and_then(Val::as_list_mut).into_iter().flatten().filter_map(Val::as_dict_mut) {
        if let Some(v) = arg.get_mut(&change.key) {
            *v = change.value.clone();
        }
    }
    for chunk in low.chunks.iter_mut().flatten() {
        if chunk.d.get("__id__").and_then(Val::as_str) != Some(&id) || chunk.d.get("state").and_then(Val::as_str) != Some(&change.module) {
            continue;
        }
        if !from_file(&chunk.d) {
            return false;
        }
        let Some(v) = chunk.d.get_mut(&change.key) else { return false };
        *v = change.value.clone();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(yaml: &str) -> Val {
        crate::render::render_data(yaml, None, 0).expect("yaml")
    }

    fn changes(old: &str, new: &str) -> Option<Vec<String>> {
        changed_args(&val(old), &val(new)).map(|c| c.iter().map(|c| format!("{}:{}:{}={}", c.id.py_str(), c.module, c.key, c.value.py_repr())).collect())
    }

    #[test]
    fn only_plain_argument_values_are_patched() {
        let base = "a:\n  file.managed:\n    - name: /a\n    - contents: x\n    - require:\n      - pkg: p\nb:\n  pkg:\n    - installed\n    - version: '1'\n";
        // Values of the same length: what follows stays where it was written.
        assert_eq!(changes(base, base), Some(vec![]));
        assert_eq!(changes(base, &base.replace("contents: x", "contents: y")), Some(vec!["a:file:contents='y'".to_string()]));
        // A value of another length moves what follows it (a plain file's spans): not the same.
        assert_eq!(changes(base, &base.replace("contents: x", "contents: yy")), None);
        assert_eq!(changes(base, &base.replace("version: '1'", "version: '2'")), Some(vec!["b:pkg:version='2'".to_string()]));
        // A name too (`apply` judges whether anything else can tell).
        assert_eq!(changes(base, &base.replace("name: /a", "name: /b")), Some(vec!["a:file:name='/b'".to_string()]));
        for structural in [
            base.replace("pkg: p", "pkg: q"),
            base.replace("file.managed", "file.absent"),
            base.replace("- installed", "- removed"),
            base.replace("contents: x", "onlyif: x"),
            base.replace("contents: x", "unless: x"),
            base.replace("b:\n", "c:\n"),
            format!("include:\n  - x\n{base}"),
        ] {
            assert_eq!(changes(base, &structural), None, "{structural}");
        }
        // A key given twice, per-name arguments: left to a full compile.
        let twice = "a:\n  file.managed:\n    - contents: x\n    - contents: z\n";
        assert_eq!(changes(twice, &twice.replacen("contents: x", "contents: y", 1)), None);
        let names = "a:\n  file.managed:\n    - contents: x\n    - names:\n      - /a: [{mode: '1'}]\n";
        assert_eq!(changes(names, &names.replace("contents: x", "contents: y")), None);
    }
}
