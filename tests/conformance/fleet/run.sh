#!/usr/bin/env bash
# Fleet conformance: the minion data cache written by Salt 3008's own cache (both the 3008
# `grains/`/`pillar/` banks and the <= 3007 `minions/<id>/data.p` layout) and the JSON Salt's
# outputter prints for `grains.items` (static, streamed, per-minion files) must give our
# binary the grains and pillar Salt reads back; all the Salt side in one Python process
# (salt_fleet.py).
#
# Usage: tests/conformance/fleet/run.sh PYTHON BIN
# Environment (optional): FLEET_SEED=1  FLEET_COUNT=60  FLEET_WORK=tests/.work/fleet-conformance
#
# The last line printed is `N passed, N failed`; a missing Python, Salt or binary fails, never
# skips.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${FLEET_WORK:-$ROOT/tests/.work/fleet-conformance}

die() {
  echo "fleet conformance: $*" >&2
  echo "0 passed, 1 failed"
  exit 2
}

[ $# -eq 2 ] || die "usage: tests/conformance/fleet/run.sh PYTHON BIN"
PY=$1
BIN=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
[ -x "$BIN" ] || die "$BIN is not an executable"
"$PY" -c 'import salt.version' 2>/dev/null || die "$PY cannot import salt"
"$PY" -W ignore "$HERE/salt_fleet.py" --seed "${FLEET_SEED:-1}" --count "${FLEET_COUNT:-60}" --out "$WORK" --bin "$BIN"
