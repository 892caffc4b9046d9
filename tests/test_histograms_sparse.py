"""KeepHeavy, KH', SparseHistogram and PureSparseHistogram (Section 6)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.checker import statistical_distance
from exactdp.counting import FastSample, GeoSample
from exactdp.explore import explore
from exactdp.histograms.basic import BasicHistogram
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.sparse import (
    KEEP_HEAVY_LIMIT,
    KeepHeavy,
    KHPrime,
    PureSparseHistogram,
    SparseHistogram,
    fallback_reason,
    keep_heaviest,
    pure_sparse_delta,
    uniform_sparse_histogram,
)
from exactdp.params import (
    FloatParameterError,
    NotInverseIntegerError,
    ParameterError,
    ResourceLimitError,
)
from exactdp.randomness import SeededSource
from exactdp.trace import record, recording


class TracedSeeded(SeededSource):
    def uniform(self, d: int) -> int:
        record("uniform", d)
        return super().uniform(d)


def bins_of(release: object, data: Dataset) -> dict:
    return explore(lambda s: release(data, s).bins)  # type: ignore[operator]


# ----------------------------------------------------------------------------- keep_heaviest


def test_keep_heaviest_keeps_strictly_heavier_than_the_n_plus_1_th() -> None:
    u = Universe(9)
    assert keep_heaviest(u, 1, [(4, 1), (2, 1), (9, 0)], "t").bins == ()  # 2nd largest is 1
    cands = [(4, 2), (2, 2), (7, 1), (9, 0)]
    assert keep_heaviest(u, 2, cands, "t").bins == ((2, 2), (4, 2))  # 3rd largest is 1
    assert keep_heaviest(u, 3, [*cands, (5, 3)], "t").bins == ((2, 2), (4, 2), (5, 3))
    with pytest.raises(ParameterError):
        keep_heaviest(u, 4, cands, "t")


@given(st.data(), st.integers(1, 6))
def test_keep_heaviest_properties(data: st.DataObject, n: int) -> None:
    cands = data.draw(st.lists(st.tuples(st.integers(1, 50), st.integers(0, n)),
                               min_size=n + 1, max_size=20, unique_by=lambda t: t[0]))
    h = keep_heaviest(Universe(50), n, cands, "t")
    assert len(h) <= n
    kept = dict(h.bins)
    values = sorted((c for _, c in cands), reverse=True)
    for x, c in cands:
        assert (x in kept) == (c > values[n])


# ----------------------------------------------------------------------------- KeepHeavy, KH'


def test_khprime_refuses_huge_universes() -> None:
    with pytest.raises(ResourceLimitError, match="SparseHistogram"):
        KHPrime(GeoSample(3, 1), Universe(2**64))


def test_sparse_refuses_hopeless_sizes() -> None:
    with pytest.raises(ResourceLimitError, match="StabilityHistogram"):
        PureSparseHistogram.theorem_6_11(Universe(2**64), 40_000, 1, Fraction(1, 20))


def test_keep_heavy_limits() -> None:
    with pytest.raises(ResourceLimitError):
        KeepHeavy(GeoSample(1, 1), Universe(KEEP_HEAVY_LIMIT + 1))
    with pytest.raises(ParameterError, match="n \\+ 1"):
        KeepHeavy(GeoSample(3, 1), Universe(3))


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("rows", [(1,), (3,)])
@pytest.mark.parametrize("size", [3, 4])
def test_khprime_equals_keepheavy(strict: bool, rows: tuple[int, ...], size: int) -> None:
    # Proposition 6.5 on a few cases (the proof module covers the grid).
    u = Universe(size)
    mech = FastSample(1, 1, Fraction(1, 3))
    data = Dataset.of(u, rows)
    assert bins_of(KHPrime(mech, u, strict).release, data) == \
        bins_of(KeepHeavy(mech, u).release, data)


def test_sparse_is_close_to_khprime() -> None:
    u = Universe(5)
    mech = GeoSample(2, 1)
    data = Dataset.of(u, (2, 2))
    kh = bins_of(KHPrime(mech, u, strict=False).release, data)
    for delta in (Fraction(1, 2), Fraction(1, 8)):
        sp = bins_of(SparseHistogram(mech, u, delta, strict=False).release, data)
        assert 0 < statistical_distance(kh, sp) <= delta


def test_sparse_s_is_the_papers() -> None:
    sp = SparseHistogram(GeoSample(3, 1), Universe(2**64), Fraction(1, 1000))
    assert sp.s == (9 + 6) * 2**64 * 1000
    with pytest.raises(NotInverseIntegerError):
        SparseHistogram(GeoSample(3, 1), Universe(10), Fraction(2, 3))



def test_sparse_order_statistics_are_unpadded_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Default SparseHistogram runs Algorithm 6.21 as printed (ApproxOrdSample unpadded); the
    padded worst-case schedule, n times slower, is opt-in (module docstring)."""
    from exactdp.histograms import sparse
    seen: list[bool] = []
    real = sparse.approx_ord_sample

    def spy(*args: object, **kwargs: object) -> tuple[int, ...]:
        seen.append(bool(args[6]))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sparse, "approx_ord_sample", spy)
    u, mech = Universe(64), GeoSample(2, 1)
    data = Dataset.of(u, (3, 3))
    for hist, padded in ((SparseHistogram(mech, u, Fraction(1, 4)), False),
                         (SparseHistogram(mech, u, Fraction(1, 4), strict=False), False),
                         (SparseHistogram(mech, u, Fraction(1, 4),
                                          padded_order_statistics=True), True)):
        seen.clear()
        assert hist.padded_order_statistics is padded
        hist.release(data, SeededSource(1))
        assert seen == [padded]


# ----------------------------------------------------------------------------- fallback


@pytest.mark.parametrize("make", [
    lambda m, u: KHPrime(m, u), lambda m, u: SparseHistogram(m, u, Fraction(1, 4)),
    lambda m, u: PureSparseHistogram(m, u, 1, Fraction(1, 4))])
def test_small_universe_falls_back_to_basic(make: object) -> None:
    u = Universe(4)  # < 2n + 1 = 5
    mech = GeoSample(2, 1)
    alg = make(mech, u)  # type: ignore[operator]
    data = Dataset.of(u, (1, 3))
    h = alg.release(data, SeededSource(3))
    assert h.fallback is not None and "BasicHistogram" in h.fallback and "2n + 1 = 5" in h.fallback
    assert [x for x, _ in h.bins] == [1, 2, 3, 4]
    assert bins_of(alg.release, data) == bins_of(BasicHistogram(mech, u).release, data)


def test_fallback_reason() -> None:
    assert fallback_reason(Universe(5), 2) is None
    assert fallback_reason(Universe(4), 2) is not None


# ----------------------------------------------------------------------------- strict time


def traces(alg: object, universe: Universe, datasets: list[tuple[int, ...]]) -> set:
    out = set()
    for rows in datasets:
        with recording() as events:
            alg.release(Dataset.of(universe, rows), TracedSeeded(11))  # type: ignore[attr-defined]
        out.add(tuple(events))
    return out


DATASETS: list[tuple[int, ...]] = [(5, 5, 5), (1, 2, 3), (7, 7, 2**64), (2**63, 1, 1)]


@pytest.mark.parametrize("make", [
    lambda u, strict: SparseHistogram(GeoSample(3, 1), u, Fraction(1, 10), strict),
    lambda u, strict: PureSparseHistogram.theorem_6_11(u, 3, 1, Fraction(1, 1000),
                                                       "fastsample", strict)])
def test_strict_mode_traces_do_not_depend_on_the_data(make: object) -> None:
    u = Universe(2**64)
    assert len(traces(make(u, True), u, DATASETS)) == 1  # type: ignore[operator]
    # As printed (strict=False), the operations depend on |A|.
    assert len(traces(make(u, False), u, DATASETS)) > 1  # type: ignore[operator]


def test_khprime_strict_traces_small_universe() -> None:
    u = Universe(9)
    alg = KHPrime(GeoSample(2, 1), u, strict=True)
    assert len(traces(alg, u, [(1, 1), (1, 2), (9, 3)])) == 1


# ----------------------------------------------------------------------------- PureSparse


def test_pure_sparse_delta() -> None:
    d = pure_sparse_delta(Fraction(1, 2), Fraction(1, 4), 5, 2)
    assert d == Fraction(1, 2 * 3 * 4 * 15 * 15)
    assert pure_sparse_delta(1, Fraction(1, 2), 2**64, 10).numerator == 1


def test_uniform_branch_distribution() -> None:
    u = Universe(3)
    dist = explore(lambda s: uniform_sparse_histogram(u, 2, s).bins)
    # Empty iff every distinct element drew count 0: x1 = x2 w.p. 1/3 (then 1/3), else 1/9.
    assert dist[()] == Fraction(1, 3) * Fraction(1, 3) + Fraction(2, 3) * Fraction(1, 9)
    # Full support on H_{2,2}(X): 1 + 3*2 + 3*4 = 19 histograms, each >= (1/(3|X|))^n.
    assert len(dist) == 19
    assert min(dist.values()) >= Fraction(1, 9) ** 2


def test_theorem_6_11_parameters() -> None:
    u = Universe(2**64)
    alg = PureSparseHistogram.theorem_6_11(u, 10, Fraction(1, 10), Fraction(1, 20), "fastsample")
    assert alg.beta1 == Fraction(1, 80)
    assert isinstance(alg.mechanism, FastSample)
    assert alg.mechanism.gamma == Fraction(1, 20) / (8 * 2**64)
    assert alg.delta == Fraction(1, 10) / 3 * Fraction(1, 80) * Fraction(1, 3 * 2**64) ** 10
    geo = PureSparseHistogram.theorem_6_11(u, 10, Fraction(1, 10), Fraction(1, 20))
    assert isinstance(geo.mechanism, GeoSample)
    with pytest.raises(ParameterError):
        PureSparseHistogram.theorem_6_11(u, 10, 1, Fraction(1, 20), "laplace")
    with pytest.raises(ParameterError):
        PureSparseHistogram.theorem_6_11(u, 10, 1, 1)


def test_pure_sparse_parameter_errors() -> None:
    u = Universe(100)
    with pytest.raises(ParameterError, match="beta_1 = 1"):
        PureSparseHistogram(GeoSample(3, 1), u, 1, 1)
    with pytest.raises(ParameterError, match="only"):
        PureSparseHistogram(GeoSample(3, 1), u, Fraction(1, 2), Fraction(1, 4))
    with pytest.raises(FloatParameterError):
        PureSparseHistogram(GeoSample(3, 1), u, 1, 0.25)
    with pytest.raises(NotInverseIntegerError):
        PureSparseHistogram(GeoSample(3, 1), u, 1, Fraction(2, 5))


@given(st.lists(st.integers(1, 2**64), min_size=1, max_size=6), st.integers(0, 2**32),
       st.booleans())
def test_pure_sparse_output_is_a_sparse_histogram(rows: list[int], seed: int,
                                                  strict: bool) -> None:
    u = Universe(2**64)
    n = len(rows)
    alg = PureSparseHistogram.theorem_6_11(u, n, 1, Fraction(1, 2), "geosample", strict)
    h = alg.release(Dataset.of(u, rows), SeededSource(seed))
    assert len(h) <= n and h.fallback is None and h.algorithm == "PureSparseHistogram"
    assert all(1 <= c <= n for _, c in h.bins)
    assert list(h.bins) == sorted(h.bins)


def test_heavy_element_is_released() -> None:
    # n = 100 rows over 2^20 elements, eps = 1: the empty bins' largest noisy counts are
    # about log_{3/2}(2^20) ~ 34, far below the heavy element's count of 90.
    u = Universe(2**20)
    n = 100
    rows = [2**20] * 90 + list(range(1, 11))
    alg = PureSparseHistogram.theorem_6_11(u, n, 1, Fraction(1, 1000), "geosample")
    released = [alg.release(Dataset.of(u, rows), SeededSource(s)).count(2**20)
                for s in range(3)]
    assert all(abs(c - 90) <= 15 for c in released)


def test_strings_end_to_end() -> None:
    u = Universe(2**64)
    data = Dataset.from_labels(u, ["alice"] * 9 + ["bob"])
    h = PureSparseHistogram.theorem_6_11(u, 10, 1, Fraction(1, 2)).release(data, SeededSource(1))
    assert len(h) <= 10


def test_pure_sparse_delta_refuses_past_the_s_limit_before_powering() -> None:
    """n = 10^7 over 2^64: 1/delta would have more than 10^7 * 65 bits, far past
    SPARSE_MAX_S_BITS; the refusal comes before (3|X|)^n is formed (which took minutes),
    and exactly where SparseHistogram's own limit on s would have refused anyway."""
    import time

    from exactdp.histograms.sparse import SPARSE_MAX_S_BITS, pure_sparse_delta
    from exactdp.params import ResourceLimitError

    start = time.process_time()
    with pytest.raises(ResourceLimitError, match="StabilityHistogram"):
        pure_sparse_delta(Fraction(1, 10), Fraction(1, 20), 2**64, 10**7)
    assert time.process_time() - start < 5
    # at the boundary (the largest n whose lower bound on bits(s) is within the limit):
    # still computed exactly (tests/test_bounded_release.py checks the bound itself)
    from exactdp.histograms.sparse import pure_sparse_s_bits_at_least

    size = 2**64
    n = SPARSE_MAX_S_BITS // ((3 * size).bit_length() - 1)
    while pure_sparse_s_bits_at_least(Fraction(1, 10), Fraction(1, 20), size, n) > \
            SPARSE_MAX_S_BITS:
        n -= 1
    delta = pure_sparse_delta(Fraction(1, 10), Fraction(1, 20), size, n)
    assert delta == Fraction(1, 30) * Fraction(1, 20) / (3 * size) ** n
