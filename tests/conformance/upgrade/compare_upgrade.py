#!/usr/bin/env python3
"""Compare `salt-analyzer diff --salt-version A --to-salt-version B` with the difference of
real Salt's two `state.show_lowstate` answers.

Usage: compare_upgrade.py --bin BIN --from A --to B [--jobs N] DIR

DIR holds cases made by gen_tops.py, each with CASE/salt-A.json and CASE/salt-B.json written
by top_driver.py under Salt A and Salt B. Per case, in the case (its salt-analyzer.yaml names
the minion and its grains), this runs

    BIN diff --salt-version A --to-salt-version B --minion M --format json

and requires of the minion's entry what Salt's two answers say:

* whether it compiles at each side: Salt answered a lowstate (ours: no `errors_before` /
  `errors_after`), or errors or an exception (ours: some);
* where both compile, the states added and removed, by tag, and per state kept, the keys
  whose value differs (`order` aside, as `diff` leaves it out); a state our report calls
  renamed is its old tag removed and its new one added.

The run order (`moved`) is not compared: show_lowstate lists chunks as `order` sorted them,
not as they run (the plan suites judge the run order of each release). A case whose
`saltenv` restricts the highstate is left out (`diff` compiles the whole highstate).
Ends with `N passed, N failed`; exit 1 when any failed.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys


def load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def tag(chunk):
    return "_|-".join(str(chunk.get(k, "")) for k in ("state", "__id__", "name", "fun"))


def salt_side(answer):
    """The chunks by tag, or None when this side does not compile."""
    if "lowstate" not in answer or answer.get("errors") or answer.get("exception"):
        return None
    out = {}
    for chunk in answer["lowstate"]:
        out.setdefault(tag(chunk), chunk)
    return out


def expected(old, new):
    if old is None or new is None:
        return None
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    changed = {}
    for t in sorted(set(old) & set(new)):
        keys = sorted(k for k in set(old[t]) | set(new[t]) if k != "order" and old[t].get(k, KeyError) != new[t].get(k, KeyError))
        if keys:
            changed[t] = keys
    return added, removed, changed


def ours(entry):
    added = {a["tag"] for a in entry.get("added", [])}
    removed = {r["tag"] for r in entry.get("removed", [])}
    changed = {c["tag"]: sorted(c.get("changes", {})) for c in entry.get("changed", [])}
    for r in entry.get("renamed", []):
        added.add(r["tag"])
        removed.add(r["from_tag"])
    return sorted(added), sorted(removed), changed


def run_one(binary, case, a, b):
    meta = load(os.path.join(case, "case.json"))
    if meta.get("saltenv"):
        return case, None, "skipped"
    old = salt_side(load(os.path.join(case, f"salt-{a}.json")))
    new = salt_side(load(os.path.join(case, f"salt-{b}.json")))
    cmd = [binary, "diff", "--salt-version", a, "--to-salt-version", b, "--minion", meta["minion"], "--format", "json"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=case, timeout=120)
    except subprocess.TimeoutExpired:
        return case, "timed out", None
    if p.returncode not in (0, 1):
        return case, f"exit {p.returncode}: {p.stderr.strip()[:300]}", None
    try:
        doc = json.loads(p.stdout)
    except ValueError as exc:
        return case, f"not JSON ({exc}): {p.stdout[:200]}", None
    entry = next((m for m in doc.get("minions", []) if m.get("minion") == meta["minion"]), None)
    if entry is None:
        return case, f"no entry for {meta['minion']}", None
    if doc.get("salt") != {"from": a, "to": b}:
        return case, f"\"salt\" is {doc.get('salt')}, not {a} -> {b}", None
    fails_before, fails_after = bool(entry.get("errors_before")), bool(entry.get("errors_after"))
    if (old is None) != fails_before or (new is None) != fails_after:
        return case, (
            f"compiles: Salt {a} {'no' if old is None else 'yes'}, {b} {'no' if new is None else 'yes'}; "
            f"ours {'no' if fails_before else 'yes'}, {'no' if fails_after else 'yes'} "
            f"(errors {[e['message'][:80] for e in entry.get('errors_before', []) + entry.get('errors_after', [])]})"
        ), None
    want = expected(old, new)
    if want is None:
        return case, None, "fails"
    got = ours(entry)
    if got != want:
        names = ("added", "removed", "changed")
        diffs = [f"{n}: Salt {w} ours {g}" for n, w, g in zip(names, want, got) if w != g]
        return case, "; ".join(diffs)[:600], None
    return case, None, "changed" if any(want) else "same"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--from", dest="a", required=True)
    ap.add_argument("--to", dest="b", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    cases = sorted(os.path.join(args.dir, d) for d in os.listdir(args.dir) if os.path.isfile(os.path.join(args.dir, d, "case.json")))
    if not cases:
        print("no cases", file=sys.stderr)
        return 2
    passed = failed = 0
    kinds = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        for case, problem, kind in ex.map(lambda c: run_one(binary, c, args.a, args.b), cases):
            if problem is None:
                if kind != "skipped":
                    passed += 1
                kinds[kind] = kinds.get(kind, 0) + 1
            else:
                failed += 1
                print(f"FAIL {case}: {problem}", flush=True)
    print(f"upgrade {args.a} -> {args.b}: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())), file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
