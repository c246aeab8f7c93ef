#!/usr/bin/env python3
"""Prove top_driver.py prints what real salt-call prints.

Usage: PYTHON check_driver_top.py [--count N] [--jobs N] [--only NAME] DIR [DIR...]

Picks at least N varied cases (one per outcome kind first: matches, verify_tops errors, Salt
exceptions, for both functions; then the cases adding the most unseen tags), runs real
subprocesses, with cwd=CASE,

    salt-call --local -c CASE/etc state.show_top [saltenv=ENV] --out=json
    salt-call --local -c CASE/etc state.show_lowstate [saltenv=ENV] --out=json
    salt-call --local -c CASE/etc grains.items --out=json
    salt-call --local -c CASE/etc pillar.items unmask=True --out=json

and compares their `local` value with CASE/salt.json, CASE/grains.json and CASE/pillar.json
(values and key order). Where the driver saw an exception, salt-call must exit non-zero
without a `local` answer. The grains that describe the process rather than the minion
(`cwd`, `pid`, `pythonexecutable`, `pythonpath`) are left out of the comparison; no target
uses them. Exits 1 on any difference.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from salt_driver import find_cases, pillar_items_args  # noqa: E402

PROCESS_GRAINS = {"cwd", "pid", "pythonexecutable", "pythonpath"}


def salt_call_bin():
    return os.path.join(os.path.dirname(sys.executable), "salt-call")


def run_salt_call(case, fun, args):
    shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
    cmd = [salt_call_bin(), "--local", "-c", os.path.join(case, "etc"), fun, *args, "--out=json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=case)
    shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
    try:
        out = json.loads(p.stdout)["local"]
    except (ValueError, KeyError, TypeError):
        out = None
    return {"rc": p.returncode, "local": out, "stderr": p.stderr[-1500:], "stdout": p.stdout[-500:]}


def load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def kind_of(salt):
    if "top_exception" in salt:
        top = "top-exception"
    elif isinstance(salt.get("top"), list):
        top = "top-errors"
    else:
        top = "top"
    low = next(k for k in ("lowstate", "errors", "exception") if k in salt)
    return f"{top}/{low}"


def pick(cases, count, extra):
    by_kind = {}
    for c in cases:
        by_kind.setdefault(kind_of(load(os.path.join(c, "salt.json"))), []).append(c)
    chosen = [by_kind[k][0] for k in sorted(by_kind)]
    seen = set()
    for c in chosen:
        seen |= set(load(os.path.join(c, "case.json")).get("tags", []))
    rest = [c for c in cases if c not in chosen]
    target = max(count, len(chosen) + extra)
    while len(chosen) < target and rest:
        best = max(rest, key=lambda c: len(set(load(os.path.join(c, "case.json")).get("tags", [])) - seen))
        rest.remove(best)
        chosen.append(best)
        seen |= set(load(os.path.join(best, "case.json")).get("tags", []))
    return chosen


def same(a, b):
    """Equal values with equal key order."""
    return a == b and json.dumps(a) == json.dumps(b)


def dump(v, n=1200):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 3] + "..."


def check_case(case, grains):
    meta = load(os.path.join(case, "case.json"))
    salt = load(os.path.join(case, "salt.json"))
    args = [f"saltenv={meta['saltenv']}"] if meta.get("saltenv") else []
    problems = []
    for fun, key, exc_key in (("state.show_top", "top", "top_exception"),
                              ("state.show_lowstate", None, "exception")):
        got = run_salt_call(case, fun, args)
        if exc_key in salt:
            if got["rc"] == 0 or got["local"] is not None:
                problems.append(f"{fun}: the driver saw an exception, salt-call answered (rc {got['rc']}): {got['stdout']}")
            continue
        want = salt[key] if key else salt.get("lowstate", salt.get("errors"))
        if not same(got["local"], want):
            problems.append(f"{fun} differs:\n  salt-call: {dump(got['local'])}\n  driver:    {dump(want)}"
                            + ("" if got["local"] is not None else f"\n  stderr: {got['stderr'][-600:]}"))
    if grains:
        for fun, args2, name in (("grains.items", [], "grains.json"), ("pillar.items", pillar_items_args(), "pillar.json")):
            got = run_salt_call(case, fun, args2)
            want = load(os.path.join(case, name))
            g = got["local"]
            if isinstance(g, dict) and isinstance(want, dict) and fun == "grains.items":
                g = {k: v for k, v in g.items() if k not in PROCESS_GRAINS}
                want = {k: v for k, v in want.items() if k not in PROCESS_GRAINS}
            if not same(g, want):
                if isinstance(g, dict) and isinstance(want, dict):
                    diff = sorted(k for k in set(g) | set(want) if g.get(k) != want.get(k))
                    problems.append(f"{fun} differs in keys {diff[:20]}" + ("" if diff else " (key order)"))
                else:
                    problems.append(f"{fun} differs: salt-call {dump(g, 300)} driver {dump(want, 300)}")
    return case, kind_of(salt), problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--count", type=int, default=16, help="check at least this many cases")
    ap.add_argument("--extra", type=int, default=8, help="cases picked for tag coverage after one per outcome kind")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append")
    ap.add_argument("--no-grains", action="store_true", help="skip the grains.items/pillar.items comparison")
    a = ap.parse_args()
    cases = [c for c in find_cases(a.dirs, a.only) if os.path.exists(os.path.join(c, "salt.json"))]
    if not cases:
        print("no cases with salt.json (run top_driver.py first)", file=sys.stderr)
        return 2
    chosen = cases if a.only else pick(cases, a.count, a.extra)
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for case, kind, problems in ex.map(lambda c: check_case(c, not a.no_grains), chosen):
            print(f"{'ok' if not problems else 'DIFF'}\t{os.path.basename(case)}\t{kind}")
            for p in problems:
                print("    " + p.replace("\n", "\n    "))
            bad += bool(problems)
    print(f"check_driver_top: {len(chosen) - bad} of {len(chosen)} cases identical to salt-call")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
