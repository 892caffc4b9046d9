"""Benchmark ApproxOrdSample (Algorithm 6.20) at PureSparseHistogram sizes.

|X| = 2^64, eps = 1/10, beta = 1/20 (beta_1 = beta/4), M = FastSample_{n, eps, beta/(8|X|)}
(Figure 5's choice), delta = eps/3 * beta_1 * (1/(3|X|))^n (Algorithm 6.9),
s = (n^2 + 2n)|X|/delta (Algorithm 6.21), m = |X| - n.  Usage::

    python tests/benchmarks/bench_orderstats.py                  # n = 100, 300, 1000, 3000
    python tests/benchmarks/bench_orderstats.py --n 100 300 --loop-only

``--loop-only`` turns off ApproxBinDraw's certified shortcuts, so every draw runs the
paper's doubling loop (minutes from n ~ 1000 on).  Prints, per n: seconds, the number of
ApproxConvExp widths computed (0 = every draw decided by the certified bounds), and the
top five released order statistics.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from unittest import mock

from exactdp.counting import FastSample
from exactdp.histograms import orderstats
from exactdp.randomness import SeededSource
from exactdp.trace import recording


def run(n: int, seed: int) -> tuple[float, int, tuple[int, ...]]:
    size = 1 << 64
    eps, beta = Fraction(1, 10), Fraction(1, 20)
    delta = eps / 3 * (beta / 4) * Fraction(1, 3 * size) ** n
    s = (n * n + 2 * n) * size * delta.denominator
    mech = FastSample(n, eps, beta / (8 * size))
    start = time.perf_counter()
    with recording() as events:
        out = orderstats.approx_ord_sample(mech.scaled_cdf_at_zero, n, mech.d, size - n, s,
                                           SeededSource(seed))
    took = time.perf_counter() - start
    return took, sum(1 for e in events if e[0] == "abs_width"), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[100, 300, 1000, 3000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--loop-only", action="store_true",
                        help="disable the certified shortcuts (the paper's loop every time)")
    args = parser.parse_args()
    print(f"{'n':>5} {'seconds':>9} {'widths':>7}  top order statistics")
    for n in args.n:
        if args.loop_only:
            with mock.patch.object(orderstats.ApproxBinDraw, "certified_output",
                                   lambda self, u: None):
                took, widths, out = run(n, args.seed)
        else:
            took, widths, out = run(n, args.seed)
        print(f"{n:>5} {took:9.2f} {widths:>7}  {out[:5]}", flush=True)


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
