#!/usr/bin/env bash
# The lint suite of tests/run.sh: the code is formatted (rustfmt.toml) and clippy has nothing
# to say. Prints "N passed, N failed" over the two checks.
set -uo pipefail
cd "$(dirname "$0")/.."
pass=0; fail=0
if cargo fmt --all --check; then pass=$((pass + 1)); else echo "lint: cargo fmt --all --check failed (run cargo fmt --all)"; fail=$((fail + 1)); fi
if cargo clippy --locked --workspace --all-targets -- -D warnings; then pass=$((pass + 1)); else echo "lint: cargo clippy found problems"; fail=$((fail + 1)); fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
