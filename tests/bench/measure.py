#!/usr/bin/env python3
"""Run a command several times; print its best wall time (s) and peak RSS (MB), as JSON.

    python3 measure.py RUNS OUT_FILE -- COMMAND ARGS...

stdout of the command goes to OUT_FILE (the last run's). The peak RSS is the child's own
(`wait4`'s rusage), not this script's. Standard library only.
"""

import json
import os
import sys
import time


def main():
    runs, out = int(sys.argv[1]), sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1 :]
    best, rss = None, 0
    for _ in range(runs):
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        t = time.perf_counter()
        pid = os.posix_spawnp(cmd[0], cmd, dict(os.environ), file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1)])
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - t
        os.close(fd)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            print(json.dumps({"error": f"{cmd[0]} exited {code}"}))
            sys.exit(1)
        best = elapsed if best is None else min(best, elapsed)
        rss = max(rss, usage.ru_maxrss / 1024)
    print(json.dumps({"seconds": round(best, 4), "rss_mb": round(rss, 1)}))


if __name__ == "__main__":
    main()
