"""exactdp.proofs.balcer_vadhan._accuracy sums error laws over common denominators (_exact_sums): the same exact
values as Fraction additions, and a planted bug in the sum is caught."""

from __future__ import annotations

from fractions import Fraction

import pytest

import exactdp.proofs.balcer_vadhan._accuracy as acc
from exactdp.checker import counting_distribution
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler


def _dists(mech: InverseCDFSampler) -> list[dict[int, Fraction]]:
    return [counting_distribution(mech, c) for c in range(mech.n + 1)]


def _reference_laws(dists: list[dict[int, Fraction]]) -> list[dict[int, Fraction]]:
    out = []
    for c, dist in enumerate(dists):
        law: dict[int, Fraction] = {}
        for z, p in dist.items():
            if p:
                law[abs(z - c)] = law.get(abs(z - c), Fraction(0)) + p
        out.append(law)
    return out


def _check() -> None:
    groups = {0: [Fraction(1, 6), Fraction(1, 4), Fraction(5, 2**80 * 3)], 1: [Fraction(2)],
              2: [Fraction(1, 3), Fraction(2, 3)]}
    assert acc._exact_sums(groups) == {k: sum(v, Fraction(0)) for k, v in groups.items()}
    for mech in (GeoSample(3, 1), FastSample(2, Fraction(1, 2), Fraction(1, 10))):
        dists = _dists(mech)
        laws = acc.counting_error_laws(dists)
        assert laws == _reference_laws(dists)
        assert [list(law) for law in laws] == [list(law) for law in _reference_laws(dists)]
    dist = {((1, 2), (2, 0)): Fraction(1, 3), ((1, 1),): Fraction(1, 6), (): Fraction(1, 2)}
    laws_d = acc.error_laws(dist, (1, 1), 3)
    assert laws_d.per_bin[1] == {0: Fraction(1, 3), 1: Fraction(1, 6), 2: Fraction(1, 2)}
    assert laws_d.maximum == {0: Fraction(1, 3), 1: Fraction(1, 6), 2: Fraction(1, 2)}


def test_exact_sums_equal_fraction_sums() -> None:
    _check()


def test_planted_sum_bug_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from _plant import plant

    plant(monkeypatch, acc, "_exact_sums", "top = top * m + num * (low // g)",
          "top = top + num * (low // g)")
    with pytest.raises(AssertionError):
        _check()
