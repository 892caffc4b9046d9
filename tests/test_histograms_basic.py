"""BasicHistogram (Algorithm 5.1) and StabilityHistogram (Algorithm 5.4)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from exactdp.checker import counting_distribution
from exactdp.counting import FastSample, GeoSample
from exactdp.explore import explore
from exactdp.histograms.basic import (
    MAX_BASIC_BINS,
    BasicHistogram,
    StabilityHistogram,
    theorem_5_3_gamma,
    theorem_5_6_gamma,
    theorem_5_6_threshold,
)
from exactdp.histograms.data import Dataset, Universe
from exactdp.params import (
    FloatParameterError,
    NotInverseIntegerError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.randomness import RandomSource, SeededSource
from exactdp.trace import record, recording


class TracedSeeded(SeededSource):
    def uniform(self, d: int) -> int:
        record("uniform", d)
        return super().uniform(d)


def trace(release: object, data: Dataset, seed: int = 7) -> tuple[object, ...]:
    with recording() as events:
        release(data, TracedSeeded(seed))  # type: ignore[operator]
    return tuple(events)


# ----------------------------------------------------------------------------- Basic


@pytest.mark.parametrize("mech", [GeoSample(2, 1), FastSample(2, Fraction(1, 2),
                                                              Fraction(1, 4))])
@pytest.mark.parametrize("rows", [(1, 1), (1, 3), (2, 3)])
def test_basic_is_product_of_mechanism_distributions(mech: object, rows: tuple[int, ...]) -> None:
    universe = Universe(3)
    alg = BasicHistogram(mech, universe)  # type: ignore[arg-type]
    data = Dataset.of(universe, rows)
    got = explore(lambda s: alg.release(data, s).bins)
    margins = [counting_distribution(mech, rows.count(x)) for x in (1, 2, 3)]  # type: ignore[arg-type]
    expected = {}
    for zs in product(range(3), repeat=3):
        p = margins[0][zs[0]] * margins[1][zs[1]] * margins[2][zs[2]]
        if p:
            expected[tuple(zip((1, 2, 3), zs))] = p
    assert got == expected


def test_basic_over_a_subset_lists_exactly_that_subset() -> None:
    universe = Universe(2**64)
    alg = BasicHistogram(GeoSample(3, 1), universe, [2**63, 5, 5, 17])
    h = alg.release(Dataset.of(universe, [5, 5, 9]), SeededSource(1))
    assert [x for x, _ in h.bins] == [5, 17, 2**63]
    assert h.algorithm == "BasicHistogram" and h.fallback is None


def test_basic_traces_do_not_depend_on_the_data() -> None:
    universe = Universe(6)
    alg = BasicHistogram(FastSample(3, 1, Fraction(1, 10)), universe)
    traces = {trace(alg.release, Dataset.of(universe, rows))
              for rows in [(1, 1, 1), (1, 2, 3), (4, 5, 6), (6, 6, 1)]}
    assert len(traces) == 1


def test_basic_refuses_mismatches() -> None:
    universe = Universe(4)
    alg = BasicHistogram(GeoSample(2, 1), universe)
    with pytest.raises(ParameterError, match="n = 3 rows"):
        alg.release(Dataset.of(universe, [1, 2, 3]))
    with pytest.raises(ParameterError, match="universe"):
        alg.release(Dataset.of(5, [1, 2]))
    with pytest.raises(ResourceLimitError, match="StabilityHistogram or PureSparseHistogram"):
        BasicHistogram(GeoSample(2, 1), Universe(MAX_BASIC_BINS + 1))
    with pytest.raises(ParameterTypeError):
        BasicHistogram("GeoSample", universe)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        BasicHistogram(GeoSample(2, 1), universe, [0])


def test_theorem_5_3_parameters() -> None:
    universe = Universe(1000)
    assert theorem_5_3_gamma(Fraction(1, 20), universe) == Fraction(1, 40000)
    alg = BasicHistogram.theorem_5_3(universe, 5, Fraction(1, 2), Fraction(1, 20))
    assert isinstance(alg.mechanism, FastSample)
    assert alg.mechanism.gamma == Fraction(1, 40000)
    with pytest.raises(NotInverseIntegerError):
        theorem_5_3_gamma(Fraction(2, 5), universe)


# ----------------------------------------------------------------------------- Stability


@pytest.mark.parametrize("mech", [GeoSample(3, 1), FastSample(3, 1, Fraction(1, 2))])
@pytest.mark.parametrize("b", [0, 1, 2, 3])
def test_certified_delta_is_twice_the_tail_read_off_the_mechanism(mech: object, b: int) -> None:
    alg = StabilityHistogram(mech, Universe(4), b)  # type: ignore[arg-type]
    dist1 = counting_distribution(mech, 1)  # type: ignore[arg-type]
    assert alg.certified_delta() == 2 * sum(p for z, p in dist1.items() if z > b)


def test_stability_releases_only_counts_above_b_sorted() -> None:
    universe = Universe(2**64)
    n = 50
    alg = StabilityHistogram(GeoSample(n, 1), universe, 10)
    rows = [2**60] * 30 + [7] * 15 + list(range(100, 105))
    for seed in range(5):
        h = alg.release(Dataset.of(universe, rows), SeededSource(seed))
        assert all(c > 10 for _, c in h.bins)
        assert {x for x, _ in h.bins} <= {2**60, 7}
        assert list(h.bins) == sorted(h.bins)


@pytest.mark.parametrize("rows", [(1, 1, 1), (1, 1, 2), (1, 2, 3)])
def test_stability_padded_equals_unpadded(rows: tuple[int, ...]) -> None:
    universe = Universe(4)
    mech = FastSample(3, 1, Fraction(1, 2))
    data = Dataset.of(universe, rows)
    padded = StabilityHistogram(mech, universe, 1, padded=True)
    plain = StabilityHistogram(mech, universe, 1, padded=False)
    assert explore(lambda s: padded.release(data, s).bins) == \
        explore(lambda s: plain.release(data, s).bins)


def test_stability_padding_makes_traces_input_independent() -> None:
    universe = Universe(2**64)
    mech = FastSample(4, Fraction(1, 2), Fraction(1, 100))
    padded = StabilityHistogram(mech, universe, 2)
    plain = StabilityHistogram(mech, universe, 2, padded=False)
    sets = [(5, 5, 5, 5), (1, 2, 3, 4), (9, 9, 2**64, 1)]
    assert len({trace(padded.release, Dataset.of(universe, r)) for r in sets}) == 1
    # As printed, the number of draws is |A|: the trace reveals the number of distinct rows.
    assert len({trace(plain.release, Dataset.of(universe, r)) for r in sets}) == 3


def test_stability_with_b_at_least_n_is_always_empty() -> None:
    universe = Universe(3)
    alg = StabilityHistogram(GeoSample(2, 1), universe, 2)
    assert alg.certified_delta() == 0
    assert explore(lambda s: alg.release(Dataset.of(universe, [1, 1]), s).bins) == \
        {(): Fraction(1)}


def sym_ceil_ln(scale: Fraction, x: Fraction) -> int:
    return int(sympy.ceiling(sympy.Rational(scale.numerator, scale.denominator)
                             * sympy.log(sympy.Rational(x.numerator, x.denominator))))


@given(st.integers(1, 200), st.integers(2, 10**9), st.integers(1, 10**4),
       st.integers(1, 10**6))
def test_theorem_5_6_parameters(m: int, k: int, bm: int, n: int) -> None:
    eps, delta, beta0 = Fraction(1, m), Fraction(1, k), Fraction(1, bm)
    gamma = theorem_5_6_gamma(beta0, delta, n)
    assert gamma == min(beta0 / (2 * n), delta / 4) and gamma.numerator == 1
    assert theorem_5_6_threshold(eps, delta) == 1 + sym_ceil_ln(Fraction(9, 2) / eps, 4 / delta)


@pytest.mark.parametrize("n", [10, 1000])
@pytest.mark.parametrize("k", [10**3, 10**9])
def test_theorem_5_6_condition_holds(n: int, k: int) -> None:
    alg = StabilityHistogram.theorem_5_6(Universe(2**64), n, Fraction(1, 2), Fraction(1, k),
                                         Fraction(1, 20))
    assert alg.certified_delta() <= Fraction(1, k)


def test_stability_parameter_errors() -> None:
    u = Universe(10)
    with pytest.raises(FloatParameterError, match="Fraction"):
        StabilityHistogram.theorem_5_6(u, 5, 0.1, Fraction(1, 10), Fraction(1, 10))
    with pytest.raises(NotInverseIntegerError):
        StabilityHistogram.theorem_5_6(u, 5, Fraction(1, 10), Fraction(3, 10), Fraction(1, 10))
    with pytest.raises(ParameterError, match="below 1"):  # delta = 1 promises nothing
        StabilityHistogram.theorem_5_6(u, 5, Fraction(1, 10), 1, Fraction(1, 10))
    with pytest.raises(ParameterError, match="threshold"):
        StabilityHistogram(GeoSample(3, 1), u, -1)
    with pytest.raises(ParameterError):
        StabilityHistogram(GeoSample(3, 1), u, 2).release(Dataset.of(u, [1]))


def test_progress_callback_is_called() -> None:
    universe = Universe(2**64)
    seen: list[tuple[int, int]] = []
    alg = StabilityHistogram(GeoSample(300, 1), universe, 3)
    alg.release(Dataset.of(universe, range(1, 301)), SeededSource(2),
                lambda done, total: seen.append((done, total)))
    assert seen[-1] == (300, 300) and len(seen) >= 10


def test_default_source_is_the_os() -> None:
    class Counting(RandomSource):
        calls = 0

        def uniform(self, d: int) -> int:
            Counting.calls += 1
            return 1

    universe = Universe(3)
    BasicHistogram(GeoSample(1, 1), universe).release(Dataset.of(universe, [2]), Counting())
    assert Counting.calls == 3
    h = BasicHistogram(GeoSample(1, 1), universe).release(Dataset.of(universe, [2]))
    assert len(h) == 3


@given(st.integers(1, 60), st.integers(1, 12), st.integers(2, 10**6), st.data())
def test_fastsample_gmp_search_is_the_same_function(n: int, m: int, g: int,
                                                    data: st.DataObject) -> None:
    # FastSample's faster search (gmpy2 F, used by the histograms' many draws) must be the
    # same function M(c, u) as the plain search over the integer CDF.
    from exactdp.counting import inverse_cdf_search

    mech = FastSample(n, Fraction(1, m), Fraction(1, g))
    c = data.draw(st.integers(0, n))
    z = data.draw(st.integers(0, n))
    assert int(mech._gmp_cdf(c, z)) == mech.cdf(c, z)
    points = [1, mech.d, data.draw(st.integers(1, mech.d))]
    points += [f + e for f in (mech.cdf(c, y) for y in range(n + 1)) for e in (0, 1)
               if 1 <= f + e <= mech.d]
    for u in points:
        assert mech(c, u) == inverse_cdf_search(lambda y: mech.cdf(c, y), n, u)


@pytest.mark.parametrize("n", [1, 10, 1000])
def test_delta_hypothesis_decided_without_reducing_fractions(n: int) -> None:
    """Theorem 5.5 (i)'s hypothesis by one integer comparison, equal to the exact Fraction
    decision; the printed dyadic bound lies above the exact value and within 2^-64 of it."""
    alg = StabilityHistogram.theorem_5_6(Universe(2**64), n, Fraction(1, 2), Fraction(1, 10**6),
                                         Fraction(1, 20))
    exact = alg.certified_delta()
    for delta in (exact, exact * Fraction(999, 1000), Fraction(1, 10**6), Fraction(1, 10**30)):
        if delta > 0:
            assert alg.delta_at_most(delta) == (exact <= delta)
    upper = alg.certified_delta_upper()
    assert exact <= upper <= exact * (1 + Fraction(1, 2**64))
