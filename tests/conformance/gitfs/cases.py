#!/usr/bin/env python3
"""Generated gitfs cases and real Salt 3008's answers for them, in one Python process.

Usage: PYTHON cases.py OUT COUNT SEED

Each case is OUT/NNN with git repositories (work trees made with the `git` command: branches,
tags, a `root` layout, files that differ per ref), `etc/minion` serving them over `file://`
remotes with random global and per-remote gitfs options (`root`, `mountpoint`, `base`,
`saltenv` mappings, `ref_types`, white/blacklists, `disable_saltenv_mapping`, `all_saltenvs`),
a `fileserver_backend` with `roots` before or after `gitfs` or alone, and `salt.json`: what

    salt-call --local -c CASE/etc state.show_top / state.show_lowstate --out=json

print under `local` (GitPython is Salt's gitfs provider; its cache goes to CASE/var).
"""

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
from salt_driver import describe_exception, salt_call  # noqa: E402

BRANCHES = ["dev", "qa", "feature/x", "prod"]
TAGS = ["v1", "v2.0"]


def state(sid, name):
    return f"{sid}:\n  test.succeed_without_changes:\n    - name: {json.dumps(name)}\n"


def ref_files(rng, i, ref, root, envs, names):
    """The files of repository i at ref: SLS under root, one file outside it, a top in repo 0."""
    tag = ref.replace("/", "-")
    files = {}
    p = f"{root}/" if root else ""
    files[f"{p}app{i}.sls"] = state(f"r{i}-{tag}-app", f"r{i} {ref} app")
    if rng.random() < 0.95:
        files[f"{p}lib{i}/init.sls"] = "include:\n  - .common\n" + state(f"r{i}-{tag}-lib", f"r{i} {ref} lib")
        files[f"{p}lib{i}/common.sls"] = state(f"r{i}-{tag}-common", f"r{i} {ref} common")
    if rng.random() < 0.6:
        files[f"{p}shared.sls"] = state(f"r{i}-{tag}-shared", f"r{i} {ref} shared")
    files["outside.sls"] = state(f"r{i}-{tag}-outside", "outside the root")
    if i == 0:
        pool = list(names)
        if rng.random() < 0.1:
            pool.append(rng.choice(["outside", "nope", "formulas.app1"]))
        top = {"base": {"*": sorted(set(rng.sample(pool, rng.randint(1, 3))))}}
        other = rng.choice(envs)
        if other != "base" and rng.random() < 0.7:
            top[other] = {"*": sorted(set(rng.sample(pool, rng.randint(1, 2))))}
        files[f"{p}top.sls"] = json.dumps(top) + "\n"
    return files


def gen_case(rng, case_dir):
    envs = ["base", "dev", "qa", "prod", "feature/x", "v1", "stable"]
    nrepos = rng.randint(1, 3)
    roots = [rng.choice(["", "", "states"]) for _ in range(nrepos)]
    remotes = []
    glob_root = ""
    if all(r == "states" for r in roots) and rng.random() < 0.5:
        glob_root = "states"
    mounted = [i > 0 and rng.random() < 0.4 for i in range(nrepos)]
    # The SLS names the repositories' files may have, for the top files to target.
    names = []
    for i in range(nrepos):
        pre = "formulas." if mounted[i] else ""
        names += [f"{pre}app{i}", f"{pre}lib{i}", f"{pre}lib{i}.common"]
    if rng.random() < 0.5:
        names.append("shared")
    for i in range(nrepos):
        path = os.path.join(case_dir, f"repo{i}")
        branches, tags = make_repo(rng, path, lambda ref: ref_files(rng, i, ref, roots[i], envs, names), BRANCHES, TAGS)
        per = []
        if roots[i] and roots[i] != glob_root:
            per.append({"root": roots[i]})
        if mounted[i]:
            per.append({"mountpoint": "salt://formulas"})
        if rng.random() < 0.2:
            per.append({"base": rng.choice(branches + tags)})
        if rng.random() < 0.3:
            mapping = []
            for env in rng.sample(["qa", "prod", "stable", "base"], rng.randint(1, 2)):
                conf = [{"ref": rng.choice(branches + tags + ["missing"])}]
                if rng.random() < 0.2:
                    conf.append({"mountpoint": "salt://formulas"})
                mapping.append({env: conf})
            per.append({"saltenv": mapping})
        if rng.random() < 0.2:
            per.append({"ref_types": rng.sample(["branch", "tag", "sha"], rng.randint(1, 3))})
        if rng.random() < 0.1:
            per.append({"disable_saltenv_mapping": True})
        if i > 0 and rng.random() < 0.1:
            per.append({"all_saltenvs": rng.choice(branches)})
        if rng.random() < 0.15:
            per.append({"saltenv_whitelist": ["base", "d.*"]})
        url = "file://" + path
        remotes.append({url: per} if per else url)
    conf = {
        "id": "m1",
        "file_client": "local",
        "cachedir": os.path.join(case_dir, "var", "cache"),
        "gitfs_provider": "gitpython",
        "gitfs_remotes": remotes,
        "top_file_merging_strategy": rng.choice(["merge", "merge", "same"]),
    }
    if glob_root:
        conf["gitfs_root"] = glob_root
    backend = rng.choice([["gitfs"], ["gitfs"], ["roots", "gitfs"], ["gitfs", "roots"]])
    conf["fileserver_backend"] = backend
    srv = os.path.join(case_dir, "srv")
    conf["file_roots"] = {"base": [srv]}
    write(os.path.join(srv, "app1.sls"), state("roots-app1", "from roots"))
    if rng.random() < 0.5:
        write(os.path.join(srv, "top.sls"), json.dumps({"base": {"*": ["app1", rng.choice(["app0", "lib0", "shared"])]}}) + "\n")
    if rng.random() < 0.15:
        conf["gitfs_ref_types"] = rng.choice([["branch"], ["branch", "tag"], ["tag", "branch", "sha"]])
    if rng.random() < 0.15:
        conf["gitfs_saltenv_blacklist"] = ["feature/*"]
    if rng.random() < 0.1:
        conf["gitfs_disable_saltenv_mapping"] = True
    if rng.random() < 0.15:
        conf["gitfs_saltenv"] = [{"stable": [{"ref": "master"}]}]
    if rng.random() < 0.1:
        conf["gitfs_base"] = rng.choice(["dev", "v1"])
    write(os.path.join(case_dir, "etc", "minion"), json.dumps(conf, indent=1) + "\n")
    write(os.path.join(case_dir, "case.json"), json.dumps({"kind": "gitfs"}) + "\n")


def run_salt(case_dir):
    import salt.utils.gitfs

    config = os.path.join(case_dir, "etc", "minion")
    result = {}
    # GitFS is one object per process (per io_loop), built with the first case's options.
    salt.utils.gitfs.GitFS.instance_map.clear()
    try:
        minion = top_driver.new_minion(config)
    except Exception as exc:  # noqa: BLE001
        return {"top": {"exception": describe_exception(exc)}, "lowstate": {"exception": describe_exception(exc)}}
    for key, fun in (("top", "state.show_top"), ("lowstate", "state.show_lowstate")):
        try:
            result[key] = {"result": salt_call(config, fun, [], minion)}
        except Exception as exc:  # noqa: BLE001 - Salt raised: salt-call prints a traceback
            result[key] = {"exception": describe_exception(exc)}
    return result


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    t0 = time.time()
    top_driver.setup_salt()
    for n in range(count):
        rng = random.Random(seed * 100003 + n)
        case_dir = os.path.join(out, f"{n:03d}")
        os.makedirs(case_dir)
        gen_case(rng, case_dir)
        result = run_salt(case_dir)
        shutil.rmtree(os.path.join(case_dir, "var"), ignore_errors=True)
        with open(os.path.join(case_dir, "salt.json"), "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
    print(f"gitfs cases: {count} in {time.time() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
