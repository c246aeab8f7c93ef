"""Generate salt-analyzer's execution-module catalog of one Salt release line from the
installed Salt (run it under each release's Python: 3006, 3007, 3008).

    tests/.work/venv-3006/bin/python tests/conformance/gen_exec_catalog.py [OUT]
    tests/.work/venv-3007/bin/python tests/conformance/gen_exec_catalog.py [OUT]
    tests/.work/venv/bin/python tests/conformance/gen_exec_catalog.py [OUT]
    /tmp/venvs/saltexts/bin/python tests/conformance/gen_exec_catalog.py --saltexts [OUT]

Writes compact JSON (to OUT, default server/model/src/render/salt_fns/exec-MAJOR.json, MAJOR
the installed Salt's release line):

    {"salt": VERSION, "modules": {NAME: "FUNCTION FUNCTION ..."}}

Only what the renderer needs: which functions `salt['mod.fun']` can find. The functions of a
module are one string of names, sorted, separated by one space (with every signature, as
gen_state_catalog.py writes state modules, 3006's catalog is 717 kB; its names are 83 kB, and
the files are embedded in the binary).

Which modules and functions: as gen_state_catalog.py finds them for `salt/states/*.py` (its
helpers, imported), for every `salt/modules/*.py` Salt ships: imported (never `__virtual__`,
never a function), named `__virtualname__` or the file name, its public functions as the
loader packs them, renamed by `__func_alias__`. Several files that claim one name (`pkg`:
`aptpkg.py`, `yumpkg.py`, ...) are merged: which one a minion loads depends on its host, so
a function any of them defines may exist.

With `--saltexts` (under the venv gen_saltext_catalog.py's docstring sets up: Salt 3008 and
every extension of tests/conformance/saltexts.txt, installed with `--no-deps`): the execution
modules of every installed distribution with a `salt.loader` entry point, found as Salt's
loader finds them (`salt/loader/__init__.py` `_module_dirs`: a package's `modules`
subdirectory, a callable's returned `{"modules": [DIR, ...]}`, or its list when the entry
point is named `module_dirs`), written (default server/model/src/render/salt_fns/saltexts-exec.json) as

    {"salt": VERSION, "packages": {NAME: {"version": VERSION, "modules": {NAME: "FUNCTION ..."}}}}

NAME normalised as gen_saltext_catalog.py normalises it; every such distribution is listed,
also one without execution modules.
"""

import os
import sys
import warnings

import salt
import salt.version

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_state_catalog import collect, module_files, write  # noqa: E402
from gen_saltext_catalog import catalog  # noqa: E402

OUT_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "server", "model", "src", "render", "salt_fns")


def names(modules):
    """`{NAME: {FUNCTION: facts}}` as `{NAME: "FUNCTION ..."}`."""
    return {name: " ".join(sorted(functions)) for name, functions in sorted(modules.items())}


def saltexts(out):
    packages, failed = catalog("modules")
    for f in failed:
        print("not importable:", f, file=sys.stderr)
    packages = {name: {"version": p["version"], "modules": names(p["modules"])} for name, p in packages.items()}
    write({"salt": salt.version.__version__, "packages": packages}, out)
    print(
        f"{len(packages)} packages ({sum(1 for v in packages.values() if v['modules'])} with execution modules), "
        f"{sum(len(v['modules']) for v in packages.values())} modules -> {out}",
        file=sys.stderr,
    )


def main():
    warnings.simplefilter("ignore")
    args = sys.argv[1:]
    if args[:1] == ["--saltexts"]:
        saltexts(args[1] if len(args) > 1 else os.path.join(OUT_DIR, "saltexts-exec.json"))
        return
    major = salt.version.__saltstack_version__.major
    out = args[0] if args else os.path.join(OUT_DIR, f"exec-{major}.json")
    modules_dir = os.path.join(os.path.dirname(salt.__file__), "modules")
    modules, failed = collect(module_files(modules_dir, "salt.modules"), {})
    for f in failed:
        print("not importable:", f, file=sys.stderr)
    write({"salt": salt.version.__version__, "modules": names(modules)}, out)
    print(f"{len(modules)} modules, {sum(len(v) for v in modules.values())} functions -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
