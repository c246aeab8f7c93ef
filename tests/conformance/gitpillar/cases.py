#!/usr/bin/env python3
"""Generated git_pillar cases and real Salt 3008's pillars for them, in one Python process.

Usage: PYTHON cases.py OUT COUNT SEED

Each case is OUT/NNN with git repositories (work trees made with the `git` command: branches,
tags, a `root` layout, a pillar top file and SLS that differ per ref, includes inside a remote
and across remotes), `etc/minion` with one or two `ext_pillar: - git:` entries over `file://`
remotes with random global and per-remote git_pillar options (`BRANCH URL` or the
`git_pillar_branch`, tags as branches, `__env__` with `all_saltenvs`, `base` and `fallback`,
`root`, `env` (also `__env__`), `name`, `mountpoint`, `git_pillar_includes`, `git_pillar_base`,
`git_pillar_root`, `git_pillar_env`), `pillarenv`, `saltenv`, the merge options
(`pillar_source_merging_strategy`, `pillar_merge_lists`, `ext_pillar_first`) and sometimes
local `pillar_roots`; `fleet.json`: three minions whose grains are this machine's
`grains.items` with their own id, OS family and roles (as `salt '*' grains.items --out=json
--static` prints a fleet); and `salt.json`: per minion what

    salt-call --local -c CASE/m/ID pillar.items unmask=True --out=json

prints under `local`, that minion's configuration being the case's plus its id and its full
grains as static grains (they override every grain of this machine). Salt is masterless here,
so git_pillar fetches the `file://` remotes itself (GitPython, cache in CASE/var).
"""

import copy
import json
import os
import random
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import top_driver  # noqa: E402
from gitrepos import make_repo, write  # noqa: E402
from salt_driver import describe_exception, pillar_items_args, salt_call  # noqa: E402

BRANCHES = ["dev", "qa", "prod", "feature/x"]
TAGS = ["v1", "v2.0"]
FAMILIES = [("Debian", "Debian"), ("CentOS Stream", "RedHat"), ("Ubuntu", "Debian"), ("SUSE", "Suse")]


def ref_files(rng, i, ref, root, other_sls):
    """Repository i's files at ref: a top file and SLS under root, one SLS outside it."""
    p = f"{root}/" if root else ""
    tag = ref.replace("/", "-")
    files = {}
    files[f"{p}r{i}.sls"] = (
        f"r{i}:\n  ref: {ref}\n  env: {{{{ saltenv }}}}\n  family: {{{{ grains['os_family'] }}}}\n"
        f"  seen: {{{{ pillar.get('shared', 'none') }}}}\n"
    )
    files[f"{p}common.sls"] = f"common:\n  r{i}: {tag}\n  list: [r{i}-{tag}]\n  deep: {{x{i}: 1, who: r{i}}}\nshared: r{i}-{tag}\n"
    files[f"{p}sub{i}/init.sls"] = f"include:\n  - .leaf\nsub{i}:\n  ref: {tag}\n"
    files[f"{p}sub{i}/leaf.sls"] = f"leaf{i}: {tag}\ncommon:\n  list: [leaf{i}]\n"
    if other_sls and rng.random() < 0.7:
        # An SLS of another remote: found only with git_pillar_includes, same environment.
        files[f"{p}inc{i}.sls"] = f"include:\n  - {rng.choice(other_sls)}\ninc{i}: {tag}\n"
    files["outside.sls"] = "outside: 1\n"
    section = "{{ saltenv }}" if rng.random() < 0.85 else rng.choice(["base", "dev", "qa", "master"])
    top = [f"{section}:", "  '*':", f"    - r{i}", "    - common"]
    top += ["  'G@os_family:Debian':", "    - match: compound", f"    - sub{i}"]
    if f"{p}inc{i}.sls" in files:
        top += ["  'os_family:RedHat':", "    - match: grain", f"    - inc{i}"]
    top += ["  'web*':", f"    - sub{i}.leaf"]
    if rng.random() < 0.1:
        top += ["  'db*':", "    - nope"]
    if rng.random() < 0.1:
        top += ["  '*':" if rng.random() < 0.5 else "  'I@shared:*':", "    - ignore_missing: True", "    - gone"]
    files[f"{p}top.sls"] = "\n".join(top) + "\n"
    return files


def gen_case(rng, case_dir):
    nrepos = rng.randint(1, 3)
    glob_root = "pillar" if rng.random() < 0.15 else ""
    roots = [glob_root or rng.choice(["", "", "pillar"]) for _ in range(nrepos)]
    mounted = [i > 0 and rng.random() < 0.3 for i in range(nrepos)]
    repos = []
    for i in range(nrepos):
        others = [f"{'mounted.' if mounted[j] else ''}{rng.choice(['r', 'sub'])}{j}" for j in range(nrepos) if j != i]
        path = os.path.join(case_dir, f"repo{i}")
        branches, tags = make_repo(rng, path, lambda ref: ref_files(rng, i, ref, roots[i], others), BRANCHES, TAGS, 1)
        repos.append((path, branches, tags))
    conf = {
        "file_client": "local",
        "cachedir": os.path.join(case_dir, "var", "cache"),
        "git_pillar_provider": "gitpython",
        "pillar_roots": {},
        "enable_fqdns_grains": False,
    }
    if glob_root:
        conf["git_pillar_root"] = glob_root
    if rng.random() < 0.3:
        conf["pillarenv"] = rng.choice(["base", "dev", "qa", "v1"])
    if rng.random() < 0.15:
        conf["saltenv"] = rng.choice(["base", "dev", "qa"])
    if rng.random() < 0.2:
        conf["git_pillar_includes"] = False
    if rng.random() < 0.15:
        conf["git_pillar_base"] = rng.choice(["dev", "main"])
    if rng.random() < 0.1:
        conf["git_pillar_branch"] = "dev"
    if rng.random() < 0.1:
        conf["git_pillar_env"] = rng.choice(["base", "qa"])
    conf["pillar_source_merging_strategy"] = rng.choice(["smart", "smart", "recurse", "overwrite"])
    if rng.random() < 0.3:
        conf["pillar_merge_lists"] = True
    if rng.random() < 0.2:
        conf["ext_pillar_first"] = True
    if rng.random() < 0.25:
        local = os.path.join(case_dir, "local")
        write(os.path.join(local, "top.sls"), "base:\n  '*':\n    - loc\n")
        write(os.path.join(local, "loc.sls"), "shared: local\ncommon:\n  list: [local]\n  loc: 1\n")
        conf["pillar_roots"] = {"base": [local]}
    remotes = []
    used = set()
    for i, (path, branches, tags) in enumerate(repos):
        for _ in range(rng.choice([1, 1, 2])):
            url = "file://" + path
            pool = branches + tags + ["__env__", "__env__"]
            if rng.random() < 0.05:
                pool.append("missing")
            branch = rng.choice(pool)
            form = "plain" if rng.random() < 0.15 else "branch"
            rid = url if form == "plain" else f"{branch} {url}"
            if rid in used:
                continue
            used.add(rid)
            if form == "plain":
                branch = conf.get("git_pillar_branch", "master")
            per = []
            if roots[i] and roots[i] != glob_root:
                per.append({"root": roots[i]})
            if mounted[i]:
                per.append({"mountpoint": "salt://mounted"})
            if rng.random() < 0.2:
                per.append({"env": rng.choice(["base", "dev", "qa", "__env__"])})
            if rng.random() < 0.2:
                per.append({"name": f"n{i}-{len(remotes)}"})
            if branch == "__env__":
                if rng.random() < 0.25:
                    per.append({"all_saltenvs": rng.choice(branches)})
                if rng.random() < 0.2:
                    per.append({"base": rng.choice(branches)})
            if (branch in ("__env__", "missing")) and rng.random() < 0.4:
                per.append({"fallback": rng.choice(branches)})
            remotes.append({rid: per} if per else rid)
    if len(remotes) > 1 and rng.random() < 0.2:
        cut = rng.randint(1, len(remotes) - 1)
        conf["ext_pillar"] = [{"git": remotes[:cut]}, {"git": remotes[cut:]}]
    else:
        conf["ext_pillar"] = [{"git": remotes}]
    write(os.path.join(case_dir, "etc", "minion"), json.dumps(conf, indent=1) + "\n")
    return conf


def fleet_of(rng, host):
    fleet = {}
    for n in range(3):
        name, family = rng.choice(FAMILIES)
        role = rng.choice(["web", "db", "app"])
        mid = f"{role}{n}.example.com"
        g = copy.deepcopy(host)
        g.update({"id": mid, "fqdn": mid, "host": mid.split(".")[0], "nodename": mid.split(".")[0], "os": name, "os_family": family, "roles": [role]})
        fleet[mid] = g
    return fleet


def run_salt(case_dir, conf, fleet):
    result = {}
    for mid, grains in fleet.items():
        d = os.path.join(case_dir, "m", mid)
        config = os.path.join(d, "minion")
        write(config, json.dumps(dict(conf, id=mid, grains=grains), indent=1) + "\n")
        # This machine's grains once (top_driver keeps them per id): the static grains carry
        # every one of its keys and override them all.
        top_driver._HOST_GRAINS.setdefault((mid, False, "[]"), grains)
        try:
            minion = top_driver.new_minion(config)
            result[mid] = {"pillar": salt_call(config, "pillar.items", pillar_items_args(), minion)}
        except Exception as exc:  # noqa: BLE001 - Salt raised: salt-call prints a traceback
            result[mid] = {"exception": describe_exception(exc)}
    return result


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    t0 = time.time()
    top_driver.setup_salt()
    import salt.config
    import salt.loader

    opts = salt.config.minion_config(None)
    opts["cachedir"] = os.path.join(out, "host-cache")
    host = json.loads(json.dumps(salt.loader.grains(opts), default=repr))
    for n in range(count):
        rng = random.Random(seed * 100003 + n)
        case_dir = os.path.join(out, f"{n:03d}")
        os.makedirs(case_dir)
        conf = gen_case(rng, case_dir)
        fleet = fleet_of(rng, host)
        with open(os.path.join(case_dir, "fleet.json"), "w", encoding="utf-8") as fh:
            json.dump(fleet, fh, indent=1)
        result = run_salt(case_dir, conf, fleet)
        shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
        with open(os.path.join(case_dir, "salt.json"), "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
    print(f"gitpillar cases: {count} in {time.time() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
