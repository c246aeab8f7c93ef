#!/usr/bin/env python3
"""Generate SQL ext_pillar conformance cases with Salt's own SqlBaseExtPillar.

Usage: python sql_base_cases.py OUT.jsonl [COUNT] [SEED]

Each case is a random set of SQLite tables and a random ext_pillar configuration (positional
and keyword queries; depth, as_list, with_lists, ignore_null, as_json), fetched for minion
`m1` by `salt.pillar.sql_base.SqlBaseExtPillar.fetch` over an in-memory SQLite cursor, in
this one process. Every line of OUT.jsonl is one case:

    {"args": [...], "kwargs": {...},
     "results": {QUERY: {"columns": [...], "rows": [[...], ...]} or {"error": MESSAGE}},
     "expected": TYPED or null, "raises": "TypeError" or null}

`results` holds what each query returns for `m1`, so the replay needs no database.
TYPED encodes Python values so keys and numbers keep their types: {"dict": [[k, v], ...]},
{"list": [...]}, {"int": 1}, {"float": 1.5}, {"str": "x"}, {"bool": true}, {"none": null}.
`server/model/tests/sql_base_conformance.rs` replays the file against salt-analyzer.
"""

import json
import logging
import random
import sqlite3
import sys
from contextlib import contextmanager

logging.disable(logging.CRITICAL)

from salt.pillar.sql_base import SqlBaseExtPillar  # noqa: E402

VALUES = ["a", "b", "c", "x", "ß", 1, 2, 3, 1.5, None, "1"]
JSON_ROWS = ['{"a": {"b": [1, 2]}, "c": 3}', '{"a": {"b": [1, 3]}, "d": 4}', '{"a": 5}', '{"e": {"f": null}}', "[1, 2]", "7", '{"a": {"x": "y"}}']


def typed(v):
    if isinstance(v, dict):
        return {"dict": [[typed(k), typed(x)] for k, x in v.items()]}
    if isinstance(v, (list, tuple)):
        return {"list": [typed(x) for x in v]}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, str):
        return {"str": v}
    if v is None:
        return {"none": None}
    if isinstance(v, bytes):
        return {"str": v.decode("utf-8", "replace")}
    raise TypeError(f"cannot encode {type(v)}")


def make_case(rng, conn):
    cur = conn.cursor()
    tables = []
    for t in range(rng.randint(1, 3)):
        ncols = rng.randint(1, 5)
        name = f"t{t}"
        cols = [f"c{i}" for i in range(ncols)]
        cur.execute(f"CREATE TABLE {name} (m TEXT, {', '.join(cols)})")
        nrows = rng.randint(0, 7)
        pool = [rng.choice(VALUES) for _ in range(4)] + [None]
        for _ in range(nrows):
            who = rng.choice(["m1", "m1", "m1", "other"])
            cur.execute(f"INSERT INTO {name} VALUES (?, {', '.join('?' * ncols)})", [who] + [rng.choice(pool) for _ in cols])
        tables.append((name, cols))
    # A one-column JSON table for as_json.
    cur.execute("CREATE TABLE j (m TEXT, doc TEXT)")
    for _ in range(rng.randint(0, 3)):
        cur.execute("INSERT INTO j VALUES (?, ?)", ["m1", rng.choice(JSON_ROWS)])
    conn.commit()

    def query():
        if rng.random() < 0.12:
            return "SELECT doc FROM j WHERE m = ? ORDER BY rowid"
        name, cols = rng.choice(tables)
        picked = cols[:]
        if len(picked) > 1 and rng.random() < 0.3:
            picked = picked[: rng.randint(1, len(picked))]
        order = " ORDER BY rowid DESC" if rng.random() < 0.2 else " ORDER BY rowid"
        return f"SELECT {', '.join(picked)} FROM {name} WHERE m = ?{order}"

    def opts(q):
        r = rng.random()
        if r < 0.25:
            return q
        if r < 0.35:
            return [q, rng.choice([0, 1, 2, 3, 4, 6])]
        d = {"query": q}
        if rng.random() < 0.6:
            d["depth"] = rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 7, -1, True])
        for flag in ("as_list", "ignore_null"):
            if rng.random() < 0.35:
                d[flag] = rng.choice([True, True, False, 1])
        if "FROM j" in q and rng.random() < 0.8:
            d["as_json"] = True
        if rng.random() < 0.4:
            d["with_lists"] = rng.choice(["1", "2", "3", "1,3", "2,3", "1,2,3", "4", [1, 2], [2], "", None])
        return d

    args = [opts(query()) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.15:
        args.append(rng.choice(["", [""], {"query": ""}, 5]))
    kwargs = {}
    for _ in range(rng.randint(0, 2)):
        kwargs[rng.choice(["main", "extra", "zz", "aa", "main"])] = opts(query())
    if not args and not kwargs:
        args = [opts(query())]
    return args, kwargs


class Pillar(SqlBaseExtPillar):
    conn = None

    @classmethod
    def _db_name(cls):
        return "sqlite"

    @contextmanager
    def _get_cursor(self):
        yield self.conn.cursor()


def run(args, kwargs, conn):
    p = Pillar()
    Pillar.conn = conn
    try:
        return p.fetch("m1", None, *args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - the exception's type is the answer
        return None, type(exc).__name__


def results_of(args, kwargs, conn):
    out = {}
    for _, details in Pillar().extract_queries(args, kwargs):
        q = details["query"]
        if not isinstance(q, str) or q in out:
            continue
        cur = conn.cursor()
        try:
            cur.execute(q, ("m1",))
            out[q] = {"columns": [c[0] for c in cur.description], "rows": [list(r) for r in cur.fetchall()]}
        except sqlite3.Error as exc:
            out[q] = {"error": str(exc)}
    return out


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    rng = random.Random(seed)
    raised = 0
    with open(out, "w") as f:
        for _ in range(count):
            conn = sqlite3.connect(":memory:")
            args, kwargs = make_case(rng, conn)
            try:
                results = results_of(args, kwargs, conn)
            except Exception:  # noqa: BLE001 - extract_queries itself raised
                results = {}
            value, exc = run(args, kwargs, conn)
            raised += exc is not None
            case = {"args": args, "kwargs": kwargs, "results": results, "expected": None if exc else typed(value), "raises": exc}
            f.write(json.dumps(case, ensure_ascii=False) + "\n")
            conn.close()
    print(f"sql_base_cases: {count} cases ({raised} where Salt raises) -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
