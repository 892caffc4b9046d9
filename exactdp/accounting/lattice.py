"""Ratios on one lattice: ``offset * base**i`` for integer ``i``, and exact integer powers.

A privacy-loss distribution whose likelihood ratios are all ``offset * base**i`` (GeoSample
and the clamped geometrics: ``r**(Δ - 2i)``; any loss with two distinct ratios) is two
lists of integers: the P- and Q-numerators of each exponent.  Independent composition
multiplies offsets and adds exponents, so the composed lists are the products of the
polynomials ``sum_i p_i x**i`` -- exactly what
:func:`exactdp.histograms.polymul.truncated_product` computes in one big-integer
multiplication.  Everything here is exact: rationals and integers only.

>>> lattice_exponent(Fraction(125, 64), Fraction(5, 4))
3
>>> lattice_exponent(Fraction(5, 3), Fraction(5, 4)) is None
True
>>> common_base([Fraction(4, 5), Fraction(5, 4), Fraction(125, 64)])
(Fraction(4, 5), Fraction(25, 16), [0, 1, 2])
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import gmpy2

__all__ = ["MAX_ROOT", "MAX_SPREAD", "common_base", "lattice_exponent", "relate_bases"]

#: Largest ``j`` tried when a base's ``j``-th root may be the common base of several ratios.
MAX_ROOT = 8
#: A lattice whose exponent span exceeds this many slots per atom falls back to atoms (a
#: sparse lattice would waste the polynomial product on zeros).
MAX_SPREAD = 64


def lattice_exponent(x: Fraction, base: Fraction, limit: int | None = None) -> int | None:
    """The integer ``k >= 0`` with ``base**k == x`` exactly (``base > 1``, ``x >= 1``), else
    None.  The bit lengths bound ``k`` first, so no huge power is built in vain."""
    if x == 1:
        return 0
    if x < 1 or base <= 1:
        return None
    # both in lowest terms, and so is base**k = a**k / b**k (gcd(a, b) = 1): x == base**k
    # if and only if x's numerator is a**k and its denominator b**k -- found by exact
    # divisions, which fail at once for a ratio off the lattice
    a, b = base.numerator, base.denominator
    c, k = gmpy2.mpz(x.numerator), 0
    while c > 1:
        c, rem = gmpy2.f_divmod(c, a)
        if rem:
            return None
        k += 1
        if limit is not None and k > limit:
            return None
    return k if c == 1 and x.denominator == b**k else None


def _root(x: Fraction, j: int) -> Fraction | None:
    """The exact rational ``j``-th root of ``x > 0``, or None."""
    a, exact_a = gmpy2.iroot(gmpy2.mpz(x.numerator), j)
    b, exact_b = gmpy2.iroot(gmpy2.mpz(x.denominator), j)
    return Fraction(int(a), int(b)) if exact_a and exact_b else None


def common_base(values: Sequence[Fraction]) -> tuple[Fraction, Fraction | None, list[int]] | None:
    """``(offset, base, exponents)`` with ``values[i] == offset * base**exponents[i]`` for
    sorted distinct positive ``values``, ``base > 1`` as large as this search finds it (the
    smallest consecutive quotient or one of its ``j``-th roots, ``j <= MAX_ROOT``), or None.
    One value: base None, exponent 0."""
    if not values:
        return None
    offset = values[0]
    if len(values) == 1:
        return offset, None, [0]
    quotients = [b / a for a, b in itertools.pairwise(values)]
    smallest = min(quotients)
    limit = MAX_SPREAD * len(values)
    for j in range(1, MAX_ROOT + 1):
        base = smallest if j == 1 else _root(smallest, j)
        if base is None:
            continue
        steps = []
        for q in quotients:
            k = lattice_exponent(q, base, limit)
            if k is None:
                break
            steps.append(k)
        else:
            exps = [0]
            for k in steps:
                exps.append(exps[-1] + k)
            if exps[-1] > limit:
                return None
            return offset, base, exps
    return None


def relate_bases(a: Fraction, b: Fraction) -> tuple[Fraction, int, int] | None:
    """``(g, i, j)`` with ``a == g**i`` and ``b == g**j`` (the larger base kept when one is a
    power of the other; else a common ``j``-th root up to ``MAX_ROOT``), or None."""
    if a == b:
        return a, 1, 1
    lo, hi = (a, b) if a < b else (b, a)
    k = lattice_exponent(hi, lo, MAX_SPREAD)
    if k is not None:
        return (a, 1, k) if a == lo else (b, k, 1)
    for j in range(2, MAX_ROOT + 1):
        g = _root(lo, j)
        if g is None:
            continue
        k = lattice_exponent(hi, g, MAX_SPREAD * j)
        if k is not None:
            return (g, j, k) if a == lo else (g, k, j)
    return None
