#!/usr/bin/env bash
# The VS Code extension in real VS Code: code-server 4 (VS Code 1.100) served on 127.0.0.1,
# driven as a user drives it (keyboard, command palette, clicks, reading the DOM) through
# Debian's Chromium with playwright-core. The extension is the linux-x64 platform VSIX that
# scripts/release.sh builds, carrying the server binary; no salt-analyzer.server.path is set
# and no salt-analyzer is on PATH, so the bundled binary is the one that runs.
#
#   tests/editors/vscode-e2e/run.sh [BIN]     (default BIN: $SALT_ANALYZER_BIN, else target/debug/salt-analyzer)
#
# Installs what it needs (Debian chromium, ripgrep and libkrb5-dev with apt-get; code-server
# and playwright-core from npm), cached under tests/.work/vscode-e2e, and fails, never skips,
# when something is missing. Screenshots of every checked step: tests/.work/vscode-e2e/shots/.
# Ends with "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/tests/editors/vscode-e2e
WORK=$ROOT/tests/.work/vscode-e2e
LOGS=$WORK/logs
BIN=${1:-${SALT_ANALYZER_BIN:-$ROOT/target/debug/salt-analyzer}}
CODE_SERVER_VERSION=4.100.3
mkdir -p "$LOGS"
. "$ROOT/tests/editors/lib.sh"
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

# ------------------------------------------------------------------ installs
apt_packages() {
  local missing=() p
  for p in chromium ripgrep libkrb5-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    local sudo=
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}" || return 1
  fi
  command -v chromium && command -v rg && chromium --version
}
check 'install: Debian chromium, ripgrep, libkrb5-dev (apt-get)' apt_packages || finish

# code-server from npm without its install scripts (its @vscode/ripgrep would download from
# GitHub): VS Code's own dependencies installed without scripts, Debian's rg in the place
# @vscode/ripgrep's would be, the native modules rebuilt here, and postinstall.sh's symlinks.
CS=$WORK/code-server
CODE_SERVER=$CS/node_modules/.bin/code-server
install_code_server() {
  if [ -f "$CS/.done-$CODE_SERVER_VERSION" ] && "$CODE_SERVER" --version; then return 0; fi
  rm -rf "$CS" && mkdir -p "$CS" || return 1
  cd "$CS" || return 1
  npm install --no-audit --no-fund --ignore-scripts "code-server@$CODE_SERVER_VERSION" || return 1
  local vs=$CS/node_modules/code-server/lib/vscode
  (cd "$vs" && npm install --omit=dev --ignore-scripts --no-audit --no-fund) || return 1
  (cd "$vs/extensions" && npm install --omit=dev --ignore-scripts --no-audit --no-fund) || return 1
  mkdir -p "$vs/node_modules/@vscode/ripgrep/bin" && ln -sfn "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg" || return 1
  (cd "$vs" && npm_config_yes=true npm rebuild kerberos node-pty @parcel/watcher @vscode/spdlog native-watchdog @vscode/deviceid) || return 1
  (cd "$CS" && npm_config_yes=true npm rebuild argon2) || return 1
  ln -sfn node_modules "$vs/node_modules.asar" || return 1
  (cd "$vs/bin/remote-cli" && ln -sfn code-linux.sh code-server) || return 1
  (cd "$vs/bin/helpers" && ln -sfn browser-linux.sh browser.sh) || return 1
  HOME=$WORK/home "$CODE_SERVER" --version || return 1
  touch "$CS/.done-$CODE_SERVER_VERSION"
}
check "install: code-server@$CODE_SERVER_VERSION (npm, scripts off, native modules rebuilt)" install_code_server || finish

PW=$WORK/playwright
install_playwright() {
  mkdir -p "$PW" && cp "$HERE/package.json" "$HERE/package-lock.json" "$PW/" || return 1
  if ! cmp -s "$PW/package-lock.json" "$PW/node_modules/.package-lock.json.copy" 2>/dev/null; then
    (cd "$PW" && npm ci --no-audit --no-fund) || return 1
    cp "$PW/package-lock.json" "$PW/node_modules/.package-lock.json.copy"
  fi
  node -e 'require(process.argv[1]); console.log("playwright-core", require(process.argv[1] + "/package.json").version)' "$PW/node_modules/playwright-core"
}
check 'install: playwright-core (npm ci, committed lock file)' install_playwright || finish

# ------------------------------------------------------------------ the platform VSIX
[ -x "$BIN" ] || { fail "no salt-analyzer binary at $BIN (cargo build -p salt-analyzer)"; finish; }
DIST=$WORK/dist
release() { rm -rf "$DIST" && "$ROOT/scripts/release.sh" --bin "$BIN" --out "$DIST"; }
check 'scripts/release.sh builds the linux-x64 VSIX with the server binary in it' release || finish
VSIX=$(ls "$DIST"/salt-analyzer-*-linux-x64.vsix 2>/dev/null | head -n 1)
vsix_has_binary() { unzip -l "$VSIX" | grep -E ' extension/server/salt-analyzer$'; }
check 'the linux-x64 VSIX carries extension/server/salt-analyzer' vsix_has_binary || finish

# ------------------------------------------------------------------ VS Code
# A private HOME (no ~/.cargo/bin) and a PATH without salt-analyzer.
STATE=$WORK/state
rm -rf "$STATE" && mkdir -p "$STATE/home" "$STATE/user/User" "$STATE/extensions"
export HOME=$STATE/home XDG_CONFIG_HOME=$STATE/home/.config XDG_DATA_HOME=$STATE/home/.local/share
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while IFS= read -r d; do [ -n "$d" ] && [ ! -e "$d/salt-analyzer" ] && printf '%s:' "$d"; done)
export PATH=${PATH%:}
no_server_on_path() { ! command -v salt-analyzer; }
check 'no salt-analyzer on PATH or in ~/.cargo/bin (the bundled one must run)' no_server_on_path || finish
install_vsix() {
  "$CODE_SERVER" --install-extension "$VSIX" --extensions-dir "$STATE/extensions" --user-data-dir "$STATE/user" &&
    ls "$STATE"/extensions/salt-analyzer.salt-analyzer-*/server/salt-analyzer &&
    test -x "$(ls "$STATE"/extensions/salt-analyzer.salt-analyzer-*/server/salt-analyzer)"
}
check 'code-server --install-extension the linux-x64 VSIX (binary executable after install)' install_vsix || finish

rm -rf "$WORK/shots"
mkdir -p "$WORK/shots"
tally 'vscode e2e' env CODE_SERVER="$CODE_SERVER" STATE="$STATE" SHOTS="$WORK/shots" EXAMPLES="$ROOT/examples" \
  NODE_PATH="$PW/node_modules" timeout 1500 node "$HERE/e2e.js"
# What the run noted on the way (Chromium exiting under the test, a window opened again).
grep '^# ' "$LOGS/vscode_e2e.log" || true
echo "screenshots: $WORK/shots"
finish
