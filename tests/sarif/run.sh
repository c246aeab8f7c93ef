#!/usr/bin/env bash
# SARIF conformance: `salt-analyzer check --format sarif` on several trees (the bundled example,
# the salt-lint fixtures, and a generated git repository with ß, ℝ and 💣 in its paths, a
# duplicate ID with its related location, a requisite cycle and a missing include) must be
# valid SARIF 2.1.0: validated with jsonschema (from PyPI, in its own venv) against SchemaStore's
# copy of the OASIS schema (`sarif-2.1.0.json`, JSON Schema draft 7) and the `2.1.0-rtm.5` schema
# GitHub code scanning documents (draft 4), both from the npm package `schemastore`. Beyond the
# schema, each log must say what `--format json` says: the same findings, each result's rule is
# the driver's rule at its index, its lines are the JSON's, and its URI names the file (relative
# to the repository, against SRCROOT).
#   tests/sarif/run.sh BIN
# The last line is "N passed, N failed" (one per tree).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$1
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
WORK=${SARIF_WORK:-$ROOT/tests/.work/sarif}
die() { echo "sarif: $*" >&2; echo "0 passed, 3 failed"; exit 1; }
[ -x "$BIN" ] || die "the binary $BIN does not exist"
mkdir -p "$WORK"
VENV=$WORK/venv
if ! "$VENV/bin/python" -c 'import jsonschema' 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV" || die "cannot create a venv"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'jsonschema==4.26.0' >/dev/null 2>&1 || die "pip install jsonschema failed"
fi
SCHEMAS=$WORK/schemastore
if [ ! -f "$SCHEMAS/package/schemas/json/sarif-2.1.0.json" ]; then
  rm -rf "$SCHEMAS" && mkdir -p "$SCHEMAS"
  tgz=$(cd "$SCHEMAS" && npm pack --silent 'schemastore@0.2.2' 2>/dev/null | tail -1)
  [ -n "$tgz" ] && [ -f "$SCHEMAS/$tgz" ] || die "npm pack schemastore@0.2.2 failed"
  tar -xzf "$SCHEMAS/$tgz" -C "$SCHEMAS" package/schemas/json/sarif-2.1.0.json package/schemas/json/sarif-2.1.0-rtm.5.json ||
    die "schemastore@0.2.2 has no SARIF 2.1.0 schema"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The generated repository.
repo=$TMP/states
mkdir -p "$repo/salt/wéb ß" "$repo/salt/ℝ"
(cd "$repo" && git init -q -b main) || die "git init failed"
printf 'file_roots: {base: [salt]}\nminions:\n  ℝ-web01: {grains: {os: Debian, os_family: Debian}}\n' > "$repo/salt-analyzer.yaml"
printf "base:\n  '*': [app, 'wéb ß.site']\n" > "$repo/salt/top.sls"
printf '💣-pkg:\n  pkg.installed:\n    - name: nginx\n    - require:\n      - file: ℝ-conf\nℝ-conf:\n  file.managed:\n    - name: /etc/ℝ\n    - require:\n      - pkg: 💣-pkg\n' > "$repo/salt/app.sls"
printf '💣-pkg:\n  pkg.installed: []\nmode:\n  file.directory:\n    - name: /srv\n    - mode: 755\n' > "$repo/salt/wéb ß/site.sls"
printf 'include:\n  - nosuch\nx:\n  test.nop: []\n' > "$repo/salt/ℝ/💣.sls"

"$VENV/bin/python" - "$BIN" "$SCHEMAS/package/schemas/json" "$ROOT/examples" "$ROOT/tests/conformance/saltlint/fixtures" "$repo" <<'PYEOF'
import json, os, subprocess, sys, urllib.parse
import jsonschema
binary, schemas, trees = sys.argv[1], sys.argv[2], sys.argv[3:]
validators = []
for name, cls in (("sarif-2.1.0.json", jsonschema.Draft7Validator), ("sarif-2.1.0-rtm.5.json", jsonschema.Draft4Validator)):
    schema = json.load(open(os.path.join(schemas, name), encoding="utf-8"))
    cls.check_schema(schema)
    validators.append((name, cls(schema, format_checker=cls.FORMAT_CHECKER)))
passed = failed = 0
for tree in trees:
    problems = []
    run = lambda fmt: subprocess.run([binary, "check", "--format", fmt], capture_output=True, text=True, cwd=tree)
    sarif, plain = run("sarif"), run("json")
    if sarif.returncode != plain.returncode:
        problems.append(f"exit {sarif.returncode} with sarif, {plain.returncode} with json")
    try:
        log = json.loads(sarif.stdout)
    except ValueError as e:
        problems.append(f"not JSON: {e}: {sarif.stdout[:200]!r} {sarif.stderr[-400:]}")
        log = None
    if log is not None:
        for name, v in validators:
            for e in sorted(v.iter_errors(log), key=lambda e: list(e.absolute_path))[:5]:
                problems.append(f"{name}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
        diags = json.loads(plain.stdout)["diagnostics"]
        run0 = log["runs"][0]
        rules, results = run0["tool"]["driver"]["rules"], run0["results"]
        if len(results) != len(diags):
            problems.append(f"{len(results)} results, {len(diags)} JSON diagnostics")
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, cwd=tree).stdout.strip()
        for r, d in zip(results, diags):
            rule = rules[r["ruleIndex"]]
            loc = r["locations"][0]["physicalLocation"]
            where = f"{d['file']}:{d['range']['start']['line'] + 1}"
            if rule["id"] != r["ruleId"] or r["ruleId"] != d["code"]:
                problems.append(f"{where}: rule {rule['id']} / {r['ruleId']} for code {d['code']}")
            if (loc["region"]["startLine"], loc["region"]["endLine"]) != (d["range"]["start"]["line"] + 1, d["range"]["end"]["line"] + 1):
                problems.append(f"{where}: region {loc['region']}")
            if r["message"]["text"].find(d["message"]) < 0:
                problems.append(f"{where}: message {r['message']['text']!r}")
            art = loc["artifactLocation"]
            path = urllib.parse.unquote(art["uri"])
            if art.get("uriBaseId") == "SRCROOT":
                path = os.path.join(top, path)
            elif path.startswith("file://"):
                path = path[len("file://"):]
            else:
                problems.append(f"{where}: uri {art}")
            if os.path.realpath(path) != os.path.realpath(os.path.join(tree, d["file"])):
                problems.append(f"{where}: uri {art['uri']} is {path}, not {d['file']}")
            if len(r.get("relatedLocations", [])) != len(d["related"]):
                problems.append(f"{where}: {len(r.get('relatedLocations', []))} related locations, {len(d['related'])} in JSON")
        if not results and tree == trees[-1]:
            problems.append("the generated tree has no findings")
    label = os.path.basename(tree.rstrip("/"))
    if problems:
        failed += 1
        print(f"FAIL {label}:")
        for p in problems[:20]:
            print(f"  {p}")
    else:
        passed += 1
        print(f"ok {label}: valid SARIF 2.1.0, {len(log['runs'][0]['results'])} result(s), as --format json says")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYEOF
