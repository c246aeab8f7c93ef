#!/usr/bin/env python3
"""Workload of the `diff` benchmark: a git repository with the editor benchmark's shape
(FORMULAS formulas, each a map.jinja importing defaults.yaml with grains.filter_by and a
pillar lookup, plus PLAIN plain SLS files in groups of 100 that include each other and
require earlier states) and MINIONS minion profiles over 20 roles. Role K's SLS
(roles/rK.sls) includes plain group K (mod the groups) and ten formulas; formula f0 is used by
roles 0 and 1 only, so by 10% of the minions. Committed once (tag `base`).

    python3 gen_diff_bench.py --out DIR [--formulas 200] [--plain 2000] [--minions 200]
    python3 gen_diff_bench.py --out DIR --change formula|top

`--change formula` edits f0's defaults.yaml (10% of the minions see it); `--change top` adds
a state every minion gets through the top file. Standard library and the git CLI only.
"""

import argparse
import os
import random
import subprocess

ROLES = 20


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def generate(out, formulas, plain, minions):
    r = random.Random(1)
    salt = os.path.join(out, "salt")
    for f in range(formulas):
        write(f"{salt}/f{f}/defaults.yaml", f"f{f}:\n  pkg: f{f}-pkg\n  version: '1.{f}'\n  port: {8000 + f}\n  service: f{f}d\n")
        write(f"{salt}/f{f}/map.jinja",
              f'{{% import_yaml "f{f}/defaults.yaml" as defaults %}}\n'
              f"{{% set osmap = salt['grains.filter_by']({{'Debian': {{'pkg': 'f{f}-deb'}}, 'RedHat': {{'pkg': 'f{f}-rpm'}}}}, grain='os_family') %}}\n"
              f"{{% set cfg = salt['slsutil.merge'](defaults.f{f}, osmap) %}}\n"
              f"{{% set cfg = salt['slsutil.merge'](cfg, salt['pillar.get']('f{f}:lookup', {{}})) %}}\n")
        write(f"{salt}/f{f}/init.sls",
              f'{{% from "f{f}/map.jinja" import cfg with context %}}\n'
              f"f{f}_pkg:\n  pkg.installed:\n    - name: {{{{ cfg.pkg }}}}\n    - version: {{{{ cfg.version | json }}}}\n"
              f"f{f}_conf:\n  file.managed:\n    - name: /etc/f{f}.conf\n    - contents: 'port {{{{ cfg.port }}}}'\n    - require:\n      - pkg: f{f}_pkg\n"
              f"f{f}_service:\n  service.running:\n    - name: {{{{ cfg.service }}}}\n    - watch:\n      - file: f{f}_conf\n")
    groups = max(1, plain // 100)
    for i in range(plain):
        g = i // 100
        lines = []
        earlier = list(range(g * 100, i))
        inc = sorted(set(r.sample(earlier, min(len(earlier), r.randint(1, 2))))) if earlier else []
        if inc:
            lines += ["include:"] + [f"  - app{g}.s{j}" for j in inc]
        for k in range(4):
            lines += [f"s{i}_{k}:", "  test.succeed_without_changes:", f"    - name: s{i} state {k}"]
            if k:
                lines += ["    - require:", f"      - test: s{i}_{k - 1}"]
            elif inc:
                lines += ["    - require:", f"      - test: s{inc[-1]}_3"]
        write(f"{salt}/app{g}/s{i}.sls", "\n".join(lines) + "\n")
    for k in range(ROLES):
        g = k % groups
        members = [f"app{g}.s{i}" for i in range(g * 100, min(plain, g * 100 + 100), 10)]
        fs = [f"f{f}" for f in range(1 + k * 9 % max(1, formulas - 10), 1 + k * 9 % max(1, formulas - 10) + 9)]
        if k in (0, 1):
            fs.append("f0")
        write(f"{salt}/roles/r{k}.sls", "include:\n" + "".join(f"  - {s}\n" for s in members + fs))
    write(f"{salt}/common.sls", "motd:\n  file.managed:\n    - name: /etc/motd\n    - contents: {{ salt['pillar.get']('motd', 'hi') | json }}\n")
    write(f"{salt}/top.sls", "base:\n  '*':\n    - common\n" + "".join(f"  'role:r{k}':\n    - match: grain\n    - roles.r{k}\n" for k in range(ROLES)))
    write(f"{out}/pillar/top.sls", "base:\n  '*': [common]\n")
    write(f"{out}/pillar/common.sls", "motd: hello\n")
    prof = "".join(f"  m{m:04d}: {{grains: {{id: m{m:04d}, role: r{m % ROLES}, os_family: {'Debian' if m % 3 else 'RedHat'}, kernel: Linux}}}}\n"
                   for m in range(minions))
    write(f"{out}/salt-analyzer.yaml", "file_roots: {base: [salt]}\npillar_roots: {base: [pillar]}\nminions:\n" + prof)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"], ["tag", "base"]):
        subprocess.run(["git", "-C", out, *cmd], check=True, env=env)


def change(out, what):
    subprocess.run(["git", "-C", out, "checkout", "-q", "--", "."], check=True)
    if what == "formula":
        write(f"{out}/salt/f0/defaults.yaml", "f0:\n  pkg: f0-pkg\n  version: '2.0'\n  port: 9000\n  service: f0d\n")
    else:
        with open(f"{out}/salt/top.sls", "a", encoding="utf-8") as fh:
            fh.write("  '*':\n    - everyone\n")
        write(f"{out}/salt/everyone.sls", "everyone:\n  test.nop: []\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--formulas", type=int, default=200)
    ap.add_argument("--plain", type=int, default=2000)
    ap.add_argument("--minions", type=int, default=200)
    ap.add_argument("--change", choices=["formula", "top"])
    a = ap.parse_args()
    if a.change:
        change(a.out, a.change)
    else:
        generate(a.out, a.formulas, a.plain, a.minions)


if __name__ == "__main__":
    main()
