#!/usr/bin/env bash
# Pillar conformance: `salt-analyzer pillar -c CASE/etc --format json` must print what
#   salt-call --local -c CASE/etc pillar.items unmask=True --out=json
# prints under `local`, on random pillar_roots trees (gen_pillar.py), all computed by real Salt
# in one Python process (salt_pillar.py).
#
# Usage: tests/conformance/pillar/run.sh PYTHON BIN
#   PYTHON  a Python with Salt 3008 installed (e.g. tests/.work/venv/bin/python)
#   BIN     the salt-analyzer binary (e.g. target/debug/salt-analyzer)
#
# Environment (all optional): PILLAR_SEED=1  PILLAR_COUNT=300  JOBS=2
#   PILLAR_WORK=tests/.work/pillar-conformance
# Under Salt 3007 the trees have a top file in base only (gen_pillar.py --one-top): 3007 reads
# several environments' top files in a Python set's order, which changes from run to run.
#
# The last line printed is `N passed, N failed`; a missing Python, Salt or binary fails every
# case, never skips.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${PILLAR_WORK:-$ROOT/tests/.work/pillar-conformance}
SEED=${PILLAR_SEED:-1}
COUNT=${PILLAR_COUNT:-300}
JOBS=${JOBS:-2}

die() {
  echo "pillar conformance: $*" >&2
  echo "0 passed, $COUNT failed"
  exit 2
}

[ $# -eq 2 ] || die "usage: tests/conformance/pillar/run.sh PYTHON BIN"
PY=$1
BIN=$2
[ -x "$BIN" ] || die "$BIN is not an executable"
"$PY" -c 'import salt.version' 2>/dev/null || die "$PY cannot import salt"

start=$(date +%s)
rm -rf "$WORK"
mkdir -p "$WORK"
# Salt 3007 reads several environments' top files in a random order (a Python set): there,
# only base has one.
one_top=()
[ "$("$PY" -c 'import salt.version; print(salt.version.__version__.split(".")[0])')" = 3007 ] && one_top=(--one-top)
"$PY" "$HERE/gen_pillar.py" --seed "$SEED" --count "$COUNT" --out "$WORK/cases" "${one_top[@]}" || die "gen_pillar.py failed"
"$PY" -W ignore "$HERE/salt_pillar.py" --jobs "$JOBS" "$WORK/cases" || die "salt_pillar.py failed"
"$PY" "$HERE/compare_pillar.py" --bin "$BIN" --jobs "$JOBS" "$WORK/cases"
status=$?
echo "pillar conformance: $(( $(date +%s) - start ))s total" >&2
exit $status
