#!/usr/bin/env bash
# Render conformance: `salt-analyzer render FILE -c ETC --format json` must print what Salt's
# state system renders from FILE, i.e. what
#   salt-call --local -c ETC state.show_sls NAME saltenv=base      (or state.apply NAME)
# renders before compiling it (see salt_render.py), or, where that render fails, exit 1 with
# an `errors` list.
#
# Usage: tests/conformance/render/run.sh PYTHON BIN
#   PYTHON  a Python with Salt 3008 installed (e.g. tests/.work/venv/bin/python)
#   BIN     the salt-analyzer binary (e.g. target/debug/salt-analyzer)
#
# Environment (all optional):
#   JOBS=2                    processes for Salt, and parallel runs of BIN
#   RENDER_WORK=tests/.work/render
#   CHECK_SUBPROCESS=1        also prove salt_render.py against real salt-call (~45 s)
#
# The last line printed (stdout) is always `N passed, N failed`; the exit status is 0 only
# when every case passed. A missing Python, Salt or binary is a failure of every case, never
# a skip.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${RENDER_WORK:-$ROOT/tests/.work/render}
JOBS=${JOBS:-2}
TOTAL=$(find "$HERE/corpus" -mindepth 2 -maxdepth 2 -name case.json | wc -l)

die() {
  echo "render conformance: $*" >&2
  echo "0 passed, $TOTAL failed"
  exit 2
}

[ $# -eq 2 ] || die "usage: tests/conformance/render/run.sh PYTHON BIN"
PY=$1
BIN=$2
case "$BIN" in
  */*) BIN=$(cd "$(dirname "$BIN")" 2>/dev/null && pwd)/$(basename "$BIN") ;;
  *) BIN=$(command -v "$BIN" || echo "$BIN") ;;
esac
[ -f "$BIN" ] && [ -x "$BIN" ] || die "the binary $2 does not exist or is not executable (build it first)"
command -v "$PY" >/dev/null 2>&1 || die "the Python $PY does not exist"
"$PY" -c 'import salt.version' >/dev/null 2>&1 || die "$PY cannot import salt (install Salt 3008 into it)"

start=$(date +%s)
rm -rf "$WORK"
mkdir -p "$WORK"
"$PY" "$HERE/materialize.py" "$HERE/corpus" "$WORK" || die "materialize.py failed"

# A case Salt could not be run on has no salt.json: compare_render.py fails it.
status=0
check=()
[ -n "${CHECK_SUBPROCESS:-}" ] && check=(--check-subprocess)
"$PY" -W ignore "$HERE/salt_render.py" --jobs "$JOBS" --quiet "${check[@]}" "$WORK" >&2 || status=$?
echo "render conformance: Salt side done in $(( $(date +%s) - start ))s" >&2

# Cases listed in KNOWN_GAPS are what the renderer cannot do yet: a regression in any other
# case fails the suite, and so does a listed case that passes (the list cannot go stale);
# KNOWN_GAPS_OFF=1 counts every case.
gaps=()
[ -z "${KNOWN_GAPS_OFF:-}" ] && gaps=(--known-gaps "$HERE/KNOWN_GAPS")
"$PY" "$HERE/compare_render.py" --bin "$BIN" --jobs "$JOBS" "${gaps[@]}" "$WORK" || status=1
exit $status
