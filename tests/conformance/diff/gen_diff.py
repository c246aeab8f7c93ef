#!/usr/bin/env python3
"""Generate `salt-analyzer diff` conformance repositories (seeded).

Usage: gen_diff.py --seed N --count N --out DIR

Each case CASE/ holds:
    CASE/repo/                  a git repository: salt-analyzer.yaml (file_roots, pillar_roots,
                                minion profiles whose grains_file is outside the repository),
                                salt/ (top.sls by grain and compound targets, role SLS files with
                                requisites, an `app` formula: map.jinja importing defaults.yaml,
                                grains.filter_by, pillar lookup, a templated managed file),
                                pillar/ (top.sls by grain, values the templates read).
                                Tag v1 is the first commit, v2 a commit of random changes, and
                                the work tree holds more random changes, uncommitted (sometimes
                                an untracked new file).
    CASE/sides/v1, sides/v2     `git archive` of v1 and v2, for Salt (the work tree is repo/).
    CASE/case.json              {"minions": {id: static grains}, "scenarios": [...],
                                 "changes": {"v2": [...], "work": [...]}}
    CASE/grains/ID.json         written by salt_diff.py: Salt's grains.items for the minion.

The changes (see MUTATIONS): argument values, defaults.yaml values, new and removed states
(a removed state's requisites sometimes left dangling), top targeting, pillar values that
templates read, requisite kinds, renamed IDs, the managed file's template, and breaks that
only some minions see (YAML syntax, an undefined Jinja variable, an include of a missing SLS).
"""

import argparse
import copy
import json
import os
import random
import shutil
import subprocess

ROLES = ["web", "db", "cache"]
OS_FAMILIES = ["Debian", "RedHat"]
REQ_KINDS = ["require", "watch", "onchanges", "onfail", "prereq", "require_in", "watch_in", "listen"]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def q(v):
    return json.dumps(v)


def new_state(rng, sid):
    kind = rng.choice(["file.directory", "cmd.run", "pkg.installed", "service.running", "test.nop", "file.managed_text"])
    if kind == "file.directory":
        args = [("name", f"/srv/{sid}"), ("user", rng.choice(["root", "www-data", "postgres"])), ("mode", rng.choice(["0755", "0750"]))]
    elif kind == "cmd.run":
        args = [("name", f"echo {rng.choice(WORDS)}"), ("cwd", "/tmp")]
    elif kind == "pkg.installed":
        args = [("name", f"{rng.choice(WORDS)}-pkg"), ("version", f"{rng.randint(1, 9)}.{rng.randint(0, 9)}")]
    elif kind == "service.running":
        args = [("name", f"{rng.choice(WORDS)}d"), ("enable", rng.choice([True, False]))]
    elif kind == "file.managed_text":
        kind = "file.managed"
        args = [("name", f"/etc/{sid}.conf"), ("contents", rng.choice(WORDS))]
    else:
        args = [("comment", rng.choice(WORDS))]
    mod, fun = kind.split(".")
    st = {"id": sid, "mod": mod, "fun": fun, "args": args, "req": [], "pillar": None}
    if rng.random() < 0.35:
        # An argument from the pillar, as templates read it.
        st["pillar"] = rng.choice([("roles:{role}:workers", "workers"), ("common:motd", "comment")])
    return st


def build(rng):
    m = {"minions": {}, "sls": {}, "top": [], "pillar": {}, "defaults": {}, "conf": "", "break": None, "extra_file": None}
    n = rng.randint(3, 5)
    for i in range(n):
        role = ROLES[i % 3] if i < 3 else rng.choice(ROLES)
        mid = f"{role}{i + 1}"
        m["minions"][mid] = {"role": role, "os_family": rng.choice(OS_FAMILIES), "tier": rng.choice(["prod", "dev"])}
    counter = [0]

    def sid(prefix):
        counter[0] += 1
        return f"{prefix}_{rng.choice(WORDS)}_{counter[0]}"

    for sls in ["common"] + ROLES:
        states = [new_state(rng, sid(sls)) for _ in range(rng.randint(2, 4))]
        for s in states[1:]:
            if rng.random() < 0.6:
                t = rng.choice([x for x in states if x is not s])
                s["req"].append((rng.choice(REQ_KINDS), t["mod"], t["id"]))
        m["sls"][sls] = states
    m["m_counter"] = counter[0]
    m["top"] = [
        ["*", None, ["common"]],
        ["role:web", "grain", ["web", "app"]],
        ["G@role:db and G@os_family:" + rng.choice(OS_FAMILIES), "compound", ["db"]],
        ["G@role:cache or G@tier:dev", "compound", ["cache"]],
    ]
    m["pillar"] = {
        "common": {"motd": f"hello {rng.choice(WORDS)}", "admins": rng.sample(WORDS, 2)},
        "roles": {r: {"workers": rng.randint(1, 8)} for r in ROLES},
        "app": {"lookup": {"version": f"{rng.randint(1, 3)}.{rng.randint(0, 9)}"}},
    }
    m["pillar_top"] = [["*", None, ["common"]], ["role:web", "grain", ["web"]], ["tier:prod", "grain", ["prod"]]]
    m["pillar_prod"] = {"roles": {"web": {"workers": rng.randint(10, 20)}}}
    m["defaults"] = {"pkg": "app", "version": "1.0", "port": rng.choice([80, 8080]), "conf": "/etc/app/app.conf", "service": "appd"}
    m["conf"] = "port = {{ app.port }}\nworkers = {{ salt['pillar.get']('roles:web:workers', 1) }}\nos = {{ grains['os_family'] }}\n"
    return m


def render_state(s, sls):
    lines = [f"{s['id']}:", f"  {s['mod']}.{s['fun']}:"]
    for k, v in s["args"]:
        if s["pillar"] and k == s["pillar"][1]:
            key = s["pillar"][0].format(role=sls if sls in ROLES else "web")
            lines.append(f"    - {k}: {{{{ salt['pillar.get']({q(key)}, 'none') | json }}}}")
        else:
            lines.append(f"    - {k}: {q(v)}")
    if s["pillar"] and s["pillar"][1] not in [k for k, _ in s["args"]]:
        key = s["pillar"][0].format(role=sls if sls in ROLES else "web")
        lines.append(f"    - {s['pillar'][1]}: {{{{ salt['pillar.get']({q(key)}, 'none') | json }}}}")
    by_kind = {}
    for kind, mod, tid in s["req"]:
        by_kind.setdefault(kind, []).append((mod, tid))
    for kind, targets in by_kind.items():
        lines.append(f"    - {kind}:")
        for mod, tid in targets:
            lines.append(f"      - {mod}: {tid}")
    return "\n".join(lines) + "\n"


def render_top(entries):
    out = ["base:"]
    for target, match, sls in entries:
        out.append(f"  {q(target)}:")
        if match:
            out.append(f"    - match: {match}")
        for s in sls:
            out.append(f"    - {s}")
    return "\n".join(out) + "\n"


def files_of(m):
    f = {}
    f["salt/top.sls"] = render_top(m["top"])
    for sls, states in m["sls"].items():
        text = ""
        if sls != "common":
            text += "{% set tier = grains.get('tier', 'dev') %}\n"
        text += "".join(render_state(s, sls) for s in states)
        if m["break"] and m["break"][0] == sls:
            kind = m["break"][1]
            if kind == "yaml":
                text += "broken_state:\n  test.nop: [\n"
            elif kind == "jinja":
                text = "{{ undefined_thing.attr }}\n" + text
            else:
                text = "include:\n  - missing.formula\n" + text
        f[f"salt/{sls}.sls"] = text
    d = m["defaults"]
    f["salt/app/defaults.yaml"] = "app:\n" + "".join(f"  {k}: {q(v)}\n" for k, v in d.items())
    f["salt/app/map.jinja"] = (
        '{% import_yaml "app/defaults.yaml" as defaults %}\n'
        "{% set osmap = salt['grains.filter_by']({'Debian': {'pkg': 'app-deb'}, 'RedHat': {'pkg': 'app-rpm'}}, grain='os_family') %}\n"
        "{% set app = salt['slsutil.merge'](defaults.app, osmap) %}\n"
        "{% set app = salt['slsutil.merge'](app, salt['pillar.get']('app:lookup', {})) %}\n"
    )
    f["salt/app/init.sls"] = (
        '{% from "app/map.jinja" import app with context %}\n'
        "app_pkg:\n  pkg.installed:\n    - name: {{ app.pkg }}\n    - version: {{ app.version | json }}\n"
        "app_conf:\n  file.managed:\n    - name: {{ app.conf }}\n    - source: salt://app/files/app.conf\n"
        "    - template: jinja\n    - require:\n      - pkg: app_pkg\n"
        "app_service:\n  service.running:\n    - name: {{ app.service }}\n    - watch:\n      - file: app_conf\n"
    )
    f["salt/app/files/app.conf"] = "{% from 'app/map.jinja' import app with context %}\n" + m["conf"]
    f["pillar/top.sls"] = render_top(m["pillar_top"])
    p = m["pillar"]
    f["pillar/common.sls"] = "common:\n" + f"  motd: {q(p['common']['motd'])}\n  admins: {q(p['common']['admins'])}\n" + \
        "roles:\n" + "".join(f"  {r}: {{workers: {v['workers']}}}\n" for r, v in p["roles"].items() if r != "web")
    f["pillar/web.sls"] = f"roles:\n  web: {{workers: {p['roles']['web']['workers']}}}\napp:\n  lookup: {{version: {q(p['app']['lookup']['version'])}}}\n"
    f["pillar/prod.sls"] = f"roles:\n  web: {{workers: {m['pillar_prod']['roles']['web']['workers']}}}\n"
    if m["extra_file"]:
        f["salt/extra.sls"] = m["extra_file"]
    return f


# ---- mutations: each changes the model and returns a label ----

def all_states(m):
    return [(sls, s) for sls, states in m["sls"].items() for s in states]


def mut_arg(rng, m):
    sls, s = rng.choice(all_states(m))
    i = rng.randrange(len(s["args"]))
    k, v = s["args"][i]
    if isinstance(v, bool):
        v = not v
    else:
        v = f"{v}-{rng.choice(WORDS)}" if k != "name" or rng.random() < 0.5 else v + "x"
    s["args"][i] = (k, v)
    return f"arg {s['id']}.{k}"


def mut_defaults(rng, m):
    k = rng.choice(["version", "port", "service"])
    m["defaults"][k] = {"version": "2.0", "port": 9090, "service": "app2d"}[k]
    return f"defaults {k}"


def mut_add(rng, m):
    sls = rng.choice(list(m["sls"]))
    m["m_counter"] += 1
    s = new_state(rng, f"{sls}_new_{m['m_counter']}")
    if m["sls"][sls] and rng.random() < 0.5:
        t = rng.choice(m["sls"][sls])
        s["req"].append((rng.choice(REQ_KINDS), t["mod"], t["id"]))
    m["sls"][sls].insert(rng.randint(0, len(m["sls"][sls])), s)
    return f"add {s['id']}"


def mut_remove(rng, m):
    sls, s = rng.choice(all_states(m))
    m["sls"][sls].remove(s)
    if rng.random() < 0.7:
        for _, o in all_states(m):
            o["req"] = [r for r in o["req"] if r[2] != s["id"]]
        return f"remove {s['id']}"
    return f"remove {s['id']} (requisites left dangling)"


def mut_top(rng, m):
    e = rng.choice(m["top"][1:])
    r = rng.random()
    if r < 0.4:
        e[0] = {"grain": f"role:{rng.choice(ROLES)}", "compound": f"G@role:{rng.choice(ROLES)} and G@tier:{rng.choice(['prod', 'dev'])}"}[e[1]]
    elif r < 0.7 and len(e[2]) > 1:
        e[2].pop()
    else:
        m["top"].append([f"G@os_family:{rng.choice(OS_FAMILIES)}", "compound", [rng.choice(["web", "db", "cache", "app"])]])
    return "top"


def mut_pillar(rng, m):
    r = rng.random()
    if r < 0.3:
        m["pillar"]["common"]["motd"] = f"hello {rng.choice(WORDS)} again"
    elif r < 0.6:
        role = rng.choice(ROLES)
        m["pillar"]["roles"][role]["workers"] += 1
    elif r < 0.8:
        m["pillar"]["app"]["lookup"]["version"] = "9.9"
    else:
        m["pillar_prod"]["roles"]["web"]["workers"] += 5
    return "pillar"


def mut_req_kind(rng, m):
    with_req = [s for _, s in all_states(m) if s["req"]]
    if not with_req:
        return mut_add(rng, m)
    s = rng.choice(with_req)
    i = rng.randrange(len(s["req"]))
    kind, mod, tid = s["req"][i]
    s["req"][i] = (rng.choice([k for k in REQ_KINDS if k != kind]), mod, tid)
    return f"requisite kind {s['id']}"


def mut_rename(rng, m):
    sls, s = rng.choice(all_states(m))
    old = s["id"]
    s["id"] = old + "_renamed"
    for _, o in all_states(m):
        o["req"] = [(k, mod, s["id"] if t == old else t) for k, mod, t in o["req"]]
    return f"rename {old}"


def mut_conf(rng, m):
    m["conf"] += f"# {rng.choice(WORDS)}\n"
    return "template"


def mut_break(rng, m):
    m["break"] = (rng.choice(ROLES), rng.choice(["yaml", "jinja", "include"]))
    return f"break {m['break'][0]} ({m['break'][1]})"


def mut_fix(rng, m):
    if m["break"]:
        m["break"] = None
        return "fix"
    return mut_arg(rng, m)


def mut_new_file(rng, m):
    m["extra_file"] = "extra_state:\n  test.nop: []\n"
    m["top"].append(["*", None, ["extra"]])
    return "new file"


MUTATIONS = [(mut_arg, 3), (mut_defaults, 1), (mut_add, 2), (mut_remove, 2), (mut_top, 2), (mut_pillar, 2),
             (mut_req_kind, 2), (mut_rename, 2), (mut_conf, 1), (mut_break, 1)]


def mutate(rng, m, extra=()):
    labels = []
    funs = [f for f, w in MUTATIONS for _ in range(w)] + list(extra)
    for _ in range(rng.randint(1, 3)):
        labels.append(rng.choice(funs)(rng, m))
    return labels


def write_tree(root, files, old=None):
    for path in old or ():
        if path not in files:
            os.remove(os.path.join(root, path))
    for path, text in files.items():
        p = os.path.join(root, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(text)


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "gen", "GIT_AUTHOR_EMAIL": "gen@example.com",
                        "GIT_COMMITTER_NAME": "gen", "GIT_COMMITTER_EMAIL": "gen@example.com",
                        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"})


def make_case(seed, idx, out):
    rng = random.Random(f"diff-{seed}-{idx}")
    case = os.path.join(out, f"d{idx:03d}")
    shutil.rmtree(case, ignore_errors=True)
    repo = os.path.join(case, "repo")
    os.makedirs(repo)
    m = build(rng)
    ws = "file_roots: {base: [salt]}\npillar_roots: {base: [pillar]}\nminions:\n" + "".join(
        f"  {mid}: {{grains_file: ../grains/{mid}.json}}\n" for mid in m["minions"])
    f1 = files_of(m)
    f1["salt-analyzer.yaml"] = ws
    write_tree(repo, f1)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    git(repo, "tag", "v1")
    changes = {"v2": mutate(rng, m)}
    f2 = files_of(m)
    f2["salt-analyzer.yaml"] = ws
    write_tree(repo, f2, f1)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v2")
    git(repo, "tag", "v2")
    changes["work"] = mutate(rng, m, extra=[mut_fix, mut_fix, mut_new_file])
    f3 = files_of(m)
    f3["salt-analyzer.yaml"] = ws
    write_tree(repo, f3, f2)  # uncommitted; salt/extra.sls, when new, is untracked
    for side in ("v1", "v2"):
        d = os.path.join(case, "sides", side)
        os.makedirs(d)
        tar = subprocess.run(["git", "-C", repo, "archive", side], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", d], input=tar, check=True)
    meta = {"minions": m["minions"], "changes": changes,
            "scenarios": [{"name": "revs", "args": ["--from", "v1", "--to", "v2"], "before": "v1", "after": "v2"},
                          {"name": "work", "args": [], "before": "v2", "after": "work"}]}
    with open(os.path.join(case, "case.json"), "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.count):
        make_case(a.seed, i, os.path.abspath(a.out))


if __name__ == "__main__":
    main()
