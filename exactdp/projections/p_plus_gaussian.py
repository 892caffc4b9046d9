"""Lemma 4.3's probability ``P+`` (eq. 26; eq. 32 for Gaussian ``W``) that one Gaussian
projection is fragile, as a certified rational interval, and Algorithm 6's ``N+`` at a norm
lower bound from it (Li & Li, paper 001, Section 4.2).

* :func:`p_plus_gaussian` -- Lemma 4.3 (eq. 26): ``P+(r, p) <= int_0^inf 2p [2 Phi(t) - 1]^(p-1)
  [2 Phi(r t) - 1] phi(t) dt``; the integrand is ``g dG`` with ``G(t) = [2 Phi(t) - 1]^p`` and
  ``g(t) = 2 Phi(r t) - 1`` both increasing, so the lower and upper Riemann-Stieltjes sums on
  a grid bracket the integral; each ``Phi`` value is a certified interval
  (:mod:`exactdp.normal_cdf`).  Eq. 32 is the same integral at ``r = beta / ||u||``.
* :func:`n_plus_gaussian` -- Algorithm 6 step 2 for Gaussian ``W``: Proposition 4.5's ``N+``
  (:func:`exactdp.projections.nplus.n_plus_bound`) at the norm lower bound ``m`` from the upper
  end of the certified ``P+(beta/m, p)`` (``N+`` increases with ``F``).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from exactdp.certified import Interval
from exactdp.normal_cdf import phi_interval
from exactdp.params import ParameterError, positive_int, to_fraction
from exactdp.projections.nplus import n_plus_bound

__all__ = ["n_plus_gaussian", "p_plus_gaussian"]


def _down(q: Fraction, bits: int) -> Fraction:
    return Fraction((q.numerator << bits) // q.denominator, 1 << bits)


def _up(q: Fraction, bits: int) -> Fraction:
    return -_down(-q, bits)


def _pow_out(box: Interval, p: int, bits: int) -> Interval:
    """``[lo^p, hi^p]`` for ``0 <= lo <= hi``, rounded outward to ``2^-bits`` at every
    product of the square-and-multiply chain (the numbers stay small)."""
    lo, hi, rlo, rhi = box.lo, box.hi, Fraction(1), Fraction(1)
    while p:
        if p & 1:
            rlo, rhi = _down(rlo * lo, bits), _up(rhi * hi, bits)
        lo, hi, p = _down(lo * lo, bits), _up(hi * hi, bits), p >> 1
    return Interval(rlo, rhi)


@cache
def _phi(t: Fraction, bits: int) -> Interval:
    box = phi_interval(Interval(t, t), bits)
    return Interval(_down(box.lo, bits), _up(box.hi, bits))


def p_plus_gaussian(r: object, p: int, step: object = Fraction(1, 16), top: int = 8,
                    bits: int = 64) -> Interval:
    """Lemma 4.3 (eq. 26; eq. 32 at ``r = beta/||u||``): a certified rational interval
    containing ``int_0^inf 2p [2 Phi(t) - 1]^(p-1) [2 Phi(r t) - 1] phi(t) dt``.

    With ``G(t) = [2 Phi(t) - 1]^p`` (so ``dG = 2p [2 Phi(t) - 1]^(p-1) phi(t) dt``) and
    ``g(t) = 2 Phi(r t) - 1``, both increasing, on the grid ``0 = t_0 < ... < t_n = top``
    (spacing ``step``) and ``t_(n+1) = inf`` (``g = G = 1``), by summation by parts:
    ``g(t_n) - sum_(i=1..n) G(t_i)(g(t_i) - g(t_(i-1)))`` is the lower sum and ``1 -
    sum_(i=1..n) G(t_i)(g(t_(i+1)) - g(t_i))`` the upper sum; each product is bounded with
    the certified ends of the ``Phi`` intervals."""
    rr = to_fraction(r, "r")
    if not 0 <= rr <= 1:
        raise ParameterError(f"r = {rr} must be in [0, 1] (Lemma 4.3 needs r <= 1)")
    p = positive_int(p, "p")
    h = to_fraction(step, "step")
    if h <= 0:
        raise ParameterError(f"step = {h} must be positive")
    top = positive_int(top, "top")
    n = int(top / h)
    ts = [i * h for i in range(n + 1)]

    def big_g(t: Fraction) -> Interval:
        box = _phi(t, bits)
        return _pow_out(Interval(max(2 * box.lo - 1, Fraction(0)), 2 * box.hi - 1), p, bits)

    def small_g(t: Fraction) -> Interval:
        box = _phi(rr * t, bits)
        return Interval(max(2 * box.lo - 1, Fraction(0)), 2 * box.hi - 1)

    gs = [small_g(t) for t in ts] + [Interval(Fraction(1), Fraction(1))]
    bigs = [big_g(t) for t in ts]
    lower = gs[n].lo - sum((bigs[i].hi * (gs[i].hi - gs[i - 1].lo) for i in range(1, n + 1)),
                           Fraction(0))
    upper = 1 - sum((bigs[i].lo * max(gs[i + 1].lo - gs[i].hi, Fraction(0))
                     for i in range(1, n + 1)), Fraction(0))
    return Interval(max(lower, Fraction(0)), min(upper, Fraction(1)))


def n_plus_gaussian(m: object, beta: object, p: int, k: int, delta: object,
                    step: object = Fraction(1, 16)) -> int:
    """Algorithm 6 step 2 for Gaussian ``W``: ``N+(m, delta, k, p)`` of Proposition 4.5 as an
    integer, ``min(floor(n_plus_bound(F, k, delta)), k)``, with ``F`` the upper end of the
    certified ``P+(beta/m, p)`` (eq. 32); needs ``beta <= m``."""
    mm, b = to_fraction(m, "m"), to_fraction(beta, "beta")
    if not 0 < b <= mm:
        raise ParameterError(f"beta = {b}, m = {mm}: Proposition 4.5 needs 0 < beta <= m")
    k = positive_int(k, "k")
    bound = n_plus_bound(p_plus_gaussian(b / mm, p, step).hi, k, delta)
    return min(bound.numerator // bound.denominator, k)
