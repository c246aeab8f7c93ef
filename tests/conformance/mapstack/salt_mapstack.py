#!/usr/bin/env python3
"""Compute `salt["map.data"](tpldir)` with real Salt 3008 and saltext-formula for every
mapstack case, in one Python process.

Usage: PYTHON salt_mapstack.py [--only NAME] DIR...

For each case (a directory holding case.json and etc/minion) this does what
`salt-call --local -c CASE/etc map.data TPLDIR` does, minus the process start: a fresh
`salt.minion.SMinion` from `salt.config.minion_config(CASE/etc/minion)` with file_client=local
(../salt_driver.py), then `map.data` called through the minion's loader, as a template calls it:
with Salt 3008's pillar masking off (`salt.utils.secret.mask_pillar`, which the template
renderers turn off; from the CLI `pillar.get` would return `**********` for every value).
Each case gets its own minion, so the `__context__` cache and the pillar that `map.data`'s
lookups change (it pops `strategy`/`merge_lists` from the dicts it reads) start afresh.

The grains are exactly the static `grains:` of the case's config (as ../render/salt_render.py
does): salt-call would merge them over this machine's, which the cases do not depend on.

A case whose case.json names an `sls` (the template-formula flavour) is rendered instead, as
`state.show_sls` renders it (../render/salt_render.py `render_case`), and the `mapdata` it
dumps is the case's values.

Writes CASE/salt.json: {"values": <what map.data returned, key order kept>} or
{"error": "<exception type>: <message>"}.
"""

import argparse
import json
import os
import shutil
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "render"))
import salt_driver  # noqa: E402  (tests/conformance/salt_driver.py)
import salt_render  # noqa: E402  (tests/conformance/render/salt_render.py)
from cases import find_cases  # noqa: E402


def run_case(case_dir):
    import salt.utils.json

    try:  # Salt 3008 masks pillar secrets; 3006 and 3007 have no salt.utils.secret
        import salt.utils.secret

        mask = salt.utils.secret.mask_pillar
    except ImportError:
        mask = None

    with open(os.path.join(case_dir, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    if "sls" in meta:
        rendered = salt_render.render_case(case_dir)
        if "rendered" not in rendered:
            return {"error": rendered["error"]}
        return {"values": rendered["rendered"]["mapdata"]}
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    token = mask.set(False) if mask else None
    try:
        minion = salt_driver.new_minion(os.path.join(case_dir, "etc", "minion"))
        if "map.data" not in minion.functions:
            raise RuntimeError("saltext-formula is not installed: map.data is missing")
        try:
            ret = minion.functions["map.data"](meta["tpldir"])
        except Exception as exc:  # noqa: BLE001 - Salt's answer is the exception
            return {"error": f"{type(exc).__name__}: {exc}"}
        return {"values": json.loads(salt.utils.json.dumps(ret, default=repr))}
    finally:
        if mask:
            mask.reset(token)
        shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    salt_render.setup_salt()
    crashed = 0
    for case_dir in find_cases(a.dirs, a.only):
        try:
            result = run_case(case_dir)
        except Exception:  # noqa: BLE001
            crashed += 1
            print(f"{case_dir}: driver crash\n{traceback.format_exc(limit=5)}", file=sys.stderr)
            continue
        with open(os.path.join(case_dir, "salt.json"), "w", encoding="utf-8") as fh:
            json.dump(result, fh, ensure_ascii=False, indent=1)
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
