#!/usr/bin/env python3
"""Turn the SLS fixtures of Salt's own state tests into conformance cases.

Usage: PYTHON fetch.py [--out DIR] [--cache DIR] [--list]

PYTHON is a Python with Salt installed; its `salt.version.__version__` picks the release.
This downloads that release's sdist from PyPI (`pip download --no-deps --no-binary :all:
salt==X.Y`, kept in --cache, so later runs need no network), reads the test files in SOURCES
from it (nothing of them is copied into this repository), and writes one case directory per
`state.sls`-like call that sees SLS files, under --out (emptied first):

    CASE/etc/minion   file_client local, file_roots base (and prod when used) under CASE/srv
    CASE/srv/base/... the SLS files the test wrote with pytest.helpers.temp_file(...) at the
                      time of the call (a `with` block's files exist inside that block only)
    CASE/case.json    {"sls": [...], "saltenv": ..., "about": "FILE::TEST", "source": ...}

The test code is not run: `ast` reads it, and a small evaluator follows each test function
(and the module's helper functions it calls) statement by statement: string constants,
f-strings, `.format()`, `%`, `textwrap.dedent`, `state_tree / "dir"` paths, `tmp_path`
(a fixed /tmp path, so cases are the same on every machine), `is_windows()` (False),
`pytest.helpers.shell_test_true/false()`, `if` on what it can decide, and
`@pytest.mark.parametrize` (one case per parameter set whose files differ). A test whose
calls see no SLS file, or whose case cannot be static, is skipped and counted with the reason
(printed at the end, and written to OUT/skipped.json).
"""

import argparse
import ast
import fnmatch
import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

# The test files (paths inside the sdist) whose SLS fixtures become cases.
SOURCES = [
    "tests/pytests/functional/modules/state/requisites/test_*.py",
    "tests/pytests/functional/modules/state/test_state.py",
    "tests/pytests/functional/modules/state/test_parallel.py",
    "tests/pytests/functional/states/file/test_accumulated.py",
    "tests/pytests/integration/states/test_state_test.py",
]

# Functions of the state module whose first argument (or `mods=`) names SLS to run.
SLS_FUNCS = {"sls", "apply", "show_sls", "show_low_sls", "sls_id", "test"}
# Functions that run no SLS file of the tree (counted as "no SLS call").
OTHER_FUNCS = {"single", "template", "template_str", "high", "low", "request", "highstate",
               "show_highstate", "show_lowstate", "show_states", "show_top", "top"}
# A fixed stand-in for pytest's tmp_path: the same case text on every machine.
TMP = "/tmp/salt-fixtures-tmp"

# The minion config of every conformance case (gen_trees.py's), with this file's header.
sys.path.insert(0, os.path.dirname(HERE))
from gen_trees import MINION_TEMPLATE  # noqa: E402 (tests/conformance/gen_trees.py)

MINION = "# Made by tests/conformance/saltfixtures/fetch.py from {about}\n" + MINION_TEMPLATE.split("\n", 1)[1]


# ---------------------------------------------------------------- the sdist


def salt_version():
    import salt.version  # noqa: PLC0415 - the Python running us is the one under test

    return salt.version.__version__


def sdist(version, cache):
    """The path of salt-VERSION.tar.gz, downloaded from PyPI with pip once."""
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, f"salt-{version}.tar.gz")
    if os.path.isfile(path):
        return path
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
           "--no-deps", "--no-binary", ":all:", f"salt=={version}", "-d", cache]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 or not os.path.isfile(path):
        sys.exit(f"fetch.py: {' '.join(cmd)} failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return path


def test_files(tarball):
    """{path inside the sdist: source text} for the files SOURCES names."""
    out = {}
    with tarfile.open(tarball) as tf:
        for m in tf.getmembers():
            if not m.isfile():
                continue
            rel = m.name.split("/", 1)[1] if "/" in m.name else m.name
            if any(fnmatch.fnmatch(rel, pat) for pat in SOURCES):
                out[rel] = tf.extractfile(m).read().decode("utf-8")
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- a small evaluator


class Tree:
    """A path in a state tree (`state_tree`, `state_tree_prod`, `state_tree / "x"`)."""

    def __init__(self, env, rel=""):
        self.env, self.rel = env, rel

    def __truediv__(self, other):
        return Tree(self.env, posix_join(self.rel, str(other)))

    def __str__(self):
        return f"/srv/salt/{self.env}" + (f"/{self.rel}" if self.rel else "")


class FsPath:
    """A path outside the state tree (tmp_path and what is built from it)."""

    def __init__(self, path):
        self.path = path

    def __truediv__(self, other):
        return FsPath(posix_join(self.path, str(other)))

    def __str__(self):
        return self.path

    def __format__(self, spec):
        return format(self.path, spec)


class Opaque:
    """A value the evaluator does not know; its text is a stable placeholder."""

    def __init__(self, what):
        self.what = what

    def __str__(self):
        return f"opaque-{self.what}"

    def __format__(self, spec):
        return str(self)

    def __truediv__(self, other):
        return Opaque(f"{self.what}/{other}")

    def __getitem__(self, key):
        return Opaque(f"{self.what}[{key}]")


def posix_join(a, b):
    return b.lstrip("/") if not a else f"{a.rstrip('/')}/{b.lstrip('/')}"


def dotted(node):
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class Skip(Exception):
    pass


class Frame:
    """One test function's evaluation: its names, the files alive, the calls seen."""

    def __init__(self, module, env):
        self.module = module
        self.env = env

    # -- expressions
    def ev(self, node):
        m = self.module
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            out = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    out.append(v.value)
                else:
                    x = self.ev(v.value)
                    if v.conversion == ord("r"):
                        x = repr(x)
                    spec = self.ev(v.format_spec) if v.format_spec else ""
                    out.append(format(x if not isinstance(x, (Tree, FsPath, Opaque)) else str(x), spec))
            return "".join(out)
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            if node.id in m.consts:
                return m.consts[node.id]
            return {"True": True, "False": False, "None": None}.get(node.id, Opaque(node.id))
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.ev(e) for e in node.elts]
        if isinstance(node, ast.Dict):
            return {self.ev(k): self.ev(v) for k, v in zip(node.keys, node.values) if k is not None}
        if isinstance(node, ast.BinOp):
            a, b = self.ev(node.left), self.ev(node.right)
            if isinstance(node.op, ast.Div) and isinstance(a, (Tree, FsPath, Opaque)):
                return a / b
            if isinstance(node.op, ast.Add) and isinstance(a, str) and isinstance(b, str):
                return a + b
            if isinstance(node.op, ast.Mod) and isinstance(a, str):
                try:
                    return a % (tuple(str(x) if isinstance(x, (Opaque, FsPath)) else x for x in b)
                                if isinstance(b, list) else b)
                except (TypeError, ValueError):
                    return Opaque("%")
            if isinstance(node.op, ast.Mult) and isinstance(a, str) and isinstance(b, int) and not isinstance(b, bool):
                return a * b
            if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
                try:
                    return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b}[type(node.op)]()
                except KeyError:
                    pass
            return Opaque("binop")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.ev(node.operand)
            return (not v) if isinstance(v, bool) else Opaque("not")
        if isinstance(node, ast.BoolOp):
            vals = [self.ev(v) for v in node.values]
            if any(isinstance(v, Opaque) for v in vals):
                return Opaque("boolop")
            out = vals[0]
            for v in vals[1:]:
                if isinstance(node.op, ast.And):
                    out = out and v
                else:
                    out = out or v
            return out
        if isinstance(node, ast.IfExp):
            t = self.ev(node.test)
            if isinstance(t, bool):
                return self.ev(node.body if t else node.orelse)
            return Opaque("ifexp")
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return Opaque(dotted(node) or node.attr)
        return Opaque(type(node).__name__)

    def call(self, node):
        name = dotted(node.func) or ""
        last = name.rsplit(".", 1)[-1]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            base = self.ev(node.func.value)
            if isinstance(base, str):
                args = [self.text(a) for a in node.args]
                kw = {k.arg: self.text(k.value) for k in node.keywords if k.arg}
                try:
                    return base.format(*args, **kw)
                except (IndexError, KeyError, ValueError):
                    return Opaque("format")
        if name in ("textwrap.dedent", "dedent"):
            v = self.ev(node.args[0])
            return textwrap.dedent(v) if isinstance(v, str) else v
        if name in ("str",) and node.args:
            v = self.ev(node.args[0])
            return str(v)
        if name in ("json.dumps",) and node.args:
            v = self.ev(node.args[0])
            return json.dumps(v) if isinstance(v, (str, int, float, bool, type(None), list, dict)) else Opaque("json")
        if isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath" and node.args:
            base = self.ev(node.func.value)
            if isinstance(base, (Tree, FsPath)):
                return base / self.text(node.args[0])
        if name.endswith("shell_test_true"):
            return "true"
        if name.endswith("shell_test_false"):
            return "false"
        if name.startswith("salt.utils.platform.is_") or name in ("is_windows", "is_darwin"):
            return False
        if last == "temp_file" or name.endswith("state_tree.base.temp_file"):
            return self.temp_file(node, name)
        if isinstance(node.func, ast.Attribute) and (last in SLS_FUNCS | OTHER_FUNCS) and self.is_state_call(node.func):
            self.state_call(node, last)
            return Opaque(f"ret-{last}")
        if isinstance(node.func, ast.Attribute) and last == "run" and node.args:
            # salt_cli.run("state.apply", "name", ...) / salt_call_cli.run(...)
            fun = self.ev(node.args[0])
            if isinstance(fun, str) and fun.startswith("state."):
                short = fun.split(".", 1)[1]
                fake = ast.Call(func=node.func, args=node.args[1:], keywords=node.keywords)
                self.state_call(fake, short if short in SLS_FUNCS | OTHER_FUNCS else "other")
            return Opaque("run")
        if isinstance(node.func, ast.Name) and node.func.id in self.module.helpers:
            return self.inline(self.module.helpers[node.func.id], node)
        return Opaque(name or "call")

    def is_state_call(self, func):
        """`state.sls(...)`, `modules.state.apply(...)`, `state_mod.sls(...)`."""
        recv = dotted(func.value) or ""
        return recv.split(".")[-1] in ("state", "state_mod", "states") or recv.endswith("modules.state")

    def text(self, node):
        v = self.ev(node)
        return str(v) if isinstance(v, (Tree, FsPath, Opaque)) else v

    def temp_file(self, node, fname):
        args = list(node.args)
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        name = self.ev(args[0] if args else kw.get("name"))
        contents = self.ev(args[1]) if len(args) > 1 else (self.ev(kw["contents"]) if "contents" in kw else "")
        if len(args) > 2:
            directory = self.ev(args[2])
        elif "directory" in kw:
            directory = self.ev(kw["directory"])
        elif fname.endswith("state_tree.base.temp_file"):
            directory = Tree("base")
        else:
            directory = Opaque("tmpdir")
        strip_first = self.ev(kw["strip_first_newline"]) if "strip_first_newline" in kw else True
        if isinstance(name, Tree):
            where = name
        elif isinstance(directory, Tree) and isinstance(name, str):
            where = directory / name
        else:
            return TempFile(None, None)
        if not isinstance(contents, str):
            contents = str(contents)
        if strip_first and contents.startswith("\n"):
            contents = contents[1:]
        contents = textwrap.dedent(contents)
        return TempFile(where, contents)

    def state_call(self, node, fun):
        self.module.record(self, node, fun)

    def inline(self, fdef, node):
        """Run a helper function of the module with its parameters bound (once, no recursion)."""
        if fdef.name in self.module.inlining:
            return Opaque(fdef.name)
        params = [a.arg for a in fdef.args.args]
        env = dict(zip(params, [self.ev(a) for a in node.args]))
        for k in node.keywords:
            if k.arg:
                env[k.arg] = self.ev(k.value)
        sub = Frame(self.module, env)
        self.module.inlining.add(fdef.name)
        try:
            return sub.block(fdef.body)
        finally:
            self.module.inlining.discard(fdef.name)

    # -- statements
    def block(self, body):
        for st in body:
            r = self.stmt(st)
            if isinstance(r, Return):
                return r.value
        return None

    def stmt(self, st):
        m = self.module
        if isinstance(st, ast.Assign):
            v = self.ev(st.value)
            for t in st.targets:
                self.bind(t, v)
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self.bind(st.target, self.ev(st.value))
        elif isinstance(st, ast.AugAssign):
            cur = self.ev(st.target)
            v = self.ev(st.value)
            self.bind(st.target, cur + v if isinstance(cur, str) and isinstance(v, str) else Opaque("aug"))
        elif isinstance(st, ast.Expr):
            self.ev(st.value)
        elif isinstance(st, ast.Return):
            return Return(self.ev(st.value) if st.value is not None else None)
        elif isinstance(st, ast.If):
            t = self.ev(st.test)
            if isinstance(t, bool):
                r = self.block(st.body if t else st.orelse)
                return Return(r) if r is not None else None
            self.scan(st.test)
            self.block(st.body)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            pushed = 0
            for item in st.items:
                v = self.ev(item.context_expr)
                if isinstance(v, TempFile):
                    if v.where is not None:
                        m.files.append(v)
                        pushed += 1
                    if item.optional_vars is not None:
                        self.bind(item.optional_vars, v.where or Opaque("tempfile"))
                elif item.optional_vars is not None:
                    self.bind(item.optional_vars, Opaque("with"))
            try:
                r = self.block(st.body)
            finally:
                del m.files[len(m.files) - pushed:]
            if r is not None:
                return Return(r)
        elif isinstance(st, (ast.For, ast.While)):
            if isinstance(st, ast.For):
                self.bind(st.target, Opaque("loop"))
            self.block(st.body)
        elif isinstance(st, ast.Try):
            self.block(st.body)
            self.block(st.finalbody)
        elif isinstance(st, ast.Assert):
            self.scan(st.test)
        return None

    def scan(self, node):
        """Evaluate the calls inside an expression we do not otherwise evaluate (assert x == state.sls(...))."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                self.call(sub)

    def bind(self, target, v):
        if isinstance(target, ast.Name):
            self.env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)):
            vals = v if isinstance(v, list) and len(v) == len(target.elts) else [Opaque("unpack")] * len(target.elts)
            for t, x in zip(target.elts, vals):
                self.bind(t, x)


class Return:
    def __init__(self, value):
        self.value = value


class TempFile:
    def __init__(self, where, contents):
        self.where, self.contents = where, contents


class Module:
    """One test file: its constants, helpers, tests; collects cases and skips."""

    def __init__(self, rel, text):
        self.rel = rel
        self.tree = ast.parse(text)
        self.consts, self.helpers, self.tests, self.fixtures = {}, {}, [], {}
        self.files, self.inlining = [], set()
        self.cases, self.skips = [], []
        self.current = None
        top = Frame(self, {})
        for st in self.tree.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                v = top.ev(st.value)
                if not isinstance(v, Opaque):
                    self.consts[st.targets[0].id] = v
            elif isinstance(st, ast.FunctionDef):
                if st.name.startswith("test_"):
                    self.tests.append(st)
                elif any("fixture" in (dotted(d.func if isinstance(d, ast.Call) else d) or "") for d in st.decorator_list):
                    self.fixtures[st.name] = st
                else:
                    self.helpers[st.name] = st
        # A `minion_config_overrides` fixture returning a literal dict: options of the minion.
        # (file_client and master_type: every case is masterless with file_client local already)
        self.minion_extra = {}
        fx = self.fixtures.get("minion_config_overrides")
        if fx is not None:
            for st in fx.body:
                if isinstance(st, ast.Return) and st.value is not None:
                    try:
                        self.minion_extra = {k: v for k, v in ast.literal_eval(st.value).items()
                                             if k not in ("file_client", "master_type")}
                    except ValueError:
                        pass

    def fixture_modules(self, fdef):
        """The custom modules (`_states/x.py`, ...) the module's fixtures this test uses
        (by parameter name, `usefixtures`, or autouse) write into the state tree."""
        used = {a.arg for a in fdef.args.args}
        for d in fdef.decorator_list:
            if isinstance(d, ast.Call) and (dotted(d.func) or "").endswith("mark.usefixtures"):
                used |= {a.value for a in d.args if isinstance(a, ast.Constant)}
        out = []
        for name, fx in self.fixtures.items():
            autouse = any(isinstance(d, ast.Call) and any(k.arg == "autouse" and getattr(k.value, "value", False) for k in d.keywords)
                          for d in fx.decorator_list)
            if name not in used and not autouse:
                continue
            frame = Frame(self, {"state_tree": Tree("base"), "state_tree_prod": Tree("prod"), "tmp_path": FsPath(TMP)})
            for node in ast.walk(fx):
                if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("temp_file"):
                    v = frame.temp_file(node, dotted(node.func) or "")
                    if v.where is not None and v.where.rel.split("/")[0] in ("_states", "_modules", "_renderers"):
                        out.append(v.where.rel)
        return out

    def params(self, fdef):
        """The parameter sets of @pytest.mark.parametrize decorators: [(id, {name: value})]."""
        top = Frame(self, {})
        axes = []
        for d in fdef.decorator_list:
            if not (isinstance(d, ast.Call) and (dotted(d.func) or "").endswith("mark.parametrize")):
                continue
            names = top.ev(d.args[0])
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            values = d.args[1] if len(d.args) > 1 else next(k.value for k in d.keywords if k.arg == "argvalues")
            ids = next((top.ev(k.value) for k in d.keywords if k.arg == "ids"), None)
            axis = []
            elts = values.elts if isinstance(values, (ast.List, ast.Tuple)) else []
            for i, e in enumerate(elts):
                pid = None
                if isinstance(e, ast.Call) and (dotted(e.func) or "").endswith("param"):
                    pid = next((top.ev(k.value) for k in e.keywords if k.arg == "id"), None)
                    e = ast.Tuple(elts=e.args, ctx=ast.Load()) if len(names) > 1 else e.args[0]
                v = top.ev(e)
                vals = v if len(names) > 1 and isinstance(v, list) else [v]
                if isinstance(ids, list) and i < len(ids) and pid is None:
                    pid = ids[i]
                axis.append((str(pid) if pid is not None else str(i), dict(zip(names, vals))))
            if axis:
                axes.append(axis)
        if not axes:
            return [(None, {})]
        out = []
        for combo in itertools.product(*axes):
            env = {}
            for _, e in combo:
                env.update(e)
            out.append(("-".join(i for i, _ in combo), env))
        return out

    def run(self):
        for fdef in self.tests:
            for pid, penv in self.params(fdef):
                env = {"state_tree": Tree("base"), "state_tree_prod": Tree("prod"), "tmp_path": FsPath(f"{TMP}/{fdef.name}")}
                env.update(penv)
                self.current = (fdef, pid, [])
                self.files = []
                try:
                    Frame(self, env).block(fdef.body)
                except RecursionError:
                    self.current[2].append(("skip", "the evaluator recursed"))
                found = self.current[2]
                custom = self.fixture_modules(fdef)
                if custom:
                    found[:] = [("skip", f"a custom module of the tree ({custom[0]}, from a fixture)") if k == "case" else (k, v)
                                for k, v in found]
                label = f"{self.rel}::{fdef.name}" + (f"[{pid}]" if pid else "")
                if not found:
                    self.skips.append((label, "no state function call (the test calls Salt otherwise)"))
                for k, v in found:
                    if k == "case":
                        v["about"] = label
                        self.cases.append(v)
                    else:
                        self.skips.append((label, v))

    def record(self, frame, node, fun):
        found = self.current[2]
        if fun not in SLS_FUNCS:
            found.append(("skip", f"state.{fun} (no SLS file of the tree)"))
            return
        args = list(node.args)
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        mods = frame.ev(args[0]) if args else (frame.ev(kw["mods"]) if "mods" in kw else None)
        if mods is None:
            found.append(("skip", f"state.{fun} without SLS names (a highstate)"))
            return
        if isinstance(mods, int) and not isinstance(mods, bool):
            mods = str(mods)
        if isinstance(mods, str):
            mods = [s.strip() for s in mods.split(",") if s.strip()]
        if not (isinstance(mods, list) and mods and all(isinstance(s, str) for s in mods)):
            found.append(("skip", "the SLS names are not static"))
            return
        saltenv = frame.ev(kw["saltenv"]) if "saltenv" in kw else "base"
        if not isinstance(saltenv, str):
            found.append(("skip", "saltenv is not static"))
            return
        if "pillar" in kw:
            found.append(("skip", "pillar= passed on the command line"))
            return
        if fun == "sls_id":
            found.append(("skip", "state.sls_id (one ID of an SLS)"))
            return
        files = {}
        for f in self.files:
            files[(f.where.env, f.where.rel)] = f.contents
        if not any(rel.endswith(".sls") for _, rel in files):
            found.append(("skip", "no SLS file written before the call"))
            return
        custom = [rel for _, rel in files if rel.split("/")[0] in ("_states", "_modules", "_renderers")]
        if custom:
            found.append(("skip", f"a custom module of the tree ({custom[0]})"))
            return
        for (env, rel), text in files.items():
            first = text.lstrip().split("\n", 1)[0]
            if rel.endswith(".sls") and first.startswith("#!") and not re.match(r"#!\s*(jinja\s*\|\s*)?yaml\s*$|#!\s*yaml\s*\|\s*jinja", first):
                found.append(("skip", f"renderer {first.strip()} (not Jinja/YAML)"))
                return
        if any("opaque-" in t for t in files.values()):
            found.append(("skip", "an SLS text the evaluator cannot compute"))
            return
        found.append(("case", {"sls": mods, "saltenv": saltenv, "files": files, "fun": fun,
                               "minion": dict(self.minion_extra)}))


# ---------------------------------------------------------------- cases


def case_name(rel, about, n, taken):
    test = about.split("::", 1)[1]
    test = re.sub(r"^test_", "", test)
    stem = re.sub(r"^test_", "", os.path.basename(rel)[:-3])
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{stem}.{test}").strip("-")[:90]
    if n:
        name += f"-{n}"
    base, k = name, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name)
    return name


def write_case(out, name, case, version):
    d = os.path.join(out, name)
    envs = sorted({"base", case["saltenv"]} | {env for env, _ in case["files"]})
    for (env, rel), text in case["files"].items():
        p = os.path.join(d, "srv", env, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(text)
    os.makedirs(os.path.join(d, "srv", "pillar"), exist_ok=True)
    for env in envs:
        os.makedirs(os.path.join(d, "srv", env), exist_ok=True)
    os.makedirs(os.path.join(d, "etc"), exist_ok=True)
    roots = "".join(f"  {env}:\n    - {d}/srv/{env}\n" for env in envs)
    extra = "".join(f"{k}: {json.dumps(v)}\n" for k, v in case["minion"].items())
    with open(os.path.join(d, "etc", "minion"), "w", encoding="utf-8") as fh:
        fh.write(MINION.format(about=f"salt {version} {case['about']}", case=d, roots=roots.rstrip("\n"), extra=extra))
    meta = {"sls": case["sls"], "saltenv": case["saltenv"], "about": case["about"],
            "source": f"salt {version} sdist", "call": f"state.{case['fun']}"}
    with open(os.path.join(d, "case.json"), "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=1)
        fh.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="where the cases go (default tests/.work/saltfixtures/VERSION/cases)")
    ap.add_argument("--cache", default=os.path.join(ROOT, "tests", ".work", "saltfixtures", "sdist"))
    ap.add_argument("--sdist", help="use this salt-X.Y.tar.gz instead of downloading")
    ap.add_argument("--version", help="the Salt version (default: the importable Salt's)")
    ap.add_argument("--list", action="store_true", help="print every case and skip")
    a = ap.parse_args()
    version = a.version or salt_version()
    tarball = a.sdist or sdist(version, a.cache)
    out = a.out or os.path.join(ROOT, "tests", ".work", "saltfixtures", version, "cases")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    sources = test_files(tarball)
    if not sources:
        sys.exit(f"fetch.py: none of {SOURCES} in {tarball}")
    taken, seen = set(), {}
    written, skipped, dupes = [], [], []
    for rel, text in sources.items():
        mod = Module(rel, text)
        mod.run()
        skipped += mod.skips
        per_test = {}
        for case in mod.cases:
            key = hashlib.sha256(json.dumps([case["sls"], case["saltenv"], sorted(case["files"].items()), case["minion"]],
                                            sort_keys=True).encode()).hexdigest()
            if key in seen:
                dupes.append((case["about"], seen[key]))
                continue
            n = per_test.get(case["about"], 0)
            per_test[case["about"]] = n + 1
            name = case_name(rel, case["about"], n, taken)
            seen[key] = name
            write_case(out, name, case, version)
            written.append((name, case["about"]))
    reasons = {}
    for label, why in skipped:
        reasons.setdefault(why, []).append(label)
    with open(os.path.join(os.path.dirname(out.rstrip(os.sep)), "skipped.json"), "w", encoding="utf-8") as fh:
        json.dump({"skipped": reasons, "duplicates": dupes}, fh, indent=1)
        fh.write("\n")
    if a.list:
        for name, about in written:
            print(f"case {name}\t{about}")
        for label, why in skipped:
            print(f"skip {label}\t{why}")
    print(f"fetch.py: salt {version}: {len(sources)} test files, {len(written)} cases in {out}; "
          f"{len(skipped)} skipped, {len(dupes)} duplicate calls", file=sys.stderr)
    for why, labels in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  skipped {len(labels):3d}: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
