"""Tests of exactdp.mixing: Algorithm 3.1 (mix) and condition (1) of Lemma 3.2.

The boundary of condition (1), ``(e**eps - 1)/(e**eps + 1) * gamma/(1 - gamma) * p``, is
computed independently with sympy; ``_sympy_sign`` decides signs with
``evalf(strict=True)`` (guaranteed correct digits, or an exception), treating a ``0``
result as undecided (see tests/test_certified.py for why).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy_oracle import q as _q
from sympy_oracle import sympy_sign as _sympy_sign

from exactdp.checker import counting_distribution, statistical_distance
from exactdp.counting import FastSample, GeoSample
from exactdp.explore import explore
from exactdp.mixing import Lemma32Condition, lemma_3_2_condition, mix, uniform_on_counts
from exactdp.params import FloatParameterError, NotInverseIntegerError, ParameterError
from exactdp.randomness import CallableSource, RandomSource


def _boundary(eps: Fraction, gamma: Fraction, p: Fraction) -> sympy.Expr:
    """The right-hand side of (1), Lemma 3.2, as an exact sympy expression."""
    e = sympy.exp(_q(eps))
    return (e - 1) / (e + 1) * _q(gamma) / (1 - _q(gamma)) * _q(p)


def _nonzero(dist: dict[int, Fraction]) -> dict[int, Fraction]:
    return {k: v for k, v in dist.items() if v}


# ---------------------------------------------------------------- Algorithm 3.1


def _release(src: RandomSource) -> int:
    return src.uniform(3) + src.uniform(2)  # {2..5}


def _fallback(src: RandomSource) -> int:
    return 4 + src.uniform(4)  # {5..8}, overlapping the release at 5


@given(st.integers(min_value=1, max_value=50))
def test_mix_is_exact_mixture(g: int) -> None:
    gamma = Fraction(1, g)
    p_release, p_fallback = explore(_release), explore(_fallback)
    mixed = explore(lambda s: mix(_release, _fallback, gamma, s))
    expected: dict[int, Fraction] = {}
    for dist, w in ((p_release, 1 - gamma), (p_fallback, gamma)):
        for z, p in dist.items():
            expected[z] = expected.get(z, Fraction(0)) + w * p
    assert mixed == _nonzero(expected)


def test_mix_coin_is_one_draw_of_size_one_over_gamma() -> None:
    seen: list[int] = []

    def draw(d: int) -> int:
        seen.append(d)
        return d  # u = g: bernoulli(g - 1, g) is False, so the fallback runs

    out = mix(lambda s: ("release", s.uniform(7)), lambda s: ("fallback", s.uniform(5)),
              "1/9", CallableSource(draw))
    assert out == ("fallback", 5)
    assert seen == [9, 5]
    seen.clear()
    out = mix(lambda s: ("release", s.uniform(7)), lambda s: ("fallback", s.uniform(5)),
              "1/9", CallableSource(lambda d: seen.append(d) or 1))  # type: ignore[func-returns-value]
    assert out == ("release", 1)
    assert seen == [9, 7]


def test_mix_default_source() -> None:
    assert mix(lambda s: s.uniform(2), lambda s: 10, Fraction(1, 3)) in {1, 2, 10}


@pytest.mark.parametrize(("gamma", "error"), [(0.5, FloatParameterError),
                                              (Fraction(2, 3), NotInverseIntegerError),
                                              (0, ParameterError)])
def test_mix_bad_gamma(gamma: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="gamma"):
        mix(_release, _fallback, gamma)


@given(st.integers(min_value=0, max_value=30))
def test_uniform_on_counts(n: int) -> None:
    assert explore(uniform_on_counts(n)) == {z: Fraction(1, n + 1) for z in range(n + 1)}


@pytest.mark.parametrize(("n", "m", "g"), [(1, 1, 2), (4, 1, 2), (6, 2, 4), (5, 4, 8)])
def test_mix_of_truncated_and_uniform_is_fastsample(n: int, m: int, g: int) -> None:
    # Lemma 4.12 ii, as Algorithm 3.1 run under exploration: mixing M' = Z' clamped
    # (FastSample.truncated()) with Unif([n]) gives exactly FastSample's distribution.
    mech = FastSample(n, Fraction(1, m), Fraction(1, g))
    trunc = mech.truncated()
    for c in range(n + 1):
        def algorithm_3_1(src: RandomSource, c: int = c) -> int:
            return mix(lambda s2: trunc.sample(c, s2), uniform_on_counts(n), Fraction(1, g), src)

        mixed = explore(algorithm_3_1)
        assert mixed == _nonzero(counting_distribution(mech, c))


# ---------------------------------------------------------------- Lemma 3.2 condition (1)


@pytest.mark.parametrize(("eps", "gamma", "p"), [
    (Fraction(1), Fraction(1, 2), Fraction(1, 5)),
    (Fraction(1, 2), Fraction(1, 10), Fraction(1, 3)),
    (Fraction(1, 1000), Fraction(1, 2**40), Fraction(1, 10**6 + 1)),
    (Fraction(5), Fraction(1, 3), Fraction(1)),
])
@pytest.mark.parametrize("digits", [10, 40])
def test_lemma_3_2_condition_on_both_sides_of_the_boundary(
        eps: Fraction, gamma: Fraction, p: Fraction, digits: int) -> None:
    bound = _boundary(eps, gamma, p)
    close = Fraction(str(sympy.N(bound, digits + 20)))
    below = close * (1 - Fraction(1, 10**digits))
    above = close * (1 + Fraction(1, 10**digits))
    assert _sympy_sign(bound - _q(below)) == 1
    assert _sympy_sign(_q(above) - bound) == 1
    yes = lemma_3_2_condition(below, eps, gamma, p)
    no = lemma_3_2_condition(above, eps, gamma, p)
    assert isinstance(yes, Lemma32Condition)
    assert yes.holds is True and yes.delta == below
    assert no.holds is False and no.delta == above
    for res in (yes, no):
        assert _sympy_sign(bound - _q(res.rhs_lower)) >= 0
        assert _sympy_sign(_q(res.rhs_upper) - bound) >= 0


def test_lemma_3_2_condition_delta_zero_always_holds() -> None:
    assert lemma_3_2_condition(0, Fraction(1, 10**6), Fraction(1, 10**6), Fraction(1, 10**6)).holds


@given(st.fractions(min_value=Fraction(1, 100), max_value=3, max_denominator=100),
       st.integers(min_value=2, max_value=1000), st.integers(min_value=1, max_value=1000),
       st.fractions(min_value=0, max_value=Fraction(1, 2), max_denominator=10**6))
def test_lemma_3_2_condition_vs_sympy(eps: Fraction, g: int, r: int, delta: Fraction) -> None:
    gamma, p = Fraction(1, g), Fraction(1, r)
    res = lemma_3_2_condition(delta, eps, gamma, p)
    assert res.holds == (_sympy_sign(_boundary(eps, gamma, p) - _q(delta)) >= 0)


@pytest.mark.parametrize("args", [
    (1, 1, Fraction(1, 2), Fraction(1, 2)),          # delta >= 1
    (-1, 1, Fraction(1, 2), Fraction(1, 2)),         # delta < 0
    (0, 0, Fraction(1, 2), Fraction(1, 2)),          # eps <= 0
    (0, 1, 1, Fraction(1, 2)),                       # gamma = 1
    (0, 1, 0, Fraction(1, 2)),                       # gamma = 0
    (0, 1, Fraction(1, 2), 0),                       # min_prob = 0
    (0, 1, Fraction(1, 2), 2),                       # min_prob > 1
])
def test_lemma_3_2_condition_bad_input(args: tuple[object, ...]) -> None:
    with pytest.raises(ParameterError, match="Lemma 3.2"):
        lemma_3_2_condition(*args)


def test_lemma_3_2_condition_float_rejected() -> None:
    with pytest.raises(FloatParameterError, match="delta"):
        lemma_3_2_condition(0.001, 1, Fraction(1, 2), Fraction(1, 2))


# ---------------------------------------------------------------- Theorem 4.10 i via Lemma 3.2


@pytest.mark.parametrize(("n", "m", "g"), [(3, 1, 2), (5, 2, 4), (4, 4, 16)])
def test_fastsample_privacy_through_lemma_3_2(n: int, m: int, g: int) -> None:
    # Proof of Theorem 4.10 i: Delta(Z' clamped, GeoSample) <= Pr[|Z - c| > t] and this
    # delta satisfies (1) with eps/2 (GeoSample is (eps~/2, 0)-DP and eps~ <= eps) and
    # D = Unif([n]).  Both distances exact; Pr[|Z - c| > t] from Section 4.1's pmf.
    eps, gamma = Fraction(1, m), Fraction(1, g)
    fast = FastSample(n, eps, gamma)
    geo = GeoSample(n, eps)
    k, t = fast.k, fast.t
    x = 1 + Fraction(1, 2**k)  # e**(eps~/2)
    kept = sum(((x - 1) / (x + 1) * x ** (-abs(j)) for j in range(-t, t + 1)), Fraction(0))
    tail = 1 - kept  # Pr[|Z - c| > t]
    worst = Fraction(0)
    for c in range(n + 1):
        sd = statistical_distance(counting_distribution(fast.truncated(), c),
                                  counting_distribution(geo, c))
        assert sd <= tail
        worst = max(worst, sd)
    assert lemma_3_2_condition(worst, eps / 2, gamma, Fraction(1, n + 1)).holds
    assert lemma_3_2_condition(tail, eps / 2, gamma, Fraction(1, n + 1)).holds
