"""A tiny YAML emitter for generated SLS files.

We write YAML by hand instead of using a library so that the generator can
produce exactly the shapes Salt users write (block lists of one-key dicts,
flow lists, bare `key:` with no value, duplicate keys) and so that the
output does not depend on which YAML package is installed.
"""

import json
import re

__all__ = ["M", "NOVALUE", "Flow", "Raw", "dump_doc", "flow", "scalar"]


class M:
    """An ordered mapping that may hold duplicate keys (a list of pairs)."""

    def __init__(self, pairs=None):
        self.pairs = list(pairs or [])

    def add(self, key, value):
        self.pairs.append((key, value))
        return self

    def get(self, key, default=None):
        for k, v in self.pairs:
            if k == key:
                return v
        return default

    def keys(self):
        return [k for k, _ in self.pairs]

    def __len__(self):
        return len(self.pairs)


class _NoValue:
    """A key written with nothing after the colon (`test.nop:`)."""


NOVALUE = _NoValue()


class Raw:
    """Text emitted verbatim as one or more lines at the current indent."""

    def __init__(self, text):
        self.text = text


# YAML 1.1 words PyYAML turns into booleans or null.
_SPECIAL = {
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
    "Y", "N", "Yes", "No", "On", "Off", "True", "False", "Null", "NULL",
    "YES", "NO", "ON", "OFF", "TRUE", "FALSE",
}
_PLAIN = re.compile(r"^(?:\.{1,4})?[A-Za-z_/][A-Za-z0-9_./\-]*$")


def _plain_ok(s):
    if s in _SPECIAL or s.lower() in (".inf", ".nan"):
        return False
    return bool(_PLAIN.match(s))


def scalar(v):
    if v is None:
        return "~"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        if _plain_ok(v):
            return v
        return json.dumps(v, ensure_ascii=False)
    raise TypeError(f"not a scalar: {v!r}")


def key(k):
    if isinstance(k, int):
        return str(k)
    return scalar(k)


def _is_scalar(v):
    return v is None or isinstance(v, (bool, int, float, str))


def flow(v):
    """Flow style (`[a, {b: c}]`)."""
    if isinstance(v, Flow):
        return flow(v.value)
    if _is_scalar(v):
        return scalar(v)
    if isinstance(v, list):
        return "[" + ", ".join(flow(x) for x in v) + "]"
    if isinstance(v, M):
        return "{" + ", ".join(f"{key(k)}: {flow(x)}" for k, x in v.pairs) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{key(k)}: {flow(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot emit {v!r}")


class Flow:
    """Wrap a value to emit it in flow style."""

    def __init__(self, value):
        self.value = value


def _kv(prefix, k, v, col, out):
    kk = key(k)
    if v is NOVALUE:
        out.append(f"{prefix}{kk}:")
    elif isinstance(v, Flow):
        out.append(f"{prefix}{kk}: {flow(v.value)}")
    elif _is_scalar(v):
        out.append(f"{prefix}{kk}: {scalar(v)}")
    elif isinstance(v, list):
        if not v:
            out.append(f"{prefix}{kk}: []")
        else:
            out.append(f"{prefix}{kk}:")
            _seq(v, col + 2, out)
    elif isinstance(v, M):
        if not v.pairs:
            out.append(f"{prefix}{kk}: {{}}")
        else:
            out.append(f"{prefix}{kk}:")
            _map(v, col + 2, out)
    else:
        raise TypeError(f"cannot emit {v!r}")


def _map(m, col, out):
    for k, v in m.pairs:
        if isinstance(v, Raw):
            for line in v.text.splitlines():
                out.append(" " * col + line)
            continue
        _kv(" " * col, k, v, col, out)


def _seq(items, col, out):
    pad = " " * col
    for it in items:
        if isinstance(it, Raw):
            for line in it.text.splitlines():
                out.append(pad + line)
        elif isinstance(it, Flow):
            out.append(pad + "- " + flow(it.value))
        elif _is_scalar(it):
            out.append(pad + "- " + scalar(it))
        elif isinstance(it, M) and it.pairs:
            first = True
            for k, v in it.pairs:
                prefix = pad + "- " if first else " " * (col + 2)
                _kv(prefix, k, v, col + 2, out)
                first = False
        elif isinstance(it, list):
            out.append(pad + "- " + flow(it))
        elif isinstance(it, M):
            out.append(pad + "- {}")
        else:
            raise TypeError(f"cannot emit {it!r}")


def dump_doc(m):
    """Emit a top-level mapping (an SLS file) as block YAML text."""
    out = []
    for k, v in m.pairs:
        if isinstance(v, Raw):
            out.extend(v.text.splitlines())
            continue
        _kv("", k, v, 0, out)
    return "\n".join(out) + "\n"
