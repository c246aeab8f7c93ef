#!/usr/bin/env bash
# Mapstack conformance: `salt-analyzer mapdata TPLDIR -c ETC --format json` must give the
# `values` that saltext-formula's `salt["map.data"](TPLDIR)` returns under Salt 3008 for
# generated formulas (random parameters/ trees, grains, pillar, map_jinja.yaml sources,
# strategies and merge_lists), or fail where Salt raises; and, for template-formula's Jinja
# flavour, the `mapdata` that formulas laid out as template-formula lays them out (our own
# map.jinja, libmapstack.jinja and libmatchers.jinja from jinja/) give when Salt renders an SLS
# importing it. Both sets run through Salt in one Python process.
#
# Usage: tests/conformance/mapstack/run.sh PYTHON BIN
#   PYTHON  a Python with Salt 3008 and saltext-formula installed (tests/.work/venv/bin/python)
#   BIN     the salt-analyzer binary (e.g. target/debug/salt-analyzer)
#
# Environment (all optional): MAPSTACK_SEED=1 MAPSTACK_COUNT=400 MAPSTACK_JINJA_COUNT=250 JOBS=2
#   MAPSTACK_WORK=tests/.work/mapstack
#
# The last line printed is `N passed, N failed`. A missing Python, Salt, saltext-formula or
# binary fails every case; nothing is skipped.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${MAPSTACK_WORK:-$ROOT/tests/.work/mapstack}
SEED=${MAPSTACK_SEED:-1}
SALTEXT_COUNT=${MAPSTACK_COUNT:-400}
JINJA_COUNT=${MAPSTACK_JINJA_COUNT:-250}
COUNT=$((SALTEXT_COUNT + JINJA_COUNT))
JOBS=${JOBS:-2}

die() {
  echo "mapstack conformance: $*" >&2
  echo "0 passed, $COUNT failed"
  exit 2
}

[ $# -eq 2 ] || die "usage: tests/conformance/mapstack/run.sh PYTHON BIN"
PY=$1
BIN=$2
case "$BIN" in
  /*) ;;
  *) BIN="$PWD/$BIN" ;;
esac
[ -f "$BIN" ] && [ -x "$BIN" ] || die "the binary $2 does not exist or is not executable (build it first)"
command -v "$PY" >/dev/null 2>&1 || die "the Python $PY does not exist"
"$PY" -c 'import salt.version' >/dev/null 2>&1 || die "$PY cannot import salt (install Salt 3008 into it)"
"$PY" -c 'import saltext.formula' >/dev/null 2>&1 || die "$PY cannot import saltext.formula (pip install saltext-formula==0.3.0)"

start=$(date +%s)
rm -rf "$WORK"
mkdir -p "$WORK"
"$PY" "$HERE/gen_mapstack.py" --seed "$SEED" --count "$SALTEXT_COUNT" --out "$WORK/saltext" || die "gen_mapstack.py failed"
"$PY" "$HERE/gen_mapstack.py" --flavour jinja --seed "$SEED" --count "$JINJA_COUNT" --out "$WORK/jinja" || die "gen_mapstack.py --flavour jinja failed"
status=0
"$PY" -W ignore "$HERE/salt_mapstack.py" "$WORK/saltext" "$WORK/jinja" >&2 || status=1
echo "mapstack conformance: Salt side done in $(( $(date +%s) - start ))s" >&2
"$PY" "$HERE/compare_mapstack.py" --bin "$BIN" --jobs "$JOBS" "$WORK/saltext" "$WORK/jinja" || status=1
exit $status
