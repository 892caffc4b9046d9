"""Deliberately broken ports of the paper's mechanisms (test fixtures, never library code).

Each is the kind of mistake a hand port of Balcer & Vadhan's samplers makes, and
``tests/test_audit_planted.py`` shows the white-box audit catching it with the exact privacy
loss it really has.  Floats are used here on purpose: they *are* the bugs.

1. :class:`FloatLogGeoSample` -- Algorithm 4.8 with ``k = ceil(log2(2/eps))`` computed in
   floating point.  For ``eps = 1/m`` with ``m = 2**49 + 1``, ``2/eps = 2**50 + 2`` and the
   float ``log2`` rounds to exactly 50.0, so ``k = 50`` instead of 51: the worst ratio is
   ``1 + 2**-50``, which exceeds the claimed ``e**(eps/2)`` (by about ``2**-99``).
2. :class:`FloatCDFGeoSample` -- Algorithm 4.8 with the CDF evaluated in floats:
   ``1 - alpha**(z-c+1)/(1+alpha)`` rounds to 1.0 once the tail drops below ``2**-54``,
   so outcomes far above ``c`` become impossible on ``c`` but not on ``c + 1``: infinite
   privacy loss (on outcomes of probability about ``2**-55``).
3. :func:`unnormalised_truncated_geometric` -- a truncated (not clamped) geometric on
   ``[0, n]`` whose integer CDF uses the normaliser of ``c = 0`` for every ``c``: the
   mass beyond ``d`` is silently dropped, so the top outcome is possible on ``c = 0`` and
   impossible on ``c = 1`` (infinite loss; detectable even black-box).
4. :class:`LinearScanGeoSample` -- Algorithm 4.8 with the binary search replaced by a scan
   that stops at the first ``z`` with ``F(z) >= u``: the output distribution is exactly
   right, but the number of CDF evaluations depends on the private count (caught by the
   operation-trace comparison).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from exactdp.counting import GeoSample

#: The smallest ``m = 2**j + 1`` for which the float ``k`` is wrong (searched in the tests).
FLOAT_LOG_M = (1 << 49) + 1


def float_k(epsilon_float: float) -> int:
    """The buggy ``k = ceil(log2(2/eps))`` in floating point."""
    return math.ceil(math.log2(2 / epsilon_float))


class FloatLogGeoSample(GeoSample):
    """GeoSample whose ``k`` comes from :func:`float_k` (bug 1)."""

    def __init__(self, n: int, m: int) -> None:
        super().__init__(n, Fraction(1, m))
        self.k = float_k(1 / m)
        self._base = (1 << self.k) + 1

    def __repr__(self) -> str:
        return f"FloatLogGeoSample(n={self.n}, epsilon=1/{self.epsilon.denominator})"


class FloatCDFGeoSample(GeoSample):
    """GeoSample whose ``F(z)`` is ``int(P(z) * d)`` with ``P`` computed in floats (bug 2)."""

    def __repr__(self) -> str:
        return f"FloatCDFGeoSample(n={self.n}, epsilon={self.epsilon})"

    def cdf(self, c: int, z: int) -> int:
        if z < 0:
            return 0
        if z >= self.n:
            return self.d
        a = 2.0**self.k / (2.0**self.k + 1.0)
        if z < c:
            p = a ** (c - z) / (1.0 + a)
        else:
            p = 1.0 - a ** (z - c + 1) / (1.0 + a)
        return min(int(p * self.d), self.d)


def unnormalised_truncated_geometric(n: int) -> Any:
    """Bug 3: ``f(c, u)`` for the truncated geometric ``Pr[z] ∝ (2/3)**|z - c|`` on
    ``[0, n]``, scaled by ``3**n`` to integer weights ``w(j) = 2**j 3**(n-j)``, with the
    normaliser ``d = sum_j w(j)`` of ``c = 0`` used for every ``c``."""
    def w(j: int) -> int:
        return (1 << j) * 3 ** (n - j)

    d = sum(w(j) for j in range(n + 1))

    def f(c: int, u: int) -> int:
        acc = 0
        for z in range(n + 1):
            acc += w(abs(z - c))
            if acc >= u:
                return z
        return n

    f.d = d  # type: ignore[attr-defined]
    f.monotone = True  # type: ignore[attr-defined]
    f.outputs = range(n + 1)  # type: ignore[attr-defined]
    f.weights = [w(j) for j in range(n + 1)]  # type: ignore[attr-defined]
    return f


class LinearScanGeoSample(GeoSample):
    """GeoSample with an early-exit linear scan instead of the fixed-round search (bug 4)."""

    def __repr__(self) -> str:
        return f"LinearScanGeoSample(n={self.n}, epsilon={self.epsilon})"

    def __call__(self, c: int, u: int) -> int:
        for z in range(self.n + 1):
            if self.cdf(c, z) >= u:
                return z
        return self.n
