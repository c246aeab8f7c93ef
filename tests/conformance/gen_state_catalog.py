"""Generate salt-analyzer's state-function catalog of one Salt release line from the
installed Salt (run it under each release's Python: 3006, 3007, 3008).

    tests/.work/venv-3006/bin/python tests/conformance/gen_state_catalog.py [OUT]
    tests/.work/venv-3007/bin/python tests/conformance/gen_state_catalog.py [OUT]
    tests/.work/venv/bin/python tests/conformance/gen_state_catalog.py [OUT]

Writes compact JSON (to OUT, default server/model/src/state/catalog-MAJOR.json, MAJOR the
installed Salt's release line):

    {"salt": VERSION, "modules": {NAME: {FUNCTION: {"args": [[ARG, DEFAULT_REPR_OR_NULL], ...],
                                                    "kwargs": BOOL, "deprecated": TEXT_OR_NULL}}}}

Facts only (names, signatures, Salt's deprecation words), no documentation text.

Which modules and functions, as Salt's loader (`salt/loader/lazy.py` `_load_module`) names
them, but for every state module Salt ships, not only those whose `__virtual__` passes on this
host (what `baredoc.list_states` lists by parsing sources): each `salt/states/*.py` is imported
(never `__virtual__`, never a state function), its name is `__virtualname__` or the file name;
its functions are `__load__`, else `__all__`, else `dir(module)`, minus names starting with
`_`, minus anything that is not a function or a `functools.partial`, minus functions imported
from another module (`_only_pack_properly_namespaced_functions`), renamed by `__func_alias__`.
Two files claiming one name: the one a Linux minion of this Salt loads by default, picked
below (`DEFAULT_FILE`), else both (the loader merges them).

Deprecation, where Salt itself says so when the function is called:
  * the module has `__deprecated__` (the loader wraps every function in
    `extension_deprecation_message`): that decorator's message;
  * the function body calls `salt.utils.versions.warn_until(...)` unconditionally (a statement
    of the function's own body, not inside a branch): its message;
  * the function's docstring opens a top-level `.. deprecated:: VERSION` directive: the
    directive's line and the lines indented under it.
"""

import ast
import functools
import importlib
import inspect
import json
import os
import sys
import textwrap
import warnings

import salt
import salt.version

# Virtual names claimed by several files whose `__virtual__` lets only one load: the file a
# Linux minion of this Salt loads with default options. 3008: `x509.py` declines unless
# `features: {x509_v2: false}`; 3006 and 3007: `x509_v2.py` declines unless
# `features: {x509_v2: true}`. `win_network.py` loads on Windows only. Any other name claimed
# twice is loaded from both files (`nxos.py` and `nxos_upgrade.py` in 3006 and 3007): the
# loader keeps loading files until it finds the function asked for, so it has the union.
DEFAULT_FILE = {
    "x509": "x509_v2" if salt.version.__saltstack_version__.major >= 3008 else "x509",
    "network": "network",
}


def deprecation_of_module(mod):
    dep = getattr(mod, "__deprecated__", None)
    if not dep:
        return None
    version, extension_name, extension_repo = dep
    # salt/utils/decorators/extension_deprecation.py, formatted as salt.utils.versions.warn_until does.
    message = (
        f"The '{extension_name}' functionality in Salt has been deprecated and its "
        "functionality will be removed in version {version} in favor of the "
        f"saltext.{extension_name} Salt Extension. "
        f"({extension_repo})"
    )
    v = salt.version.SaltStackVersion.from_name(version) if isinstance(version, str) else salt.version.SaltStackVersion(version)
    return message.format(version=v.formatted_version)


def is_warn_until(call):
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr == "warn_until" and ast.unparse(f.value).endswith("versions")


def deprecation_of_function(fdef, mod):
    for stmt in fdef.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and is_warn_until(stmt.value):
            call = stmt.value
            message = None
            for kw in call.keywords:
                if kw.arg == "message":
                    message = kw.value
            if message is None and len(call.args) >= 2:
                message = call.args[1]
            if message is not None:
                try:
                    return str(ast.literal_eval(message))
                except ValueError:
                    return ast.unparse(message)
    doc = ast.get_docstring(fdef)
    if doc:
        lines = doc.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(".. deprecated::"):
                out = [line]
                for more in lines[i + 1 :]:
                    if more.strip() and not more.startswith((" ", "\t")):
                        break
                    out.append(more)
                return "\n".join(textwrap.dedent("\n".join(out)).strip().splitlines())
    return None


def default_repr(value):
    """The Python repr of a default, but `sys.executable` (buildout's `python=sys.executable`)
    as the source writes it: its value is the generating interpreter's path."""
    if isinstance(value, str) and value == sys.executable:
        return "sys.executable"
    return repr(value)


def function_facts(func, fdef, mod, module_deprecation):
    sig = inspect.signature(func)
    args, kwargs = [], False
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            kwargs = True
        elif p.kind == p.VAR_POSITIONAL:
            continue
        else:
            args.append([p.name, None if p.default is p.empty else default_repr(p.default)])
    deprecated = module_deprecation
    if deprecated is None and fdef is not None:
        deprecated = deprecation_of_function(fdef, mod)
    return {"args": args, "kwargs": kwargs, "deprecated": deprecated}


def load(modname, stem, path):
    """The loader's name for the state module file `path` (imported as `modname`) and its
    functions' facts."""
    mod = importlib.import_module(modname)
    with open(path, encoding="utf8") as fh:
        tree = ast.parse(fh.read())
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    name = getattr(mod, "__virtualname__", None) or stem
    try:
        names = mod.__load__
    except AttributeError:
        names = getattr(mod, "__all__", None) or dir(mod)
    module_deprecation = deprecation_of_module(mod)
    aliases = getattr(mod, "__func_alias__", {})
    functions = {}
    for attr in names:
        if attr.startswith("_"):
            continue
        func = getattr(mod, attr)
        if not inspect.isfunction(func) and not isinstance(func, functools.partial):
            continue
        if getattr(func, "__module__", None) != mod.__name__:
            continue
        functions[aliases.get(attr, attr)] = function_facts(func, defs.get(attr), mod, module_deprecation)
    return name, functions


def collect(files, default_file):
    """The modules of `files` (`(stem, modname, path)`, sorted by stem) as the loader names
    them, with `default_file` picking between files that claim one name. Returns the sorted
    modules and the files that could not be imported."""
    modules, failed = {}, []
    for stem, modname, path in files:
        try:
            name, functions = load(modname, stem, path)
        except Exception as exc:  # an import Salt's loader would also fail: report, do not list
            failed.append(f"{modname}: {exc!r}")
            continue
        if name in modules and name not in default_file:
            # Both files load under one name; of a function both define, the later file's.
            modules[name].update(functions)
            continue
        if name in modules and default_file[name] != stem:
            continue
        modules[name] = functions
    return {k: dict(sorted(v.items())) for k, v in sorted(modules.items())}, failed


def module_files(directory, package):
    """`(stem, modname, path)` of the state module files in `directory` (the package `package`)."""
    return [
        (f[:-3], f"{package}.{f[:-3]}", os.path.join(directory, f))
        for f in sorted(os.listdir(directory))
        if f.endswith(".py") and f != "__init__.py"
    ]


def write(data, out):
    with open(out, "w", encoding="utf8") as fh:
        json.dump(data, fh, separators=(",", ":"), sort_keys=False)
        fh.write("\n")


def main():
    major = salt.version.__saltstack_version__.major
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "server", "model", "src", "state", f"catalog-{major}.json"
    )
    warnings.simplefilter("ignore")
    states_dir = os.path.join(os.path.dirname(salt.__file__), "states")
    modules, failed = collect(module_files(states_dir, "salt.states"), DEFAULT_FILE)
    for f in failed:
        print("not importable:", f, file=sys.stderr)
    write({"salt": salt.version.__version__, "modules": modules}, out)
    print(f"{len(modules)} modules, {sum(len(v) for v in modules.values())} functions -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
