#!/usr/bin/env python3
"""Compare `salt-analyzer diff --format json` with real Salt's lowstates (salt_diff.py).

Usage: compare_diff.py --bin BIN [--jobs N] DIR

For every case and scenario (`--from v1 --to v2` between two commits, and the default:
HEAD against the work tree with uncommitted changes), run in CASE/repo, and for every
minion, the expected diff from Salt's `state.show_lowstate` at both sides:

    errors_before / errors_after   whether show_lowstate returned errors (or raised)
    added / removed                tags (`state_|-id_|-name_|-fun`) only one side has
    changed                        tags both sides have whose chunks differ in a key
                                   other than `order`
(no added/removed/changed when either side errors: its errors say it all). Ours must be
identical per minion, and every minion must appear once. One minion in one scenario is one
case; the last line is `N passed, N failed`.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from cases import compare_main  # noqa: E402

# The release the binary answers for: the Salt this Python runs (`--salt-version`).
SALT_MAJOR = __import__("salt.version").version.__version__.split(".")[0]


def tag(c):
    return f"{c['state']}_|-{c['__id__']}_|-{c['name']}_|-{c['fun']}"


def expected(before, after):
    eb, ea = "lowstate" not in before, "lowstate" not in after
    out = {"errors_before": eb, "errors_after": ea, "added": [], "removed": [], "changed": []}
    if eb or ea:
        return out
    old = {tag(c): {k: v for k, v in c.items() if k != "order"} for c in before["lowstate"]}
    new = {tag(c): {k: v for k, v in c.items() if k != "order"} for c in after["lowstate"]}
    out["added"] = sorted(set(new) - set(old))
    out["removed"] = sorted(set(old) - set(new))
    out["changed"] = sorted(t for t in new if t in old and new[t] != old[t])
    return out


def ours_of(m):
    # A rename (same ID, state, function and SLS, another name) is, by Salt's tags, the old tag
    # removed and the new one added.
    renamed = m.get("renamed", [])
    return {"errors_before": bool(m["errors_before"]), "errors_after": bool(m["errors_after"]),
            "added": sorted([x["tag"] for x in m["added"]] + [x["tag"] for x in renamed]),
            "removed": sorted([x["tag"] for x in m["removed"]] + [x["from_tag"] for x in renamed]),
            "changed": sorted(x["tag"] for x in m["changed"])}


def run_scenario(binary, case, meta, salt, sc):
    """[(label, problem or None)] for each minion of one scenario."""
    label = f"{os.path.basename(case)}/{sc['name']}"
    proc = subprocess.run([binary, "diff", "--format", "json", "--salt-version", SALT_MAJOR, *sc["args"]], cwd=os.path.join(case, "repo"),
                          capture_output=True, text=True, timeout=300)
    results = []
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        why = f"exit {proc.returncode}, no JSON: {proc.stderr.strip()[:400]}"
        return [(f"{label}/{m}", why) for m in meta["minions"]]
    got = {}
    for m in doc.get("minions", []):
        if m["minion"] in got:
            results.append((f"{label}/{m['minion']}", "listed twice"))
        got[m["minion"]] = m
    any_failing = False
    for mid in meta["minions"]:
        exp = expected(salt[sc["before"]][mid], salt[sc["after"]][mid])
        any_failing |= exp["errors_after"] and not exp["errors_before"]
        if mid not in got:
            results.append((f"{label}/{mid}", "missing from the report"))
            continue
        ours = ours_of(got[mid])
        if ours != exp:
            diff = {k: {"salt": exp[k], "ours": ours[k]} for k in exp if exp[k] != ours[k]}
            why = json.dumps(diff)
            for side in ("errors_before", "errors_after"):
                if side in diff:
                    why += f"\n    salt {side}: {json.dumps(salt[sc['before' if side == 'errors_before' else 'after']][mid])[:300]}"
                    why += f"\n    ours {side}: {json.dumps(got[mid][side])[:300]}"
            results.append((f"{label}/{mid}", why))
        else:
            results.append((f"{label}/{mid}", None))
    # The exit status: 1 exactly when a minion that compiled before fails after.
    if proc.returncode != (1 if any_failing else 0):
        results.append((f"{label} (exit status)", f"exit {proc.returncode}, expected {1 if any_failing else 0}: {proc.stderr.strip()[:300]}"))
    extra = set(got) - set(meta["minions"])
    if extra:
        results.append((f"{label} (minions)", f"unexpected minions {sorted(extra)}"))
    return results


def compare(binary, case):
    """[(label, None or why)] for every minion of every scenario of the case."""
    if not os.path.isfile(os.path.join(case, "salt.json")):
        return [(os.path.basename(case), "no salt.json (run salt_diff.py first)")]
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
        salt = json.load(fh)
    out = []
    for sc in meta["scenarios"]:
        out += run_scenario(binary, case, meta, salt, sc)
    return out


if __name__ == "__main__":
    sys.exit(compare_main(compare, __doc__))
