//! The order Salt 3006 and 3007 run states in (`State.call_chunks` -> `call_chunk` ->
//! `check_requisite`): the chunks as `order` sorted them, each state's requisites run first,
//! depth first, where they are not run yet; a `prereq`'d state's test run before the state
//! that prereqs it, its own run later; a cycle or a requisite naming no state fails the state
//! there. 3008 sorts a requisite graph instead ([`crate::state::order`]); both hand
//! [`crate::state::run`] the same steps.

use std::collections::HashSet;

use crate::diagnostic::{Code, SaltError};
use crate::py::fnmatch;
use crate::state::chunk::Chunk;
use crate::state::chunk::LowChunk;
use crate::state::order::Step;
use crate::value::{Val, V};
use crate::version::SaltVersion;

/// `check_requisite`'s requisite types, in its order (`prerequired` last, when asked).
const CHECKED: &[&str] = &["require", "require_any", "watch", "watch_any", "prereq", "onfail", "onfail_any", "onfail_all", "onchanges", "onchanges_any"];
/// `call_chunk`'s, in its order, for the requisites it runs first.
const CALLED: &[&str] = &["require", "require_any", "watch", "watch_any", "prereq", "onfail", "onfail_any", "onchanges", "onchanges_any"];
/// Every type the walk reads: [`CHECKED`]'s and `prerequired`.
const KINDS: &[&str] =
    &["require", "require_any", "watch", "watch_any", "prereq", "onfail", "onfail_any", "onfail_all", "onchanges", "onchanges_any", "prerequired"];

struct Walk {
    tags: Vec<String>,
    /// Per chunk and [`KINDS`] entry, the chunks each of its requisites names (`None`: an
    /// entry that names no state, a "requisite not found"), found once.
    targets: Vec<Vec<Vec<Option<usize>>>>,
    /// Whether each chunk has a `prerequired` (another state `prereq`s it).
    prerequired_by: Vec<bool>,
    /// `__prereq__` / `__prerequired__` marks `call_chunk` leaves on chunks.
    prereq: Vec<bool>,
    prerequired: Vec<bool>,
    /// `running`, `self.pre` and `self.active`: Salt keys them by tag, so of two chunks with
    /// one tag (two `names` entries alike) the second counts as run when the first has.
    running: HashSet<String>,
    pre: HashSet<String>,
    active: HashSet<String>,
    /// The results known to be `False` whatever the states do: in `running` ("Recursive
    /// requisite found", a requisite not found, a requisite of those failed) and in `self.pre`
    /// (a made-up test result).
    failed: HashSet<String>,
    failed_pre: HashSet<String>,
    /// The runs in order: the chunk, and whether it is a prereq test run.
    out: Vec<(usize, bool)>,
    /// How deep the walk is.
    stack: usize,
    /// The test runs in `out`.
    tests: HashSet<usize>,
    /// The state the walk was at when it went too deep (Salt's RecursionError).
    overflow: Option<usize>,
    /// The state whose `call_chunk` raises UnboundLocalError.
    unbound: Option<usize>,
}

/// How deep `call_chunk` goes before we stop (Python stops near 1,000 frames, a few a call).
const MAX_STACK: usize = 300;

/// The steps of `state.apply`'s run of `chunks` (sorted by 3006's and 3007's `order_chunks`),
/// as [`crate::state::order::order_chunks_traced`] gives 3008's: the chunks in run order (a
/// prereq test run is a copy) and a [`Step`] for each.
pub fn walk(chunks: &[Chunk], version: SaltVersion) -> Result<(Vec<Chunk>, Vec<Step>), SaltError> {
    if let Some(e) = raises(chunks) {
        return Err(e);
    }
    let n = chunks.len();
    let mut w = Walk {
        tags: chunks.iter().map(LowChunk::tag).collect(),
        targets: (0..n).map(|i| KINDS.iter().map(|kind| targets(chunks, i, kind, version)).collect()).collect(),
        prerequired_by: chunks.iter().map(|c| c.get("prerequired").is_some_and(Val::truthy)).collect(),
        prereq: vec![false; n],
        prerequired: vec![false; n],
        running: HashSet::new(),
        pre: HashSet::new(),
        active: HashSet::new(),
        failed: HashSet::new(),
        failed_pre: HashSet::new(),
        out: Vec::new(),
        stack: 0,
        tests: HashSet::new(),
        overflow: None,
        unbound: None,
    };
    for i in 0..n {
        if !w.running.contains(&w.tags[i]) {
            w.call_chunk(i, 0);
        }
        w.active.clear();
    }
    // A raise that ends the run, at the state the walk was at.
    let raised = |i: usize, message: &str| SaltError::new(Code::RequisiteCycle, message).at(chunks[i].id_loc.clone()).id(chunks[i].get_str("__id__"));
    if let Some(i) = w.unbound {
        return Err(raised(i, "Salt's call_chunk raises UnboundLocalError (cannot access local variable 'chunk'): this state waits on an onfail_all requisite no other requisite of it runs first, and the run ends there"));
    }
    if let Some(i) = w.overflow {
        return Err(raised(
            i,
            "maximum recursion depth exceeded: Salt's call_chunk recursion never ends (states that prereq each other), and the run raises RecursionError",
        ));
    }
    // Where each run landed, to point the edges at the runs before it.
    let mut real_at: Vec<Option<usize>> = vec![None; n];
    let mut test_at: Vec<Option<usize>> = vec![None; n];
    let mut steps = Vec::with_capacity(w.out.len());
    // A state only ever test-run (its own requisites were not found) is no step to wait for.
    let runs: HashSet<usize> = w.out.iter().filter(|(_, test)| !test).map(|&(i, _)| i).collect();
    for (pos, &(i, test)) in w.out.iter().enumerate() {
        let mut after = Vec::new();
        for &kind in KINDS {
            if test && kind == "prerequired" {
                continue;
            }
            for &t in w.targets(i, kind).iter().flatten() {
                let at = if kind == "prereq" { test_at[t].filter(|_| runs.contains(&t)) } else { real_at[t] };
                if let Some(at) = at.filter(|_| t != i) {
                    if !after.contains(&(at, kind)) {
                        after.push((at, kind));
                    }
                }
            }
        }
        let tag = if test { format!("{}_|-__prereq_test__", w.tags[i]) } else { w.tags[i].clone() };
        steps.push(Step { tag, prereq_test: test, after });
        if test {
            test_at[i] = Some(pos);
        } else {
            real_at[i] = Some(pos);
        }
    }
    let ordered = w.out.iter().map(|&(i, _)| chunks[i].clone()).collect();
    Ok((ordered, steps))
}

/// What `check_requisite` raises on, which ends the run: a requisite value that is not a
/// string (`{test: 12}`; `None` is skipped), named after the first chunk it compares it with.
fn raises(chunks: &[Chunk]) -> Option<SaltError> {
    let first = chunks.first()?.get_str("name");
    for c in chunks {
        for kind in KINDS {
            let Some(list) = c.get(kind).and_then(Val::as_list) else { continue };
            for req in list {
                let Some(d) = req.as_dict().filter(|d| !d.is_empty()) else { continue };
                let (key, val) = (&d.0[0].0, &d.0[0].1);
                if val.as_str().is_none() && !val.is_none() {
                    let message = format!("Could not locate requisite of [{}] present in state with name [{first}]", key.py_str());
                    return Some(SaltError::new(Code::MalformedState, message).at(val.at.clone().or(req.at.clone())).id(c.get_str("__id__")));
                }
            }
        }
    }
    None
}

impl Walk {
    /// The chunks each requisite of `kind` of chunk `i` names ([`Walk::targets`]).
    fn targets(&self, i: usize, kind: &str) -> &[Option<usize>] {
        kind_at(kind).map_or(&[], |at| &self.targets[i][at])
    }

    /// `check_requisite` as far as the order goes: whether every state a requisite names has
    /// run (a `prereq` target's test run, for `prereq`). A requisite naming no state is unmet.
    fn unmet(&self, i: usize, with_prerequired: bool) -> bool {
        let kinds = CHECKED.iter().copied().chain(with_prerequired.then_some("prerequired"));
        kinds.into_iter().any(|kind| {
            let ran = if kind == "prereq" { &self.pre } else { &self.running };
            self.targets(i, kind).iter().any(|t| t.is_none_or(|t| !ran.contains(&self.tags[t])))
        })
    }

    /// `check_requisite`'s "fail" as far as it is known: a requisite whose state's result is
    /// known to be `False` (for `prereq`, its test result), of every entry for an `_any` type.
    /// `onfail` and `onchanges` types take a failure for something else.
    fn fails(&self, i: usize, with_prerequired: bool) -> bool {
        let kinds = CHECKED.iter().copied().chain(with_prerequired.then_some("prerequired"));
        kinds.filter(|k| !k.starts_with("onfail") && !k.starts_with("onchanges")).any(|kind| {
            let failed = if kind == "prereq" { &self.failed_pre } else { &self.failed };
            let mut hit = self.targets(i, kind).iter().flatten().map(|&t| failed.contains(&self.tags[t]));
            if kind.ends_with("_any") {
                !self.targets(i, kind).is_empty() && hit.all(|f| f)
            } else {
                hit.any(|f| f)
            }
        })
    }

    /// `State.call`'s result: a test run (into `self.pre`, which clears `__prereq__`) or the
    /// state's run.
    fn called(&mut self, i: usize) {
        if self.prereq[i] {
            self.prereq[i] = false;
            self.tested(i);
        } else {
            self.ran(i);
        }
    }

    /// A result `call_chunk` makes up ("The following requisites were not found"): filed
    /// where a call would be, but a test run's `__prereq__` stays (no call cleared it).
    fn made_up(&mut self, i: usize) {
        if self.prereq[i] {
            self.failed_pre.insert(self.tags[i].clone());
            self.tested(i);
        } else {
            self.failed.insert(self.tags[i].clone());
            self.ran(i);
        }
    }

    /// "Recursive requisite found" or "One or more requisite failed": a `False` result filed
    /// in `running`, a test run or not (the state's `__prereq__` mark stays: no call cleared it).
    fn recursive(&mut self, i: usize) {
        self.failed.insert(self.tags[i].clone());
        self.ran(i);
    }

    /// A result in `running`: a state filed again under its tag keeps only its last number.
    fn ran(&mut self, i: usize) {
        if !self.running.insert(self.tags[i].clone()) {
            let tag = &self.tags[i];
            let tags = &self.tags;
            self.out.retain(|&(j, test)| test || tags[j] != *tag);
        }
        self.out.push((i, false));
    }

    /// A test run, in the order once (a state tested again is planned at its first).
    fn tested(&mut self, i: usize) {
        self.pre.insert(self.tags[i].clone());
        if self.tests.insert(i) {
            self.out.push((i, true));
        }
    }

    fn call_chunk(&mut self, i: usize, depth: usize) {
        // Python's recursion limit ends a walk this deep: Salt raises, and the run with it.
        if self.stack >= MAX_STACK {
            self.overflow.get_or_insert(i);
            return;
        }
        self.stack += 1;
        self.call_chunk_inner(i, depth);
        self.stack -= 1;
    }

    fn call_chunk_inner(&mut self, i: usize, depth: usize) {
        if self.overflow.is_some() || self.unbound.is_some() {
            return;
        }
        if !self.prerequired_by[i] {
            self.active.insert(self.tags[i].clone());
        }
        let is_prereq = self.prereq[i];
        if !self.unmet(i, !is_prereq) {
            if self.fails(i, !is_prereq) {
                // Status "fail": its result is made up and filed in `running`, even for a state
                // marked for a prereq test run.
                self.recursive(i);
            } else {
                self.called(i);
            }
            return;
        }
        let kinds = CALLED.iter().copied().chain((!is_prereq).then_some("prerequired"));
        let mut reqs = Vec::new();
        let mut lost = false;
        for kind in kinds {
            // The field, not [`Walk::targets`]: the marks below change other fields meanwhile.
            let Some(at) = kind_at(kind) else { continue };
            for &t in &self.targets[i][at] {
                match t {
                    Some(t) => {
                        if kind == "prereq" {
                            self.prereq[t] = true;
                        } else if kind == "prerequired" {
                            self.prerequired[t] = true;
                        }
                        reqs.push(t);
                    }
                    None => lost = true,
                }
            }
        }
        if lost {
            self.made_up(i);
            return;
        }
        if reqs.is_empty() {
            // Unmet only through a type `call_chunk` does not run first (`onfail_all`): its
            // `check_failhard(chunk, ...)` then names a `chunk` never bound, and the run raises.
            self.unbound.get_or_insert(i);
            return;
        }
        for t in reqs {
            if self.running.contains(&self.tags[t]) {
                continue;
            }
            if self.active.contains(&self.tags[t]) {
                if self.prerequired[t] {
                    // A prereq loop: this state is test-run, its result filed under the other's
                    // tag (`self.pre[ctag] = self.call(low)`).
                    if !self.pre.contains(&self.tags[i]) {
                        self.prereq[i] = false;
                        self.pre.insert(self.tags[t].clone());
                        if self.tests.insert(i) {
                            self.out.push((i, true));
                        }
                    }
                    return;
                }
                self.recursive(i);
                return;
            }
            self.call_chunk(t, 0);
        }
        if self.prereq[i] {
            self.called(i);
        } else if depth + 1 >= 20 {
            // Walked 20 times: "Recursive requisite found".
            self.recursive(i);
        } else {
            self.call_chunk(i, depth + 1);
        }
    }
}

/// Where `kind` is in [`KINDS`].
fn kind_at(kind: &str) -> Option<usize> {
    KINDS.iter().position(|k| *k == kind)
}

/// The chunks one requisite of chunk `i` names, per entry of `kind`, as `check_requisite`
/// matches them (`None`: an entry that names no state, a "requisite not found").
fn targets(chunks: &[Chunk], i: usize, kind: &str, version: SaltVersion) -> Vec<Option<usize>> {
    let Some(list) = chunks[i].get(kind).and_then(Val::as_list) else { return Vec::new() };
    let mut out = Vec::new();
    for req in list {
        let (key, val) = match &req.v {
            V::Str(_) => ("id".to_string(), req),
            V::Dict(d) if !d.is_empty() => (d.0[0].0.py_str(), &d.0[0].1),
            _ => continue,
        };
        let Some(val) = val.as_str() else { continue };
        let mut found = false;
        for (j, c) in chunks.iter().enumerate() {
            let hit = if key == "sls" {
                fnmatch::fnmatch(&c.get_str("__sls__"), val) || (version.sls_included_from() && included_from(c, val))
            } else {
                (fnmatch::fnmatch(&c.get_str("name"), val) || fnmatch::fnmatch(&c.get_str("__id__"), val)) && (key == "id" || c.get_str("state") == key)
            };
            if hit {
                found = true;
                out.push(Some(j));
            }
        }
        if !found {
            out.push(None);
        }
    }
    out
}

/// `req_val in chunk.get("__sls_included_from__", [])`.
fn included_from(c: &Chunk, sls: &str) -> bool {
    c.get("__sls_included_from__").and_then(Val::as_list).is_some_and(|l| l.iter().any(|v| v.as_str() == Some(sls)))
}

#[cfg(test)]
mod tests {
    use crate::state::run::plan_high;
    use crate::version::SaltVersion;

    fn run_order(text: &str, version: SaltVersion) -> Vec<String> {
        let high = crate::render::render_yaml(text, 0).expect("yaml");
        plan_high(high.as_dict().expect("dict"), version).expect("plan").states.iter().map(|s| s.id.clone()).collect()
    }

    #[test]
    fn requisites_run_first_where_the_sort_puts_their_dependent() {
        let text = "a:\n  test:\n    - nop\n    - require:\n      - test: c\nb:\n  test: [nop]\nc:\n  test: [nop]\n";
        // 3006 and 3007 take `a` first (by `order`, then `state + name + fun`) and run `c` for it;
        // 3008 sorts the graph: `b` and `c` have no dependencies, `a` waits.
        assert_eq!(run_order(text, SaltVersion::V3006), ["c", "a", "b"]);
        assert_eq!(run_order(text, SaltVersion::V3007), ["c", "a", "b"]);
        assert_eq!(run_order(text, SaltVersion::V3008), ["b", "c", "a"]);
    }

    #[test]
    fn a_prereq_test_runs_its_target_before_and_the_target_runs_after() {
        let text = "target:\n  test: [succeed_with_changes]\npre:\n  test:\n    - nop\n    - prereq:\n      - test: target\nafter:\n  test:\n    - nop\n    - require:\n      - test: target\n";
        let high = crate::render::render_yaml(text, 0).expect("yaml");
        let plan = plan_high(high.as_dict().expect("dict"), SaltVersion::V3006).expect("plan");
        let ids: Vec<&str> = plan.states.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["pre", "target", "after"]);
        let target = &plan.states[1];
        assert!(target.test_step.is_some_and(|t| t < plan.states[0].step), "{:?}", target.test_step);
        assert!(target.after.iter().any(|(t, k)| t.contains("pre") && *k == "prerequired"), "{:?}", target.after);
    }

    #[test]
    fn a_state_marked_for_a_prereq_test_whose_requisite_failed_runs_for_real() {
        // `a` fails ("requisites were not found"); `b` prereqs `c`, which marks `c` for a test
        // run, but `c`'s requisite `a` failed: Salt files `c`'s made-up failure in `running`,
        // not in its prereq results, so `b` waits on a test run that never comes and `c` runs
        // before it (Salt 3006.29 and 3007.16: a, c, b; a test run first would give a, b, c).
        let text = "a:\n  test:\n    - nop\n    - require:\n      - test: nosuch\nb:\n  test:\n    - nop\n    - prereq:\n      - test: c\nc:\n  test:\n    - nop\n    - require:\n      - test: a\n";
        assert_eq!(run_order(text, SaltVersion::V3006), ["a", "c", "b"]);
        assert_eq!(run_order(text, SaltVersion::V3007), ["a", "c", "b"]);
    }

    #[test]
    fn a_cycle_fails_where_the_walk_meets_it() {
        // No compile error before 3008 for a cycle of three (3006 refuses only two states that
        // require each other): `c` meets `a` still active and fails there, then `b` and `a` run.
        let text = "a:\n  test:\n    - nop\n    - require:\n      - test: b\nb:\n  test:\n    - nop\n    - require:\n      - test: c\nc:\n  test:\n    - nop\n    - require:\n      - test: a\n";
        assert_eq!(run_order(text, SaltVersion::V3006), ["c", "b", "a"]);
        assert!(crate::render::render_yaml(text, 0).ok().and_then(|h| plan_high(h.as_dict()?, SaltVersion::V3008).err()).is_some());
    }
}
