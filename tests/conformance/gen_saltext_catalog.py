"""Generate salt-analyzer's catalog of the state modules that Salt extensions (saltext
packages) add, from the extensions installed beside Salt 3008.

    python3 -m venv /tmp/venvs/saltexts
    /tmp/venvs/saltexts/bin/pip install 'salt==3008.4' PyGithub==2.10.0 pyhumps==3.8.0 pyvmomi==7.0.3
    /tmp/venvs/saltexts/bin/pip install --no-deps -r tests/conformance/saltexts.txt
    /tmp/venvs/saltexts/bin/python tests/conformance/gen_saltext_catalog.py [OUT]

(`--no-deps`: the generator imports the state module files and reads their signatures; it
never runs `__virtual__`, so the services' client libraries, whose pins often clash between
extensions, are not needed; the three named libraries are the ones saltext-github,
saltext-bitwarden and saltext-vmware import at module level. To add an extension, add its
pinned name to tests/conformance/saltexts.txt and regenerate.) Writes compact JSON (to OUT, default
server/model/src/state/saltexts.json):

    {"salt": VERSION, "packages": {NAME: {"version": VERSION, "modules": {MODULE: {FUNCTION: ...}}}}}

NAME is the distribution's name normalised as PEP 503 does (`saltext.mysql` ->
`saltext-mysql`); each MODULE's functions have the shape of gen_state_catalog.py's. Every
installed distribution with a `salt.loader` entry point is listed, also one without state
modules (so listing it under `saltexts:` is not an error).

Which directories, as Salt's loader finds an extension's state modules
(`salt/loader/__init__.py` `_module_dirs`): each `salt.loader` entry point is loaded; a
package's `states` subdirectory; a callable's returned `{"states": [DIR, ...]}`, or its list
when the entry point is named `states_dirs` (the old form). The modules and functions of each
directory are then found as gen_state_catalog.py finds Salt's own.
"""

import importlib.metadata
import os
import re
import sys
import types
import warnings

import salt.version

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_state_catalog import collect, module_files, write  # noqa: E402


def normalise(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def dotted(directory):
    """The importable package name of `directory`, from the `sys.path` entry it lies under."""
    directory = os.path.realpath(directory)
    for entry in sys.path:
        entry = os.path.realpath(entry or ".")
        if directory.startswith(entry + os.sep):
            return os.path.relpath(directory, entry).replace(os.sep, ".")
    raise SystemExit(f"{directory} is under no sys.path entry")


def states_dirs(entry_point, kind="states"):
    """The directories of `kind` (`states`, `modules`) a `salt.loader` entry point names."""
    loaded = entry_point.load()
    dirs = []
    if isinstance(loaded, types.FunctionType):
        value = loaded()
        if isinstance(value, dict):
            dirs.extend(value.get(kind, []))
        elif entry_point.name == {"states": "states_dirs", "modules": "module_dirs"}[kind]:
            dirs.extend(value)
    elif isinstance(loaded, types.ModuleType):
        dirs.extend(os.path.join(p, kind) for p in loaded.__path__)
    return [d for d in dirs if os.path.isdir(d)]


def catalog(kind="states"):
    """`({NAME: {"version": V, "modules": {MODULE: {FUNCTION: ...}}}}, [failure, ...])`: the
    modules of `kind` of every installed distribution with a `salt.loader` entry point."""
    packages, failed = {}, []
    for dist in importlib.metadata.distributions():
        eps = [ep for ep in dist.entry_points if ep.group == "salt.loader"]
        if not eps:
            continue
        name = normalise(dist.metadata["Name"])
        files = []
        for ep in eps:
            try:
                dirs = states_dirs(ep, kind)
            except Exception as exc:  # Salt's loader skips an entry point that fails to load
                failed.append(f"{name} {ep.value}: {exc!r}")
                continue
            for d in dirs:
                files.extend(module_files(d, dotted(d)))
        modules, bad = collect(sorted(files), {})
        failed.extend(f"{name} {b}" for b in bad)
        packages[name] = {"version": dist.version, "modules": modules}
    return dict(sorted(packages.items())), failed


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "server", "model", "src", "state", "saltexts.json"
    )
    warnings.simplefilter("ignore")
    packages, failed = catalog("states")
    for f in failed:
        print("not importable:", f, file=sys.stderr)
    write({"salt": salt.version.__version__, "packages": packages}, out)
    with_states = {k: v for k, v in packages.items() if v["modules"]}
    print(
        f"{len(packages)} packages ({len(with_states)} with state modules), "
        f"{sum(len(v['modules']) for v in packages.values())} modules, "
        f"{sum(len(m) for v in packages.values() for m in v['modules'].values())} functions -> {out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
