#!/usr/bin/env python3
"""Render every render-conformance case with real Salt's state system, in one Python process.

Usage: PYTHON salt_render.py [--jobs N] [--only NAME] [--quiet] [--check-subprocess [--count N]] DIR...

Each DIR is a materialised case (it holds case.json, srv/ and etc/minion; see run.sh) or a
directory of cases. For every case this renders the case's SLS exactly as

    salt-call --local -c CASE/etc state.show_sls NAME saltenv=base      (or state.apply NAME)

renders it (NAME is the SLS name of the case's `sls` path under srv/: `a/b.sls` -> `a.b`,
`a/init.sls` -> `a`), and writes CASE/salt.json with what that render returned, before the
state compiler touches it:

    {"rendered": <data, key order kept, as the JSON outputter prints it>}
    {"error": "<Salt's message>", "line": N or null, "file": "a/b.sls" or null,
     "type": "SaltRenderError"}        when the render raised (state.show_sls then returns
                                       ["Rendering SLS 'base:NAME' failed: <message>"]);
                                       `line`/`file` are where Salt places the error (file
                                       relative to the file root): for a Jinja error in the SLS
                                       `; line N` of the message, for one inside an imported
                                       template that template and its line as the message names
                                       them (`.../files/base/lib/x.jinja(5):`), for YAML scanner
                                       errors the line of the SLS's rendered text; null for YAML
                                       parser/constructor errors (see error_position).

How: what salt-call does, minus the process start (as ../salt_driver.py does): per case a
fresh `salt.minion.SMinion` built from `salt.config.minion_config(CASE/etc/minion)` with
file_client=local, and `state.show_sls NAME saltenv=base` called through the `direct_call`
executor with `salt.utils.args.parse_input` / `load_args_and_kwargs`. Inside it
`BaseHighState.render_state` caches salt://SLS and calls
`compile_template(cached_path, renderers, opts.renderer, ..., "base", NAME, rendered_sls=set(),
context=None)`; the driver wraps `salt.state.compile_template` and keeps that call's return
value (through the JSON outputter, `salt.utils.json.dumps(ret, default=repr)`, at once, before
render_state pops `include` or pad_funcs rewrites it) or its exception. So every context
variable is the state system's: `sls`, `slspath`, `sls_path`, `slsdotpath`, `slscolonpath`,
`tplfile` (relative to the file root), `tpldir`, `tpldot`, `tplpath` (the cached copy),
`saltenv`, `rendered_sls`, `jinja_sls_env` (not `jinja_env`: the sls name is not empty), and
`opts` as HighState adjusts it (e.g. `state_top` is `salt://top.sls`). Salt's
`slsutil.renderer path=salt://SLS sls=NAME saltenv=base` gives the same except for those
`opts` adjustments and `rendered_sls` (undefined there).

One deliberate difference from salt-call: the grains are exactly the static `grains:` of the
case's minion config. salt-call merges them over the grains Salt computes from this machine;
the cases give every grain they read statically, so the rendered result is the same, it does
not depend on the machine, and it is what salt-analyzer (which computes no grains) sees.
(SALT_RENDER_HOST_GRAINS=1 gives Salt this machine's grains as salt-call does, for debugging.)

`--check-subprocess` proves salt.json against real salt-call subprocesses on a sample (one
case of each outcome and of each case family, then the largest; `--count 1000` for all),
without rewriting salt.json: `salt-call state.show_sls NAME saltenv=base --out=json` must
return, for a rendered case, the same high data (the IDs of this SLS; each declaration's
arguments in the same order, number types included; only pad_funcs' `mod: [args, "fun"]`
form, the `order` state_auto_order adds and `__sls__`/`__env__` undone), and for an error
case `Rendering SLS 'base:NAME' failed: <the same message>`. Data the state compiler rejects
(a top-level list, a map that is no high data) cannot come back from state.show_sls; for those
`salt-call slsutil.renderer path=salt://SLS sls=NAME saltenv=base --out=json` must print the
same JSON text.

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
from cases import find_cases  # noqa: E402 (tests/conformance/cases.py)

RENDERER = "jinja|yaml"


def load_meta(case_dir):
    with open(os.path.join(case_dir, "case.json"), encoding="utf-8") as fh:
        return json.load(fh)


def sls_path(case_dir, meta=None):
    meta = meta or load_meta(case_dir)
    return os.path.join(case_dir, "srv", meta["sls"])


def sls_name(rel):
    """The SLS name state.apply uses for srv/REL: `a/b.sls` -> `a.b`, `a/init.sls` -> `a`."""
    name = rel[: -len(".sls")] if rel.endswith(".sls") else rel
    if name.endswith("/init"):
        name = name[: -len("/init")]
    return name.replace("/", ".")


def state_argv(meta):
    """salt-call's arguments for the state system's render of the case's SLS."""
    return ["state.show_sls", sls_name(meta["sls"]), "saltenv=base"]


def renderer_argv(meta):
    """slsutil.renderer with the state system's render arguments (for --check-subprocess)."""
    return [
        "slsutil.renderer",
        f"path=salt://{meta['sls']}",
        f"sls={sls_name(meta['sls'])}",
        "saltenv=base",
        f"default_renderer={RENDERER}",
    ]


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
    capture_render()


# The render of the SLS under test, caught inside the state system: CAPTURE["want"] is the
# (saltenv, sls) to catch; CAPTURE["result"] becomes ("data", json) or ("error", exception).
CAPTURE = {}


def capture_render():
    """Wrap the compile_template salt.state calls (render_state is its only caller with an sls
    name) to keep what it returns for CAPTURE["want"], before render_state changes it."""
    import salt.state
    import salt.utils.json
    import salt.utils.stringio

    real = salt.state.compile_template

    def compile_template(template, renderers, default, blacklist, whitelist, saltenv="base", sls="", *args, **kwargs):
        hit = "result" not in CAPTURE and CAPTURE.get("want") == (saltenv, sls)
        try:
            ret = real(template, renderers, default, blacklist, whitelist, saltenv, sls, *args, **kwargs)
        except Exception as exc:
            if hit:
                CAPTURE["result"] = ("error", exc)
            raise
        if hit:
            # slsutil.renderer returns a text-only render's text; render_state would reject it.
            data = ret.getvalue() if salt.utils.stringio.is_readable(ret) else ret
            CAPTURE["result"] = ("data", json.loads(salt.utils.json.dumps(data, default=repr)))
        return ret

    salt.state.compile_template = compile_template


def new_minion(config_path):
    import salt.config
    import salt.minion

    opts = salt.config.minion_config(config_path)
    opts["file_client"] = "local"
    opts["caller"] = True
    opts["__cli"] = "salt-call"
    return salt.minion.SMinion(opts)


_EXC_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|NotFound|Undefined)\b")


def clean_message(msg, case_dir):
    """Salt's message without the Python tracebacks it embeds (this machine's paths) and with
    the case directory as @CASE@. A traceback runs from `Traceback (most recent call last):`
    over its indented lines to the `Type: message` line (or Salt's `[...]` cut)."""
    out = []
    skipping = False
    for line in msg.split("\n"):
        if line.startswith("Traceback (most recent call last):"):
            skipping = True
            continue
        if skipping:
            if line.startswith((" ", "\t")):
                continue
            skipping = False
            if _EXC_LINE.match(line):
                continue
        out.append(line)
    return "\n".join(out).replace(case_dir, "@CASE@")


def error_position(exc, sls_rel):
    """(line, file) Salt gives a SaltRenderError, file relative to the file root.

    * Jinja errors in the SLS itself and YAML scanner errors: `line_num` / `; line N` in the
      message, a line of the SLS (for YAML, of its rendered text).
    * Jinja errors inside an imported template: Salt (`_get_jinja_error`, because the failing
      frame is not the SLS named by `sls`) attaches no line but names the template and line in
      the message, `<cachedir>/files/base/lib/x.jinja(5):`; that template and line.
    * YAML parser and constructor errors: (None, None); their positions are only in the text.
    """
    line = getattr(exc, "line_num", None)
    if isinstance(line, int) and line > 0:
        return line, sls_rel
    text = str(exc) + "\n"
    m = re.search(r"; line (\d+)\n", text)
    if m:
        return int(m.group(1)), sls_rel
    m = re.search(r"^\S*/files/base/(\S+)\((\d+)\):$", text, re.M)
    if m:
        return int(m.group(2)), m.group(1)
    return None, None


def render_case(case_dir):
    meta = load_meta(case_dir)
    config = os.path.join(case_dir, "etc", "minion")
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    CAPTURE.clear()
    CAPTURE["want"] = ("base", sls_name(meta["sls"]))
    try:
        minion = new_minion(config)
        fun, *argv = state_argv(meta)
        try:
            salt_driver.salt_call(config, fun, argv, minion)
        except Exception:  # noqa: BLE001 - only the render matters; it was caught before
            if "result" not in CAPTURE:
                raise
        if "result" not in CAPTURE:
            raise RuntimeError(f"state.show_sls {CAPTURE['want'][1]} did not render the SLS")
        kind, value = CAPTURE["result"]
        if kind == "data":
            result = {"rendered": value}
        else:
            line, where = error_position(value, meta["sls"])
            result = {
                "error": clean_message(str(value), case_dir),
                "line": line,
                "file": where,
                "type": type(value).__name__,
            }
    finally:
        CAPTURE.clear()
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


def salt_call_subprocess(case_dir, argv):
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    cmd = [
        os.path.join(os.path.dirname(sys.executable), "salt-call"),
        "--local",
        "-c",
        os.path.join(case_dir, "etc"),
        *argv,
        "--out=json",
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
    return p


def _local(p):
    """What salt-call printed under `local` (object order kept), or None."""
    try:
        return json.loads(p.stdout)["local"]
    except (ValueError, KeyError, TypeError):
        return None


def _state_form(body):
    """One ID's declarations as {"mod.fun": [args]}: pad_funcs' `mod: [args, "fun"]` folded
    back, `__sls__`/`__env__` dropped."""
    if isinstance(body, str):
        body = {body: []}
    if not isinstance(body, dict):
        return body
    out = {}
    for key, val in body.items():
        if key.startswith("__"):
            continue
        if not isinstance(val, list):
            out[key] = val
            continue
        args = list(val)
        fun = None
        if "." in key:
            key, fun = key.split(".", 1)
        else:
            names = [a for a in args if isinstance(a, str)]
            if names:
                fun = names[0]
                args.remove(fun)
        out[f"{key}.{fun}"] = args
    return out


def check_one(case_dir):
    """Problems with salt.json against real salt-call (see the module doc), and the check
    made: `state.show_sls` or `slsutil.renderer`."""
    meta = load_meta(case_dir)
    name = sls_name(meta["sls"])
    with open(os.path.join(case_dir, "salt.json"), encoding="utf-8") as fh:
        ours = json.load(fh)
    p = salt_call_subprocess(case_dir, state_argv(meta))
    local = _local(p)
    if local is None:
        return case_dir, "state.show_sls", [f"state.show_sls printed no JSON (rc {p.returncode}): {p.stderr[-600:]}"]
    prefix = f"Rendering SLS 'base:{name}' failed: "
    render_errors = [e for e in local if isinstance(e, str) and e.startswith(prefix)] if isinstance(local, list) else []
    if "error" in ours:
        problems = []
        got = [e[len(prefix) :].replace(case_dir, "@CASE@") for e in render_errors]
        first = ours["error"].split("\n", 1)[0]
        if not any(g.split("\n", 1)[0] == first for g in got):
            problems.append(f"salt.json has the error {first!r}; state.show_sls: {json.dumps(local)[:600]}")
        elif f"; line {ours.get('line')}\n" in ours["error"] + "\n" and not any(
            f"; line {ours['line']}\n" in g + "\n" for g in got
        ):
            problems.append(f"state.show_sls's error lacks `; line {ours['line']}`")
        if p.returncode == 0:
            problems.append("state.show_sls exited 0")
        return case_dir, "state.show_sls", problems
    if render_errors:
        return case_dir, "state.show_sls", [f"rendered here, state.show_sls fails to render: {render_errors[0][:600]}"]
    if isinstance(local, list):
        # Rendered, but no high data: only slsutil.renderer shows the data.
        p = salt_call_subprocess(case_dir, renderer_argv(meta))
        data = _local(p)
        problems = []
        if data is None:
            problems.append(f"slsutil.renderer printed no JSON (rc {p.returncode}): {p.stderr[-600:]}")
        elif json.dumps(data) != json.dumps(ours["rendered"]):
            problems.append(
                "rendered differs:\n  slsutil.renderer: "
                + json.dumps(data, ensure_ascii=False)[:1200]
                + "\n  salt.json:        "
                + json.dumps(ours["rendered"], ensure_ascii=False)[:1200]
            )
        return case_dir, "slsutil.renderer", problems
    data = ours["rendered"]
    if not isinstance(data, dict):
        return case_dir, "state.show_sls", ["state.show_sls accepted data that is not a mapping"]
    want = {k: _state_form(v) for k, v in data.items() if k not in ("include", "exclude", "extend")}
    got = {k: _state_form(v) for k, v in local.items() if isinstance(v, dict) and v.get("__sls__") == name}
    for id_, body in got.items():
        mine = want.get(id_) if isinstance(want.get(id_), dict) else {}
        for key, args in body.items() if isinstance(body, dict) else ():
            # The {"order": N} state_auto_order appends, unless the SLS wrote that one.
            if isinstance(args, list) and args and isinstance(args[-1], dict) and list(args[-1]) == ["order"]:
                if not (isinstance(mine.get(key), list) and mine[key][-1:] == args[-1:]):
                    args.pop()
    for k in set(got) - set(want):
        if k in (data.get("extend") or {}):
            del got[k]
    if json.dumps(want, sort_keys=True) != json.dumps(got, sort_keys=True):
        return case_dir, "state.show_sls", [
            "high data differs:\n  salt.json:      "
            + json.dumps(want, sort_keys=True, ensure_ascii=False)[:1200]
            + "\n  state.show_sls: "
            + json.dumps(got, sort_keys=True, ensure_ascii=False)[:1200]
        ]
    return case_dir, "state.show_sls", []


def pick(cases, count):
    """One case per outcome (rendered; each error type and first words), then one per corpus
    family (the name up to its first `-`), then the largest SLS files."""
    kinds = {}
    for c in cases:
        with open(os.path.join(c, "salt.json"), encoding="utf-8") as fh:
            s = json.load(fh)
        kind = "rendered" if "rendered" in s else "error:" + re.split(r"[:'\"]", s["error"], maxsplit=1)[0][:30]
        kinds.setdefault(kind, []).append(c)
    chosen = [v[0] for _, v in sorted(kinds.items())]
    families = {os.path.basename(c).split("-")[0] for c in chosen}
    for c in cases:
        fam = os.path.basename(c).split("-")[0]
        if fam not in families and len(chosen) < count:
            chosen.append(c)
            families.add(fam)
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
        for case_dir, how, problems in ex.map(check_one, chosen):
            print(f"{'ok' if not problems else 'DIFF'}\t{os.path.basename(case_dir)}\t({how})")
            for p in problems:
                print("    " + p.replace("\n", "\n    "))
            bad += bool(problems)
    print(
        f"check-subprocess: {len(chosen) - bad} of {len(chosen)} cases agree with salt-call "
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
        help="after rendering, check a sample against real `salt-call state.show_sls` subprocesses",
    )
    ap.add_argument("--count", type=int, default=24, help="cases for --check-subprocess (1000: all)")
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
