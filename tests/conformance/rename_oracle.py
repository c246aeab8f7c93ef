#!/usr/bin/env python3
"""Salt's own lowstate as the oracle for our renames.

Usage: rename_oracle.py --bin BIN [--count N] [--seed S] --out WORK CASES_DIR

CASES_DIR holds generated conformance cases (gen_trees.py) whose salt.json salt_driver.py
wrote. For up to N of them that Salt compiles cleanly, this drives our language server over
stdio as an editor does, and applies the workspace edit it answers:

* rename a state ID at its declaration (`textDocument/rename`, with `prepareRename` first):
  Salt's `state.show_low_sls` of the renamed tree must equal the one before with the ID
  substituted (every `__id__` and requisite that named it; the state's `name` is kept);
* move an SLS file, or the directory of an `init.sls` (`workspace/willRenameFiles`, edits
  applied, then the move made): Salt's lowstate of the moved tree, for the moved names,
  must equal the one before with the SLS names substituted (`__sls__`, `sls:` requisites).

Cases whose files hold Jinja are left out of the file moves (a name Jinja writes is never
edited, by design). Prints one line per mismatch and `rename oracle: N passed, N failed`;
exit status 1 on any failure or when too few cases were tried.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import salt_driver  # noqa: E402 (tests/conformance/salt_driver.py)


class Lsp:
    """A minimal LSP client over stdio, in UTF-8 positions."""

    def __init__(self, binary, root):
        self.p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root)
        self.next_id = 0
        uri = path_uri(root)
        caps = {"general": {"positionEncodings": ["utf-8"]}, "workspace": {"workspaceEdit": {"documentChanges": False}}}
        init = self.request("initialize", {"processId": None, "rootUri": uri, "capabilities": caps, "workspaceFolders": [{"uri": uri, "name": "case"}]})
        assert init["capabilities"].get("positionEncoding") == "utf-8", init
        self.notify("initialized", {})

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the server exited")
            line = line.strip()
            if not line:
                break
            k, _, v = line.partition(b":")
            if k.lower() == b"content-length":
                length = int(v)
        return json.loads(self.p.stdout.read(length))

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == rid and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result")
            if "method" in msg and "id" in msg:
                # A request of the server's (configuration, registrations): answer it.
                result = [None] * len(msg["params"].get("items", [])) if msg["method"] == "workspace/configuration" else None
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.p.wait(timeout=10)
        except Exception:  # noqa: BLE001
            self.p.kill()


def path_uri(p):
    return "file://" + urllib.parse.quote(os.path.abspath(p))


def uri_path(u):
    return urllib.parse.unquote(urllib.parse.urlparse(u).path)


def apply_edit(edit):
    """Applies a workspace edit's `changes` (UTF-8 positions) to the files on disk."""
    for uri, edits in (edit or {}).get("changes", {}).items():
        path = uri_path(uri)
        with open(path, encoding="utf-8") as fh:
            data = fh.read().encode()
        starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]

        def off(pos):
            return starts[pos["line"]] + pos["character"]

        for e in sorted(edits, key=lambda e: off(e["range"]["start"]), reverse=True):
            data = data[: off(e["range"]["start"])] + e["newText"].encode() + data[off(e["range"]["end"]) :]
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(data.decode())


def copy_case(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("var", "salt.json"))
    minion = os.path.join(dst, "etc", "minion")
    with open(minion, encoding="utf-8") as fh:
        text = fh.read().replace(os.path.abspath(src), os.path.abspath(dst))
    with open(minion, "w", encoding="utf-8") as fh:
        fh.write(text)
    with open(os.path.join(dst, "salt-analyzer.yaml"), "w", encoding="utf-8") as fh:
        fh.write("salt_config: etc\n")


def salt_lowstate(case):
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)
    try:
        return salt_driver.salt_call(os.path.join(case, "etc", "minion"), "state.show_low_sls", [",".join(meta["sls"]), f"saltenv={meta.get('saltenv', 'base')}"])
    finally:
        shutil.rmtree(os.path.join(case, "var"), ignore_errors=True)


SKIP = "nothing to try"

REQUISITES = {b + s for b in ("require", "watch", "onchanges", "onfail", "prereq", "use", "listen") for s in ("", "_in", "_any", "_all")}


def subst_id(v, old, new, key=None, req=False):
    """`old` becomes `new` where it names the state: `__id__` and requisite values (the
    state's `name` is kept; a key that is no requisite, `require.x`, is an argument)."""
    if isinstance(v, str):
        return new if v == old and (key == "__id__" or req) else v
    if isinstance(v, list):
        return [subst_id(x, old, new, key, req) for x in v]
    if isinstance(v, dict):
        return {k: subst_id(x, old, new, k, req or k in REQUISITES) for k, x in v.items()}
    return v


def subst_sls(v, names, key=None):
    """The SLS names in `names` (old -> new) replaced in `__sls__`, `__sls_included_from__`
    and `sls:` requisites."""
    if isinstance(v, str):
        return names.get(v, v) if key in ("__sls__", "sls", "__sls_included_from__") else v
    if isinstance(v, list):
        return [subst_sls(x, names, key) for x in v]
    if isinstance(v, dict):
        return {k: subst_sls(x, names, k) for k, x in v.items()}
    return v


def sls_files(case):
    """(absolute path, root, SLS name) of every SLS file under the case's file roots."""
    out = []
    srv = os.path.join(case, "srv")
    for env in sorted(os.listdir(srv)):
        if env == "pillar":
            continue
        for r in sorted(os.listdir(os.path.join(srv, env))):
            root = os.path.join(srv, env, r)
            for d, _, files in sorted(os.walk(root)):
                for f in sorted(files):
                    if f.endswith(".sls") and f != "top.sls":
                        rel = os.path.relpath(os.path.join(d, f), root)
                        name = rel[: -len(".sls")]
                        name = name[: -len("/init")] if name.endswith("/init") else name
                        out.append((os.path.join(d, f), root, name.replace("/", ".")))
    return out


def file_roots(case):
    """The case's file_roots (env -> directories), from its minion config."""
    import yaml

    with open(os.path.join(case, "etc", "minion"), encoding="utf-8") as fh:
        return yaml.safe_load(fh).get("file_roots", {})


def loads(case, env, name):
    """The file SLS `name` of `env` loads (`x.sls` in any root, then `x/init.sls`)."""
    for rel in (name.replace(".", "/") + ".sls", name.replace(".", "/") + "/init.sls"):
        for r in file_roots(case).get(env, []):
            p = os.path.join(r, rel)
            if os.path.isfile(p):
                return p
    return None


def saltenv(case):
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        return json.load(fh).get("saltenv", "base")


def declared_ids(case, ids):
    """IDs in `ids` declared literally once, at column 0 of one file: (path, byte line, id)."""
    hits = {}
    for path, _, _ in sls_files(case):
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                m = re.match(r"^([^\s#'\"{}\[\]&*!|>%@`-][^:#{}]*?):\s*$", line)
                if m and m.group(1) in ids:
                    hits.setdefault(m.group(1), []).append((path, n))
    return [(v[0][0], v[0][1], k) for k, v in sorted(hits.items()) if len(v) == 1]


def has_jinja(case):
    for path, _, _ in sls_files(case):
        with open(path, encoding="utf-8") as fh:
            t = fh.read()
        if "{{" in t or "{%" in t:
            return True
    return False


def rename_id(binary, case, work, rng):
    before = salt_lowstate(case)
    ids = {c["__id__"] for c in before}
    names = {n for c in before for n in (c.get("name"),) if isinstance(n, str)}
    sls = {c["__sls__"] for c in before}
    # An ID that is no other state's name or an SLS name: substitution is then unambiguous.
    choices = [d for d in declared_ids(case, ids) if d[2] not in sls and not any(c.get("name") == d[2] and c["__id__"] != d[2] for c in before)]
    if not choices:
        return SKIP
    path, line, old = rng.choice(choices)
    new = f"{old}-ren{rng.choice(['', 'ß', 'ℝ💣'])}"
    if new in ids or new in names:
        return SKIP
    dst = os.path.join(work, os.path.basename(case) + "-id")
    copy_case(case, dst)
    target = os.path.join(dst, os.path.relpath(path, case))
    lsp = Lsp(binary, dst)
    try:
        pos = {"textDocument": {"uri": path_uri(target)}, "position": {"line": line, "character": 0}}
        prep = lsp.request("textDocument/prepareRename", pos)
        if not prep or prep.get("placeholder") != old:
            return f"prepareRename at {old!r}: {prep}"
        edit = lsp.request("textDocument/rename", {**pos, "newName": new})
    finally:
        lsp.close()
    apply_edit(edit)
    after = salt_lowstate(dst)
    want = subst_id(before, old, new)
    return None if after == want else f"renaming {old!r} -> {new!r}: Salt's lowstate differs\n  want {json.dumps(want)[:1500]}\n  got  {json.dumps(after)[:1500]}"


def move_file(binary, case, work, rng):
    before = salt_lowstate(case)
    loaded = {c["__sls__"] for c in before}
    # A file its name loads (not one another root or `x.sls` shadows).
    env = saltenv(case)
    files = [f for f in sls_files(case) if f[2] in loaded and loads(case, env, f[2]) == f[0]]
    if not files:
        return SKIP
    path, root, name = rng.choice(files)
    dst = os.path.join(work, os.path.basename(case) + "-mv")
    copy_case(case, dst)
    here = lambda p: os.path.join(dst, os.path.relpath(p, case))  # noqa: E731
    if path.endswith("/init.sls") and rng.random() < 0.7:
        # The package's directory moves, and every SLS file under it.
        old, new = os.path.dirname(path), os.path.dirname(path) + "_mv"
    else:
        old, new = path, path[: -len(".sls")] + "_mv.sls"
    if os.path.exists(new):
        return SKIP
    renamed = {}
    for p, r, n in sls_files(case):
        if r == root and (p == old or p.startswith(old + os.sep)) and loads(case, env, n) == p:
            rel = os.path.relpath(new + p[len(old) :], root)[: -len(".sls")]
            rel = rel[: -len("/init")] if rel.endswith("/init") else rel
            renamed[n] = rel.replace("/", ".")
    lsp = Lsp(binary, dst)
    try:
        edit = lsp.request("workspace/willRenameFiles", {"files": [{"oldUri": path_uri(here(old)), "newUri": path_uri(here(new))}]})
    finally:
        lsp.close()
    apply_edit(edit)
    os.rename(here(old), here(new))
    # A move that uncovers a file the moved one shadowed changes what the old name loads
    # (a glob include picks it up): not a question of references.
    if any(loads(dst, env, n) for n in renamed):
        return SKIP
    # Whoever ran the moved SLS by name runs it by its new name.
    meta_path = os.path.join(dst, "case.json")
    with open(meta_path, encoding="utf-8") as fh:
        meta = json.load(fh)
    meta["sls"] = [renamed.get(s, s) for s in meta["sls"]]
    with open(meta_path, "w", encoding="utf-8") as fh:
        json.dump(meta, fh)
    after = salt_lowstate(dst)
    want = subst_sls(before, renamed)
    what = f"moving {os.path.relpath(old, case)} -> {os.path.relpath(new, case)} ({renamed})"
    return None if after == want else f"{what}: Salt's lowstate differs\n  want {json.dumps(want)[:1500]}\n  got  {json.dumps(after)[:1500]}"


def clean(case):
    """Whether Salt compiled and ran the case without errors."""
    try:
        with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
            s = json.load(fh)
    except OSError:
        return False
    return isinstance(s.get("lowstate"), list) and s["lowstate"] and not s.get("run_errors") and "exception" not in s and "run_exception" not in s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("cases")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    salt_driver._setup_salt()
    rng = random.Random(a.seed)
    root = os.path.abspath(a.cases)
    cases = [os.path.join(root, c) for c in sorted(os.listdir(root)) if clean(os.path.join(root, c))]
    rng.shuffle(cases)
    os.makedirs(a.out, exist_ok=True)
    passed = failed = ids = moves = 0
    for case in cases[: a.count]:
        for kind, f in (("id", rename_id), ("move", move_file)):
            if kind == "move" and has_jinja(case):
                continue
            try:
                why = f(binary, case, a.out, rng)
            except Exception as exc:  # noqa: BLE001
                why = f"{type(exc).__name__}: {exc}"
            if why == SKIP:
                continue
            if why is None:
                passed += 1
                ids += kind == "id"
                moves += kind == "move"
            else:
                failed += 1
                print(f"FAIL {os.path.basename(case)} ({kind}): {why}")
    print(f"rename oracle: {passed} passed ({ids} ID renames, {moves} file moves), {failed} failed")
    enough = ids >= min(10, a.count // 2) and moves >= min(10, a.count // 4)
    if not enough:
        print("rename oracle: too few renames were tried", file=sys.stderr)
    return 1 if failed or not enough else 0


if __name__ == "__main__":
    sys.exit(main())
