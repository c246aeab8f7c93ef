"""Conformance of salt-analyzer's call checks (unknown state function, missing parameter,
unknown argument) with Salt's own `State.verify_data` and `salt.utils.args.format_call`.

    PYTHON compare.py --bin BIN --work DIR [--count N] [--seed S] [--salt-version MAJOR]

Generates one SLS file per case (a few states each, calling random functions of the state
modules this host's Salt loads, with required arguments dropped, misspelt or unknown
arguments added, runtime keywords mixed in, and now and then a misspelt function), runs
`BIN check -c DIR/etc --salt-version MAJOR --format json` once over the tree (MAJOR: this
Salt's release line unless given, whose catalog the functions are picked from), and asks Salt
in this process what `State.call` would say of every low chunk: `verify_data` (not found / "Missing parameter"),
then `format_call` with the state's internal keywords allowed (its "invalid keyword
argument"; Salt raises that only once the required arguments are there, so they are filled
in first: what Salt says after the user fixes the missing ones). Nothing is called: the state
functions are only inspected. Per file, the multiset of message lines must be equal (our
did-you-mean lines aside). Exit 1 on any difference.
"""

import argparse
import json
import re
import logging
import os
import random
import shutil
import subprocess
import sys
import warnings

logging.basicConfig(level=logging.CRITICAL + 10)
warnings.filterwarnings("ignore")

import salt.config  # noqa: E402
import salt.state  # noqa: E402
import salt.utils.args  # noqa: E402
import salt.utils.extmods  # noqa: E402
import salt.utils.yaml  # noqa: E402
import salt.version  # noqa: E402
from salt.exceptions import SaltInvocationError  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOGS = os.path.join(HERE, "..", "..", "..", "server", "model", "src", "state")
RUNTIME = ["order", "onlyif", "unless", "failhard", "retry", "reload_modules", "parallel"]
WORDS = ["source", "mode", "user", "enable", "force", "pattern", "repl", "text", "target", "version", "refresh", "makedirs"]


def typo(word, rnd):
    i = rnd.randrange(len(word))
    return word[:i] + rnd.choice("aeiouxz") + word[i + 1 :] if rnd.random() < 0.5 else word[:i] + word[i + 1 :] if len(word) > 2 else word + "x"


def custom_modules(rnd, n):
    """Random `_states/*.py` sources: signatures with defaults, `*args`, `**kwargs`, keyword-only
    parameters, `__virtualname__` and `__func_alias__`."""
    out = {}
    for i in range(n):
        lines = []
        virtual = rnd.random() < 0.5
        if virtual:
            lines.append(f'__virtualname__ = "cust{i}v"')
        alias = rnd.random() < 0.5
        if alias:
            lines.append('__func_alias__ = {"list_": "list"}')
        lines.append("def __virtual__():\n    return " + ('__virtualname__' if virtual else 'True'))
        for fname in ["present", "absent", "list_" if alias else "listed", "_helper"]:
            params = ["name"] + rnd.sample(WORDS, rnd.randint(0, 3))
            ndef = rnd.randint(0, len(params) - 1)
            parts = params[: len(params) - ndef] + [f"{p}={rnd.choice(['None', '1', repr('x')])}" for p in params[len(params) - ndef :]]
            if rnd.random() < 0.3:
                parts.append("*args")
            if rnd.random() < 0.3:
                parts.append(("*, " if "*args" not in parts else "") + "flag=False")
            if rnd.random() < 0.4:
                parts.append("**kwargs")
            lines.append(f"def {fname}({', '.join(parts)}):\n    return {{'name': name, 'result': True, 'changes': {{}}, 'comment': ''}}")
        out[f"cust{i}.py"] = "\n\n".join(lines) + "\n"
    return out


def generate(rnd, count, st, catalog):
    custom = {m for m in st.states if m.split(".")[0].startswith("cust")}
    funs = sorted(
        {f"{m}.{f}" for m, fs in catalog["modules"].items() for f in fs if f"{m}.{f}" in st.states} | custom
    )
    files = {}
    for case in range(count):
        doc = {}
        for n in range(rnd.randint(2, 6)):
            full = rnd.choice(funs)
            mod, fun = full.split(".", 1)
            if rnd.random() < 0.1:
                fun = typo(fun, rnd)
            aspec = salt.utils.args.get_function_argspec(st.states[full])
            ndef = len(aspec.defaults or ())
            required = [a for a in aspec.args[: len(aspec.args) - ndef] if a != "name"]
            optional = list(aspec.args[len(aspec.args) - ndef :])
            args = []
            for a in required:
                if rnd.random() < 0.8:
                    args.append({a: rnd.choice(["x", 1, "/tmp/y"])})
            for a in rnd.sample(optional, min(len(optional), rnd.randint(0, 2))):
                args.append({a: rnd.choice(["x", 2, True])})
            if rnd.random() < 0.35:
                pool = aspec.args or WORDS
                key = typo(rnd.choice(pool), rnd) if rnd.random() < 0.7 else rnd.choice(WORDS) + "_x"
                if key not in salt.state.STATE_INTERNAL_KEYWORDS:
                    args.append({key: "v"})
            if rnd.random() < 0.3:
                args.append({rnd.choice(RUNTIME): rnd.choice([1, "true"])})
            # No duplicate keys: a repeated key is its own Salt error, not ours to test here.
            seen, uniq = set(), []
            for a in args:
                k = next(iter(a))
                if k not in seen and (k not in salt.state.STATE_INTERNAL_KEYWORDS or k in RUNTIME):
                    seen.add(k)
                    uniq.append(a)
            doc[f"s{case}_{n}"] = {f"{mod}.{fun}": uniq}
        files[f"c{case}"] = doc
    return files


def salt_messages(st, sls, doc):
    high = {}
    for sid, body in doc.items():
        (key, args), = body.items()
        mod, fun = key.split(".", 1)
        high[sid] = {mod: [fun] + args, "__sls__": sls, "__env__": "base"}
    out = []
    chunks = st.compile_high_data(high)
    # 3008 returns the chunks and the requisite errors; 3006 and 3007 the chunks alone.
    if isinstance(chunks, tuple):
        chunks, errors = chunks
        assert not errors, errors
    for chunk in chunks:
        data = dict(chunk)
        errors = st.verify_data(dict(data))
        out.extend(line for e in errors for line in e.rstrip("\n").split("\n"))
        full = f"{data['state']}.{data['fun']}"
        if full not in st.states:
            continue
        aspec = salt.utils.args.get_function_argspec(st.states[full])
        for a in aspec.args[: len(aspec.args) - len(aspec.defaults or ())]:
            data.setdefault(a, "filled")
        try:
            salt.utils.args.format_call(
                st.states[full], data, initial_ret={"full": full}, expected_extra_kws=salt.state.STATE_INTERNAL_KEYWORDS
            )
        except SaltInvocationError as e:
            msg = str(e)
            # One message for several keys: one line per key, as we report them.
            if " are invalid keyword arguments for " in msg:
                keys, _, tail = msg.partition(" are invalid keyword arguments for ")
                for k in keys.replace(" and ", ", ").split(", "):
                    out.append(f"{k} is an invalid keyword argument for {tail}")
            else:
                out.append(msg)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--salt-version", type=int, default=salt.version.__saltstack_version__.major)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    roots = os.path.join(a.work, "srv")
    etc = os.path.join(a.work, "etc")
    os.makedirs(roots)
    os.makedirs(etc)
    with open(os.path.join(etc, "minion"), "w") as f:
        f.write(
            f"file_client: local\nfile_roots:\n  base:\n    - {roots}\ncachedir: {a.work}/cache\n"
            f"pki_dir: {a.work}/pki\nlog_file: {a.work}/log\n"
        )
    rnd = random.Random(a.seed)
    os.makedirs(os.path.join(roots, "_states"))
    for name, text in custom_modules(rnd, 4).items():
        with open(os.path.join(roots, "_states", name), "w") as f:
            f.write(text)
    opts = salt.config.minion_config(os.path.join(etc, "minion"))
    opts["file_client"] = "local"
    opts["grains"] = {}
    # What `saltutil.sync_states` does: copy the file roots' `_states` into the extension
    # modules, where the state loader finds them.
    salt.utils.extmods.sync(opts, "states")
    st = salt.state.State(opts)
    catalog = json.load(open(os.path.join(CATALOGS, f"catalog-{a.salt_version}.json"), encoding="utf-8"))
    files = generate(rnd, a.count, st, catalog)
    for sls, doc in files.items():
        with open(os.path.join(roots, sls + ".sls"), "w") as f:
            salt.utils.yaml.safe_dump(doc, f, default_flow_style=False)
    run = subprocess.run(
        [a.bin, "check", "-c", etc, "--salt-version", str(a.salt_version), "--format", "json"], capture_output=True, text=True
    )
    ours = {sls: [] for sls in files}
    codes = {"unknown-function", "missing-parameter", "unknown-argument"}
    # salt-lint's text rules (`cmd.wait`, file modes, ...) say how a file is written, not what
    # Salt's call check says: left out here, and judged by the salt-lint suite.
    listed = json.loads(subprocess.run([a.bin, "rules", "--format", "json"], capture_output=True, text=True, check=True).stdout)
    style = {r["code"] for r in listed if r.get("category") == "style"}
    deprecated = 0
    typos = []
    for d in json.loads(run.stdout)["diagnostics"]:
        sls = os.path.basename(d["file"])[: -len(".sls")]
        if d["code"] == "likely-typo":
            # Salt says nothing of these: it passes the key on in **kwargs. Proved below from
            # Salt's own argspec of the function, and counted.
            m = re.match(r"'([^']+)' is not a parameter of '([^']+)'", d["message"])
            typos.append((sls, m.group(1), m.group(2)) if m else (sls, None, d["message"]))
            continue
        if d["code"] in style:
            continue
        if d["code"] in ("deprecated-function", "deprecated-argument"):
            # Salt warns of these only while running the function: counted, not compared
            # (deprecated_args.py runs the functions for the arguments).
            deprecated += 1
            continue
        if d["code"] not in codes:
            print(f"{sls}: unexpected {d['code']}: {d['message']}")
            ours.setdefault(sls, []).append(d["message"])
            continue
        # Our own lines: the did-you-mean, and which older release shipped a removed function.
        ours[sls].extend(l for l in d["message"].split("\n") if not l.startswith("Did you mean") and " shipped it; " not in l)
    bad = 0
    total = {"lines": 0}
    for sls, doc in files.items():
        want = salt_messages(st, sls, doc)
        got = sorted(ours.get(sls, []))
        total["lines"] += len(want)
        if want != got:
            bad += 1
            if bad <= 10:
                print(f"--- {sls}\n  salt: {want}\n  ours: {got}")
    for sls, key, full in typos:
        aspec = salt.utils.args.get_function_argspec(st.states[full]) if full in st.states else None
        if aspec is None or aspec.keywords is None or key in aspec.args or key in salt.state.STATE_INTERNAL_KEYWORDS:
            bad += 1
            print(f"--- {sls}\n  likely-typo on {key!r} of {full!r}, which Salt does not pass to **kwargs")
    print(f"calls conformance: {len(typos)} likely-typo warnings, each on an argument Salt's argspec passes to **kwargs")
    print(f"calls conformance: {len(files) - bad}/{len(files)} files identical ({total['lines']} Salt message lines; {deprecated} deprecated-function/-argument warnings)")
    print(f"{len(files) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
