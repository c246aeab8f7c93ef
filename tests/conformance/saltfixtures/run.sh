#!/usr/bin/env bash
# Conformance suite "Salt's own requisite fixtures": the SLS trees of Salt's own functional
# tests for requisites and state ordering (from the sdist of the Salt release PYTHON imports,
# fetched from PyPI at test time, never committed), run through that Salt in one process
# (state.show_low_sls and the __run_num__ order of state.sls test=True), against
# `salt-analyzer lowstate` and `plan` with `--salt-version <that release's major>`.
#
# Usage: tests/conformance/saltfixtures/run.sh PYTHON BIN
#   PYTHON  a Python with Salt 3006, 3007 or 3008 installed (and pip, for the download)
#   BIN     the salt-analyzer binary
#
# Environment (all optional):
#   JOBS=2                 processes for Salt and for the comparers
#   SALTFIXTURES_WORK=tests/.work/saltfixtures   cases go to $SALTFIXTURES_WORK/<version>/cases,
#                          the downloaded sdist stays in $SALTFIXTURES_WORK/sdist
#   SALTFIXTURES_SDIST=... use this salt-X.Y.tar.gz instead of downloading
#
# Each case is judged twice (lowstate, plan); the last line is `N passed, N failed` over both,
# and the exit status is non-zero when any failed.
set -euo pipefail

PY=${1:?usage: tests/conformance/saltfixtures/run.sh PYTHON BIN}
BIN=${2:?usage: tests/conformance/saltfixtures/run.sh PYTHON BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
CONF=$(cd "$HERE/.." && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BASE=${SALTFIXTURES_WORK:-$ROOT/tests/.work/saltfixtures}
JOBS=${JOBS:-2}

case "$BIN" in
  /*) ;;
  *) BIN="$PWD/$BIN" ;;
esac
[ -x "$BIN" ] || { echo "saltfixtures/run.sh: $BIN is not an executable" >&2; exit 2; }
VERSION=$("$PY" -c 'import salt.version; print(salt.version.__version__)' 2>/dev/null) \
  || { echo "saltfixtures/run.sh: $PY cannot import salt" >&2; exit 2; }
MAJOR=${VERSION%%.*}
WORK=$BASE/$VERSION
start=$(date +%s)

fetch=(--out "$WORK/cases" --cache "$BASE/sdist")
[ -n "${SALTFIXTURES_SDIST:-}" ] && fetch+=(--sdist "$SALTFIXTURES_SDIST")
"$PY" "$HERE/fetch.py" "${fetch[@]}"
"$PY" -W ignore "$CONF/salt_driver.py" --jobs "$JOBS" --quiet "$WORK/cases"

status=0
"$PY" "$CONF/compare_lowstate.py" --bin "$BIN" --jobs "$JOBS" --salt-version "$MAJOR" "$WORK/cases" \
  | tee "$WORK/lowstate.txt" || status=1
"$PY" "$CONF/compare_plan.py" --bin "$BIN" --jobs "$JOBS" --salt-version "$MAJOR" "$WORK/cases" \
  | tee "$WORK/plan.txt" || status=1

read -r lp lf < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$WORK/lowstate.txt" | tail -1)
read -r pp pf < <(sed -nE 's/^plan: ([0-9]+) passed .*, ([0-9]+) failed$/\1 \2/p' "$WORK/plan.txt" | tail -1)
lp=${lp:-0} lf=${lf:-1} pp=${pp:-0} pf=${pf:-1}
echo "saltfixtures: salt $VERSION (--salt-version $MAJOR): lowstate $lp agree, $lf disagree; plan $pp agree, $pf disagree; $(( $(date +%s) - start ))s"
echo "$((lp + pp)) passed, $((lf + pf)) failed"
[ $((lf + pf)) -eq 0 ] || status=1
exit $status
