#!/usr/bin/env python3
"""Run real Salt over top-file conformance cases (gen_tops.py) in one Python process.

Usage: PYTHON top_driver.py [--jobs N] [--only NAME] [--quiet] DIR [DIR...]

For every case (a directory with case.json; `saltenv` in it may be null) this computes what

    salt-call --local -c CASE/etc grains.items --out=json
    salt-call --local -c CASE/etc pillar.items unmask=True --out=json
    salt-call --local -c CASE/etc state.show_top [saltenv=ENV] --out=json
    salt-call --local -c CASE/etc state.show_lowstate [saltenv=ENV] --out=json

print under `local`, writes the first two to CASE/grains.json and CASE/pillar.json (the
minion profile our binary reads through CASE/salt-analyzer.yaml), and writes CASE/salt.json:

    "top": {env: [sls, ...]} | ["verify_tops error", ...]     state.show_top
    "top_exception": "Type: message (in salt/x.py:fn)"          instead, when Salt raised
    "lowstate": [chunk, ...] | "errors": ["salt error", ...]    state.show_lowstate
    "exception": "..."                                          instead, when Salt raised

How: the machinery of salt_driver.py (one SMinion per case, each function called through the
`direct_call` executor exactly as salt-call calls it), plus two things salt-call does that the
lowstate driver did not need:

* `opts["__cli"] = "salt-call"`, so state functions reuse the minion's pillar
  (`_get_initial_pillar`) as they do under salt-call;
* grains memoised per minion id: every case has its own static `grains:`, so the lowstate
  driver's cache (keyed on them) would recompute this machine's grains for every case.
  Salt applies the static grains last (`grains_data.update(opts["grains"])`), and no other
  grain depends on them, so we compute the machine's grains once per id (with the static
  grains left out) and apply the case's static grains on top.

check_driver_top.py proves the result equal to real `salt-call` subprocesses.
"""

import argparse
import copy
import json
import multiprocessing
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import salt_driver  # noqa: E402
from salt_driver import describe_exception, find_cases, pillar_items_args, salt_call  # noqa: E402

_HOST_GRAINS = {}


def setup_salt():
    """salt_driver's setup (quiet logging, cached module listings), then our grains cache."""
    import salt.loader

    real_grains = salt.loader.grains
    salt_driver._setup_salt()  # replaces salt.loader.grains with its cache; we replace that

    def grains_per_id(opts, *args, **kwargs):
        if args or kwargs or os.environ.get("SALT_DRIVER_NO_CACHE"):
            return real_grains(opts, *args, **kwargs)
        key = (opts.get("id"), opts.get("enable_fqdns_grains"), json.dumps(opts.get("grains_blacklist", [])))
        if key not in _HOST_GRAINS:
            host = dict(opts)
            host.pop("conf_file", None)  # no static grains: loader.grains sets opts["grains"] = {}
            _HOST_GRAINS[key] = real_grains(host)
        import salt.config
        import salt.utils.data

        # What loader.grains does with the config's static grains: re-read them from the
        # config file into opts["grains"], then apply them last.
        static = {}
        if "conf_file" in opts:
            pre = salt.config.load_config(
                opts["conf_file"], "SALT_MINION_CONFIG", salt.config.DEFAULT_MINION_OPTS["conf_file"]
            )
            default_include = pre.get("default_include", opts["default_include"])
            pre.update(salt.config.include_config(default_include, opts["conf_file"], verbose=False))
            pre.update(salt.config.include_config(pre.get("include", []), opts["conf_file"], verbose=True))
            static = pre.get("grains", {})
        opts["grains"] = static
        out = copy.deepcopy(_HOST_GRAINS[key])
        out.update(copy.deepcopy(static))
        return salt.utils.data.decode(out, preserve_tuples=True)

    salt.loader.grains = grains_per_id


def new_minion(config_path):
    """salt-call's setup (salt_driver.new_minion) with salt-call's `__cli`."""
    import salt.config
    import salt.minion

    opts = salt.config.minion_config(config_path)
    opts["file_client"] = "local"
    opts["caller"] = True
    opts["__cli"] = "salt-call"
    return salt.minion.SMinion(opts)


def load_meta(case_dir):
    with open(os.path.join(case_dir, "case.json"), encoding="utf-8") as fh:
        return json.load(fh)


def call_args(meta):
    env = meta.get("saltenv")
    return [f"saltenv={env}"] if env else []


def write_json(path, data):
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=1)
        fh.write("\n")


def run_case(case_dir):
    t0 = time.time()
    meta = load_meta(case_dir)
    config = os.path.join(case_dir, "etc", "minion")
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    result = {}
    args = call_args(meta)
    minion = new_minion(config)
    write_json(os.path.join(case_dir, "grains.json"), salt_call(config, "grains.items", [], minion))
    # 3008 masks every pillar value in pillar.items (`**********`) unless asked not to.
    write_json(os.path.join(case_dir, "pillar.json"), salt_call(config, "pillar.items", pillar_items_args(), minion))
    try:
        result["top"] = salt_call(config, "state.show_top", args, minion)
    except Exception as exc:  # noqa: BLE001 - Salt raised; salt-call prints a traceback, exits 1
        result["top_exception"] = describe_exception(exc)
    try:
        low = salt_call(config, "state.show_lowstate", args, minion)
        if isinstance(low, list) and all(isinstance(x, dict) for x in low):
            result["lowstate"] = low
        elif isinstance(low, list):
            result["errors"] = low
        else:
            result["exception"] = f"unexpected show_lowstate return: {low!r}"
    except Exception as exc:  # noqa: BLE001
        result["exception"] = describe_exception(exc)
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    write_json(os.path.join(case_dir, "salt.json"), result)
    return case_dir, time.time() - t0, kinds_of(result)


def kinds_of(result):
    out = []
    if "top_exception" in result:
        out.append("top-exception")
    elif isinstance(result.get("top"), list):
        out.append("top-errors")
    else:
        out.append("top")
    out.append(next(k for k in ("lowstate", "errors", "exception") if k in result))
    return out


def _worker(case_dir):
    try:
        return run_case(case_dir)
    except Exception:  # noqa: BLE001
        return case_dir, 0.0, ["driver-crash: " + traceback.format_exc(limit=3)]


def warm_grains(cases):
    """Compute each minion id's grains once in the parent, so forked workers inherit them."""
    seen = set()
    for case in cases:
        mid = load_meta(case).get("minion")
        if mid in seen:
            continue
        seen.add(mid)
        try:
            import salt.config
            import salt.loader

            opts = salt.config.minion_config(os.path.join(case, "etc", "minion"))
            salt.loader.grains(opts)
        except Exception:  # noqa: BLE001 - the case itself will report it
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--only", action="append", help="case directory name (repeatable)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    cases = find_cases(a.dirs, a.only)
    if not cases:
        print("no cases found", file=sys.stderr)
        return 2
    t0 = time.time()
    setup_salt()
    warm_grains(cases)
    stats = {}
    if a.jobs > 1 and len(cases) > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(a.jobs) as pool:
            results = list(pool.imap_unordered(_worker, cases, chunksize=2))
    else:
        results = [_worker(c) for c in cases]
    crashes = 0
    for case_dir, secs, kinds in results:
        for k in kinds:
            if k.startswith("driver-crash"):
                crashes += 1
                print(f"{case_dir}: {k}", file=sys.stderr)
            else:
                stats[k] = stats.get(k, 0) + 1
        if not a.quiet:
            print(f"{os.path.basename(case_dir)}\t{secs:.2f}s\t{','.join(kinds)}")
    summary = ", ".join(f"{v} {k}" for k, v in sorted(stats.items()))
    print(f"top_driver: {len(cases)} cases in {time.time() - t0:.1f}s ({summary}; {crashes} driver crashes)",
          file=sys.stderr)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
