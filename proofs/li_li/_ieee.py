"""IEEE 754 binary64 arithmetic emulated exactly on rationals (round to nearest, ties to
even; normal range only), so that a row can show what a floating-point reading of a
pseudocode computes without using floating point itself."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["dadd", "ddiv", "double"]


def double(q: Fraction | int) -> Fraction:
    """The binary64 number nearest to ``q`` (ties to even), as an exact rational."""
    q = Fraction(q)
    if q == 0:
        return Fraction(0)
    sign = -1 if q < 0 else 1
    n, d = abs(q.numerator), q.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):  # q < 2^e
        e -= 1
    if not -1022 <= e <= 1023:
        raise ValueError(f"q = {q} is outside the normal binary64 range (2^{e})")
    shift = 52 - e
    num, den = (n << shift, d) if shift >= 0 else (n, d << -shift)
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    return sign * Fraction(m) * Fraction(2) ** (e - 52)


def dadd(a: Fraction, b: Fraction) -> Fraction:
    """``a + b`` in binary64."""
    return double(a + b)


def ddiv(a: Fraction, b: Fraction) -> Fraction:
    """``a / b`` in binary64."""
    return double(a / b)
