#!/usr/bin/env python3
"""Compare `salt-analyzer lowstate` with real Salt on conformance cases.

Usage: compare_lowstate.py --bin target/debug/salt-analyzer [--jobs N] [--salt-version V]
                           [--only CASE] [--keep] [--verbose] DIR [DIR...]

DIR is a case (holds case.json and salt.json from salt_driver.py) or a
directory of cases. Per case this runs

    BIN lowstate -c CASE/etc --sls a,b.c --saltenv ENV --format json --salt-version V

(V: --salt-version, by default the major of the Salt this Python imports, e.g. 3008;
without one, the flag is left out). The expected answer comes from CASE/salt.json:

* show_low_sls returned chunks and the test=True run compiled: our stdout must
  be the same JSON list (same order, same keys in the same order, same values
  and JSON types), exit 0.
* show_low_sls returned errors, or it returned chunks but the test=True run
  returned compile errors, or Salt raised: we must exit 1 with
  {"errors": [{"code", "message", "file", "line", "range", "id"}, ...]}. Each Salt error
  string is classified into a code (CLASSIFY below); the set of codes must be
  equal, and per code the IDs must agree (see ids_agree). When Salt raised,
  any error codes are accepted.

Prints one line per mismatching case and ends with `N passed, N failed`.
Exit status 1 when any case failed.
"""

import ast
import collections
import json
import os
import re
import sys
from cases import comparer_args, judge, run_on_case  # noqa: E402 (tests/conformance/cases.py)

CODES = {
    "duplicate-id",
    "missing-include",
    "missing-requisite-target",
    "requisite-cycle",
    "malformed-state",
    "missing-extend-target",
    "yaml-syntax",
    "render-error",
}

# (code, regex). First match wins. Named groups: `id` is a state ID, `name`
# is a chunk name (mapped to IDs through salt.json "aliases"). Messages are
# Salt 3008's (`salt/state.py`: `render_state`, `merge_included_states`, `_verify_high`, `reconcile_extend`, `order_chunks`).
_YAML_HINTS = (
    r"while (?:parsing|scanning|constructing)|mapping values are not allowed|could not find expected"
    r"|found character|expected <|did not find expected|found unexpected|found undefined"
    r"|found unknown escape|unacceptable character"
)
CLASSIFY = [
    ("duplicate-id", r"^Detected conflicting IDs, SLS IDs need to be globally unique\.\s*"
                     r"The conflicting ID is '(?P<id>.*?)' and is found in SLS"),
    # YAML's own duplicate-key check inside one file.
    ("duplicate-id", r"^Rendering SLS '.*?' failed: .*found conflicting ID '(?P<id>.*?)'"),
    ("missing-include", r"^No matching sls found for '"),
    ("missing-include", r"^Specified SLS .* in saltenv .* is not available on the salt master"),
    ("missing-include", r"^Specified SLS .* on local filesystem cannot be found"),
    ("missing-include", r"^Unknown include: Specified SLS "),
    ("missing-include", r"^Ambiguous include: "),
    ("missing-include", r"^Nonexistent saltenv '"),
    ("missing-include", r"^Attempted relative include of '"),
    ("missing-include", r"^No matching salt environment for environment '"),
    ("missing-requisite-target", r"^Referenced state does not exist for requisite \[.*?\] "
                                 r"in state \[(?P<name>.*)\] in SLS \["),
    ("missing-requisite-target", r"^The following requisites were not found"),
    ("requisite-cycle", r"^Recursive requisites were found: (?P<cycle>.*)$"),
    ("requisite-cycle", r"^A recursive requisite was found, SLS \".*?\" ID \"(?P<id>.*?)\" ID \"(?P<id2>.*?)\""),
    ("requisite-cycle", r"^Recursive requisite found"),
    ("missing-extend-target", r"^Cannot extend ID '(?P<id>.*?)' in '"),
    ("malformed-state", r"^ID '(?P<id>.*?)' in SLS '.*?' is not formed as a string"),
    ("malformed-state", r"^The type (?P<id>.*?) in .* is not formatted as a dictionary"),
    ("malformed-state", r"^ID '(?P<id>.*?)' in SLS '.*?' contains a short declaration"),
    ("malformed-state", r"^ID '(?P<id>.*?)' in SLS '.*?' contains multiple state declarations"),
    ("malformed-state", r"^State '(?P<id>.*?)' in SLS '.*?' is not formed as a list"),
    ("malformed-state", r"^The function \".*?\" in state \"(?P<id>.*?)\" in SLS"),
    ("malformed-state", r"^The 'names' argument in state '(?P<id>.*?)' in SLS"),
    ("malformed-state", r"^The \S+ statement in state '(?P<id>.*?)' in SLS '.*?' needs to be formed as a list"),
    ("malformed-state", r"^Invalid requisite type '.*?' in state '(?P<id>.*?)', in SLS"),
    ("malformed-state", r"^Invalid requisite in \S+: "),
    ("malformed-state", r"^Illegal requisite \""),
    ("malformed-state", r"^Requisite declaration .* in state (?P<id>.*?) in SLS .* is not formed as a single key"),
    ("malformed-state", r"^Requisite declaration .* in SLS .* is not formed as a single key"),
    ("malformed-state", r"^Multiple dictionaries defined in argument of state '(?P<id>.*?)' in SLS"),
    ("malformed-state", r"^No function declared in state '(?P<id>.*?)' in SLS"),
    ("malformed-state", r"^Too many functions declared in state '(?P<id>.*?)' in SLS"),
    ("malformed-state", r"^ID (?P<id>.*?) in SLS .* is not a dictionary"),
    ("malformed-state", r"^Requisite \[.*?\] in state \[(?P<name>.*)\] in SLS \[.*\] must have a string as the value"),
    ("malformed-state", r"^Include Declaration in SLS .* is not formed as a list"),
    ("malformed-state", r"^Exclude Declaration in SLS .* is not formed as a list"),
    ("malformed-state", r"^Extension value in SLS '.*?' is not a dictionary"),
    ("malformed-state", r"^Extension name '.*?' in SLS '.*?' is not a dictionary"),
    ("malformed-state", r"^High data is not a dictionary"),
    ("yaml-syntax", r"^Rendering SLS '.*?' failed: (?:" + _YAML_HINTS + ")"),
    ("render-error", r"^Rendering SLS '.*?' failed"),
    ("render-error", r"^Rendering SLS .* failed, render error"),
    ("render-error", r"^SLS .* does not render to a dictionary"),
    ("render-error", r"^Error when rendering state with contents"),
    ("render-error", r"^Pillar failed to render"),
]
_COMPILED = [(code, re.compile(rx, re.S)) for code, rx in CLASSIFY]


def classify(msg, aliases=None):
    """Salt error string -> (code, ids) where ids is a list of sets of acceptable IDs
    (one set per state the message names), or None when the message names none."""
    aliases = aliases or {}
    for code, rx in _COMPILED:
        m = rx.search(msg)
        if not m:
            continue
        gd = m.groupdict()
        if gd.get("cycle") is not None:
            return code, cycle_ids(gd["cycle"])
        groups = []
        for key in ("id", "id2"):
            if gd.get(key) is not None:
                groups.append({gd[key]})
        if gd.get("name") is not None:
            name = gd["name"]
            groups.append(set(aliases.get(name, [])) | ({name} if name not in aliases else set()))
        return code, groups or None
    return "unclassified", None


def cycle_ids(text):
    """IDs in `({'SLS': s, 'ID': i}, 'require', {...}), (...)`."""
    try:
        edges = ast.literal_eval("[" + text + "]")
        ids = []
        for edge in edges:
            for node in (edge[0], edge[2]):
                if node["ID"] not in ids:
                    ids.append(node["ID"])
        return [{i} for i in ids]
    except (ValueError, SyntaxError, KeyError, IndexError, TypeError):
        return [{i} for i in re.findall(r"'ID': '((?:[^'\\]|\\.)*)'", text)]


def expected(salt):
    """('lowstate', chunks) | ('errors', [salt strings]) | ('exception', text): state.show_low_sls's
    answer, or, where it shows chunks but state.sls stops (for a whole highstate, where
    show_lowstate applies extend/_in/exclude as state.apply does), state.sls's errors."""
    if "exception" in salt:
        return "exception", salt["exception"]
    if "errors" in salt:
        return "errors", salt["errors"]
    if salt.get("run_errors"):
        return "errors", salt["run_errors"]
    return "lowstate", salt["lowstate"]


def apply_errors(stderr):
    """The `{"apply_errors": [...]}` object `lowstate --sls --format json` writes to stderr."""
    at = stderr.find('{\n  "apply_errors"')
    if at < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(stderr[at:])[0].get("apply_errors")
    except ValueError:
        return None


def same(a, b):
    """JSON equality that also checks key order and int/float/bool types."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    return a == b


def short(v, n=120):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 3] + "..."


def diff_chunks(want, got):
    """A one-line description of the first difference."""
    if not isinstance(got, list):
        return f"expected a JSON list of {len(want)} chunks, got {short(got)}"
    tag = lambda c: f"{c.get('state')}_|-{c.get('__id__')}_|-{c.get('name')}_|-{c.get('fun')}" if isinstance(c, dict) else repr(c)  # noqa: E731
    wt = [tag(c) for c in want]
    gt = [tag(c) for c in got]
    if wt != gt:
        if sorted(map(str, wt)) == sorted(map(str, gt)):
            for i, (x, y) in enumerate(zip(wt, gt)):
                if x != y:
                    return f"order differs at chunk {i}: salt {x} ours {y}"
        cw, cg = collections.Counter(map(str, wt)), collections.Counter(map(str, gt))
        missing = sorted((cw - cg).elements())
        extra = sorted((cg - cw).elements())
        return f"chunks differ: salt has {len(wt)}, ours {len(gt)}; missing {short(missing, 200)} extra {short(extra, 200)}"
    for i, (w, g) in enumerate(zip(want, got)):
        if same(w, g):
            continue
        if not isinstance(g, dict):
            return f"chunk {i} is not an object: {short(g)}"
        if set(w) != set(g):
            return (f"chunk {i} ({wt[i]}) keys: missing {sorted(set(w) - set(g))} "
                    f"extra {sorted(set(g) - set(w))}")
        if list(w) != list(g):
            return f"chunk {i} ({wt[i]}) key order: salt {list(w)} ours {list(g)}"
        for k in w:
            if not same(w[k], g[k]):
                return f"chunk {i} ({wt[i]}) key {k!r}: salt {short(w[k])} ours {short(g[k])}"
    return "differs"


def ids_agree(salt_groups, ours, any_idless):
    """Every state Salt names must be among ours; every ID we name must be one
    Salt names, unless some Salt message of that code names no state."""
    ours = {str(x) for x in ours if x is not None}
    for g in salt_groups:
        if not ({str(x) for x in g} & ours):
            return False
    if not any_idless:
        allowed = set()
        for g in salt_groups:
            allowed |= {str(x) for x in g}
        if not ours <= allowed:
            return False
    return True


def compare_errors(salt_msgs, aliases, got):
    """None when equal, else a one-line diff."""
    want = {}
    idless = set()
    unclassified = []
    for msg in salt_msgs:
        code, groups = classify(msg, aliases)
        if code == "unclassified":
            unclassified.append(msg.split("\n")[0][:100])
            continue
        want.setdefault(code, [])
        if groups is None:
            idless.add(code)
        else:
            want[code].extend(groups)
    if unclassified:
        return f"cannot classify Salt error(s): {short(unclassified, 300)}"
    errs = got.get("errors") if isinstance(got, dict) else None
    if not isinstance(errs, list) or not errs:
        return f"expected {{\"errors\": [...]}} with codes {sorted(want)}, got {short(got)}"
    have = {}
    for e in errs:
        if not isinstance(e, dict) or not isinstance(e.get("code"), str) or not isinstance(e.get("message"), str):
            return f"malformed error object {short(e)}"
        if e["code"] not in CODES:
            return f"unknown error code {e['code']!r}"
        have.setdefault(e["code"], []).append(e.get("id"))
    if set(want) != set(have):
        return f"codes: salt {sorted(want)} ours {sorted(have)}; salt said {short([m.split(chr(10))[0] for m in salt_msgs], 300)}"
    for code in sorted(want):
        if not ids_agree(want[code], have[code], code in idless):
            return (f"{code} IDs: salt {sorted(sorted(map(str, g)) for g in want[code])} "
                    f"ours {sorted(str(x) for x in have[code] if x is not None)}")
    return None


def run_one(binary, case, keep, timeout, salt_version=None):
    _, salt, cmd, ran = run_on_case(binary, "lowstate", case, timeout, salt_version)
    if isinstance(ran, str):
        return case, ran
    rc, stdout, stderr = ran
    if keep:
        with open(os.path.join(case, "ours.json"), "w", encoding="utf-8") as fh:
            fh.write(stdout)
        with open(os.path.join(case, "ours.stderr"), "w", encoding="utf-8") as fh:
            fh.write(f"$ {' '.join(cmd)}\n# exit {rc}\n{stderr}")
    try:
        got = json.loads(stdout)
    except ValueError:
        return case, f"stdout is not JSON (exit {rc}): {stdout[:100]!r} stderr: {stderr.strip()[-200:]!r}"
    if "lowstate" in salt and "errors" not in salt and "exception" not in salt and salt.get("run_errors"):
        # show_low_sls shows the chunks (it applies no extend, _in or exclude) while state.sls
        # stops: the same chunks on stdout, state.sls's errors on stderr, exit 1.
        if rc != 1:
            return case, f"exit {rc}, expected 1: state.sls stops ({short([m.split(chr(10))[0] for m in salt['run_errors']], 300)})"
        if not same(salt["lowstate"], got):
            return case, "show_low_sls chunks: " + str(diff_chunks(salt["lowstate"], got))
        stops = apply_errors(stderr)
        if stops is None:
            return case, f"no apply_errors on stderr: {stderr.strip()[-200:]!r}"
        return case, compare_errors(salt["run_errors"], salt.get("aliases"), {"errors": stops})
    kind, want = expected(salt)
    if kind == "lowstate":
        if rc != 0:
            return case, f"exit {rc}, Salt compiles this case: ours {short(got, 300)}"
        if same(want, got):
            return case, None
        return case, diff_chunks(want, got)
    if rc != 1:
        return case, f"exit {rc}, expected 1 (Salt: {short([m.split(chr(10))[0] for m in want] if kind == 'errors' else 'raised', 300)})"
    if kind == "exception":
        errs = got.get("errors") if isinstance(got, dict) else None
        if isinstance(errs, list) and errs:
            return case, None
        return case, f"Salt raised; expected an error list, got {short(got)}"
    return case, compare_errors(want, salt.get("aliases"), got)


def main():
    a = comparer_args(__doc__, keep=True)
    binary, cases = a.binary, a.cases
    if cases is None:
        return 2
    passed, failed, _ = judge(cases, a.jobs, lambda c: run_one(binary, c, a.keep, a.timeout, a.salt_version), a.known_cases)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
