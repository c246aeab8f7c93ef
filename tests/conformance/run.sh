#!/usr/bin/env bash
# Conformance suite, for the Salt release of PYTHON (3006, 3007 or 3008; the binary is
# asked for the same with --salt-version): `salt-analyzer lowstate` must equal real Salt's
# state.show_low_sls (and refuse what state.sls test=True refuses), and
# `salt-analyzer plan` must run the states in state.sls test=True's __run_num__ order, and a
# state ID renamed or an SLS file moved through the language server must leave Salt's lowstate
# as it was, with the new names (rename_oracle.py).
#
# Usage: tests/conformance/run.sh PYTHON BIN
#   PYTHON  a Python with Salt 3008 installed (e.g. /tmp/saltvenv/bin/python)
#   BIN     the salt-analyzer binary (e.g. target/debug/salt-analyzer)
#
# Environment (all optional):
#   CONFORMANCE_SEED=1  CONFORMANCE_COUNT=240  PLAN_COUNT=200  RENAME_COUNT=40  JOBS=2
#   CONFORMANCE_WORK=tests/.work/conformance
#   UPDATE_SALT_JSON=1  copy freshly computed salt.json back into cases/
#   CHECK_DRIVER=1      also prove the driver against real salt-call (~1.5 min)
set -euo pipefail

PY=${1:?usage: tests/conformance/run.sh PYTHON BIN}
BIN=${2:?usage: tests/conformance/run.sh PYTHON BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${CONFORMANCE_WORK:-$ROOT/tests/.work/conformance}
SEED=${CONFORMANCE_SEED:-1}
COUNT=${CONFORMANCE_COUNT:-240}
PLAN_COUNT=${PLAN_COUNT:-200}
JOBS=${JOBS:-2}

case "$BIN" in
  /*) ;;
  *) BIN="$PWD/$BIN" ;;
esac
[ -x "$BIN" ] || { echo "run.sh: $BIN is not an executable" >&2; exit 2; }
"$PY" -c 'import salt.version' 2>/dev/null || { echo "run.sh: $PY cannot import salt" >&2; exit 2; }

rm -rf "$WORK"
mkdir -p "$WORK"
start=$(date +%s)

"$PY" "$HERE/gen_trees.py" --seed "$SEED" --count "$COUNT" --out "$WORK/generated"
"$PY" "$HERE/gen_trees.py" --materialize "$HERE/cases" --out "$WORK/cases"
# Requisite graphs with listen, prereq chains and parallel states, for the run order only.
"$PY" "$HERE/gen_plan.py" --seed "$SEED" --count "$PLAN_COUNT" --out "$WORK/plan"
"$PY" -W ignore "$HERE/salt_driver.py" --jobs "$JOBS" --quiet "$WORK/generated" "$WORK/cases" "$WORK/plan"

# The committed salt.json of the hand-written cases must still be what Salt says.
"$PY" - "$HERE/cases" "$WORK/cases" "${UPDATE_SALT_JSON:-}" <<'PYEOF'
import json, os, shutil, sys
src, work, update = sys.argv[1], sys.argv[2], sys.argv[3]
for name in sorted(os.listdir(work)):
    fresh = os.path.join(work, name, "salt.json")
    kept = os.path.join(src, name, "salt.json")
    if not os.path.isfile(fresh):
        continue
    # A case with `parallel` states: where a put-off state lands depends on when a process ends.
    timing = json.load(open(os.path.join(work, name, "case.json"), encoding="utf-8")).get("timing")
    strip = (lambda d: {k: v for k, v in d.items() if k not in ("run_order", "run_changed")}) if timing else (lambda d: d)
    same = os.path.isfile(kept) and strip(json.load(open(kept, encoding="utf-8"))) == strip(json.load(open(fresh, encoding="utf-8")))
    if update and not same:
        shutil.copyfile(fresh, kept)
        print(f"updated {kept}")
    elif not same:
        print(f"warning: {kept} differs from what this Salt says (UPDATE_SALT_JSON=1 to refresh)", file=sys.stderr)
PYEOF

if [ -n "${CHECK_DRIVER:-}" ]; then
  "$PY" -W ignore "$HERE/check_driver.py" --jobs "$JOBS" "$WORK/generated" "$WORK/cases"
fi

status=0
"$PY" "$HERE/compare_lowstate.py" --bin "$BIN" --jobs "$JOBS" "$WORK/generated" "$WORK/cases" || status=$?
# The same runs' __run_num__ order against `salt-analyzer plan`.
# Cases known to differ for this Salt release (known/plan-MAJOR.txt), each with its reason.
MAJOR=$("$PY" -c 'import salt.version; print(salt.version.__version__.split(".")[0])')
KNOWN=()
[ -f "$HERE/known/plan-$MAJOR.txt" ] && KNOWN=(--known "$HERE/known/plan-$MAJOR.txt")
"$PY" "$HERE/compare_plan.py" --bin "$BIN" --jobs "$JOBS" "${KNOWN[@]}" "$WORK/generated" "$WORK/cases" "$WORK/plan" || status=$?
# Renames as an editor makes them (our server's rename and willRenameFiles edits, applied),
# judged by this Salt's lowstate of the tree before and after.
"$PY" -W ignore "$HERE/rename_oracle.py" --bin "$BIN" --count "${RENAME_COUNT:-40}" --seed "$SEED" --out "$WORK/rename" "$WORK/generated" || status=$?
echo "conformance: $(( $(date +%s) - start ))s total" >&2
exit $status
