"""The ideal counting mechanism of Balcer & Vadhan, Algorithm 4.5: the two-sided geometric
clamped to ``[0, n]``, with its exact pmf and CDF (:class:`GeometricMechanism`), and the
parameters the samplers that realise it share: GeoSample's ``k`` for a paper's ``eps``
(:func:`geosample_k`) and the accuracy parameter ``beta`` (:func:`check_beta`).

No sampling happens here: :class:`~exactdp.geosample.GeoSample` equals this mechanism in
distribution, and :class:`~exactdp.fastsample.FastSample` is close to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exactdp.certified import ceil_log2
from exactdp.inverse_cdf import check_outcome
from exactdp.params import (
    ParameterError,
    check_count,
    inverse_integer,
    positive_int,
    to_fraction,
)

__all__ = ["GeometricMechanism", "check_beta", "geosample_k"]


def geosample_k(epsilon: Fraction) -> int:
    """``k = ceil(log2(2/eps))`` for ``eps = 1/m``: ``(2m - 1).bit_length()``, exactly."""
    return ceil_log2(2 * epsilon.denominator)


def check_beta(beta: object) -> Fraction:
    """The accuracy parameter ``beta`` as an exact rational in ``(0, 1]``."""
    b = to_fraction(beta, "beta")
    if not 0 < b <= 1:
        raise ParameterError(f"beta = {b} must lie in (0, 1]")
    return b


@dataclass(frozen=True)
class GeometricMechanism:
    """The ideal mechanism of Algorithm 4.5: ``c + Geo(s)`` clamped to ``[0, n]``.

    Parameterised exactly by ``alpha = e**(-1/s)`` in ``(0, 1)``; the two-sided geometric
    has ``Pr[Z = z] = (1 - alpha)/(1 + alpha) * alpha**|z - c|``.  Clamping gives
    ``Pr[0] = alpha**c / (1 + alpha)`` and ``Pr[n] = alpha**(n - c) / (1 + alpha)``.
    For GeoSample's ``eps~`` (Theorem 4.7), ``alpha = e**(-eps~/2) = 2**k / (2**k + 1)``;
    :meth:`for_geosample` builds that one.  It is ``(ln(1/alpha), 0)``-DP for counting
    queries (Theorem 4.6 i, with ``eps/2 = 1/s``).
    """

    n: int
    alpha: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", positive_int(self.n, "n"))
        alpha = to_fraction(self.alpha, "alpha")
        if not 0 < alpha < 1:
            raise ParameterError(f"alpha = {alpha} must lie in (0, 1)")
        object.__setattr__(self, "alpha", alpha)

    @classmethod
    def for_geosample(cls, n: int, epsilon: object) -> GeometricMechanism:
        """The mechanism GeoSample_{n,eps} equals in distribution (Theorem 4.7 i)."""
        k = geosample_k(inverse_integer(epsilon, "epsilon"))
        return cls(positive_int(n, "n"), Fraction(1 << k, (1 << k) + 1))

    def pmf(self, c: int, z: int) -> Fraction:
        """``Pr[M(c) = z]`` exactly (0 outside ``[n]``)."""
        c = check_count(c, self.n)
        check_outcome(z)
        a = self.alpha
        if z < 0 or z > self.n:
            return Fraction(0)
        if z == 0:
            return a**c / (1 + a)
        if z == self.n:
            return a ** (self.n - c) / (1 + a)
        return (1 - a) / (1 + a) * a ** abs(z - c)

    def cdf(self, c: int, z: int) -> Fraction:
        """``Pr[M(c) <= z]`` exactly (the clamped form of the CDF in Section 4.1):
        ``alpha**j / (1 + alpha)`` with ``j = c - z`` below ``c``, one minus that with
        ``j = z - c + 1`` from ``c`` on; with ``alpha = p/q`` that is ``p**j q / (q**j (q + p))``,
        built as one exact Fraction from integer powers."""
        c = check_count(c, self.n)
        check_outcome(z)
        if z < 0:
            return Fraction(0)
        if z >= self.n:
            return Fraction(1)
        p, q = self.alpha.numerator, self.alpha.denominator
        j = c - z if z < c else z - c + 1
        num, den = p**j * q, q**j * (q + p)
        return Fraction(num, den) if z < c else Fraction(den - num, den)

    def distribution(self, c: int) -> tuple[Fraction, ...]:
        """``(Pr[M(c) = 0], ..., Pr[M(c) = n])``: :meth:`pmf`'s values, from integer powers
        of ``alpha = p/q`` built by running products (one exact ``Fraction(num, den)`` per
        outcome instead of Fraction powers and quotients): ``(q - p) p**j / ((q + p) q**j)``
        at distance ``j = |z - c|`` inside, ``p**j q / ((q + p) q**j)`` at the clamped ends.
        Equal to ``pmf`` at every ``(c, z)`` (tests/test_counting.py)."""
        c = check_count(c, self.n)
        n, p, q = self.n, self.alpha.numerator, self.alpha.denominator
        top = max(c, n - c)
        pp, qq = [1] * (top + 1), [1] * (top + 1)  # p**j, q**j
        for j in range(1, top + 1):
            pp[j], qq[j] = pp[j - 1] * p, qq[j - 1] * q
        inner, ends = q - p, q + p
        out = [Fraction(inner * pp[abs(z - c)], ends * qq[abs(z - c)]) for z in range(n + 1)]
        out[0] = Fraction(pp[c] * q, ends * qq[c])
        out[n] = Fraction(pp[n - c] * q, ends * qq[n - c])
        return tuple(out)
