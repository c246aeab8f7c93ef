#!/usr/bin/env python3
"""Seeds the corpora of the render_template, py_re_format, sql_base_fold and top_compile fuzz
targets from the repository's fixtures (the other targets' seeds were written by hand).

    PYTHON fuzz/seed.py    # PYTHON with PyYAML, e.g. tests/.work/venv/bin/python

Writes fuzz/corpus/TARGET/seed-NAME files (existing ones are replaced); the input layout of
each target is the one its fuzz_targets/TARGET.rs describes.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def files_under(top):
    out = {}
    for dirpath, _, names in os.walk(top):
        for n in sorted(names):
            p = os.path.join(dirpath, n)
            with open(p, encoding="utf-8", errors="replace") as f:
                out[os.path.relpath(p, top)] = f.read()
    return dict(sorted(out.items()))


def render_template():
    """Every render conformance case: its SLS, its minion's grains, pillar and options, and
    the files it may import; and every templated SLS of examples/."""
    base = os.path.join(ROOT, "tests", "conformance", "render", "corpus")
    for case in sorted(os.listdir(base)):
        cdir = os.path.join(base, case)
        with open(os.path.join(cdir, "case.json")) as f:
            sls = json.load(f)["sls"]
        with open(os.path.join(cdir, "minion.yaml")) as f:
            minion = yaml.safe_load(f) or {}
        grains = dict(minion.pop("grains", None) or {})
        grains.setdefault("id", minion.pop("id", "web01"))
        pillar = minion.pop("pillar", None) or {}
        srv = files_under(os.path.join(cdir, "srv"))
        parts = [srv.pop(sls, ""), json.dumps(grains, default=str), json.dumps(pillar, default=str), json.dumps(minion, default=str)]
        parts += [f"{p}\n{t}" for p, t in srv.items()]
        write("render_template", case, "\0".join(parts))
    examples = os.path.join(ROOT, "examples", "salt")
    grains = {"id": "web01.example.com", "os": "Ubuntu", "os_family": "Debian", "roles": ["web"]}
    for env in sorted(os.listdir(examples)):
        srv = files_under(os.path.join(examples, env))
        for path, text in srv.items():
            if "{" in text:
                parts = [text, json.dumps(grains), "{}", "{}"] + [f"{p}\n{t}" for p, t in srv.items() if p != path]
                write("render_template", f"examples-{env}-{path.replace('/', '-')}", "\0".join(parts))


# Rows of py/re.rs's and the regex filters' tests (pattern, subject, replacement), and
# py/percent.rs's format strings with their arguments.
PATTERNS = [
    ("web", "web01", ""), (".*example", "web01.example.com", "x"), ("(?i)WEB", "web01", ""),
    (r"web01\.example\.com\Z", "web01.example.com", ""), ("web$", "web\n", "-"), ("a{,2}b", "aab", r"\g<0>"),
    ("[]a]", "]", ""), (r"\w+\Z", "ünï_1", ""), (r"(?a)\w", "é", ""), (r"(a)\1", "aa", r"\1\1"),
    (r"(?P<n>a)(?P=n)", "aa", r"\g<n>"), (r"(?<=a)b", "ab", ""), (r"a(?=b)", "ab", ""), (r"\bfoo\b", "foo bar", "baz"),
    (r"(?x) a b # comment", "ab", ""), ("(?:a*)*b", "b", ""), ("a*+a", "aaa", ""), ("(?>a*)a", "aaa", ""),
    ("(a)?(?(1)b|c)", "c", ""), (r"\x41", "A", ""), (r"\101", "A", ""), ("(?s).", "\n", ""), ("(?m)a$", "a\nb", "z"),
    ("(?i:A)a", "aA", ""), (r"\B", "ab", "-"), ("(?<=){1,3}", "x", "-"), ("(?=a)*b", "b", ""), ("", "abc", "-"),
    (r"(\w+)@(\w+)", "ß@x, y@z", r"\2 at \g<1>"), ("x*", "-a-", "-"), (r"^\s*#", "  # c\nk", ""),
    (r"(?P<major>\d+)\.(?P<minor>\d+)", "3008.4", r"\g<minor>.\g<major>"), ("[^/]+$", "/srv/salt/top.sls", ""),
]
FORMATS = [
    ("/home/%s", ["ß💣"]), ("%s-%d-%05.1f|%-4s|%4s|%x|%#o|%%|%r", ["a", 7, 2.75, "l", "r", 255, 8, "q"]),
    ("%s and %s", [True, None]), ("%s", {"a": 1}), ("%(name)s is %(age)03d", {"name": "ℝ", "age": 5}),
    ("%s %s", ["one"]), ("%d", ["x"]), ("%.2s|%+d|% d|%e|%g", ["abc", 3, 4, 12345.678, 0.5]), ("%c%i%u%X%E%G", [65, 1, 2, 255, 1.5, 1e20]),
    ("", [7, -3]), ("", [7.5, -2]),
]


def py_re_format():
    for i, (p, s, r) in enumerate(PATTERNS):
        fmt, args = FORMATS[i % len(FORMATS)]
        write("py_re_format", f"{i:02d}", bytes([i % 4]) + "\0".join([p, s, r, fmt, json.dumps(args)]).encode())


def sql_base_fold():
    """The vectors of pillar/sql_base.rs's tests."""
    t4 = (["a", "b", "c", "d"], [["x", "y1", "z1", "v1"], ["x", "y2", "z2", "v2"], ["x", "y1", "z3", "v3"], ["x", "y1", "z1", "v4"]])
    options = [{}, {"depth": 3}, {"depth": 4}, {"as_list": True}, {"depth": 1}, {"depth": 2, "as_list": True}, {"with_lists": "1"},
               {"with_lists": "2,3"}, {"depth": 2, "with_lists": "2"}, {"as_json": True}, {"ignore_null": True}, {"root": "r"}]
    for i, o in enumerate(options):
        write("sql_base_fold", f"t4-{i:02d}", json.dumps([[dict(o, query="SELECT a,b,c,d FROM t4")], {}, *t4]))
    tables = [
        ("pv", ["pillar", "value"], [["a", "1"], ["b", None]], [["defaults", "mine"], {}]),
        ("kwargs", ["pillar", "value"], [["a", "1"]], [[], {"main": "mine", "extra": "defaults"}]),
        ("scalar", ["k", "v"], [["a", "scalar"]], [["scalar", "deep"], {}]),
        ("deep", ["k", "b", "v"], [["a", "b", "deep"]], [["scalar", {"query": "deep", "as_list": True}], {}]),
        ("k1", ["k1", "v"], [["a", "1"], ["a", "2"], ["a", "3"]], [[{"query": "k1", "with_lists": "1"}], {}]),
        ("spare", ["k", "c1", "c2"], [["a", "x", None], ["a", None, "y"]], [[["spare", 1]], {}]),
        ("doc", ["a", "b", "c", "d", "e", "v"], [["a", "b", "c", "d", "e", 1], ["a", "b", "c", "f", "g", 2], ["a", "z", "h", "y", "j", 3]],
         [[{"query": "doc", "with_lists": "1,3"}], {}]),
        ("json", ["j"], [['{"a":{"b":[1,2]},"c":3}'], ['{"a":{"b":[1,3]},"d":4}']], [[{"query": "json", "as_json": True}], {}]),
        ("badjson", ["j"], [["[1]"]], [[{"query": "json", "as_json": True}], {}]),
        ("ints", ["k", "v"], [[1, 2.5]], [["ints"], {}]),
        ("error", ["k", "v"], [["a", 1]], [["ints", "error", "ints"], {}]),
    ]
    for name, cols, rows, (args, kwargs) in tables:
        write("sql_base_fold", name, json.dumps([args, kwargs, cols, rows]))


def top_compile():
    """Trees of the top-file conformance generator (gen_tops.py): the minion configuration
    (roots relative to the workspace), grains, and every file under srv/ but the pillar's."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "conformance", "gen_tops.py"), "--seed", "27", "--count", "48", "--out", tmp],
                       check=True, stdout=subprocess.DEVNULL)
        for case in sorted(os.listdir(tmp)):
            cdir = os.path.join(tmp, case)
            with open(os.path.join(cdir, "etc", "minion")) as f:
                config = f.read().replace(cdir + "/", "")
            minion = yaml.safe_load(config)
            grains = dict(minion.get("grains") or {}, id=minion.get("id"))
            files = {p: t for p, t in files_under(os.path.join(cdir, "srv")).items() if not p.startswith("pillar/")}
            parts = [config, json.dumps(grains, default=str), "{}"] + [f"srv/{p}\n{t}" for p, t in files.items()]
            write("top_compile", case, "\0".join(parts))


if __name__ == "__main__":
    render_template()
    py_re_format()
    sql_base_fold()
    top_compile()
