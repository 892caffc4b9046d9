"""The strict-time discrete Gaussian (exactdp.discrete_gaussian): weights, law, search, strict
time, the ideal delta, errors."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import discrete_gaussian as dgm
from exactdp.discrete_gaussian import (
    MAX_TAIL,
    DiscreteGaussian,
    calibrate_sigma2,
    ideal_delta,
    tail_bound,
    weight_direct,
)
from exactdp.explore import explore
from exactdp.params import ParameterError, ParameterTypeError, ResourceLimitError
from exactdp.proofs._strict_time import compare
from exactdp.randomness import CallableSource, SeededSource
from tests.sympy_oracle import q


def sympy_weight(x: int, s2: Fraction, b: int) -> int:
    """``floor(2^b exp(-x^2/(2 s2)))`` by sympy (an oracle independent of exactdp.certified)."""
    return int(sympy.floor(sympy.Integer(2) ** b * sympy.exp(-q(Fraction(x * x)) / (2 * q(s2)))))


def test_hand_computed_weights() -> None:
    # 256 e^-1/2 = 155.27, 256 e^-2 = 34.65, 256 e^-4.5 = 2.84, 256 e^-8 = 0.086
    g = DiscreteGaussian(1, bits=8)
    assert g.tail == 3
    assert [g.weight(x) for x in range(-4, 5)] == [0, 2, 34, 155, 256, 155, 34, 2, 0]
    assert g.d == 256 + 2 * (155 + 34 + 2)
    assert g.pmf(1) == Fraction(155, 638)


@pytest.mark.parametrize("s2,b", [(Fraction(1, 3), 20), (2, 64), (Fraction(77, 10), 128),
                                  (1000, 40), (Fraction(10**6, 7), 12)])
def test_weights_equal_sympy_at_every_x(s2: int | Fraction, b: int) -> None:
    g = DiscreteGaussian(s2, bits=b)
    s2f = Fraction(s2)
    t = g.tail
    xs = range(t + 2) if t < 450 else [*range(5), t // 3, t // 2, t - 1, t, t + 1]
    for x in xs:
        assert g.weight(x) == g.weight(-x) == sympy_weight(x, s2f, b), x
    assert g.weight(t) >= 1 and sympy_weight(t + 1, s2f, b) == 0


@settings(max_examples=25, deadline=None)
@given(num=st.integers(1, 5000), den=st.integers(1, 50), b=st.integers(1, 160),
       x=st.integers(0, 400))
def test_table_weights_equal_the_direct_route(num: int, den: int, b: int, x: int) -> None:
    g = DiscreteGaussian(Fraction(num, den), bits=b)
    assert g.weight(x) == weight_direct(x, Fraction(num, den), b)
    assert g.tail <= tail_bound(Fraction(num, den), b)


def test_undecided_weights_go_the_direct_route(monkeypatch: pytest.MonkeyPatch) -> None:
    # with no guard bits at all the two bounds disagree often; the weights must not change
    want = DiscreteGaussian(Fraction(500, 3), bits=64).half_weights
    calls: list[int] = []
    real = dgm._floor_scaled

    def counted(x: int, s2: Fraction, b: int) -> int:
        calls.append(x)
        return real(x, s2, b)

    monkeypatch.setattr(dgm, "_floor_scaled", counted)
    monkeypatch.setattr(dgm, "_GUARD", -8)
    assert DiscreteGaussian(Fraction(500, 3), bits=64).half_weights == want
    assert calls  # the direct route was taken


@pytest.mark.parametrize("s2", [Fraction(1, 2), 3, Fraction(25, 4)])
def test_explored_law_is_the_claimed_law(s2: object) -> None:
    g = DiscreteGaussian(s2, bits=16)
    weights = {x: g.weight(x) for x in range(-g.tail, g.tail + 1)}
    total = sum(weights.values())
    for c in (0, 5, -3):
        law = explore(lambda src, c=c: g.add(c, src))  # type: ignore[misc]
        assert law == {c + x: Fraction(w, total) for x, w in weights.items()}


def test_search_is_the_smallest_z_with_cdf_at_least_u() -> None:
    g = DiscreteGaussian(Fraction(3, 2), bits=6)
    d = g.d
    for u in range(1, d + 1):
        assert g.search(u) == min(z for z in range(g.n + 1) if g.cdf(z) >= u)


@settings(max_examples=30, deadline=None)
@given(u=st.integers(1, 10**60), c=st.integers(-10**6, 10**6))
def test_search_at_large_sigma(u: int, c: int) -> None:
    g = DiscreteGaussian(10**4)
    u = 1 + (u - 1) % g.d
    z = g.search(u)
    assert g.cdf(z) >= u and (z == 0 or g.cdf(z - 1) < u)
    assert g.add(c, CallableSource(lambda d: u)) == c + z - g.tail


def test_strict_time_traces_equal_across_centres_and_outputs() -> None:
    g = DiscreteGaussian(10**6)
    rounds = (g.n + 1).bit_length()
    inputs = [(str(c), lambda src, c=c: g.add(c, src)) for c in (0, 1, -7, 10**9)]
    cmp = compare(inputs, ("low", "high", "seed:1"), across_coins=True)
    assert cmp.ok and cmp.trace_length == 1 + rounds


def test_sampling_is_roughly_centred() -> None:
    g = DiscreteGaussian(100)
    src = SeededSource(3)
    xs = [g.sample(src) for _ in range(2000)]
    assert abs(sum(xs)) < 2000 * 2 and max(map(abs, xs)) <= g.tail
    var = Fraction(sum(x * x for x in xs), len(xs))
    assert 80 < var < 120


def _ideal_delta_mpmath(s2: Fraction, eps: Fraction, shift: int) -> mpmath.mpf:
    with mpmath.workdps(60):
        s = mpmath.mpf(s2.numerator) / s2.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator
        top = int(60 * mpmath.sqrt(s)) + 60

        def tail(a: mpmath.mpf) -> mpmath.mpf:
            m = int(mpmath.floor(a)) + 1
            return mpmath.fsum(mpmath.exp(-mpmath.mpf(x * x) / (2 * s))
                               for x in range(max(m, -top), top + 1))

        norm = tail(mpmath.mpf(-top - 1))
        a1 = e * s / shift - mpmath.mpf(shift) / 2
        a2 = e * s / shift + mpmath.mpf(shift) / 2
        return (tail(a1) - mpmath.exp(e) * tail(a2)) / norm


@pytest.mark.parametrize("s2,eps,shift", [(1, Fraction(1, 2), 1), (Fraction(49, 4), 1, 2),
                                          (400, Fraction(1, 10), 1), (4, 5, 3)])
def test_ideal_delta_contains_the_mpmath_value(s2: int | Fraction, eps: int | Fraction,
                                               shift: int) -> None:
    box = ideal_delta(s2, eps, shift)
    ref = _ideal_delta_mpmath(Fraction(s2), Fraction(eps), shift)
    with mpmath.workdps(60):
        lo = mpmath.mpf(box.lo.numerator) / box.lo.denominator
        hi = mpmath.mpf(box.hi.numerator) / box.hi.denominator
        assert lo <= ref <= hi
        assert hi - lo < mpmath.mpf(10) ** -25


def test_errors_are_typed_and_clear() -> None:
    with pytest.raises(ParameterTypeError, match="sigma2"):
        DiscreteGaussian(2.5)
    with pytest.raises(ParameterError, match="sigma2 = 0 must be positive"):
        DiscreteGaussian(0)
    with pytest.raises(ParameterTypeError, match="bits"):
        DiscreteGaussian(1, bits=True)
    with pytest.raises(ParameterError, match="bits = 0"):
        DiscreteGaussian(1, bits=0)
    with pytest.raises(ParameterTypeError, match="c = "):
        DiscreteGaussian(1).add(1.0)  # type: ignore[arg-type]
    with pytest.raises(ResourceLimitError, match="MAX_TAIL"):
        DiscreteGaussian(10**11)
    with pytest.raises(ParameterError, match="shift"):
        ideal_delta(1, 1, 0)
    assert tail_bound(10**9) <= MAX_TAIL


def test_calibration_is_certified_but_delta_is_not_monotone_in_sigma2() -> None:
    """eps = 10, delta = 1e-5: the ideal delta (mpmath, independent of the code) meets the
    target at 5/32, misses it at 3/16 and 15/64, meets it again at 1/4.  The default search
    returns a certified point whose predecessor fails; least=True the least one of the grid."""
    eps, target, step = Fraction(10), Fraction(1, 10**5), Fraction(1, 64)
    with mpmath.workdps(60):
        goal = mpmath.mpf(1) / 10**5

        def meets(s2: Fraction) -> bool:
            return bool(_ideal_delta_mpmath(s2, eps, 1) <= goal)

        assert meets(Fraction(5, 32)) and not meets(Fraction(3, 16))
        assert not meets(Fraction(15, 64)) and meets(Fraction(1, 4))
        smallest = next(m * step for m in range(1, 64) if meets(m * step))
        got = calibrate_sigma2(eps, target)
        assert meets(got) and not meets(got - step)
        assert ideal_delta(got, eps).hi <= target
        assert got > smallest  # the bisection stepped over the smaller certified point
        assert calibrate_sigma2(eps, target, least=True) == smallest
        assert calibrate_sigma2(1, Fraction(1, 1000), least=True) == next(
            m * step for m in range(1, 1000)
            if _ideal_delta_mpmath(m * step, Fraction(1), 1) <= mpmath.mpf(1) / 1000)
    with pytest.raises(ParameterTypeError, match="least"):
        calibrate_sigma2(eps, target, least=1)
