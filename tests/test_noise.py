"""exactdp.noise: randomized response, randomized rounding and the clamped two-sided geometric.

The geometric's claims (the Lemma 4.9 analogue: the implemented integer CDF equals the closed
form; monotone in u; strict time; worst centre ratio 1/r) are checked against formulas typed
here and against GeoSample (paper 004, Algorithm 4.8), an independent implementation of the
special ratio 2^k/(2^k + 1).
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import pytest

from exactdp.checker import (
    FixedSource,
    enumerate_distribution,
    is_monotone_in_u,
    threshold_distribution,
    worst_neighbour_ratio,
)
from exactdp.counting import GeoSample
from exactdp.explore import explore
from exactdp.noise import (
    ClampedGeometric,
    geometric_ratio,
    probability,
    rand_round,
    randomized_response,
)
from exactdp.params import DomainError, ParameterError, ParameterTypeError, ResourceLimitError
from exactdp.randomness import RandomSource
from exactdp.trace import recording

F = Fraction
RATIOS = [F(1, 2), F(2, 3), F(1, 3), F(3, 5), F(4, 5), F(1, 7)]


def _closed_cdf(r: Fraction, lo: int, hi: int, c: int, v: int) -> Fraction:
    """Pr[clamp_[lo,hi](c + eta) <= v] from the geometric series, typed independently:
    sum_{i >= m} (1-r)/(1+r) r^i = r^m/(1+r)."""
    if v < lo:
        return F(0)
    if v >= hi:
        return F(1)
    j = v - c
    return r ** (-j) / (1 + r) if j < 0 else 1 - r ** (j + 1) / (1 + r)


@pytest.mark.parametrize("r", RATIOS)
@pytest.mark.parametrize("lo,hi,clo,chi", [(0, 5, 0, 5), (2, 6, 0, 6), (0, 3, 0, 8),
                                           (-3, 3, -1, 1), (4, 4, 0, 6), (1, 2, 0, 0)])
def test_lemma_4_9_analogue_integer_cdf_is_the_closed_form(r: Fraction, lo: int, hi: int,
                                                           clo: int, chi: int) -> None:
    g = ClampedGeometric(r, lo, hi, clo, chi)
    a, b = r.numerator, r.denominator
    top = max(chi - lo, hi - clo, 1)
    assert g.d == (a + b) * b ** (top - 1)
    for c in range(clo, chi + 1):
        for z in range(-1, hi - lo + 2):
            assert F(g.cdf(c, z), g.d) == _closed_cdf(r, lo, hi, c, lo + z)
            assert g.cdf_exact(c, lo + z) == _closed_cdf(r, lo, hi, c, lo + z)
            if 0 <= z:
                assert g.search_cdf(c, z) == g.cdf(c, z)


@pytest.mark.parametrize("r", RATIOS[:4])
def test_interior_pmf_and_lumped_ends(r: Fraction) -> None:
    g = ClampedGeometric(r, 0, 6, 0, 6)
    for c in range(7):
        law = g.law(c)
        assert sum(law.values()) == 1
        for v in range(1, 6):
            assert law[v] == (1 - r) / (1 + r) * r ** abs(v - c)
        # the ends carry the whole tails: sum_{i >= m} of the pmf
        assert law[0] == r ** c / (1 + r)
        assert law[6] == r ** (6 - c) / (1 + r)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("n", [1, 4, 7])
def test_ratio_2k_over_2k_plus_1_is_geosample(k: int, n: int) -> None:
    geo = GeoSample(n, F(1, 2 ** (k - 1)))
    assert geo.k == k
    g = ClampedGeometric(geo.alpha, 0, n)
    assert g.d == geo.d and g.n == geo.n
    for c in range(n + 1):
        for z in range(-1, n + 2):
            assert g.cdf(c, z) == geo.cdf(c, z)
        for u in (1, 2, geo.d // 3, geo.d - 1, geo.d):
            assert g(c, u) == geo(c, u)


@pytest.mark.parametrize("r", [F(1, 2), F(2, 3), F(3, 4)])
def test_monotone_in_u_and_the_checkers_distributions_agree(r: Fraction) -> None:
    g = ClampedGeometric(r, 1, 5, 0, 5)
    assert g.d <= 1 << 14
    for c in range(6):
        assert is_monotone_in_u(g, c)
        enum = enumerate_distribution(g, c)
        assert threshold_distribution(g, c) == enum
        assert threshold_distribution(g, c, hint=False) == enum
        assert {1 + z: p for z, p in enum.items()} == g.law(c)


def _sample_at(g: ClampedGeometric, c: int, src: RandomSource) -> int:
    return g.sample_value(c, src)


def test_explored_sample_value_is_the_law() -> None:
    g = ClampedGeometric(F(3, 5), -2, 4, 0, 3)
    for c in range(4):
        dist = explore(partial(_sample_at, g, c))
        assert dist == {v: p for v, p in g.law(c).items() if p}


@pytest.mark.parametrize("r", [F(1, 2), F(2, 3), F(1, 3)])
def test_worst_ratio_of_neighbouring_centres_is_exactly_one_over_r(r: Fraction) -> None:
    g = ClampedGeometric(r, 0, 5)
    dists = [enumerate_distribution(g, c) for c in range(6)]
    assert worst_neighbour_ratio(dists).ratio == 1 / r
    assert g.privacy_ratio == 1 / r


def test_strict_time_one_draw_and_fixed_rounds_for_every_centre_and_u() -> None:
    g = ClampedGeometric(F(2, 3), 2, 9, 0, 9)

    class Tracing(RandomSource):
        def __init__(self, u: int) -> None:
            self.inner = FixedSource(u)

        def uniform(self, d: int) -> int:
            from exactdp.trace import record
            record("uniform", d)
            return self.inner.uniform(d)

    traces = set()
    for c in range(10):
        for u in (1, 2, g.d // 2, g.d - 1, g.d):
            with recording() as events:
                g.sample_value(c, Tracing(u))
            traces.add(tuple(events))
    assert len(traces) == 1
    (trace,) = traces
    assert trace[0] == ("uniform", g.d)
    assert trace[1:] == (("cdf",),) * (9 - 2).bit_length()


def test_sampled_values_stay_in_range_with_extreme_draws() -> None:
    g = ClampedGeometric(F(1, 2), 3, 7, 0, 10)
    assert g.sample_value(0, FixedSource(g.d)) == 7
    assert g.sample_value(10, FixedSource(1)) == 3
    assert g.sample_value(0, FixedSource(1)) == 3


def test_errors() -> None:
    with pytest.raises(ParameterTypeError):
        ClampedGeometric(0.5, 0, 3)
    for bad in (0, 1, F(3, 2), -F(1, 2)):
        with pytest.raises(ParameterError):
            ClampedGeometric(bad, 0, 3)
    with pytest.raises(ParameterError):
        ClampedGeometric(F(1, 2), 3, 2)
    with pytest.raises(ParameterError):
        ClampedGeometric(F(1, 2), 0, 3, 2, 1)
    with pytest.raises(ParameterTypeError):
        ClampedGeometric(F(1, 2), 0.0, 3)
    g = ClampedGeometric(F(1, 2), 0, 3, 1, 2)
    with pytest.raises(DomainError):
        g.sample_value(3)
    with pytest.raises(DomainError):
        g(0, 1)
    with pytest.raises(DomainError):
        g(1, g.d + 1)
    with pytest.raises(ParameterTypeError):
        g.pmf(True, 1)
    with pytest.raises(ResourceLimitError):
        ClampedGeometric(F(1, 3), 0, 1 << 28)
    assert geometric_ratio("2/3") == F(2, 3)


# ------------------------------------------------------------------ the coins


def test_randomized_response_and_rand_round_laws() -> None:
    p = probability(F(1, 3))
    assert explore(lambda s: randomized_response(1, p, s)) == {0: F(1, 3), 1: F(2, 3)}
    assert explore(lambda s: randomized_response(0, p, s)) == {0: F(2, 3), 1: F(1, 3)}
    assert explore(lambda s: rand_round(7, 3, s)) == {2: F(2, 3), 3: F(1, 3)}
    assert explore(lambda s: rand_round(6, 3, s)) == {2: F(1)}
    with pytest.raises(ParameterTypeError):
        probability(0.5)
    with pytest.raises(DomainError):
        probability(F(3, 2))


def _centre_checks_refuse(g: ClampedGeometric) -> list[bool]:
    """Whether ``check_counts``, ``cdf`` and ``draw`` refuse each bad centre / output."""
    out = []
    for bad in ([g.centre_hi + 1], [g.centre_lo - 1], [True], [1.0], [0, Fraction(1)]):
        try:
            g.check_counts(bad)  # type: ignore[arg-type]
            out.append(False)
        except (DomainError, ParameterTypeError):
            out.append(True)
    for c, z in ((g.centre_hi + 1, 0), (True, 0), (0, True), (0, 1.0)):
        try:
            g.cdf(c, z)  # type: ignore[arg-type]
            out.append(False)
        except (DomainError, ParameterTypeError):
            out.append(True)
    return out


def test_fast_centre_checks_refuse_what_the_slow_ones_refuse() -> None:
    """ClampedGeometric checks plain in-range int centres without ABC checks and a batch
    without building a draw per centre: bad centres, bools, floats and Fractions are still
    refused (typed errors), and valid batches come back unchanged."""
    g = ClampedGeometric(Fraction(1, 2), -3, 3, -1, 2)
    assert all(_centre_checks_refuse(g))
    assert g.check_counts([-1, 0, 2]) == [-1, 0, 2] and g.check_counts([]) == []
    assert [g.draw(c).c for c in (-1, 2)] == [-1, 2]


def test_centre_check_comparison_catches_a_planted_missing_range_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    g = ClampedGeometric(Fraction(1, 2), -3, 3, -1, 2)
    monkeypatch.setattr(ClampedGeometric, "check_counts",
                        lambda self, counts: list(counts))
    monkeypatch.setattr(ClampedGeometric, "_check_centre", lambda self, c: c)
    assert not all(_centre_checks_refuse(g))
