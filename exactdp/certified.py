"""Certified exact arithmetic for the transcendental quantities the paper uses.

No floats: every real number such as ``e**x`` or ``ln x`` is handled through rational
intervals ``[lo, hi]`` that provably contain it, refined until a comparison is decided.

* ``e**x``: Taylor partial sums, with the remainder bounded by the geometric tail
  ``x**(N+1)/(N+1)! * 1/(1 - x/(N+2))`` (valid for ``0 <= x < N+2``).
* ``ln x``: ``x = 2**j * y`` with ``y`` in ``[1, 2)``; ``ln y = 2 atanh(s)`` with
  ``s = (y-1)/(y+1)`` in ``[0, 1/3)`` and ``ln 2 = 2 atanh(1/3)``; the atanh series'
  tail after N terms is at most ``s**(2N+1) / ((2N+1)(1 - s**2))``.

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

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

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
    scale = 1 << bits
    lo_n = (lo.numerator * scale) // lo.denominator
    hi_n = -((-hi.numerator * scale) // hi.denominator)
    return Interval(Fraction(lo_n, scale), Fraction(hi_n, scale))


def exp_interval(x: Fraction, bits: int) -> Interval:
    """An interval of width about ``2**-bits * e**x`` containing ``e**x``."""
    x = Fraction(x)
    if x == 0:
        return Interval(Fraction(1), Fraction(1))
    if x < 0:
        inv = exp_interval(-x, bits + 2)
        return Interval(1 / inv.hi, 1 / inv.lo)
    # Argument reduction: e**x = (e**(x / 2**j))**(2**j) with x / 2**j <= 1/2.
    j = 0
    while x / (1 << j) > Fraction(1, 2):
        j += 1
    y = x / (1 << j)
    work = bits + 2 * j + 8
    term = Fraction(1)
    total = Fraction(1)
    i = 0
    while True:
        i += 1
        term = term * y / i
        total += term
        tail = term * y / (i + 1) / (1 - y / (i + 2))
        if tail * (1 << work) < 1:
            break
    box = _round_out(total, total + tail, work)
    lo, hi = box.lo, box.hi
    for _ in range(j):
        lo, hi = lo * lo, hi * hi
        box = _round_out(lo, hi, work)
        lo, hi = box.lo, box.hi
    return Interval(lo, hi)


def _atanh_interval(s: Fraction, bits: int) -> Interval:
    """Interval for ``atanh(s)``, ``0 <= s <= 1/3``, with absolute width <= ``2**-bits``."""
    if s == 0:
        return Interval(Fraction(0), Fraction(0))
    s2 = s * s
    power = s
    total = Fraction(0)
    i = 0
    while True:
        total += power / (2 * i + 1)
        i += 1
        power *= s2
        tail = power / (2 * i + 1) / (1 - s2)
        if tail * (1 << (bits + 2)) < 1:
            break
    return _round_out(total, total + tail, bits + 2)


def ln_interval(x: Fraction, bits: int) -> Interval:
    """An interval of absolute width about ``2**-bits`` containing ``ln x`` (``x > 0``)."""
    x = Fraction(x)
    if x <= 0:
        raise ParameterError(f"ln: x = {x} must be positive")
    # j = floor(log2 x), exactly, so that y = x / 2**j lies in [1, 2).
    j = x.numerator.bit_length() - x.denominator.bit_length()
    y = x / (1 << j) if j >= 0 else x * (1 << -j)
    if y < 1:
        j, y = j - 1, 2 * y
    extra = abs(j).bit_length() + 4
    ln_y = _atanh_interval((y - 1) / (y + 1), bits + 2)
    if j == 0:
        return Interval(2 * ln_y.lo, 2 * ln_y.hi)
    half_ln2 = _atanh_interval(Fraction(1, 3), bits + extra)
    if j > 0:
        lo = 2 * (j * half_ln2.lo + ln_y.lo)
        hi = 2 * (j * half_ln2.hi + ln_y.hi)
    else:
        lo = 2 * (j * half_ln2.hi + ln_y.lo)
        hi = 2 * (j * half_ln2.lo + ln_y.hi)
    return Interval(lo, hi)


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
