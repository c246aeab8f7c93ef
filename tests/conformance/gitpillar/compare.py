#!/usr/bin/env python3
"""Compare `salt-analyzer pillar --fleet` with Salt's git_pillar answers (cases.py).

Usage: compare.py BIN DIR

Per case (cwd=CASE): `BIN pillar -c etc --fleet fleet.json --format json` prints each fleet
minion's pillar under its id; each must be the same JSON object as Salt's `pillar.items` for
that minion (keys in the same order at every level, the same values and types; `_errors`
entries compared by their first line). One comparison per minion. Ends with
`N passed, N failed`.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "pillar"))
from compare_pillar import normalise, ordered  # noqa: E402


def main():
    binary, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    passed = failed = 0
    for name in sorted(os.listdir(root)):
        case = os.path.join(root, name)
        if not os.path.isfile(os.path.join(case, "salt.json")):
            continue
        with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
            salt = json.load(fh)
        p = subprocess.run([binary, "pillar", "-c", "etc", "--fleet", "fleet.json", "--format", "json"], cwd=case, capture_output=True, text=True, timeout=120)
        try:
            ours = json.loads(p.stdout)
        except json.JSONDecodeError:
            ours = None
        for mid, want in salt.items():
            if "exception" in want:
                problem = f"Salt raised: {want['exception'][:200]}"
            elif not isinstance(ours, dict) or mid not in ours:
                problem = f"no answer (exit {p.returncode}): {p.stdout[:200]} {p.stderr[:300]}"
            else:
                w, g = normalise(want["pillar"]), normalise(ours[mid])
                problem = None if ordered(w) == ordered(g) else f"\n  salt: {json.dumps(w)}\n  ours: {json.dumps(g)}"
            if problem:
                failed += 1
                print(f"FAIL {case} {mid}: {problem}")
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
