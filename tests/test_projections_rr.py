"""Randomized response with a rational base (paper 001, Alg 6-8; notes LILI.md §3.0, P9)."""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from exactdp.explore import explore
from exactdp.params import ParameterError, ParameterTypeError, ResourceLimitError
from exactdp.projections import Base, SmoothFlipper, base_from_eps, largest_l_max, rr_keep
from tests._sources import RecordingSource

bases = st.tuples(st.integers(2, 40), st.integers(1, 39)).filter(
    lambda t: t[0] > t[1] and Fraction(*t).numerator == t[0]).map(lambda t: Base(*t))


@given(bases, st.integers(1, 6), st.integers(-60, 60), st.integers(1, 7))
def test_smooth_flip_law_is_exactly_rho_power_law(base: Base, l_max: int, x: int,
                                                  unit: int) -> None:
    flipper = SmoothFlipper(base, l_max)
    law = explore(lambda s: flipper.sample(x, unit, s))
    # level by hand: 0 for x = 0, else ceil(|x|/unit) capped
    level = 0 if x == 0 else min(-(-abs(x) // unit), l_max)
    rho = Fraction(base.a, base.b)
    keep = rho**level / (rho**level + 1)
    s = -1 if x < 0 else 1
    assert law.get(s, 0) == keep and law.get(-s, 0) == 1 - keep
    assert 0 not in law
    assert rr_keep(base, level) == keep == Fraction(base.a**level, base.a**level + base.b**level)


def test_zero_projection_is_a_fair_coin() -> None:
    law = explore(lambda s: SmoothFlipper(Base(3, 2), 4).sample(0, 5, s))
    assert law == {-1: Fraction(1, 2), 1: Fraction(1, 2)}


@given(bases, st.integers(1, 6))
def test_common_denominator_and_thresholds(base: Base, l_max: int) -> None:
    f = SmoothFlipper(base, l_max)
    d = lcm(*(base.a**lv + base.b**lv for lv in range(l_max + 1)))
    assert f.denominator == d and d % 2 == 0
    for lv, n in enumerate(f.thresholds):
        assert Fraction(n, d) == Fraction(base.b**lv, base.a**lv + base.b**lv)


@given(bases, st.integers(1, 8), st.integers(0, 7))
def test_adjacent_levels_have_ratio_at_most_rho(base: Base, l_max: int, level: int) -> None:
    """Thm 4.7/4.8 with e^eps' -> rho: |L - L'| <= 1 gives a per-bit ratio <= rho, also at
    the cap (the rational base keeps what per-probability rounding breaks, §5 P9)."""
    rho = base.ratio
    keep_a, keep_b = (base.keep(min(v, l_max)) for v in (level, level + 1))
    assert keep_b / keep_a <= rho and keep_a / keep_b <= rho
    assert (1 - keep_a) / (1 - keep_b) <= rho and (1 - keep_b) / (1 - keep_a) <= rho


@pytest.mark.parametrize("x", [-50, -1, 0, 1, 3, 50])
def test_one_uniform_of_fixed_domain_per_bit(x: int) -> None:
    f = SmoothFlipper(Base(8, 3), 3)
    src = RecordingSource(x)
    for _ in range(5):
        f.sample(x, 2, src)
    assert src.sizes == [f.denominator] * 5


@pytest.mark.parametrize("eps, k, nmax", [(1, 1, 8), (Fraction(1, 2), 3, 20), ("2", 2, 64)])
def test_base_from_eps_rounds_the_base_down_and_is_best(eps: object, k: int, nmax: int) -> None:
    base = base_from_eps(eps, k, nmax)
    e = sympy.Rational(str(Fraction(str(eps) if isinstance(eps, str) else eps)))
    assert sympy.Rational(base.a, base.b) ** k < sympy.exp(e)
    assert base.b <= nmax
    # no a/b with b <= nmax lies between base and e^(eps/k)
    for b in range(1, nmax + 1):
        a = base.ratio * b
        nxt = int(a) + 1 if a.denominator == 1 else -(-a.numerator // a.denominator)
        if Fraction(nxt, b) > base.ratio:
            assert sympy.Rational(nxt, b) ** k > sympy.exp(e)


def test_largest_l_max_fits_the_budget() -> None:
    base = Base(3, 2)
    lm = largest_l_max(base, 64)
    assert SmoothFlipper(base, lm).denominator.bit_length() <= 64
    assert SmoothFlipper(base, lm + 1).denominator.bit_length() > 64


@pytest.mark.parametrize("call, error", [
    (lambda: Base(2, 3), ParameterError),
    (lambda: Base(4, 2), ParameterError),
    (lambda: Base(3, True), ParameterTypeError),
    (lambda: Base.of("1/2"), ParameterError),
    (lambda: Base.of(1.5), ParameterTypeError),
    (lambda: base_from_eps(0), ParameterError),
    (lambda: base_from_eps("1/1000", 1, 2), ParameterError),
    (lambda: SmoothFlipper(Base(3, 2), 0), ParameterError),
    (lambda: SmoothFlipper(Base(3, 2), 10**6), ResourceLimitError),
    (lambda: SmoothFlipper((3, 2), 2), ParameterTypeError),  # type: ignore[arg-type]
    (lambda: SmoothFlipper(Base(3, 2), 2).level(5, 0), ParameterError),
])
def test_clear_errors(call: object, error: type) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]
