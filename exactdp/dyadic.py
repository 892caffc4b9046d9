"""Outward-rounded dyadic arithmetic on integers (no floats).

A dyadic number ``mant * 2**exp`` with ``mant >= 0`` is the pair ``(mant, exp)``; ``exp``
is an unbounded int, so values far below ``2**-1000000`` keep their relative precision.
Every operation takes a direction ``up`` (``True``: the result is ``>=`` the exact value,
``False``: ``<=``) and a precision ``prec``: a non-zero result is the exact value rounded
in that direction to ``prec`` significant bits, its mantissa normalised to exactly
``prec`` bits (zero is ``(0, 0)``).  The rounded value is a function of the exact value,
``up`` and ``prec`` only, never of how the inputs happen to be represented.

Two users, each with its own precision: the certified binomial tails of the black-box
audit (:mod:`exactdp.binomial`, 96 bits) and the binomial-CDF bounds that decide
ApproxBinSample's draws (Balcer & Vadhan, Algorithm 6.18 / Proposition 6.17;
:class:`exactdp.histograms.orderstats.BinomialCDFBounds`, 256 bits).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["Dyadic", "dadd", "dfrom_fraction", "dmul", "dnorm", "dpow", "dscale",
           "dto_fraction"]

Dyadic = tuple[int, int]


def dnorm(mant: int, exp: int, up: bool, prec: int) -> Dyadic:
    """``mant * 2**exp`` (``mant >= 0``) rounded in the direction ``up`` to ``prec`` bits."""
    if mant == 0:
        return 0, 0
    extra = mant.bit_length() - prec
    if extra > 0:
        mant = -((-mant) >> extra) if up else mant >> extra
        exp += extra
        if mant.bit_length() > prec:  # rounding up carried into a new bit: exact halving
            mant >>= 1
            exp += 1
    elif extra < 0:
        mant <<= -extra
        exp += extra
    return mant, exp


def dfrom_fraction(q: Fraction, up: bool, prec: int) -> Dyadic:
    """A rational ``q >= 0`` rounded in the direction ``up`` to ``prec`` bits."""
    num, den = q.numerator, q.denominator
    if num == 0:
        return 0, 0
    s = prec + 2 + den.bit_length() - num.bit_length()  # the quotient has > prec bits
    scaled = num << s if s >= 0 else num
    div = den if s >= 0 else den << -s
    return dnorm(-((-scaled) // div) if up else scaled // div, -s, up, prec)


def dto_fraction(x: Dyadic) -> Fraction:
    """The exact value of ``x``."""
    mant, exp = x
    return Fraction(mant << exp) if exp >= 0 else Fraction(mant, 1 << -exp)


def dmul(x: Dyadic, y: Dyadic, up: bool, prec: int) -> Dyadic:
    """``x * y``, rounded."""
    return dnorm(x[0] * y[0], x[1] + y[1], up, prec)


def dscale(x: Dyadic, a: int, b: int, up: bool, prec: int) -> Dyadic:
    """``x * a / b`` for integers ``a >= 0``, ``b >= 1``, rounded.  The quotient is taken
    on a grid finer than the result's last place (``prec + bitlen(b) + 2`` extra bits), so
    rounding it again to ``prec`` bits in the same direction is the single rounding."""
    shift = prec + b.bit_length() + 2
    num = (x[0] * a) << shift
    return dnorm(-((-num) // b) if up else num // b, x[1] - shift, up, prec)


def dadd(x: Dyadic, y: Dyadic, up: bool, prec: int) -> Dyadic:
    """``x + y``, rounded (inputs with ``prec``-bit mantissas, as every result here)."""
    if x[0] == 0:
        return y
    if y[0] == 0:
        return x
    if x[1] < y[1]:
        x, y = y, x
    if y[0].bit_length() + y[1] <= x[1]:  # 0 < y < 2**x[1], one unit of x's last place
        return dnorm(x[0] + 1, x[1], up, prec) if up else x
    return dnorm((x[0] << (x[1] - y[1])) + y[0], y[1], up, prec)


def dpow(x: Dyadic, k: int, up: bool, prec: int) -> Dyadic:
    """``x**k`` (``k >= 0``) by binary powering, every product rounded to ``prec`` bits in
    the direction ``up`` -- the rounding of :func:`dnorm`, written out in the loop (this is
    most of the work of ApproxBinSample's bounds): a mantissa may end one bit longer after
    rounding up (``2^prec``), which the next product rounds like any other."""
    r_mant, r_exp = 1, 0
    b_mant, b_exp = x
    while k:
        if k & 1:
            r_mant *= b_mant
            r_exp += b_exp
            extra = r_mant.bit_length() - prec
            if extra > 0:
                r_mant = -((-r_mant) >> extra) if up else r_mant >> extra
                r_exp += extra
        k >>= 1
        if k:
            b_mant *= b_mant
            b_exp += b_exp
            extra = b_mant.bit_length() - prec
            if extra > 0:
                b_mant = -((-b_mant) >> extra) if up else b_mant >> extra
                b_exp += extra
    return dnorm(r_mant, r_exp, up, prec)
