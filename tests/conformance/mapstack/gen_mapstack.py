#!/usr/bin/env python3
"""Generate random saltext-formula mapstack cases: `salt["map.data"](tpldir)` over random
`parameters/` trees, grains and pillar, `map_jinja.yaml` sources (chains, alternate delimiters,
SUB, P@, M@, U@, bare names) and random strategies and `merge_lists` in the layers.

Usage: python3 gen_mapstack.py [--flavour saltext|jinja] --seed N --count N --out DIR

With `--flavour jinja` the cases are template-formula formulas instead: srv/<tplroot>/ gets our
own map.jinja, libmapstack.jinja and libmatchers.jinja (jinja/, written from the rules in
docs/salt/mapstack.md §2, i.e. template-formula's TEMPLATE/libmapstack.jinja) and <tpldir>/mapdata.sls, which imports `mapdata` from map.jinja and dumps
it; case.json names that SLS, which the Salt side renders with state.show_sls.

Each case is DIR/case-NNNN/ with case.json ({"tpldir": ...}), etc/minion (id, static grains
and pillar, file_roots at srv/, a cache under var/) and srv/ (the formula's parameters/, the
global parameters/). Most cases are valid; some make Salt raise (a bad source, a layer with
extra keys, an empty layer file, a merge of a non-dict), and then both sides must fail.
"""

import argparse
import json
import os
import random

STRATEGIES = ["smart", "recurse", "overwrite", "list", "aggregate", "none", "bogus"]
KEYS = ["pkg", "svc", "conf", "lst", "opts", "port", "variant", "name"]


def scalar(r):
    return r.choice([1, 2, 3, "a", "b", "x y", True, False, None, 0, "", 1.5, "80", "yes"])


def value(r, depth=0):
    roll = r.random()
    if depth < 3 and roll < 0.35:
        return {r.choice(KEYS): value(r, depth + 1) for _ in range(r.randint(0, 3))}
    if roll < 0.55:
        return [r.choice([1, 2, 3, "a", "b", {"n": 1}]) for _ in range(r.randint(0, 3))]
    return scalar(r)


def values(r):
    out = {r.choice(KEYS): value(r) for _ in range(r.randint(1, 4))}
    if r.random() < 0.3:
        out["variant"] = r.choice(["foo", "bar", "baz"])
    if r.random() < 0.2:
        out["lst"] = [r.choice([1, 2, 3]) for _ in range(r.randint(1, 3))]
    return out


def merge_meta(r, data):
    """Random `strategy` / `merge_lists` next to `values` (or inside a looked-up dict)."""
    if r.random() < 0.35:
        data["strategy"] = r.choice(STRATEGIES)
    if r.random() < 0.35:
        data["merge_lists"] = r.choice([True, False, "false", "true", 0, 1])
    return data


def jinja_layer_text(r):
    """A layer file of the Jinja flavour: extra keys are ignored and an empty file is skipped;
    templates see `tplroot`, the minion's data and the macro's `stack`."""
    roll = r.random()
    if roll < 0.04:
        return ""
    if roll < 0.08:
        return json.dumps({"values": values(r), "other": 1})
    if roll < 0.1:
        return json.dumps(merge_meta(r, {}))
    if roll < 0.11:
        return json.dumps([1, 2])
    data = merge_meta(r, {"values": values(r)})
    if data.get("strategy") == "aggregate" and r.random() < 0.8:
        # An `aggregate` layer makes the Jinja flavour fail (the merged Map dumps as NULL);
        # keep most cases about values.
        data["strategy"] = "recurse"
    if r.random() < 0.15:
        data["values"]["from_jinja"] = "@@J@@"
        text = json.dumps(data, indent=1)
        jinja = "{{ tplroot }}-{{ grains['id'] }}-{{ stack['values'] | length }}"
        return "{#- a layer template #}\n" + text.replace("@@J@@", jinja)
    return json.dumps(data, indent=1)


def layer_text(r, tplroot):
    """A layer file: mostly `values:` with optional strategy keys; sometimes Jinja, sometimes
    something Salt rejects."""
    roll = r.random()
    if roll < 0.015:
        return ""  # TypeError: not a mapping
    if roll < 0.03:
        return json.dumps({"values": values(r), "other": 1})  # TypeError: unexpected keyword
    if roll < 0.05:
        return json.dumps(merge_meta(r, {}))  # no `values`: skipped
    data = merge_meta(r, {"values": values(r)})
    if r.random() < 0.15:
        # Jinja that reads the context cp.get_template gives a layer.
        data["values"]["from_jinja"] = "@@J@@"
        text = json.dumps(data, indent=1)
        jinja = "{{ tplroot }}-{{ v }}-{{ tpldir }}-{{ grains['id'] }}"
        return "{%- set v = mapdata.get('variant', 'none') %}{%- if v is not string %}{% set v = 'other' %}{% endif %}\n" + text.replace("@@J@@", jinja)
    text = json.dumps(data, indent=1)
    return text


OSES = [
    ("Debian", "Debian", "Debian-12", "amd64"),
    ("Debian", "Ubuntu", "Ubuntu-22.04", "amd64"),
    ("RedHat", "Rocky Linux", "Rocky Linux-9", "x86_64"),
    ("RedHat", "CentOS", "CentOS-7", "x86_64"),
    ("Suse", "SUSE", "SUSE-15", "aarch64"),
]


def profile(r, tplroot, mid):
    fam, os_, finger, arch = r.choice(OSES)
    roles = r.sample(["web", "db", "cache", "yaml", "a.b"], r.randint(0, 3))
    grains = {
        "id": mid,
        "os_family": fam,
        "os": os_,
        "osfinger": finger,
        "osarch": arch,
        "dns": {"domain": r.choice(["example.net", "corp.local"])},
        "selinux": {"enabled": r.choice([True, False])},
        "num": r.choice([7, 0]),
        "tags": {t: 1 for t in r.sample(["blue", "green", "red"], r.randint(0, 2))},
    }
    if r.random() < 0.5:
        grains["roles"] = roles
    if r.random() < 0.2:
        del grains["osfinger"]
    pillar = {"roles": r.sample(["web", "db", "cache"], r.randint(0, 3)), "zone": r.choice(["eu", "us"])}
    if r.random() < 0.2:
        pillar["roles"] = {"web": {"x": 1}, "strategy": "list"}
    if r.random() < 0.8:
        cfg = merge_meta(r, values(r))
        if r.random() < 0.6:
            cfg["lookup"] = merge_meta(r, values(r))
        if r.random() < 0.5:
            cfg["variants"] = {v: values(r) for v in ["foo", "bar"]}
        if r.random() < 0.2:
            cfg["extra"] = r.choice([values(r), "scalar", [1, 2]])
        pillar[tplroot] = cfg
    if r.random() < 0.3:
        pillar["master"] = {"zone": "master-zone"}
    return grains, pillar


SOURCES = [
    "Y!G@os_family",
    "Y:G@os",
    "Y!G@osarch",
    "Y!G@osfinger",
    "Y!G@id",
    "Y!I@roles",
    "Y!G@roles",
    "roles",
    "Y!C@zone",
    "Y!G@os_family|I@roles",
    "Y!G@os_family|C@zone",
    "Y!G::!@dns!domain",
    "Y:G:!@dns!domain",
    "Y!G@dns:domain",
    "Y:G@dns!domain",
    "Y!G@selinux:enabled",
    "Y!G@num",
    "Y!G@tags",
    "C@{t}",
    "C@{t}:lookup",
    "C:SUB@{t}:lookup",
    "C:SUB@{t}:extra",
    "I:SUB@{t}",
    "C@{t}:extra",
    "I@{t}:lookup",
    "G@tags",
    "G@dns",
    "C@{t}:variants|M@variant",
    "C@{t}:variants|I@roles",
    "Y!P@static",
    "Y!P@static|G@os_family",
    "Y!P@extra.yaml",
    "extra.yaml",
    "Y!M@variant",
    "Y:M@variant",
    "U@foo",
    "Y!I@nosuch",
    "I@nosuch",
    "Y!G@os|roles",
    "Y!P@defaults.yaml|G@os",
    "X@bad",
    "defaults.yaml",
    "Y!P@defaults.yaml",
    "G@os_family",
]
RARE = {"Y!G@os|roles", "Y!P@defaults.yaml|G@os", "X@bad", "G@os_family", "C:SUB@{t}:extra", "C@{t}:extra"}


JINJA_SOURCES = [
    "Y:G@os_family",
    "Y:G@os",
    "Y:G@osarch",
    "Y:G@osfinger",
    "Y:G@id",
    "Y:I@roles",
    "Y:G@roles",
    "roles",
    "Y:C@zone",
    "Y@zone",
    "Y:C::@zone",
    "Y!G@os_family",
    "Y!G@os_family|C@roles",
    "Y:G:!@dns!domain",
    "Y:G@dns:domain",
    "Y:G@selinux:enabled",
    "Y:G@num",
    "Y:G@tags",
    "Y:G@nosuch",
    "static/thing.yaml",
    "extra.yaml",
    "C@{t}",
    "C@{t}:lookup",
    "C:SUB@{t}:lookup",
    "C:SUB@{t}:extra",
    "I:SUB@{t}",
    "I@{t}:lookup",
    "G@tags",
    "G@dns",
    "C@{t}:extra",
    "C:X:!@{t}!lookup",
    "I@nosuch",
    "defaults.yaml",
    "Y:Q@bad",
]
JINJA_RARE = {"Y:Q@bad", "C:SUB@{t}:extra", "C@{t}:extra", "G@tags"}


def pick_sources(r, tplroot, flavour="saltext"):
    out = []
    pool, rare = (JINJA_SOURCES, JINJA_RARE) if flavour == "jinja" else (SOURCES, RARE)
    for _ in range(r.randint(1, 7)):
        s = r.choice(pool)
        if s in rare and r.random() < 0.7:
            continue
        out.append(s.replace("{t}", tplroot))
    return out


def candidate_dirs(grains, pillar, tplroot):
    """Relative paths (without extension) that sources may look for."""
    fam, os_, arch, mid = grains["os_family"], grains["os"], grains["osarch"], grains["id"]
    roles = pillar.get("roles") or []
    roles = list(roles) if not isinstance(roles, dict) else list(roles)
    groles = grains.get("roles", [])
    out = [
        f"os_family/{fam}",
        f"os/{os_}",
        f"osarch/{arch}",
        f"osfinger/{grains.get('osfinger', 'x')}",
        f"id/{mid}",
        f"zone/{pillar['zone']}",
        f"dns!domain/{grains['dns']['domain']}",
        f"dns:domain/{grains['dns']['domain']}",
        f"dns!domain",
        f"selinux:enabled/{grains['selinux']['enabled']}",
        f"num/{grains['num']}",
        "static",
        f"static/os_family/{fam}",
        "extra",
        "variant/foo",
        "variant/bar",
        "nosuch",
    ]
    out += [f"roles/{x}" for x in roles + groles]
    out += [f"os_family/{fam}/roles/{x}" for x in roles]
    out += [f"os_family/{fam}/zone/{pillar['zone']}"]
    out += [f"tags/{t}" for t in grains["tags"]]
    out += ["static/thing", f"zone/{pillar['zone']}", "nosuch", "dns!domain", f"os_family|C/{fam}", "os_family|C"]
    return out


JINJA_LIBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jinja")


def jinja_literal(v):
    """`v` as a Jinja expression (`none`/`true`/`false`, not JSON's `null`)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {jinja_literal(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(jinja_literal(x) for x in v) + "]"
    return json.dumps(v)


def post_map_text(r):
    """A `post-map.jinja` that changes `mapdata` in the ways formulas do: adds and replaces
    keys, updates nested mappings, drops keys, depending on grains and on values already there."""
    lines = []
    for _ in range(r.randint(1, 4)):
        k = r.choice(KEYS)
        roll = r.random()
        if roll < 0.3:
            lines.append(f"{{%- do mapdata.update({{{json.dumps(k)}: {jinja_literal(value(r))}}}) %}}")
        elif roll < 0.5:
            lines.append(f"{{%- if mapdata.get({json.dumps(k)}) is mapping %}}{{%- do mapdata[{json.dumps(k)}].update({{\"added\": {jinja_literal(scalar(r))}}}) %}}{{%- endif %}}")
        elif roll < 0.65:
            lines.append(f"{{%- set _gone = mapdata.pop({json.dumps(k)}, None) %}}")
        elif roll < 0.85:
            lines.append(
                f"{{%- if grains.get('os_family') == {json.dumps(r.choice(['Debian', 'RedHat', 'Suse']))} %}}"
                f"{{%- do mapdata.update({{'family_' ~ grains['os_family']: mapdata.get({json.dumps(k)}, 'none')}}) %}}{{%- endif %}}"
            )
        else:
            lines.append(f"{{%- do mapdata.update({{'sources_seen': mapdata.map_jinja.sources | length}}) %}}")
    return "\n".join(lines) + "\n"


def gen_case(r, case_dir, index, flavour="saltext"):
    tplroot = r.choice(["tpl", "app", "webfmt"])
    tpldir = tplroot if r.random() < 0.7 else f"{tplroot}/sub"
    mid = f"m{index}"
    grains, pillar = profile(r, tplroot, mid)
    jinja = flavour == "jinja"
    if jinja and isinstance(pillar.get(tplroot), dict) and r.random() < 0.3:
        # template-formula reads `<tplroot>:strategy` (config.get's merge) and `:merge_lists`.
        pillar[tplroot][r.choice(["strategy", "merge_lists"])] = r.choice(["recurse", "overwrite", True, "true", False])
    layer = (lambda r, t: jinja_layer_text(r)) if jinja else layer_text
    srv = os.path.join(case_dir, "srv")
    files = {}
    pdir = f"{tplroot}/parameters"
    if r.random() < 0.95:
        files[f"{pdir}/defaults.yaml"] = json.dumps(merge_meta(r, {"values": values(r)}))
    if r.random() < 0.1:
        files[f"{pdir}/defaults.yaml.jinja"] = layer(r, tplroot)
    # map_jinja.yaml: global and/or per formula.
    for where in ["parameters", pdir]:
        if r.random() < 0.4:
            meta = {"values": {"sources": pick_sources(r, tplroot, flavour)}}
            if r.random() < 0.3:
                meta["merge_lists"] = True
            if r.random() < 0.2:
                meta["strategy"] = r.choice(["recurse", "overwrite"])
            v = meta["values"]
            if jinja:
                if r.random() < 0.2:
                    v["other_setting"] = r.choice([1, "x", [1]])
                files[f"{where}/map_jinja.yaml"] = json.dumps(meta, indent=1)
                continue
            if r.random() < 0.3:
                v["default_merge_strategy"] = r.choice(STRATEGIES + [None])
            if r.random() < 0.3:
                v["default_merge_lists"] = r.choice([True, False, "false", None])
            if r.random() < 0.2:
                v["config_get_strategy"] = r.choice(["recurse", "overwrite", "bogus"])
            if r.random() < 0.15:
                v["parameter_dirs"] = r.choice([[pdir, "parameters"], ["parameters"], None, [f"{pdir}/", f"/{pdir}"]])
            if r.random() < 0.1:
                v["post_map"] = False
            files[f"{where}/map_jinja.yaml"] = json.dumps(meta, indent=1)
    dirs = candidate_dirs(grains, pillar, tplroot)
    for rel in dirs:
        for base in [pdir, "parameters"]:
            if r.random() < (0.45 if base == pdir else 0.1):
                ext = r.choice([".yaml", ".yaml", ".yaml", ".yaml.jinja"])
                files[f"{base}/{rel}{ext}"] = layer(r, tplroot)
    if r.random() < 0.3:
        files[f"{pdir}/extra.yaml"] = layer(r, tplroot)
    meta = {"tpldir": tpldir}
    if jinja:
        for name in ["map.jinja", "libmapstack.jinja", "libmatchers.jinja"]:
            with open(os.path.join(JINJA_LIBS, name), encoding="utf-8") as fh:
                files[f"{tplroot}/{name}"] = fh.read()
        files[f"{tpldir}/mapdata.sls"] = (
            '{%- set tplroot = tpldir.split("/")[0] %}\n'
            '{%- from tplroot ~ "/map.jinja" import mapdata with context %}\n'
            "mapdata: {{ mapdata | json(sort_keys=False) }}\n"
        )
        if r.random() < 0.35:
            files[f"{tplroot}/post-map.jinja"] = post_map_text(r)
        meta = {"tpldir": tpldir, "sls": f"{tpldir}/mapdata.sls", "implementation": "jinja"}
    for rel, text in files.items():
        path = os.path.join(srv, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    os.makedirs(os.path.join(case_dir, "etc"), exist_ok=True)
    minion = {
        "id": mid,
        "file_client": "local",
        "file_roots": {"base": [srv]},
        "pillar_roots": {"base": [os.path.join(case_dir, "pillar")]},
        "cachedir": os.path.join(case_dir, "var", "cache"),
        "pki_dir": os.path.join(case_dir, "var", "pki"),
        "log_file": os.path.join(case_dir, "var", "log"),
        "grains": grains,
        "pillar": pillar,
    }
    with open(os.path.join(case_dir, "etc", "minion"), "w", encoding="utf-8") as fh:
        json.dump(minion, fh, indent=1)
    with open(os.path.join(case_dir, "case.json"), "w", encoding="utf-8") as fh:
        json.dump(meta, fh)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--out", required=True)
    ap.add_argument("--flavour", choices=["saltext", "jinja"], default="saltext")
    a = ap.parse_args()
    r = random.Random(a.seed)
    for i in range(a.count):
        d = os.path.join(a.out, f"case-{i:04d}")
        os.makedirs(d, exist_ok=True)
        gen_case(r, d, i, a.flavour)


if __name__ == "__main__":
    main()
