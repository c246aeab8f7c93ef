//! The order `state.apply` runs the states in (`State.call_high` -> `call_chunks` ->
//! `call_chunk`, Salt 3008): the chunks `call_high` compiles, sorted by the requisite graph of
//! [`crate::state::order`], and the `__run_num__` each gets when every state runs once.

use crate::diagnostic::SaltError;
use crate::state::compile::Chunk;
use crate::state::lowstate::{apply_chunks, LowState};
use crate::state::order::{order_chunks_traced, LowChunk, Step};
use crate::value::{Dict, Loc};

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
    /// Its `__run_num__` when every call runs once: each test run of a `prereq`'d state
    /// takes a number too, as in Salt. (A `watch` that fires calls `mod_watch` after the state,
    /// which takes another number at run time; the order does not change.)
    pub run_num: usize,
    /// The `__run_num__` of its test run, when another state `prereq`s it.
    pub test_run_num: Option<usize>,
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
    /// The requisite graph as Salt's `DependencyGraph.to_dot` draws it.
    pub dot: String,
    /// Why Salt raises after running every state, if it does: `call_listen` takes each
    /// `listen_in` entry for a one-key dict, so a bare ID (or a `listen_in` that is not a list)
    /// raises before the results come back.
    pub listen_crash: Option<String>,
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
    plan_high(&highstate.high)
}

/// [`plan`] of rendered high data.
pub fn plan_high(high: &Dict) -> Result<Plan, Vec<SaltError>> {
    let chunks = apply_chunks(high)?;
    let (ordered, steps) = order_chunks_traced(chunks);
    if !ordered.errors.is_empty() {
        return Err(ordered.errors);
    }
    Ok(plan_of(&ordered.chunks, &steps))
}

fn plan_of(chunks: &[Chunk], steps: &[Step]) -> Plan {
    // The chunk tag of every position: a test run carries its state's tag.
    let tags: Vec<String> = chunks.iter().map(LowChunk::tag).collect();
    // Each real state's position, and the position of its test run.
    let mut real: Vec<usize> = Vec::new();
    let mut test_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (pos, step) in steps.iter().enumerate() {
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
            Planned {
                tag: tags[pos].clone(),
                id: c.get_str("__id__"),
                sls: c.get_str("__sls__"),
                state: c.get_str("state"),
                fun: c.get_str("fun"),
                name: c.get_str("name"),
                order: c.get_str("order"),
                run_num: pos,
                test_run_num: test_of.get(tags[pos].as_str()).copied(),
                after,
                before: Vec::new(),
                id_loc: c.id_loc.clone(),
            }
        })
        .collect();
    let at: std::collections::HashMap<String, usize> = states.iter().enumerate().map(|(i, s)| (s.tag.clone(), i)).collect();
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
    Plan { states, dot: to_dot(chunks, steps), listen_crash: listen_crash(chunks) }
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
        plan_high(v.as_dict().expect("dict")).expect("plan")
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
        assert_eq!(order(&p), ["pre@1", "target@2"]);
        assert_eq!(p.states[1].test_run_num, Some(0));
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

    #[test]
    fn errors_stop_the_plan() {
        let v = crate::render::render_yaml("a:\n  test:\n    - nop\n    - require: [nowhere]\n  __sls__: r\n  __env__: base\n", 0).expect("yaml");
        let errors = plan_high(v.as_dict().expect("dict")).expect_err("missing target");
        assert!(errors[0].message.starts_with("Referenced state does not exist"), "{}", errors[0].message);
    }
}
