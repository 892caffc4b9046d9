"""The discrete Gaussian at any practical scale: an exactly known law, sampled in strict time.

The ideal discrete Gaussian ``N_Z(0, sigma^2)`` of Canonne, Kamath & Steinke (*The Discrete
Gaussian for Differential Privacy*, NeurIPS 2020) has ``Pr[X = x]`` proportional to
``exp(-x^2 / (2 sigma^2))`` on all integers.  Its probabilities are irrational, and CKS sample
it exactly by rejection, with a running time that depends on the coins and has no bound.

:class:`DiscreteGaussian` releases instead the law of integer weights

    ``w(x) = floor(2^b exp(-x^2 / (2 sigma^2)))``   for every integer ``x``,

``Pr[Z = x] = w(x) / W`` with ``W = sum_x w(x)``.  The weights vanish for ``|x| > T``, the
*tail* ``T`` being the largest ``x`` with ``2^b exp(-x^2 / (2 sigma^2)) >= 1`` (about
``sigma sqrt(2 b ln 2)``: ``13.3 sigma`` at the default ``b = 128``), so the law is finite and
exactly rational; it is the mechanism's noise, and every privacy figure exactdp prints for it
is computed from these integers (truncation and rounding included), never from the ideal law.

* **Certified rounding.**  The weights come from fixed-point interval arithmetic at
  ``b + g`` bits (``g`` guard bits): lower and upper integer bounds of
  ``2^(b+g) exp(-x^2/(2 sigma^2))`` by the recurrence ``e(x+1) = e(x) r(x)``,
  ``r(x+1) = r(x) q`` (``r(0) = exp(-1/(2 sigma^2))``, ``q = exp(-1/sigma^2)``, both from
  :func:`exactdp.certified.exp_interval`), each product rounded down for the lower and up
  for the upper bound.  When the two bounds have the same floor at ``b`` bits, that floor is
  ``w(x)``; otherwise (the value lies within about ``2^-32`` of an integer) ``w(x)`` is
  decided by :func:`exactdp.certified.exp_interval` alone, refined until it is (never a tie:
  ``2^b exp(-x^2/(2 sigma^2))`` is irrational for ``x != 0``, Lindemann).
  :func:`weight_direct` computes one weight by the direct route only: the proofs compare the
  two.
* **Sampling.**  One ``u = uniform(W)`` and the shared inverse-CDF search
  (:func:`exactdp.inverse_cdf.inverse_cdf_search`) over the ``2T + 1`` outputs: exactly
  ``ceil(log2(2T + 2))`` rounds of one table look-up each, whatever the centre, ``u`` and the
  output (strict time; the operation trace is the same for every centre and output).  The
  exploring source branches once per output with its exact weight ``w(x)/W``.
* **Table and memory.**  The cumulative table ``F(z) = sum_{x <= z - T} w(x)`` is built on
  the first draw (or :meth:`DiscreteGaussian.weight` etc.) and kept: ``2T + 1`` Python ints
  of about ``b + log2(T) + 3`` bits, about ``(2T + 1) * 52`` bytes at ``b = 128`` -- 1.4 MB at
  ``sigma^2 = 10^6``, 14 MB at ``sigma^2 = 10^8``, 44 MB at ``sigma^2 = 10^9``; building it
  takes one pass of ``T`` steps (about 0.2 s of CPU at ``sigma^2 = 10^8``).  ``T`` is limited
  to :data:`MAX_TAIL`.
* **Privacy** of ``c + Z`` against ``c' = c + Delta``: finite support, so ``(eps, delta)``
  only (the outputs ``c - T .. c' - T - 1`` are impossible under ``c'``).  The sampled law's
  exact figures come from ``exactdp.accounting`` on :meth:`DiscreteGaussian.law`; the
  ideal law's ``delta`` (CKS Theorem 7) as a certified interval from
  :func:`ideal_delta`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from math import floor, isqrt

from exactdp.bisection import boundary
from exactdp.certified import Interval, exp_interval, precision_schedule
from exactdp.inverse_cdf import inverse_cdf_search
from exactdp.params import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    open_unit,
    positive_fraction,
    to_fraction,
)
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "DEFAULT_BITS",
    "MAX_BITS",
    "MAX_TAIL",
    "DiscreteGaussian",
    "calibrate_sigma2",
    "ideal_delta",
    "tail_bound",
    "weight_direct",
]

#: The default precision ``b`` of the weights ``floor(2^b exp(-x^2/(2 sigma^2)))``.
DEFAULT_BITS = 128
#: Largest ``b`` accepted.
MAX_BITS = 4096
#: Largest tail ``T`` (the table has ``2T + 1`` entries): ``sigma^2`` up to about
#: ``6 * 10^9`` at ``b = 128``.
MAX_TAIL = 1 << 20
#: Guard bits of the recurrence beyond the error bound (undecided weights: about ``2^-32``).
_GUARD = 32


def _sigma2(value: object) -> Fraction:
    s2 = to_fraction(value, "sigma2")
    if s2 <= 0:
        raise ParameterError(f"sigma2 = {s2} must be positive (the variance parameter sigma^2)")
    return s2


def _bits(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"bits = {value!r:.60} must be an int in [1, {MAX_BITS}]")
    if not 1 <= value <= MAX_BITS:
        raise ParameterError(f"bits = {value} must lie in [1, {MAX_BITS}]")
    return value


def tail_bound(sigma2: object, bits: object = DEFAULT_BITS) -> int:
    """An upper bound of the tail ``T`` known before the table is built:
    ``x^2 < 2 sigma^2 b ln 2 < 2 sigma^2 b 7/10`` for every ``x`` of positive weight."""
    s2, b = _sigma2(sigma2), _bits(bits)
    bound = 2 * s2 * b * Fraction(7, 10)
    return isqrt(bound.numerator // bound.denominator) + 1


def _floor_scaled(x: int, s2: Fraction, b: int) -> int:
    """``floor(2^b exp(-x^2/(2 s2)))`` by :func:`exactdp.certified.exp_interval` alone, refined until decided."""
    if x == 0:
        return 1 << b
    arg = -Fraction(x * x) / (2 * s2)
    for bits in precision_schedule(b + 64):
        box = exp_interval(arg, bits)
        lo = (box.lo.numerator << b) // box.lo.denominator
        hi = (box.hi.numerator << b) // box.hi.denominator
        if lo == hi:
            return lo
    raise ResourceLimitError(f"could not decide the weight at x = {x}")  # pragma: no cover


def weight_direct(x: int, sigma2: object, bits: object = DEFAULT_BITS) -> int:
    """``w(x) = floor(2^b exp(-x^2 / (2 sigma^2)))`` by :func:`exactdp.certified.exp_interval`
    directly (one certified exponential per call; the table uses a faster recurrence)."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise ParameterTypeError(f"x = {x!r:.60} must be an int")
    return _floor_scaled(x, _sigma2(sigma2), _bits(bits))


def _fixed(box: Interval, p: int) -> tuple[int, int]:
    """``(floor(2^p lo), ceil(2^p hi))`` of an interval."""
    lo, hi = box.lo, box.hi
    return (lo.numerator << p) // lo.denominator, -((-hi.numerator << p) // hi.denominator)


def _half_weights(s2: Fraction, b: int) -> list[int]:
    """``[w(0), w(1), ..., w(T)]`` (``w(T + 1) = 0``): the recurrence of the module doc in
    fixed point at ``p = b + g`` bits, each weight decided directly where the two bounds
    disagree.

    The bounds are bounds whatever ``g`` is (every product of non-negative bounds is rounded
    outward); ``g`` decides only how often they disagree.  Each step widens ``r``'s bounds by
    about one unit of ``2^-p`` plus ``x`` times ``q``'s width, and ``e``'s by one unit plus
    ``e(x)`` times ``r``'s width, so ``e``'s width stays below about ``4 (x + 1) + 4 sigma^2``
    units (``sum_x x e(x) <= sigma^2``); ``g`` is the bit length of that at the tail bound
    plus :data:`_GUARD` (tests/test_discrete_gaussian.py counts the direct decisions)."""
    top = tail_bound(s2, b)
    width = 4 * (top + 1) + 4 * (s2.numerator // s2.denominator + 1) + 8
    g = width.bit_length() + _GUARD
    p = b + g
    q_lo, q_hi = _fixed(exp_interval(-1 / s2, p + 8), p)
    r_lo, r_hi = _fixed(exp_interval(-1 / (2 * s2), p + 8), p)
    one = 1 << p
    e_lo = e_hi = one
    out = [1 << b]
    x = 0
    while True:
        # e(x + 1) = e(x) r(x); then r(x + 1) = r(x) q
        e_lo = (e_lo * r_lo) >> p
        e_hi = -((-e_hi * r_hi) >> p)
        r_lo = (r_lo * q_lo) >> p
        r_hi = -((-r_hi * q_hi) >> p)
        x += 1
        lo, hi = e_lo >> g, e_hi >> g
        w = lo if lo == hi else _floor_scaled(x, s2, b)
        if w == 0:
            return out
        if x > top:  # pragma: no cover - tail_bound is a proven bound
            raise AssertionError("the weights outlived the tail bound")
        out.append(w)


class DiscreteGaussian:
    """Noise ``Z`` with ``Pr[Z = x] = floor(2^b exp(-x^2/(2 sigma^2))) / W`` (see the module
    doc): the discrete Gaussian of Canonne, Kamath & Steinke with its weights rounded down at
    ``b`` bits, and so truncated to ``[-T, T]``.

    ``sigma2`` is ``sigma^2``, any positive rational (an int, a Fraction or a string such as
    ``"10/3"``; floats are refused); ``bits`` is ``b`` (default 128).  Strict time: every draw
    is one ``uniform(W)`` and ``ceil(log2(2T + 2))`` search rounds.

    >>> g = DiscreteGaussian(1, bits=8)
    >>> g.tail, [g.weight(x) for x in range(-2, 3)]
    (3, [34, 155, 256, 155, 34])
    """

    def __init__(self, sigma2: object, bits: object = DEFAULT_BITS) -> None:
        self.sigma2 = _sigma2(sigma2)
        self.bits = _bits(bits)
        top = tail_bound(self.sigma2, self.bits)
        if top > MAX_TAIL:  # refused before any work
            raise ResourceLimitError(
                f"sigma2 = {self.sigma2} with bits = {self.bits} needs a tail of up to {top} "
                f"values per side (> MAX_TAIL = {MAX_TAIL}); lower sigma2 or bits")

    def __repr__(self) -> str:
        return f"DiscreteGaussian(sigma2={self.sigma2}, bits={self.bits})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DiscreteGaussian) and self.sigma2 == other.sigma2
                and self.bits == other.bits)

    def __hash__(self) -> int:
        return hash((DiscreteGaussian, self.sigma2, self.bits))

    @property
    def explore_key(self) -> tuple[Fraction, int]:
        """What the exploring source memoises this draw's options under."""
        return (self.sigma2, self.bits)

    @cached_property
    def half_weights(self) -> tuple[int, ...]:
        """``(w(0), ..., w(T))``."""
        return tuple(_half_weights(self.sigma2, self.bits))

    @cached_property
    def _table(self) -> list[int]:
        half = self.half_weights
        acc, cum = 0, []
        for w in (*half[:0:-1], *half):
            acc += w
            cum.append(acc)
        return cum

    @property
    def tail(self) -> int:
        """``T``: the largest ``|x|`` of positive weight."""
        return len(self.half_weights) - 1

    # -- the InverseCDFDraw protocol (outputs z = x + T in [0, 2T]) --------------------------

    @property
    def n(self) -> int:
        return 2 * self.tail

    @property
    def d(self) -> int:
        """``W``, the total weight: the domain of the one uniform draw."""
        return self._table[-1]

    def cdf(self, z: int) -> int:
        """``F(z) = sum of w(x) over x <= z - T`` (0 below 0, ``W`` from ``2T``)."""
        if z < 0:
            return 0
        table = self._table
        return table[min(z, len(table) - 1)]

    lazy_low_bits = False

    def search(self, u: int) -> int:
        """``min{z : F(z) >= u}`` for ``u`` in ``[W]_+``: exactly ``ceil(log2(2T + 2))``
        rounds of one table look-up (:func:`~exactdp.inverse_cdf.inverse_cdf_search`)."""
        table = self._table
        return inverse_cdf_search(table.__getitem__, len(table) - 1, u)

    # -- the law -----------------------------------------------------------------------------

    def weight(self, x: int) -> int:
        """``w(x)``, the integer weight of the value ``x``."""
        if isinstance(x, bool) or not isinstance(x, int):
            raise ParameterTypeError(f"x = {x!r:.60} must be an int")
        half = self.half_weights
        return half[abs(x)] if abs(x) < len(half) else 0

    def pmf(self, x: int) -> Fraction:
        """``Pr[Z = x] = w(x) / W``."""
        return Fraction(self.weight(x), self.d)

    def law(self) -> dict[int, Fraction]:
        """``{x: Pr[Z = x]}`` over ``[-T, T]`` (every weight there is positive)."""
        total, t = self.d, self.tail
        return {x: Fraction(self.weight(x), total) for x in range(-t, t + 1)}

    # -- sampling ----------------------------------------------------------------------------

    def sample(self, source: RandomSource | None = None) -> int:
        """One draw of ``Z``: one ``uniform(W)`` and the fixed-round search."""
        return default_source(source).inverse_cdf(self) - self.tail

    def add(self, c: int, source: RandomSource | None = None) -> int:
        """``c + Z`` for an integer centre ``c`` (the draw does not look at ``c``)."""
        if isinstance(c, bool) or not isinstance(c, int):
            raise ParameterTypeError(f"c = {c!r:.60} must be an int")
        return c + self.sample(source)


def _tail_sum(half: tuple[int, ...], m: int, beyond: Fraction) -> tuple[Fraction, Fraction]:
    """Bounds of ``sum_{x >= m} 2^b e(x)``: the weights over ``[max(m, -T), T]``, and that
    plus one per term plus ``beyond`` for ``x > T`` (twice when ``m < -T``: the terms below
    ``-T`` are at most those above ``T``)."""
    t = len(half) - 1
    xs = range(max(m, -t), t + 1)
    total = sum(half[abs(x)] for x in xs)
    return Fraction(total), total + len(xs) + beyond * (2 if m < -t else 1)


def ideal_delta(sigma2: object, epsilon: object, shift: object = 1,
                bits: object = DEFAULT_BITS) -> Interval:
    """A certified interval containing the ideal discrete Gaussian's ``delta(eps)`` at
    sensitivity ``shift`` (Canonne, Kamath & Steinke, Theorem 7):

    ``delta = Pr[X > eps sigma^2/Delta - Delta/2] - e^eps Pr[X > eps sigma^2/Delta + Delta/2]``,
    ``X ~ N_Z(0, sigma^2)``.

    Each sum of ``e(x) = exp(-x^2/(2 sigma^2))`` is bracketed by the weights of
    :class:`DiscreteGaussian` (``w(x) <= 2^b e(x) < w(x) + 1`` for ``|x| <= T``) and a tail
    bound beyond ``T``: ``sum_{x > T} 2^b e(x) < 1/(1 - rho) <= (1 + y)/y`` with ``rho =
    e^-y``, ``y = (T + 1)/sigma^2`` (``2^b e(T + 1) < 1`` and ``e(T+1+j) <= e(T+1) rho^j``).
    ``e^eps`` from :func:`exactdp.certified.exp_interval`.  The width shrinks with ``b``."""
    s2 = _sigma2(sigma2)
    eps = to_fraction(epsilon, "epsilon")
    if eps < 0:
        raise ParameterError(f"epsilon = {eps} must be >= 0")
    delta_shift = to_fraction(shift, "shift")
    if delta_shift.denominator != 1 or delta_shift < 1:
        raise ParameterError(f"shift = {delta_shift} must be a positive integer (the "
                             f"sensitivity Delta)")
    dg = DiscreteGaussian(s2, bits)
    half, t = dg.half_weights, dg.tail
    y = Fraction(t + 1) / s2
    beyond = (1 + y) / y  # bound of sum_{x > T} 2^b e(x)
    a1 = eps * s2 / delta_shift - delta_shift / 2
    a2 = eps * s2 / delta_shift + delta_shift / 2
    # Pr[X > a] uses x >= floor(a) + 1
    p1, p2 = (_tail_sum(half, floor(a) + 1, beyond) for a in (a1, a2))
    norm = (Fraction(dg.d), dg.d + (2 * t + 1) + 2 * beyond)
    e = exp_interval(eps, 64 + dg.bits)
    lo_num = p1[0] - e.hi * p2[1]
    hi_num = p1[1] - e.lo * p2[0]
    lo = max(Fraction(0), lo_num / norm[1] if lo_num >= 0 else lo_num / norm[0])
    hi = hi_num / norm[0] if hi_num >= 0 else hi_num / norm[1]
    return Interval(lo, max(lo, hi))


def calibrate_sigma2(epsilon: object, delta: object, shift: object = 1,
                     step: object = Fraction(1, 64), bits: object = DEFAULT_BITS,
                     least: bool = False) -> Fraction:
    """A ``sigma^2 = m * step`` (``m`` a positive integer) whose ideal discrete Gaussian meets
    ``(eps, delta)`` at sensitivity ``shift``, certified: the upper end of
    :func:`ideal_delta` at it is at most ``delta``.

    ``delta(eps)`` of the ideal law is *not* monotone in ``sigma^2``: it falls overall but
    jumps up where ``eps sigma^2 / shift`` crosses a threshold of the integer grid (at
    ``eps = 10``: about ``2.5e-6`` at ``sigma^2 = 5/32``, ``2.0e-5`` at ``3/16``).  So the
    default search (doubling ``m``, then :func:`exactdp.bisection.boundary`) guarantees only
    this: the returned ``m`` is certified and ``m - 1`` is not; a smaller certified ``m`` may
    exist.  With ``least=True`` every ``m`` below that one is tried as well and the least
    certified ``m`` of the grid is returned (one :func:`ideal_delta` per grid point, about
    0.2 ms each at small ``sigma^2``: cheap for coarse targets, slow when ``m`` runs to the
    hundred thousands).  A ``ResourceLimitError`` past ``MAX_TAIL``.

    The law that :class:`DiscreteGaussian` samples at this ``sigma^2`` differs from the ideal
    one by the rounding of its weights and its truncation; its own ``delta`` is what a release
    must state (``exactdp.accounting`` computes it from :meth:`DiscreteGaussian.law`)."""
    eps = to_fraction(epsilon, "epsilon")
    target = open_unit(delta, "delta")
    unit = positive_fraction(step, "step")
    if not isinstance(least, bool):
        raise ParameterTypeError(f"least = {least!r:.40} must be True or False")

    def ok(m: int) -> bool:
        return ideal_delta(m * unit, eps, shift, bits).hi <= target

    hi = 1
    while not ok(hi):
        hi *= 2
        if tail_bound(hi * unit, bits) > MAX_TAIL:
            raise ResourceLimitError(f"no sigma2 within MAX_TAIL meets delta = {target} at "
                                     f"epsilon = {eps}, shift = {shift}")
    lo = hi // 2  # ok(lo) is False (or lo = 0)
    if lo:
        hi = boundary(ok, lo, hi)
    if least:
        hi = next(m for m in range(1, hi + 1) if ok(m))
    return hi * unit
