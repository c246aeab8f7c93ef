#!/usr/bin/env bash
# pre-commit runs the repository's own hook (.pre-commit-hooks.yaml) on a fixture repository:
# a commit that adds a missing include fails it, the fixed tree passes, and a file the hook's
# `files:` pattern does not take is not checked. pre-commit comes from PyPI (into PYTHON's
# venv), the hook repository is this checkout at HEAD (`file://`), the binary BIN on the PATH.
#   tests/precommit/run.sh PYTHON BIN
# The last line is "N passed, N failed".
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=$1
BIN=$2
# Both are run from the fixture repository: make them absolute.
case "$PY" in */*) PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY") ;; esac
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
pass=0
fail=0
die() { echo "precommit: $*" >&2; echo "0 passed, 3 failed"; exit 1; }
[ -x "$BIN" ] || die "the binary $BIN does not exist"
if ! "$PY" -m pre_commit --version >/dev/null 2>&1; then
  "$PY" -m pip install --quiet --disable-pip-version-check 'pre-commit==4.2.0' >/dev/null 2>&1 || die "pip install pre-commit failed"
fi
REV=$(git -C "$ROOT" rev-parse HEAD) || die "$ROOT is not a git checkout"
git -C "$ROOT" cat-file -e "$REV:.pre-commit-hooks.yaml" 2>/dev/null || die ".pre-commit-hooks.yaml is not committed at HEAD"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export PRE_COMMIT_HOME=$WORK/cache PATH="$(dirname "$BIN"):$PATH"
repo=$WORK/states
mkdir -p "$repo/salt"
cd "$repo" || die "no fixture directory"
git init -q -b main && git config user.email t@example.com && git config user.name t
printf 'file_roots: {base: [salt]}\n' > salt-analyzer.yaml
printf "base:\n  '*': [web]\n" > salt/top.sls
printf 'include:\n  - nosuch\nnginx:\n  pkg.installed: []\n' > salt/web.sls
printf 'not: [salt\n' > notes.txt
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: file://$ROOT
    rev: $REV
    hooks:
      - id: salt-analyzer
YAML
git add -A && git commit -qm init --no-verify
step() {
  local name=$1 want=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -eq "$want" ]; then
    echo "precommit: ok: $name"; pass=$((pass + 1))
  else
    echo "precommit: FAILED: $name (exit $rc, wanted $want)"; echo "$out" | tail -20; fail=$((fail + 1))
  fi
  LAST=$out
}
step "a missing include fails the hook" 1 "$PY" -m pre_commit run --all-files
case "$LAST" in *missing-include*) ;; *) echo "precommit: FAILED: the hook's output names no missing-include"; fail=$((fail + 1)) ;; esac
printf 'nginx:\n  pkg.installed: []\n' > salt/web.sls
git add -A
step "the fixed tree passes" 0 "$PY" -m pre_commit run --all-files
step "a file the hook does not take is not checked" 0 "$PY" -m pre_commit run --files notes.txt
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
