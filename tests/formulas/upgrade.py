#!/usr/bin/env python3
"""The upgrade report on published formulas (by hand: CI has no network): `salt-analyzer diff
--salt-version A --to-salt-version B` against the difference of Salt A's and Salt B's
`state.show_lowstate`, per formula and profile.

Usage: tests/.work/venv/bin/python tests/formulas/upgrade.py --bin BIN --from A --to B OUT_A OUT_B

OUT_A and OUT_B are what tests/formulas/compare.py wrote for the same FORMULAS under the Python
of Salt A and of Salt B (each case's salt.json holds that Salt's `highstate`). Our diff runs in
OUT_B's case (its salt-analyzer.yaml and minion config); the judgement is
tests/conformance/upgrade/compare_upgrade.py's: whether the minion compiles at each side, the
states added and removed, the keys changed. Prints a Markdown table and the totals.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "conformance", "upgrade"))
from compare_upgrade import expected, load, ours, salt_side  # noqa: E402


def judge(binary, case_a, case_b, a, b):
    meta = load(os.path.join(case_b, "case.json"))
    old = salt_side(load(os.path.join(case_a, "salt.json"))["highstate"])
    new = salt_side(load(os.path.join(case_b, "salt.json"))["highstate"])
    cmd = [binary, "diff", "--salt-version", a, "--to-salt-version", b, "--minion", meta["minion"], "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=case_b, timeout=600)
    try:
        entry = next(m for m in json.loads(p.stdout)["minions"] if m["minion"] == meta["minion"])
    except (ValueError, StopIteration, KeyError):
        return "-", "-", f"no report (exit {p.returncode}: {p.stderr.strip()[:120]})"
    side = lambda ok: "compiles" if ok else "fails"  # noqa: E731
    salt_says = f"{side(old is not None)} → {side(new is not None)}"
    fails = (bool(entry.get("errors_before")), bool(entry.get("errors_after")))
    we_say = f"{side(not fails[0])} → {side(not fails[1])}"
    if (old is None, new is None) != fails:
        return salt_says, we_say, "compiles differently"
    want = expected(old, new)
    if want is None:
        return salt_says, we_say, "="
    got = ours(entry)
    added, removed, changed = want
    salt_says += f"; +{len(added)} -{len(removed)} ~{len(changed)}"
    we_say += f"; +{len(got[0])} -{len(got[1])} ~{len(got[2])}"
    if got != want:
        names = ("added", "removed", "changed")
        return salt_says, we_say, "; ".join(f"{n}: Salt {w} ours {g}" for n, w, g in zip(names, want, got) if w != g)[:300]
    return salt_says, we_say, "="


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--from", dest="a", required=True)
    ap.add_argument("--to", dest="b", required=True)
    ap.add_argument("out_a")
    ap.add_argument("out_b")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    cases = sorted(d for d in os.listdir(args.out_b) if os.path.isfile(os.path.join(args.out_b, d, "case.json")) and os.path.isdir(os.path.join(args.out_a, d)))
    print(f"| formula × profile | Salt {args.a} → {args.b} (show_lowstate) | ours (diff) | agree |")
    print("|---|---|---|---|")
    same = 0
    for c in cases:
        salt_says, we_say, verdict = judge(binary, os.path.join(args.out_a, c), os.path.join(args.out_b, c), args.a, args.b)
        same += verdict == "="
        print(f"| {c} | {salt_says} | {we_say} | {'yes' if verdict == '=' else verdict} |", flush=True)
    print(f"\n{same} of {len(cases)} agree")
    return 0 if same == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
