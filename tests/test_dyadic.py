"""exactdp.dyadic: each operation is the exact value rounded in its direction to ``prec``
bits, against a reference computed here with Fractions only."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from exactdp.dyadic import (
    Dyadic,
    dadd,
    dfrom_fraction,
    dmul,
    dnorm,
    dpow,
    dscale,
    dto_fraction,
)

PRECS = st.sampled_from([3, 8, 96, 256])
UP = st.booleans()


def rounded(v: Fraction, up: bool, prec: int) -> Fraction:
    """``v >= 0`` rounded to ``prec`` significant bits, by Fractions: ``2^e <= v < 2^(e+1)``
    found by comparing with powers of two, then floor/ceil on the grid ``2^(e - prec + 1)``."""
    if v == 0:
        return v
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    grid = Fraction(2) ** (e - prec + 1)
    k = v / grid
    n = -((-k.numerator) // k.denominator) if up else k.numerator // k.denominator
    return n * grid


def dyadics(prec: int) -> st.SearchStrategy[Dyadic]:
    return st.tuples(st.integers(0, (1 << prec) - 1), st.integers(-300, 300)).map(
        lambda me: dnorm(me[0], me[1], False, prec))


def well_formed(x: Dyadic, prec: int) -> bool:
    return x == (0, 0) or x[0].bit_length() == prec


@given(st.integers(0, 1 << 600), st.integers(-500, 500), UP, PRECS)
def test_dnorm_rounds_in_its_direction(mant: int, exp: int, up: bool, prec: int) -> None:
    x = dnorm(mant, exp, up, prec)
    assert well_formed(x, prec)
    assert dto_fraction(x) == rounded(mant * Fraction(2) ** exp, up, prec)


@given(st.fractions(min_value=0, max_denominator=10**40), UP, PRECS)
def test_dfrom_fraction(q: Fraction, up: bool, prec: int) -> None:
    x = dfrom_fraction(q, up, prec)
    assert well_formed(x, prec) and dto_fraction(x) == rounded(q, up, prec)


@given(st.data(), UP, PRECS)
def test_dmul_dadd_dscale(data: st.DataObject, up: bool, prec: int) -> None:
    x, y = data.draw(dyadics(prec)), data.draw(dyadics(prec))
    a, b = data.draw(st.integers(0, 1 << 200)), data.draw(st.integers(1, 1 << 200))
    fx, fy = dto_fraction(x), dto_fraction(y)
    for got, exact in ((dmul(x, y, up, prec), fx * fy), (dadd(x, y, up, prec), fx + fy),
                       (dscale(x, a, b, up, prec), fx * a / b)):
        assert well_formed(got, prec) and dto_fraction(got) == rounded(exact, up, prec)


@given(st.data(), st.integers(0, 70), UP, PRECS)
def test_dpow_is_binary_powering_with_each_product_rounded(
        data: st.DataObject, k: int, up: bool, prec: int) -> None:
    """The reference is the rounded square-and-multiply written with Fractions; the result
    also encloses the exact power on its side."""
    x = data.draw(dyadics(prec))
    result, base, j = Fraction(1), dto_fraction(x), k
    while j:
        if j & 1:
            result = rounded(result * base, up, prec)
        j >>= 1
        if j:
            base = rounded(base * base, up, prec)
    got = dpow(x, k, up, prec)
    assert well_formed(got, prec) and dto_fraction(got) == rounded(result, up, prec)
    exact = dto_fraction(x) ** k
    assert (dto_fraction(got) >= exact) if up else (dto_fraction(got) <= exact)


def test_small_cases_by_hand() -> None:
    # 1/3 to 3 bits: 0.0101.. -> 0.0101 = 5/16 down, 0.0110 = 3/8 up
    assert dto_fraction(dfrom_fraction(Fraction(1, 3), False, 3)) == Fraction(5, 16)
    assert dto_fraction(dfrom_fraction(Fraction(1, 3), True, 3)) == Fraction(3, 8)
    # 7 * 2^0 up to 2 bits carries into a new bit: 8 = (2, 2)
    assert dnorm(7, 0, True, 2) == (2, 2)
    # 1 + 2^-10 at 4 bits: down stays 1, up is 1 + 1/8
    one, tiny = dnorm(1, 0, False, 4), dnorm(1, -10, False, 4)
    assert dto_fraction(dadd(one, tiny, False, 4)) == 1
    assert dto_fraction(dadd(one, tiny, True, 4)) == Fraction(9, 8)
