"""Finding conformance cases: the one helper every driver and comparer of tests/conformance uses."""

import os


def find_cases(paths, only=None):
    """Every case directory (one holding case.json) among `paths`: a path is a case, or a
    directory of cases (sorted by name). `only` keeps the cases named by directory name or path."""
    out = []
    for p in paths:
        p = os.path.abspath(p)
        if os.path.isfile(os.path.join(p, "case.json")):
            out.append(p)
            continue
        for name in sorted(os.listdir(p)):
            d = os.path.join(p, name)
            if os.path.isfile(os.path.join(d, "case.json")):
                out.append(d)
    if only:
        wanted = set(only) | {os.path.abspath(o) for o in only}
        out = [d for d in out if os.path.basename(d) in wanted or d in wanted]
    return out
