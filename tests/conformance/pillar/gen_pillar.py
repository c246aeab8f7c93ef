#!/usr/bin/env python3
"""Random pillar_roots trees for the pillar conformance suite.

Usage: python3 gen_pillar.py --seed N --count N --out DIR

Each case is DIR/NNNN/ with
    case.json                {"seed": ..., "minion": ID}
    etc/minion               file_client local, id, static grains, pillar_roots, and sometimes
                             pillar_source_merging_strategy, pillar_merge_lists, pillarenv,
                             env_order, pillar_includes_override_sls, a static `pillar:`
    pillar/ENV[/ROOT2]/...   top.sls (globs, grain and compound targets, `match:`, `order`,
                             `ignore_missing`, other envs' sections, top includes) and SLS
                             files (static data, Jinja over grains, the earlier pillar, `sls`,
                             `saltenv` and include defaults; includes with `defaults`/`key`,
                             relative and glob includes, missing ones; a few that fail to render)

With --one-top only base has a top file (its sections still name the other environments):
Salt 3007's `Pillar.get_tops` reads the environments' top files in a Python set's order,
which changes with each run's hash seed, so trees with several top files have no one answer
there.

Values are chosen so that both sides print them the same: keys named `s*` always hold
scalars, so templates that print `pillar.get('s1')` print a scalar.
"""

import argparse
import json
import os
import random

MINIONS = ["web01", "web02", "db01", "cache9"]
ROLES = ["web", "db", "cache"]
ENVS = ["dev", "prod", "qa"]
DICT_KEYS = ["app", "users", "pkgs", "conf", "net"]
SUB_KEYS = ["a", "b", "c", "l", "m"]
SCALAR_KEYS = ["s1", "s2", "s3", "s4"]


def scalar(r):
    return r.choice([r.randint(0, 9), r.choice(["x", "y", "zed", "web", "Debian"]), True, False, None])


def value(r, depth=0):
    k = r.random()
    if depth < 2 and k < 0.45:
        return {r.choice(SUB_KEYS): value(r, depth + 1) for _ in range(r.randint(1, 3))}
    if k < 0.7:
        return [scalar(r) for _ in range(r.randint(0, 3))]
    return scalar(r)


def flow(v):
    return json.dumps(v)


def jinja_scalar(r, in_include):
    opts = [
        "{{ grains['role'] }}",
        "{{ grains.get('tier', 0) }}",
        "{{ grains['id'] }}",
        "{{ pillar.get('%s', 'none') }}" % r.choice(SCALAR_KEYS),
        "{{ salt['pillar.get']('%s', 'dflt') }}" % r.choice(SCALAR_KEYS),
        "{{ sls }}",
        "{{ saltenv }}",
        "{{ salt['grains.get']('os_family') }}",
        "{{ salt['pillar.get']('static:a', 0) }}",
        "{{ pillar['%s'] }}" % r.choice(SCALAR_KEYS),
        "{{ 'in' if 'app' in pillar else 'out' }}",
        "{{ pillar.get('app', {}) | length }}",
    ]
    if in_include:
        opts += ["{{ defvar | default('nodef') }}"] * 3
    return r.choice(opts)


class Tree:
    def __init__(self, r):
        self.r = r
        self.envs = ["base"] + r.sample(ENVS, r.choice([0, 1, 1, 2]))
        self.names = {}
        for env in self.envs:
            pool = ["common", "users", "app", "app.web", "app.db", "roles.web", "roles.db", "net", "defs", "extra"]
            self.names[env] = r.sample(pool, r.randint(3, 7))

    def sls_text(self, env, name):
        r = self.r
        lines = []
        if r.random() < 0.35:
            items = []
            for _ in range(r.randint(1, 2)):
                k = r.random()
                target = r.choice([n for n in self.names[env] if n != "extra"] + ["missing.inc", "app.*"])
                if k < 0.15 and "." in name:
                    target = "." + target.split(".")[-1]
                if k < 0.5:
                    items.append(target)
                else:
                    opts = {}
                    if r.random() < 0.7:
                        opts["defaults"] = {"defvar": r.choice(["d1", "d2", 7])}
                    if r.random() < 0.4:
                        opts["key"] = r.choice(["inc", "inc:sub"])
                    items.append({target: opts})
            lines.append("include: " + flow(items))
        used = set()
        for _ in range(r.randint(1, 4)):
            kind = r.random()
            key = r.choice(SCALAR_KEYS if 0.45 <= kind < 0.75 else DICT_KEYS)
            if key in used:
                continue
            used.add(key)
            if kind < 0.45:
                lines.append(f"{key}: {flow(value(r))}")
            elif kind < 0.75:
                lines.append(f"{key}: {flow(scalar(r)) if r.random() < 0.5 else jinja_scalar(r, True)}")
            elif kind < 0.9:
                cond = r.choice(["grains['role'] == 'web'", "grains['os_family'] == 'Debian'", "pillar.get('s1')", "grains.get('tier', 0) > 1"])
                lines.append("{%% if %s %%}" % cond)
                lines.append(f"{key}: {flow(value(r))}")
                lines.append("{% else %}")
                lines.append(f"{key}: {{sub: {jinja_scalar(r, False)}}}")
                lines.append("{% endif %}")
            else:
                lines.append(f"{key}:")
                lines.append("{%% for i in range(%d) %%}" % r.randint(0, 3))
                lines.append("  k{{ i }}: {{ i * 2 }}")
                lines.append("{% endfor %}")
                if r.random() < 0.5:
                    lines.append("  fixed: 1")
        if r.random() < 0.15:
            lines.insert(0, "{% from 'lib/vars.jinja' import port, hosts with context %}")
            lines.append(f"{r.choice(SCALAR_KEYS)}: {{{{ port }}}}")
        if r.random() < 0.04:
            lines.append("broken: {{ undefined_function() }}")
        if r.random() < 0.03:
            lines.append("bad: [1, 2")
        k = r.random()
        if k < 0.1 and name == "extra":
            # Never included (Salt raises merging a list into an including SLS).
            return "- a\n- b\n"
        if k < 0.04:
            return "include: common\n" + "\n".join(lines) + "\n"
        if k < 0.06:
            return ""
        if k < 0.08:
            return "#!yaml\n" + "\n".join(x for x in lines if "{" not in x or x.startswith(("include", "app", "users", "pkgs", "conf", "net")) and "{{" not in x and "{%" not in x) + "\n"
        return "\n".join(lines) + "\n"

    def target(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            return r.choice(["'*'", "'web*'", "'db0?'", "'*9'"]), []
        if k < 0.5:
            return r.choice(["'G@role:web'", "'G@role:db or G@tier:3'", "'G@os_family:Debian and web*'", "'not G@role:cache'"]), []
        if k < 0.6:
            return "'role:%s'" % r.choice(ROLES), [{"match": "grain"}]
        if k < 0.7:
            return "'web01,db01'", [{"match": "list"}]
        if k < 0.8:
            return "'I@s1:x or I@s1:web'", []
        if k < 0.9:
            return "'L@web02,cache9 or G@roles:db'", []
        return "'E@(web|db)0[12]'", []

    def top_text(self, env):
        r = self.r
        lines = []
        if r.random() < 0.15:
            lines.append("include: [tops.extra]")
        if r.random() < 0.03:
            lines.append("broken: {{ nope.attr }}")
        sections = [env]
        for other in self.envs:
            if other != env and r.random() < 0.25:
                sections.append(other)
        if r.random() < 0.1:
            sections.append("nowhere")
        for sec in sections:
            lines.append(f"{sec}:")
            names = self.names.get(sec, ["common", "app"])
            for _ in range(r.randint(1, 3)):
                tgt, opts = self.target()
                body = list(opts)
                if r.random() < 0.25:
                    body.append({"order": r.choice([1, 2, 5, "3", "x"])})
                missing = r.random() < 0.15
                if missing and r.random() < 0.6:
                    body.append({"ignore_missing": True})
                for _ in range(r.randint(1, 3)):
                    body.append(r.choice(names + ["app.*", "roles.*"]))
                if missing:
                    body.append("nosuch." + r.choice(["a", "b"]))
                if r.random() < 0.1:
                    lines.append("{%% if grains['role'] == '%s' %%}" % r.choice(ROLES))
                    lines.append(f"  {tgt}: {flow(body)}")
                    lines.append("{% endif %}")
                else:
                    lines.append(f"  {tgt}: {flow(body)}")
        return "\n".join(lines) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def gen_case(seed, out, one_top=False):
    r = random.Random(seed)
    t = Tree(r)
    minion = r.choice(MINIONS)
    role = r.choice(ROLES)
    grains = {"role": role, "os_family": r.choice(["Debian", "RedHat"]), "tier": r.randint(1, 3), "roles": r.sample(ROLES, r.randint(0, 2))}
    pillar_root = os.path.join(out, "pillar")
    roots = {}
    for env in t.envs:
        dirs = [os.path.join(pillar_root, env)]
        if env == "base" and r.random() < 0.3:
            dirs.append(os.path.join(pillar_root, "base2"))
        roots[env] = dirs
        for name in t.names[env]:
            rel = name.replace(".", "/")
            rel = rel + "/init.sls" if r.random() < 0.3 else rel + ".sls"
            root = r.choice(dirs)
            write(os.path.join(root, rel), t.sls_text(env, name))
        if r.random() < 0.5:
            lines = "{% set port = " + str(r.randint(1, 99)) + " %}\n{% set hosts = ['h1'] %}\n"
            write(os.path.join(dirs[0], "lib", "vars.jinja"), lines)
        if r.random() < 0.92:
            top, extra = t.top_text(env), t.top_text(env)
            if env == "base" or not one_top:
                write(os.path.join(dirs[0], "top.sls"), top)
                write(os.path.join(dirs[0], "tops", "extra.sls"), extra)
    conf = {
        "id": minion,
        "file_client": "local",
        "file_roots": {"base": [os.path.join(out, "srv")]},
        "pillar_roots": roots,
        "grains": grains,
        "root_dir": os.path.join(out, "var"),
        "cachedir": os.path.join(out, "var", "cache"),
        "pki_dir": os.path.join(out, "var", "pki"),
        "sock_dir": os.path.join(out, "var", "sock"),
        "log_file": os.path.join(out, "var", "log"),
    }
    if r.random() < 0.6:
        conf["pillar_source_merging_strategy"] = r.choice(["smart", "recurse", "aggregate", "overwrite", "none", "smart", "list"])
    if r.random() < 0.4:
        conf["pillar_merge_lists"] = True
    if r.random() < 0.12:
        conf["pillarenv"] = r.choice(t.envs + ["nowhere"])
    if r.random() < 0.15 and len(t.envs) > 1:
        conf["env_order"] = list(reversed(t.envs))
    if r.random() < 0.1:
        conf["pillar_includes_override_sls"] = True
    if r.random() < 0.3:
        conf["pillar"] = {"s1": r.choice(["x", "web", 3]), "static": {"a": 1}}
    os.makedirs(os.path.join(out, "srv"), exist_ok=True)
    write(os.path.join(out, "etc", "minion"), json.dumps(conf, indent=1) + "\n")
    write(os.path.join(out, "case.json"), json.dumps({"seed": seed, "minion": minion}) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=220)
    ap.add_argument("--out", required=True)
    ap.add_argument("--one-top", action="store_true", help="a top file in base only (Salt 3007 reads several in a random order)")
    a = ap.parse_args()
    for i in range(a.count):
        out = os.path.abspath(os.path.join(a.out, f"{i:04d}"))
        gen_case(a.seed * 100003 + i, out, a.one_top)


if __name__ == "__main__":
    main()
