#!/usr/bin/env python3
"""Real Salt 3008's lowstate of every minion at every side of the `diff` conformance cases
(gen_diff.py), in one Python process (forked workers, one case each).

Usage: PYTHON salt_diff.py [--jobs N] DIR

For every case, every minion and every side (sides/v1, sides/v2 and the work tree repo/),
this computes what

    salt-call --local -c ETC grains.items --out=json          (once per minion)
    salt-call --local -c ETC state.show_lowstate --out=json

print under `local`, where ETC/minion names the minion's id, its static grains (role,
os_family, tier) and file_roots/pillar_roots at that side's salt/ and pillar/. It writes
CASE/grains/ID.json (the grains.items our profiles read through `grains_file`) and
CASE/salt.json: {side: {minion: {"lowstate": [chunk, ...]} | {"errors": [...]} |
{"exception": "..."}}}. The machinery (one SMinion per call through the `direct_call`
executor, `__cli = salt-call`, host grains memoised per id with the static grains applied
last) is top_driver.py's, which check_driver_top.py proves equal to salt-call.
"""

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import top_driver  # noqa: E402
from salt_driver import describe_exception, salt_call  # noqa: E402
from cases import find_cases  # noqa: E402

SIDES = {"v1": "sides/v1", "v2": "sides/v2", "work": "repo"}

MINION = """\
file_client: local
id: {id}
root_dir: {var}
cachedir: {var}/cache
pki_dir: {var}/pki
sock_dir: {var}/sock
pidfile: {var}/run/minion.pid
log_file: {var}/log/minion
log_level_logfile: warning
enable_fqdns_grains: false
mine_enabled: false
grains: {grains}
file_roots: {{base: [{side}/salt]}}
pillar_roots: {{base: [{side}/pillar]}}
"""


def config(case, side, mid, grains):
    etc = os.path.join(case, "etc", side, mid)
    os.makedirs(etc, exist_ok=True)
    path = os.path.join(etc, "minion")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(MINION.format(id=json.dumps(mid), var=os.path.join(case, "var", side, mid), grains=json.dumps(grains),
                               side=os.path.join(case, SIDES[side])))
    return path


def run_case(case):
    t0 = time.time()
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    os.makedirs(os.path.join(case, "grains"), exist_ok=True)
    out = {side: {} for side in SIDES}
    for mid, static in meta["minions"].items():
        for side in SIDES:
            conf = config(case, side, mid, static)
            minion = top_driver.new_minion(conf)
            if side == "v1":
                with open(os.path.join(case, "grains", f"{mid}.json"), "w", encoding="utf-8") as fh:
                    json.dump(salt_call(conf, "grains.items", [], minion), fh, indent=1, sort_keys=True)
            try:
                low = salt_call(conf, "state.show_lowstate", [], minion)
                if isinstance(low, list) and all(isinstance(x, dict) for x in low):
                    out[side][mid] = {"lowstate": low}
                else:
                    out[side][mid] = {"errors": low}
            except Exception as exc:  # noqa: BLE001 - salt-call would exit 1 with a traceback
                out[side][mid] = {"exception": describe_exception(exc)}
    shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
    with open(os.path.join(case, "salt.json"), "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
    return case, time.time() - t0, None


def _worker(case):
    try:
        return run_case(case)
    except Exception:  # noqa: BLE001
        return case, 0.0, traceback.format_exc(limit=3)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    cases = find_cases(a.dirs)
    if not cases:
        print("no cases found", file=sys.stderr)
        return 2
    t0 = time.time()
    top_driver.setup_salt()
    # Each id's host grains once in the parent, so forked workers inherit them.
    import salt.config
    import salt.loader

    seen = set()
    for case in cases:
        with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
            for mid, static in json.load(fh)["minions"].items():
                if mid not in seen:
                    seen.add(mid)
                    salt.loader.grains(salt.config.minion_config(config(case, "v1", mid, static)))
    if a.jobs > 1:
        with multiprocessing.get_context("fork").Pool(a.jobs) as pool:
            results = list(pool.imap_unordered(_worker, cases))
    else:
        results = [_worker(c) for c in cases]
    crashes = 0
    for case, secs, crash in results:
        if crash:
            crashes += 1
            print(f"{case}: driver crash: {crash}", file=sys.stderr)
    print(f"salt_diff: {len(cases)} cases in {time.time() - t0:.1f}s ({crashes} driver crashes)", file=sys.stderr)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
