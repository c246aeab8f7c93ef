#!/usr/bin/env bash
# The minion's pillar with SQL ext_pillar entries, against Salt 3008 over real PostgreSQL and
# MariaDB servers started on loopback for the run (tests/conformance/extpillar/servers.sh):
# `salt-analyzer pillar -c etc --format json` must print what Salt's pillar compile returns
# (`pillar.items`), `_errors` compared by their `Failed to load ext_pillar MODULE:` part, and the
# servers' password must appear nowhere in our output.
# Usage: tests/conformance/extpillar/run.sh PYTHON BIN [COUNT] [SEED]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PY=$1
BIN=$2
COUNT=${3:-60}
SEED=${4:-11}
WORK=${EXTPILLAR_WORK:-$ROOT/tests/.work/extpillar}
die() { echo "extpillar conformance: $*" >&2; echo "0 passed, $COUNT failed"; exit 2; }
[ -x "$BIN" ] || die "the binary $BIN does not exist (build it first)"
"$PY" -c 'import salt.pillar, psycopg2, pymysql, saltext.mysql' 2>/dev/null || die "$PY lacks salt, psycopg2, pymysql or saltext.mysql"
rm -rf "$WORK" && mkdir -p "$WORK/servers" "$WORK/cases"
# shellcheck source=servers.sh
source "$HERE/servers.sh"
trap stop_servers EXIT
start_servers "$WORK/servers" || die "could not start PostgreSQL and MariaDB"
"$PY" -W ignore "$HERE/cases.py" "$WORK/cases" "$COUNT" "$SEED" || die "cases.py failed"
"$PY" "$HERE/compare.py" "$BIN" "$WORK/cases" "$PW"
