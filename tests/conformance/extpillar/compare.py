#!/usr/bin/env python3
"""Compares `salt-analyzer pillar -c CASE/etc --format json` with CASE/salt.json for every case;
for a case with a wrong password, `pillar` and `check` must each say the database could not be
opened, and no password may appear in any output.
Usage: compare.py BIN CASES_DIR PASSWORD. Prints `N passed, M failed`; exit 1 on any failure."""
import json
import os
import subprocess
import sys

BIN, CASES, PW = sys.argv[1], sys.argv[2], sys.argv[3]


def errors_key(errors):
    # Salt's wording after the module name is the driver's (psycopg2, PyMySQL); ours the Rust
    # driver's: compare which entries failed.
    return sorted(e.split(":", 1)[0] for e in errors or [])


passed, failed = 0, []
for name in sorted(os.listdir(CASES)):
    case = os.path.join(CASES, name)
    salt = json.load(open(os.path.join(case, "salt.json")))
    run = subprocess.run([BIN, "pillar", "-c", os.path.join(case, "etc"), "--format", "json"], capture_output=True, text=True, timeout=120)
    if PW in run.stdout or PW in run.stderr:
        failed.append(f"{name}: the password appears in our output")
        continue
    try:
        ours = json.loads(run.stdout)
    except ValueError:
        failed.append(f"{name}: no JSON (exit {run.returncode}): {run.stderr[-300:]}")
        continue
    if "error" in salt:
        failed.append(f"{name}: Salt raised {salt['error']}")
        continue
    want = dict(salt["pillar"])
    got = dict(ours) if isinstance(ours, dict) else {"not a dict": ours}
    if errors_key(want.pop("_errors", None)) != errors_key(got.pop("_errors", None)) or want != got:
        failed.append(f"{name}:\n  salt: {json.dumps(salt['pillar'], ensure_ascii=False)[:600]}\n  ours: {json.dumps(ours, ensure_ascii=False)[:600]}")
        continue
    # A wrong password that Salt fails on: a clear finding in `pillar` and in `check` (at the
    # configuration's `ext_pillar:`), the rest of the pillar computed (compared above), and
    # neither password anywhere.
    etc = os.path.join(case, "etc")
    wrong = "wrong-pw" in open(os.path.join(etc, "minion"), encoding="utf-8").read()
    if wrong and any(e.startswith("Failed to load ext_pillar") for e in salt["pillar"].get("_errors", [])):
        problem = None
        for args in (["pillar", "-c", etc], ["check", "-c", etc]):
            r = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
            text = r.stdout + r.stderr
            if PW in text or "wrong-pw" in text:
                problem = f"a password appears in `{args[0]}`'s output"
            elif "could not open its database" not in text or "warning[ext-pillar]" not in text:
                problem = f"`{args[0]}` does not say the database could not be opened:\n{text[-600:]}"
            if problem:
                break
        if problem:
            failed.append(f"{name}: {problem}")
            continue
    passed += 1
for f in failed:
    print("FAIL", f)
print(f"{passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
