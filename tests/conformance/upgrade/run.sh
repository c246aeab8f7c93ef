#!/usr/bin/env bash
# Upgrade conformance: `salt-analyzer diff --salt-version OLD --to-salt-version NEW` must say
# what the difference of real Salt's two `state.show_lowstate` answers says, minion by minion:
# the states added and removed, the keys changed, and whether the minion compiles at each side.
#
# Usage: tests/conformance/upgrade/run.sh PY_OLD PY_NEW BIN
#   PY_OLD, PY_NEW  Pythons with two Salt releases (e.g. tests/.work/venv-3006/bin/python and
#                   tests/.work/venv/bin/python)
#   BIN             the salt-analyzer binary
# Environment (optional): UPGRADE_SEED=1  UPGRADE_COUNT=120  JOBS=2  UPGRADE_WORK=tests/.work/upgrade-OLD-NEW
set -euo pipefail
OLD=${1:?usage: run.sh PY_OLD PY_NEW BIN}
NEW=${2:?usage: run.sh PY_OLD PY_NEW BIN}
BIN=${3:?usage: run.sh PY_OLD PY_NEW BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
CONF=$(cd "$HERE/.." && pwd)
ROOT=$(cd "$CONF/../.." && pwd)
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
[ -x "$BIN" ] || { echo "upgrade/run.sh: $BIN is not an executable" >&2; exit 2; }
major() { "$1" -c 'import salt.version; print(salt.version.__version__.split(".")[0])'; }
A=$(major "$OLD") || { echo "upgrade/run.sh: $OLD cannot import salt" >&2; exit 2; }
B=$(major "$NEW") || { echo "upgrade/run.sh: $NEW cannot import salt" >&2; exit 2; }
WORK=${UPGRADE_WORK:-$ROOT/tests/.work/upgrade-$A-$B}
JOBS=${JOBS:-2}
start=$(date +%s)
rm -rf "$WORK"
mkdir -p "$WORK"

# The same generated trees (multi-environment tops, includes, requisites, leading slashes,
# names), each minion's show_lowstate at both releases (one Salt process per release).
"$NEW" "$CONF/gen_tops.py" --seed "${UPGRADE_SEED:-1}" --count "${UPGRADE_COUNT:-120}" --out "$WORK/cases" >/dev/null
"$OLD" -W ignore "$CONF/top_driver.py" --jobs "$JOBS" --quiet "$WORK/cases"
for c in "$WORK"/cases/*/; do mv "$c/salt.json" "$c/salt-$A.json"; done
"$NEW" -W ignore "$CONF/top_driver.py" --jobs "$JOBS" --quiet "$WORK/cases"
for c in "$WORK"/cases/*/; do mv "$c/salt.json" "$c/salt-$B.json"; done

status=0
"$NEW" "$HERE/compare_upgrade.py" --bin "$BIN" --jobs "$JOBS" --from "$A" --to "$B" "$WORK/cases" || status=$?
echo "upgrade conformance $A -> $B: $(( $(date +%s) - start ))s total" >&2
exit $status
