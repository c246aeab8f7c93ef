"""Generate salt-analyzer's state-function catalog of one Salt release line from the
installed Salt (run it under each release's Python: 3006, 3007, 3008).

    tests/.work/venv-3006/bin/python tests/conformance/gen_state_catalog.py [OUT]
    tests/.work/venv-3007/bin/python tests/conformance/gen_state_catalog.py [OUT]
    tests/.work/venv/bin/python tests/conformance/gen_state_catalog.py [OUT]

Writes compact JSON (to OUT, default server/model/src/state/catalog-MAJOR.json, MAJOR the
installed Salt's release line):

    {"salt": VERSION, "modules": {NAME: {FUNCTION: {"args": [[ARG, DEFAULT_REPR_OR_NULL], ...],
                                                    "kwargs": BOOL, "deprecated": TEXT_OR_NULL,
                                                    "deprecated_args": {ARG: {"message": TEXT,
                                                                              "removed": VERSION}}}}}}

(`deprecated_args` only where there are some.)

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

Deprecated arguments, where Salt itself warns at run time that an argument the state passes is
going away (`deprecated_args`): a call of one of `salt/utils/versions.py`'s deprecation helpers
(`DEPRECATION_HELPERS`) in the function's own body, inside `if` branches whose tests are each
true as soon as the argument is passed: `"x" in kwargs`, `kwargs.get("x")`, `x is not None`
(`x` a parameter defaulting to `None`, or a name bound once to `kwargs.get("x")` or
`kwargs.pop("x")`), `if x:` (`x` a parameter with a false default, or such a name, or a name
bound once to `{"x", ...}.intersection(kwargs)`), and `or` of those. Nothing in an `else`, an
`except`, a loop or a nested function, nothing behind a test on another value (`if x is None`:
a warning about a default, `if key_is_insecure`), no argument-level `.. deprecated::` or
`.. versionchanged::` text (Salt does not warn of those). The message is what the helper
itself warns when called with the call's literal arguments (`kwargs_warn_until` with the one
argument passed), so the version reads as Salt prints it; `removed` is the helper's version
argument as `SaltStackVersion.formatted_version` writes it (`3009.0 (Potassium)`), or
`warn_until_date`'s date.
"""

import ast
import contextlib
import datetime
import functools
import importlib
import inspect
import io
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


# The deprecation helpers of `salt/utils/versions.py` (the same three in 3006, 3007 and 3008).
DEPRECATION_HELPERS = ("warn_until", "warn_until_date", "kwargs_warn_until")

FALSE_DEFAULTS = (None, False, 0, "", (), [], {})


def resolve_helper(func, mod):
    """The deprecation helper `func` (a call's callee) names in `mod`'s namespace, or None."""
    parts, node = [], func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None  # a dotted name only: nothing is called to find the helper
    helper = vars(mod).get(node.id)
    for attr in reversed(parts):
        helper = getattr(helper, attr, None)
    if getattr(helper, "__name__", None) in DEPRECATION_HELPERS and str(getattr(helper, "__module__", "")).endswith("versions"):
        return helper
    return None


def removal_version(helper, version):
    """The removal version `helper` is given (`3009`, `"Potassium"`, `(3009, 0)`, a date), as
    Salt writes it."""
    if helper.__name__ == "warn_until_date":
        if isinstance(version, str):
            version = datetime.datetime.strptime(version, "%Y%m%d")
        return (version.date() if isinstance(version, datetime.datetime) else version).isoformat()
    if isinstance(version, int):
        version = salt.version.SaltStackVersion(version)
    elif isinstance(version, tuple):
        version = salt.version.SaltStackVersion(*version)
    elif isinstance(version, str):
        version = salt.version.SaltStackVersion.from_name(version)
    return version.formatted_version


def salt_warning(helper, call, arg):
    """What `helper`, called as `call` is when the state got only the argument `arg`, warns, and
    the removal version; None when an argument of the call is not a literal."""
    names = list(inspect.signature(helper).parameters)
    bound = {}
    for i, a in enumerate(call.args):
        bound[names[i]] = a
    for kw in call.keywords:
        if kw.arg is None:
            return None
        bound[kw.arg] = kw.value
    values = {}
    for name, node in bound.items():
        if helper.__name__ == "kwargs_warn_until" and name == "kwargs":
            values[name] = [arg]  # the keys Salt passes on: the one argument given
            continue
        try:
            values[name] = ast.literal_eval(node)
        except ValueError:
            return None
    version = values.get("date" if helper.__name__ == "warn_until_date" else "version")
    if version is None:
        return None
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("always")
        try:
            helper(**values)
        except RuntimeError:  # RAISE_DEPRECATIONS_RUNTIME_ERRORS past the version: not what a minion says
            return None
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    if not said:
        return None
    return {"message": said[-1], "removed": removal_version(helper, version)}


def argument_aliases(fdef, kw):
    """Local names the function binds once, at its top level, to what says whether an argument
    was passed: `x = kwargs.get("x")` / `kwargs.pop("x")` (default None) -> ({"x"}, True), and
    `y = {"a", "b"}.intersection(kwargs)` -> ({"a", "b"}, False); the flag: `y is not None`
    means the argument was passed too."""
    stores = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    out = {}
    for stmt in fdef.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        name = stmt.targets[0].id
        if stores.get(name) != 1:
            continue
        got = kwargs_lookup(stmt.value, kw, ("get", "pop"))
        if got is not None:
            out[name] = ({got}, True)
            continue
        v = stmt.value
        if (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr == "intersection"
            and isinstance(v.func.value, ast.Set)
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in v.func.value.elts)
            and len(v.args) == 1
            and isinstance(v.args[0], ast.Name)
            and v.args[0].id == kw
        ):
            out[name] = ({e.value for e in v.func.value.elts}, False)
    return out


def kwargs_lookup(node, kw, methods=("get",)):
    """`x` for `kwargs.get("x")` (a default of None at most), else None."""
    if (
        kw
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in methods
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == kw
        and not node.keywords
        and 1 <= len(node.args) <= 2
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and (len(node.args) == 1 or (isinstance(node.args[1], ast.Constant) and node.args[1].value is None))
    ):
        return node.args[0].value
    return None


def passed_arguments(test, params, kw, aliases):
    """The arguments any one of which, passed, makes the `if` test `test` true; None when the
    test is about something else."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        out = set()
        for v in test.values:
            got = passed_arguments(v, params, kw, aliases)
            if got is None:
                return None
            out |= got
        return out
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.In) and isinstance(left, ast.Constant) and isinstance(left.value, str) and isinstance(right, ast.Name) and kw and right.id == kw:
            return {left.value}
        if isinstance(op, ast.IsNot) and isinstance(right, ast.Constant) and right.value is None:
            got = kwargs_lookup(left, kw)
            if got is not None:
                return {got}
            if isinstance(left, ast.Name):
                if left.id in params and params[left.id] is None:
                    return {left.id}
                if left.id in aliases and aliases[left.id][1]:
                    return set(aliases[left.id][0])
        return None
    got = kwargs_lookup(test, kw)
    if got is not None:
        return {got}
    if isinstance(test, ast.Name):
        if test.id in params and any(params[test.id] is d or params[test.id] == d and type(params[test.id]) is type(d) for d in FALSE_DEFAULTS):
            return {test.id}
        if test.id in aliases:
            return set(aliases[test.id][0])
    return None


def deprecated_arguments(func, fdef, mod):
    """The arguments of the state function `func` (defined by `fdef`, in `mod`) that Salt warns
    about when a state passes them: `{ARG: {"message": ..., "removed": ...}}`, sorted."""
    if fdef is None:
        return {}
    sig = inspect.signature(func)
    params = {p.name: p.default for p in sig.parameters.values() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.default is not p.empty}
    kw = fdef.args.kwarg.arg if fdef.args.kwarg else None
    aliases = argument_aliases(fdef, kw)
    found = {}

    def visit(stmts, guards):
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                visit(stmt.body, guards + [passed_arguments(stmt.test, params, kw, aliases)])
                visit(stmt.orelse, guards + [None])
            elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                visit(stmt.body, guards)
                visit(stmt.finalbody, guards)
                for h in stmt.handlers:
                    visit(h.body, guards + [None])
                visit(stmt.orelse, guards + [None])
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                visit(stmt.body, guards)
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or type(stmt).__name__ == "Match":
                continue
            elif guards and None not in guards:
                # Passing one of the innermost test's arguments must pass every outer test too.
                inner = guards[-1]
                args = {a for a in inner if all(a in g for g in guards[:-1])}
                for node in ast.walk(stmt):
                    if not isinstance(node, ast.Call):
                        continue
                    helper = resolve_helper(node.func, mod)
                    if helper is None:
                        continue
                    for arg in sorted(args):
                        said = salt_warning(helper, node, arg)
                        if said is not None and arg not in found:
                            found[arg] = said
    visit(fdef.body, [])
    return dict(sorted(found.items()))


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
    facts = {"args": args, "kwargs": kwargs, "deprecated": deprecated}
    deprecated_args = deprecated_arguments(func, fdef, mod)
    if deprecated_args:
        facts["deprecated_args"] = deprecated_args
    return facts


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
