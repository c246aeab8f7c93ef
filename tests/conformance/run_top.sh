#!/usr/bin/env bash
# Top-file conformance suite: `salt-analyzer top` and `salt-analyzer lowstate` (a minion's
# whole highstate) must equal real Salt's state.show_top and state.show_lowstate.
#
# Usage: tests/conformance/run_top.sh PYTHON BIN
#   PYTHON  a Python with Salt 3008 installed (e.g. /tmp/saltvenv/bin/python)
#   BIN     the salt-analyzer binary (e.g. target/debug/salt-analyzer)
#
# Environment (all optional):
#   TOP_SEED=1  TOP_COUNT=300  JOBS=2
#   TOP_WORK=tests/.work/top-conformance
#   CHECK_DRIVER=1      also prove the driver against real salt-call subprocesses (~30 s)
set -euo pipefail

PY=${1:?usage: tests/conformance/run_top.sh PYTHON BIN}
BIN=${2:?usage: tests/conformance/run_top.sh PYTHON BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${TOP_WORK:-$ROOT/tests/.work/top-conformance}
SEED=${TOP_SEED:-1}
COUNT=${TOP_COUNT:-300}
JOBS=${JOBS:-2}

case "$BIN" in
  /*) ;;
  *) BIN="$PWD/$BIN" ;;
esac
[ -x "$BIN" ] || { echo "run_top.sh: $BIN is not an executable" >&2; exit 2; }
"$PY" -c 'import salt.version' 2>/dev/null || { echo "run_top.sh: $PY cannot import salt" >&2; exit 2; }

rm -rf "$WORK"
mkdir -p "$WORK"
start=$(date +%s)

"$PY" "$HERE/gen_tops.py" --seed "$SEED" --count "$COUNT" --out "$WORK/generated"
"$PY" -W ignore "$HERE/top_driver.py" --jobs "$JOBS" --quiet "$WORK/generated"

if [ -n "${CHECK_DRIVER:-}" ]; then
  "$PY" -W ignore "$HERE/check_driver_top.py" --jobs "$JOBS" "$WORK/generated"
fi

status=0
"$PY" "$HERE/compare_top.py" --bin "$BIN" --jobs "$JOBS" "$WORK/generated" || status=$?
echo "top conformance: $(( $(date +%s) - start ))s total" >&2
exit $status
