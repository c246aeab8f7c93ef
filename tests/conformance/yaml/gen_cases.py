#!/usr/bin/env python3
"""Generate YAML loader conformance cases with Salt's own loader (SaltYamlSafeLoader).

Usage: python gen_cases.py OUT.jsonl [COUNT] [SEED]
       python gen_cases.py --campaign OUT.jsonl SECONDS [FIRST_SEED]

Every line of OUT.jsonl is one case:

    {"kind": "dump", "seed": 7, "text": "a:\\n  b: [1, 2]\\n",
     "salt": {"value": ["map", [[["str", "a"], ...]]]}}          accepted, with the value
     "salt": {"error": "ScannerError: ...", "line": 3}            rejected, line 1-based

The text is loaded exactly as Salt's `yaml` renderer loads an SLS file:
`salt.utils.yamlloader.load(text, Loader=SaltYamlSafeLoader(stream, dictclass=OrderedDict))`
(libyaml's CSafeLoader underneath when PyYAML has it, as in Salt's packages). Values are typed
so that int, float, bool, null and str stay apart and a mapping keeps its order and its
non-string keys: ["null"], ["bool", b], ["int", "digits"], ["float", number or "nan"/"inf"/
"-inf"], ["str", s], ["bytes", hex], ["seq", [v...]], ["map", [[k, v]...]], ["other", repr].

Kinds: `dump` (PyYAML's and Salt's `yaml` filter output of random data, and the `json` filter's,
pasted under block keys and list items at random depths, as `key: {{ x|yaml }}` leaves it),
`snippet` (hand-written tricky texts, `SNIPPETS`), `mutant` (random structured edits of the
other two: spaces, line breaks, quotes, colons, dashes, brackets, tabs, `: value` lines).
Deterministic for a seed. `server/syntax/tests/yaml_conformance.rs` replays the file against
`syntax::yaml::load`.

`--campaign` is the differential fuzz loop: it writes cases of consecutive seeds until
SECONDS have passed (the Rust test then reads the file the same way).

`--pick OUT.jsonl DISAGREEMENTS.jsonl...` keeps the few shortest cases of each kind of
disagreement (what the Rust test writes to `SALT_YAML_DISAGREEMENTS`) for
`regressions.jsonl`, Salt's answer recomputed, salt-analyzer's dropped.
"""

import json
import math
import random
import sys
import time
import warnings
from collections import OrderedDict

warnings.simplefilter("ignore")

import yaml  # noqa: E402

import salt.utils.json  # noqa: E402
import salt.utils.yaml  # noqa: E402
import salt.utils.yamlloader as yamlloader  # noqa: E402


def salt_load(text):
    return yamlloader.load(text, Loader=lambda s: yamlloader.SaltYamlSafeLoader(s, dictclass=OrderedDict))


def typed(v):
    if v is None:
        return ["null"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        if math.isnan(v):
            return ["float", "nan"]
        if math.isinf(v):
            return ["float", "inf" if v > 0 else "-inf"]
        return ["float", v]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, bytes):
        return ["bytes", v.hex()]
    if isinstance(v, list):
        return ["seq", [typed(x) for x in v]]
    if isinstance(v, dict):
        return ["map", [[typed(k), typed(x)] for k, x in v.items()]]
    return ["other", repr(v)]


def answer(text):
    try:
        value = salt_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        out = {"error": f"{type(e).__name__}: {getattr(e, 'problem', None) or e}"}
        if mark is not None:
            out["line"] = mark.line + 1
        return out
    except Exception as e:  # noqa: BLE001 - any other failure is still Salt refusing the text
        return {"error": f"{type(e).__name__}: {e}"}
    try:
        return {"value": typed(value)}
    except RecursionError:
        return {"error": "RecursionError: a recursive alias"}


# ---------------------------------------------------------------- random data

STRINGS = [
    "a", "web", "pkg.installed", "yes", "no", "on", "Off", "null", "~", "", " ", "0755", "0o17", "1e3", "1.5",
    "2024-01-02", "12:30", "1_000", "0x1F", ".inf", "a: b", "a:b", "- x", "-x", "#c", "a #c", "'q'", '"dq"',
    "it's", "ß", "ℝ", "💣", "ßℝ💣 mix", " lead", "trail ", "multi\nline", "two\n\nbreaks", "tab\there",
    "{x}", "[y]", "@at", "`bt", "%pct", "!bang", "&amp", "*star", "|", ">", "?", "? q", ",", "a, b",
    "salt://files/x.conf", "/etc/hosts", "C:\\win\\path", "=", "<<", "key=value", "x" * 90,
    "a long sentence with words that keeps going past the eighty column line of the emitter",
    "\\backslash", "uni\u00e9", "nul\x00x", "bell\x07", "True", "FALSE", "-", "--- doc", "...",
]
KEYS = ["a", "b", "name", "pkgs", "file.managed", "require", "x y", "ß", "1", "yes", "k:", "- k", "it's", "ℝ"]


def rand_scalar(r):
    c = r.random()
    if c < 0.45:
        return r.choice(STRINGS)
    if c < 0.6:
        return r.choice([0, 1, -7, 755, 8080, 2**40, -(2**31), 2**63 - 1])
    if c < 0.7:
        return r.choice([0.5, -1.25, 1e20, 3.0, 1e-7, float("inf"), 123456.789])
    if c < 0.8:
        return r.choice([True, False])
    if c < 0.85:
        return None
    return "".join(r.choice("abc xyz-_:.,#'\"[]{}ßℝ💣0123") for _ in range(r.randint(1, 12)))


def rand_data(r, depth=0):
    c = r.random()
    if depth > 3 or c < 0.3:
        return rand_scalar(r)
    n = r.randint(0, 7 if depth < 2 else 4)
    if c < 0.65:
        return [rand_data(r, depth + 1) for _ in range(n)]
    d = OrderedDict()
    for _ in range(n):
        k = r.choice(KEYS) if r.random() < 0.8 else r.choice([1, 2, True, None, 1.5])
        d[k] = rand_data(r, depth + 1)
    return d


def plain(v):
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def dump_text(r, data):
    """One rendering of `data` as a template would print it, and whether it is block style."""
    how = r.choice(["filter", "filter", "filter", "flow", "block", "json", "json_indent"])
    if how == "filter":
        # Salt's `yaml` filter (`format_yaml`): safe_dump, flow style, stripped, no `...`.
        txt = salt.utils.yaml.safe_dump(data, default_flow_style=True).strip()
        if txt.endswith("\n..."):
            txt = txt[:-4]
        return txt, False
    if how == "flow":
        return yaml.safe_dump(plain(data), default_flow_style=True, width=r.choice([10, 20, 40, 80, 200]),
                              indent=r.choice([2, 4]), allow_unicode=r.random() < 0.5).strip(), False
    if how == "block":
        return yaml.safe_dump(plain(data), default_flow_style=r.choice([False, None]),
                              width=r.choice([20, 80]), allow_unicode=True).strip(), True
    if how == "json":
        return salt.utils.json.dumps(data, sort_keys=r.random() < 0.5), False
    return salt.utils.json.dumps(data, indent=r.choice([1, 2, 4])), False


def embed(r, txt, block):
    """Paste `txt` (a template expression's output) somewhere in a block document."""
    lines = []
    depth = r.randint(0, 5)
    step = r.choice([2, 2, 4])
    ind = 0
    keys_only = False
    for d in range(depth):
        shape = 0.0 if keys_only else r.random()
        keys_only = False
        pad = " " * ind
        if shape < 0.6:
            lines.append(f"{pad}k{d}:")
            ind += step
        elif shape < 0.85:
            lines.append(f"{pad}- k{d}:")
            if r.random() < 0.3:
                lines.append(" " * (ind + 2) + "other: 1")
                ind += 2
                keys_only = True
            else:
                ind += r.choice([2, 2 + step])
        else:
            lines.append(f"{pad}k{d}:")
            lines.append(f"{pad}{' ' * step}-")
            ind += step + 2
    pad = " " * ind
    if block:
        # `key:` then `{{ x|yaml(False)|indent(N) }}` on the next line.
        lines.append(f"{pad}key:")
        inner = " " * (ind + step)
        lines.extend(inner + line if line else line for line in txt.split("\n"))
    else:
        where = r.random()
        if where < 0.55:
            head = f"{pad}key: "
        elif where < 0.8:
            head = f"{pad}- "
        elif where < 0.9:
            head = f"{pad}- key: "
        else:
            head = f"{pad}key: " + r.choice(["", "&anc ", "!!seq ", "!!map "])
        first, *rest = txt.split("\n")
        lines.append(head + first)
        lines.extend(rest)
        if head.lstrip().startswith("- key"):
            pad += "  "
        elif head.lstrip().startswith("-"):
            pad = None
    if pad is not None and r.random() < 0.5:
        lines.append(pad + "after: 1")
    if r.random() < 0.3 and not lines[0].startswith("-"):
        lines.append("end: 2")
    return "\n".join(lines) + ("\n" if r.random() < 0.8 else "")


def gen_dump(r):
    data = rand_data(r)
    try:
        txt, block = dump_text(r, data)
    except TypeError:
        # json's sort_keys over keys of mixed types.
        txt, block = salt.utils.json.dumps(data), False
    return embed(r, txt, block)


# ---------------------------------------------------------------- hand-written

SNIPPETS = [
    # `yaml` filter output wrapped left of its key (users' reports).
    "a:\n  b:\n    c:\n      d: [aaaaaaaaaa, bbbbbbbbbbbb, cccccccccccc, dddddddddddd, eeeeeeeeeeee, ffffffff,\n  gggg]\n",
    "a:\n  - b: [aaaaaaaaaa, bbbbbbbbbbbb, cccccccccccc, dddddddddddd, eeeeeeeeeeee, ffffffff,\n  gggg]\n    c: 1\n",
    "a:\n  - [aaaaaaaaaa, bbbbbbbbbbbb, cccccccccccc, dddddddddddd, eeeeeeeeeeee, ffffffff,\n  gggg]\n  - x\n",
    "a:\n    b: {x: [1, 2,\n  3], y: {z: 4,\n w: 5}}\n    c: 1\n",
    "a:\n  b: [1,\n2,\n 3,\n  4]\n  c: 2\n",
    "- a: [1,\n  2]\n  b: 3\n",
    "k:\n  - - [1,\n 2]\n",
    "a: [x,\ny]\n",
    "a:\n  b: {c: [1,\n  2]}\n  d: [3,\n4]\n",
    "a:\n      b: [1, 2,\n  3]\n      c: [4,\n 5]\n",
    # Double-quoted continuation at column 0 (users-formula).
    'a:\n  b: "one\ntwo"\n',
    'users:\n  bob:\n    fullname: "Bob\nBobson"\n    home: /home/bob\n',
    'a:\n  - "x\n  y"\n  - "p\nq"\n',
    "a:\n  b: 'one\ntwo'\n",
    "a:\n  b: one\ntwo\n",
    "a:\n  b: one\n   two\n",
    # `: value` (an empty key).
    ": value\n",
    "a: 1\n: value\n",
    "a:\n  b: 1\n  : c\n",
    "- : x\n",
    "{: x}\n",
    "? \n: x\n",
    "a:\n  :\n",
    # Complex keys, non-string keys.
    "? a\n: b\n",
    "? [1, 2]\n: x\n",
    "? {a: 1}\n: x\n",
    "1: a\n1.0: b\n",
    "1: a\ntrue: b\n",
    "null: a\n~: b\n",
    "1: a\n'1': b\n",
    "[1, 2]: x\n",
    # Anchors, aliases, merges.
    "a: &x 1\nb: *x\n",
    "a: &m {x: 1}\nb:\n  <<: *m\n  y: 2\n",
    "a: &m {x: 1}\nc: &n {x: 2}\nb:\n  <<: [*m, *n]\n",
    "a: &m {x: 1}\nb:\n  <<: *m\n  x: 2\n",
    "a: &m {x: 1, y: 2}\nb:\n  x: 3\n  <<: *m\n",
    "b:\n  <<: 1\n",
    "b:\n  <<: [1]\n",
    "a: &m {1: x}\nb:\n  <<: *m\n  1.0: y\n",
    "a: &m {'1': x}\nb:\n  <<: *m\n  1: y\n",
    "a: *nope\n",
    "a: &x [*x]\n",
    "a: &x\nb: *x\n",
    "a: &x {k: v}\n*x : 1\n",
    # Tags.
    "a: !!python/unicode x\n",
    "a: !!str 1\n",
    "a: !!int '7'\n",
    "a: !!int 0755\n",
    "a: !!float '1'\n",
    "a: !!bool 'yes'\n",
    "a: !!null ''\n",
    "a: !!binary aGVsbG8=\n",
    "a: !!timestamp 2024-01-02\n",
    "a: !encrypted xyz\n",
    "a: !foo [1]\n",
    "a: !!map {b: 1}\n",
    "a: !!omap {b: 1}\n",
    "a: !!omap [{b: 1}]\n",
    "a: !!seq [1]\n",
    "a: !!seq {b: 1}\n",
    "a: !!map [1]\n",
    "a: !!str [1]\n",
    "a: !!set {x, y}\n",
    "a: !<tag:yaml.org,2002:str> 5\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!foo x\n",
    "%YAML 1.1\n---\na: 1\n",
    "%YAML 1.2\n---\na: 1\n",
    "%YAML 2.0\n---\na: 1\n",
    # Scalars.
    "a: 0755\nb: 0o17\nc: 08\nd: 0b101\ne: -0x1F\nf: +12\ng: 1_0\nh: 190:20:30\n",
    "a: 1.5\nb: 1e3\nc: 1.0e+3\nd: .5\ne: -.inf\nf: .NaN\ng: 1.\nh: 1_0.5\ni: 190:20:30.15\n",
    "a: 99999999999999999999\nb: -9223372036854775809\n",
    "a: y\nb: n\nc: Yes\nd: oN\n",
    "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n",
    "a: =\n",
    "a: <<\n",
    "a: |\n  x\n  y\nb: >\n  p\n  q\n\n  r\nc: |-\n  z\n",
    "a: |2\n   x\n  y\n",
    "a: >-\n\n  x\n",
    "a: |\n\n\n",
    "a: |\n  x\n\n\n",
    "a: |+\n  x\n\n",
    "a: 'one\n\n  two'\n",
    'a: "x\\\n  y"\n',
    'a: "\\x41\\u00e9\\U0001F4A3\\N\\_\\L\\P\\e\\0\\t\\ "\n',
    'a: "\\q"\n',
    "a: b\n  c\n",
    "a: plain # comment\nb: x#y\n",
    "a: 'x' # c\nb: \"y\"#c\n",
    "a: [a: 1, b]\n",
    "a: [? a : 1]\n",
    "a: {a, b: 1}\n",
    "a: [a, b, ]\n",
    "a: [, a]\n",
    "a: {a: 1,}\n",
    "a: [a]b\n",
    "a: [a\n  ]\n",
    "a: [a\n]\n",
    "a: {\n}\n",
    "a: [\n  # c\n  1]\n",
    "a: [x:y]\n",
    "a: [x: y]\n",
    "a: [http://x]\n",
    "a: {x:1}\n",
    "a: {'x':1}\n",
    'a: {"x":1}\n',
    "a: -1\nb: - 1\n",
    "- - - a\n",
    "-\n  a\n",
    "- a\n -b\n",
    "a:\n- 1\n- 2\n",
    "a:\n  - 1\n - 2\n",
    "a:\n    - 1\n  - 2\n",
    "a: b: c\n",
    "a:\n  b\n  c: d\n",
    # Tabs.
    "a:\n\tb: 1\n",
    "a: \tb\n",
    "a:\t1\n",
    "a: [1,\t2]\n",
    "- \ta\n",
    "a: |\n\tx\n",
    "a: |\n  \tx\n",
    "a:\n  b: 1\t\n",
    "a: 'x\n\ty'\n",
    "\ta: 1\n",
    "a: 1\n\t\n",
    "a: 1 \t# c\n",
    # Documents, markers, BOM, comments.
    "---\na: 1\n",
    "---\na: 1\n...\n",
    "a: 1\n---\nb: 2\n",
    "--- a\n",
    "---\n---\n",
    "...\n",
    "--- |\n  x\n",
    "a: 1\n...\n---\n",
    "\ufeffa: 1\n",
    "a: 1\n\ufeff\n",
    "# c\n\n# d\n",
    "a: 1 # c\n# d\n  # e\nb: 2\n",
    "a: 1\r\nb: 2\r\n",
    "a: 1\rb: 2\r",
    "a:\r\n  - x\r\n  - 'p\r\n  q'\r\n",
    "a: \"x\u2028y\"\n",
    "a: x\u0085y\n",
    "a: \u0007\n",
    # Unicode.
    "ß: ℝ\n💣: [ß, ℝ,\n 💣]\n",
    "'ß💣': \"ℝ\"\n",
    "a: ß:ℝ\n",
    "ℝ:\n  - 💣\n",
    # Long lines.
    "a: " + "x" * 1100 + "\n",
    "a" * 1100 + ": 1\n",
    '"' + "a" * 1100 + '": 1\n',
    "? " + "a" * 1100 + "\n: 1\n",
    "[" + "a" * 1100 + "]: 1\n",
    # Repeated keys.
    "a: 1\na: 2\n",
    "a: 1\nb:\n  a: 2\n  a: 3\n",
    "{a: 1, a: 2}\n",
    "1: x\n01: y\n",
    "yes: x\ntrue: y\n",
    "a: 1\n'a': 2\n",
    # Indentation oddities.
    "a:\n   b: 1\n   c: 2\n",
    "a:\n  b: 1\n   c: 2\n",
    "  a: 1\n  b: 2\n",
    "  a: 1\nb: 2\n",
    "a:\n  - b\n  -c\n",
    "a:\n  -\n    b\n",
    "- a:\n  b\n",
    "- a: 1\n  b: 2\n- c\n",
    "-   a: 1\n    b: 2\n",
    "- a: 1\n   b: 2\n",
]


# ---------------------------------------------------------------- mutations

INSERTS = [" ", "  ", "\n", "\t", "'", '"', ":", ": ", "-", "- ", "[", "]", "{", "}", ",", "#", " #", "&a ", "*a",
           "!!str ", "? ", "|", ">", "\\", "ß", "💣", "\n: value\n", "\n- x\n", "\n---\n", "\n  ", "...", "%", "@", "`"]


def mutate(r, text):
    for _ in range(r.randint(1, 3)):
        op = r.random()
        if not text:
            text = r.choice(INSERTS)
            continue
        i = r.randrange(len(text) + 1)
        if op < 0.35:
            text = text[:i] + r.choice(INSERTS) + text[i:]
        elif op < 0.6:
            j = min(len(text), i + r.randint(1, 3))
            text = text[:i] + text[j:]
        elif op < 0.75:
            # re-indent one line
            lines = text.split("\n")
            k = r.randrange(len(lines))
            lines[k] = (" " * r.randint(0, 6)) + lines[k].lstrip(" ") if r.random() < 0.7 else lines[k][1:]
            text = "\n".join(lines)
        elif op < 0.85:
            # duplicate a line
            lines = text.split("\n")
            k = r.randrange(len(lines))
            lines.insert(k, lines[k])
            text = "\n".join(lines)
        elif op < 0.93:
            # put `: value` at the indentation of some line
            lines = text.split("\n")
            k = r.randrange(len(lines))
            ind = len(lines[k]) - len(lines[k].lstrip(" "))
            lines.insert(k, " " * ind + r.choice([": value", ":", ": ", "- : x"]))
            text = "\n".join(lines)
        else:
            # swap a bracket or quote kind
            pairs = {"[": "{", "{": "[", "]": "}", "}": "]", "'": '"', '"': "'"}
            spots = [n for n, ch in enumerate(text) if ch in pairs]
            if spots:
                n = r.choice(spots)
                text = text[:n] + pairs[text[n]] + text[n + 1:]
    return text


def case(seed):
    r = random.Random(seed)
    c = r.random()
    if c < 0.45:
        kind, text = "dump", gen_dump(r)
    elif c < 0.55:
        kind, text = "snippet", r.choice(SNIPPETS)
    elif c < 0.8:
        kind, text = "mutant", mutate(r, gen_dump(r))
    else:
        kind, text = "mutant", mutate(r, r.choice(SNIPPETS))
    return {"kind": kind, "seed": seed, "text": text, "salt": answer(text)}


def disagreement_kind(d):
    salt, ours = d["salt"], d["ours"]
    if "error" in salt and not ours.startswith("error"):
        return "salt rejects: " + salt["error"].split("\n")[0][:60]
    if "error" not in salt and ours.startswith("error"):
        return "we reject: " + ours.split(": ", 1)[-1][:60]
    return "values differ"


def pick(out, paths, per_kind=4):
    kinds = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                kinds.setdefault(disagreement_kind(d), {})[d["text"]] = d
    n = 0
    with open(out, "a", encoding="utf-8") as f:
        for kind, cases in sorted(kinds.items()):
            for text in sorted(cases, key=len)[:per_kind]:
                d = cases[text]
                f.write(json.dumps({"kind": d["kind"], "seed": d["seed"], "text": text, "found": kind,
                                    "salt": answer(text)}, ensure_ascii=False) + "\n")
                n += 1
    print(f"{n} cases of {len(kinds)} kinds appended to {out}")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--pick":
        pick(args[1], args[2:])
        return
    if args and args[0] == "--campaign":
        out, seconds = args[1], float(args[2])
        seed = int(args[3]) if len(args) > 3 else 1_000_000
        end = time.time() + seconds
        n = 0
        with open(out, "w", encoding="utf-8") as f:
            while time.time() < end:
                for _ in range(200):
                    f.write(json.dumps(case(seed), ensure_ascii=False) + "\n")
                    seed += 1
                    n += 1
        print(f"{n} cases, seeds up to {seed - 1}")
        return
    out = args[0]
    count = int(args[1]) if len(args) > 1 else 4000
    seed = int(args[2]) if len(args) > 2 else 0
    with open(out, "w", encoding="utf-8") as f:
        # Every snippet once, then random cases.
        for n, text in enumerate(SNIPPETS):
            f.write(json.dumps({"kind": "snippet", "seed": -1 - n, "text": text, "salt": answer(text)}, ensure_ascii=False) + "\n")
        for i in range(count):
            f.write(json.dumps(case(seed * 1_000_003 + i), ensure_ascii=False) + "\n")
    print(f"{len(SNIPPETS) + count} cases")


if __name__ == "__main__":
    main()
