"""Certified exact arithmetic for the transcendental quantities the paper uses.

No floats: every real number such as ``e**x`` or ``ln x`` is handled through rational
intervals ``[lo, hi]`` that provably contain it, refined until a comparison is decided.

* ``e**x``: Taylor partial sums, with the remainder bounded by the geometric tail
  ``x**(N+1)/(N+1)! * 1/(1 - x/(N+2))`` (valid for ``0 <= x < N+2``).
* ``ln x``: ``x = 2**j * y`` with ``y`` in ``[1, 2)``; ``ln y = 2 atanh(s)`` with
  ``s = (y-1)/(y+1)`` in ``[0, 1/3)`` and ``ln 2 = 2 atanh(1/3)``; the atanh series'
  tail after N terms is at most ``s**(2N+1) / ((2N+1)(1 - s**2))``.

Both are computed in integers over common denominators (the floors and ceilings of exactly
the rationals the Fraction form of the same steps gives: the same intervals) and memoized
(:func:`clear_caches` empties the tables).

Logarithms of integers that the paper rounds up are exact integer operations:
``ceil(log2 x) == (x - 1).bit_length()`` for integer ``x >= 1``.

>>> ceil_log2(8), ceil_log2(9)
(3, 4)
>>> compare_exp(Fraction(1), Fraction(27, 10))   # e > 2.7
1
>>> ceil_log_ratio(Fraction(20), Fraction(3, 2))  # smallest a with (3/2)**a >= 20
8
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any

from exactdp.params import ParameterError, ResourceLimitError

__all__ = [
    "MAX_PRECISION_BITS",
    "Interval",
    "ceil_log2",
    "ceil_log_ratio",
    "compare_exp",
    "exp_interval",
    "exp_lower_bound_at_least",
    "floor_log2",
    "ln_interval",
    "precision_schedule",
]

# Refinement stops with ResourceLimitError past this many bits of precision; reaching it
# means the two quantities are equal or astronomically close.
MAX_PRECISION_BITS = 1 << 20


def precision_schedule(start: int) -> Iterator[int]:
    """The precisions every refinement loop here tries: ``start``, doubling, and always
    ``MAX_PRECISION_BITS`` last, so that every loop reaches the documented limit before it
    gives up (``ResourceLimitError``) whatever its first precision.

    >>> s = list(precision_schedule(3 << 18)); s[0], s[-1] == MAX_PRECISION_BITS, len(s)
    (786432, True, 2)
    """
    bits = max(int(start), 1)
    while bits < MAX_PRECISION_BITS:
        yield bits
        bits *= 2
    yield MAX_PRECISION_BITS


@dataclass(frozen=True)
class Interval:
    """A closed rational interval ``[lo, hi]`` known to contain a real number."""

    lo: Fraction
    hi: Fraction

    def __post_init__(self) -> None:
        if self.lo > self.hi:
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")

    def __contains__(self, q: Fraction) -> bool:
        return self.lo <= q <= self.hi

    def __str__(self) -> str:
        return f"[{self.lo}, {self.hi}]"


def ceil_log2(x: int) -> int:
    """``ceil(log2 x)`` for an integer ``x >= 1``, exactly."""
    if x < 1:
        raise ParameterError(f"ceil_log2: x = {x} must be >= 1")
    return (x - 1).bit_length()


def floor_log2(x: int) -> int:
    """``floor(log2 x)`` for an integer ``x >= 1``, exactly."""
    if x < 1:
        raise ParameterError(f"floor_log2: x = {x} must be >= 1")
    return x.bit_length() - 1


def _round_out(lo: Fraction, hi: Fraction, bits: int) -> Interval:
    """Widen ``[lo, hi]`` to endpoints with denominator ``2**bits`` (keeps sizes small)."""
    lo_n, hi_n = _scaled_out(lo.numerator, lo.denominator, hi.numerator, hi.denominator, bits)
    scale = 1 << bits
    return Interval(Fraction(lo_n, scale), Fraction(hi_n, scale))


def _scaled_out(lo_num: int, lo_den: int, hi_num: int, hi_den: int, bits: int
                ) -> tuple[int, int]:
    """``(floor(2**bits lo), ceil(2**bits hi))`` for ``lo = lo_num/lo_den``, ``hi =
    hi_num/hi_den`` (positive denominators): the numerators of ``[lo, hi]`` widened to the
    denominator ``2**bits``."""
    lo_n = (lo_num << bits) // lo_den
    hi_n = -((-hi_num << bits) // hi_den)
    return lo_n, hi_n


#: Entries kept by each of the memo tables of the pure functions below (the same arguments
#: recur: ln of the same ratios, e^x at the same epsilon, ln 2 at every precision).
CACHE_SIZE = 1 << 12


_EXP_MEMO: dict[tuple[int, int, int], Interval] = {}
_LN_MEMO: dict[tuple[int, int, int], Interval] = {}
_ATANH_MEMO: dict[tuple[int, int, int], tuple[int, int]] = {}


def clear_caches() -> None:
    """Empty the memo tables (for tests that plant a bug in the code behind them: a table
    filled before the bug was planted, or by the planted bug, would hide it or outlive it)."""
    _EXP_MEMO.clear()
    _LN_MEMO.clear()
    _ATANH_MEMO.clear()


def _memo(table: dict[tuple[int, int, int], Any], fn: Callable[[int, int, int], Any],
          p: int, q: int, bits: int) -> Any:
    """``fn(p, q, bits)``, looked up in ``table`` first (a pure function of three ints; the
    table is emptied when it reaches :data:`CACHE_SIZE` entries)."""
    key = (p, q, bits)
    value = table.get(key)
    if value is None:
        value = fn(p, q, bits)
        if len(table) >= CACHE_SIZE:
            table.clear()
        table[key] = value
    return value


def _exp_pos(p: int, q: int, bits: int) -> Interval:
    """:func:`exp_interval` at ``x = p/q > 0`` (lowest terms), in integers (memoized by
    the caller).

    Argument reduction ``y = x / 2**j <= 1/2`` (``j`` the least such ``j >= 0``), ``work =
    bits + 2j + 8``.  Taylor partial sums ``S_i = s_i / den_i`` with ``den_i = Q^i i!`` (``y =
    p/Q``, ``Q = q 2**j``), ``s_i = s_(i-1) Q i + p^i``, stopped at the first ``i`` whose tail
    bound ``T_i = y^(i+1)/(i+1)! / (1 - y/(i+2)) = p^(i+1) (i+2) / (den_i (i+1) (Q(i+2) - p))``
    is below ``2**-work``; ``[S_i, S_i + T_i]`` rounded out to ``2**-work`` and squared ``j``
    times, rounded out each time.  Exactly the intervals of the Fraction form of the same
    steps (the floors and ceilings of the same exact rationals)."""
    two_p, j = 2 * p, 0
    if two_p > q:
        j = max(0, two_p.bit_length() - q.bit_length() - 1)  # a lower bound of the least j
        while two_p > q << j:
            j += 1
    big_q = q << j  # y = p / big_q <= 1/2 (not necessarily in lowest terms: the same value)
    work = bits + 2 * j + 8
    s = den = power = 1
    i = 0
    while True:
        i += 1
        power *= p
        s = s * big_q * i + power
        den *= big_q * i
        tail_num = power * p * (i + 2)
        tail_den = den * (i + 1) * (big_q * (i + 2) - p)
        if tail_num << work < tail_den:
            break
    factor = tail_den // den  # (i + 1) (Q (i + 2) - p): S + T = (s factor + tail_num)/tail_den
    lo_n, hi_n = _scaled_out(s, den, s * factor + tail_num, tail_den, work)
    for _ in range(j):
        lo_n, hi_n = (lo_n * lo_n) >> work, -((-hi_n * hi_n) >> work)
    scale = 1 << work
    return Interval(Fraction(lo_n, scale), Fraction(hi_n, scale))


def exp_interval(x: Fraction, bits: int) -> Interval:
    """An interval of width about ``2**-bits * e**x`` containing ``e**x``.

    ``e**x = (e**(x / 2**j))**(2**j)`` with ``x / 2**j <= 1/2`` and the Taylor partial sum
    plus its geometric tail bound (see the module doc; integer arithmetic in
    :func:`_exp_pos`, memoized); ``e**-x = 1/e**x``."""
    x = Fraction(x)
    if x == 0:
        return Interval(Fraction(1), Fraction(1))
    if x < 0:
        inv = exp_interval(-x, bits + 2)
        return Interval(1 / inv.hi, 1 / inv.lo)
    return _memo(_EXP_MEMO, _exp_pos, x.numerator, x.denominator, bits)


def _atanh_n(p: int, q: int, bits: int) -> tuple[int, int]:
    """``(lo_n, hi_n)``: ``atanh(p/q)`` lies in ``[lo_n, hi_n] / 2**bits`` (``0 < p/q <=
    1/3``, lowest terms; ``bits`` here is the caller's ``bits + 2``).

    After ``i`` terms the partial sum is ``s / (q^(2i-1) m)``, ``m = lcm(1, 3, ..., 2i-1)``;
    the tail bound is ``p^(2i+1) / (q^(2i-1) (2i+1) (q^2 - p^2))``; the series stops at the
    first ``i`` whose tail is below ``2**-bits``.  Exactly the intervals of the Fraction form
    of the same steps."""
    p2, q2 = p * p, q * q
    d2 = q2 - p2
    s, qp, m = p, q, 1          # one term: p/q
    power = p * p2              # p^(2i+1)
    i = 1
    while True:
        k = 2 * i + 1
        tail_den = qp * k * d2
        if power << bits < tail_den:
            break
        m_next = m * (k // gcd(m, k))
        s = s * q2 * (m_next // m) + power * (m_next // k)
        m, qp, power, i = m_next, qp * q2, power * p2, i + 1
    den = qp * m
    return _scaled_out(s, den, s * k * d2 + power * m, den * k * d2, bits)


def _atanh_interval(s: Fraction, bits: int) -> Interval:
    """Interval for ``atanh(s)``, ``0 <= s <= 1/3``, with absolute width <= ``2**-bits``."""
    if s == 0:
        return Interval(Fraction(0), Fraction(0))
    lo_n, hi_n = _memo(_ATANH_MEMO, _atanh_n, s.numerator, s.denominator, bits + 2)
    scale = 1 << (bits + 2)
    return Interval(Fraction(lo_n, scale), Fraction(hi_n, scale))


def _ln_pos_int(p: int, q: int, bits: int) -> Interval:
    """:func:`ln_interval` at ``x = p/q > 0`` (lowest terms), in integers (memoized by the
    caller): ``x = 2**j y``,
    ``y`` in ``[1, 2)``, ``ln y = 2 atanh((y-1)/(y+1))``, ``ln 2 = 2 atanh(1/3)``; the two
    atanh enclosures are dyadic, so the sum ``2 (j atanh(1/3) + atanh(s))`` is exact over
    their common denominator."""
    # j = floor(log2 x), exactly, so that y = x / 2**j = yp / yq lies in [1, 2).
    j = p.bit_length() - q.bit_length()
    yp, yq = (p, q << j) if j >= 0 else (p << -j, q)
    if yp < yq:
        j -= 1
        yp, yq = (p, q << j) if j >= 0 else (p << -j, q)
    extra = abs(j).bit_length() + 4
    sp, sq = yp - yq, yp + yq       # s = (y - 1)/(y + 1) in [0, 1/3)
    g = gcd(sp, sq)
    # atanh(s) over 2**(bits + 4); half of ln 2 over 2**(bits + extra + 2)
    y_lo, y_hi = _memo(_ATANH_MEMO, _atanh_n, sp // g, sq // g, bits + 4) if sp else (0, 0)
    if j == 0:
        scale = 1 << (bits + 4)
        return Interval(Fraction(2 * y_lo, scale), Fraction(2 * y_hi, scale))
    h_lo, h_hi = _memo(_ATANH_MEMO, _atanh_n, 1, 3, bits + extra + 2)
    up = extra - 2                  # bits + extra + 2 = (bits + 4) + up, up >= 3
    if j > 0:
        lo = 2 * (j * h_lo + (y_lo << up))
        hi = 2 * (j * h_hi + (y_hi << up))
    else:
        lo = 2 * (j * h_hi + (y_lo << up))
        hi = 2 * (j * h_lo + (y_hi << up))
    scale = 1 << (bits + extra + 2)
    return Interval(Fraction(lo, scale), Fraction(hi, scale))


def ln_interval(x: Fraction, bits: int) -> Interval:
    """An interval of absolute width about ``2**-bits`` containing ``ln x`` (``x > 0``)."""
    x = Fraction(x)
    if x <= 0:
        raise ParameterError(f"ln: x = {x} must be positive")
    return _memo(_LN_MEMO, _ln_pos_int, x.numerator, x.denominator, bits)


def compare_exp(x: Fraction, r: Fraction) -> int:
    """Sign of ``e**x - r`` for rationals ``x`` and ``r``, decided exactly.

    For ``x != 0``, ``e**x`` is irrational (Lindemann), so the two are never equal and
    refining the Taylor interval terminates.  Precisions tried: 64 bits (decides any pair
    more than about ``2**-60 e**x`` apart at once), doubling, up to ``MAX_PRECISION_BITS``.
    """
    x, r = Fraction(x), Fraction(r)
    if x == 0:
        return (1 > r) - (1 < r)
    if r <= 0:
        return 1
    # Cheap exact answers first (a huge |x| would otherwise cost |x| bits): with
    # 2^(b-1) <= r < 2^(b+1), b = bits(num) - bits(den), and e^x > 2^x for x > 0,
    # e^x < 2^x for x < 0.
    b = r.numerator.bit_length() - r.denominator.bit_length()
    if x > 0 and x // 1 >= b + 1:
        return 1
    if x < 0 and -((-x) // 1) <= b - 1:
        return -1
    for bits in precision_schedule(64):
        box = exp_interval(x, bits)
        if r < box.lo:
            return 1
        if r > box.hi:
            return -1
    raise ResourceLimitError(f"could not separate e**({x}) from {r} with {MAX_PRECISION_BITS} bits")


def exp_lower_bound_at_least(x: Fraction, r: Fraction) -> Fraction:
    """A rational ``L <= e**x`` with ``L >= r``, proving ``r <= e**x``; raises otherwise.

    This is the witness a certificate prints: "ratio r <= L <= e**x".  Precisions tried as in
    :func:`compare_exp`: 64 bits, doubling, up to ``MAX_PRECISION_BITS``.
    """
    x, r = Fraction(x), Fraction(r)
    if x == 0:
        if r <= 1:
            return Fraction(1)
        raise ParameterError(f"{r} > 1 = e**0")
    for bits in precision_schedule(64):
        box = exp_interval(x, bits)
        if r <= box.lo:
            return box.lo
        if r > box.hi:
            raise ParameterError(f"{r} > e**({x}) (e**x <= {box.hi})")
    raise ResourceLimitError(f"could not separate e**({x}) from {r} with {MAX_PRECISION_BITS} bits")


def _power_equals(base: Fraction, a: int, target: Fraction) -> bool:
    """``base**a == target`` exactly, without building huge powers that cannot match."""
    p, q = base.numerator, base.denominator
    if q > 1:
        if a * (q.bit_length() - 1) > target.denominator.bit_length():
            return False
    elif a * (p.bit_length() - 1) > target.numerator.bit_length():
        return False
    return base**a == target


def ceil_log_ratio(x: Fraction, base: Fraction) -> int:
    """``ceil(ln x / ln base)`` exactly: the smallest integer ``a`` with ``base**a >= x``.

    Preconditions: ``x >= 1`` and ``base > 1``.  Used for the paper's accuracy bounds
    ``a = ceil(2/eps~ * ln(1/beta))`` with ``2/eps~ = 1/ln(1 + 2**-k)``.
    """
    x, base = Fraction(x), Fraction(base)
    if x < 1 or base <= 1:
        raise ParameterError(f"ceil_log_ratio needs x >= 1 and base > 1, got x={x}, base={base}")
    if x == 1:
        return 0
    # ln(base) may be tiny (base = 1 + 2**-k, ln base ~ 2**-k): ask for absolute precision
    # well below it from the first attempt.
    for bits in precision_schedule(64 + 2 * max(base.denominator.bit_length(), 1)):
        num = ln_interval(x, bits)
        den = ln_interval(base, bits)
        if den.lo <= 0:
            continue
        lo, hi = num.lo / den.hi, num.hi / den.lo
        lo_c = -((-lo.numerator) // lo.denominator)
        hi_c = -((-hi.numerator) // hi.denominator)
        if lo_c == hi_c:
            return lo_c
        # The interval straddles an integer a (or touches it): decide base**a >= x exactly
        # when that integer is the only candidate and the exact test is cheap.
        if hi_c == lo_c + 1 and _power_equals(base, lo_c, x):
            return lo_c
    raise ResourceLimitError(f"could not decide ceil(ln {x} / ln {base}) with {MAX_PRECISION_BITS} bits")
