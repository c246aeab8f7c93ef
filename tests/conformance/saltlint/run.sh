#!/usr/bin/env bash
# salt-lint conformance: salt-lint (from PyPI, into PYTHON's venv) and `salt-analyzer check`
# on the fixture tree; every salt-lint finding of a rule salt-analyzer ports (`salt-analyzer
# rules --format json`: `salt_lint`) must be ours at the same file and line with the mapped
# code, and ours no more. salt-lint's findings of rules not ported yet are counted, not judged.
#   tests/conformance/saltlint/run.sh PYTHON BIN
# The last line is "N passed, N failed" (one per fixture file).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PY=$1
BIN=$2
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
die() { echo "saltlint: $*" >&2; echo "0 passed, 3 failed"; exit 1; }
[ -x "$BIN" ] || die "the binary $BIN does not exist"
if ! "$PY" -c 'import saltlint' 2>/dev/null; then
  "$PY" -m pip install --quiet --disable-pip-version-check 'salt-lint==0.9.2' >/dev/null 2>&1 || die "pip install salt-lint failed"
fi
"$PY" - "$HERE/fixtures" "$BIN" <<'PYEOF'
import json, os, subprocess, sys
tree, binary = sys.argv[1], sys.argv[2]
rules = json.loads(subprocess.run([binary, "rules", "--format", "json"], capture_output=True, text=True, check=True).stdout)
ported = {r["salt_lint"]: r["code"] for r in rules if r.get("salt_lint")}
codes = set(ported.values())
files = sorted(os.path.relpath(os.path.join(d, f), tree) for d, _, fs in os.walk(tree) for f in fs if f.endswith(".sls"))
lint = subprocess.run([sys.executable, "-m", "saltlint", "--json"] + files, capture_output=True, text=True, cwd=tree)
found = json.loads(lint.stdout or "[]")
theirs, unported = {}, {}
for f in found:
    if f["id"] in ported:
        theirs.setdefault(f["filename"], set()).add((f["linenumber"], ported[f["id"]]))
    else:
        unported[f["id"]] = unported.get(f["id"], 0) + 1
check = subprocess.run([binary, "check", "--format", "json"], capture_output=True, text=True, cwd=tree)
ours = {}
for d in json.loads(check.stdout)["diagnostics"]:
    if d["code"] in codes:
        ours.setdefault(d["file"], set()).add((d["range"]["start"]["line"] + 1, d["code"]))
passed = failed = 0
for f in files:
    a, b = theirs.get(f, set()), ours.get(f, set())
    if a == b:
        passed += 1
        print(f"ok {f}: {len(a)} finding(s)")
    else:
        failed += 1
        print(f"FAIL {f}: salt-lint only {sorted(a - b)}, ours only {sorted(b - a)}")
print(f"ported salt-lint rules: {', '.join(sorted(ported))}; findings of rules not ported yet: {dict(sorted(unported.items())) or 'none'}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYEOF
