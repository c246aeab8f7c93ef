#!/usr/bin/env bash
# gitfs conformance: generated git repositories served over `file://` gitfs remotes (branches,
# tags, `root`, `mountpoint`, `base`, saltenv mappings, ref types, white/blacklists, `roots`
# before or after `gitfs`): `salt-analyzer top` and `lowstate -c CASE/etc --format json` must
# print what Salt 3008's `state.show_top` and `state.show_lowstate` return with GitPython as
# its gitfs provider, all Salt runs in one Python process (cases.py).
#
# Usage: tests/conformance/gitfs/run.sh PYTHON BIN [COUNT] [SEED]
# The last line printed is `N passed, N failed`; a missing Python, Salt, GitPython, git or
# binary fails every case, never skips.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PY=$1
BIN=$2
COUNT=${3:-30}
SEED=${4:-1}
WORK=${GITFS_WORK:-$ROOT/tests/.work/gitfs-conformance}
die() { echo "gitfs conformance: $*" >&2; echo "0 passed, $((COUNT * 2)) failed"; exit 2; }
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
[ -x "$BIN" ] || die "the binary $BIN does not exist (build it first)"
command -v git >/dev/null || die "git is not installed (the cases' repositories are made with it)"
"$PY" -c 'import salt.version, git' 2>/dev/null || die "$PY lacks salt or GitPython"
rm -rf "$WORK" && mkdir -p "$WORK"
start=$(date +%s)
"$PY" -W ignore "$HERE/cases.py" "$WORK" "$COUNT" "$SEED" 2>"$WORK/salt.log" || { tail -20 "$WORK/salt.log"; die "cases.py failed"; }
"$PY" "$HERE/compare.py" "$BIN" "$WORK"
status=$?
echo "gitfs conformance: $(( $(date +%s) - start ))s total" >&2
exit $status
