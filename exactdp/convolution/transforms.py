"""Exact transforms for the integer-strategy convolution mechanisms (paper 002).

* :func:`fwht` -- the fast Walsh-Hadamard transform ``v -> W v`` on exact numbers, ``W`` the
  ``+-1`` Sylvester-Hadamard matrix ``W[j][m] = (-1)^{popcount(j & m)}`` (``W^2 = N I``): the
  transform that diagonalises XOR convolution over ``Z_2^d`` (paper 002, §5.4).  A fixed
  schedule: ``d`` rounds of ``N/2`` butterflies whatever the values (strict time).
* :func:`walsh_matrix` -- ``W`` itself (small ``N``; the definition fwht is tested against).
* :func:`real_fourier_rounded` -- ``T = round_half_up(c Q)``, ``Q`` the real orthonormal
  Fourier basis of ``Z_N`` (rows ``1/sqrt N``, ``sqrt(2/N) cos(2 pi k n/N)``,
  ``sqrt(2/N) sin(2 pi k n/N)`` for ``1 <= k < N/2``, and ``(-1)^n/sqrt N`` for even ``N``),
  every entry rounded **exactly** (certified).
* :func:`hartley4` -- the Hartley basis ``cas(2 pi k n/4)`` at ``N = 4``: a ``+-1`` Hadamard
  matrix (the Gaussian-integer case that works exactly).

Certified rounding.  An entry is ``v = c sqrt(s) cos(2 pi t)`` with rational ``c, s > 0`` and
``t``.  ``v^2 = c^2 s (1 + cos(4 pi t))/2`` is rational exactly when ``cos(4 pi t)`` is, which by
Niven's theorem happens only for ``2t mod 1`` in ``{0, 1/6, 1/4, 1/3, 1/2, 2/3, 3/4, 5/6}``; then
``round_half_up(v) = floor(v + 1/2)`` is decided with integer square roots (ties such as
``v = 1/2`` included).  Otherwise ``v`` is irrational, so never a half-integer, and a rational
interval for ``cos`` (Taylor series with an alternating-tail bound, ``pi`` by Machin's formula)
is refined until ``floor(v + 1/2)`` is the same at both ends.  Ties do not occur
only at ``cos`` in ``{0, +-1/2, +-1}``: with the ``sqrt(2/N)`` factor a tie can also occur where
``cos^2`` is rational but ``cos`` is not (e.g. ``N = 16``: ``sqrt(2/16) cos(pi/4) = 1/4``, so
``c = 2`` gives exactly ``1/2``); the rule above covers every case.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from fractions import Fraction
from math import isqrt
from typing import TypeVar

from exactdp.certified import MAX_PRECISION_BITS
from exactdp.convolution.vectors import MAX_DIRECT_N, Exact, exact_vector
from exactdp.params import ParameterError, ResourceLimitError, to_fraction
from exactdp.trace import record

T = TypeVar("T", int, Exact)

__all__ = [
    "fwht",
    "hartley4",
    "real_fourier_basis_squares",
    "real_fourier_rounded",
    "round_half_up_sqrt",
    "walsh_matrix",
]


def _log2_exact(n: int, name: str) -> int:
    if n < 1 or n & (n - 1):
        raise ParameterError(f"{name} has length {n}; the Walsh-Hadamard transform needs a "
                             f"length N = 2^d (1, 2, 4, 8, ...)")
    return n.bit_length() - 1


def fwht(values: Sequence[object]) -> list[Exact]:
    """``W v`` for ``v`` of length ``N = 2^d`` (ints or Fractions; floats refused).

    Schedule (fixed; the "constant geometry" form of the fast transform): ``d`` rounds, each
    mapping ``v`` to ``(v_even + v_odd, v_even - v_odd)`` -- ``N/2`` additions and ``N/2``
    subtractions on the slices of even and odd positions.  After ``d`` rounds the result is
    ``W v`` in Sylvester order (tested against :func:`walsh_matrix` and the direct sum).
    Each round is recorded as the trace event ``("fwht-round", N)``.

    Exact: integer in, integer out (``|(W v)_j| <= ||v||_1``); ``W (W v) = N v``.
    """
    return _butterflies(exact_vector(values, "v"))


def fwht_ints(values: list[int]) -> list[int]:
    """:func:`fwht` for a list already known to hold only ints (no re-validation; the
    mechanisms call it on their own integer coefficient vectors).  Same schedule."""
    return _butterflies(values)


def _butterflies(v: list[T]) -> list[T]:
    """The ``d`` rounds of :func:`fwht` on an already validated vector (ints or Fractions)."""
    n = len(v)
    d = _log2_exact(n, "v")
    add, sub = operator.add, operator.sub
    for _ in range(d):
        record("fwht-round", n)
        even, odd = v[0::2], v[1::2]
        v = list(map(add, even, odd))
        v.extend(map(sub, even, odd))
    return v


def walsh_matrix(n: int) -> list[list[int]]:
    """``W[j][m] = (-1)^{popcount(j & m)}`` for ``N = n = 2^d`` (at most ``MAX_DIRECT_N``)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise ParameterError(f"N = {n!r} must be an int 2^d")
    _log2_exact(n, "N")
    if n > MAX_DIRECT_N:
        raise ResourceLimitError(f"walsh_matrix(N = {n}) would have N^2 entries (N > "
                                 f"{MAX_DIRECT_N}); use fwht")
    return [[-1 if (j & m).bit_count() & 1 else 1 for m in range(n)] for j in range(n)]


def hartley4() -> list[list[int]]:
    """The Hartley matrix ``cas(2 pi k n / 4) = cos + sin`` at ``N = 4`` (exact: ``cos`` and
    ``sin`` of multiples of ``pi/2`` are ``0, +-1``): ``[[1,1,1,1], [1,1,-1,-1], [1,-1,1,-1],
    [1,-1,-1,1]]``, orthogonal with ``T^T T = 4 I``; it block-diagonalises every 4x4
    circulant exactly."""
    cos4 = (1, 0, -1, 0)  # cos(pi m / 2), m mod 4

    def sin4(m: int) -> int:
        return cos4[(1 - m) % 4]  # sin(x) = cos(pi/2 - x)

    return [[cos4[(k * m) % 4] + sin4(k * m) for m in range(4)] for k in range(4)]


# ------------------------------------------------------------------ certified rounding

#: ``cos(2 pi s)`` at the rational ``s`` in ``[0, 1)`` where it is rational (Niven).
_NIVEN: dict[Fraction, Fraction] = {
    Fraction(0): Fraction(1), Fraction(1, 6): Fraction(1, 2), Fraction(1, 4): Fraction(0),
    Fraction(1, 3): Fraction(-1, 2), Fraction(1, 2): Fraction(-1), Fraction(2, 3): Fraction(-1, 2),
    Fraction(3, 4): Fraction(0), Fraction(5, 6): Fraction(1, 2),
}


def _frac_part(t: Fraction) -> Fraction:
    return t - (t.numerator // t.denominator)


def _cos_sign(t: Fraction) -> int:
    """The sign of ``cos(2 pi t)``, exactly."""
    u = _frac_part(t)
    if u in (Fraction(1, 4), Fraction(3, 4)):
        return 0
    return 1 if u < Fraction(1, 4) or u > Fraction(3, 4) else -1


def _floor_sqrt(q: Fraction) -> int:
    return isqrt(q.numerator // q.denominator)


def _ceil_sqrt(q: Fraction) -> int:
    k = _floor_sqrt(q)
    return k if k * k == q else k + 1


def round_half_up_sqrt(sign: int, square: Fraction) -> int:
    """``floor(v + 1/2)`` for ``v = sign * sqrt(square)`` (``square >= 0`` rational), exactly.

    ``v >= 0``: ``k <= v + 1/2  <=>  2k - 1 <= sqrt(4 square)``, so ``k = floor((J + 1)/2)``
    with ``J = floor(sqrt(4 square))``.  ``v < 0``: ``k <= 1/2 - sqrt(4 square)/2  <=>
    ceil(sqrt(4 square)) <= 1 - 2k``, so ``k = floor((1 - K)/2)``, ``K = ceil(sqrt(4 square))``.
    """
    if square < 0:
        raise ParameterError(f"square = {square} must be >= 0")
    if sign >= 0 or square == 0:
        return (_floor_sqrt(4 * square) + 1) // 2
    return (1 - _ceil_sqrt(4 * square)) // 2


def _atan_inv(k: int, bits: int) -> tuple[Fraction, Fraction]:
    """Bounds on ``atan(1/k)`` (integer ``k >= 2``): consecutive partial sums of the
    alternating series ``sum (-1)^i / ((2i+1) k^(2i+1))`` (terms decreasing) bracket it."""
    s = Fraction(0)
    i = 0
    while True:
        term = Fraction(1, (2 * i + 1) * k ** (2 * i + 1))
        nxt = s + term if i % 2 == 0 else s - term
        if term < Fraction(1, 1 << bits):
            return (min(s, nxt), max(s, nxt))
        s = nxt
        i += 1


def _pi_interval(bits: int) -> tuple[Fraction, Fraction]:
    """``pi = 16 atan(1/5) - 4 atan(1/239)`` (Machin), as rational bounds."""
    a_lo, a_hi = _atan_inv(5, bits + 6)
    b_lo, b_hi = _atan_inv(239, bits + 6)
    return (16 * a_lo - 4 * b_hi, 16 * a_hi - 4 * b_lo)


def _dyadic_down(q: Fraction, bits: int) -> Fraction:
    return Fraction((q.numerator << bits) // q.denominator, 1 << bits)


def _dyadic_up(q: Fraction, bits: int) -> Fraction:
    return Fraction(-((-q.numerator << bits) // q.denominator), 1 << bits)


def _cos_bounds(x: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Bounds on ``cos x`` for rational ``0 <= x <= 4``: the Taylor partial sum up to the
    term ``x^(2t-2)/(2t-2)!``, with the tail at most the first omitted term ``x^(2t)/(2t)!``
    (the tail alternates with decreasing terms once ``2t + 1 > x``)."""
    s = Fraction(0)
    term = Fraction(1)
    i = 0
    while True:
        s += term if i % 2 == 0 else -term
        i += 1
        term = term * x * x / ((2 * i - 1) * (2 * i))
        if 2 * i + 1 > x and term < Fraction(1, 1 << bits):
            return (_dyadic_down(s - term, bits + 2), _dyadic_up(s + term, bits + 2))


def _cos_interval(t: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rational bounds on ``cos(2 pi t)``: reduce ``t`` to ``[0, 1/2]`` (``cos`` is even and
    1-periodic in ``t``), where ``cos`` is decreasing in ``theta = 2 pi t`` on ``[0, pi]``."""
    u = _frac_part(t)
    if u > Fraction(1, 2):
        u = 1 - u
    p_lo, p_hi = _pi_interval(bits + 4)
    th_lo, th_hi = 2 * p_lo * u, 2 * p_hi * u
    lo, _ = _cos_bounds(_dyadic_up(th_hi, bits + 4), bits)
    _, hi = _cos_bounds(_dyadic_down(th_lo, bits + 4), bits)
    # rounding th_hi up / th_lo down keeps the enclosure (cos decreasing on [0, pi])
    return (max(lo, Fraction(-1)), min(hi, Fraction(1)))


def _sqrt_interval(q: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    scaled = (q.numerator << (2 * bits)) // q.denominator
    r = isqrt(scaled)
    return (Fraction(r, 1 << bits), Fraction(r + 1, 1 << bits))


def _mul(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    ps = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return (min(ps), max(ps))


def round_half_up_scaled_cos(scale_sq: Fraction, t: Fraction) -> int:
    """``floor(v + 1/2)`` for ``v = sqrt(scale_sq) cos(2 pi t)``, ``scale_sq > 0`` and ``t``
    rational: exact when ``v^2`` is rational (Niven), certified intervals otherwise (then
    ``v`` is irrational, so the refinement terminates)."""
    s = _frac_part(2 * t)
    if s in _NIVEN:
        cos_sq = (1 + _NIVEN[s]) / 2
        return round_half_up_sqrt(_cos_sign(t), scale_sq * cos_sq)
    bits = 64
    while bits <= MAX_PRECISION_BITS:
        v = _mul(_sqrt_interval(scale_sq, bits), _cos_interval(t, bits))
        lo = (v[0] + Fraction(1, 2)).__floor__()
        hi = (v[1] + Fraction(1, 2)).__floor__()
        if lo == hi:
            return int(lo)
        bits *= 2
    raise ResourceLimitError(f"could not round sqrt({scale_sq}) cos(2 pi {t}) within "
                             f"{MAX_PRECISION_BITS} bits")


def real_fourier_basis_squares(n: int) -> list[list[tuple[Fraction, Fraction]]]:
    """The real orthonormal Fourier basis ``Q`` of ``Z_N`` entry by entry as
    ``(s, t)`` with ``Q[j][m] = sqrt(s) cos(2 pi t)``: row 0 ``1/sqrt N``; rows ``2k - 1``,
    ``2k`` (``1 <= k < N/2``) ``sqrt(2/N) cos(2 pi k m/N)`` and ``sqrt(2/N) sin(2 pi k m/N)``
    (``sin(2 pi u) = cos(2 pi (1/4 - u))``); for even ``N`` the last row ``(-1)^m/sqrt N``."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError(f"N = {n!r} must be an int >= 1")
    if n > MAX_DIRECT_N:
        raise ResourceLimitError(f"the real Fourier strategy at N = {n} has N^2 entries (N > "
                                 f"{MAX_DIRECT_N})")
    one, two = Fraction(1, n), Fraction(2, n)
    rows = [[(one, Fraction(0)) for _ in range(n)]]
    for k in range(1, (n + 1) // 2):
        rows.append([(two, Fraction(k * m, n)) for m in range(n)])
        rows.append([(two, Fraction(1, 4) - Fraction(k * m, n)) for m in range(n)])
    if n % 2 == 0:
        rows.append([(one, Fraction(m, 2)) for m in range(n)])
    return rows


def real_fourier_rounded(n: int, c: object) -> list[list[int]]:
    """``T = round_half_up(c Q)``: the real orthonormal Fourier basis
    of ``Z_N`` (:func:`real_fourier_basis_squares`) scaled by the rational ``c > 0`` and each
    entry rounded to the nearest integer, halves up, with certified exact rounding (see the
    module doc).  Precondition: ``N <= MAX_DIRECT_N``.  Invertibility is not guaranteed for
    small ``c``; :class:`~exactdp.convolution.strategy.IntegerStrategy` checks it exactly.
    """
    cc = to_fraction(c, "c")
    if cc <= 0:
        raise ParameterError(f"c = {cc} must be positive (the rounding scale)")
    basis = real_fourier_basis_squares(n)
    c2 = cc * cc
    cache: dict[tuple[Fraction, Fraction], int] = {}
    out: list[list[int]] = []
    for row in basis:
        vals = []
        for s, t in row:
            key = (s, _frac_part(t))
            if key not in cache:
                cache[key] = round_half_up_scaled_cos(c2 * s, key[1])
            vals.append(cache[key])
        out.append(vals)
    return out
