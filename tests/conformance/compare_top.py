#!/usr/bin/env python3
"""Compare `salt-analyzer top` and `salt-analyzer lowstate` with real Salt on top-file cases.

Usage: compare_top.py --bin target/debug/salt-analyzer [--jobs N] [--only CASE] [--keep] DIR [DIR...]

DIR is a case (case.json, salt.json, grains.json and pillar.json from top_driver.py) or a
directory of cases. Per case, with cwd=CASE (so the binary reads CASE/salt-analyzer.yaml and
its minion profile), this runs

    BIN top --format json [--saltenv ENV]
    BIN lowstate --format json [--saltenv ENV]

and compares them with CASE/salt.json:

* `state.show_top` returned matches: our stdout must be the same JSON object (same env keys in
  the same order, the same lists), exit 0.
* `state.show_top` returned verify_tops errors: we exit 1 with a JSON list of strings; the
  set of codes (CLASSIFY below) must be equal.
* `state.show_lowstate` returned chunks: the same JSON list (order, keys, key order, values,
  types), exit 0. It returned errors: exit 1 with `{"errors": [...]}`, compared as the
  lowstate suite compares them (compare_lowstate.compare_errors: codes as a set, and the IDs
  per code).
* Salt raised (either function): any error report from us passes (exit 1, and an error
  list), anything else fails.

Prints `FAIL CASE: top|lowstate: diff` per mismatch and ends with `N passed, N failed`.
Exit status 1 when any case failed.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_lowstate  # noqa: E402
from compare_lowstate import diff_chunks, same, short  # noqa: E402
from cases import find_cases  # noqa: E402 (tests/conformance/cases.py)

# verify_tops messages (`salt/state.py` `BaseHighState.verify_tops`) and the top-file render errors, ahead of the
# lowstate suite's table.
TOP_CLASSIFY = [
    ("malformed-state", r"^Top data was not formed as a dict"),
    ("malformed-state", r"^Environment .* in top file is not formed as a string"),
    ("malformed-state", r"^Empty saltenv statement in top file"),
    ("malformed-state", r"^The top file matches for saltenv .* are not formatted as a dict"),
    ("malformed-state", r"^Malformed topfile: state declarations for matcher "),
    ("malformed-state", r"^Improperly formatted top file matcher in saltenv "),
    ("malformed-state", r"^Environment .* contains an empty sls index"),
    ("render-error", r"^Unable to render top file"),
]
CLASSIFY = TOP_CLASSIFY + compare_lowstate.CLASSIFY
_COMPILED = [(code, re.compile(rx, re.S)) for code, rx in CLASSIFY]


def classify(msg):
    for code, rx in _COMPILED:
        if rx.search(msg):
            return code
    return "unclassified"


def load_json(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def run_bin(binary, case, args, timeout):
    import salt.version  # the release the binary answers for is the Salt this Python runs

    cmd = [binary, *args, "--salt-version", str(salt.version.__version__).split(".", 1)[0]]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, cwd=case)
    except subprocess.TimeoutExpired:
        return None, None, f"timed out after {timeout}s", cmd
    except OSError as exc:
        return None, None, f"cannot run {binary}: {exc}", cmd
    stdout = p.stdout.decode("utf-8", "replace")
    stderr = p.stderr.decode("utf-8", "replace")
    try:
        got = json.loads(stdout)
    except ValueError:
        return None, p.returncode, f"stdout is not JSON (exit {p.returncode}): {stdout[:100]!r} stderr: {stderr.strip()[-200:]!r}", cmd
    return got, p.returncode, stderr, cmd


def diff_top(want, got):
    """One line: the first difference between two show_top objects."""
    if not isinstance(got, dict):
        return f"expected an object {short(want, 200)}, got {short(got, 200)}"
    if list(want) != list(got):
        return f"envs: salt {list(want)} ours {list(got)}; salt {short(want, 300)} ours {short(got, 300)}"
    for env in want:
        if not same(want[env], got[env]):
            return f"env {env!r}: salt {short(want[env], 300)} ours {short(got[env], 300)}"
    return "differs"


def check_top(salt, got, rc):
    if "top_exception" in salt:
        if rc == 1 and isinstance(got, list) and got:
            return None
        return f"Salt raised ({salt['top_exception'][:160]}); expected exit 1 and an error list, got exit {rc}: {short(got, 200)}"
    want = salt["top"]
    if isinstance(want, dict):
        if rc != 0:
            return f"exit {rc}, Salt answered {short(want, 200)}; ours {short(got, 300)}"
        return None if same(want, got) else diff_top(want, got)
    # verify_tops errors
    if rc != 1 or not isinstance(got, list) or not all(isinstance(x, str) for x in got):
        return f"Salt reports {short(want, 300)}; expected exit 1 and a list of strings, got exit {rc}: {short(got, 200)}"
    sc = {classify(m) for m in want}
    oc = {classify(m) for m in got}
    if "unclassified" in sc:
        return f"cannot classify Salt error(s): {short(want, 300)}"
    if sc != oc:
        return f"codes: salt {sorted(sc)} ours {sorted(oc)}; salt said {short(want, 300)} ours {short(got, 300)}"
    return None


def check_lowstate(salt, got, rc):
    if "exception" in salt:
        errs = got.get("errors") if isinstance(got, dict) else None
        if rc == 1 and isinstance(errs, list) and errs:
            return None
        return f"Salt raised ({salt['exception'][:160]}); expected exit 1 and an error list, got exit {rc}: {short(got, 200)}"
    if "lowstate" in salt:
        want = salt["lowstate"]
        if rc != 0:
            return f"exit {rc}, Salt compiles {len(want)} chunks: ours {short(got, 300)}"
        return None if same(want, got) else diff_chunks(want, got)
    if rc != 1:
        return f"exit {rc}, expected 1 (Salt: {short([m.split(chr(10))[0] for m in salt['errors']], 300)})"
    unclassified = [m for m in salt["errors"] if classify(m) == "unclassified"]
    if unclassified:
        return f"cannot classify Salt error(s): {short([m.split(chr(10))[0] for m in unclassified], 300)}"
    # compare_errors classifies with the lowstate table; map top messages first.
    msgs = salt["errors"]
    return compare_lowstate.compare_errors(msgs, None, got)


def run_one(binary, case, keep, timeout):
    meta = load_json(os.path.join(case, "case.json"))
    salt = load_json(os.path.join(case, "salt.json"))
    env = ["--saltenv", meta["saltenv"]] if meta.get("saltenv") else []
    problems = []
    for what, args, check in (
        ("top", ["top", "--format", "json", *env], check_top),
        ("lowstate", ["lowstate", "--format", "json", *env], check_lowstate),
    ):
        got, rc, err, cmd = run_bin(binary, case, args, timeout)
        if keep:
            with open(os.path.join(case, f"ours.{what}.json"), "w", encoding="utf-8") as fh:
                fh.write(json.dumps(got, ensure_ascii=False, indent=1) if got is not None else "")
            with open(os.path.join(case, f"ours.{what}.stderr"), "w", encoding="utf-8") as fh:
                fh.write(f"$ cd {case} && {' '.join(cmd)}\n# exit {rc}\n{err}")
        if got is None:
            problems.append(f"{what}: {err}")
            continue
        problem = check(salt, got, rc)
        if problem:
            problems.append(f"{what}: {problem}")
    return case, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="case directories or directories of cases")
    ap.add_argument("--bin", required=True, help="the salt-analyzer binary")
    ap.add_argument("--only", action="append", help="run only this case (name or path; repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep CASE/ours.{top,lowstate}.{json,stderr}")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    binary = os.path.abspath(a.bin) if os.path.sep in a.bin else a.bin
    cases = find_cases(a.dirs, a.only)
    if not cases:
        print("no cases found", file=sys.stderr)
        return 2
    missing = [c for c in cases if not os.path.isfile(os.path.join(c, "salt.json"))]
    if missing:
        print(f"no salt.json (run top_driver.py first): {missing[0]} and {len(missing) - 1} more", file=sys.stderr)
        return 2
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        for case, problems in ex.map(lambda c: run_one(binary, c, a.keep, a.timeout), cases):
            if not problems:
                passed += 1
                continue
            failed += 1
            for p in problems:
                print(f"FAIL {case}: {p}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
