#!/usr/bin/env python3
"""Prove salt_driver.py prints what real salt-call prints.

Usage: PYTHON check_driver.py [--count N] [--jobs N] [--only NAME] DIR [DIR...]

Picks at least N varied cases (one of each outcome kind first: chunks,
each class of show_low_sls error, errors only the test=True run finds,
Salt exceptions; then by tags), runs real subprocesses

    salt-call --local -c CASE/etc state.show_low_sls SLS,.. saltenv=ENV --out=json
    salt-call --local -c CASE/etc state.sls SLS,.. saltenv=ENV test=True --out=json

and compares their `local` value with CASE/salt.json written by the driver
(chunks or errors for show_low_sls; error list, or the tags in run order,
for state.sls). Exits 1 on any difference.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from salt_driver import find_cases  # noqa: E402


def salt_call_bin():
    return os.path.join(os.path.dirname(sys.executable), "salt-call")


def timing(case):
    """A case with `parallel` states: where a put-off state lands depends on when a process ends."""
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        return bool(json.load(fh).get("timing"))


def run_salt_call(case, fun, args):
    shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
    cmd = [salt_call_bin(), "--local", "-c", os.path.join(case, "etc"), fun, *args, "--out=json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
    try:
        out = json.loads(p.stdout)["local"]
    except (ValueError, KeyError, TypeError):
        out = None
    return {"rc": p.returncode, "local": out, "stderr": p.stderr[-2000:], "stdout": p.stdout[-500:]}


def kind_of(salt):
    if "exception" in salt:
        return "exception"
    if "errors" in salt:
        first = salt["errors"][0] if salt["errors"] else ""
        return "errors:" + re.sub(r"['\"\[(].*", "", first.split("\n")[0])[:40].strip()
    if salt.get("run_errors"):
        return "run:" + re.sub(r"['\"\[(].*", "", salt["run_errors"][0].split("\n")[0])[:40].strip()
    if "run_exception" in salt:
        return "run-exception"
    return "lowstate"


def pick(cases, count, extra):
    by_kind = {}
    for c in cases:
        with open(os.path.join(c, "salt.json"), encoding="utf-8") as fh:
            salt = json.load(fh)
        by_kind.setdefault(kind_of(salt), []).append(c)
    chosen = []
    for k in sorted(by_kind):
        chosen.append(by_kind[k][0])
    # Then cover tags: the case adding the most unseen tags first.
    seen = set()
    for c in chosen:
        seen |= set(load_meta(c).get("tags", []))
    rest = [c for c in cases if c not in chosen]
    target = max(count, len(chosen) + extra)
    while len(chosen) < target and rest:
        best = max(rest, key=lambda c: len(set(load_meta(c).get("tags", [])) - seen))
        rest.remove(best)
        chosen.append(best)
        seen |= set(load_meta(best).get("tags", []))
    return chosen


def load_meta(case):
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        return json.load(fh)


def check_case(case):
    meta = load_meta(case)
    with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
        salt = json.load(fh)
    mods = ",".join(meta["sls"])
    env = meta.get("saltenv", "base")
    problems = []
    show = run_salt_call(case, "state.show_low_sls", [mods, f"saltenv={env}"])
    if "exception" in salt:
        if show["rc"] == 0:
            problems.append(f"driver saw an exception, salt-call exited 0: {show['stdout']}")
    else:
        want = salt.get("lowstate", salt.get("errors"))
        if show["local"] != want:
            problems.append(
                "show_low_sls differs:\n  salt-call: "
                + json.dumps(show["local"], ensure_ascii=False)[:1500]
                + "\n  driver:    "
                + json.dumps(want, ensure_ascii=False)[:1500]
            )
        elif json.dumps(show["local"]) != json.dumps(want):
            problems.append("show_low_sls: same values, different key order")
        if ("errors" in salt) != (show["rc"] != 0):
            problems.append(f"exit code {show['rc']} but driver says errors={'errors' in salt}")
    run = run_salt_call(case, "state.sls", [mods, f"saltenv={env}", "test=True"])
    if "run_exception" in salt:
        if run["local"] is not None and isinstance(run["local"], dict):
            problems.append("driver saw a run exception, salt-call returned results")
    elif isinstance(run["local"], list):
        if run["local"] != salt.get("run_errors"):
            problems.append(
                "state.sls errors differ:\n  salt-call: "
                + json.dumps(run["local"], ensure_ascii=False)[:1500]
                + "\n  driver:    "
                + json.dumps(salt.get("run_errors"), ensure_ascii=False)[:1500]
            )
    elif isinstance(run["local"], dict):
        order = sorted(run["local"], key=lambda t: run["local"][t].get("__run_num__", 0))
        if salt.get("run_errors"):
            problems.append("salt-call ran the states, the driver reports run errors")
        elif order != salt.get("run_order") and not timing(case):
            problems.append(f"run order differs:\n  salt-call: {order}\n  driver:    {salt.get('run_order')}")
        changed = [t for t in order if run["local"][t].get("changes")]
        if changed != salt.get("run_changed", []) and not timing(case):
            problems.append(f"changes differ:\n  salt-call: {changed}\n  driver:    {salt.get('run_changed', [])}")
    else:
        problems.append(f"state.sls gave no JSON (rc {run['rc']}): {run['stderr'][-400:]}")
    return case, kind_of(salt), problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--count", type=int, default=20, help="check at least this many cases")
    ap.add_argument("--extra", type=int, default=8, help="cases picked for tag coverage after one per outcome kind")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append")
    a = ap.parse_args()
    cases = [c for c in find_cases(a.dirs, a.only) if os.path.exists(os.path.join(c, "salt.json"))]
    chosen = cases if a.only else pick(cases, a.count, a.extra)
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for case, kind, problems in ex.map(check_case, chosen):
            status = "ok" if not problems else "DIFF"
            print(f"{status}\t{os.path.basename(case)}\t{kind}")
            for p in problems:
                print("    " + p.replace("\n", "\n    "))
            bad += bool(problems)
    print(f"check_driver: {len(chosen) - bad} of {len(chosen)} cases identical to salt-call")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
