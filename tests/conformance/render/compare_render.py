#!/usr/bin/env python3
"""Compare `salt-analyzer render` with real Salt on the render conformance cases.

Usage: compare_render.py --bin BIN [--jobs N] [--only CASE] [--keep] [--verbose] DIR [DIR...]

DIR is a materialised case (case.json, srv/, etc/minion and salt.json from salt_render.py)
or a directory of cases; a case without salt.json (Salt could not be run on it) fails.
Per case this runs, with cwd=CASE,

    BIN render CASE/srv/SLS -c CASE/etc --format json

and checks it against CASE/salt.json:

* {"rendered": DATA}: exit 0 and stdout is the same JSON as DATA: same values, same JSON
  types (1 is not 1.0), same key order (Salt keeps the order the YAML was written in).
* {"error": MESSAGE, "line": N or null}: exit 1 and stdout is
  {"errors": [{"code", "message", "file", "line"}, ...]} with at least one entry (any code:
  `render-error`, `yaml-syntax`, `duplicate-id`, ...); when Salt placed the error (salt.json
  `line` and `file`), one entry has that line and that file (CASE/srv/FILE; absolute or
  relative to CASE): for an error inside an imported template that template and its line,
  for a YAML error found after rendering the SLS and the line of its rendered text. An
  undefined variable or attribute (`Jinja variable ...`) is named as Salt names it: some
  entry's message starts with Salt's first line up to `; line N`.

Prints one line per failing case (plus details with --verbose) and ends with exactly
`N passed, N failed`; exits 1 when any case failed. --keep leaves ours.json (stdout) and
ours.stderr (the command, exit code and stderr) in each case directory.
"""

import argparse
import concurrent.futures
import json
import re
import os
import shlex
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cases import find_cases  # noqa: E402 (tests/conformance/cases.py)

# The release the binary answers for: the Salt this Python runs (`--salt-version`).
SALT_MAJOR = __import__("salt.version").version.__version__.split(".")[0]


def ordered(text):
    """JSON with objects as lists of pairs: order-sensitive equality, ints apart from floats."""
    return json.loads(text, object_pairs_hook=lambda kv: ("__object__", kv))


def canon(value):
    """A canonical string of a JSON value: key order kept, 1 and 1.0 and true kept apart."""
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def first_difference(want, got, path="$"):
    """A one-line description of where two ordered JSON values first differ."""
    w_obj = isinstance(want, tuple) and want and want[0] == "__object__"
    g_obj = isinstance(got, tuple) and got and got[0] == "__object__"
    if w_obj and g_obj:
        wk = [k for k, _ in want[1]]
        gk = [k for k, _ in got[1]]
        if wk != gk:
            if sorted(wk) == sorted(gk):
                return f"{path}: keys in another order: salt {wk}, ours {gk}"
            return f"{path}: keys differ: salt {wk}, ours {gk}"
        for (k, wv), (_, gv) in zip(want[1], got[1]):
            d = first_difference(wv, gv, f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list) and isinstance(got, list) and not w_obj and not g_obj:
        if len(want) != len(got):
            return f"{path}: {len(want)} items in salt, {len(got)} in ours"
        for i, (wv, gv) in enumerate(zip(want, got)):
            d = first_difference(wv, gv, f"{path}[{i}]")
            if d:
                return d
        return None
    if type(want) is not type(got) or want != got:
        return f"{path}: salt {short(plain(want))}, ours {short(plain(got))}"
    return None


def plain(v):
    if isinstance(v, tuple) and v and v[0] == "__object__":
        return {k: plain(x) for k, x in v[1]}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def short(v, n=160):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 3] + "..."


def describe(e):
    """One of our error entries, short: `code: message (file:line)`."""
    if not isinstance(e, dict):
        return short(e, 200)
    where = os.path.basename(e.get("file") or "")
    return f"{e.get('code')}: {str(e.get('message'))[:200]} ({where}:{e.get('line')})"


def run_case(case, binary, keep):
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    if not os.path.isfile(os.path.join(case, "salt.json")):
        return case, ["no salt.json: salt_render.py could not run Salt on this case"]
    with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
        salt_text = fh.read()
    salt = json.loads(salt_text)
    sls = os.path.join(case, "srv", meta["sls"])
    cmd = [binary, "render", sls, "-c", os.path.join(case, "etc"), "--format", "json", "--salt-version", SALT_MAJOR]
    try:
        p = subprocess.run(cmd, cwd=case, capture_output=True, text=True, timeout=120)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", "timed out after 120s"
    except OSError as exc:
        return case, [f"cannot run {binary}: {exc}"]
    if keep:
        with open(os.path.join(case, "ours.json"), "w", encoding="utf-8") as fh:
            fh.write(out)
        with open(os.path.join(case, "ours.stderr"), "w", encoding="utf-8") as fh:
            fh.write(f"$ cd {shlex.quote(case)} && {shlex.join(cmd)}\n# exit {rc}\n{err}")
    problems = []
    try:
        ours = ordered(out) if out.strip() else None
    except ValueError as exc:
        ours = None
        problems.append(f"stdout is not JSON ({exc}): {out[:200]!r}")
    if "rendered" in salt:
        want = ordered(salt_text)
        want = dict(want[1])["rendered"]
        errs = None
        if isinstance(ours, tuple) and ours and ours[0] == "__object__" and rc != 0:
            errs = dict(ours[1]).get("errors")
        if errs is not None:
            errs = plain(errs)
            problems.append(f"Salt rendered it, we fail (exit {rc}): " + "; ".join(describe(e) for e in errs)[:400])
        elif rc != 0:
            problems.append(f"Salt rendered it, we exit {rc} (stderr: {err.strip()[:300]!r})")
        elif ours is not None:
            if canon(plain(want)) != canon(plain(ours)) or first_difference(want, ours):
                problems.append(first_difference(want, ours) or "different JSON")
        elif not problems:
            problems.append("no output")
    else:
        salt_first = salt["error"].splitlines()[0][:200] if salt["error"] else ""
        errors = None
        if ours is not None:
            o = plain(ours)
            errors = o.get("errors") if isinstance(o, dict) else None
        if rc == 0:
            problems.append(f"Salt fails ({salt_first}), we render it: {short(plain(ours), 200) if ours is not None else ''}")
        elif rc != 1:
            problems.append(f"exit {rc}, expected 1 (Salt: {salt_first})")
        if rc != 0 and (not isinstance(errors, list) or not errors):
            problems.append(f"no `errors` list in our output (Salt: {salt_first})")
        elif rc != 0:
            entries = [e for e in errors if isinstance(e, dict)]
            want_file = os.path.join(case, "srv", salt["file"]) if salt.get("file") else None

            def same_file(e):
                f = e.get("file")
                return want_file is None or (isinstance(f, str) and os.path.normpath(os.path.join(case, f)) == want_file)

            if salt.get("line") is not None and not any(e.get("line") == salt["line"] for e in entries):
                problems.append(
                    f"error line: Salt {salt.get('file')}:{salt['line']} ({salt_first[:160]}), "
                    f"ours {'; '.join(describe(e) for e in entries)[:300]}"
                )
            elif salt.get("line") is not None and not any(e.get("line") == salt["line"] and same_file(e) for e in entries):
                problems.append(
                    f"error file: Salt {salt.get('file')}:{salt['line']} ({salt_first[:160]}), "
                    f"ours {'; '.join(describe(e) for e in entries)[:300]}"
                )
            # What is undefined is named as Salt names it: the first line up to `; line N`
            # (ours may add a note after the name, e.g. a grain the profile lacks).
            named = re.split(r"; line \d+|\n", salt["error"] or "", maxsplit=1)[0]
            if named.startswith("Jinja variable ") and not any(str(e.get("message", "")).startswith(named) for e in entries):
                problems.append(f"undefined named otherwise: Salt {named!r}, ours {'; '.join(describe(e) for e in entries)[:300]}")
    return case, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--only", action="append", help="case directory name (repeatable)")
    ap.add_argument("--keep", action="store_true", help="leave ours.json and ours.stderr in each case")
    ap.add_argument("--verbose", action="store_true", help="print every problem of a failing case")
    ap.add_argument(
        "--known-gaps",
        help="a file naming (one per line, # comments) the cases salt-analyzer does not render like Salt yet: "
        "their failures are reported but not counted; a listed case that passes, or that names no case, fails the "
        "suite until it is removed from the list, so the list cannot go stale",
    )
    a = ap.parse_args()
    known = set()
    if a.known_gaps:
        with open(a.known_gaps, encoding="utf-8") as f:
            known = {l.split("#", 1)[0].strip() for l in f} - {""}
    binary = os.path.abspath(a.bin) if os.sep in a.bin else a.bin
    cases = find_cases(a.dirs, a.only)
    if not cases:
        print("compare_render: no cases found", file=sys.stderr)
        print("0 passed, 0 failed")
        return 2
    passed = failed = gaps = 0
    fixed = []
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        for case, problems in ex.map(lambda c: run_case(c, binary, a.keep), cases):
            name = os.path.basename(case)
            if problems and name in known:
                gaps += 1
                if a.verbose:
                    print(f"gap  {name}: {problems[0]}")
            elif problems:
                failed += 1
                print(f"FAIL {name}: {problems[0]}")
                if a.verbose:
                    for p in problems[1:]:
                        print(f"     {p}")
            elif name in known:
                # A gap that closed is a failure until the list says so: a stale list would hide
                # the next regression of that case.
                failed += 1
                fixed.append(name)
            else:
                passed += 1
    for name in fixed:
        print(f"FAIL {name}: now renders like Salt; remove it from {a.known_gaps}")
    names = {os.path.basename(c) for c in cases}
    if not a.only:
        for name in sorted(known - names):
            failed += 1
            print(f"FAIL {name}: listed in {a.known_gaps} but there is no such case; remove it")
    if known:
        print(f"{gaps} known gaps not counted ({len(cases)} cases)", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
