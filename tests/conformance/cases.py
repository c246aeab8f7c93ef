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


def compare_main(compare, doc=None):
    """The main of a comparer: `--bin BIN [--jobs N] DIR...`, `compare(bin, case)` (None when
    the case passed, else why not) over every case in threads, `FAIL CASE: why` per failure,
    and the last line `N passed, N failed`. Exit status 1 when a case failed or none ran."""
    import argparse
    import concurrent.futures

    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    cases = find_cases(a.dirs)
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for case_dir, problem in zip(cases, pool.map(lambda c: compare(binary, c), cases)):
            if problem is None:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {os.path.basename(case_dir)}: {problem}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1
