"""Certified intervals for the standard normal cdf and for the continuous Gaussian
mechanism's exact delta (Balle & Wang's formula, Li & Li eq. 14), in rational arithmetic.

``Phi(x) = 1/2 + S(x)/sqrt(2 pi)`` with ``S(x) = sum_n (-1)^n x^(2n+1)/(2^n n! (2n+1))``:
the series is summed exactly until its terms decrease and fall below ``2^-bits``; from
there it alternates with decreasing terms, so the partial sum and the partial sum plus the
next term bracket ``S(x)``.  ``pi`` is bracketed by a 60-digit decimal expansion."""

from __future__ import annotations

from fractions import Fraction
from math import isqrt

from exactdp.certified import Interval, exp_interval

__all__ = ["PI", "gaussian_delta", "phi_interval", "sigma_star", "sqrt_interval"]

#: pi to 60 decimals, widened by one unit of the last place on each side.
_PI_60 = Fraction("3.141592653589793238462643383279502884197169399375105820974944")
PI = Interval(_PI_60 - Fraction(1, 10**60), _PI_60 + Fraction(1, 10**60))


def _down(q: Fraction, bits: int) -> Fraction:
    return Fraction((q.numerator << bits) // q.denominator, 1 << bits)


def _up(q: Fraction, bits: int) -> Fraction:
    return Fraction(-((-q.numerator << bits) // q.denominator), 1 << bits)


def sqrt_interval(q: Fraction, bits: int) -> Interval:
    """``sqrt(q)`` for a rational ``q >= 0``, to within ``2^-bits``."""
    s = isqrt((q.numerator << (2 * bits)) // q.denominator)
    lo = Fraction(s, 1 << bits)
    hi = Fraction(s + 1, 1 << bits)
    if not lo * lo <= q <= hi * hi:
        raise ArithmeticError(f"sqrt bracket of {q} failed")  # isqrt's contract broken
    return Interval(lo, hi)


def _series(x: Fraction, bits: int) -> Interval:
    """``S(x)``, bracketed."""
    eps = Fraction(1, 1 << bits)
    x2 = x * x
    term, total, n = x, Fraction(0), 0
    while True:
        nxt = -term * x2 * (2 * n + 1) / (2 * (n + 1) * (2 * n + 3))
        if n + 1 > x2 and abs(term) < eps:
            # from term n on, the terms alternate and decrease: total + term brackets S
            a, b = total, total + term
            return Interval(min(a, b), max(a, b))
        total += term
        term, n = nxt, n + 1


def phi_interval(x: Interval, bits: int = 160) -> Interval:
    """``[Phi(x.lo) lower, Phi(x.hi) upper]``: contains ``Phi(t)`` for every ``t`` in ``x``
    (``Phi`` increases)."""
    root = sqrt_interval(2 * PI.lo, bits + 8), sqrt_interval(2 * PI.hi, bits + 8)
    inv = Interval(1 / root[1].hi, 1 / root[0].lo)  # 1/sqrt(2 pi)
    lo_s = _series(_down(x.lo, bits), bits)
    hi_s = _series(_up(x.hi, bits), bits)
    lo = Fraction(1, 2) + min(lo_s.lo * inv.lo, lo_s.lo * inv.hi)
    hi = Fraction(1, 2) + max(hi_s.hi * inv.lo, hi_s.hi * inv.hi)
    return Interval(max(lo, Fraction(0)), min(hi, Fraction(1)))


def gaussian_delta(sigma: Interval, epsilon: Fraction, shift: Fraction = Fraction(1),
                   bits: int = 160) -> Interval:
    """The exact ``delta(eps)`` of ``f(u) + N(0, sigma^2)`` at l2 sensitivity ``shift``,
    ``Phi(D/(2 s) - eps s/D) - e^eps Phi(-D/(2 s) - eps s/D)``, bracketed for every ``s``
    in ``sigma`` (each term bounded separately)."""
    d, e = Fraction(shift), Fraction(epsilon)
    half = Interval(d / (2 * sigma.hi), d / (2 * sigma.lo))  # D/(2s)
    lin = Interval(e * sigma.lo / d, e * sigma.hi / d)  # eps s/D
    a = Interval(half.lo - lin.hi, half.hi - lin.lo)
    b = Interval(-half.hi - lin.hi, -half.lo - lin.lo)
    pa, pb = phi_interval(a, bits), phi_interval(b, bits)
    ee = exp_interval(e, bits)
    return Interval(pa.lo - ee.hi * pb.hi, pa.hi - ee.lo * pb.lo)


def sigma_star(epsilon: Fraction, delta: Fraction, shift: Fraction = Fraction(1),
               step_bits: int = 12, bits: int = 96) -> Interval:
    """Theorem 3.5's sigma* (the root of eq. 14) bracketed: ``[lo, hi]`` with ``hi - lo =
    2^-step_bits * shift``, the certified delta at ``hi`` at most ``delta`` and at ``lo``
    above it (``delta(sigma)`` decreases in ``sigma``, Balle & Wang 2018)."""
    e, d, s = Fraction(epsilon), Fraction(delta), Fraction(shift)

    def ok(sigma: Fraction) -> bool:
        return gaussian_delta(Interval(sigma, sigma), e, s, bits).hi <= d

    hi = s
    while not ok(hi):
        hi *= 2
    lo = hi / 2
    while ok(lo):
        lo, hi = lo / 2, lo
    unit = s / (1 << step_bits)
    lo_m, hi_m = int(lo / unit), -(-hi // unit)
    hi_m = int(hi_m)
    while hi_m - lo_m > 1:  # invariant: not ok(lo_m unit) or lo_m = 0, ok(hi_m unit)
        mid = (lo_m + hi_m) // 2
        if ok(mid * unit):
            hi_m = mid
        else:
            lo_m = mid
    return Interval(lo_m * unit, hi_m * unit)
