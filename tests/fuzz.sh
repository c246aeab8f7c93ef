#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer through libfuzzer-sys) on the stable toolchain: builds
# fuzz/ with the coverage instrumentation cargo-fuzz would pass (no sanitizer, so no nightly
# flag), then runs each target from its committed corpus (fuzz/corpus/TARGET, seeded from the
# fixtures) for SECONDS seconds (default 5). A crash fails the target and leaves its input in
# fuzz/artifacts/TARGET/. Prints "N passed, N failed" (one per target).
#   tests/fuzz.sh [SECONDS] [TARGET...]
set -u
cd "$(dirname "$0")/../fuzz"
secs=${1:-5}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(yaml_load jinja_mask python_signatures document_edits dictupdate_merge compound_target minion_compile
    render_template py_re_format sql_base_fold top_compile)
fi
triple=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares"
# --target: the instrumentation must not reach build scripts and proc macros.
if ! cargo build --locked --release --target "$triple" --bins; then
  echo "0 passed, ${#targets[@]} failed"
  exit 1
fi
pass=0
fail=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  # New inputs go to a scratch corpus; the committed one is only read.
  scratch=$(mktemp -d)
  if "target/$triple/release/$t" "$scratch" "corpus/$t" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=20 \
      -artifact_prefix="artifacts/$t/" -print_final_stats=1 > "artifacts/$t.log" 2>&1; then
    echo "fuzz $t: ok ($(grep -E '^stat::number_of_executed_units' "artifacts/$t.log" | awk '{print $2}') executions)"
    pass=$((pass + 1))
  else
    echo "fuzz $t: FAILED"; tail -30 "artifacts/$t.log"
    fail=$((fail + 1))
  fi
  rm -rf "$scratch"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
