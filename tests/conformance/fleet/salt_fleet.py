#!/usr/bin/env python3
"""Fleet conformance, the Salt side and the comparison, in one Python process.

Usage: PYTHON salt_fleet.py --seed N --count N --out DIR --bin BIN

Generates a fleet of COUNT minions whose grains are shaped like this machine's own
`grains.items` (Salt's grains loader, run once), with random id, fqdn, ipv4, OS family, roles
and extra values of every type, and a random pillar each. Salt writes them as a master does:

* DIR/c3008: `salt.cache.factory(opts).store("grains", id, ...)` and `store("pillar", id, ...)`
  (Salt 3008's `localfs` banks `grains/<id>.p`, `pillar/<id>.p`); some minions without a pillar;
  plus one entry that is not msgpack;
* DIR/c3007: `store("minions/<id>", "data", {"grains": ..., "pillar": ...})`, the Salt <= 3007
  layout `minions/<id>/data.p`, written by the same cache;
* DIR/static.json and DIR/stream.json: Salt's json outputter over `{id: grains}` (what
  `salt '*' grains.items --out=json --static` prints) and over each minion alone, one after the
  other (without `--static`), with a minion that did not return;
* DIR/jsondir/<id>.json: `{"local": grains}`, as `salt-call --local grains.items --out=json`.

Salt reads each back (`cache.fetch`, `json.loads`), and `BIN fleet --fleet SRC --format json`
must give the same grains and pillar per minion; `BIN pillar --fleet` (no pillar_roots) must
print the cached pillar.

Then what the fleet is for: a top file targeting those grains (grain, glob, pcre, list,
ipcidr, compound), and `BIN top --fleet DIR/c3008 --format json` must map each minion to what
`salt-call --local state.show_top` prints with that minion's grains (top_driver.py's
machinery: one SMinion per minion, in this process); `lowstate --fleet` likewise for
`state.show_lowstate` on the first TOPS_LOWSTATE minions. Prints `N passed, N failed` last.
"""

import argparse
import copy
import json
import logging
import os
import random
import shutil
import string
import subprocess
import sys

FAMILIES = [
    ("Debian", "Debian", "12"),
    ("Ubuntu", "Debian", "22.04"),
    ("CentOS Stream", "RedHat", "9"),
    ("SUSE", "Suse", "15"),
    ("Windows", "Windows", "2022Server"),
]


def rand_value(r, depth=0):
    kinds = ["str", "int", "float", "bool", "none", "uni", "list", "dict"] if depth < 3 else ["str", "int", "bool"]
    k = r.choice(kinds)
    if k == "str":
        return "".join(r.choice(string.ascii_letters + " -_.:/") for _ in range(r.randint(0, 12)))
    if k == "int":
        return r.choice([0, -1, r.randint(-(2**40), 2**40), 2**63 - 1])
    if k == "float":
        return r.choice([0.5, -2.25, 1e-3, 12345.678])
    if k == "bool":
        return r.random() < 0.5
    if k == "none":
        return None
    if k == "uni":
        return r.choice(["ß ℝ 💣", "é", "日本語"])
    if k == "list":
        return [rand_value(r, depth + 1) for _ in range(r.randint(0, 4))]
    return {rand_key(r): rand_value(r, depth + 1) for _ in range(r.randint(0, 4))}


def rand_key(r):
    return r.choice(["a", "b", "c.d", "with space", "ü", "x-y"]) + str(r.randint(0, 99))


def make_fleet(r, count, host):
    fleet = {}
    for i in range(count):
        name, family, release = FAMILIES[i % len(FAMILIES)]
        roles = sorted(r.sample(["web", "db", "cache", "lb", "mon", "mail", "dns"], r.randint(0, 3)))
        mid = f"{(roles or ['node'])[0]}{i:04d}.{r.choice(['dc1', 'dc2'])}.example.com"
        g = copy.deepcopy(host)
        g.update(
            {
                "id": mid,
                "fqdn": mid,
                "host": mid.split(".")[0],
                "nodename": mid.split(".")[0],
                "ipv4": ["127.0.0.1", f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"],
                "os": name,
                "os_family": family,
                "osrelease": release,
                "roles": roles,
                "num_cpus": r.choice([1, 2, 4, 16]),
                "mem_total": r.randint(512, 262144),
                "extra": {rand_key(r): rand_value(r) for _ in range(r.randint(0, 5))},
            }
        )
        pillar = None if r.random() < 0.2 else {rand_key(r): rand_value(r) for _ in range(r.randint(0, 6))}
        fleet[mid] = (g, pillar)
    return fleet


def normal(v):
    """A value as JSON carries it (what both sides print)."""
    return json.loads(json.dumps(v, default=repr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    logging.disable(logging.CRITICAL)

    import salt.cache
    import salt.config
    import salt.loader
    import salt.output

    r = random.Random(a.seed)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    minion_opts = salt.config.minion_config(None)
    minion_opts["cachedir"] = os.path.join(a.out, "minion-cache")
    host = normal(salt.loader.grains(minion_opts))
    fleet = make_fleet(r, a.count, host)

    def master_cache(d):
        opts = copy.deepcopy(salt.config.DEFAULT_MASTER_OPTS)
        opts["cachedir"] = d
        return salt.cache.factory(opts)

    c8 = master_cache(os.path.join(a.out, "c3008"))
    c7 = master_cache(os.path.join(a.out, "c3007"))
    for mid, (g, p) in fleet.items():
        c8.store("grains", mid, g)
        if p is not None:
            c8.store("pillar", mid, p)
        c7.store(f"minions/{mid}", "data", {"grains": g, "pillar": p if p is not None else {}})
    with open(os.path.join(a.out, "c3008", "grains", "broken.p"), "wb") as f:
        f.write(b"\xc1 this is not msgpack")

    out_opts = dict(minion_opts)
    out_opts["color"] = False
    out_opts["output_indent"] = 4
    grains_only = {mid: g for mid, (g, _) in fleet.items()}
    with open(os.path.join(a.out, "static.json"), "w") as f:
        f.write(salt.output.string_format(grains_only, "json", out_opts) + "\n")
    with open(os.path.join(a.out, "stream.json"), "w") as f:
        for mid, g in grains_only.items():
            f.write(salt.output.string_format({mid: g}, "json", out_opts) + "\n")
        f.write(salt.output.string_format({"gone.example.com": "Minion did not return. [No response]"}, "json", out_opts) + "\n")
    os.makedirs(os.path.join(a.out, "jsondir"))
    for mid, g in grains_only.items():
        with open(os.path.join(a.out, "jsondir", f"{mid}.json"), "w") as f:
            f.write(salt.output.string_format({"local": g}, "json", out_opts) + "\n")

    # What Salt reads back.
    expected = {"c3008": {}, "c3007": {}, "static.json": {}, "stream.json": {}, "jsondir": {}}
    for mid in fleet:
        expected["c3008"][mid] = (normal(c8.fetch("grains", mid)), normal(c8.fetch("pillar", mid)))
        data = c7.fetch(f"minions/{mid}", "data")
        expected["c3007"][mid] = (normal(data["grains"]), normal(data["pillar"]))
    with open(os.path.join(a.out, "static.json")) as f:
        for mid, g in json.load(f).items():
            expected["static.json"][mid] = (g, {})
    with open(os.path.join(a.out, "stream.json")) as f:
        dec, text, at = json.JSONDecoder(), f.read(), 0
        while text[at:].strip():
            while text[at].isspace():
                at += 1
            obj, at = dec.raw_decode(text, at)
            for mid, g in obj.items():
                if isinstance(g, dict):
                    expected["stream.json"][mid] = (g, {})
    for name in os.listdir(os.path.join(a.out, "jsondir")):
        with open(os.path.join(a.out, "jsondir", name)) as f:
            g = json.load(f)["local"]
        expected["jsondir"][g["id"]] = (g, {})

    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {what}")

    ws = os.path.join(a.out, "ws")
    os.makedirs(ws)
    for src, want in expected.items():
        path = os.path.join(a.out, src)
        p = subprocess.run([a.bin, "fleet", "--fleet", path, "--format", "json"], cwd=ws, capture_output=True, text=True)
        try:
            got = json.loads(p.stdout)
        except ValueError:
            check(False, f"{src}: not JSON: {p.stdout[:300]} {p.stderr[:300]}")
            continue
        check(sorted(got) == sorted(want), f"{src}: ids {sorted(set(got) ^ set(want))[:5]}")
        for mid, (g, pil) in want.items():
            ours = got.get(mid, {})
            same = ours.get("grains") == g and (ours.get("pillar") or {}) == pil
            check(same, f"{src} {mid}: grains equal {ours.get('grains') == g}, pillar ours {ours.get('pillar')!r} salt {pil!r}")
        # The unreadable entry and the minion that did not return: one problem each, named.
        problems = [l for l in p.stderr.splitlines() if l.startswith("salt-analyzer: error:")]
        if src == "c3008":
            check(p.returncode == 1 and len(problems) == 1 and "broken.p" in problems[0], f"{src}: the broken entry: {p.stderr[:300]}")
        if src == "stream.json":
            check(p.returncode == 1 and len(problems) == 1 and "gone.example.com" in problems[0], f"{src}: the minion that did not return: {p.stderr[:300]}")
    # No pillar_roots: the pillar of each fleet minion is the one its master cached.
    p = subprocess.run([a.bin, "pillar", "--fleet", os.path.join(a.out, "c3007"), "--format", "json"], cwd=ws, capture_output=True, text=True)
    try:
        got = json.loads(p.stdout)
    except ValueError:
        got = {}
    for mid, (_, pil) in expected["c3007"].items():
        check(got.get(mid) == pil, f"pillar --fleet {mid}: ours {got.get(mid)!r} salt {pil!r}")
    # The top and the highstate of each minion, Salt's against ours.
    tops_vs_salt(a, fleet, check)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


TOP = """base:
  '*':
    - common
  'os_family:Debian':
    - match: grain
    - debian
  'G@roles:web or G@roles:lb':
    - match: compound
    - web
  'db*':
    - db
  'E@^cache\\d+\\.dc1\\.':
    - match: compound
    - cache
  'S@10.0.0.0/26':
    - match: compound
    - lownet
  'G@os:Windows and not G@roles:mon':
    - match: compound
    - windows
"""


SLS = {
    "common.sls": """{% set pkgs = {'Debian': 'chrony', 'RedHat': 'chronyd', 'Suse': 'chrony-suse'} %}
ntp:
  test.nop:
    - name: {{ salt['grains.filter_by'](pkgs, grain='os_family', default='Debian') }}
{% for r in grains.get('roles', []) %}
role_{{ r }}:
  test.nop: []
{% endfor %}
""",
    "debian.sls": """{% from "map.jinja" import m with context %}
apt:
  test.nop:
    - name: {{ m.release }}
    - mirror: {{ m.mirror }}
""",
    "map.jinja": """{% import_yaml "defaults.yaml" as defaults %}
{% set m = salt['grains.filter_by']({'Debian': {'release': grains.get('osrelease', 'x')}}, grain='os_family', merge=salt['pillar.get']('apt', {}), base='default') %}
{% do defaults.update(m) %}
{% set m = defaults %}
""",
    "defaults.yaml": "mirror: deb.example.com\nrelease: none\n",
    "web.sls": """web_{{ salt['config.get']('os') }}:
  test.nop:
    - osrelease: {{ grains['osrelease'] | string }}
{% if salt['match.glob']('web*') %}
webhost:
  test.nop: []
{% endif %}
""",
    "db.sls": """db_{{ grains['fqdn'] }}:
  test.nop: []
""",
    "cache.sls": """{% if salt['match.pcre']('cache1.*') %}
first_cache:
  test.nop: []
{% endif %}
cache_{{ grains.get('os_family') }}:
  test.nop: []
""",
}


def first_difference(ours, salt):
    """Where two answers part: the first chunk (or key) that differs."""
    if isinstance(ours, list) and isinstance(salt, list):
        for i, (o, w) in enumerate(zip(ours, salt)):
            if o != w:
                return f"item {i}: ours {json.dumps(o)[:400]} salt {json.dumps(w)[:400]}"
        return f"ours has {len(ours)} items, salt {len(salt)}"
    return f"ours {json.dumps(ours)[:300]} salt {json.dumps(salt)[:300]}"


def tops_vs_salt(a, fleet, check):
    """`top --fleet` / `lowstate --fleet` against show_top / show_lowstate per minion."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.dirname(here))
    import top_driver
    from salt_driver import salt_call

    root = os.path.join(a.out, "tops")
    srv, var = os.path.join(root, "srv"), os.path.join(root, "var")
    os.makedirs(srv)
    with open(os.path.join(srv, "top.sls"), "w") as f:
        f.write(TOP)
    for sls in ["lownet", "windows"]:
        with open(os.path.join(srv, f"{sls}.sls"), "w") as f:
            f.write(f"{sls}_state:\n  test.nop:\n    - name: {sls}\n")
    # Templates that read grains the way formulas do (so that minions differ in their
    # highstates by what they read), one that reads each minion's fqdn (so that compiles
    # sharing by what they read must not share it), and a map.jinja.
    for sls, text in SLS.items():
        with open(os.path.join(srv, sls), "w") as f:
            f.write(text)
    base_conf = f"file_client: local\nfile_roots: {{base: [{srv}]}}\nroot_dir: {var}\ncachedir: {var}/cache\npki_dir: {var}/pki\nlog_file: {var}/log\nenable_fqdns_grains: false\n"
    os.makedirs(os.path.join(root, "etc"))
    with open(os.path.join(root, "etc", "minion"), "w") as f:
        f.write("id: fleethost\n" + base_conf)
    top_driver.setup_salt()
    want_top, want_low = {}, {}
    lowstate_count = int(os.environ.get("TOPS_LOWSTATE", "60"))
    host = None
    for i, (mid, (g, _)) in enumerate(fleet.items()):
        d = os.path.join(root, "m", str(i))
        os.makedirs(d)
        conf = os.path.join(d, "minion")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(f"id: {json.dumps(mid)}\n" + base_conf + "grains: " + json.dumps(g, ensure_ascii=False) + "\n")
        # Host grains once: the fleet's grains carry every host key and override them all.
        key = (mid, False, json.dumps([]))
        if host is not None:
            top_driver._HOST_GRAINS[key] = host
        minion = top_driver.new_minion(conf)
        if host is None:
            host = top_driver._HOST_GRAINS.get(key)
        want_top[mid] = salt_call(conf, "state.show_top", [], minion)
        if i < lowstate_count:
            want_low[mid] = salt_call(conf, "state.show_lowstate", [], minion)
    distinct = {json.dumps(t, sort_keys=True) for t in want_top.values()}
    print(f"{len(want_top)} minions, {len(distinct)} different tops from Salt")
    check(len(distinct) >= 5, "the generated fleet gives at least 5 different tops")
    distinct_low = {json.dumps(t, sort_keys=True) for t in want_low.values()}
    print(f"{len(want_low)} minions, {len(distinct_low)} different highstates from Salt")
    for cmd, want in (("top", want_top), ("lowstate", want_low)):
        args = [a.bin, cmd, "--fleet", os.path.join(a.out, "c3008"), "-c", os.path.join(root, "etc"), "--format", "json"]
        p = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, SALT_ANALYZER_FLEET_STATS="1"))
        try:
            got = json.loads(p.stdout)
        except ValueError:
            check(False, f"{cmd} --fleet: not JSON: {p.stdout[:300]} {p.stderr[:300]}")
            continue
        for mid, w in want.items():
            check(got.get(mid) == w, f"{cmd} --fleet {mid}: {first_difference(got.get(mid), w)}")
        # Minions that asked the same of their data shared compiles (the db minions each read
        # their own fqdn, so they do not): fewer compiles than minions, and the same answers
        # as with no sharing at all.
        stats = [l for l in p.stderr.splitlines() if l.startswith("fleet stats: ")]
        kept = int(stats[0].split(", ")[1].split()[0]) if stats else -1
        print(f"{cmd} --fleet: {stats[0] if stats else 'no stats line'}")
        check(0 < kept < len(fleet), f"{cmd} --fleet shares compiles: {stats}")
        alone = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, SALT_ANALYZER_NO_SHARING="1"))
        check(alone.stdout == p.stdout, f"{cmd} --fleet: the same output with no sharing")


if __name__ == "__main__":
    sys.exit(main())
