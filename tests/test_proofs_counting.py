"""The counting-query proof rows can fail: each is run on a deliberately broken sampler.

Each test patches one piece of the implementation (a CDF value, the mixing coin) and runs
the quick check of a proofs/ module, which must then report FAIL.  The proofs cache
mechanisms and distributions, so the caches are cleared around every test.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import pytest

import exactdp.proofs.balcer_vadhan._counting as grid
from exactdp.counting import FastSample, GeoSample, inverse_cdf_search
from exactdp.proofs.balcer_vadhan import (
    lemma_3_02_mixing,
    lemma_4_09_geosample_cdf,
    lemma_4_12_fastsample_cdf,
    thm_4_07_geosample,
    thm_4_10_fastsample,
)


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    def clear() -> None:
        grid._DISTS.clear()
        grid.geosample.cache_clear()
        grid.fastsample.cache_clear()

    clear()
    yield
    clear()


@pytest.fixture
def small_grids(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grid, "geo_grid", lambda full: [(n, e) for n in (3, 6)
                                                        for e in (Fraction(1), Fraction(1, 3))])
    monkeypatch.setattr(grid, "fast_grid", lambda full: [(4, Fraction(1, 2), Fraction(1, 10))])


def test_unbroken_rows_pass_on_the_small_grids(small_grids: None) -> None:
    reports = [lemma_4_09_geosample_cdf.check(False), thm_4_07_geosample.check_i(False),
               lemma_4_12_fastsample_cdf.check_i(False), lemma_3_02_mixing.check(False),
               thm_4_10_fastsample.check_v(False)]
    assert all(r.verdict for r in reports)


def test_geosample_cdf_off_by_one_fails_lemma_4_9_and_theorem_4_7(
        small_grids: None, monkeypatch: pytest.MonkeyPatch) -> None:
    original = GeoSample.cdf

    def broken(self: GeoSample, c: int, z: int) -> int:
        value = original(self, c, z)
        return value + 1 if z == c and 0 < c < self.n else value

    monkeypatch.setattr(GeoSample, "cdf", broken)
    monkeypatch.setattr(GeoSample, "search_cdf", broken)  # the search's F broken too
    monkeypatch.setattr(GeoSample, "_search", lambda self, c, u: inverse_cdf_search(
        lambda z: self.search_cdf(c, z), self.n, u))
    assert lemma_4_09_geosample_cdf.check(False).verdict is False
    assert thm_4_07_geosample.check_i(False).verdict is False


def test_truncated_cdf_off_by_one_fails_lemma_4_12(small_grids: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    original = FastSample.truncated_cdf

    def broken(self: FastSample, c: int, z: int) -> int:
        value = original(self, c, z)
        return value + 1 if z == c and c < self.n else value

    monkeypatch.setattr(FastSample, "truncated_cdf", broken)
    monkeypatch.setattr(FastSample, "search_cdf", FastSample.cdf)  # search the broken F
    assert lemma_4_12_fastsample_cdf.check_i(False).verdict is False


def test_search_cdf_differing_from_cdf_fails_the_monotonicity_row(
        small_grids: None, monkeypatch: pytest.MonkeyPatch) -> None:
    original = FastSample.search_cdf

    def broken(self: FastSample, c: int, z: int) -> int:
        return int(original(self, c, z)) + (1 if z == 0 else 0)

    monkeypatch.setattr(FastSample, "search_cdf", broken)
    assert thm_4_10_fastsample.check_v(False).verdict is False


def test_wrong_mixing_coin_fails_lemma_3_2(small_grids: None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import mixing

    original = mixing.mix

    def broken(release, fallback, gamma, source=None):  # type: ignore[no-untyped-def]
        return original(release, fallback, Fraction(1, 2), source)

    monkeypatch.setattr(lemma_3_02_mixing, "mix", broken)
    assert lemma_3_02_mixing.check(False).verdict is False
