#!/usr/bin/env bash
# `diff` conformance: `salt-analyzer diff --format json` against real Salt 3008's
# state.show_lowstate of every minion at both sides of a change, on generated git
# repositories (gen_diff.py: states with requisites, an `app` formula with map.jinja +
# defaults.yaml, pillar the templates read, a top file by grains, minions with Salt's full
# grains.items), a commit of random changes and more uncommitted ones. Both scenarios are
# checked: `--from v1 --to v2` and HEAD against the work tree. Salt runs in one Python
# process (salt_diff.py); compare_diff.py judges each minion of each scenario.
#
# Usage: tests/conformance/diff/run.sh PYTHON BIN
# Environment (all optional): DIFF_SEED=1  DIFF_COUNT=12  JOBS=2
#   DIFF_WORK=tests/.work/diff-conformance
#
# The last line printed is `N passed, N failed`; a missing Python, Salt, git or binary fails,
# never skips.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${DIFF_WORK:-$ROOT/tests/.work/diff-conformance}
SEED=${DIFF_SEED:-1}
COUNT=${DIFF_COUNT:-12}
JOBS=${JOBS:-2}

die() {
  echo "diff conformance: $*" >&2
  echo "0 passed, $COUNT failed"
  exit 2
}

[ $# -eq 2 ] || die "usage: tests/conformance/diff/run.sh PYTHON BIN"
PY=$1
BIN=$2
[ -x "$BIN" ] || die "$BIN is not an executable"
command -v git >/dev/null || die "git is not installed"
"$PY" -c 'import salt.version' 2>/dev/null || die "$PY cannot import salt"

start=$(date +%s)
rm -rf "$WORK"
mkdir -p "$WORK"
"$PY" "$HERE/gen_diff.py" --seed "$SEED" --count "$COUNT" --out "$WORK/cases" || die "gen_diff.py failed"
"$PY" -W ignore "$HERE/salt_diff.py" --jobs "$JOBS" "$WORK/cases" || die "salt_diff.py failed"
"$PY" "$HERE/compare_diff.py" --bin "$BIN" --jobs "$JOBS" "$WORK/cases"
status=$?
echo "diff conformance: $(( $(date +%s) - start ))s total" >&2
exit $status
