# Counting helpers shared by tests/editors/run.sh and tests/editors/vscode-e2e/run.sh (sourced;
# the caller sets LOGS): pass/fail print a result line, check runs one command as one check,
# tally counts the "ok X" / "not ok X: why" lines a command prints.
passed=0
failed=0

pass() { passed=$((passed + 1)); printf 'ok     %s\n' "$1"; }
fail() {
  failed=$((failed + 1))
  printf 'FAIL   %s\n' "$1"
  if [ -n "${2:-}" ] && [ -f "$2" ]; then sed 's/^/       | /' "$2" | tail -n 40; fi
}

# check NAME CMD...: one check, its output kept in a log and shown on failure.
check() {
  local name=$1; shift
  local log=$LOGS/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_').log
  if "$@" >"$log" 2>&1; then pass "$name"; else fail "$name" "$log"; return 1; fi
}

# tally NAME CMD...: CMD prints "ok X" / "not ok X: why" lines; each counts.
tally() {
  local name=$1; shift
  local log=$LOGS/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_').log
  "$@" >"$log" 2>&1
  local rc=$? n=0 line
  while IFS= read -r line; do
    case $line in
      'ok '*) n=$((n + 1)); pass "$name: ${line#ok }" ;;
      'not ok '*) n=$((n + 1)); fail "$name: ${line#not ok }" ;;
    esac
  done <"$log"
  if [ "$n" -eq 0 ] || { [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$log"; }; then
    fail "$name: exited $rc" "$log"
  fi
}
