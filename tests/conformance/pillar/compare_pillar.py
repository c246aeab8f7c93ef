#!/usr/bin/env python3
"""Compare `salt-analyzer pillar -c CASE/etc --format json` with real Salt's pillar.items.

Usage: compare_pillar.py --bin BIN [--jobs N] DIR [DIR...]

Per case (salt.json from salt_pillar.py): our stdout must be the same JSON object as Salt's
(keys in the same order at every level, the same values and types). `_errors` entries are
compared by their first line: Salt appends its renderer's exception text to a failed top
file's message, which is not ours to copy. Where Salt raised instead of answering (Salt 3006
and 3007's pillar matcher without a pillar to read), we must exit 1 printing
{"errors": ["ExceptionType: ..."]} whose first error names Salt's exception type.

Prints `FAIL CASE: diff` per mismatch and ends with `N passed, N failed`; exit 1 when any
case failed.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from cases import compare_main  # noqa: E402

# The release the binary answers for: the Salt this Python runs (`--salt-version`).
SALT_MAJOR = __import__("salt.version").version.__version__.split(".")[0]


def normalise(p):
    if isinstance(p, dict) and isinstance(p.get("_errors"), list):
        p = dict(p)
        p["_errors"] = [e.split("\n")[0] if isinstance(e, str) else e for e in p["_errors"]]
    return p


def ordered(v):
    """The value with dict key order made visible (Python's == ignores it)."""
    if isinstance(v, dict):
        return [[k, ordered(x)] for k, x in v.items()]
    if isinstance(v, list):
        return [ordered(x) for x in v]
    return [type(v).__name__, v]


def compare(binary, case):
    with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
        salt = json.load(fh)
    proc = subprocess.run([binary, "pillar", "-c", os.path.join(case, "etc"), "--format", "json", "--salt-version", SALT_MAJOR], capture_output=True, text=True, cwd=case)
    try:
        ours = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return f"not JSON (exit {proc.returncode}): {proc.stdout[:300]} {proc.stderr[:300]}"
    if "exception" in salt:
        kind = salt["exception"].split(":", 1)[0]
        errors = ours.get("errors") if isinstance(ours, dict) and list(ours) == ["errors"] else None
        if proc.returncode != 1 or not errors or not str(errors[0]).startswith(kind + ":"):
            return f"Salt raised {salt['exception']!r}; ours (exit {proc.returncode}): {json.dumps(ours)[:300]}"
        return None
    want, got = normalise(salt["pillar"]), normalise(ours)
    if ordered(want) != ordered(got):
        return f"\n  salt: {json.dumps(want)}\n  ours: {json.dumps(got)}"
    expect_rc = 1 if want.get("_errors") else 0
    if proc.returncode != expect_rc:
        return f"exit {proc.returncode}, expected {expect_rc}: {proc.stderr[:300]}"
    return None


if __name__ == "__main__":
    sys.exit(compare_main(compare, __doc__))
