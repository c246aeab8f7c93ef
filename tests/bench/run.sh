#!/usr/bin/env bash
# Benchmarks of issue 17, one command for every figure the README gives:
#   1. `salt-analyzer lowstate -c DIR` side by side with `salt-call --local -c DIR
#      state.show_lowstate` on a generated highstate (gen_highstate.py), output checked
#      identical; `check` on the same tree;
#   2. lowstate at 1k / 2k / 5k / 10k SLS files: time and peak RSS;
#   3. `diff` with 200 minion profiles: a formula change 10% see, a top change all see;
#   4. the editor benchmark (server/ide/benches/ide.rs): keystrokes, completion, indexing, and
#      the real-formula-shaped workspace (200 formulas + 2,000 plain SLS files);
#   5. `check --fleet` over a generated fleet (gen_fleet.py: 5 OS families, 20 role sets,
#      unique id/fqdn/ipv4) of 100 / 1,000 / 5,000 minions on the 1,000-file tree with a
#      role-targeted top file: time and peak RSS; the per-minion cost beside one
#      `salt-call --local state.show_lowstate` with the first minion's grains.
#
# Usage: tests/bench/run.sh [--quick] PYTHON BIN
#   PYTHON  a Python with Salt 3008 (tests/.work/venv/bin/python); salt-call beside it
#   BIN     the salt-analyzer binary to measure (use a release build for figures:
#           cargo build --release -p salt-analyzer; target/release/salt-analyzer)
#   --quick one small tree, one run each, the editor benchmark in its quick mode (debug):
#           what the test command runs so the benchmarks cannot rot; its figures mean nothing.
# Environment: BENCH_WORK=tests/.work/bench
set -euo pipefail
QUICK=
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
PY=${1:?usage: tests/bench/run.sh [--quick] PYTHON BIN}
BIN=${2:?usage: tests/bench/run.sh [--quick] PYTHON BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${BENCH_WORK:-$ROOT/tests/.work/bench}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
SALT_CALL=$(dirname "$PY")/salt-call
[ -x "$BIN" ] || { echo "bench: $BIN is not an executable" >&2; exit 2; }
[ -x "$SALT_CALL" ] || { echo "bench: no salt-call beside $PY" >&2; exit 2; }
rm -rf "$WORK"
mkdir -p "$WORK"

if [ -n "$QUICK" ]; then SIZES="100"; SIDE=100; RUNS=1; else SIZES="1000 2000 5000 10000"; SIDE=1000; RUNS=3; fi
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo); binary: $BIN"

measure() { python3 "$HERE/measure.py" "$@"; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

for n in $SIZES; do
  python3 "$HERE/gen_highstate.py" --files "$n" --out "$WORK/h$n"
done

# 1. Side by side at $SIDE files, identical output.
d=$WORK/h$SIDE
ours=$(measure "$RUNS" "$d/ours.json" -- "$BIN" lowstate -c "$d/etc" --format json)
salt=$(measure 1 "$d/salt.json" -- "$SALT_CALL" --local -c "$d/etc" --out=json --log-level=quiet state.show_lowstate)
"$PY" - "$d/ours.json" "$d/salt.json" <<'PYEOF'
import json, sys
ours = json.load(open(sys.argv[1]))
salt = json.load(open(sys.argv[2]))["local"]
if ours != salt:
    sys.exit(f"bench: lowstate differs from salt-call's state.show_lowstate ({len(ours)} vs {len(salt)} chunks)")
print(f"lowstate output identical to salt-call's: {len(ours)} chunks")
PYEOF
check=$(measure "$RUNS" "$d/check.txt" -- "$BIN" check -c "$d/etc")
t_ours=$(field "$ours" seconds); t_salt=$(field "$salt" seconds); t_check=$(field "$check" seconds)
echo "lowstate, $SIDE SLS files: salt-analyzer ${t_ours} s, salt-call ${t_salt} s: $(python3 -c "print(round($t_salt / $t_ours, 1))")x; check ${t_check} s"

# 2. The curve.
for n in $SIZES; do
  r=$(measure "$RUNS" "$WORK/h$n/out.json" -- "$BIN" lowstate -c "$WORK/h$n/etc" --format json)
  echo "lowstate, $n SLS files: $(field "$r" seconds) s, peak RSS $(field "$r" rss_mb) MB"
done

# 3. `diff` on a git repository of the editor benchmark's shape (gen_diff_bench.py): 200
#    minion profiles, a change to one formula 10% of them use, and a change to the top file
#    every minion reads. The report must count exactly the minions that change.
if [ -n "$QUICK" ]; then DARGS="--formulas 20 --plain 200 --minions 20"; DM=20; else DARGS=""; DM=200; fi
for change in formula top; do
  d=$WORK/diff-$change
  python3 "$HERE/gen_diff_bench.py" --out "$d" $DARGS
  python3 "$HERE/gen_diff_bench.py" --out "$d" --change "$change"
  r=$(cd "$d" && measure "$RUNS" "$d.json" -- "$BIN" diff --format json)
  want=$([ "$change" = formula ] && echo $((DM / 10)) || echo "$DM")
  python3 - "$d.json" "$want" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
changed, failing = doc["summary"]["changed"], doc["summary"]["now_failing"]
if changed != int(sys.argv[2]) or failing:
    sys.exit(f"bench: diff reports {changed} minions changed ({failing} now failing), expected {sys.argv[2]}")
PYEOF
  echo "diff, $DM minions, change to the $change ($want minions change): $(field "$r" seconds) s, peak RSS $(field "$r" rss_mb) MB"
done

# 4. The editor benchmark.
cd "$ROOT"
if [ -n "$QUICK" ]; then
  SALT_BENCH_QUICK=1 cargo test --locked -p salt-ide --bench ide
else
  cargo bench --locked -p salt-ide --bench ide
fi

# 5. The fleet.
if [ -n "$QUICK" ]; then FLEETS="20"; else FLEETS="100 1000 5000"; fi
f=$WORK/fleet
python3 "$HERE/gen_highstate.py" --files "$SIDE" --out "$f"
for n in $FLEETS; do
  python3 "$HERE/gen_fleet.py" --minions "$n" --tree "$f" --out "$f/fleet$n.json"
  r=$(measure 1 "$f/check$n.txt" -- "$BIN" check --fleet "$f/fleet$n.json" -c "$f/etc")
  t=$(field "$r" seconds)
  echo "check --fleet, $n minions, $SIDE SLS files: $t s ($(python3 -c "print(round(1000 * $t / $n, 1))") ms per minion), peak RSS $(field "$r" rss_mb) MB; $(tail -1 "$f/check$n.txt")"
done
one=$(measure 1 "$f/one.json" -- "$SALT_CALL" --local -c "$f/etc-one" --out=json --log-level=quiet state.show_lowstate)
echo "salt-call --local state.show_lowstate with the first minion's grains: $(field "$one" seconds) s"
echo "bench: done"
# Five steps ran without error (side by side with identical output, the curve, diff, the
# editor benchmark, the fleet); any failure stops the script before this line.
echo "5 passed, 0 failed"
