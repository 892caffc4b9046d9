"""An optional black-box test of wall-clock times: do two inputs run for different times?

The white-box timing verdict (:mod:`exactdp.audit.timing`) counts what the audited Python
code executes; it does not see how long an instruction takes (big-integer operand sizes)
nor C code.  This test measures instead: it calls ``sampler(a)`` and ``sampler(b)``
``draws`` times each, alternating (so that a slow drift of the machine hits both alike),
timing each call with :func:`time.perf_counter_ns`, and compares the two samples of
durations with the two-sample Kolmogorov--Smirnov statistic ``D = sup |F_a - F_b|`` (the
largest gap between the empirical distribution functions).

**False-alarm probability.**  By the Dvoretzky--Kiefer--Wolfowitz inequality (Massart's
constant), each empirical distribution function is within ``e`` of its law's except with
probability ``2 exp(-2 K e^2)``; when the two laws are equal, ``D > 2e`` therefore has
probability at most ``4 exp(-2 K e^2) = alpha`` at ``e^2 = ln(4 / alpha) / (2 K)``.  The
test rejects when ``D^2 > 2 L / K`` with ``L`` a certified upper bound on ``ln(4 / alpha)``
(a larger threshold: the false-alarm probability stays at most ``alpha``), in exact
arithmetic.  This holds when the durations of each input are independent and identically
distributed; a machine whose speed changes during the test (other load, frequency
scaling) breaks that assumption, which is why the calls alternate and why the verdict is
never a proof: a rejection says the times differ, a non-rejection says nothing was found
at this sample size.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.params import ParameterError, to_fraction

__all__ = ["WallClockResult", "wall_clock_test"]

#: ln 2 < LN2_UP (an upper bound, for the threshold: it errs towards fewer rejections).
LN2_UP = Fraction(6932, 10000)


@dataclass(frozen=True)
class WallClockResult:
    """The two samples' KS statistic ``D``, the rejection threshold on ``D^2``, the
    verdict and the median durations (ns) of each input."""

    a: Any
    b: Any
    draws: int
    alpha: Fraction
    statistic: Fraction
    threshold: Fraction
    differ: bool
    median_ns: tuple[int, int]

    def summary(self) -> str:
        verdict = ("the wall-clock times DIFFER" if self.differ else
                   "no difference detected (not a proof of constant time)")
        return (f"wall-clock test, inputs {self.a!r} vs {self.b!r}, {self.draws} calls each "
                f"(alternating): KS statistic D = {self.statistic} "
                f"({'>' if self.differ else '<='} the threshold, D^2 vs {self.threshold}); "
                f"median {self.median_ns[0]} ns vs {self.median_ns[1]} ns; {verdict}; "
                f"false-alarm probability <= {self.alpha} if each input's durations are "
                f"independent and identically distributed")


def _ln_upper(x: Fraction) -> Fraction:
    """A rational upper bound on ``ln x`` for ``x >= 1``: ``ceil(log2 x) * LN2_UP``."""
    k = (x.numerator // x.denominator).bit_length()  # 2**k > floor(x), so 2**k >= x
    return k * LN2_UP


def _ks(xs: list[int], ys: list[int]) -> Fraction:
    """``sup |F_x - F_y|`` over the real line, exactly (samples of equal size)."""
    n = len(xs)
    points = sorted(set(xs) | set(ys))
    xs, ys = sorted(xs), sorted(ys)
    i = j = 0
    best = 0
    for p in points:
        while i < n and xs[i] <= p:
            i += 1
        while j < n and ys[j] <= p:
            j += 1
        best = max(best, abs(i - j))
    return Fraction(best, n)


def wall_clock_test(sampler: Callable[[Any], Any], a: Any, b: Any, draws: int,
                    alpha: object = Fraction(1, 100)) -> WallClockResult:
    """Run ``sampler(a)`` and ``sampler(b)`` ``draws`` times each, alternating, and test
    whether their wall-clock times have different laws (see the module docstring)."""
    if isinstance(draws, bool) or not isinstance(draws, int) or not 2 <= draws <= 10**7:
        raise ParameterError(f"draws = {draws!r} must be an int in [2, 10^7]")
    al = to_fraction(alpha, "alpha")
    if not 0 < al < 1:
        raise ParameterError(f"alpha = {alpha!r} must lie in (0, 1)")
    times: tuple[list[int], list[int]] = ([], [])
    clock = time.perf_counter_ns
    for _ in range(draws):
        for k, c in enumerate((a, b)):
            start = clock()
            sampler(c)
            times[k].append(clock() - start)
    d = _ks(*times)
    threshold = 2 * _ln_upper(4 / al) / draws
    mid = draws // 2
    return WallClockResult(a, b, draws, al, d, threshold, d * d > threshold,
                           (sorted(times[0])[mid], sorted(times[1])[mid]))
