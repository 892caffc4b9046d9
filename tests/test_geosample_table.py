"""GeoSample's table of F values (``GeoSample._table``, issue 14): the search reads ``F_c(z)``
off ``2n`` values built once per mechanism.  The verify rows that prove it equal to the
paper's ``F`` (Theorem 4.7 (i), (iv) and the fast-path row) must fail on a planted bug in the
table or in its reads; without the table (large ``n``) the PowerWalk search runs and gives the
same outputs."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from test_checker_mutants import planted

import exactdp.proofs.balcer_vadhan._counting as grid
from exactdp import geosample
from exactdp.counting import GeoSample, inverse_cdf_search
from exactdp.proofs.balcer_vadhan import thm_4_07_fast_path, thm_4_07_geosample
from exactdp.trace import recording


@pytest.fixture(autouse=True)
def small_grids(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    grid.geosample.cache_clear()
    grid._DISTS.clear()
    monkeypatch.setattr(grid, "geo_grid", lambda full: [(3, Fraction(1)), (6, Fraction(1, 3)),
                                                        (16, Fraction(1, 2))])
    monkeypatch.setattr(thm_4_07_fast_path, "_large", lambda full: [])
    yield
    grid.geosample.cache_clear()
    grid._DISTS.clear()


def _reference(mech: GeoSample, c: int, u: int) -> int:
    return next(z for z in range(mech.n + 1) if mech.cdf(c, z) >= u)


@pytest.mark.parametrize(("n", "eps"), [(1, 1), (3, 1), (6, Fraction(1, 3)), (16, Fraction(1, 2))])
def test_table_search_is_the_reference_search_at_every_u(n: int, eps: Any) -> None:
    mech = GeoSample(n, eps)
    assert mech._table is not None
    for c in range(n + 1):
        for z in range(n + 1):
            assert mech.search_cdf(c, z) == mech.cdf(c, z)
        us = range(1, mech.d + 1) if mech.d <= 4096 else sorted(
            {v for z in range(n + 1) for f in (mech.cdf(c, z),) for v in (f, f + 1)
             if 1 <= v <= mech.d} | {1, mech.d})
        for u in us:
            assert mech(c, u) == _reference(mech, c, u)


def test_without_the_table_the_power_walk_gives_the_same_outputs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with_table = GeoSample(10, Fraction(1, 2))
    assert with_table._table is not None  # built now, before the limit drops to 0
    monkeypatch.setattr(geosample, "GEO_TABLE_BITS", 0)
    walked = GeoSample(10, Fraction(1, 2))
    assert walked._table is None and walked._walks is None
    for c in range(11):
        assert [walked.search_cdf(c, z) for z in range(11)] == \
            [with_table.search_cdf(c, z) for z in range(11)]
        for u in range(1, with_table.d + 1, 97):
            assert walked(c, u) == with_table(c, u)
    assert thm_4_07_geosample.check_iv(False).verdict is True


def test_the_table_is_read_once_per_round_as_the_walk_was() -> None:
    """The trace of one search: ``search_rounds(n)`` rounds, whatever c and u."""
    mech = GeoSample(6, 1)
    traces = set()
    for c in range(7):
        for u in (1, mech.d // 2, mech.d):
            with recording() as events:
                mech(c, u)
            traces.add(tuple(events))
    assert traces == {(("cdf",),) * 3}
    assert inverse_cdf_search(mech._walks[2], 6, 1) == mech(2, 1)  # type: ignore[index]
    assert GeoSample(geosample.GEO_TABLE_MAX_N + 1, 1)._table is None


def test_table_bug_fails_the_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    original = GeoSample._table.func  # type: ignore[attr-defined]

    def broken(self: GeoSample) -> list[int] | None:
        table = original(self)
        if table is None or self.n < 3:
            return table
        table = list(table)
        table[self.n] += 1  # F_c(c) one too large, for every c
        return table

    monkeypatch.setattr(GeoSample, "_table", property(broken))
    assert thm_4_07_geosample.check_iv(False).verdict is False
    assert thm_4_07_geosample.check_i(False).verdict is False
    assert thm_4_07_fast_path.check_equal(False).verdict is False


@pytest.mark.parametrize(("name", "old", "new"), [
    ("_row_walk", "return row[z]", "return row[min(z + 1, len(row) - 1)]"),
    ("_table_rows", "table[n - c:2 * n - c] + [d]", "table[n - c:2 * n - c - 1] + [d, d]"),
    ("_table_rows", "table[n - c:2 * n - c] + [d]",
     "table[n - c + (c == 1):2 * n - c + (c == 1)] + [d]"),
])
def test_table_read_bug_fails_the_rows(name: str, old: str, new: str) -> None:
    with planted(geosample, name, old, new):
        assert thm_4_07_geosample.check_iv(False).verdict is False
        assert thm_4_07_fast_path.check_equal(False).verdict is False


def test_a_searched_geosample_pickles() -> None:
    """The per-count search functions are closures: pickling leaves them out (rebuilt)."""
    import pickle

    mech = GeoSample(7, Fraction(1, 2))
    outputs = [mech(c, u) for c in range(8) for u in (1, mech.d // 3, mech.d)]
    copy = pickle.loads(pickle.dumps(mech))
    assert "_walks" in mech.__dict__ and "_walks" not in copy.__dict__
    assert [copy(c, u) for c in range(8) for u in (1, mech.d // 3, mech.d)] == outputs
