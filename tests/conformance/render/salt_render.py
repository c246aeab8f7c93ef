#!/usr/bin/env python3
"""Render every render-conformance case with real Salt, in one Python process.

Usage: PYTHON salt_render.py [--jobs N] [--only NAME] [--quiet] [--check-subprocess [--count N]] DIR...

Each DIR is a materialised case (it holds case.json, srv/ and etc/minion; see run.sh) or a
directory of cases. For every case this computes what

    salt-call --local -c CASE/etc slsutil.renderer path=CASE/srv/SLS \
        default_renderer='jinja|yaml' --out=json

prints under `local`, and writes CASE/salt.json:

    {"rendered": <high data, key order kept, exactly as the JSON outputter prints it>}
    {"error": "<Salt's message>", "line": N or null, "type": "SaltRenderError"}
                                       when Salt raised (salt-call prints a traceback, exits 1);
                                       `line` is the `; line N` Salt appends, when it does.

How: what salt-call does, minus the process start (as ../salt_driver.py does): per case a
fresh `salt.minion.SMinion` built from `salt.config.minion_config(CASE/etc/minion)` with
file_client=local, and the function called through the `direct_call` executor with
`salt.utils.args.parse_input` / `load_args_and_kwargs`; the JSON outputter is
`salt.utils.json.dumps(ret, default=repr)`.

One deliberate difference from salt-call: the grains are exactly the static `grains:` of the
case's minion config. salt-call merges them over the grains Salt computes from this machine;
the cases give every grain they read statically, so the rendered result is the same, it does
not depend on the machine, and it is what salt-analyzer (which computes no grains) sees.
`--check-subprocess` proves the result equal to real salt-call subprocesses on a sample
(one case of each outcome first, then the largest cases), without rewriting salt.json.

Error messages: SaltRenderError's text, with the Python tracebacks Salt embeds for unexpected
exceptions cut out (they hold this machine's paths) and the case directory replaced by @CASE@.
"""

import argparse
import concurrent.futures
import copy
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import salt_driver  # noqa: E402  (tests/conformance/salt_driver.py)

RENDERER = "jinja|yaml"


def find_cases(paths, only=None):
    out = []
    for p in paths:
        p = os.path.abspath(p)
        if os.path.isfile(os.path.join(p, "case.json")):
            out.append(p)
            continue
        for name in sorted(os.listdir(p)):
            d = os.path.join(p, name)
            if os.path.isfile(os.path.join(d, "case.json")):
                out.append(d)
    if only:
        out = [d for d in out if os.path.basename(d) in only or d in only]
    return out


def load_meta(case_dir):
    with open(os.path.join(case_dir, "case.json"), encoding="utf-8") as fh:
        return json.load(fh)


def sls_path(case_dir, meta=None):
    meta = meta or load_meta(case_dir)
    return os.path.join(case_dir, "srv", meta["sls"])


def static_grains(opts):
    """The `grains:` of the config file (and its includes), as salt.loader.grains reads them."""
    import salt.config

    if "conf_file" not in opts:
        return {}
    pre = salt.config.load_config(opts["conf_file"], "SALT_MINION_CONFIG", salt.config.DEFAULT_MINION_OPTS["conf_file"])
    default_include = pre.get("default_include", opts["default_include"])
    pre.update(salt.config.include_config(default_include, opts["conf_file"], verbose=False))
    pre.update(salt.config.include_config(pre.get("include", []), opts["conf_file"], verbose=True))
    grains = pre.get("grains") or {}
    return grains if isinstance(grains, dict) else {}


def setup_salt():
    """salt_driver's setup (quiet logging, cached module listings), then static-only grains."""
    import salt.loader

    real_grains = salt.loader.grains
    salt_driver._setup_salt()

    def only_static_grains(opts, *args, **kwargs):
        if os.environ.get("SALT_RENDER_HOST_GRAINS"):
            return real_grains(opts, *args, **kwargs)
        import salt.utils.data

        static = static_grains(opts)
        opts["grains"] = static
        return salt.utils.data.decode(copy.deepcopy(static), preserve_tuples=True)

    salt.loader.grains = only_static_grains


def new_minion(config_path):
    import salt.config
    import salt.minion

    opts = salt.config.minion_config(config_path)
    opts["file_client"] = "local"
    opts["caller"] = True
    opts["__cli"] = "salt-call"
    return salt.minion.SMinion(opts)


_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\n.*?\n(?=\S)(?:[\w.]+(?:Error|Exception|Exit|NotFound)\b[^\n]*\n?)", re.S)


def clean_message(msg, case_dir):
    """Salt's message without embedded Python tracebacks and this machine's paths."""
    msg = _TRACEBACK.sub("", msg)
    msg = msg.replace(case_dir, "@CASE@")
    return msg


def error_line(msg):
    m = re.search(r"; line (\d+)\n", msg + "\n")
    return int(m.group(1)) if m else None


def render_case(case_dir):
    meta = load_meta(case_dir)
    config = os.path.join(case_dir, "etc", "minion")
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    try:
        minion = new_minion(config)
        rendered = salt_driver.salt_call(
            config, "slsutil.renderer", [f"path={sls_path(case_dir, meta)}", f"default_renderer={RENDERER}"], minion
        )
        result = {"rendered": rendered}
    except Exception as exc:  # noqa: BLE001 - salt-call prints the traceback and exits 1
        msg = str(exc)
        result = {"error": clean_message(msg, case_dir), "line": error_line(msg), "type": type(exc).__name__}
    finally:
        shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    return result


def run_case(case_dir):
    t0 = time.time()
    result = render_case(case_dir)
    with open(os.path.join(case_dir, "salt.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    return case_dir, time.time() - t0, "rendered" if "rendered" in result else "error"


def _worker(case_dir):
    try:
        return run_case(case_dir)
    except Exception:  # noqa: BLE001
        return case_dir, 0.0, "driver-crash: " + traceback.format_exc(limit=3)


# --- --check-subprocess: the driver equals real salt-call ----------------------------------


def salt_call_subprocess(case_dir):
    meta = load_meta(case_dir)
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    cmd = [
        os.path.join(os.path.dirname(sys.executable), "salt-call"),
        "--local",
        "-c",
        os.path.join(case_dir, "etc"),
        "slsutil.renderer",
        f"path={sls_path(case_dir, meta)}",
        f"default_renderer={RENDERER}",
        "--out=json",
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    return p


def check_one(case_dir):
    with open(os.path.join(case_dir, "salt.json"), encoding="utf-8") as fh:
        ours = json.load(fh, object_pairs_hook=lambda kv: kv)
    p = salt_call_subprocess(case_dir)
    problems = []
    if "rendered" in dict(ours):
        try:
            local = json.loads(p.stdout, object_pairs_hook=lambda kv: kv)
            local = dict(local)["local"]
        except (ValueError, KeyError, TypeError):
            local = None
            problems.append(f"salt-call printed no JSON (rc {p.returncode}): {p.stderr[-600:]}")
        if local is not None and local != dict(ours)["rendered"]:
            problems.append(
                "rendered differs:\n  salt-call: "
                + json.dumps(local, ensure_ascii=False)[:1200]
                + "\n  driver:    "
                + json.dumps(dict(ours)["rendered"], ensure_ascii=False)[:1200]
            )
        if p.returncode != 0:
            problems.append(f"salt-call exited {p.returncode}")
    else:
        err = dict(ours)
        # salt-call logs the SaltRenderError and its traceback ends with `Type: message`.
        if p.returncode == 0:
            problems.append(f"driver saw an error, salt-call exited 0: {p.stdout[-400:]}")
        else:
            stderr = p.stderr.replace(case_dir, "@CASE@")
            first = err["error"].split("\n", 1)[0]
            if first not in stderr:
                problems.append(f"salt-call's stderr lacks the driver's message {first!r}: {stderr[-600:]}")
            if err.get("line") is not None and f"; line {err['line']}\n" not in stderr:
                problems.append(f"salt-call's stderr lacks `; line {err['line']}`")
    return case_dir, problems


def pick(cases, count):
    """One case per outcome (rendered, each error type + first words), then the largest SLS."""
    kinds = {}
    for c in cases:
        with open(os.path.join(c, "salt.json"), encoding="utf-8") as fh:
            s = json.load(fh)
        kind = "rendered" if "rendered" in s else "error:" + re.split(r"[:'\"]", s["error"], maxsplit=1)[0][:30]
        kinds.setdefault(kind, []).append(c)
    chosen = [v[0] for _, v in sorted(kinds.items())]
    rest = sorted((c for c in cases if c not in chosen), key=lambda c: -os.path.getsize(sls_path(c)))
    for c in rest:
        if len(chosen) >= count:
            break
        chosen.append(c)
    return chosen


def check_subprocess(cases, count, jobs, only):
    chosen = cases if only else pick(cases, count)
    bad = 0
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for case_dir, problems in ex.map(check_one, chosen):
            print(f"{'ok' if not problems else 'DIFF'}\t{os.path.basename(case_dir)}")
            for p in problems:
                print("    " + p.replace("\n", "\n    "))
            bad += bool(problems)
    print(
        f"check-subprocess: {len(chosen) - bad} of {len(chosen)} cases identical to salt-call "
        f"({time.time() - t0:.1f}s)"
    )
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--only", action="append", help="case directory name (repeatable)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument(
        "--check-subprocess",
        action="store_true",
        help="after rendering, compare a sample with real `salt-call` subprocesses",
    )
    ap.add_argument("--count", type=int, default=12, help="cases for --check-subprocess")
    a = ap.parse_args()
    cases = find_cases(a.dirs, a.only)
    if not cases:
        print("no cases found", file=sys.stderr)
        return 2
    t0 = time.time()
    setup_salt()
    if a.jobs > 1 and len(cases) > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(a.jobs) as pool:
            results = list(pool.imap_unordered(_worker, cases, chunksize=2))
    else:
        results = [_worker(c) for c in cases]
    stats = {"rendered": 0, "error": 0, "crash": 0}
    for case_dir, secs, kind in sorted(results):
        if kind.startswith("driver-crash"):
            stats["crash"] += 1
            print(f"{case_dir}: {kind}", file=sys.stderr)
            continue
        stats[kind] += 1
        if not a.quiet:
            print(f"{os.path.basename(case_dir)}\t{secs:.2f}s\t{kind}")
    print(
        f"salt_render: {len(cases)} cases in {time.time() - t0:.1f}s "
        f"({stats['rendered']} rendered, {stats['error']} errors, {stats['crash']} driver crashes)",
        file=sys.stderr,
    )
    status = 1 if stats["crash"] else 0
    if a.check_subprocess:
        status = check_subprocess(cases, a.count, a.jobs, a.only) or status
    return status


if __name__ == "__main__":
    sys.exit(main())
