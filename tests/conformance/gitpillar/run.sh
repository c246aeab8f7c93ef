#!/usr/bin/env bash
# git_pillar conformance: generated git repositories served as `ext_pillar: - git:` over
# `file://` remotes (branches, tags, `__env__`, `root`, `env`, `mountpoint`, `name`,
# `all_saltenvs`, `fallback`, includes across remotes, several remotes and entries merged, the
# merge options): `salt-analyzer pillar -c CASE/etc --fleet CASE/fleet.json --format json`
# must print, per minion, what Salt 3008's `pillar.items` returns for that minion's full grains,
# with GitPython as git_pillar's provider, all Salt runs in one Python process (cases.py).
#
# Usage: tests/conformance/gitpillar/run.sh PYTHON BIN [COUNT] [SEED]
# The last line printed is `N passed, N failed` (one per minion, three per case); a missing
# Python, Salt, GitPython, git or binary fails every case, never skips.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PY=$1
BIN=$2
COUNT=${3:-40}
SEED=${4:-1}
WORK=${GITPILLAR_WORK:-$ROOT/tests/.work/gitpillar-conformance}
die() { echo "gitpillar conformance: $*" >&2; echo "0 passed, $((COUNT * 3)) failed"; exit 2; }
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
[ -x "$BIN" ] || die "the binary $BIN does not exist (build it first)"
command -v git >/dev/null || die "git is not installed (the cases' repositories are made with it)"
"$PY" -c 'import salt.version, git' 2>/dev/null || die "$PY lacks salt or GitPython"
rm -rf "$WORK" && mkdir -p "$WORK"
start=$(date +%s)
"$PY" -W ignore "$HERE/cases.py" "$WORK" "$COUNT" "$SEED" 2>"$WORK/salt.log" || { tail -20 "$WORK/salt.log"; die "cases.py failed"; }
"$PY" "$HERE/compare.py" "$BIN" "$WORK"
status=$?
echo "gitpillar conformance: $(( $(date +%s) - start ))s total" >&2
exit $status
