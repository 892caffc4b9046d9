"""Certified binomial tails, exact tests and Clopper--Pearson bounds (no floats).

The black-box audit (:mod:`exactdp.audit`) turns samples into statements whose error
probability is stated and honoured.  Everything here is about ``X ~ Bin(K, p)`` with a
rational ``p`` and is computed with integers only:

* :func:`upper_tail` / :func:`lower_tail` -- rational intervals containing
  ``Pr[X >= x]`` / ``Pr[X <= x]``.  The first term ``C(K, x) p^x (1-p)^(K-x)`` is bounded
  with outward-rounded dyadic arithmetic (:mod:`exactdp.dyadic`, ``PREC`` significant
  bits), the next terms by the exact ratio ``t_{i+1}/t_i = (K-i) p / ((i+1)(1-p))``, and the terms not summed by
  the geometric series of the last ratio (the ratios shrink away from the mode).
* :func:`critical_counts` -- for a reference ``p`` (or an interval of them) and a level
  ``a``: the smallest ``k_hi`` with ``Pr[X >= k_hi] <= a`` and the largest ``k_lo`` with
  ``Pr[X <= k_lo] <= a``, certified.  Rejecting when ``x >= k_hi`` or ``x <= k_lo`` is an
  exact binomial test whose false-alarm probability is at most ``2a`` *for every* ``p``
  in the interval -- not an asymptotic approximation (a chi-square statistic would be).
* :func:`clopper_pearson_lower` / :func:`clopper_pearson_upper` -- rational bounds ``L``
  with ``Pr_p[L <= p] >= 1 - a`` (resp. upper), obtained by bisection on dyadic ``p``
  with certified tails; rounding only ever makes them more conservative.

Every undecided comparison (an interval straddling the level) is resolved in the
conservative direction, so rounding can cost power but never validity.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import gmpy2

from exactdp.certified import Interval
from exactdp.dyadic import Dyadic, dadd, dfrom_fraction, dmul, dnorm, dpow, dscale, dto_fraction
from exactdp.params import ParameterError, to_fraction

__all__ = [
    "PREC",
    "CriticalCounts",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "critical_counts",
    "lower_tail",
    "upper_tail",
]

#: Significant bits kept by the outward-rounded dyadic arithmetic.
PREC = 96

def _check(K: int, p: Fraction) -> None:
    if isinstance(K, bool) or not isinstance(K, int) or K < 0:
        raise ParameterError(f"K = {K!r} must be a non-negative int")
    if not 0 <= p <= 1:
        raise ParameterError(f"p = {p} must lie in [0, 1]")


def _comb(K: int, i: int) -> tuple[Dyadic, Dyadic]:
    """Dyadic bounds on ``C(K, i)`` (GMP's exact binomial, then rounded outwards)."""
    c = int(gmpy2.comb(K, i))
    return dnorm(c, 0, False, PREC), dnorm(c, 0, True, PREC)


def _terms(K: int, i: int, p: Fraction) -> tuple[Dyadic, Dyadic]:
    """Dyadic lower and upper bounds on ``C(K, i) p^i (1-p)^(K-i)`` (``0 < p < 1``)."""
    c_lo, c_hi = _comb(K, i)
    out = []
    for c, up in ((c_lo, False), (c_hi, True)):
        powers = dmul(dpow(dfrom_fraction(p, up, PREC), i, up, PREC),
                      dpow(dfrom_fraction(1 - p, up, PREC), K - i, up, PREC), up, PREC)
        out.append(dmul(c, powers, up, PREC))
    return out[0], out[1]


def _tail_from(K: int, p: Fraction, x: int) -> Interval:
    """``Pr[X >= x]`` for ``1 <= x <= K`` and ``0 < p < 1``, summed upwards from ``x``.

    The ratios ``r_i = t_{i+1}/t_i = (K-i) p / ((i+1)(1-p))`` decrease in ``i``; once
    ``r_i < 1`` the terms not yet summed total at most ``t_i r_i / (1 - r_i)``.  Summing
    stops when that bound is below ``2**-(PREC/2)`` of the partial sum.
    """
    a, b = p.numerator, p.denominator
    lo_t, hi_t = _terms(K, x, p)
    lo_s, hi_s = lo_t, hi_t
    i = x
    while i < K:
        num, den = (K - i) * a, (i + 1) * (b - a)
        if num < den:
            rem = dscale(hi_t, num, den - num, True, PREC)
            if rem[0] == 0 or _small(rem, hi_s):
                return Interval(dto_fraction(lo_s), dto_fraction(dadd(hi_s, rem, True, PREC)))
        lo_t, hi_t = dscale(lo_t, num, den, False, PREC), dscale(hi_t, num, den, True, PREC)
        lo_s, hi_s = dadd(lo_s, lo_t, False, PREC), dadd(hi_s, hi_t, True, PREC)
        i += 1
    return Interval(dto_fraction(lo_s), dto_fraction(hi_s))


def _small(rem: Dyadic, total: Dyadic) -> bool:
    """``rem <= total * 2**-(PREC // 2)`` (bit lengths; enough for a stopping rule)."""
    return rem[0].bit_length() + rem[1] < total[0].bit_length() + total[1] - PREC // 2


def upper_tail(K: int, p: object, x: int) -> Interval:
    """An interval containing ``Pr[X >= x]`` for ``X ~ Bin(K, p)``, ``p`` rational."""
    q = to_fraction(p, "p")
    _check(K, q)
    if x <= 0:
        return Interval(Fraction(1), Fraction(1))
    if x > K:
        return Interval(Fraction(0), Fraction(0))
    if q == 0 or q == 1:
        v = Fraction(0 if q == 0 else 1)
        return Interval(v, v)
    mode = (K + 1) * q.numerator // q.denominator
    if x > mode:
        return _tail_from(K, q, x)
    # Below the mode the complement is the short sum:
    # Pr[X >= x] = 1 - Pr[X <= x-1] = 1 - Pr[K - X >= K - x + 1], K - X ~ Bin(K, 1-q).
    comp = _tail_from(K, 1 - q, K - x + 1)
    return Interval(1 - comp.hi, 1 - comp.lo)


def lower_tail(K: int, p: object, x: int) -> Interval:
    """An interval containing ``Pr[X <= x]`` for ``X ~ Bin(K, p)``."""
    q = to_fraction(p, "p")
    _check(K, q)
    return upper_tail(K, 1 - q, K - x)


@dataclass(frozen=True)
class CriticalCounts:
    """Rejection region of the exact two-sided binomial test at one-sided level ``level``.

    Reject when ``x <= k_lo`` or ``x >= k_hi``.  For every ``p`` in ``[p_lo, p_hi]``:
    ``Pr_p[X >= k_hi] <= level`` and ``Pr_p[X <= k_lo] <= level`` (certified), so the
    false-alarm probability is at most ``2 * level``.  ``k_lo = -1`` / ``k_hi = K + 1``
    mean that side never rejects.

    Power, exactly: every median of ``Bin(K, p')`` lies in ``[floor(Kp'), ceil(Kp')]``
    (Kaas and Buhrman 1980), so if the true probability is ``p' >= k_hi / K`` the test
    rejects with probability ``>= 1/2``, and likewise if ``p' <= k_lo / K``.
    """

    K: int
    level: Fraction
    p_lo: Fraction
    p_hi: Fraction
    k_lo: int
    k_hi: int

    def rejects(self, x: int) -> bool:
        return x <= self.k_lo or x >= self.k_hi

    @property
    def detect_below(self) -> Fraction | None:
        """True probabilities ``<= this`` are detected with probability ``>= 1/2``."""
        return Fraction(self.k_lo, self.K) if self.k_lo >= 0 else None

    @property
    def detect_above(self) -> Fraction | None:
        """True probabilities ``>= this`` are detected with probability ``>= 1/2``."""
        return Fraction(self.k_hi, self.K) if self.k_hi <= self.K else None


def _first_upper_reject(K: int, p: Fraction, level: Fraction) -> int:
    """Smallest ``k`` with certified ``Pr_p[X >= k] <= level`` (``K + 1`` if none)."""
    if p == 0:
        return 1 if K >= 1 else K + 1
    if p == 1:
        return K + 1
    # Pr[X >= floor(Kp)] >= 1/2 > level (the median is >= floor(Kp)), so the answer lies in
    # (floor(Kp), K + 1]; the tail is non-increasing in k: bisect on the certified tail.
    lo, hi = K * p.numerator // p.denominator, K + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if upper_tail(K, p, mid).hi <= level:
            hi = mid
        else:
            lo = mid
    return hi


def critical_counts(K: int, p: object, level: object) -> CriticalCounts:
    """The certified rejection region for ``X ~ Bin(K, p)`` at one-sided level ``level``.

    ``p`` is a rational or an :class:`~exactdp.certified.Interval` of rationals (a
    reference probability known only to lie in an interval, e.g. involving ``e**-1``):
    the upper side is computed at ``p.hi``, the lower side at ``p.lo``, so the level
    holds for every ``p`` in the interval.
    """
    lev = to_fraction(level, "level")
    if not 0 < lev < Fraction(1, 2):
        raise ParameterError(f"level = {lev} must lie in (0, 1/2)")
    if isinstance(p, Interval):
        p_lo, p_hi = p.lo, p.hi
    else:
        p_lo = p_hi = to_fraction(p, "p")
    _check(K, p_lo)
    _check(K, p_hi)
    k_hi = _first_upper_reject(K, p_hi, lev)
    k_lo = K - _first_upper_reject(K, 1 - p_lo, lev)
    return CriticalCounts(K, lev, p_lo, p_hi, k_lo, k_hi)


def clopper_pearson_lower(x: int, K: int, level: object, bits: int = 40) -> Fraction:
    """A rational ``L`` with ``Pr_p[L(X) <= p] >= 1 - level`` for every ``p``.

    ``L`` is the largest dyadic ``j / 2**bits`` found by bisection with certified
    ``Pr_L[X >= x] <= level`` -- at most the exact Clopper--Pearson bound, so at least as
    conservative.  ``x = 0`` gives 0.
    """
    lev = to_fraction(level, "level")
    if not 0 < lev < 1:
        raise ParameterError(f"level = {lev} must lie in (0, 1)")
    if not 0 <= x <= K:
        raise ParameterError(f"count x = {x} must lie in [0, K = {K}]")
    if x == 0:
        return Fraction(0)
    scale = 1 << bits
    lo, hi = 0, scale * x // K + 1  # p = lo/scale valid; p = hi/scale >= x/K not valid
    hi = min(hi, scale)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if upper_tail(K, Fraction(mid, scale), x).hi <= lev:
            lo = mid
        else:
            hi = mid
    return Fraction(lo, scale)


def clopper_pearson_upper(x: int, K: int, level: object, bits: int = 40) -> Fraction:
    """A rational ``U`` with ``Pr_p[U(X) >= p] >= 1 - level`` for every ``p`` (mirror of
    :func:`clopper_pearson_lower`); ``x = K`` gives 1."""
    return 1 - clopper_pearson_lower(K - x, K, level, bits)
