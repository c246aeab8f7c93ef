#!/usr/bin/env python3
"""Copy the render corpus into a work directory and give every case its Salt config.

Usage: python3 materialize.py [--only NAME] CORPUS OUT

For every CORPUS/NAME (a directory with case.json, minion.yaml and srv/) this writes

    OUT/NAME/case.json      copied
    OUT/NAME/srv/...        copied (the file roots of `base`)
    OUT/NAME/etc/minion     the fixed settings below (absolute paths under OUT/NAME), then
                            minion.yaml verbatim (id, static grains and pillar, other opts)

Salt wants absolute file_roots, so cases run from the materialised copy only. The fixed
settings keep Salt local, quiet and inside the case directory; minion.yaml may not set them.
"""

import argparse
import json
import os
import shutil
import sys

RESERVED = (
    "file_client",
    "root_dir",
    "cachedir",
    "pki_dir",
    "sock_dir",
    "pidfile",
    "log_file",
    "log_level_logfile",
    "file_roots",
    "pillar_roots",
    "enable_fqdns_grains",
    "mine_enabled",
)

HEADER = """\
# Written by tests/conformance/render/materialize.py: the fixed settings, then the case's minion.yaml.
file_client: local
root_dir: {case}/var
cachedir: {case}/var/cache
pki_dir: {case}/var/pki
sock_dir: {case}/var/sock
pidfile: {case}/var/run/minion.pid
log_file: {case}/var/log/minion
log_level_logfile: warning
enable_fqdns_grains: false
mine_enabled: false
file_roots:
  base:
    - {case}/srv
pillar_roots:
  base:
    - {case}/pillar
# --- minion.yaml ---
"""


def materialize(src, dst):
    for need in ("case.json", "minion.yaml", "srv"):
        if not os.path.exists(os.path.join(src, need)):
            raise SystemExit(f"materialize: {src} has no {need}")
    with open(os.path.join(src, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    if not os.path.isfile(os.path.join(src, "srv", meta["sls"])):
        raise SystemExit(f"materialize: {src}: srv/{meta['sls']} does not exist")
    with open(os.path.join(src, "minion.yaml"), encoding="utf-8") as fh:
        minion = fh.read()
    for line in minion.splitlines():
        key = line.split(":", 1)[0].strip()
        if not line.startswith((" ", "#", "-")) and key in RESERVED:
            raise SystemExit(f"materialize: {src}/minion.yaml sets {key}, which materialize.py owns")
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.join(dst, "etc"))
    shutil.copytree(os.path.join(src, "srv"), os.path.join(dst, "srv"))
    shutil.copyfile(os.path.join(src, "case.json"), os.path.join(dst, "case.json"))
    with open(os.path.join(dst, "etc", "minion"), "w", encoding="utf-8") as fh:
        fh.write(HEADER.format(case=os.path.abspath(dst)))
        fh.write(minion if minion.endswith("\n") else minion + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--only", action="append")
    a = ap.parse_args()
    names = sorted(n for n in os.listdir(a.corpus) if os.path.isfile(os.path.join(a.corpus, n, "case.json")))
    if a.only:
        names = [n for n in names if n in a.only]
    os.makedirs(a.out, exist_ok=True)
    for name in names:
        materialize(os.path.join(a.corpus, name), os.path.join(a.out, name))
    print(f"materialize: {len(names)} cases into {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
