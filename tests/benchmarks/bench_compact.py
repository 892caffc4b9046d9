"""Benchmark: CompactHistogram (Algorithm 8.2 with Theorem 8.6's parameters).

Plain script (not collected by pytest)::

    python tests/benchmarks/bench_compact.py                       # n = 1000
    python tests/benchmarks/bench_compact.py --n 1000 3000         # release + evaluate
    python tests/benchmarks/bench_compact.py --n 10000             # the issue's target
    python tests/benchmarks/bench_compact.py --n 300 --pure        # pure-Python arithmetic

Setting: ``|X| = 2**64``, ``eps = 1/10``, ``beta0 = 2**-20``: FastSample with ``eps' = 1/12``,
``gamma = 2**-85`` has ``log2 d ~ 28700``, so Theorem 8.6's field is ``GF(2**39366)``
(level 9) whatever ``n`` is.  Each ``n``:

* ``release``: strict mode (the default) on ``n`` distinct uniformly random rows (the
  worst case: ``|A| = n``), with the OS CSPRNG: ``n + 1`` point values (two draws and a
  FastSample search each) and the interpolation through them -- native
  (:mod:`exactdp.histograms.native`: ``[L:K] = 243`` subfield interpolations sharing one
  subproduct tree) or, with ``--pure``, the pure-Python Newton form (``~n**2`` products).
* ``--few K``: ``n`` rows over only ``K`` distinct values, released in the fast mode
  (``strict_time=False``, time ``~K n``): a genuine degree-``n`` release in seconds, used
  to time ``evaluate`` at large ``n``.
* ``evaluate``: the first call (which builds the native coordinate table), then the median
  of several more ``evaluate(x)`` (``n`` products by an element of ``K``, then ``M0``: one
  FastSample search).
* JSON size, dump and validated load times.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import TypeVar

from exactdp.histograms import native
from exactdp.histograms.compact import CompactHistogram, CompactRelease
from exactdp.histograms.data import Dataset
from exactdp.randomness import SystemSource

UNIVERSE = 2**64
EPSILON = Fraction(1, 10)
BETA0 = Fraction(1, 2**20)
T = TypeVar("T")


def _timed(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def bench(n: int, few: int | None, seed: int, arithmetic: str) -> None:
    rng = random.Random(seed)
    ch, t_params = _timed(lambda: CompactHistogram.theorem_8_6(
        UNIVERSE, n, EPSILON, BETA0, strict_time=few is None, arithmetic=arithmetic))
    print(f"n = {n}: {ch.mechanism!r}; log2 d = {ch.mechanism.d.bit_length()}; field "
          f"GF(2^{ch.field.degree}) (level {ch.field.level}); parameters {t_params:.2f} s")
    if few is None:
        rows = [rng.randrange(1, UNIVERSE + 1) for _ in range(n)]
        label = f"strict mode, {len(set(rows))} distinct rows"
    else:
        values = [rng.randrange(1, UNIVERSE + 1) for _ in range(few)]
        rows = [values[i % few] for i in range(n)]
        label = f"fast mode, {few} distinct rows"
    data = Dataset.of(UNIVERSE, rows)
    rel, t_release = _timed(lambda: ch.release(data, SystemSource()))
    print(f"  release ({label}): {t_release:.1f} s")
    probes = sorted(set(rows))[:3] + [rng.randrange(1, UNIVERSE + 1) for _ in range(3)]
    _, t_first = _timed(partial(rel.evaluate, probes[0]))
    print(f"  first evaluate (builds the coordinate table if native): {1000 * t_first:.1f} ms")
    times = []
    for x in probes:
        _, t = _timed(partial(rel.evaluate, x))
        times.append(t)
    print(f"  evaluate: median {1000 * statistics.median(times):.1f} ms over {len(times)} "
          f"elements (min {1000 * min(times):.1f}, max {1000 * max(times):.1f})")
    text, t_dump = _timed(rel.dumps)
    back, t_load = _timed(lambda: CompactRelease.loads(text))
    assert back == rel
    print(f"  JSON: {len(text) / 1e6:.1f} MB, dump {t_dump:.1f} s, validated load {t_load:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1000])
    parser.add_argument("--few", type=int, help="distinct rows (fast mode); default: n")
    parser.add_argument("--seed", type=int, default=1, help="seed of the synthetic rows")
    parser.add_argument("--pure", action="store_true", help="the pure-Python arithmetic")
    args = parser.parse_args()
    arithmetic = "pure" if args.pure else "auto"
    print(f"CompactHistogram benchmark: |X| = 2^64, eps = {EPSILON}, beta0 = 2^-20; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; arithmetic: "
          f"{'pure' if args.pure else native.status()}")
    for n in args.n:
        bench(n, args.few, args.seed, arithmetic)


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
