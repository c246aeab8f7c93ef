#!/usr/bin/env python3
"""Compare salt-analyzer with real Salt on whole public Salt deployments (issue 40; by hand: CI
has no network, and the repositories are fetched, never committed).

Usage: tests/.work/venv/bin/python tests/deployments/compare.py --bin BIN [--jobs N] [--only NAME]
                                                                REPOS_DIR OUT

REPOS_DIR holds one checkout per entry of repos.json (REPOS_DIR/<dir>, at <commit>; an entry's
`checkout` lists extra checkouts it needs, such as git submodules). repos.json says, per
deployment, what a user of it would configure: its file_roots and pillar_roots (paths relative
to the checkout), extra minion options (nodegroups, ...), SLS to show alone (`sls`), and the
minions to test: their id and the grains the top file targets.

Per deployment and minion, OUT/NAME/MINION/etc/minion is a salt-call configuration
(file_client local, those roots, the FULL grains `salt-call --local grains.items` reports on
this machine as static `grains:`, with the id and the targeted grains overridden). Salt 3008,
in this process as salt-call does it (tests/conformance/salt_driver.py), answers:

* top: `state.show_top`;
* lowstate: `state.show_lowstate`, or, when it shows chunks but `state.highstate` would stop
  before running a state, those compile errors (tests/formulas/compare.py's compile_errors);
* low_sls:NAME: `state.show_low_sls NAME` for each of the entry's `sls`.

Ours, with the same configuration: `BIN top|lowstate [--sls NAME] -c CASE/etc --format json`
(compared as compare_top.py and compare_lowstate.py compare), and `BIN check -c CASE/etc
--format json` (its error count by code). Per deployment also the zero-configuration run a new
user makes: `cd CHECKOUT && BIN check --format json` (error count by code).

Pillar stubs: a deployment's private pillar is not published, and Salt refuses every state
function over a pillar with errors, so by default each pillar SLS the top names that Salt says
"is not available" gets an empty stand-in in CASE/pillar-stubs (last in every pillar_roots
environment; both sides read it); `--no-stubs` compares the deployment exactly as published.

Custom modules: as a minion of the deployment has after `saltutil.sync_all`, Salt's
extension_modules cache (CASE/var/cache/extmods) gets each file root's `_modules`, `_states`
and `_utils` (`--no-sync`: without them).

classified.json maps `NAME/MINION/WHAT` (WHAT: top, lowstate, low_sls:NAME) to a one-line
classification of a known difference ("ours wrong: ... (repro: PATH)", or "host: ...");
a difference without one is `unclassified`.

OUT receives the cases, results.json and results.md.
"""

import argparse
import collections
import importlib.util
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TESTS, "conformance"))
import salt_driver  # noqa: E402
import compare_lowstate  # noqa: E402
import compare_top  # noqa: E402

_spec = importlib.util.spec_from_file_location("formulas_compare", os.path.join(TESTS, "formulas", "compare.py"))
formulas = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(formulas)

SALT_TIMEOUT = 300
STUBS = True
SYNC = True
MISSING = re.compile(r"Specified SLS '([^']+)' in environment '([^']+)' is not available")


def load_repos(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["deployments"]


def roots(checkout, spec, case, kind):
    """{env: [absolute dirs]}: the checkout's relative paths made absolute; an empty
    CASE/<kind> when the deployment has none (its pillar is private)."""
    if not spec:
        empty = os.path.join(case, kind)
        os.makedirs(empty, exist_ok=True)
        return {"base": [empty]}
    return {env: [p if os.path.isabs(p) else os.path.normpath(os.path.join(checkout, p)) for p in dirs]
            for env, dirs in spec.items()}


def make_case(out, repos_dir, dep, minion, grains):
    checkout = os.path.abspath(os.path.join(repos_dir, dep["dir"]))
    case = os.path.join(out, dep["name"], minion["id"])
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(os.path.join(case, "etc"))
    g = dict(grains)
    g.update(minion.get("grains", {}))
    g["id"] = minion["id"]
    cfg = {
        "file_client": "local",
        "id": minion["id"],
        "root_dir": f"{case}/var",
        "cachedir": f"{case}/var/cache",
        "extension_modules": f"{case}/var/cache/extmods",
        "pki_dir": f"{case}/var/pki",
        "sock_dir": f"{case}/var/sock",
        "pidfile": f"{case}/var/run/minion.pid",
        "log_file": f"{case}/var/log/minion",
        "log_level_logfile": "warning",
        "enable_fqdns_grains": False,
        "mine_enabled": False,
        "file_roots": roots(checkout, dep.get("file_roots"), case, "srv"),
        "pillar_roots": roots(checkout, dep.get("pillar_roots"), case, "pillar"),
    }
    if STUBS:
        # Last in every pillar environment: empty files for the pillar SLS the top names that
        # are not public (salt_side fills it in), so the rest of the pillar is compared.
        os.makedirs(os.path.join(case, "pillar-stubs"))
        for dirs in cfg["pillar_roots"].values():
            dirs.append(os.path.join(case, "pillar-stubs"))
    cfg.update(dep.get("options", {}))
    cfg["grains"] = g
    with open(os.path.join(case, "etc", "minion"), "w", encoding="utf-8") as fh:
        fh.write("# Generated by tests/deployments/compare.py (JSON is YAML)\n")
        json.dump(cfg, fh, indent=1)
        fh.write("\n")
    meta = {"name": dep["name"], "repo": dep["repo"], "minion": minion["id"], "checkout": checkout,
            "sls": dep.get("sls", []), "why": minion.get("why", "")}
    with open(os.path.join(case, "case.json"), "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=1)
    return case


def sync_ext(case):
    """What `saltutil.sync_modules` / `sync_states` leave on a real minion: each file root's
    `_modules/*.py` and `_states/*.py` in the extension_modules cache (CASE/var/cache/extmods)."""
    if not SYNC:
        return []
    with open(os.path.join(case, "etc", "minion"), encoding="utf-8") as fh:
        cfg = json.loads(fh.read().split("\n", 1)[1])
    synced = []
    for dirs in cfg["file_roots"].values():
        for root in dirs:
            for src, kind in (("_modules", "modules"), ("_states", "states"), ("_utils", "utils")):
                d = os.path.join(root, src)
                if not os.path.isdir(d):
                    continue
                dst = os.path.join(case, "var", "cache", "extmods", kind)
                os.makedirs(dst, exist_ok=True)
                for f in sorted(os.listdir(d)):
                    if f.endswith(".py") and not os.path.exists(os.path.join(dst, f)):
                        shutil.copy(os.path.join(d, f), dst)
                        synced.append(f"{src}/{f}")
    return synced


def _alarm(signum, frame):
    raise TimeoutError(f"Salt took more than {SALT_TIMEOUT}s")


def salt_side(case):
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    config = os.path.join(case, "etc", "minion")
    res = {}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SALT_TIMEOUT)
    try:
        try:
            synced = sync_ext(case)
            if synced:
                res["synced"] = synced
            minion = salt_driver.new_minion(config)
            stubs = []
            while STUBS and len(stubs) < 200:
                new = sorted({m.group(1) for e in minion.opts["pillar"].get("_errors") or []
                              for m in [MISSING.search(str(e))] if m} - set(stubs))
                if not new:
                    break
                for name in new:
                    path = os.path.join(case, "pillar-stubs", *name.split(".")) + ".sls"
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    open(path, "w").close()
                stubs += new
                shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
                sync_ext(case)
                minion = salt_driver.new_minion(config)
            if stubs:
                res["pillar_stubs"] = stubs
        except Exception as exc:  # noqa: BLE001
            e = salt_driver.describe_exception(exc)
            return {"top": {"top_exception": e}, "lowstate": {"exception": e},
                    **{f"low_sls:{s}": {"exception": e} for s in meta["sls"]}}
        perr = minion.opts["pillar"].get("_errors")
        if perr:
            res["pillar_errors"] = perr
        try:
            top = salt_driver.salt_call(config, "state.show_top", [], minion)
            res["top"] = {"top": top}
        except Exception as exc:  # noqa: BLE001
            res["top"] = {"top_exception": salt_driver.describe_exception(exc)}
        calls = [("lowstate", "state.show_lowstate", [], None)]
        calls += [(f"low_sls:{s}", "state.show_low_sls", [s], [s]) for s in meta["sls"]]
        for key, fun, argv, mods in calls:
            try:
                ret = salt_driver.salt_call(config, fun, argv, minion)
                if isinstance(ret, list) and all(isinstance(x, dict) for x in ret):
                    res[key] = {"lowstate": ret}
                    try:
                        errs = formulas.compile_errors(minion, mods)
                    except Exception as exc:  # noqa: BLE001
                        errs = None
                        res[key]["compile_exception"] = salt_driver.describe_exception(exc)
                    if errs:
                        res[key] = {"errors": errs, "compiled_by_show": True, "shown_chunks": len(ret)}
                else:
                    res[key] = {"errors": ret if isinstance(ret, list) else [repr(ret)]}
            except Exception as exc:  # noqa: BLE001
                res[key] = {"exception": salt_driver.describe_exception(exc)}
            texts = res[key].get("errors", [])
            if any("in state [" in str(t) for t in texts):
                try:
                    tops = res["top"].get("top") if isinstance(res["top"].get("top"), dict) else {}
                    sls = mods or [s for ss in tops.values() for s in ss]
                    res[key]["aliases"] = salt_driver.chunk_aliases(config, sls, "base")
                except Exception:  # noqa: BLE001
                    res[key]["aliases"] = {}
    except TimeoutError as exc:
        res["timeout"] = str(exc)
        for key in ["top", "lowstate"] + [f"low_sls:{s}" for s in meta["sls"]]:
            res.setdefault(key, {"exception": str(exc)} if key != "top" else {"top_exception": str(exc)})
    finally:
        signal.alarm(0)
    shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
    return res


def _salt_worker(case):
    t0 = time.time()
    try:
        r = salt_side(case)
    except Exception:  # noqa: BLE001
        r = {"driver-crash": traceback.format_exc(limit=3)}
    r["seconds"] = round(time.time() - t0, 1)
    print(f"salt: {os.path.relpath(case, os.path.dirname(os.path.dirname(case)))} {r['seconds']}s", file=sys.stderr, flush=True)
    return case, r


def run(binary, argv, cwd, timeout=600):
    cmd = [os.path.abspath(binary)] + argv
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None, None, f"timed out after {timeout}s"
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, (p.stderr + p.stdout[:300]).strip()


def count_codes(got):
    """{'error': {code: n}, 'warning': {code: n}} of a `check --format json`."""
    out = {"error": collections.Counter(), "warning": collections.Counter()}
    for d in (got or {}).get("diagnostics", []):
        sev = d.get("severity", "error")
        out["error" if sev == "error" else "warning"][d.get("code", "?")] += 1
    return {k: dict(v.most_common()) for k, v in out.items()}


def judge_top(salt, rc, got, err):
    if got is None:
        return f"stdout is not JSON (exit {rc}): {err[-200:]}"
    return compare_top.check_top(salt, got, rc)


def describe(salt, key):
    s = salt[key]
    if key == "top":
        if "top_exception" in s:
            return "Salt raised"
        t = s["top"]
        return f"{sum(len(v) for v in t.values())} SLS" if isinstance(t, dict) else f"{len(t)} errors"
    return formulas.outcome(s)


def fmt_codes(c):
    return ", ".join(f"{k} {v}" for k, v in c.items()) or "0"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", help="a deployment's name (repeatable)")
    ap.add_argument("--no-sync", action="store_true",
                    help="Salt without the deployment's _modules/_states (as before saltutil.sync_all)")
    ap.add_argument("--no-stubs", action="store_true",
                    help="no empty stand-ins for the pillar SLS a deployment does not publish")
    ap.add_argument("--repos", default=os.path.join(HERE, "repos.json"))
    ap.add_argument("--classified", default=os.path.join(HERE, "classified.json"))
    ap.add_argument("repos_dir")
    ap.add_argument("out")
    a = ap.parse_args()
    global STUBS, SYNC
    STUBS = not a.no_stubs
    SYNC = not a.no_sync
    t0 = time.time()
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    deps = [d for d in load_repos(a.repos) if not a.only or d["name"] in a.only]
    classified = {}
    if os.path.isfile(a.classified):
        with open(a.classified, encoding="utf-8") as fh:
            classified = json.load(fh)
    salt_driver._setup_salt()
    grains = formulas.host_grains()
    cases = []
    for dep in deps:
        checkout = os.path.join(a.repos_dir, dep["dir"])
        if not os.path.isdir(checkout):
            print(f"skip {dep['name']}: no checkout {checkout}", file=sys.stderr)
            continue
        head = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        if head and head != dep["commit"]:
            print(f"warning: {dep['name']} is at {head}, repos.json says {dep['commit']}", file=sys.stderr)
        for m in dep["minions"]:
            cases.append((dep, m, make_case(out, a.repos_dir, dep, m, grains)))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(a.jobs, maxtasksperchild=1) as pool:
        salt = dict(pool.imap_unordered(_salt_worker, [c for _, _, c in cases]))
    print(f"salt: {len(cases)} cases in {time.time() - t0:.0f}s", file=sys.stderr)

    zero = {}
    for dep in deps:
        checkout = os.path.abspath(os.path.join(a.repos_dir, dep["dir"]))
        if not os.path.isdir(checkout):
            continue
        rc, got, err = run(a.bin, ["check", "--format", "json"], checkout)
        zero[dep["name"]] = {"exit": rc, "codes": count_codes(got) if got is not None else None,
                             "stderr": None if got is not None else err[-300:]}
        with open(os.path.join(out, dep["name"], "ours-zero-config-check.json"), "w", encoding="utf-8") as fh:
            json.dump(got, fh, indent=1, ensure_ascii=False)

    results = []
    for dep, m, case in cases:
        s = salt[case]
        with open(os.path.join(case, "salt.json"), "w", encoding="utf-8") as fh:
            json.dump(s, fh, indent=1, ensure_ascii=False)
        row = {"name": dep["name"], "repo": dep["repo"], "commit": dep["commit"], "minion": m["id"], "case": case,
               "salt_seconds": s.get("seconds"), "pillar_errors": len(s.get("pillar_errors") or []),
               "pillar_stubs": s.get("pillar_stubs", []),
               "zero_config_check": zero.get(dep["name"])}
        if "driver-crash" in s:
            row["crash"] = s["driver-crash"]
            results.append(row)
            continue
        cfg = os.path.join(case, "etc")
        checks = [("top", ["top", "-c", cfg, "--format", "json"], judge_top),
                  ("lowstate", ["lowstate", "-c", cfg, "--format", "json"], formulas.judge_low)]
        checks += [(f"low_sls:{n}", ["lowstate", "--sls", n, "-c", cfg, "--format", "json"], formulas.judge_low)
                   for n in dep.get("sls", [])]
        row["checks"] = {}
        for key, argv, judge in checks:
            rc, got, err = run(a.bin, argv, case)
            with open(os.path.join(case, f"ours-{key.replace(':', '-')}.json"), "w", encoding="utf-8") as fh:
                json.dump(got, fh, indent=1, ensure_ascii=False)
            if rc is None:
                diff = err
            else:
                try:
                    diff = judge(s[key], rc, got, err)
                except Exception as exc:  # noqa: BLE001
                    diff = f"compare.py could not compare: {exc!r}"
            label = f"{dep['name']}/{m['id']}/{key}"
            row["checks"][key] = {"salt": describe(s, key), "same": diff is None, "diff": diff,
                                  "class": None if diff is None else classified.get(label, "unclassified")}
        rc, got, err = run(a.bin, ["check", "-c", cfg, "--format", "json"], case)
        with open(os.path.join(case, "ours-check.json"), "w", encoding="utf-8") as fh:
            json.dump(got, fh, indent=1, ensure_ascii=False)
        row["check"] = {"exit": rc, "codes": count_codes(got) if got is not None else None,
                        "stderr": None if got is not None else (err or "")[-300:]}
        results.append(row)

    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1, ensure_ascii=False)
    lines = ["| deployment | minion | pillar (Salt) | Salt top | top | Salt lowstate | lowstate | our check -c: errors by code | zero-config check: errors |",
             "|---|---|---|---|---|---|---|---|---|"]
    diffs = []
    for r in results:
        if "crash" in r:
            lines.append(f"| {r['name']} | {r['minion']} | driver crash | | | | | |")
            continue
        c = r["checks"]
        chk = r["check"]["codes"]
        z = r["zero_config_check"] or {}
        zc = fmt_codes(z["codes"]["error"]) if z.get("codes") else f"exit {z.get('exit')}: {str(z.get('stderr'))[:60]}"
        ck = fmt_codes(chk["error"]) if chk else f"exit {r['check']['exit']}: {str(r['check']['stderr'])[:60]}"
        low_extra = "".join(f"; {k}: {'yes' if v['same'] else 'no'}" for k, v in c.items() if k.startswith("low_sls:"))
        pil = f"{len(r['pillar_stubs'])} stubbed, {r['pillar_errors']} errors"
        lines.append(f"| {r['name']} | {r['minion']} | {pil} | {c['top']['salt']} | {'yes' if c['top']['same'] else 'no'} | "
                     f"{c['lowstate']['salt']} | {'yes' if c['lowstate']['same'] else 'no'}{low_extra} | {ck} | {zc} |")
        for k, v in c.items():
            if not v["same"]:
                diffs.append(f"* {r['name']}/{r['minion']}/{k}: **{v['class']}**: {(v['diff'] or '').replace(chr(10), ' ')[:300]}")
    n = sum(1 for r in results if "checks" in r)
    same_top = sum(1 for r in results if "checks" in r and r["checks"]["top"]["same"])
    same_low = sum(1 for r in results if "checks" in r and r["checks"]["lowstate"]["same"])
    head = [f"# Real deployments: salt-analyzer vs Salt 3008\n",
            f"{len(deps)} deployments, {n} minions: top equal {same_top}/{n}, lowstate equal {same_low}/{n}.\n"]
    text = "\n".join(head + lines + ["\n## Differences\n"] + diffs) + "\n"
    with open(os.path.join(out, "results.md"), "w", encoding="utf-8") as fh:
        fh.write(text)
    print(text)
    print(f"total {time.time() - t0:.0f}s", file=sys.stderr)
    return 1 if diffs or any("crash" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
