"""Generated git repositories for the gitfs and git_pillar conformance suites: work trees made
with the `git` command, a `master` branch and others from a pool, annotated tags on commits of
their own, each ref with the files a callback gives for it."""

import os
import shutil
import subprocess

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"]


def git(cwd, *args):
    subprocess.run(GIT + list(args), cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def make_repo(rng, path, files_at, branches_pool, tags_pool, min_branches=0):
    """A repository at path: `master` plus 0-3 (at least min_branches) branches of
    branches_pool and 0-2 tags of tags_pool, each tag an annotated tag on a commit of its own
    on top of a random branch; files_at(ref) gives each ref's files. Returns (branches, tags)."""
    os.makedirs(path)
    git(path, "init", "-q", "-b", "master")
    branches = ["master"] + rng.sample(branches_pool, rng.randint(min_branches, 3))
    tags = rng.sample(tags_pool, rng.randint(0, 2))
    for n, ref in enumerate(branches):
        if n > 0:
            git(path, "checkout", "-q", "-b", ref, "master")
        for f in os.listdir(path):
            if f != ".git":
                shutil.rmtree(os.path.join(path, f)) if os.path.isdir(os.path.join(path, f)) else os.remove(os.path.join(path, f))
        for rel, text in files_at(ref).items():
            write(os.path.join(path, rel), text)
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", ref)
    for t in tags:
        at = rng.choice(branches)
        git(path, "checkout", "-q", at)
        for rel, text in files_at(t).items():
            write(os.path.join(path, rel), text)
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", t)
        git(path, "tag", "-a", t, "-m", t)
        git(path, "checkout", "-q", "-f", at)
        git(path, "reset", "-q", "--hard", f"{t}~1")
    git(path, "checkout", "-q", "master")
    return branches, tags
