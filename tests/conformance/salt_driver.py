#!/usr/bin/env python3
"""Run real Salt over many conformance cases in one Python process.

Usage: PYTHON salt_driver.py [--jobs N] [--only NAME] DIR [DIR...]

Each DIR is a case (it holds case.json) or a directory of cases. For every
case this computes what

    salt-call --local -c CASE/etc state.show_low_sls SLS,.. saltenv=ENV --out=json
    salt-call --local -c CASE/etc state.sls SLS,.. saltenv=ENV test=True --out=json

would print under `local`, and writes CASE/salt.json:

    {"lowstate": [chunk, ...]}          show_low_sls returned chunks, or
    {"errors": ["salt error", ...]}     show_low_sls returned an error list;
    plus "run_errors": [...]            state.sls test=True compile errors ([] if it ran),
    "run_order": [tag, ...]             the tags of that run in __run_num__ order,
    "run_unnumbered": [tag, ...]        those without a __run_num__ (only when there are),
    "run_changed": [tag, ...]           those that reported changes (only when there are),
    "aliases": {name: [id, ...]}        chunk name -> IDs (only when an error names a state
                                        by its `name`, e.g. "in state [x]"),
    "exception": "..."                  when Salt raised instead of returning.

How: exactly what salt-call does, minus the process start. salt-call builds
`salt.config.minion_config(CASE/etc/minion)`, sets file_client=local, creates a
`salt.minion.SMinion(opts)` (grains, pillar, loaders) and calls the function
through the `direct_call` executor with `salt.utils.args.parse_input` and
`salt.minion.load_args_and_kwargs`; the JSON outputter then runs
`salt.utils.json.dumps(data, default=repr)`. We do the same per call, with a
fresh SMinion per call (as salt-call has a fresh process), and memoise only
the grains (they come from this machine and are identical for every case;
the static `grains: {}` in each config is merged in by the loader either way).
check_driver.py compares this with real salt-call runs.
"""

import argparse
import json
import logging
import multiprocessing
import os
import shutil
import sys
import time
import traceback
from cases import find_cases  # noqa: E402 (tests/conformance/cases.py)


_GRAINS = {}


def _setup_salt():
    """Import Salt once, silence its logging, memoise grains."""
    logging.basicConfig(level=logging.CRITICAL + 10)
    logging.getLogger().setLevel(logging.CRITICAL + 10)
    import salt.config  # noqa: F401
    import salt.loader
    import salt.minion  # noqa: F401
    import warnings

    # salt/__init__.py re-enables DeprecationWarning; ours are noise here.
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    real_grains = salt.loader.grains

    def cached_grains(opts, *args, **kwargs):
        key = json.dumps(opts.get("grains", {}), sort_keys=True, default=repr)
        if args or kwargs or key not in _GRAINS:
            g = real_grains(opts, *args, **kwargs)
            if args or kwargs:
                return g
            _GRAINS[key] = g
        return dict(_GRAINS[key])

    salt.loader.grains = cached_grains

    # Every loader (about 40 per case) lists Salt's module directories again.
    # The listing is a pure function of those directories, which do not change
    # while we run, so memoise it on the directories that exist plus the
    # options _refresh_file_mapping reads.
    import salt.loader.lazy

    lazy = salt.loader.lazy.LazyLoader
    real_refresh = lazy._refresh_file_mapping
    cache = {}

    def cached_refresh(self):
        key = (
            tuple(d for d in self.module_dirs if os.path.isdir(d)),
            tuple(sorted(self.disabled)),
            tuple(self.static_modules),
            tuple(self.opts.get("optimization_order", ())),
            self.opts.get("cython_enable", True),
            self.opts.get("enable_zip_modules", True),
            tuple(self.suffix_order),
        )
        hit = cache.get(key)
        if hit is None:
            real_refresh(self)
            cache[key] = (dict(self.file_mapping), dict(self.suffix_map), list(self.suffix_order))
        else:
            self.file_mapping = dict(hit[0])
            self.suffix_map.update(hit[1])
            self.suffix_order[:] = hit[2]

    if not os.environ.get("SALT_DRIVER_NO_CACHE"):
        lazy._refresh_file_mapping = cached_refresh


def new_minion(config_path):
    """salt-call's setup: minion_config, --local, BaseCaller's SMinion."""
    import salt.config
    import salt.minion

    opts = salt.config.minion_config(config_path)
    opts["file_client"] = "local"
    opts["caller"] = True
    # salt-call's option parser merges `-c DIR` into the opts (`opts['config_dir']`).
    opts["config_dir"] = os.path.dirname(os.path.abspath(config_path))
    return salt.minion.SMinion(opts)


def pillar_items_args():
    """`pillar.items`'s arguments for the unmasked pillar: `unmask=True` from Salt 3008 on,
    which masks secrets by default; 3006 and 3007 have no masking, and 3007 refuses the
    unknown keyword."""
    import salt.version

    return ["unmask=True"] if int(salt.version.__version__.split(".")[0]) >= 3008 else []


def salt_call(config_path, fun, argv, minion=None):
    """What `salt-call --local -c DIR FUN ARGV... --out=json` prints under `local`.

    With `minion`, reuse that SMinion (two calls per case share one; see
    check_driver.py for the proof that this changes nothing).
    """
    import salt.minion
    import salt.utils.args
    import salt.utils.json

    if minion is None:
        minion = new_minion(config_path)
    opts = minion.opts
    opts["fun"] = fun
    opts["arg"] = list(argv)
    func = minion.functions[fun]
    sdata = {"fun": fun, "pid": os.getpid(), "jid": "20250101000000000000", "tgt": "salt-call"}
    args, kwargs = salt.minion.load_args_and_kwargs(
        func, salt.utils.args.parse_input(opts["arg"], no_parse=opts.get("no_parse", [])), data=sdata
    )
    ret = minion.executors["direct_call.execute"](opts, {"arg": args, "fun": fun, **kwargs}, func, args, kwargs)
    # The JSON outputter: repr() for anything JSON cannot hold.
    return json.loads(salt.utils.json.dumps(ret, default=repr))


def chunk_aliases(config_path, sls, saltenv):
    """chunk name -> [IDs] from the rendered high data (to map `in state [name]`)."""
    import salt.config
    import salt.state

    opts = salt.config.minion_config(config_path)
    opts["file_client"] = "local"
    opts["saltenv"] = saltenv
    st = salt.state.HighState(opts)
    with st:
        high, _ = st.render_highstate({saltenv: sls})
    out = {}
    for id_, body in high.items():
        if not isinstance(id_, str) or id_.startswith("__") or not isinstance(body, dict):
            continue
        for mod, run in body.items():
            if mod.startswith("__") or not isinstance(run, list):
                continue
            names = []
            name = id_
            for arg in run:
                if isinstance(arg, dict) and len(arg) == 1:
                    k, v = next(iter(arg.items()))
                    if k == "names" and isinstance(v, list):
                        for n in v:
                            n = next(iter(n)) if isinstance(n, dict) else n
                            if n not in names:
                                names.append(n)
                    elif k == "name" and isinstance(v, str):
                        name = v
            for n in names or [name]:
                n = n if isinstance(n, str) else str(n)
                ids = out.setdefault(n, [])
                if id_ not in ids:
                    ids.append(id_)
    return out


FRESH_MINION = False


def describe_exception(exc):
    """`Type: message (in salt/x.py:function)`: stable across machines, unlike a traceback."""
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        fn = frame.filename.replace(os.sep, "/")
        if "/salt/" in fn:
            where = f" (in salt/{fn.rsplit('/salt/', 1)[1]}:{frame.name})"
    return f"{type(exc).__name__}: {exc}{where}"


def run_case(case_dir):
    t0 = time.time()
    with open(os.path.join(case_dir, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    sls = meta["sls"]
    saltenv = meta.get("saltenv", "base")
    config = os.path.join(case_dir, "etc", "minion")
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    result = {}
    mods = ",".join(sls)
    minion = None
    try:
        minion = None if FRESH_MINION else new_minion(config)
        show = salt_call(config, "state.show_low_sls", [mods, f"saltenv={saltenv}"], minion)
        if isinstance(show, list) and all(isinstance(x, dict) for x in show):
            result["lowstate"] = show
        elif isinstance(show, list):
            result["errors"] = show
        else:
            result["exception"] = f"unexpected show_low_sls return: {show!r}"
    except Exception as exc:  # noqa: BLE001 - Salt raised; salt-call prints a traceback, exits 1
        result["exception"] = describe_exception(exc)
    try:
        run = salt_call(config, "state.sls", [mods, f"saltenv={saltenv}", "test=True"], minion)
        if isinstance(run, list):
            result["run_errors"] = run
        elif isinstance(run, dict):
            result["run_errors"] = []
            tags = sorted(run, key=lambda t: run[t].get("__run_num__", 0) if isinstance(run[t], dict) else 0)
            result["run_order"] = tags
            # A state whose mod_watch raised has no number (it sorts first, as 0).
            unnumbered = [t for t in tags if not isinstance(run[t], dict) or "__run_num__" not in run[t]]
            if unnumbered:
                result["run_unnumbered"] = unnumbered
            # What decides which `listen` mod_watch runs happen: the states that reported changes.
            changed = [t for t in tags if isinstance(run[t], dict) and run[t].get("changes")]
            if changed:
                result["run_changed"] = changed
        else:
            result["run_errors"] = [f"unexpected state.sls return: {run!r}"]
    except Exception as exc:  # noqa: BLE001
        result["run_exception"] = describe_exception(exc)
        result["run_errors"] = []
    texts = result.get("errors", []) + result.get("run_errors", [])
    if any("in state [" in str(t) for t in texts):
        try:
            result["aliases"] = chunk_aliases(config, sls, saltenv)
        except Exception:  # noqa: BLE001
            result["aliases"] = {}
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    with open(os.path.join(case_dir, "salt.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    return case_dir, time.time() - t0, sorted(k for k in result if k in ("lowstate", "errors", "exception"))


def uses_parallel(case_dir):
    """Whether a state file of the case says `parallel`."""
    for root, _, files in os.walk(os.path.join(case_dir, "srv")):
        for name in files:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as fh:
                if "parallel" in fh.read():
                    return True
    return False


def _worker(case_dir):
    try:
        return run_case(case_dir)
    except Exception:  # noqa: BLE001
        return case_dir, 0.0, ["driver-crash: " + traceback.format_exc(limit=2)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--only", action="append", help="case directory name (repeatable)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--fresh-minion", action="store_true", help="a new SMinion per call (slower)")
    a = ap.parse_args()
    global FRESH_MINION
    FRESH_MINION = a.fresh_minion
    cases = find_cases(a.dirs, a.only)
    if not cases:
        print("no cases found", file=sys.stderr)
        return 2
    t0 = time.time()
    _setup_salt()
    stats = {"lowstate": 0, "errors": 0, "exception": 0, "crash": 0}
    # A `parallel: True` state is started in a child process, which a pool's (daemonic)
    # worker may not have: those cases run here, in the main process.
    forking = [c for c in cases if uses_parallel(c)]
    pooled = [c for c in cases if c not in forking]
    if a.jobs > 1 and len(pooled) > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(a.jobs) as pool:
            results = list(pool.imap_unordered(_worker, pooled, chunksize=4))
    else:
        results = [_worker(c) for c in pooled]
    results += [_worker(c) for c in forking]
    for case_dir, secs, kinds in results:
        for k in kinds:
            if k.startswith("driver-crash"):
                stats["crash"] += 1
                print(f"{case_dir}: {k}", file=sys.stderr)
            else:
                stats[k] += 1
        if not a.quiet:
            print(f"{os.path.basename(case_dir)}\t{secs:.2f}s\t{','.join(kinds)}")
    print(
        f"salt_driver: {len(cases)} cases in {time.time() - t0:.1f}s "
        f"({stats['lowstate']} lowstate, {stats['errors']} errors, {stats['exception']} exceptions, "
        f"{stats['crash']} driver crashes)",
        file=sys.stderr,
    )
    return 1 if stats["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
