#!/usr/bin/env bash
# salt-lint conformance: salt-lint (from PyPI, into PYTHON's venv) and `salt-analyzer check`
# on the fixture tree, whose `.salt-lint` both read. salt-lint is given every `.sls`, `.jinja`,
# `.jinja2` and `.j2` file (what saltstack-formulas' pre-commit hook gives it, less the
# templates of no language salt-lint knows). Every salt-lint rule is ported: each finding must
# be ours at the same file and line with the code that replaces its rule (`salt-analyzer rules
# --format json`: `salt_lint`), and ours no more; `dotted-sls-name` (214), which we report from
# what Salt resolves, may be reported where salt-lint does not look (a dotted directory, an
# include). A salt-lint rule that no code replaces, or that no fixture triggers, fails.
#   tests/conformance/saltlint/run.sh PYTHON BIN
# The last line is "N passed, N failed" (one per fixture file, and one for the rule coverage).
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
ported = {i: r["code"] for r in rules for i in r["salt_lint"]}
codes = set(ported.values())
# Codes our compile reports from what Salt resolves, wider than salt-lint's text rule.
wider = {"dotted-sls-name"}
langs = (".sls", ".jinja", ".jinja2", ".j2")
files = sorted(os.path.relpath(os.path.join(d, f), tree) for d, _, fs in os.walk(tree) for f in fs if f.lower().endswith(langs))
lint = subprocess.run([sys.executable, "-m", "saltlint", "--json"] + files, capture_output=True, text=True, cwd=tree)
found = json.loads(lint.stdout or "[]")
theirs, unported, fired = {}, {}, set()
for f in found:
    fired.add(f["id"])
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
    extra = {x for x in b - a if x[1] not in wider}
    if a <= b and not extra:
        passed += 1
        more = f", and {len(b - a)} {', '.join(sorted({x[1] for x in b - a}))} where salt-lint does not look" if b - a else ""
        print(f"ok {f}: {len(a)} finding(s){more}")
    else:
        failed += 1
        print(f"FAIL {f}: salt-lint only {sorted(a - b)}, ours only {sorted(extra)}")
silent = sorted(set(ported) - fired)
if unported or silent:
    failed += 1
    print(f"FAIL rules: salt-lint findings no code replaces {dict(sorted(unported.items())) or 'none'}; rules no fixture triggers {silent or 'none'}")
else:
    passed += 1
    print(f"ok rules: every one of salt-lint's {len(ported)} rules fired and was matched ({len(found)} findings)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYEOF
