"""The histogram proofs' machinery: symmetry reduction, and checks that catch planted bugs."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import permutations

import pytest

import exactdp.histograms.sparse as sparse_module
from exactdp.checker import certify_ratio, statistical_distance, worst_ratio
from exactdp.counting import GeoSample
from exactdp.histograms.basic import BasicHistogram
from exactdp.histograms.data import Dataset, Histogram, Universe
from exactdp.histograms.sparse import KeepHeavy, KHPrime
from exactdp.proofs._histograms import (
    Distributions,
    all_datasets,
    canonical,
    canonical_datasets,
    neighbour_pairs,
    neighbours,
    partitions,
    relabel,
    sample_noncanonical,
)
from exactdp.proofs.balcer_vadhan import prop_6_05_khprime as prop_6_05
from exactdp.proofs.balcer_vadhan import thm_6_08_sparse as thm_6_08
from exactdp.randomness import RandomSource


def test_partitions() -> None:
    assert partitions(4, 4) == [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)]
    assert partitions(4, 2) == [(4,), (3, 1), (2, 2)]
    assert canonical_datasets(3, 2) == [(1, 1, 1), (1, 1, 2)]


def test_neighbours_are_one_row_apart() -> None:
    for rows in all_datasets(3, 4):
        for other in neighbours(rows, 4):
            rest = list(other)
            for x in rows:
                if x in rest:
                    rest.remove(x)
            assert len(rest) == 1  # exactly one row replaced
    assert neighbours((1, 1), 3) == [(1, 2), (1, 3)]


def test_canonical_form_and_relabelling() -> None:
    rows = (4, 2, 4, 4, 2, 1)
    canon, perm = canonical(rows, 5)
    assert canon == (1, 1, 1, 2, 2, 3)
    assert sorted(perm[x] for x in canon) == sorted(rows)
    assert sorted(perm) == sorted(perm.values()) == [1, 2, 3, 4, 5]
    dist = {((1, 2), (3, 1)): Fraction(1, 2), (): Fraction(1, 2)}
    assert relabel(dist, perm) == {((1, 1), (4, 2)): Fraction(1, 2), (): Fraction(1, 2)}


def test_every_neighbouring_pair_is_covered_up_to_relabelling() -> None:
    size, n = 4, 2
    covered = set()
    for d, e in neighbour_pairs(n, size):
        for p in permutations(range(1, size + 1)):
            covered.add((tuple(sorted(p[x - 1] for x in d)), tuple(sorted(p[x - 1] for x in e))))
    every = {(d, e) for d in all_datasets(n, size) for e in neighbours(d, size)}
    assert every <= covered


def test_symmetry_check_catches_an_asymmetric_algorithm() -> None:
    universe = Universe(3)
    mech = GeoSample(1, 1)

    def biased(data: Dataset, source: RandomSource) -> Histogram:
        # Element 1 gets exact counts: not invariant under relabelling.
        h = BasicHistogram(mech, universe).release(data, source)
        bins = tuple((x, data.count(1) if x == 1 else c) for x, c in h.bins)
        return Histogram(universe, data.n, bins)

    dists = Distributions(biased, universe)
    assert dists.symmetry_failures(sample_noncanonical(1, 3, 5))


def test_ratio_check_catches_a_data_dependent_bin_set() -> None:
    # BasicHistogram over A = supp(D) (the set must be fixed): infinite privacy loss.
    universe = Universe(3)
    mech = GeoSample(1, 1)

    def leaky(data: Dataset, source: RandomSource) -> Histogram:
        return BasicHistogram(mech, universe, data.counts()).release(data, source)

    dists = Distributions(leaky, universe)
    pairs = []
    for d, e in neighbour_pairs(1, 3):
        pd, pe = dists(d), dists(e)
        pairs += [(d, pd, e, pe), (e, pe, d, pd)]
    w = worst_ratio(pairs)
    assert w.infinite
    assert certify_ratio(w, 1)[0] is False


def test_distribution_check_catches_non_uniform_candidates(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # KH' with the empty candidates always the smallest elements outside A: no longer
    # KeepHeavy's distribution (Proposition 6.5 needs them uniformly random).
    def smallest(universe_size: int, excluded: Sequence[int], count: int,
                 source: RandomSource | None = None) -> tuple[int, ...]:
        return tuple(x for x in range(1, universe_size + 1) if x not in excluded)[:count]

    universe = Universe(4)
    mech = GeoSample(1, 1)
    data = Dataset.of(universe, [2])
    ref = Distributions(KeepHeavy(mech, universe).release, universe).direct((2,))
    honest = Distributions(KHPrime(mech, universe, strict=False).release, universe).direct((2,))
    assert honest == ref
    monkeypatch.setattr(sparse_module, "distinct_sample", smallest)
    broken = Distributions(KHPrime(mech, universe, strict=False).release, universe)
    assert statistical_distance(broken.direct(tuple(data.rows)), ref) > 0


def test_prop_6_05_certificates_report_their_own_distance(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # With the planted non-uniform candidates of the previous test, each certificate of
    # Proposition 6.5 must carry its own largest distance, not a running maximum.
    def smallest(universe_size: int, excluded: Sequence[int], count: int,
                 source: RandomSource | None = None) -> tuple[int, ...]:
        return tuple(x for x in range(1, universe_size + 1) if x not in excluded)[:count]

    monkeypatch.setattr(sparse_module, "distinct_sample", smallest)
    mech = GeoSample(1, 1)
    own = {}
    for size in (3, 4):
        universe = Universe(size)
        ref = Distributions(KeepHeavy(mech, universe).release, universe)
        broken = Distributions(KHPrime(mech, universe, strict=False).release, universe)
        own[size] = max(statistical_distance(ref.direct(d), broken.direct(d))
                        for d in all_datasets(1, size))
    first, second = sorted(own, key=lambda s: own[s], reverse=True)
    assert own[first] > own[second] > 0  # distinct values, so a running max would show
    monkeypatch.setattr(prop_6_05, "_grid", lambda full: [(mech, first, False),
                                                          (mech, second, False)])
    report = prop_6_05.check(False)
    assert [c.worst for c in report.certificates] == [own[first], own[second]]
    assert not report.verdict and report.worst == f"max distance {own[first]}"


def test_thm_6_08_ii_at_the_exact_ratio_is_not_vacuous(monkeypatch: pytest.MonkeyPatch) -> None:
    mech = GeoSample(1, 1)
    assert thm_6_08._exact_ratio(mech) == mech.privacy_ratio == Fraction(3, 2)  # Theorem 4.7 i
    monkeypatch.setattr(thm_6_08, "_grid", lambda full: [(mech, 3, False)])
    monkeypatch.setattr(thm_6_08, "_CACHE", {})
    report = thm_6_08.check_ii(False)
    at_e = [c for c in report.certificates if c.claim == "Theorem 6.8 (ii) at e^eps"]
    exact = [c for c in report.certificates if c.claim == "Theorem 6.8 (ii) at M's exact ratio"]
    assert report.verdict and len(at_e) == len(exact) == len(thm_6_08.DELTAS)
    # at r^2 = 9/4 < e the divergence is positive for delta = 1/16 ...
    assert any(isinstance(c.worst, Fraction) and c.worst > 0 for c in exact)
    assert all(c.parameters["e^eps'"] == Fraction(9, 4) for c in exact)
    # ... and with a small delta the check fails when M's ratio is understated (4/3 < 3/2),
    # though it passes with the true one
    monkeypatch.setattr(thm_6_08, "DELTAS", [Fraction(1, 1000)])
    monkeypatch.setattr(thm_6_08, "_CACHE", {})
    assert thm_6_08.check_ii(False).verdict
    monkeypatch.setattr(thm_6_08, "_CACHE", {})
    monkeypatch.setattr(thm_6_08, "_exact_ratio", lambda m: Fraction(4, 3))
    failed = [c for c in thm_6_08.check_ii(False).certificates if not c.verdict]
    assert [c.claim for c in failed] == ["Theorem 6.8 (ii) at M's exact ratio"]
