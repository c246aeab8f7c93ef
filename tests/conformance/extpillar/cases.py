#!/usr/bin/env python3
"""SQL ext_pillar conformance against real PostgreSQL and MariaDB servers.

Usage: python cases.py WORK COUNT SEED   (PG_PORT, MY_PORT and PW in the environment)

Fills both servers' `salt` databases with the same random tables, then writes COUNT cases
under WORK/NNN/: etc/minion (ext_pillar entries for `postgres` and `mysql`, in random order and
forms, the servers' options, sometimes ext_pillar_first, a merge strategy, a wrong password or
a missing table) and salt.json, the pillar Salt 3008 computes for the minion
(`salt.pillar.get_pillar(...).compile_pillar()`, what `pillar.items` returns), all in this one
process. A pillar_roots top gives every minion a small pillar, so ext_pillar merges with it.
"""

import json
import logging
import os
import random
import sys

logging.disable(logging.CRITICAL)

import psycopg2  # noqa: E402
import pymysql  # noqa: E402
import salt.config  # noqa: E402
import salt.pillar  # noqa: E402

PW = os.environ["PW"]
PG = {"host": "127.0.0.1", "port": int(os.environ["PG_PORT"]), "user": "salt", "pass": PW, "db": "salt"}
MY = {"host": "127.0.0.1", "port": int(os.environ["MY_PORT"]), "user": "salt", "pass": PW, "db": "salt"}
MINIONS = ["web01", "db01", "ß-host"]
VALUES = ["a", "b", "x", "ß", "ℝ", None]


def tables(rng):
    """(name, columns (name, sql type), rows) for both servers."""
    out = []
    for t in range(3):
        ncols = rng.randint(1, 4)
        cols = [(f"c{i}", rng.choice(["text", "int", "double"])) for i in range(ncols)]
        rows = []
        for _ in range(rng.randint(2, 9)):
            row = [rng.choice(MINIONS + ["other"])]
            for _, ty in cols:
                if rng.random() < 0.12:
                    row.append(None)
                elif ty == "text":
                    row.append(rng.choice([v for v in VALUES if v is not None]))
                elif ty == "int":
                    row.append(rng.choice([1, 2, 3, 10]))
                else:
                    row.append(rng.choice([0.5, 1.5, 2.25]))
            rows.append(row)
        out.append((f"t{t}", cols, rows))
    return out


def load(rng):
    data = tables(rng)
    pg = psycopg2.connect(host=PG["host"], port=PG["port"], user="salt", password=PW, dbname="salt")
    my = pymysql.connect(host=MY["host"], port=MY["port"], user="salt", password=PW, database="salt", charset="utf8mb4")
    for conn, types, seq in ((pg, {"text": "TEXT", "int": "INTEGER", "double": "DOUBLE PRECISION"}, "SERIAL"),
                             (my, {"text": "VARCHAR(64) CHARACTER SET utf8mb4", "int": "INTEGER", "double": "DOUBLE"}, "INTEGER AUTO_INCREMENT")):
        cur = conn.cursor()
        for name, cols, rows in data:
            cur.execute(f"DROP TABLE IF EXISTS {name}")
            coldefs = ", ".join(f"{c} {types[ty]}" for c, ty in cols)
            cur.execute(f"CREATE TABLE {name} (id {seq} PRIMARY KEY, minion VARCHAR(64), {coldefs})")
            for row in rows:
                ph = ", ".join(["%s"] * len(row))
                cur.execute(f"INSERT INTO {name} (minion, {', '.join(c for c, _ in cols)}) VALUES ({ph})", row)
        conn.commit()
        conn.close()
    return data


def query(rng, data):
    name, cols, _ = rng.choice(data)
    picked = [c for c, _ in cols]
    if len(picked) > 1 and rng.random() < 0.3:
        picked = picked[: rng.randint(1, len(picked))]
    where = rng.choice(["minion = %s", "minion = %s OR minion = 'other'"])
    if rng.random() < 0.05:
        name = "no_such_table"
    return f"SELECT {', '.join(picked)} FROM {name} WHERE {where} ORDER BY id"


def config(rng, data):
    def one():
        q = query(rng, data)
        r = rng.random()
        if r < 0.3:
            return q
        d = {"query": q}
        if rng.random() < 0.5:
            d["depth"] = rng.choice([0, 1, 2, 3])
        for flag in ("as_list", "ignore_null"):
            if rng.random() < 0.3:
                d[flag] = True
        if rng.random() < 0.3:
            d["with_lists"] = rng.choice(["1", "2", "1,2", "3"])
        return d

    def entry():
        if rng.random() < 0.5:
            return [one() for _ in range(rng.randint(1, 3))]
        return {rng.choice(["main", "extra", "sql"]): one() for _ in range(rng.randint(1, 2))}

    ext = []
    for _ in range(rng.randint(1, 3)):
        ext.append({rng.choice(["postgres", "mysql"]): entry()})
    return ext


def main():
    work, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    data = load(rng)
    for n in range(count):
        d = os.path.join(work, f"{n:03d}")
        os.makedirs(os.path.join(d, "etc"), exist_ok=True)
        os.makedirs(os.path.join(d, "pillar"), exist_ok=True)
        with open(os.path.join(d, "pillar", "top.sls"), "w") as f:
            f.write("base:\n  '*':\n    - common\n")
        with open(os.path.join(d, "pillar", "common.sls"), "w") as f:
            f.write("main:\n  from_roots: 1\nroots_only: {{ grains['id'] }}\n")
        minion = rng.choice(MINIONS)
        pg = dict(PG)
        my = dict(MY)
        if rng.random() < 0.06:
            pg["pass"] = "wrong-pw"
        if rng.random() < 0.06:
            my["pass"] = "wrong-pw"
        cfg = {
            "id": minion,
            "file_client": "local",
            "grains": {"id": minion, "os_family": "Debian"},
            "file_roots": {"base": [os.path.join(d, "srv")]},
            "pillar_roots": {"base": [os.path.join(d, "pillar")]},
            "cachedir": os.path.join(d, "cache"),
            "pki_dir": os.path.join(d, "pki"),
            "log_file": os.path.join(d, "log"),
            "ext_pillar": config(rng, data),
            "postgres": pg,
            "mysql": my,
        }
        if rng.random() < 0.3:
            cfg["ext_pillar_first"] = True
        if rng.random() < 0.3:
            cfg["pillar_source_merging_strategy"] = rng.choice(["recurse", "overwrite", "smart"])
        with open(os.path.join(d, "etc", "minion"), "w") as f:
            json.dump(cfg, f, ensure_ascii=False, indent=1)
        opts = salt.config.minion_config(os.path.join(d, "etc", "minion"))
        opts["grains"] = cfg["grains"]
        try:
            pillar = salt.pillar.get_pillar(opts, opts["grains"], minion, saltenv="base").compile_pillar()
            out = {"pillar": json.loads(json.dumps(pillar, default=str))}
        except Exception as exc:  # noqa: BLE001
            out = {"error": f"{type(exc).__name__}: {exc}"}
        with open(os.path.join(d, "salt.json"), "w") as f:
            json.dump(out, f, ensure_ascii=False, indent=1)
    print(f"extpillar: {count} cases in {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
