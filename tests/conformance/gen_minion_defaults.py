#!/usr/bin/env python3
"""Writes server/model/src/workspace/minion_defaults.json: the options Salt's own
`salt.config.minion_config` gives a minion whose config says only `file_client: local`,
without what depends on the host or the config file (id, grains, pillar, roots, paths of
the config). Templates see them in `opts` (`opts['renderer']`, `config.get('hash_type')`).
Run it with the Salt the conformance suites use: tests/.work/venv/bin/python THIS."""
import json
import os
import sys
import tempfile

import salt.config
import salt.version

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "server", "model", "src", "workspace", "minion_defaults.json")
SKIP = {"grains", "pillar", "id", "conf_file", "file_roots", "pillar_roots", "__role", "local", "saltversion", "master_uri"}


def plain(v):
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [plain(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return None


with tempfile.TemporaryDirectory() as d:
    conf = os.path.join(d, "minion")
    with open(conf, "w") as f:
        f.write("file_client: local\n")
    opts = salt.config.minion_config(conf)
    out = {}
    for k, v in sorted(opts.items()):
        if k in SKIP:
            continue
        v = plain(v)
        if d in json.dumps(v):
            continue
        out[k] = v
out = {"_salt_version": salt.version.__version__, "opts": out}
with open(OUT, "w") as f:
    json.dump(out, f, indent=0, sort_keys=True)
    f.write("\n")
print(f"{len(out['opts'])} options from Salt {out['_salt_version']} -> {os.path.normpath(OUT)}", file=sys.stderr)
