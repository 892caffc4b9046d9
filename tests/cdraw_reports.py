"""Whole white-box reports of code drawing through the facades, as JSON on stdout: run by
tests/test_audit_cdraw.py in a fresh process with the C draw chain, without it
(``EXACTDP_CDRAW=0``), or with a planted C build (argv[1]: its path, or ""), of the cases named in argv[2]
(comma-separated; default: all)."""

import json
import random
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
_tests = types.ModuleType("tests")  # (diffprivlib installs a package named tests)
_tests.__path__ = [str(ROOT / "tests")]
sys.modules["tests"] = _tests

if len(sys.argv) > 1 and sys.argv[1]:  # a planted build of _cdraw.c, found instead of the real one
    import exactdp.native_library as _nl

    _real = _nl.candidates
    _nl.candidates = lambda f, name: [Path(sys.argv[1])] if name == "_cdraw" else _real(f, name)

from exactdp.audit import draw_native, whitebox_audit
from exactdp.audit.facades import FacadeRefusal, facade_mechanism
from exactdp.audit.inputs import parse_inputs
from exactdp.explore import NondeterminismError
from tests.audit_targets import draw_targets as dt
from tests.audit_targets import numpy_draw_targets as nt
from tests.audit_targets import timing_targets as tt

SVT = parse_inputs("vectors(3, 0..1, 1, linf)")
SVT2 = parse_inputs("vectors(2, 0..1, 1, linf)")
#: two inputs, no confirmation in other processes (the cases that pass and are not the
#: numpy sparse vector's, which is confirmed)
QUICK = {"inputs": range(2), "hash_seed_check": False}
_runs = [0]


def drifting(c):
    """Not a function of its draws: the threshold moves on every call."""
    _runs[0] += 1
    return c if random.random() < 0.5 + _runs[0] * 2**-40 else 1 - c


def patched(fn, lazy=True):
    return facade_mechanism(lambda c, rng: fn(c), "random", patch_modules=[random], lazy=lazy)


def plain_randrange(c):
    """randrange(n) drawn when integer draws are not lazy (and randrange(1))."""
    return (c + (random.randrange(3) == 0) + random.randrange(1)) % 2


CASES = [
    ("loop", lambda: patched(tt.geometric_loop_for(4)), {"inputs": range(5)}),
    ("cdf_walk", lambda: patched(tt.cdf_walk), {"inputs": range(2)}),
    ("rr", lambda: patched(tt.rr_plain), {"inputs": range(2)}),
    ("svt1_sym", lambda: facade_mechanism(tt.svt1_sym, "random"),
     SVT.kwargs()),
    ("many_operands", lambda: patched(dt.many_operands), {"inputs": range(2)}),
    ("equalities", lambda: patched(dt.equalities), {"inputs": range(2)}),
    ("shifted_randint", lambda: patched(dt.shifted_randint), {"inputs": range(2)}),
    ("walk", lambda: patched(dt.walk), {"inputs": range(3)}),
    ("escapes", lambda: patched(dt.escapes), {"inputs": range(2)}),
    ("drifting", lambda: patched(drifting), {"inputs": range(2)}),
    ("own_methods", lambda: patched(dt.own_methods), {"inputs": range(2)}),
    ("bound_name", lambda: patched(dt.bound_name), {"inputs": range(2)}),
    ("compared_twice", lambda: patched(dt.compared_twice), {"inputs": range(2)}),
    ("np_svt", lambda: facade_mechanism(nt.svt2, "numpy"), SVT2.kwargs()),
    ("np_choices", lambda: facade_mechanism(nt.choices, "numpy"), QUICK),
    ("np_forms", lambda: facade_mechanism(nt.forms, "numpy"), QUICK),
    ("np_refused", lambda: facade_mechanism(nt.refused, "numpy"), {"inputs": range(2)}),
    ("np_limited", lambda: facade_mechanism(nt.limited, "numpy"),
     {"inputs": range(2), "randomness_size": 16}),
    ("np_large", lambda: facade_mechanism(nt.large, "numpy"), {"inputs": range(2)}),
    ("np_drifting", lambda: facade_mechanism(nt.drifting, "numpy"), {"inputs": range(2)}),
    ("plain_randrange", lambda: patched(plain_randrange, lazy=False), QUICK),
]


def main() -> None:
    out = {"status": draw_native.status().split(" ")[0]}
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else None
    for name, make, kwargs in CASES:
        if only is not None and name not in only:
            continue
        try:
            report = whitebox_audit(make(), claimed_epsilon=3, kind="source",
                                    **kwargs).to_json()
            for key in ("seconds", "environment", "elapsed_seconds"):
                report.pop(key, None)
        except (FacadeRefusal, NondeterminismError) as exc:
            report = {"raised": type(exc).__name__, "message": str(exc)}
        out[name] = report
    json.dump(out, sys.stdout, sort_keys=True, default=repr)


if __name__ == "__main__":
    main()
