#!/usr/bin/env bash
# Builds what a user without a Rust toolchain installs, into dist/ (or --out DIR):
#   salt-analyzer-VERSION-RUST_TARGET.tar.gz   the server binary, README and LICENSE
#   salt-analyzer-VERSION-VSCODE_TARGET.vsix   the VS Code extension carrying that binary in
#                                               server/ (`vsce package --target`), which it runs
#                                               unless salt-analyzer.server.path is set
#
#   scripts/release.sh [--target RUST_TARGET]... [--bin FILE] [--out DIR]
#
# --target defaults to the host's (x86_64-unknown-linux-gnu here). Other targets are built with
# `cargo build --release --target T` and need that target's standard library (`rustup target add
# T`) and a linker for it; the script fails, naming what is missing, rather than skipping one.
# --bin packages a binary already built (one target only; tests use the debug build) instead
# of running cargo.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EXT=$ROOT/editors/vscode
OUT=$ROOT/dist
BIN=
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --target) targets+=("$2"); shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "release.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
[ ${#targets[@]} -gt 0 ] || targets=("${host:?release.sh: rustc is needed to name the host target; pass --target}")
if [ -n "$BIN" ] && [ ${#targets[@]} -ne 1 ]; then echo "release.sh: --bin packages one target" >&2; exit 2; fi

# The VS Code platform (`vsce package --target`) for a Rust target triple.
vscode_target() {
  case $1 in
    x86_64-unknown-linux-gnu | x86_64-unknown-linux-musl) echo linux-x64 ;;
    aarch64-unknown-linux-gnu | aarch64-unknown-linux-musl) echo linux-arm64 ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-msvc | x86_64-pc-windows-gnu) echo win32-x64 ;;
    aarch64-pc-windows-msvc) echo win32-arm64 ;;
    *) echo "release.sh: no VS Code platform for $1" >&2; return 1 ;;
  esac
}

version=$(node -p 'require(process.argv[1]).version' "$EXT/package.json")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The extension is packaged from a copy (its own `npm ci`, the grammar copied beside it as in
# the repository), so that editors/vscode is never touched: tests that build it may run at the
# same time.
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/editors" "$STAGE/grammars"
cp "$ROOT/grammars/sls.tmLanguage.json" "$STAGE/grammars/"
tar -C "$ROOT/editors" --exclude=vscode/node_modules --exclude=vscode/out --exclude=vscode/syntaxes \
  --exclude=vscode/server --exclude='vscode/*.vsix' -cf - vscode | tar -C "$STAGE/editors" -xf -
SEXT=$STAGE/editors/vscode
(cd "$SEXT" && npm ci --no-audit --no-fund)

for target in "${targets[@]}"; do
  platform=$(vscode_target "$target")
  exe=salt-analyzer
  case $target in *windows*) exe=salt-analyzer.exe ;; esac
  if [ -n "$BIN" ]; then
    built=$BIN
  else
    if [ "$target" != "$host" ] && ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
      echo "release.sh: the Rust standard library for $target is not installed (rustup target add $target)" >&2
      exit 1
    fi
    cargo build --locked --release -p salt-analyzer --target "$target" --manifest-path "$ROOT/Cargo.toml"
    built=$ROOT/target/$target/release/$exe
  fi
  [ -x "$built" ] || { echo "release.sh: no executable at $built" >&2; exit 1; }

  stage=$(mktemp -d)
  mkdir -p "$stage/salt-analyzer-$version-$target"
  cp "$built" "$stage/salt-analyzer-$version-$target/$exe"
  cp "$ROOT/README.md" "$EXT/LICENSE" "$stage/salt-analyzer-$version-$target/"
  tar -C "$stage" -czf "$OUT/salt-analyzer-$version-$target.tar.gz" "salt-analyzer-$version-$target"
  rm -rf "$stage"

  rm -rf "$SEXT/server" && mkdir -p "$SEXT/server"
  cp "$built" "$SEXT/server/$exe"
  chmod 755 "$SEXT/server/$exe"
  (cd "$SEXT" && npx --no-install vsce package --target "$platform" --out "$OUT/salt-analyzer-$version-$platform.vsix")
  echo "release.sh: $OUT/salt-analyzer-$version-$target.tar.gz and $OUT/salt-analyzer-$version-$platform.vsix"
done
