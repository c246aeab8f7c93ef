#!/usr/bin/env python3
"""Random requisite graphs for the run-order test: listen, prereq and parallel.

Usage: gen_plan.py --seed N --count N --out DIR

Each case is one or two SLS files of 3-9 states whose run order is what `state.sls
test=True` decides, not the host: test.nop, test.succeed_with_changes,
test.succeed_without_changes, test.fail_without_changes and cmd.run (which test mode does
not execute). The states are joined by random requisites, mostly consistent with one random
order (so most cases run) and sometimes not (cycles, which Salt refuses):
require/watch/onchanges/onfail (and their `_in` forms), prereq/prereq_in (prereq chains),
listen/listen_in (by module and ID, by bare ID, by a name of `names`, or naming a state that
does not exist), `sls:` targets, `order`, `names`, and `parallel: True`. A case is
written as gen_trees.py writes one (case.json, etc/minion, srv/base), so salt_driver.py runs
it and compare_plan.py compares `salt-analyzer plan` with it. Deterministic per seed and index.
"""

import argparse
import json
import os
import random
import shutil

from gen_trees import MINION_TEMPLATE  # noqa: E402 (tests/conformance/gen_trees.py)

FUNS = [("test", "nop"), ("test", "succeed_with_changes"), ("test", "succeed_without_changes"), ("test", "fail_without_changes"), ("cmd", "run")]
FUN_WEIGHTS = [3, 4, 3, 1, 2]
# (kind, weight, direction): +1 the target runs earlier, -1 later, 0 no edge.
KINDS = [
    ("require", 4, 1), ("watch", 3, 1), ("onchanges", 2, 1), ("onfail", 1, 1),
    ("prereq", 4, -1), ("listen", 4, 0), ("require_in", 1, -1), ("watch_in", 1, -1),
    ("prereq_in", 2, 1), ("listen_in", 3, 0), ("onchanges_in", 1, -1),
]


def pick(rng, items, weights):
    return rng.choices(items, weights=weights, k=1)[0]


class State:
    def __init__(self, sid, sls, module, fun):
        self.id, self.sls, self.module, self.fun = sid, sls, module, fun
        self.args = []  # (key, YAML text)


def ref(rng, target, st):
    """How `st` names `target` in a requisite."""
    r = rng.random()
    if target.names and r < 0.2 and target.module == "test":
        return f"{target.module}: {rng.choice(target.names)}"
    if r < 0.3:
        return target.id
    if r < 0.4 and target.sls != st.sls:
        return f"sls: {target.sls}"
    return f"{target.module}: {target.id}"


def make_case(rng):
    n = rng.randint(3, 9)
    two_files = rng.random() < 0.25
    parallel = 0.3 if rng.random() < 0.3 else 0.0
    states = []
    for i in range(n):
        module, fun = pick(rng, FUNS, FUN_WEIGHTS)
        sls = "r2" if two_files and i % 3 == 2 else "r"
        st = State(f"s{i}", sls, module, fun)
        st.names = []
        if rng.random() < 0.12 and module == "test":
            st.names = [f"s{i}n{k}" for k in range(rng.randint(2, 3))]
            st.args.append(("names", "[" + ", ".join(st.names) + "]"))
        elif module == "cmd":
            st.args.append(("name", f"echo s{i}"))
        if rng.random() < parallel:
            st.args.append(("parallel", "True"))
        if rng.random() < 0.1:
            st.args.append(("order", rng.choice(["1", "last", "-1", "5"])))
        states.append(st)
    rank = list(range(n))
    rng.shuffle(rank)
    consistent = rng.random() < 0.92
    for st_i, st in enumerate(states):
        reqs = {}
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
            kind, _, direction = pick(rng, KINDS, [k[1] for k in KINDS])
            others = [j for j in range(n) if j != st_i]
            if consistent and direction == 1:
                others = [j for j in others if rank[j] < rank[st_i]]
            elif consistent and direction == -1:
                others = [j for j in others if rank[j] > rank[st_i]]
            if not others:
                continue
            target = states[rng.choice(others)]
            if kind in ("listen", "listen_in") and rng.random() < 0.08:
                text = rng.choice(["test: missing", "cmd: nothere"])
            elif kind == "listen_in" or kind.endswith("_in"):
                text = f"{target.module}: {target.id}"
            else:
                text = ref(rng, target, st)
            reqs.setdefault(kind, [])
            if text not in reqs[kind]:
                reqs[kind].append(text)
        for kind, items in reqs.items():
            st.args.append((kind, "\n" + "".join(f"      - {t}\n" for t in items)))
    return states


def sls_text(states, sls):
    out = []
    if sls == "r" and any(s.sls == "r2" for s in states):
        out.append("include:\n  - r2\n")
    for st in states:
        if st.sls != sls:
            continue
        if not st.args:
            out.append(f"{st.id}:\n  {st.module}.{st.fun}: []\n")
            continue
        out.append(f"{st.id}:\n  {st.module}.{st.fun}:\n")
        for key, val in st.args:
            if val.startswith("\n"):
                out.append(f"    - {key}:{val}")
            else:
                out.append(f"    - {key}: {val}\n")
    return "".join(out)


def write(case_dir, states):
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(os.path.join(case_dir, "etc"))
    os.makedirs(os.path.join(case_dir, "srv", "base"))
    roots = f"  base:\n    - {case_dir}/srv/base"
    with open(os.path.join(case_dir, "etc", "minion"), "w", encoding="utf-8") as fh:
        fh.write(MINION_TEMPLATE.format(case=case_dir, roots=roots, extra=""))
    for sls in sorted({s.sls for s in states}):
        with open(os.path.join(case_dir, "srv", "base", f"{sls}.sls"), "w", encoding="utf-8") as fh:
            fh.write(sls_text(states, sls))
    meta = {"sls": ["r"], "saltenv": "base", "about": "gen_plan.py: listen, prereq, parallel"}
    if any(k == "parallel" for s in states for k, _ in s.args):
        meta["timing"] = True
    with open(os.path.join(case_dir, "case.json"), "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    for i in range(a.count):
        rng = random.Random(f"{a.seed}:{i}")
        write(os.path.join(out, f"p{i:04d}"), make_case(rng))
    print(f"generated {a.count} plan cases into {out} (seed {a.seed})")


if __name__ == "__main__":
    main()
