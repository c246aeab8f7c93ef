#!/usr/bin/env python3
"""Deterministic workload generator for the command-line benchmarks: a highstate of N SLS
files, about four states each, with includes and requisites, a top file assigning every SLS,
and a minion configuration directory that both `salt-analyzer lowstate -c DIR` and
`salt-call --local -c DIR state.show_lowstate` read.

    python3 gen_highstate.py --files N [--seed S] --out DIR

Layout: DIR/etc/minion, DIR/srv/top.sls, DIR/srv/app<G>/s<I>.sls (100 files per directory).
Each SLS includes one or two earlier files of its group, and its states require states of the
files it includes or of itself (never a cycle: always an earlier state). Only `test.*` state
functions, so `state.show_lowstate` compiles them on any host. Standard library only.
"""

import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    r = random.Random(a.seed)
    srv = os.path.join(a.out, "srv")
    etc = os.path.join(a.out, "etc")
    os.makedirs(etc, exist_ok=True)
    names = []
    for i in range(a.files):
        group, name = i // 100, f"app{i // 100}.s{i}"
        names.append(name)
        lines = []
        earlier = [j for j in range(group * 100, i)]
        includes = sorted(set(r.sample(earlier, min(len(earlier), r.randint(1, 2))))) if earlier else []
        if includes:
            lines.append("include:")
            lines.extend(f"  - app{group}.s{j}" for j in includes)
        # States of the included files this one may require (their first state is s<j>_0).
        targets = [f"s{j}_0" for j in includes]
        for k in range(r.randint(3, 5)):
            sid = f"s{i}_{k}"
            fun = r.choice(["succeed_without_changes", "nop", "succeed_with_changes", "configurable_test_state"])
            lines.append(f"{sid}:")
            lines.append(f"  test.{fun}:")
            lines.append(f"    - name: {sid}-name")
            if fun == "configurable_test_state":
                lines.append("    - changes: False")
            reqs = []
            if k > 0 and r.random() < 0.5:
                reqs.append(f"s{i}_{r.randrange(k)}")
            if targets and r.random() < 0.5:
                reqs.append(r.choice(targets))
            if reqs:
                lines.append("    - require:")
                lines.extend(f"      - test: {t}" for t in reqs)
            if r.random() < 0.1:
                lines.append(f"    - order: {r.randint(1, 100)}")
        path = os.path.join(srv, f"app{group}", f"s{i}.sls")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    with open(os.path.join(srv, "top.sls"), "w", encoding="utf-8") as fh:
        fh.write("base:\n  '*':\n")
        fh.writelines(f"    - {n}\n" for n in names)
    var = os.path.join(a.out, "var")
    with open(os.path.join(etc, "minion"), "w", encoding="utf-8") as fh:
        fh.write(
            f"id: bench\nfile_client: local\nfile_roots:\n  base:\n    - {srv}\n"
            f"root_dir: {var}\ncachedir: {var}/cache\npki_dir: {var}/pki\nlog_file: {var}/log\n"
            "grains: {}\nenable_fqdns_grains: false\n"
        )


if __name__ == "__main__":
    main()
