#!/usr/bin/env python3
"""Generate target-matcher conformance cases with real Salt's matcher functions.

Usage: python matchers_cases.py OUT.jsonl [COUNT] [SEED]

Every line of OUT.jsonl is one case:

    {"matcher": "grain", "target": "os:ubuntu", "minion_id": "web01", "grains": {...},
     "pillar": {...}, "nodegroups": {...}, "expected": true}

``matcher`` is a name ``confirm_top`` accepts (``glob``, ``compound``, ...), or
``confirm_top`` itself, in which case the case also has ``body`` (the top-file body whose
``match:`` items choose the matcher). When Salt raises, ``expected`` is false and ``raises``
holds ``"ExceptionType: message"``. The answers come from Salt's own matcher modules
(``salt.loader.matchers``), called in this one process; nothing else of Salt is executed.
``server/model/tests/matchers_conformance.rs`` replays the file against salt-analyzer.
"""

import json
import logging
import random
import sys
import warnings

logging.disable(logging.CRITICAL)
# `re` warns about patterns like `[[`; the warnings are noise here.
warnings.simplefilter("ignore")

import salt.config  # noqa: E402
import salt.loader  # noqa: E402
import salt.version  # noqa: E402

IDS = [
    "web01.example.com",
    "web02.example.com",
    "db01.example.com",
    "WEB01.example.com",
    "web10",
    "mail.example.org",
    "a",
    "x-1.y_2",
    "web01.dev.example.com",
    "ünï.example.com",
    "1",
    "web[1]",
]

IPV4 = ["127.0.0.1", "10.1.2.3", "10.1.200.7", "192.168.1.10", "172.16.0.5", "8.8.8.8"]
IPV6 = ["::1", "fe80::1", "2001:db8::5", "fe80::a:b"]


def rand_grains(r):
    pool = {
        "os": lambda: r.choice(["Ubuntu", "CentOS", "Debian", "Windows", "ubuntu"]),
        "os_family": lambda: r.choice(["Debian", "RedHat", "Windows"]),
        "osrelease": lambda: r.choice(["22.04", "9", "2019"]),
        "roles": lambda: r.sample(["web", "db", "cache", "Web", "mail"], r.randint(0, 3)),
        "num": lambda: r.choice([42, 0, -7, 8080]),
        "flag": lambda: r.choice([True, False]),
        "none": lambda: None,
        "float": lambda: r.choice([1.5, 2.0, 1e16, 0.0001]),
        "deep": lambda: {"key": r.choice(["value", "Value", "other"]), "sub": {"x": r.choice(["1", "2"])}},
        "lst": lambda: [{"a": "b"}, "plain", r.choice(["x", "y"])],
        "colon": lambda: r.choice(["a:b", "a:b:c", "x"]),
        "ipv4": lambda: r.sample(IPV4, r.randint(1, 3)),
        "ipv6": lambda: r.sample(IPV6, r.randint(1, 2)),
        "empty": lambda: {},
        "Mixed": lambda: "CamelCase",
        "path": lambda: "/srv/salt",
        "nested_list": lambda: [["a", "b"], {"k": ["v1", "v2"]}],
        "1": lambda: "numeric-key",
    }
    keys = r.sample(sorted(pool), r.randint(3, len(pool)))
    if "ipv4" not in keys and r.random() < 0.7:
        keys.append("ipv4")
    return {k: pool[k]() for k in keys}


def rand_pillar(r):
    if r.random() < 0.1:
        return {}
    pool = {
        "app": lambda: {
            "color": r.choice(["Blue", "red", "GREEN"]),
            "list": r.sample(["x", "y", "z"], r.randint(0, 3)),
            "port": r.choice([8080, 443]),
        },
        "role": lambda: r.choice(["web", "db", "Web"]),
        "users": lambda: {"alice": {"uid": 1000, "shell": "/bin/bash"}, "bob": {"uid": 1001}},
        "enabled": lambda: r.choice([True, False]),
        "tags": lambda: r.sample(["prod", "dev", "eu", "us"], r.randint(0, 4)),
        "k:v": lambda: "colon-key",
        "empty": lambda: {},
    }
    keys = r.sample(sorted(pool), r.randint(1, len(pool)))
    return {k: pool[k]() for k in keys}


def rand_nodegroups(r):
    groups = {
        "webs": "web*",
        "dbs": "db*",
        "both": "web* or db*",
        "nested": "N@webs or N@dbs",
        "nested2": "N@both and G@os:Ubuntu",
        "listed": "web01.example.com db01.example.com",
        "listform": ["web01.example.com", "or", "a"],
        "regexy": "web0?",
        "loop_a": "N@loop_b or a",
        "loop_b": "N@loop_a",
        "selfish": "N@selfish and web*",
        "bad": 5,
        "empty": "",
        "mixed": "web01.example.com db*",
        "ubuntu": "G@os:Ubuntu",
        "not_web": "not web*",
        "deep3": "N@nested2 or N@missing",
        "plainlist": ["web01.example.com", "a"],
    }
    keys = r.sample(sorted(groups), r.randint(0, len(groups)))
    return {k: groups[k] for k in keys}


def case_word(r, s):
    """Randomly change the case of a word."""
    choice = r.random()
    if choice < 0.2:
        return s.upper()
    if choice < 0.35:
        return s.capitalize()
    return s


def glob_target(r, mid):
    parts = [
        lambda: mid,
        lambda: mid[: r.randint(0, len(mid))] + "*",
        lambda: "*" + mid[r.randint(0, len(mid)) :],
        lambda: mid.replace(r.choice(mid or "a"), "?", 1),
        lambda: "web0[0-9]*",
        lambda: "web0[!1]*",
        lambda: "*.com",
        lambda: "*.org",
        lambda: mid.upper(),
        lambda: "a[",
        lambda: "[]]*",
        lambda: "web[1]",
        lambda: "web\\[1]",
        lambda: "{web,db}*",
        lambda: "*",
        lambda: "",
        lambda: "db*",
        lambda: "[a-z]*",
        lambda: "[!a-z]*",
        lambda: "*example*",
    ]
    return r.choice(parts)()


REGEXES = [
    "web",
    "example",
    ".*example",
    "WEB",
    "(?i)WEB",
    "",
    r"web01\.example\.com\Z",
    r"web\d+",
    r"^web\d+\.",
    "db|web",
    r"\w+\.example\.com$",
    r".*\.org$",
    "(",
    "[a-",
    "a{2",
    "x{,2}",
    "*",
    "(?P<x>w)(?P=x)?eb",
    r"(?=web)\w",
    r"(?<=w)eb",
    r"(?<!x)w",
    r"(?<=a|bc)x",
    "web(?i)",
    r"\S+",
    r"\W",
    r"[^.]+\.example",
    r"(web|db)0[12]",
    "a**",
    r"\bweb",
    r"web\Z",
    r".{3,}",
    r"(?x) w e b",
    r"(?s).*",
    r"[[]",
    r"\D",
    r"\1",
    r"(a)?(?(1)a|w)",
    "ünï",
    r"\u00fc",
    "(?a)\\w+",
]


def pcre_target(r, mid):
    if r.random() < 0.3:
        # A regex derived from the id.
        cut = r.randint(0, len(mid))
        return mid[:cut].replace(".", r"\.") + r.choice(["", ".*", "$", r"\Z", "+"])
    return r.choice(REGEXES)


def list_target(r, mid):
    others = ["a", "b", "db01.example.com", "web*", mid.upper()]
    items = r.sample(others, r.randint(0, 3))
    if r.random() < 0.6:
        items.insert(r.randint(0, len(items)), mid)
    sep = r.choice([",", ",", ", ", " ,"])
    return sep.join(items)


def paths(data, prefix=""):
    """Every key path into nested dicts and lists, with the value found there."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            p = f"{prefix}{k}"
            out.append((p, v))
            out.extend(paths(v, p + ":"))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.append((f"{prefix}{i}", v))
            out.extend(paths(v, f"{prefix}{i}:"))
    return out


def value_pattern(r, value, mode):
    s = str(value)
    if isinstance(value, list) and value and r.random() < 0.7:
        s = str(r.choice(value))
    if isinstance(value, dict) and value and r.random() < 0.7:
        s = r.choice(list(value))
    s = case_word(r, s)
    if mode == "glob":
        options = [s, s[: max(1, len(s) // 2)] + "*", "*", "?" + s[1:], "x*", s + "x", "[a-z]*", "*:" + s]
    elif mode == "regex":
        options = [s, "^" + s[:2], s[:2], ".*" + s[-2:], "(", r"\S+", r"\w+", s + "$", "x", r"[a-z]+\Z", r"\d+"]
    else:
        options = [s, s.lower(), s + "*", "x"]
    return r.choice(options)


def subdict_target(r, data, mode, delim=":"):
    candidates = paths(data)
    roll = r.random()
    if not candidates or roll < 0.1:
        key = r.choice(["missing", "nope:deeper", "*", "roles", "deep:missing"])
        value = "x"
    else:
        key, value = r.choice(candidates)
    if roll > 0.95:
        return key  # no delimiter at all
    pattern = value_pattern(r, value, mode)
    if r.random() < 0.1:
        return "*" + delim + pattern
    return key.replace(":", delim) + delim + pattern


def ipcidr_target(r, grains):
    pool = [
        "10.1.0.0/16",
        "10.1.2.3",
        "10.1.2.3/16",
        "10.0.0.0/8",
        "::/0",
        "::1",
        "fe80::/10",
        "garbage",
        "192.168.0.0/255.255.0.0",
        "192.168.1.10",
        "0.0.0.0/0",
        "10.1.2.3/32",
        "010.1.2.3",
        "8.8.8.8/33",
        "2001:db8::/32",
        "2001:DB8::5",
        "127.0.0.0/0.255.255.255",
        "",
    ]
    pool.extend(grains.get("ipv4", []) if isinstance(grains.get("ipv4"), list) else [])
    return r.choice(pool)


ENGINES = "GPIJLSENRTMX"


def compound_term(r, ctx):
    mid, grains, pillar, nodegroups = ctx
    roll = r.random()
    if roll < 0.2:
        return glob_target(r, mid) or "web*"
    letter = r.choice(ENGINES)
    if letter in "GP":
        mode = "glob" if letter == "G" else "regex"
        if r.random() < 0.15:
            delim = r.choice("|;,")
            return f"{letter}{delim}@" + subdict_target(r, grains, mode, delim)
        return f"{letter}@" + subdict_target(r, grains, mode)
    if letter in "IJ":
        mode = "glob" if letter == "I" else "regex"
        if r.random() < 0.15:
            delim = r.choice("|;")
            return f"{letter}{delim}@" + subdict_target(r, pillar, mode, delim)
        return f"{letter}@" + subdict_target(r, pillar, mode)
    if letter == "L":
        return "L@" + list_target(r, mid).replace(" ", "")
    if letter == "S":
        return "S@" + (ipcidr_target(r, grains) or "10.0.0.0/8")
    if letter == "E":
        pat = pcre_target(r, mid).replace(" ", "")
        return "E@" + (pat or "web")
    if letter == "N":
        names = list(nodegroups) + ["nosuch"]
        return "N@" + r.choice(names)
    if letter == "R":
        return "R@%cluster"
    if letter == "T":
        return "T@vcf_host"
    if letter == "M":
        return "M@" + r.choice([mid, "other"])
    return "X@foo"


def compound_target(r, ctx, depth=0):
    n = r.randint(1, 4)
    words = []
    for i in range(n):
        if i > 0:
            roll = r.random()
            if roll < 0.45:
                words.append("and")
            elif roll < 0.85:
                words.append("or")
            elif roll < 0.95:
                words.append(r.choice(["and not", "not"]))
            # else: two adjacent terms, which is invalid
        elif r.random() < 0.15:
            words.append("not")
        if depth < 2 and r.random() < 0.15:
            inner = compound_target(r, ctx, depth + 1)
            if r.random() < 0.85:
                words.append(f"( {inner} )")
            else:
                words.append(f"({inner})")
        else:
            words.append(compound_term(r, ctx))
    expr = " ".join(words)
    roll = r.random()
    if roll < 0.04:
        expr = "and " + expr
    elif roll < 0.08:
        expr = expr + " or"
    elif roll < 0.1:
        expr = "( " + expr
    elif roll < 0.12:
        expr = expr + " )"
    elif roll < 0.14:
        expr = "( and " + expr + " )"
    elif roll < 0.16:
        expr = expr + " ( )"
    return expr


def target_for(r, matcher, ctx):
    mid, grains, pillar, nodegroups = ctx
    if matcher == "glob":
        return glob_target(r, mid)
    if matcher == "pcre":
        return pcre_target(r, mid)
    if matcher == "list":
        if r.random() < 0.2:
            return r.sample([mid, "a", "b", "web*"], r.randint(0, 3))
        return list_target(r, mid)
    if matcher in ("grain", "grain_pcre"):
        return subdict_target(r, grains, "regex" if matcher == "grain_pcre" else "glob")
    if matcher in ("pillar", "pillar_pcre", "pillar_exact"):
        mode = {"pillar": "glob", "pillar_pcre": "regex", "pillar_exact": "exact"}[matcher]
        return subdict_target(r, pillar, mode)
    if matcher == "ipcidr":
        return ipcidr_target(r, grains)
    if matcher == "nodegroup":
        return r.choice(list(nodegroups) + ["nosuch"])
    if matcher == "data":
        return r.choice(["foo", "foo:bar", "a:b:c"])
    if matcher == "range":
        return "%cluster"
    if matcher == "managing_minion":
        return r.choice([mid, "other"])
    if matcher == "resource":
        return r.choice(["vcf_host", "vcf_host:esxi-01"])
    if r.random() < 0.1:
        return compound_target(r, ctx).split()
    return compound_target(r, ctx)


# Adversarial pieces: random token soups that probe syntax corners.
GLOB_CHARS = "ab*?[]!-^\\.{},Ae0/:"
REGEX_TOKENS = [
    "a", "b", "e", "w", ".", "*", "+", "?", "(", ")", "[", "]", "^", "$", "|", r"\d", r"\w",
    r"\s", r"\S", r"\b", r"\B", r"\Z", r"\A", "{2}", "{1,3}", "{,2}", "{", "}", "(?:", "(?=",
    "(?!", "(?<=", "(?<!", "(?i)", "\\", "-", r"\1", "(?P<n>", "(?P=n)", "x", "ü", "[^", "]*",
    r"\.", "*?", "+?", "(?s)", "(?m)", "(?x)", " ", "#", r"\x41", r"\0", r"\n", "[a-z]", "[z-a]",
]
CIDR_CHARS = "0123456789.:/abcdef%"
COMPOUND_WORDS = [
    "and", "or", "not", "(", ")", "web*", "db*", "*", "G@os:Ubuntu", "G@roles:w*", "P@os:^u",
    "I@app:color:blue", "J@role:^w", "L@a,web01.example.com", "E@web", "E@(", "S@10.0.0.0/8",
    "S@bad", "N@both", "N@nested", "N@nosuch", "N@loop_a", "N@listform", "N@bad", "R@x", "X@y",
    "G|@deep|key|value", "G@", "N@", "(web*", "db*)", "T@vcf_host", "M@a", "G@@x", "L@", "not(",
]


def fuzz_glob(r):
    return "".join(r.choice(GLOB_CHARS) for _ in range(r.randint(0, 8)))


def fuzz_regex(r):
    return "".join(r.choice(REGEX_TOKENS) for _ in range(r.randint(0, 6)))


def fuzz_cidr(r):
    return "".join(r.choice(CIDR_CHARS) for _ in range(r.randint(0, 14)))


def fuzz_case(r):
    """One adversarial case: (matcher, target, minion_id, grains, pillar, nodegroups)."""
    mid = r.choice(IDS + [fuzz_glob(r) or "a", "web01.example.com"])
    grains = rand_grains(r)
    pillar = rand_pillar(r)
    nodegroups = rand_nodegroups(r)
    kind = r.randrange(8)
    if kind == 0:
        return "glob", fuzz_glob(r), mid, grains, pillar, nodegroups
    if kind == 1:
        return "pcre", fuzz_regex(r), mid, grains, pillar, nodegroups
    if kind == 2:
        matcher = r.choice(["grain", "grain_pcre", "pillar", "pillar_pcre", "pillar_exact"])
        data = grains if matcher.startswith("grain") else pillar
        key = r.choice([k for k, _ in paths(data)] + ["x", "*"]) if paths(data) else "x"
        pat = fuzz_regex(r) if "pcre" in matcher else fuzz_glob(r)
        return matcher, f"{key}:{pat}", mid, grains, pillar, nodegroups
    if kind == 3:
        if r.random() < 0.3:
            grains["ipv4"] = r.choice([["10.0.0.1", "bogus"], "10.0.0.10", ["bogus", "10.0.0.1"], [167772161], {"10.0.0.1": 1}])
        return "ipcidr", r.choice([fuzz_cidr(r), "10.0.0.0/8", "10.0.0.1", "::/0"]), mid, grains, pillar, nodegroups
    if kind == 4:
        words = [r.choice(COMPOUND_WORDS) for _ in range(r.randint(0, 7))]
        return "compound", " ".join(words), mid, grains, pillar, nodegroups
    if kind == 5:
        nodegroups = dict(nodegroups)
        nodegroups["odd"] = r.choice([["web*", 5], ["a", None, "or", "b"], [["x"]], ["a", 1], "N@odd2 N@odd2", ["N@both", "and", 7]])
        nodegroups["odd2"] = r.choice(["web* or a", "a b", "", "N@odd"])
        if r.random() < 0.5:
            return "nodegroup", r.choice(["odd", "odd2"]), mid, grains, pillar, nodegroups
        return "compound", r.choice(["N@odd", "N@odd2 and web*", "web* and N@odd"]), mid, grains, pillar, nodegroups
    if kind == 6:
        matcher = r.choice(MATCHERS)
        target = r.choice([1, 0, True, None, 1.5, ["a", mid], [":"], {"a": 1}, [], ""])
        return matcher, target, mid, grains, pillar, nodegroups
    return "list", r.choice([fuzz_glob(r), ",".join([mid, fuzz_glob(r)]), f",{mid},"]), mid, grains, pillar, nodegroups


MATCHERS = [
    "glob",
    "pcre",
    "list",
    "grain",
    "grain_pcre",
    "pillar",
    "pillar_pcre",
    "pillar_exact",
    "ipcidr",
    "compound",
    "nodegroup",
    "data",
    "range",
    "managing_minion",
    "resource",
]

WEIGHTS = [8, 8, 5, 10, 8, 7, 6, 5, 6, 30, 8, 1, 1, 1, 1]

# The share of cases built from random token soups rather than plausible targets.
FUZZ_SHARE = 0.3


def main():
    out_path = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 800
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 3008
    r = random.Random(seed)

    base_opts = salt.config.minion_config(None)
    base_opts["ext_pillar"] = []
    base_opts["file_client"] = "local"

    written = 0
    with open(out_path, "w", encoding="utf-8") as fh:
        while written < count:
            if r.random() < FUZZ_SHARE:
                matcher, target, mid, grains, pillar, nodegroups = fuzz_case(r)
                top = False
            else:
                mid = r.choice(IDS)
                grains = rand_grains(r)
                pillar = rand_pillar(r)
                nodegroups = rand_nodegroups(r)
                ctx = (mid, grains, pillar, nodegroups)
                top = r.random() < 0.15
                matcher = r.choices(MATCHERS, WEIGHTS)[0]
                target = target_for(r, matcher, ctx)
            case = {
                "matcher": "confirm_top" if top else matcher,
                "target": target,
                "minion_id": mid,
                "grains": grains,
                "pillar": pillar,
                "nodegroups": nodegroups,
            }
            # A fresh loader per case: `confirm_top` builds a loader of its own, after which
            # the modules' `__opts__` no longer follows changes to an opts dict we reuse.
            opts = dict(base_opts)
            opts["id"] = mid
            opts["grains"] = grains
            opts["pillar"] = pillar
            opts["nodegroups"] = nodegroups
            matchers = salt.loader.matchers(opts)
            try:
                if top:
                    body = ["some.sls"]
                    if matcher != "compound" or r.random() < 0.3:
                        body.append({"match": matcher})
                    if r.random() < 0.2:
                        body.insert(0, {"match": r.choice(MATCHERS)})
                    if isinstance(target, list):
                        target = " ".join(target)
                        case["target"] = target
                    if r.random() < 0.03:
                        target = r.choice([1, True, None])
                        case["target"] = target
                    case["body"] = body
                    result = matchers["confirm_top.confirm_top"](target, body, nodegroups)
                elif matcher == "nodegroup":
                    result = matchers["nodegroup_match.match"](target, nodegroups)
                else:
                    result = matchers[f"{matcher}_match.match"](target)
                case["expected"] = bool(result)
            except Exception as exc:  # Salt raising is part of the behaviour under test.
                case["expected"] = False
                case["raises"] = f"{type(exc).__name__}: {exc}"
            fh.write(json.dumps(case, ensure_ascii=False) + "\n")
            written += 1
    print(f"wrote {written} cases from Salt {salt.version.__version__} to {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
