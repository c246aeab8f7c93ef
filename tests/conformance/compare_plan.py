#!/usr/bin/env python3
"""Compare `salt-analyzer plan` with the order real Salt ran the states in.

Usage: compare_plan.py --bin target/debug/salt-analyzer [--jobs N] [--salt-version V] [--only CASE] DIR [DIR...]

DIR is a case (holds case.json and salt.json from salt_driver.py) or a directory of cases.
Per case this runs

    BIN plan -c CASE/etc --sls a,b.c --saltenv ENV --format json --salt-version V

(V: --salt-version, by default the major of the Salt this Python imports; without one, the
flag is left out) and compares it with CASE/salt.json, where salt_driver.py recorded what
`state.sls ... test=True` returned:

* it ran ("run_order": the tags sorted by `__run_num__`): we must exit 0, and our tags, in
  our order, must be that list. That includes what `call_listen` adds after every state:
  a `listener_ID` `mod_watch` run runs when one of its "triggers" reported changes (Salt's
  "run_changed"), a `Listen_Error` when one did or when it is "always"; they run in the order
  of the first "step" each one's fired triggers reach, the mod_watch runs first; one marked
  "lost_if_recorded_at_test" is not reported when Salt recorded its state at its prereq
  test run (before the state that prereqs it).
  Our `run_num`s must increase, and `after` must name tags of the plan that run earlier (or
  `TAG_|-__prereq_test__`, the test run of a state this one `prereq`s). A state whose
  `mod_watch` raised has no `__run_num__` in Salt's answer ("run_unnumbered"): it is left out
  of both lists. A `prereq`'d state whose test run is not run (its own requisites fail, or
  find no changes) is recorded at that test run (our "test_step") instead of its run: either
  place is accepted for it. A `parallel` state that may wait for another ("may_wait"), and
  whatever needs it, may run later than planned, depending on when that process ends: those
  are compared apart, each only after what it needs and after every other state planned
  before it. A `prereq`'d state whose test run may be put off that way ("test_may_wait", or
  a test run that needs a state put off) may not run at all: Salt reaches its own place while
  the test run waits, tries the test run there, and never comes back to the real run.
* it raised RecursionError while our plan has put-off parallel states: Salt retried them
  until Python's stack ran out (how deep depends on when each process ends); we must exit 0
  with the plan. Counted apart in the summary.
* it ran every state, then raised in `call_listen` (a `listen_in` entry without a module):
  we must exit 0 with the plan and warn about it on stderr.
* it returned compile errors, or raised otherwise: we must exit 1 with {"errors": [...]}.

Prints one line per mismatching case and ends with `N passed, N failed`; exit 1 when any
case failed, 2 when a case has no salt.json or there are no cases.
"""

import json
import sys

from cases import comparer_args, judge, run_on_case  # noqa: E402 (tests/conformance/cases.py)


PREREQ_TEST = "_|-__prereq_test__"


def recorded_at_test(states, salt_order):
    """The prereq'd states Salt recorded at their test run: before a state that prereqs them."""
    at = {t: i for i, t in enumerate(salt_order)}
    out = set()
    for s in states:
        for dep in s.get("after", []):
            if dep.endswith(PREREQ_TEST):
                tested = dep[: -len(PREREQ_TEST)]
                if tested in at and s["tag"] in at and at[tested] < at[s["tag"]]:
                    out.add(tested)
    return out


def listener_runs(got, changed, lost=()):
    """Our `call_listen` entries that happen when the states `changed` report changes, in order
    (`lost`: the states recorded at their test run, whose listener runs are not reported)."""
    runs, errors = [], []
    for s in got:
        if not s.get("listener") or (s.get("lost_if_recorded_at_test") and s.get("of") in lost):
            continue
        steps = [t["step"] for t in s.get("triggers", []) if t["tag"] in changed]
        if s.get("always") is not None:
            steps.append(s["always"])
        if steps:
            (errors if s["tag"].startswith("Listen_Error_|-") else runs).append((min(steps), s["tag"]))
    return [t for _, t in sorted(runs)] + [t for _, t in sorted(errors)]


def floating_states(states):
    """The `parallel` states that may be put off ("may_wait"), and the states that need them;
    and of those, the ones Salt may not run at all: a `prereq`'d state whose test run is put off
    ("test_may_wait", or a test run needing a state put off) past the state's own place."""
    floating, losable = set(), set()

    def put_off(dep):
        return dep[: -len(PREREQ_TEST)] in losable if dep.endswith(PREREQ_TEST) else dep in floating

    # A test run comes before the state's place, so the plan's order is not enough: to a fixpoint.
    while True:
        before = (len(floating), len(losable))
        for s in states:
            if s.get("test_may_wait") or any(put_off(d) for d in s.get("test_after", [])):
                losable.add(s["tag"])
                floating.add(s["tag"])
            if s.get("may_wait") or any(put_off(d) for d in s.get("after", [])):
                floating.add(s["tag"])
        if (len(floating), len(losable)) == before:
            return floating, losable


def reported_at_test_runs(states, want):
    """Whether Salt's order `want` is ours once some `prereq`'d states are taken at their
    test run: a prereq'd state whose test run is not run gets its result there
    (`_assign_not_run_result_dict` writes `running[tag]`), and its real run is skipped.
    Each place ("step", "test_step") is distinct, so taking the smallest that keeps Salt's
    order increasing decides."""
    places = {s["tag"]: sorted({s["step"], s.get("test_step", s["step"])}) for s in states}
    last = -1
    for tag in want:
        fits = [n for n in places.get(tag, []) if n > last]
        if not fits:
            return False
        last = fits[0]
    return True


def check_floating(states, floating, losable, salt_order):
    """None when each floating state runs, in Salt's order, after what it needs and after every
    state we plan before it that is not floating."""
    at = {t: i for i, t in enumerate(salt_order)}
    fixed_before = []
    for s in states:
        tag = s["tag"]
        if tag not in floating:
            fixed_before.append(tag)
            continue
        if tag not in at:
            if tag in losable:
                continue
            return f"Salt did not run the parallel state {tag!r}"
        needs = [d for d in s.get("after", []) if not d.endswith(PREREQ_TEST)] + fixed_before
        late = [d for d in needs if d in at and at[d] > at[tag]]
        if late and "test_step" in s:
            # Recorded at its test run: after the fixed states planned before that.
            steps = {x["tag"]: x["step"] for x in states}
            if not [d for d in fixed_before if steps[d] < s["test_step"] and d in at and at[d] > at[tag]]:
                late = []
        if late:
            return f"{tag!r} ran before {late[0]!r} in Salt, which it may not"
    return None


def check_plan(got, want, unnumbered, changed):
    """None when `got` (our JSON list) runs the states in Salt's order `want`, else why not."""
    if not isinstance(got, list) or not all(isinstance(s, dict) for s in got):
        return f"expected a list of states, got {str(got)[:200]}"
    states = [s for s in got if not s.get("listener")]
    floating, losable = floating_states(states)
    ours = [s.get("tag") for s in states if s.get("tag") not in unnumbered | floating]
    lost = recorded_at_test(states, want)
    ours += [t for t in listener_runs(got, changed, lost) if t not in unnumbered]
    salt_order = [t for t in want if t not in unnumbered]
    want = [t for t in salt_order if t not in floating]
    if floating:
        why = check_floating(states, floating, losable, salt_order)
        if why:
            return why
    listened = len(ours) - len([s for s in states if s.get("tag") not in unnumbered | floating])
    if ours != want and sorted(ours) == sorted(want) and reported_at_test_runs(states, want[: len(want) - listened]) and ours[len(ours) - listened :] == want[len(want) - listened :]:
        return None
    if ours != want:
        for i, (a, b) in enumerate(zip(ours, want)):
            if a != b:
                return f"order differs at {i}: ours {a!r}, Salt {b!r} (ours {len(ours)}, Salt {len(want)} states)"
        return f"ours has {len(ours)} states, Salt ran {len(want)}: {(ours[len(want):] or want[len(ours):])[:3]}"
    seen = set()
    tags = {s.get("tag") for s in states}
    last = -1
    for s in got:
        if not isinstance(s.get("run_num"), int) or s["run_num"] <= last:
            return f"run_num does not increase at {s.get('tag')!r}"
        last = s["run_num"]
        for dep in s.get("after", []):
            if dep.endswith(PREREQ_TEST):
                # The test run of a state this one prereqs: the state itself runs later.
                dep = dep[: -len(PREREQ_TEST)]
                if dep not in tags:
                    return f"{s['tag']!r} is after the test run of {dep!r}, which is not in the plan"
            elif dep not in seen:
                return f"{s['tag']!r} is after {dep!r}, which does not run earlier"
        if not isinstance(s.get("id"), str) or not isinstance(s.get("sls"), str):
            return f"{s.get('tag')!r} lacks a string id or sls"
        seen.add(s["tag"])
    return None


def run_one(binary, case, timeout, salt_version=None):
    _, salt, _, ran = run_on_case(binary, "plan", case, timeout, salt_version)
    if isinstance(ran, str):
        return case, ran, 0
    rc, stdout, stderr = ran
    try:
        got = json.loads(stdout)
    except ValueError:
        return case, f"stdout is not JSON (exit {rc}): {stdout[:100]!r} {stderr[-200:]!r}", 0
    if "call_listen" in salt.get("run_exception", ""):
        # Salt ran every state, then raised reading a listen_in: we plan the run and warn.
        if rc != 0 or "call_listen" not in stderr:
            return case, f"exit {rc}; Salt raises in call_listen after the run, and we must warn so", 0
        return case, None, 0
    if "RecursionError" in salt.get("run_exception", "") and isinstance(got, list) and floating_states(got)[0]:
        # Salt retried put-off parallel states until Python's stack ran out (how deep depends
        # on when each process ends): we plan the run and mark those states; counted apart.
        if rc != 0:
            return case, f"exit {rc}; Salt ran out of stack retrying put-off parallel states, which we must plan", 0
        return case, None, -1
    ran = "run_order" in salt and not salt.get("run_errors") and "run_exception" not in salt
    if ran:
        if rc != 0:
            return case, f"exit {rc}, Salt ran this case: {json.dumps(got, ensure_ascii=False)[:300]}", 0
        return case, check_plan(got, salt["run_order"], set(salt.get("run_unnumbered", [])), set(salt.get("run_changed", []))), len(got)
    if rc != 1 or not (isinstance(got, dict) and got.get("errors")):
        return case, f"exit {rc}, Salt stopped on {str(salt.get('run_errors') or salt.get('run_exception'))[:200]}", 0
    return case, None, 0


def main():
    a = comparer_args(__doc__)
    binary, cases = a.binary, a.cases
    if cases is None:
        return 2
    passed, failed, ok = judge(cases, a.jobs, lambda c: run_one(binary, c, a.timeout, a.salt_version), a.known_cases)
    ran = sum(1 for _, _, n in ok if n > 0)
    states = sum(n for _, _, n in ok if n > 0)
    crashed = sum(1 for _, _, n in ok if n < 0)
    print(f"plan: {passed} passed ({ran} runs, {states} states in Salt's order; {crashed} where Salt ran out of stack retrying put-off parallel states), {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
