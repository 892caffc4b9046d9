"""The strict-time discrete Gaussian against OpenDP's and the CKS sampler, in ONE process.

    python tests/benchmarks/bench_dgauss.py                  # about a minute on 2 cores
    python tests/benchmarks/bench_dgauss.py --draws 500 --blocks 5 --single 2000   # quicker

Three samplers of the discrete Gaussian ``N_Z(0, sigma^2)``, one draw per call, each with the
operating system's CSPRNG:

* exactdp: ``DiscreteGaussian(sigma2).add(0)`` (:mod:`exactdp.discrete_gaussian`: one
  ``uniform(W)`` and a search of ``ceil(log2(2T + 2))`` rounds; weights
  ``floor(2^128 exp(-x^2/(2 sigma^2)))``), the table built once beforehand (its build time
  and size printed);
* OpenDP 0.16: ``make_gaussian`` on ``atom_domain(T=int)`` with ``scale = sigma`` (its exact
  discrete Gaussian sampler, a Rust rejection sampler behind the Python call);
* CKS: the Canonne-Kamath-Steinke rejection sampler (``cks_discretegauss.py`` beside this
  script, a port of the authors' Python code, with ``random.SystemRandom``).

Per-draw CPU time: blocks of ``--draws`` calls of each sampler, alternated (A, B, C, A, B, C,
...) so that the load of a shared machine falls on all alike; medians and minima over the
blocks, and exactdp's time over OpenDP's and CKS's.  Spread: ``--single`` draws timed one by
one (the thread's CPU clock, the samplers interleaved draw by draw): quantiles of the CPU time
of one draw; and the number of uniform draws each CKS sample makes (exactdp: always one).  Floats appear only here, to time and to give OpenDP its scale.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[2]))  # this checkout's exactdp

import cks_discretegauss
import record

from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.randomness import SystemSource

Sampler = Callable[[], int]


def samplers(sigma2: int) -> dict[str, Sampler]:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    g = DiscreteGaussian(sigma2)
    src = SystemSource()
    start = time.process_time()
    g.d  # noqa: B018 - build the table outside the timings
    built = time.process_time() - start
    size = sum(sys.getsizeof(v) + 8 for v in g._table)
    print(f"exactdp table: T = {g.tail}, {g.n + 1} entries, W of {g.d.bit_length()} bits, "
          f"{(g.n + 1).bit_length()} search rounds; built in {built:.3f} s CPU, "
          f"about {size / 2**20:.1f} MiB")
    opendp = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                scale=math.sqrt(sigma2))
    rng = random.SystemRandom()
    s2 = Fraction(sigma2)
    return {"exactdp": lambda: g.add(0, src), "OpenDP": lambda: opendp(0),
            "CKS": lambda: cks_discretegauss.dgauss(s2, rng)}


def blocks(fns: dict[str, Sampler], draws: int, reps: int) -> dict[str, list[float]]:
    """Per-draw CPU seconds of each sampler, one figure per block, blocks alternated."""
    out: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            start = time.process_time()
            for _ in range(draws):
                fn()
            out[name].append((time.process_time() - start) / draws)
    return out


def singles(fns: dict[str, Sampler], count: int) -> dict[str, list[int]]:
    """CPU nanoseconds of single draws (this thread's CPU clock: time spent descheduled is not
    counted), the samplers interleaved draw by draw."""
    out: dict[str, list[int]] = {name: [] for name in fns}
    clock = time.thread_time_ns
    for _ in range(count):
        for name, fn in fns.items():
            start = clock()
            fn()
            out[name].append(clock() - start)
    return out


class _Counting(random.Random):
    """``random.Random`` counting its ``randrange`` calls (the CKS port's only draws)."""

    calls = 0

    def randrange(self, *args: int) -> int:  # type: ignore[override]
        self.calls += 1
        return super().randrange(*args)


def coin_calls(sigma2: int, count: int) -> list[int]:
    """The number of uniform draws of each of ``count`` CKS samples (seeded: a count only)."""
    rng = _Counting(7)
    out = []
    for _ in range(count):
        before = rng.calls
        cks_discretegauss.dgauss(Fraction(sigma2), rng)
        out.append(rng.calls - before)
    return out


def quantile(xs: list[int], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sigma2", default="1000000,100000000",
                    help="comma-separated integer variances (default 10^6 and 10^8)")
    ap.add_argument("--draws", type=int, default=2000, help="draws per timed block")
    ap.add_argument("--blocks", type=int, default=7, help="blocks per sampler")
    ap.add_argument("--single", type=int, default=5000, help="single draws timed per sampler")
    args = ap.parse_args()
    for sigma2 in (int(s) for s in args.sigma2.split(",")):
        print(f"\n== sigma^2 = {sigma2} (sigma = {math.sqrt(sigma2):g}) ==")
        fns = samplers(sigma2)
        for fn in fns.values():  # warm up (imports, caches)
            for _ in range(50):
                fn()
        per = blocks(fns, args.draws, args.blocks)
        print(f"\nper-draw CPU time, {args.blocks} blocks of {args.draws} draws each:")
        print(f"{'sampler':<10}{'median':>12}{'min':>12}")
        for name, xs in per.items():
            print(f"{name:<10}{statistics.median(xs) * 1e6:>10.2f} us"
                  f"{min(xs) * 1e6:>10.2f} us")
        for other in ("OpenDP", "CKS"):
            print(f"exactdp / {other}: median {statistics.median(per['exactdp']) / statistics.median(per[other]):.3f}, "
                  f"min {min(per['exactdp']) / min(per[other]):.3f}")
        one = singles(fns, args.single)
        print(f"\nCPU time of one draw ({args.single} draws each, interleaved; the clock's "
              f"resolution is {time.get_clock_info('thread_time').resolution * 1e9:g} ns):")
        print(f"{'sampler':<10}" + "".join(f"{h:>10}" for h in
                                           ("p1", "p50", "p90", "p99", "p99.9", "max"))
              + f"{'p99/p50':>10}")
        for name, xs in one.items():
            qs = [quantile(xs, q) for q in (0.01, 0.5, 0.9, 0.99, 0.999)] + [max(xs)]
            print(f"{name:<10}" + "".join(f"{v / 1000:>8.1f}us" for v in qs)
                  + f"{qs[3] / qs[1]:>10.2f}")
        calls = coin_calls(sigma2, args.single)
        print(f"\nrandom draws per sample ({args.single} samples): exactdp exactly 1 "
              f"uniform(W) and {(DiscreteGaussian(sigma2).n + 1).bit_length()} search rounds "
              f"always; CKS randrange calls p1 {quantile(calls, 0.01)}, p50 "
              f"{quantile(calls, 0.5)}, p99 {quantile(calls, 0.99)}, max {max(calls)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main, __file__))
