//! The order `state.apply` runs the states in (`State.call_high` -> `call_chunks` ->
//! `call_chunk`, then `call_listen`): the chunks `call_high` compiles, sorted by the
//! requisite graph of [`crate::state::order`] (3008) or walked as 3006 and 3007 run them
//! ([`crate::state::walk`]), the `__run_num__` each gets when every state
//! runs once, the `mod_watch` runs `listen`/`listen_in` add at the end and when each fires,
//! and the `parallel: True` states whose place depends on when another one finishes.

use crate::diagnostic::SaltError;
use crate::state::chunk::Chunk;
use crate::state::chunk::LowChunk;
use crate::state::lowstate::{apply_chunks, LowState};
use crate::state::order::{order_chunks_traced, Step};
use std::collections::HashMap;

use crate::value::{Dict, Loc, Val, V};
use crate::version::SaltVersion;

/// One state in the run.
#[derive(Debug, Clone)]
pub struct Planned {
    pub tag: String,
    pub id: String,
    pub sls: String,
    pub state: String,
    pub fun: String,
    pub name: String,
    /// Its `order` after ordering normalised it (`str()` of Salt's value).
    pub order: String,
    /// Its `__run_num__` when every call runs once. The test run of a `prereq`'d state takes
    /// no number (`State.call` returns before numbering a `__prereq__` call). (A `watch` that
    /// fires calls `mod_watch` after the state, which takes another number at run time; the
    /// order does not change.)
    pub run_num: usize,
    /// When another state `prereq`s it: the `__run_num__` it takes if its result is recorded
    /// at its test run instead (the test run's own requisites failed, or found no changes for
    /// `onchanges`, `onfail` or a nested `prereq`: `call_chunk` then records "not run" there
    /// and skips the real run). The states from there to its real run then move up by one.
    pub test_run_num: Option<usize>,
    /// Its place in the sorted requisite graph, where test runs have places too.
    pub step: usize,
    /// The place of its test run, when another state `prereq`s it.
    pub test_step: Option<usize>,
    /// `parallel: True`: `State.call` starts it in a process of its own.
    pub parallel: bool,
    /// The `parallel` states it waits for when it is `parallel` itself: if one of them is
    /// still running when its turn comes, `call_chunks` puts it off (`_check_requisites` says
    /// "pending") and tries again before each later state, so it, and whatever needs it, may
    /// run later than `run_num` says; when depends on how long that process takes.
    pub may_wait: Vec<String>,
    /// What its test run waits for, when another state `prereq`s it.
    pub test_after: Vec<(String, &'static str)>,
    /// The `parallel` states its test run waits for, when it is `parallel` itself. A test run
    /// put off this way keeps the chunk marked `__prereq__`, so when `call_chunks` reaches the
    /// state's own place first, that place only tries the test run again, and the state is
    /// not run at all (as with a test run put off behind any state in `may_wait`).
    pub test_may_wait: Vec<String>,
    /// What it waits for: the states' tags and the requisite kinds, in Salt's order. A state
    /// that `prereq`s this one appears as `prerequired`; the test run of a state this one
    /// `prereq`s as `prereq`.
    pub after: Vec<(String, &'static str)>,
    /// The states that wait for it, with their kinds.
    pub before: Vec<(String, &'static str)>,
    pub id_loc: Option<Loc>,
}

/// The run of a state tree.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The states, in the order they run.
    pub states: Vec<Planned>,
    /// The `mod_watch` runs of `listen` and `listen_in`, and `call_listen`'s errors for a
    /// listened-to state that does not exist, after every state, in the order they run when
    /// every listened-to state reports changes.
    pub listeners: Vec<Listener>,
    /// The requisite graph as Salt's `DependencyGraph.to_dot` draws it.
    pub dot: String,
    /// Why Salt raises after running every state, if it does: `call_listen` takes each
    /// `listen_in` entry for a one-key dict, so a bare ID (or a `listen_in` that is not a list)
    /// raises before the results come back.
    pub listen_crash: Option<String>,
}

/// A run `State.call_listen` adds after every state has run: a listening state's `mod_watch`
/// (ID `listener_ID`), or a `Listen_Error` result for a listened-to state that does not exist.
#[derive(Debug, Clone)]
pub struct Listener {
    pub tag: String,
    pub id: String,
    pub sls: String,
    pub state: String,
    /// `mod_watch`, or `Listen_Error`.
    pub fun: String,
    pub name: String,
    /// The listening state's tag (a `mod_watch` run).
    pub of: Option<String>,
    /// Its `__run_num__` when every trigger fires.
    pub run_num: usize,
    /// The states whose changes make it run, each with its step in `call_listen`'s walk.
    /// The runs that happen keep the order of the first step each one's fired triggers reach.
    pub triggers: Vec<(usize, String)>,
    /// The step at which it is added whatever changed (a `listen` naming a state that does
    /// not exist).
    pub always: Option<usize>,
    /// The comment of a `Listen_Error`.
    pub comment: Option<String>,
    /// Its state is `prereq`'d: when that state's result is recorded at its test run, its
    /// chunk keeps `__prereq__` (only a test run that runs clears it), this copy of the chunk
    /// too, and `call_chunk` files the `mod_watch` run with the test runs, so it is not
    /// among the results.
    pub lost_if_recorded_at_test: bool,
}

impl Plan {
    /// The states whose ID is `id`, in run order.
    pub fn of_id<'p>(&'p self, id: &'p str) -> impl Iterator<Item = (usize, &'p Planned)> + 'p {
        self.states.iter().enumerate().filter(move |(_, s)| s.id == id)
    }
}

/// The run `state.apply` would make of what `low` compiled, or the errors it stops on
/// before running anything.
pub fn plan(low: &LowState) -> Result<Plan, Vec<SaltError>> {
    // Rendering errors stop both pipelines (so does a top Salt raises on, which leaves nothing
    // rendered). Past them only `state.apply`'s own steps count: `show_low_sls` finds
    // problems in states that `_in`, `extend` or `exclude` change before a run.
    let highstate = &low.highstate;
    if !highstate.errors.is_empty() || (highstate.rendered.is_empty() && !low.show_errors.is_empty()) {
        return Err(low.errors().into_iter().cloned().collect());
    }
    if !low.apply_errors.is_empty() {
        return Err(low.apply_errors.clone());
    }
    // `format_call` raises on an argument the function does not take, before it is called:
    // the run ends there.
    if let Some(e) = low.calls.iter().find(|e| e.code == crate::diagnostic::Code::UnknownArgument) {
        return Err(vec![e.clone()]);
    }
    plan_high(&highstate.high, low.version)
}

/// [`plan`] of rendered high data.
pub fn plan_high(high: &Dict, version: SaltVersion) -> Result<Plan, Vec<SaltError>> {
    let chunks = apply_chunks(high, version)?;
    if !version.requisite_graph() {
        // `call_listen` walks the chunks as `order` sorted them, not as they ran.
        let sorted = crate::state::order::order_chunks_as(chunks, version).chunks;
        let (ran, steps) = crate::state::walk::walk(&sorted, version).map_err(|e| vec![e])?;
        return Ok(plan_of(&ran, &steps, &sorted));
    }
    let (ordered, steps) = order_chunks_traced(chunks);
    if !ordered.errors.is_empty() {
        return Err(ordered.errors);
    }
    Ok(plan_of(&ordered.chunks, &steps, &ordered.chunks))
}

/// The plan of `chunks` run in `steps`; `call_listen` then walks `listened` (3008: the same
/// chunks; 3006 and 3007: the chunks as `order` sorted them).
fn plan_of(chunks: &[Chunk], steps: &[Step], listened: &[Chunk]) -> Plan {
    // The chunk tag of every position: a test run carries its state's tag.
    let tags: Vec<String> = chunks.iter().map(LowChunk::tag).collect();
    // Each real state's position, and the position of its test run; the numbers count real
    // runs only (a test run that runs takes none).
    let mut real: Vec<usize> = Vec::new();
    let mut test_of: HashMap<&str, usize> = HashMap::new();
    let mut number_at: Vec<usize> = Vec::with_capacity(steps.len());
    for (pos, step) in steps.iter().enumerate() {
        number_at.push(real.len());
        if step.prereq_test {
            test_of.insert(tags[pos].as_str(), pos);
        } else {
            real.push(pos);
        }
    }
    let kind_of = |pos: usize, src: usize, kind: &'static str| -> &'static str {
        // `A prereq B` makes B's real run wait for A through a `require` edge: B's test run
        // is among A's dependencies.
        if kind == "require" && !steps[src].prereq_test {
            if let Some(&t) = test_of.get(tags[pos].as_str()) {
                if steps[src].after.iter().any(|&(s, k)| s == t && k == "prereq") {
                    return "prerequired";
                }
            }
        }
        kind
    };
    let parallel = |pos: usize| chunks[pos].get("parallel").is_some_and(Val::truthy);
    // `_check_requisites` asks `reconcile_procs` about the states a parallel state (or its
    // test run) needs: the parallel ones among them (a test run is read from `self.pre`,
    // never a process).
    let waits = |pos: usize| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for &(src, _) in &steps[pos].after {
            if !steps[src].prereq_test && parallel(src) && !out.contains(&tags[src]) {
                out.push(tags[src].clone());
            }
        }
        out
    };
    let mut states: Vec<Planned> = real
        .iter()
        .map(|&pos| {
            let c = &chunks[pos];
            let mut after: Vec<(String, &'static str)> = Vec::new();
            for &(src, kind) in &steps[pos].after {
                let entry = (tags[src].clone(), kind_of(pos, src, kind));
                if !after.contains(&entry) {
                    after.push(entry);
                }
            }
            let may_wait = if parallel(pos) { waits(pos) } else { Vec::new() };
            Planned {
                tag: tags[pos].clone(),
                id: c.get_str("__id__"),
                sls: c.get_str("__sls__"),
                state: c.get_str("state"),
                fun: c.get_str("fun"),
                name: c.get_str("name"),
                order: c.get_str("order"),
                run_num: number_at[pos],
                test_run_num: test_of.get(tags[pos].as_str()).map(|&t| number_at[t]),
                step: pos,
                test_step: test_of.get(tags[pos].as_str()).copied(),
                test_after: test_of
                    .get(tags[pos].as_str())
                    .map(|&t| steps[t].after.iter().map(|&(src, kind)| (tags[src].clone(), kind)).collect())
                    .unwrap_or_default(),
                test_may_wait: match test_of.get(tags[pos].as_str()) {
                    Some(&t) if parallel(pos) => waits(t),
                    _ => Vec::new(),
                },
                parallel: parallel(pos),
                may_wait,
                after,
                before: Vec::new(),
                id_loc: c.id_loc.clone(),
            }
        })
        .collect();
    let at: HashMap<String, usize> = states.iter().enumerate().map(|(i, s)| (s.tag.clone(), i)).collect();
    for i in 0..states.len() {
        let (tag, after) = (states[i].tag.clone(), states[i].after.clone());
        for (dep, kind) in after {
            if let Some(&d) = at.get(&dep) {
                let entry = (tag.clone(), kind);
                if !states[d].before.contains(&entry) {
                    states[d].before.push(entry);
                }
            }
        }
    }
    let listen_crash = listen_crash(listened);
    // Salt raises in `call_listen` before any listener runs.
    let listeners = if listen_crash.is_some() { Vec::new() } else { call_listen(listened, states.len()) };
    Plan { states, listeners, dot: to_dot(chunks, steps), listen_crash }
}

/// The key `call_listen` files a chunk under: `(state, __id__, name)`.
struct Cref<'c> {
    state: &'c Val,
    id: &'c Val,
    name: &'c Val,
    chunk: &'c Chunk,
}

impl Cref<'_> {
    /// `lkey == cref[0] and lval in cref`.
    fn matches(&self, key: &Val, val: &Val) -> bool {
        key == self.state && (val == self.state || val == self.id || val == self.name)
    }
}

/// `State.call_listen` over the ordered chunks (a `prereq`'d state's chunk is there twice, at
/// its test run and at its run), for a run where every listened-to state reported changes:
/// which `mod_watch` runs and `Listen_Error`s it adds, in order, numbered from `first`, each
/// with the listened-to states that make it happen.
fn call_listen(chunks: &[Chunk], first: usize) -> Vec<Listener> {
    let none = Val::new(V::None);
    // `crefs`: a dict, so a key seen again keeps its first place.
    let mut crefs: Vec<Cref> = Vec::new();
    // Each listener entry: the listening key `(state, id)` and what it listens to.
    let mut listeners: Vec<((Val, Val), Vec<Val>)> = Vec::new();
    for c in chunks {
        let (state, id, name) = (c.get("state").unwrap_or(&none), c.get("__id__").unwrap_or(&none), c.get("name").unwrap_or(&none));
        match crefs.iter_mut().find(|r| r.state == state && r.id == id && r.name == name) {
            Some(r) => r.chunk = c,
            None => crefs.push(Cref { state, id, name, chunk: c }),
        }
        if let Some(list) = c.get("listen").and_then(Val::as_list) {
            listeners.push(((state.clone(), id.clone()), list.clone()));
        }
        if let Some(list) = c.get("listen_in").and_then(Val::as_list) {
            for l_in in list.iter().filter_map(Val::as_dict) {
                for (key, val) in &l_in.0 {
                    let mut own = Dict::new();
                    own.set(state.clone(), id.clone());
                    listeners.push(((key.clone(), val.clone()), vec![Val::dict(own)]));
                }
            }
        }
    }
    let mut runs: Vec<Listener> = Vec::new();
    let mut errors: Vec<Listener> = Vec::new();
    let mut step = 0usize;
    let error = |errors: &mut Vec<Listener>, key: &Val, val: &Val| -> usize {
        let tag = format!("Listen_Error_|-listen_{}_|-listen_{}_|-Listen_Error", val.py_str(), key.py_str());
        match errors.iter().position(|e| e.tag == tag) {
            Some(i) => i,
            None => {
                errors.push(Listener {
                    tag,
                    id: format!("listen_{}", val.py_str()),
                    sls: String::new(),
                    state: "Listen_Error".into(),
                    fun: "Listen_Error".into(),
                    name: format!("listen_{}:{}", key.py_str(), val.py_str()),
                    of: None,
                    run_num: 0,
                    triggers: Vec::new(),
                    always: None,
                    comment: Some(format!("Referenced state {}: {} does not exist", key.py_str(), val.py_str())),
                    lost_if_recorded_at_test: false,
                });
                errors.len() - 1
            }
        }
    };
    for ((key, kval), listen_to) in &listeners {
        for target in listen_to {
            let target = match target.as_dict() {
                Some(d) => d.clone(),
                None => {
                    // A bare ID or name: the last chunk that has it.
                    let Some(c) = chunks.iter().rev().find(|c| c.get("__id__") == Some(target) || c.get("name") == Some(target)) else {
                        continue;
                    };
                    let mut d = Dict::new();
                    d.set(c.get("state").cloned().unwrap_or_else(|| none.clone()), c.get("__id__").cloned().unwrap_or_else(|| none.clone()));
                    d
                }
            };
            for (lkey, lval) in &target.0 {
                if !crefs.iter().any(|r| r.matches(lkey, lval)) {
                    let i = error(&mut errors, lkey, lval);
                    errors[i].always.get_or_insert(step);
                    step += 1;
                    continue;
                }
                let to_tags: Vec<String> = crefs.iter().filter(|r| r.matches(lkey, lval)).map(|r| r.chunk.tag()).collect();
                for to_tag in to_tags {
                    if !crefs.iter().any(|r| r.matches(key, kval)) {
                        let i = error(&mut errors, key, kval);
                        errors[i].triggers.push((step, to_tag));
                        step += 1;
                        continue;
                    }
                    for r in crefs.iter().filter(|r| r.matches(key, kval)) {
                        let c = r.chunk;
                        let id = format!("listener_{}", c.get_str("__id__"));
                        let tag = format!("{}_|-{id}_|-{}_|-mod_watch", c.get_str("state"), c.get_str("name"));
                        let at = match runs.iter().position(|l| l.tag == tag) {
                            Some(i) => i,
                            None => {
                                runs.push(Listener {
                                    tag,
                                    id,
                                    sls: c.get_str("__sls__"),
                                    state: c.get_str("state"),
                                    fun: "mod_watch".into(),
                                    name: c.get_str("name"),
                                    of: Some(c.tag()),
                                    run_num: 0,
                                    triggers: Vec::new(),
                                    always: None,
                                    comment: None,
                                    lost_if_recorded_at_test: c.contains("__prereq__"),
                                });
                                runs.len() - 1
                            }
                        };
                        runs[at].triggers.push((step, to_tag.clone()));
                        step += 1;
                    }
                }
            }
        }
    }
    let mut out: Vec<Listener> = runs.into_iter().chain(errors).collect();
    for (i, l) in out.iter_mut().enumerate() {
        l.run_num = first + i;
    }
    out
}

/// [`Plan::listen_crash`]: the first chunk whose `listen_in` `call_listen` cannot read.
fn listen_crash(chunks: &[Chunk]) -> Option<String> {
    chunks.iter().find_map(|c| {
        let entries = c.get("listen_in")?;
        let bad = match entries.as_list() {
            Some(list) => list.iter().any(|e| e.as_dict().is_none()),
            None => !entries.as_str().is_some_and(str::is_empty) && entries.as_dict().is_none_or(|d| !d.is_empty()),
        };
        bad.then(|| {
            format!(
                "Salt raises in `call_listen` after running every state: `listen_in` of `{}` names a state without its module (write `- MODULE: ID`)",
                c.get_str("__id__")
            )
        })
    })
}

/// `DependencyGraph.to_dot`: a node per graph node (a test run of a `prereq`'d state is its
/// own node), an edge per requisite, from the state waited for to the state that waits.
fn to_dot(chunks: &[Chunk], steps: &[Step]) -> String {
    let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = vec!["digraph G {".to_string()];
    for (c, step) in chunks.iter().zip(steps) {
        let (id, name) = (c.get_str("__id__"), c.get_str("name"));
        let mut label = format!("{}.{}\\n{}", quote(&c.get_str("state")), quote(&c.get_str("fun")), quote(&id));
        if name != id {
            label.push_str(&format!("\\n({})", quote(&name)));
        }
        if step.prereq_test {
            label.push_str("\\n[prereq test]");
        }
        out.push(format!("  \"{}\" [label=\"{label}\"];", quote(&step.tag)));
    }
    for step in steps {
        for &(src, kind) in &step.after {
            out.push(format!("  \"{}\" -> \"{}\" [label=\"{kind}\"];", quote(&steps[src].tag), quote(&step.tag)));
        }
    }
    out.push("}".to_string());
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of_yaml(text: &str) -> Plan {
        let v = crate::render::render_yaml(text, 0).expect("yaml");
        plan_high(v.as_dict().expect("dict"), SaltVersion::V3008).expect("plan")
    }

    fn order(p: &Plan) -> Vec<String> {
        p.states.iter().map(|s| format!("{}@{}", s.id, s.run_num)).collect()
    }

    /// The example of docs/salt/ordering.md §3 (`salt/utils/requisite.py` `DependencyGraph._get_chunk_order`): a dependency
    /// runs at the priority of its earliest dependent.
    #[test]
    fn a_dependency_runs_at_its_dependents_priority() {
        let p = plan_of_yaml(
            "a:\n  test:\n    - nop\n    - require: [c]\n  __sls__: r\n  __env__: base\nb:\n  test: [nop]\n  __sls__: r\n  __env__: base\n\
             c:\n  test:\n    - nop\n    - require: [d]\n  __sls__: r\n  __env__: base\nd:\n  test: [nop]\n  __sls__: r\n  __env__: base\n",
        );
        assert_eq!(order(&p), ["b@0", "d@1", "c@2", "a@3"]);
        let a = &p.states[3];
        assert_eq!(a.after, [("test_|-c_|-c_|-nop".to_string(), "require")]);
        assert_eq!(p.states[2].before, [("test_|-a_|-a_|-nop".to_string(), "require")]);
    }

    /// `pre prereq target`: the target's test run comes first and takes a number.
    #[test]
    fn a_prereq_target_is_tested_first() {
        let p = plan_of_yaml(
            "target:\n  test: [succeed_with_changes]\n  __sls__: r\n  __env__: base\n\
             pre:\n  test:\n    - nop\n    - prereq: [{test: target}]\n  __sls__: r\n  __env__: base\n",
        );
        // The test run takes no number (`State.call` returns before numbering it).
        assert_eq!(order(&p), ["pre@0", "target@1"]);
        assert_eq!(p.states[1].test_run_num, Some(0));
        assert_eq!((p.states[1].test_step, p.states[1].step), (Some(0), 2));
        assert_eq!(p.states[0].after, [("test_|-target_|-target_|-succeed_with_changes".to_string(), "prereq")]);
        assert_eq!(p.states[1].after, [("test_|-pre_|-pre_|-nop".to_string(), "prerequired")]);
        assert!(p.dot.contains("__prereq_test__\" -> \"test_|-pre_|-pre_|-nop\" [label=\"prereq\"]"), "{}", p.dot);
    }

    /// `_in` requisites count (the plan is `state.apply`'s, not `show_low_sls`'s).
    #[test]
    fn requisite_in_orders() {
        let p = plan_of_yaml(
            "a:\n  test:\n    - nop\n    - order: 1\n  __sls__: r\n  __env__: base\n\
             b:\n  test:\n    - nop\n    - require_in: [a]\n  __sls__: r\n  __env__: base\n",
        );
        assert_eq!(order(&p), ["b@0", "a@1"]);
    }

    /// High data from SLS text (each ID in SLS `r`), through `state.apply`'s own steps.
    fn plan_sls(text: &str) -> Plan {
        let v = crate::render::render_yaml(text, 0).expect("yaml");
        let mut high = Dict::new();
        for (id, body) in &v.as_dict().expect("dict").0 {
            // `module.function: [args]` as the renderer splits it.
            let mut body = Dict(
                body.as_dict()
                    .expect("body")
                    .0
                    .iter()
                    .map(|(k, run)| match k.as_str().and_then(|k| k.split_once('.')) {
                        Some((module, fun)) => {
                            let mut list = run.as_list().cloned().unwrap_or_default();
                            list.push(Val::str(fun));
                            (Val::str(module), Val::list(list))
                        }
                        None => (k.clone(), run.clone()),
                    })
                    .collect(),
            );
            body.set_str("__sls__", Val::str("r"));
            body.set_str("__env__", Val::str("base"));
            high.set(id.clone(), Val::dict(body));
        }
        plan_high(&high, SaltVersion::V3008).expect("plan")
    }

    /// The plan as `plan` prints it, one line per run: number, tag, and what decides it.
    fn show(p: &Plan) -> String {
        let mut out = String::new();
        for s in &p.states {
            out.push_str(&format!("{} {}", s.run_num, s.tag));
            if let Some(n) = s.test_run_num {
                out.push_str(&format!(" (tested at step {}, else recorded as {n})", s.test_step.unwrap_or(0)));
            }
            if s.parallel {
                out.push_str(" parallel");
            }
            if !s.may_wait.is_empty() {
                out.push_str(&format!(" may wait for {}", s.may_wait.join(", ")));
            }
            if !s.test_may_wait.is_empty() {
                out.push_str(&format!(", test run may wait for {}", s.test_may_wait.join(", ")));
            }
            out.push('\n');
        }
        for l in &p.listeners {
            let on: Vec<String> = l.triggers.iter().map(|(step, t)| format!("{step}:{t}")).collect();
            out.push_str(&format!("{} {} if changed [{}]", l.run_num, l.tag, on.join(" ")));
            if let Some(step) = l.always {
                out.push_str(&format!(" always at {step}"));
            }
            if let Some(c) = &l.comment {
                out.push_str(&format!(" ({c})"));
            }
            out.push('\n');
        }
        out
    }

    /// `listen` and `listen_in` (after Salt's `test_listen.py`): `call_listen` adds a
    /// `listener_ID` `mod_watch` after every state, once per listening chunk (each of
    /// `names`), in the order of the first listened-to state that changed; a bare ID finds
    /// its state; a listened-to state that does not exist is a `Listen_Error` whatever
    /// changed, a `listen_in` naming a missing state one when the declaring state changed.
    #[test]
    fn listeners_run_after_every_state() {
        let p = plan_sls(
            "changing:\n  test.succeed_with_changes: []\n\
             quiet:\n  test.succeed_without_changes:\n    - listen_in:\n      - test: service\n      - test: nowhere\n\
             service:\n  test.succeed_without_changes:\n    - names: [nginx, crond]\n    - listen:\n      - test: changing\n\
             bare:\n  test.nop:\n    - listen:\n      - changing\n      - test: missing\n      - unknown_id\n",
        );
        expect_test::expect![[r#"
            0 test_|-bare_|-bare_|-nop
            1 test_|-changing_|-changing_|-succeed_with_changes
            2 test_|-quiet_|-quiet_|-succeed_without_changes
            3 test_|-service_|-nginx_|-succeed_without_changes
            4 test_|-service_|-crond_|-succeed_without_changes
            5 test_|-listener_bare_|-bare_|-mod_watch if changed [0:test_|-changing_|-changing_|-succeed_with_changes]
            6 test_|-listener_service_|-nginx_|-mod_watch if changed [2:test_|-quiet_|-quiet_|-succeed_without_changes 5:test_|-changing_|-changing_|-succeed_with_changes 7:test_|-changing_|-changing_|-succeed_with_changes]
            7 test_|-listener_service_|-crond_|-mod_watch if changed [3:test_|-quiet_|-quiet_|-succeed_without_changes 6:test_|-changing_|-changing_|-succeed_with_changes 8:test_|-changing_|-changing_|-succeed_with_changes]
            8 Listen_Error_|-listen_missing_|-listen_test_|-Listen_Error if changed [] always at 1 (Referenced state test: missing does not exist)
            9 Listen_Error_|-listen_nowhere_|-listen_test_|-Listen_Error if changed [4:test_|-quiet_|-quiet_|-succeed_without_changes] (Referenced state test: nowhere does not exist)
        "#]]
        .assert_eq(&show(&p));
    }

    /// `prereq` chains (after Salt's `test_prereq.py`): each prereq'd state is tested first,
    /// without a number, and runs after the state that prereqs it; a state prereq'd by a state
    /// that is itself prereq'd is tested before that one's test run.
    #[test]
    fn prereq_chains_test_first_and_record_after() {
        let p = plan_sls(
            "A:\n  test.succeed_with_changes:\n    - prereq_in:\n      - test: C\n\
             B:\n  test.succeed_with_changes:\n    - prereq:\n      - test: C\n\
             C:\n  test.succeed_with_changes:\n    - prereq:\n      - test: D\n\
             D:\n  test.nop:\n    - require:\n      - test: E\n\
             E:\n  test.nop: []\n",
        );
        expect_test::expect![[r#"
            0 test_|-E_|-E_|-nop
            1 test_|-B_|-B_|-succeed_with_changes
            2 test_|-C_|-C_|-succeed_with_changes (tested at step 3, else recorded as 1)
            3 test_|-A_|-A_|-succeed_with_changes (tested at step 0, else recorded as 0)
            4 test_|-D_|-D_|-nop (tested at step 2, else recorded as 1)
        "#]]
        .assert_eq(&show(&p));
    }

    /// `parallel: True`: a parallel state takes its number where it starts; one that needs
    /// another parallel state may be put off while that one runs; so may the test run of a
    /// prereq'd one, which can cost it its run.
    #[test]
    fn parallel_states_may_wait_for_parallel_requisites() {
        let p = plan_sls(
            "a:\n  test.succeed_with_changes:\n    - parallel: True\n\
             b:\n  test.succeed_with_changes:\n    - parallel: True\n    - require: [a]\n\
             c:\n  test.nop:\n    - require: [a]\n\
             d:\n  test.nop:\n    - parallel: True\n    - require: [c]\n\
             e:\n  test.nop:\n    - parallel: True\n    - require: [a]\n    - prereq: [f]\n\
             f:\n  test.nop:\n    - parallel: True\n    - require: [d]\n",
        );
        expect_test::expect![[r#"
            0 test_|-a_|-a_|-succeed_with_changes parallel
            1 test_|-b_|-b_|-succeed_with_changes parallel may wait for test_|-a_|-a_|-succeed_with_changes
            2 test_|-c_|-c_|-nop
            3 test_|-d_|-d_|-nop parallel
            4 test_|-e_|-e_|-nop parallel may wait for test_|-a_|-a_|-succeed_with_changes
            5 test_|-f_|-f_|-nop (tested at step 4, else recorded as 4) parallel may wait for test_|-e_|-e_|-nop, test_|-d_|-d_|-nop, test run may wait for test_|-d_|-d_|-nop
        "#]]
        .assert_eq(&show(&p));
    }

    #[test]
    fn errors_stop_the_plan() {
        let v = crate::render::render_yaml("a:\n  test:\n    - nop\n    - require: [nowhere]\n  __sls__: r\n  __env__: base\n", 0).expect("yaml");
        let errors = plan_high(v.as_dict().expect("dict"), SaltVersion::V3008).expect_err("missing target");
        assert!(errors[0].message.starts_with("Referenced state does not exist"), "{}", errors[0].message);
    }
}
