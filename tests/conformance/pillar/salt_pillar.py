#!/usr/bin/env python3
"""Real Salt's pillar for every pillar conformance case, in one Python process.

Usage: PYTHON salt_pillar.py [--jobs N] DIR [DIR...]

For every case (a directory with case.json) this computes what

    salt-call --local -c CASE/etc pillar.items unmask=True --out=json

(`unmask=True` only from Salt 3008 on, which masks secrets by default: 3007's pillar.items
refuses the keyword) prints under `local` and writes it to CASE/salt.json as {"pillar": {...}}, or
{"exception": "..."} when Salt raised. How: top_driver.py's machinery (salt-call's SMinion,
whose start compiles the pillar once, then `pillar.items` through the `direct_call`
executor, which compiles it again over the first result), one fresh SMinion per case.
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
from salt_driver import describe_exception, find_cases, pillar_items_args, salt_call  # noqa: E402


def run_case(case_dir):
    config = os.path.join(case_dir, "etc", "minion")
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    try:
        minion = top_driver.new_minion(config)
        result = {"pillar": salt_call(config, "pillar.items", pillar_items_args(), minion)}
    except Exception as exc:  # noqa: BLE001 - Salt raised: salt-call prints a traceback
        result = {"exception": describe_exception(exc)}
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    with open(os.path.join(case_dir, "salt.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1)
    return case_dir, "exception" not in result


def _worker(case_dir):
    try:
        return run_case(case_dir)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return case_dir, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    cases = find_cases(a.dirs)
    t0 = time.time()
    top_driver.setup_salt()
    top_driver.warm_grains(cases)
    if a.jobs > 1 and len(cases) > 1:
        with multiprocessing.get_context("fork").Pool(a.jobs) as pool:
            results = list(pool.imap_unordered(_worker, cases, chunksize=4))
    else:
        results = [_worker(c) for c in cases]
    raised = sum(1 for _, ok in results if not ok)
    print(f"salt_pillar: {len(cases)} cases in {time.time() - t0:.1f}s ({raised} where Salt raised)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
