#!/usr/bin/env python3
"""Compare `salt-analyzer top` and `lowstate` with Salt's gitfs answers (cases.py).

Usage: compare.py BIN DIR

Per case (cwd=CASE): `BIN top -c etc --format json` must print what `state.show_top` returned
(the same envs and lists; env key order is not compared, since Salt lists gitfs saltenvs from
a Python set), and `BIN lowstate -c etc --format json` what `state.show_lowstate` returned:
the same chunks in the same order, or exit 1 with the same errors (compare_lowstate's codes
and IDs). Where Salt raised, any error report from us passes. Ends with `N passed, N failed`.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from compare_lowstate import compare_errors, diff_chunks, same, short  # noqa: E402


def run(binary, case, cmd):
    p = subprocess.run([binary, cmd, "-c", "etc", "--format", "json"], cwd=case, capture_output=True, text=True, timeout=120)
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        out = p.stdout
    return p.returncode, out, p.stderr


def check_top(salt, rc, out, err):
    if "exception" in salt:
        return None if rc != 0 else f"Salt raised ({salt['exception'][:100]}) but we exit 0"
    want = salt["result"]
    if isinstance(want, list):
        return None if rc == 1 else f"Salt gave errors {short(want)}, we exit {rc}: {short(out)}"
    if rc != 0:
        return f"exit {rc}: {err.strip()[:200]}"
    if not isinstance(out, dict) or sorted(out) != sorted(want) or any(not same(want[k], out[k]) for k in want):
        return f"salt {short(want, 300)} ours {short(out, 300)}"
    return None


def check_lowstate(salt, rc, out, err):
    if "exception" in salt:
        return None if rc != 0 else f"Salt raised ({salt['exception'][:100]}) but we exit 0"
    want = salt["result"]
    if want and all(isinstance(x, str) for x in want):
        if rc != 1:
            return f"Salt gave errors {short(want, 200)}, we exit {rc}: {short(out)}"
        return compare_errors(want, {}, out)
    if rc != 0:
        return f"exit {rc}: {short(out, 300)} {err.strip()[:200]}"
    if not same(want, out):
        return diff_chunks(want, out) or f"salt {short(want)} ours {short(out)}"
    return None


def main():
    binary, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    passed = failed = 0
    for name in sorted(os.listdir(root)):
        case = os.path.join(root, name)
        if not os.path.isfile(os.path.join(case, "salt.json")):
            continue
        with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
            salt = json.load(fh)
        for what, check in (("top", check_top), ("lowstate", check_lowstate)):
            rc, out, err = run(binary, case, what)
            problem = check(salt[what], rc, out, err)
            if problem:
                failed += 1
                print(f"FAIL {case}: {what}: {problem}")
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
