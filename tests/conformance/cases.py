"""Finding conformance cases: the one helper every driver and comparer of tests/conformance uses,
and the loop the comparers of one binary against salt.json share."""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys


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
    the case passed, else why not; or a list of `(label, None or why)` when one case directory
    holds several judged cases) over every case in threads, `FAIL CASE: why` per failure,
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
        for case_dir, result in zip(cases, pool.map(lambda c: compare(binary, c), cases)):
            for label, problem in result if isinstance(result, list) else [(os.path.basename(case_dir), result)]:
                if problem is None:
                    passed += 1
                else:
                    failed += 1
                    print(f"FAIL {label}: {problem}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


def comparer_args(doc, keep=False):
    """The options of a comparer of the binary against salt.json (`--keep` when it can keep
    its output): parsed, with `binary` absolute and `cases` from judged_cases (None: exit 2)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="case directories or directories of cases")
    ap.add_argument("--bin", required=True, help="the salt-analyzer binary")
    ap.add_argument("--only", action="append", help="run only this case (name or path; repeatable)")
    if keep:
        ap.add_argument("--keep", action="store_true", help="keep CASE/ours.json and CASE/ours.stderr")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--known", help="a file of cases known to differ, one `NAME  reason` a line: "
                    "each must still differ (one that agrees fails the run, to be taken off)")
    ap.add_argument("--salt-version", default=None,
                    help="the Salt release the binary answers for, passed on every call as "
                         "`--salt-version` (default: the major of the Salt this Python imports)")
    a = ap.parse_args()
    a.known_cases = read_known(a.known) if a.known else {}
    a.binary = os.path.abspath(a.bin) if os.path.sep in a.bin else a.bin
    if a.salt_version is None:
        a.salt_version = installed_salt_major()
    a.cases = judged_cases(a.dirs, a.only)
    return a


def installed_salt_major():
    """'3008' for the Salt this Python imports (3008.4 -> 3008), None without one."""
    try:
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

        try:
            return version("salt").split(".")[0]
        except PackageNotFoundError:
            pass
        import salt.version  # noqa: PLC0415

        return salt.version.__version__.split(".")[0]
    except ImportError:
        return None


def judged_cases(dirs, only):
    """The cases among `dirs` (see find_cases), or None after saying why there are none to
    judge: no case, or a case without the salt.json of salt_driver.py."""
    cases = find_cases(dirs, only)
    missing = [c for c in cases if not os.path.isfile(os.path.join(c, "salt.json"))]
    if missing:
        print(f"no salt.json (run salt_driver.py first): {missing[0]} and {len(missing) - 1} more", file=sys.stderr)
        return None
    if not cases:
        print("no cases found", file=sys.stderr)
        return None
    return cases


def read_known(path):
    """`{case name: reason}` from a known-differences file (`NAME  reason`, `#` comments)."""
    known = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, reason = line.partition(" ")
                known[name] = reason.strip()
    return known


def judge(cases, jobs, check, known=None):
    """Run `check(case) -> (case, problem or None, ...)` over `cases` on `jobs` threads and
    print a FAIL line per problem. A case in `known` (name: reason) must differ: it is printed
    as KNOWN and counted apart, and fails when it agrees. Returns (passed, failed, the results
    of the passing cases)."""
    known = known or {}
    passed, failed, ok, differ = 0, 0, [], 0
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        for result in ex.map(check, cases):
            case, problem = result[0], result[1]
            name = os.path.basename(os.path.normpath(case))
            if problem is None and name in known:
                failed += 1
                print(f"FAIL {case}: agrees now, but is listed as known to differ ({known[name]}): take it off the list", flush=True)
            elif problem is None:
                passed += 1
                ok.append(result)
            elif name in known:
                differ += 1
                print(f"KNOWN {case}: {problem} [{known[name]}]", flush=True)
            else:
                failed += 1
                print(f"FAIL {case}: {problem}", flush=True)
    if known:
        print(f"{differ} known to differ", flush=True)
    return passed, failed, ok


def run_on_case(binary, command, case, timeout, salt_version=None):
    """`BIN COMMAND -c CASE/etc --sls A,B --saltenv ENV --format json [--salt-version V]` for
    a case: its case.json, its salt.json, the command line, and (exit code, stdout, stderr) or,
    when the binary did not run to its end, why not (a string)."""
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    with open(os.path.join(case, "salt.json"), encoding="utf-8") as fh:
        salt = json.load(fh)
    cmd = [binary, command, "-c", os.path.join(case, "etc"), "--sls", ",".join(meta["sls"]),
           "--saltenv", meta.get("saltenv", "base"), "--format", "json"]
    if salt_version:
        cmd += ["--salt-version", str(salt_version)]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return meta, salt, cmd, f"timed out after {timeout}s"
    except OSError as exc:
        return meta, salt, cmd, f"cannot run {binary}: {exc}"
    return meta, salt, cmd, (p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
