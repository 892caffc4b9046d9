"""CPU seconds of white-box audits of code as people write it (module ``random``, patched).

Cases: a truncated geometric on [0, N] written as a ``random()`` loop (N = 10 and 100; inputs
0..1, and ``_all``: inputs 0..N)
and sparse-vector variants on 3 queries over {0, 1} (l-infinity neighbours) with noise
clamped to [-2, 2], or (``_sym``) noise in {-1, 0, 1} from ``rng.randrange(4)`` compared
twice, the rng passed in (:mod:`tests.audit_targets.timing_targets`), or (``_np``) noise
in {-1, 0, 1} from a numpy Generator's ``integers(4)``.  ``--search`` explores every
``random()`` value by its effect (the facade's piecewise search) and every integer draw by
each of its values, instead of branching on their comparisons, for comparison; ``--cases`` picks cases by name.

    python tests/benchmarks/bench_audit_explore.py [--search] [--cases loop10,svt1] [--record]

Each line also shows the CPU seconds of the same case in the run recorded before
(``results/bench_audit_explore.md``, or ``--before FILE``) and the ratio before / now, and
after a PASS the CPU seconds of the processes that confirmed it under other hash seeds.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
# diffprivlib installs a top-level package named ``tests``: bind the name to this repository's
_tests = types.ModuleType("tests")
_tests.__path__ = [str(Path(__file__).resolve().parents[1])]
sys.modules["tests"] = _tests

from exactdp.audit import whitebox_audit
from exactdp.audit.facades import FacadeRefusal, facade_mechanism
from exactdp.audit.inputs import parse_inputs
from tests.audit_targets import numpy_draw_targets as nt
from tests.audit_targets import timing_targets as tt

SVT = parse_inputs("vectors(3, 0..1, 1, linf)")
CASES = {
    "loop10": (tt.geometric_loop_for(10), {"inputs": range(2)}),
    "loop100": (tt.geometric_loop_for(100), {"inputs": range(2)}),
    "loop10_all": (tt.geometric_loop_for(10), {"inputs": range(11)}),
    "loop100_all": (tt.geometric_loop_for(100), {"inputs": range(101)}),
    "svt1": (tt.svt1, SVT.kwargs()),
    "svt2": (tt.svt2, SVT.kwargs()),
    "num_svt": (tt.num_svt, SVT.kwargs()),
    "gap_svt": (tt.gap_svt, SVT.kwargs()),
    "svt1_busy": (tt.svt1_busy, SVT.kwargs()),
    "svt1_coins": (tt.svt1_coins, SVT.kwargs()),
    "svt1_laplace": (tt.svt1_laplace, SVT.kwargs()),
}
#: the same shapes with ``rng.randrange(4)`` noise, the rng passed in (no patch)
WITH_RNG = {
    "svt1_sym": (tt.svt1_sym, SVT.kwargs()),
    "svt2_sym": (tt.svt2_sym, SVT.kwargs()),
    "svt_nohalt_sym": (tt.svt_nohalt_sym, SVT.kwargs()),
    "svt_scan_all_sym": (tt.svt_scan_all_sym, SVT.kwargs()),
    "svt_resample_sym": (tt.svt_resample_sym, SVT.kwargs()),
    "num_svt_sym": (tt.num_svt_sym, SVT.kwargs()),
}
#: the same shape with numpy's ``rng.integers(4)`` noise (the rng a numpy Generator)
WITH_NUMPY = {
    "svt1_np": (nt.svt1, SVT.kwargs()),
}
CASES.update(WITH_RNG)
CASES.update(WITH_NUMPY)


RECORDED = Path(__file__).resolve().parent / "results" / "bench_audit_explore.md"


def recorded(path: Path) -> dict[str, str]:
    """The CPU seconds per case in a recorded run (none when there is no such file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    return {m[1]: m[2] for m in re.finditer(r"^(\w+) +([0-9.]+) s CPU", text, re.MULTILINE)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", action="store_true")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--before", type=Path, default=RECORDED)
    args = parser.parse_args()
    before = recorded(args.before)
    for name in args.cases.split(","):
        fn, kwargs = CASES[name]
        if name in WITH_RNG or name in WITH_NUMPY:  # the rng passed in
            mech = facade_mechanism(fn, "numpy" if name in WITH_NUMPY else "random",
                                    lazy=not args.search)
        else:
            mech = facade_mechanism(lambda c, rng, fn=fn: fn(c), "random",
                                    patch_modules=[random], lazy=not args.search)
        start, children = time.process_time(), _children_cpu()
        try:
            report = whitebox_audit(mech, claimed_epsilon=3, kind="source", **kwargs)
            verdict = report.verdict + ("" if report.trace is None or report.trace.same
                                        else " (timing)")
        except FacadeRefusal as exc:
            verdict = f"refused: {str(exc)[:60]}"
        now = time.process_time() - start
        was = before.get(name)
        ratio = f"  (before: {was} s, {float(was) / max(now, 0.01):.1f}x)" if was else ""
        other = _children_cpu() - children  # a PASS: its confirmation's processes
        more = f"  (+ {other:.2f} s CPU in other processes)" if other >= 0.005 else ""
        print(f"{name:17s} {now:8.2f} s CPU  {verdict}{ratio}{more}", flush=True)


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the hash-seed confirmation)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
