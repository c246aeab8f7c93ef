#!/usr/bin/env python3
"""Compare `salt-analyzer mapdata TPLDIR -c CASE/etc --format json` with Salt's salt.json.

Usage: python3 compare_mapstack.py --bin BIN [--jobs N] DIR...

A case passes when both give the same `values` (the same JSON, key order included), or when
Salt raised and salt-analyzer reports errors (exit 1, an `errors` list). A case without
salt.json (the Salt side could not run it) fails. The last line is `N passed, N failed`.
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


def compare(binary, case_dir):
    with open(os.path.join(case_dir, "case.json"), encoding="utf-8") as fh:
        tpldir = json.load(fh)["tpldir"]
    try:
        with open(os.path.join(case_dir, "salt.json"), encoding="utf-8") as fh:
            salt = json.load(fh)
    except OSError:
        return "no salt.json: the Salt side did not run this case"
    p = subprocess.run(
        [binary, "mapdata", tpldir, "-c", os.path.join(case_dir, "etc"), "--format", "json", "--salt-version", SALT_MAJOR],
        capture_output=True,
        text=True,
        cwd=case_dir,
        timeout=60,
    )
    try:
        ours = json.loads(p.stdout)
    except ValueError:
        return f"salt-analyzer printed no JSON (exit {p.returncode}): {p.stderr[-400:]}"
    if "error" in salt:
        if "errors" in ours and p.returncode == 1:
            return None
        return f"Salt raised {salt['error'][:300]!r}; salt-analyzer gave values {json.dumps(ours.get('values'))[:600]}"
    if "values" not in ours:
        return f"Salt gave values; salt-analyzer: {json.dumps(ours.get('errors'))[:600]}"
    if json.dumps(ours["values"]) != json.dumps(salt["values"]):
        return "values differ:\n  salt:          " + json.dumps(salt["values"])[:1500] + "\n  salt-analyzer: " + json.dumps(ours["values"])[:1500]
    if p.returncode != 0:
        return f"values equal but exit {p.returncode}"
    return None


if __name__ == "__main__":
    sys.exit(compare_main(compare, __doc__))
