#!/usr/bin/env bash
# The state-function catalog and the call checks against the Salt of PYTHON, whichever
# release line (3006, 3007, 3008) it is:
#  1. drift: the committed catalog of that release (server/model/src/state/catalog-MAJOR.json)
#     must equal a fresh generation from this Salt (tests/conformance/gen_state_catalog.py);
#  2. deprecated arguments: each one the catalog records, and each the generator finds in the
#     x509 file the catalog leaves out, must make Salt's own state function warn Salt's words
#     when passed, and only then (deprecated_args.py);
#  3. conformance: `salt-analyzer check --salt-version MAJOR`'s unknown-function /
#     missing-parameter / unknown-argument diagnostics must equal what Salt's
#     `State.verify_data` and `format_call` say, on generated trees with custom `_states`
#     modules (compare.py).
#
# Usage: tests/conformance/calls/run.sh PYTHON BIN
# Environment (optional): CALLS_WORK=tests/.work/calls-MAJOR  CALLS_COUNT=400  CALLS_SEEDS="1 2"
set -euo pipefail
PY=${1:?usage: run.sh PYTHON BIN}
BIN=${2:?usage: run.sh PYTHON BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
MAJOR=$("$PY" -c 'import salt.version; print(salt.version.__saltstack_version__.major)')
WORK=${CALLS_WORK:-$ROOT/tests/.work/calls-$MAJOR}
COUNT=${CALLS_COUNT:-400}
SEEDS=${CALLS_SEEDS:-1 2}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
mkdir -p "$WORK"

"$PY" -W ignore "$ROOT/tests/conformance/gen_state_catalog.py" "$WORK/catalog-$MAJOR.json"
if ! cmp -s "$WORK/catalog-$MAJOR.json" "$ROOT/server/model/src/state/catalog-$MAJOR.json"; then
  echo "catalog drift: server/model/src/state/catalog-$MAJOR.json differs from a fresh generation from $("$PY" -c 'import salt.version; print(salt.version.__version__)')"
  echo "  regenerate: $PY tests/conformance/gen_state_catalog.py"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "catalog-$MAJOR: no drift"
passed=1; failed=0; rc=0
out=$("$PY" -W ignore "$HERE/deprecated_args.py" --work "$WORK/deprecated" --salt-version "$MAJOR") || rc=1
echo "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$' | sed 's/^/deprecated argument: /' || true
line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
if [ -n "$line" ]; then
  passed=$((passed + ${line%% passed*})); f=${line#*, }; failed=$((failed + ${f%% failed*}))
else
  echo "deprecated arguments: no result"; rc=1; failed=$((failed + 1))
fi
for seed in $SEEDS; do
  out=$("$PY" -W ignore "$HERE/compare.py" --bin "$BIN" --work "$WORK/seed$seed" --count "$COUNT" --seed "$seed" --salt-version "$MAJOR") || rc=1
  echo "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
  line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
  [ -n "$line" ] || { echo "calls conformance: seed $seed gave no result"; rc=1; continue; }
  passed=$((passed + ${line%% passed*})); f=${line#*, }; failed=$((failed + ${f%% failed*}))
done
# The catalog's drift check counts as one.
echo "$passed passed, $failed failed"
exit $rc
