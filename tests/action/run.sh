#!/usr/bin/env bash
# The GitHub Action and the CI recipes, without GitHub: action.yml is validated against the
# GitHub Actions metadata schema, and every workflow and GitLab CI recipe in the README and
# docs/cli.md (a ```yaml block whose first line is `# .github/workflows/NAME.yml` or
# `# .gitlab-ci.yml`) against the workflow or GitLab CI schema (check-jsonschema from PyPI,
# which carries SchemaStore's schemas). Then scripts/github-action.sh, which action.yml runs,
# is run as the runner runs it (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH, the INPUT_*
# variables) on a fixture repository: installing a release tarball (built from BIN as
# scripts/release.sh packs it, served from a file:// URL), `check` writing SARIF and
# annotations, and `diff` of a pull request against its target branch with the Markdown in
# the job summary and a comment posted through `gh` (a stand-in that records its arguments).
#   tests/action/run.sh BIN
# The last line is "N passed, N failed".
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$1
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
WORK=${ACTION_WORK:-$ROOT/tests/.work/action}
pass=0
fail=0
die() { echo "action: $*" >&2; echo "0 passed, 3 failed"; exit 1; }
ok() { echo "action: ok: $*"; pass=$((pass + 1)); }
bad() { echo "action: FAIL: $*"; fail=$((fail + 1)); }
[ -x "$BIN" ] || die "the binary $BIN does not exist"
mkdir -p "$WORK"
VENV=$WORK/venv
if ! "$VENV/bin/check-jsonschema" --version >/dev/null 2>&1; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" || die "cannot create a venv"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'check-jsonschema==0.39.0' >/dev/null 2>&1 || die "pip install check-jsonschema failed"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# 1. action.yml and the recipes against their schemas.
if out=$("$VENV/bin/check-jsonschema" --builtin-schema vendor.github-actions "$ROOT/action.yml" 2>&1); then
  ok "action.yml is valid action metadata"
else
  bad "action.yml: $out"
fi
"$VENV/bin/python" - "$TMP/recipes" "$ROOT/README.md" "$ROOT/docs/cli.md" <<'PYEOF' || bad "cannot extract the recipes"
import os, re, sys
out, docs = sys.argv[1], sys.argv[2:]
os.makedirs(os.path.join(out, "github"), exist_ok=True)
os.makedirs(os.path.join(out, "gitlab"), exist_ok=True)
n = 0
for doc in docs:
    text = open(doc, encoding="utf-8").read()
    for i, block in enumerate(re.findall(r"^```ya?ml\n(.*?)^```", text, re.S | re.M)):
        first = block.splitlines()[0].strip() if block.strip() else ""
        kind = "github" if re.match(r"# \.github/workflows/[\w.-]+\.ya?ml$", first) else "gitlab" if first == "# .gitlab-ci.yml" else None
        if kind:
            n += 1
            with open(os.path.join(out, kind, f"{os.path.basename(doc)}-{i}.yml"), "w", encoding="utf-8") as f:
                f.write(block)
print(f"{n} recipes")
PYEOF
for kind in github gitlab; do
  schema=vendor.github-workflows; [ $kind = gitlab ] && schema=vendor.gitlab-ci
  files=("$TMP/recipes/$kind"/*.yml)
  if [ ! -e "${files[0]}" ]; then bad "no $kind recipe found in README.md or docs/cli.md"; continue; fi
  if out=$("$VENV/bin/check-jsonschema" --builtin-schema $schema "${files[@]}" 2>&1); then
    ok "${#files[@]} $kind recipe(s) valid"
  else
    bad "$kind recipes: $out"
  fi
done
grep -l "uses: salt-analyzer/salt-analyzer@" "$TMP/recipes/github"/*.yml >/dev/null 2>&1 && ok "a workflow recipe uses the action" || bad "no workflow recipe uses the action"

# 2. The action's script, as the runner runs it.
export GITHUB_OUTPUT=$TMP/output GITHUB_STEP_SUMMARY=$TMP/summary GITHUB_PATH=$TMP/path RUNNER_TEMP=$TMP/runner
mkdir -p "$RUNNER_TEMP"
repo=$TMP/states
mkdir -p "$repo/salt"
cd "$repo" || die "no fixture directory"
git init -q -b main && git config user.email t@example.com && git config user.name t
printf 'file_roots: {base: [salt]}\nminions:\n  web01: {grains: {os: Debian}}\n  db01: {grains: {os: Rocky}}\n' > salt-analyzer.yaml
printf "base:\n  '*': [common]\n  'web*': [web]\n" > salt/top.sls
printf 'tools:\n  pkg.installed: [{name: curl}]\n' > salt/common.sls
printf 'nginx:\n  pkg.installed: []\n' > salt/web.sls
git add -A && git commit -qm init
git clone -q --bare "$repo" "$TMP/origin.git" && git remote add origin "$TMP/origin.git" && git fetch -q origin
action() { env "$@" "$ROOT/scripts/github-action.sh" > "$TMP/stdout" 2> "$TMP/stderr"; }
outputs() { grep "^$1=" "$GITHUB_OUTPUT" | tail -1 | cut -d= -f2-; }

# A release tarball as scripts/release.sh packs it, installed from a file:// URL.
rel=$TMP/releases/v9.8.7 && mkdir -p "$rel/salt-analyzer-9.8.7-x86_64-unknown-linux-gnu"
cp "$BIN" "$rel/salt-analyzer-9.8.7-x86_64-unknown-linux-gnu/salt-analyzer"
tar -C "$rel" -czf "$rel/salt-analyzer-9.8.7-x86_64-unknown-linux-gnu.tar.gz" salt-analyzer-9.8.7-x86_64-unknown-linux-gnu
: > "$GITHUB_OUTPUT"
if action SALT_ANALYZER_RELEASES_URL="file://$TMP/releases" GITHUB_ACTION_REF=v9.8.7 INPUT_COMMAND=check && [ "$(outputs exit-code)" = 0 ] &&
  grep -qx "$RUNNER_TEMP/salt-analyzer-action/salt-analyzer-9.8.7-x86_64-unknown-linux-gnu" "$GITHUB_PATH" &&
  "$VENV/bin/python" -c 'import json,sys; l=json.load(open(sys.argv[1])); sys.exit(0 if l["version"] == "2.1.0" and l["runs"][0]["results"] == [] else 1)' "$(outputs report)"; then
  ok "installs the release of the action's tag and writes an empty SARIF log on a clean tree"
else
  bad "release install: $(cat "$TMP/stderr") $(cat "$GITHUB_OUTPUT")"
fi
action INPUT_COMMAND=check INPUT_VERSION=main
if [ $? = 2 ] && grep -q "no release version" "$TMP/stderr"; then ok "refuses a version that is no release"; else bad "version main: $(cat "$TMP/stderr")"; fi

# A pull request that breaks web01 and adds a finding.
git checkout -q -b feature
printf 'include:\n  - nosuch\nnginx:\n  pkg.installed: []\n' > salt/web.sls
printf 'tools:\n  pkg.installed: [{name: curl}]\nconf:\n  file.managed:\n    - name: /etc/x\n    - mode: 644\n' > salt/common.sls
git commit -qam "break web"
: > "$GITHUB_OUTPUT"
action INPUT_BINARY="$BIN" INPUT_COMMAND=check INPUT_ARGS="--select missing-include,file-mode-unquoted"
status=$?
report=$(outputs report)
if [ $status = 1 ] && [ "$(outputs exit-code)" = 1 ] && [ "$report" = "$repo/salt-analyzer.sarif" ] &&
  "$VENV/bin/python" -c '
import json, sys
l = json.load(open(sys.argv[1]))
got = sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in l["runs"][0]["results"])
sys.exit(0 if got == [("file-mode-unquoted", "salt/common.sls"), ("missing-include", "salt/web.sls")] else f"{got}")' "$report"; then
  ok "check writes SARIF of the findings --select keeps, and fails as check does"
else
  bad "check sarif: exit $status, $(cat "$GITHUB_OUTPUT") $(cat "$TMP/stderr")"
fi
action INPUT_BINARY="$BIN" INPUT_COMMAND=check INPUT_FORMAT=github
if [ $? = 1 ] && grep -q '^::error file=salt/web.sls,line=2,' "$TMP/stdout" && grep -q '^::warning file=salt/common.sls,' "$TMP/stdout"; then
  ok "check prints annotations"
else
  bad "check github: $(cat "$TMP/stdout" "$TMP/stderr")"
fi
action INPUT_BINARY="$BIN" INPUT_COMMAND=check INPUT_FORMAT=sarif INPUT_ARGS="--ignore 'missing-include' --select \"file-mode-unquoted\""
if [ $? = 0 ] && [ "$(grep -c '"ruleId"' "$repo/salt-analyzer.sarif")" = 1 ]; then ok "args are split with quotes, never evaluated"; else bad "quoted args: $(cat "$TMP/stderr")"; fi

mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > %s/gh-args\n' "$TMP" > "$TMP/fakebin/gh" && chmod +x "$TMP/fakebin/gh"
: > "$GITHUB_OUTPUT"; : > "$GITHUB_STEP_SUMMARY"
action PATH="$TMP/fakebin:$PATH" INPUT_BINARY="$BIN" INPUT_COMMAND=diff GITHUB_BASE_REF=main INPUT_PR_NUMBER=42
status=$?
if [ $status = 1 ] && grep -q "web01" "$GITHUB_STEP_SUMMARY" && grep -q "now failing\|now fails" "$GITHUB_STEP_SUMMARY" &&
  [ "$(sed -n 1,3p "$TMP/gh-args" | tr '\n' ' ')" = "pr comment 42 " ] && cmp -s "$(sed -n 5p "$TMP/gh-args")" "$(outputs report)" &&
  grep -q -- "--from origin/main...HEAD\|merge base of" "$(outputs report)"; then
  ok "diff of a pull request: the report in the job summary and as a comment, failing as diff does"
else
  bad "diff: exit $status; $(cat "$TMP/stderr"); summary: $(head -20 "$GITHUB_STEP_SUMMARY"); gh: $(cat "$TMP/gh-args" 2>/dev/null)"
fi
rm -f "$TMP/gh-args"
action PATH="$TMP/fakebin:$PATH" INPUT_BINARY="$BIN" INPUT_COMMAND=diff INPUT_COMMENT=false INPUT_BEFORE=main INPUT_FORMAT=json
if [ $? = 1 ] && [ ! -e "$TMP/gh-args" ] && "$VENV/bin/python" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["minions"] else 1)' "$(outputs report)"; then
  ok "diff of a push (before..HEAD) as JSON, no comment"
else
  bad "diff push: $(cat "$TMP/stderr")"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
