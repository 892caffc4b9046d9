"""CPU seconds of a white-box audit's exact judgement, on the laws its exploration found.

The judgement: the worst privacy-loss ratio over neighbouring inputs with its witness, the
infinite losses, the hockey-stick delta of every ordered pair, and the timing verdict on the
joint law of (output, trace) per input (:func:`exactdp.audit.timing.timing_result`,
:func:`exactdp.audit.judge._judge`).  Each case of ``bench_audit_explore.py`` named is
explored once; its judgement is then timed (best of ``--repeat`` runs) with the short-bound
screen of :mod:`exactdp.ratio_bounds` and with it switched off (every ratio and divergence
computed directly, exactly), and the two reports are compared.  ``loop100_all``: 101 laws of
a ``random()`` loop whose probabilities have denominators of up to about 5,100 bits.

    python tests/benchmarks/bench_judge.py [--cases loop100_all,svt_resample_sym] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_audit_explore as bench

from exactdp import ratio_bounds
from exactdp.audit import whitebox
from exactdp.audit.facades import facade_mechanism


@contextmanager
def screen_off() -> Iterator[None]:
    """Every law treated as one with a negative mass: the checker's direct paths."""

    def refuse(*args: Any) -> Any:
        raise ratio_bounds.NotScreened

    def no_bounds(self: Any, law: Any) -> None:
        self.law, self.nonnegative, self.bounds = law, False, {}

    saved = (ratio_bounds.worst_ratio_screened, ratio_bounds.hockey_sticks_screened,
             ratio_bounds.LawBounds.__init__)
    ratio_bounds.worst_ratio_screened = refuse
    ratio_bounds.hockey_sticks_screened = refuse
    ratio_bounds.LawBounds.__init__ = no_bounds  # type: ignore[method-assign]
    try:
        yield
    finally:
        (ratio_bounds.worst_ratio_screened, ratio_bounds.hockey_sticks_screened,
         ratio_bounds.LawBounds.__init__) = saved  # type: ignore[method-assign]


def judged_inputs(name: str) -> tuple[tuple[Any, ...] | None, tuple[Any, ...]]:
    """The arguments the audit of case ``name`` passed to ``timing_result`` and ``_judge``."""
    fn, kwargs = bench.CASES[name]
    mech = facade_mechanism(fn, "random", lazy=True) if name in bench.WITH_RNG else \
        facade_mechanism(lambda c, rng, fn=fn: fn(c), "random", patch_modules=[random],
                         lazy=True)
    got: dict[str, tuple[Any, ...]] = {}
    timing, judge = whitebox.timing_result, whitebox._judge

    def keep(key: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            got[key] = args
            return f(*args)
        return call

    whitebox.timing_result, whitebox._judge = keep("timing", timing), keep("judge", judge)
    try:
        whitebox.whitebox_audit(mech, claimed_epsilon=3, kind="source", **kwargs)
    finally:
        whitebox.timing_result, whitebox._judge = timing, judge
    return got.get("timing"), got["judge"]


def judgement(timing_args: tuple[Any, ...] | None, judge_args: tuple[Any, ...]
              ) -> tuple[float, tuple[Any, ...]]:
    """CPU seconds of one judgement, and what it decided."""
    start = time.process_time()
    trace = whitebox.timing_result(*timing_args) if timing_args is not None else None
    args = list(judge_args)
    args[-2] = trace if timing_args is not None else args[-2]
    report = whitebox._judge(*args)
    seconds = time.process_time() - start
    return seconds, (trace, report.verdict, report.worst, report.bound, report.infinite,
                     report.hockey_stick, report.hockey_stick_pair, report.excess)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="loop100_all,svt_resample_sym")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'case':17s} {'laws':>5s} {'screened':>10s} {'screen off':>11s}  reports")
    for name in args.cases.split(","):
        timing_args, judge_args = judged_inputs(name)
        laws = len(judge_args[1])
        on = [judgement(timing_args, judge_args) for _ in range(args.repeat)]
        with screen_off():
            off = [judgement(timing_args, judge_args) for _ in range(args.repeat)]
        same = all(r == on[0][1] for _, r in on + off)
        print(f"{name:17s} {laws:5d} {min(s for s, _ in on):8.3f} s {min(s for s, _ in off):9.3f} s"
              f"  {'identical' if same else 'DIFFERENT'}", flush=True)


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
