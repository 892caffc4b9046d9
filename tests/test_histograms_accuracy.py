"""Accuracy figures 3-5 and lower bounds 7.1-7.2, against sympy evaluating the paper's formulas."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from exactdp.histograms.accuracy import (
    ceil_scaled_ln,
    decimal_string,
    figure_3,
    figure_4,
    figure_5,
    theorem_7_1_per_query,
    theorem_7_1_simultaneous,
    theorem_7_2_sparse,
)
from exactdp.params import FloatParameterError, NotInverseIntegerError, ParameterError


def R(q: Fraction | int) -> sympy.Rational:
    q = Fraction(q)
    return sympy.Rational(q.numerator, q.denominator)


def sym_ceil_ln(scale: Fraction | int, x: Fraction | int) -> int:
    """The oracle: sympy's exact ceiling of scale * ln(x)."""
    return int(sympy.ceiling(R(scale) * sympy.log(R(x))))


fractions = st.builds(Fraction, st.integers(1, 10**6), st.integers(1, 10**6))


@given(fractions, fractions)
def test_ceil_scaled_ln_matches_sympy(scale: Fraction, x: Fraction) -> None:
    assert ceil_scaled_ln(scale, x) == sym_ceil_ln(scale, x)


def test_ceil_scaled_ln_edge_cases() -> None:
    assert ceil_scaled_ln(5, 1) == 0
    assert ceil_scaled_ln(Fraction(9, 2), 20) == 14
    assert ceil_scaled_ln(1, Fraction(1, 3)) == -1  # ln(1/3) = -1.0986...
    with pytest.raises(ParameterError):
        ceil_scaled_ln(0, 2)
    with pytest.raises(ParameterError):
        ceil_scaled_ln(1, 0)
    with pytest.raises(FloatParameterError):
        ceil_scaled_ln(0.5, 2)


EPS = [Fraction(1), Fraction(1, 2), Fraction(1, 10)]
BETAS = [Fraction(1, 2), Fraction(1, 20), Fraction(1, 1000)]


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("size", [5, 2**64])
def test_figure_3(eps: Fraction, beta: Fraction, size: int) -> None:
    c9 = Fraction(9, 2) / eps
    geo = figure_3("GeometricMechanism", eps, beta, size)
    assert geo.per_query == (sym_ceil_ln(2 / eps, 1 / beta), beta)
    assert geo.simultaneous[0] == sym_ceil_ln(2 / eps, size / beta)
    gs = figure_3("GeoSample", eps, beta, size)
    assert gs.per_query[0] == sym_ceil_ln(c9, 1 / beta)
    assert gs.simultaneous[0] == sym_ceil_ln(c9, size / beta)
    fs = figure_3("FastSample", eps, beta, size)
    assert fs.per_query[0] == sym_ceil_ln(c9, 2 / beta)
    assert fs.simultaneous[0] == sym_ceil_ln(c9, 2 * size / beta)
    assert fs.per_query_threshold is None and fs.privacy == f"({eps}, 0)-DP"


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize("delta", [Fraction(1, 1000), Fraction(1, 10**9)])
@pytest.mark.parametrize("n", [10, 10**6])
def test_figure_4(eps: Fraction, delta: Fraction, n: int) -> None:
    beta = Fraction(1, 20)
    c2, c9 = 2 / eps, Fraction(9, 2) / eps
    for name, c in (("GeometricMechanism", c2), ("GeoSample", c9)):
        g = figure_4(name, eps, delta, beta, n)
        assert g.threshold_b == 1 + sym_ceil_ln(c, 2 / delta)
        assert g.per_query[0] == sym_ceil_ln(c, 1 / beta)
        assert g.per_query_threshold == 2 + sym_ceil_ln(c, 2 / (beta * delta))
        assert g.simultaneous[0] == 2 + sym_ceil_ln(c, 2 * n / (beta * delta))
    f = figure_4("FastSample", eps, delta, beta, n)
    assert f.threshold_b == 1 + sym_ceil_ln(c9, 4 / delta)
    assert f.per_query[0] == sym_ceil_ln(c9, 2 / beta)
    assert f.per_query_threshold == 2 + sym_ceil_ln(c9, 8 / (beta * delta))
    assert f.simultaneous[0] == 2 + sym_ceil_ln(c9, 8 * n / (beta * delta))
    # Theorem 5.5 ii: accurate on counts > a + b; the figure's t is never below that.
    assert f.per_query_threshold is not None and f.threshold_b is not None
    assert f.per_query_threshold >= f.per_query[0] + f.threshold_b


@pytest.mark.parametrize("eps", EPS)
@pytest.mark.parametrize("beta", [Fraction(1, 2), Fraction(1, 20)])
@pytest.mark.parametrize("size", [7, 2**64])
def test_figure_5(eps: Fraction, beta: Fraction, size: int) -> None:
    c9 = Fraction(9, 2) / eps
    g = figure_5("GeoSample", eps, beta, size)
    assert g.per_query[0] == sym_ceil_ln(c9, 4 / beta)
    assert g.per_query_threshold == 2 * sym_ceil_ln(c9, 4 * size / beta)
    assert g.simultaneous[0] == 2 * sym_ceil_ln(c9, 2 * size / beta)
    f = figure_5("FastSample", eps, beta, size)
    assert f.per_query[0] == sym_ceil_ln(c9, 8 / beta)
    assert f.per_query_threshold == 2 * sym_ceil_ln(c9, 8 * size / beta)
    assert f.simultaneous[0] == 2 * sym_ceil_ln(c9, 4 * size / beta)


def test_figures_refuse_bad_parameters() -> None:
    with pytest.raises(NotInverseIntegerError):
        figure_3("GeoSample", Fraction(2, 3), Fraction(1, 10), 5)
    with pytest.raises(ParameterError):
        figure_3("Laplace", 1, Fraction(1, 10), 5)
    with pytest.raises(ParameterError):
        figure_5("GeometricMechanism", 1, Fraction(1, 10), 5)
    with pytest.raises(ParameterError):
        figure_5("GeoSample", 1, 1, 5)
    with pytest.raises(FloatParameterError):
        figure_4("FastSample", 0.1, Fraction(1, 10), Fraction(1, 10), 5)


def sym_half_min(terms: list[sympy.Expr]) -> sympy.Expr:
    return sympy.Min(*terms) / 2


def _check_bound(bound: object, expected: sympy.Expr) -> None:
    lo, hi = bound.interval.lo, bound.interval.hi  # type: ignore[attr-defined]
    assert R(lo) <= expected <= R(hi)
    assert bound.at_least == max(int(sympy.ceiling(expected)), 0)  # type: ignore[attr-defined]


@pytest.mark.parametrize("eps", [Fraction(1), Fraction(1, 10), Fraction(3, 2)])
@pytest.mark.parametrize("beta", [Fraction(1, 2), Fraction(1, 20), Fraction(1, 10**6)])
@pytest.mark.parametrize("delta", [Fraction(0), Fraction(1, 10**6)])
@pytest.mark.parametrize("n", [4, 1000])
def test_lower_bounds_match_sympy(eps: Fraction, beta: Fraction, delta: Fraction,
                                  n: int) -> None:
    e, b, d = R(eps), R(beta), R(delta)
    dterm = [] if delta == 0 else [sympy.log(e / (4 * d)) / e - 1]
    _check_bound(theorem_7_1_per_query(eps, beta, delta, n),
                 sym_half_min([sympy.log(1 / (4 * b)) / e - 1, *dterm, sympy.Integer(n)]))
    size = 2**64
    _check_bound(theorem_7_1_simultaneous(eps, beta, delta, n, size),
                 sym_half_min([sympy.log((size - 1) / (4 * b)) / e - 1, *dterm,
                               sympy.Integer(n)]))
    _check_bound(theorem_7_2_sparse(eps, beta, delta, n, size),
                 sym_half_min([sympy.log(size / (16 * b * n)) / (2 * e) - 1, *dterm,
                               sympy.Integer(n)]))


def test_lower_bound_exact_cases() -> None:
    # beta = 1/4: ln(1/(4 beta)) = 0, so the bound is (0 - 1)/2 = -1/2 exactly.
    lb = theorem_7_1_per_query(1, Fraction(1, 4), 0, 10)
    assert lb.interval.lo == lb.interval.hi == Fraction(-1, 2)
    assert lb.at_least == 0
    # The n term wins when n is small: 1/2 * n.
    lb = theorem_7_1_per_query(Fraction(1, 100), Fraction(1, 10**6), 0, 3)
    assert lb.interval.lo == lb.interval.hi == Fraction(3, 2) and lb.at_least == 2


def test_lower_bounds_refuse_bad_beta() -> None:
    with pytest.raises(ParameterError, match=r"\(0, 1/2\]"):
        theorem_7_1_per_query(1, Fraction(3, 4), 0, 5)
    with pytest.raises(ParameterError):
        theorem_7_1_simultaneous(1, Fraction(1, 4), 0, 5, 1)


def test_decimal_string() -> None:
    assert decimal_string(Fraction(1, 3)) == "0.333"
    assert decimal_string(Fraction(-7, 2)) == "-3.500"
    assert decimal_string(Fraction(22, 7), 5) == "3.14285"
