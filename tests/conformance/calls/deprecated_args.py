"""Each deprecated argument the committed state catalog of this Salt's release records
(`deprecated_args`, tests/conformance/gen_state_catalog.py) against Salt itself: the state
function, as this Salt's loader gives it (`State.states`), is called in test mode once with
the argument and once without, with the required arguments filled in and every path under a
scratch directory; the catalog's message must be a DeprecationWarning of the first call and not
of the second (so it is the argument that makes Salt warn). What the function does after
warning (it may fail for want of a key, a library, a CA) does not matter here.

    PYTHON deprecated_args.py --work DIR [--salt-version MAJOR]

Prints one line per argument, then `N passed, M failed`; a function this host's Salt does not
load (its `__virtual__` declines) is said and counted as failed: the check would prove nothing.

The generator's reading of the x509 file the catalog leaves out (3006 and 3007 load x509.py by
default; their x509_v2.py, whose `__virtual__` wants `features: {x509_v2: true}`, has the
deprecated arguments 3008 ships) is checked the same way, with that feature on: so the
generator's findings are proved against each release's own Salt even where its catalog has
none. And the generator's rules themselves, on a made-up state module (`RULES`): which tests
count as "the argument was passed" and which do not.
"""

import argparse
import json
import logging
import os
import shutil
import sys
import warnings

logging.basicConfig(level=logging.CRITICAL + 10)

import salt.config  # noqa: E402
import salt.state  # noqa: E402
import salt.utils.args  # noqa: E402
import salt.version  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from gen_state_catalog import DEFAULT_FILE, load  # noqa: E402

CATALOGS = os.path.join(HERE, "..", "..", "..", "server", "model", "src", "state")


# A made-up state module: the arguments the generator must find (`a` ... `z`) and the warnings
# it must leave alone (a default's change, an `else`, an `except`, a loop, a test on another
# value, a message that is not a literal).
RULES = """
import salt.utils.versions
from salt.utils.versions import warn_until

def f(name, a=None, b=False, c=True, d=None, **kwargs):
    x = kwargs.pop("x", None)
    many = {"m1", "m2"}.intersection(kwargs)
    if a is not None:
        salt.utils.versions.warn_until(3009, "a goes in {version}")
    if b:
        warn_until("Potassium", "b goes")
    if c:
        warn_until(3009, "c warns by default")
    if d is None:
        warn_until(3009, "d's default changes")
    else:
        warn_until(3009, "else branch")
    if x is not None:
        warn_until(3009, "x goes")
    if many:
        salt.utils.versions.kwargs_warn_until(many, "Potassium")
    if "y" in kwargs or kwargs.get("z"):
        try:
            warn_until(3009, "y or z")
        except RuntimeError:
            warn_until(3009, "except")
    if "w" in kwargs:
        if name:
            warn_until(3009, "w and name")
    for i in kwargs:
        if "v" in kwargs:
            warn_until(3009, "loop")
    if "u" in kwargs:
        warn_until(3009, f"u {name}")
    if "t" in kwargs:
        salt.utils.versions.warn_until_date("20300101", "t until {date}")
"""
RULES_FOUND = {
    "a": "a goes in 3009.0 (Potassium)",
    "b": "b goes",
    "m1": "The following parameter(s) have been deprecated and will be removed in '3009.0': 'm1'.",
    "m2": "The following parameter(s) have been deprecated and will be removed in '3009.0': 'm2'.",
    "t": "t until 2030-01-01",
    "x": "x goes",
    "y": "y or z",
    "z": "y or z",
}


def generator_rules(work):
    """Whether the generator finds exactly `RULES_FOUND` in `RULES`."""
    os.makedirs(os.path.join(work, "rules"))
    path = os.path.join(work, "rules", "depr_rules_state.py")
    with open(path, "w") as f:
        f.write(RULES)
    sys.path.insert(0, os.path.dirname(path))
    found = load("depr_rules_state", "depr_rules_state", path)[1]["f"].get("deprecated_args", {})
    got = {k: v["message"] for k, v in found.items()}
    if got == RULES_FOUND:
        print(f"generator rules: {len(got)} arguments found, the other warnings left alone")
        return True
    print(f"generator rules: found {got!r}, wanted {RULES_FOUND!r}")
    return False


def deprecation_warnings(fn, kwargs):
    """The DeprecationWarning messages calling `fn(**kwargs)` gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(**kwargs)
        except Exception:  # after the warning: a missing library, key or CA is not our business
            pass
    return [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--salt-version", type=int, default=salt.version.__saltstack_version__.major)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    scratch = os.path.join(a.work, "scratch")
    os.makedirs(scratch)
    os.makedirs(os.path.join(a.work, "etc"))
    with open(os.path.join(a.work, "etc", "minion"), "w") as f:
        f.write(
            f"file_client: local\nfile_roots:\n  base:\n    - {a.work}/srv\ncachedir: {a.work}/cache\n"
            f"pki_dir: {a.work}/pki\nlog_file: {a.work}/log\ntest: true\n"
        )

    def state(features):
        opts = salt.config.minion_config(os.path.join(a.work, "etc", "minion"))
        opts["file_client"] = "local"
        opts["grains"] = {}
        opts["test"] = True
        opts["features"] = features
        return salt.state.State(opts)

    catalog = json.load(open(os.path.join(CATALOGS, f"catalog-{a.salt_version}.json"), encoding="utf-8"))
    cases = [(state({}), "", catalog["modules"])]
    if DEFAULT_FILE["x509"] == "x509":
        path = os.path.join(os.path.dirname(salt.__file__), "states", "x509_v2.py")
        name, functions = load("salt.states.x509_v2", "x509_v2", path)
        cases.append((state({"x509_v2": True}), " (x509_v2.py, not in the catalog; features: {x509_v2: true})", {name: functions}))
    passed = failed = 0
    if generator_rules(a.work):
        passed += 1
    else:
        failed += 1
    for st, note, modules in cases:
        for module, functions in modules.items():
            for fun, facts in functions.items():
                for arg, dep in facts.get("deprecated_args", {}).items():
                    ok = check(st, f"{module}.{fun}", fun, arg, dep, scratch, note)
                    passed += ok
                    failed += not ok
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def check(st, full, fun, arg, dep, scratch, note):
    """Whether Salt, calling `full` as `st` loads it, warns `dep`'s message for `arg` alone."""
    fn = st.states.get(full)
    if fn is None:
        print(f"{full} {arg}{note}: not loaded by this host's Salt, not checked")
        return False
    aspec = salt.utils.args.get_function_argspec(fn)
    required = aspec.args[: len(aspec.args) - len(aspec.defaults or ())]
    base = {r: os.path.join(scratch, f"{fun}-{arg}-{r}") for r in required}
    with_arg = deprecation_warnings(fn, {**base, arg: "x"})
    without = deprecation_warnings(fn, base)
    if dep["message"] in with_arg and dep["message"] not in without:
        print(f"{full} {arg}{note}: Salt warns {dep['message']!r}")
        return True
    print(f"{full} {arg}{note}: catalog says {dep['message']!r}; Salt warned {with_arg!r} with it, {without!r} without")
    return False


if __name__ == "__main__":
    main()
