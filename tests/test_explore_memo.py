"""The exploring source's memo of draw options (exactdp.explore, module docstring): the
options of a value draw are computed once per exploration, the distributions are exactly
those computed without the memo, and a key too coarse to determine the CDF is caught."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import pytest

import exactdp.explore as ex
from exactdp.counting import FastSample, GeoSample
from exactdp.explore import NondeterminismError, explore
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.orderstats import ApproxBinDraw, BinomialDraw, FunctionDraw
from exactdp.histograms.sparse import KHPrime, PureSparseHistogram, SparseHistogram
from exactdp.randomness import RandomSource
from exactdp.trace import recording


@dataclass(frozen=True)
class _Table:
    """A value draw: its CDF is a function of its field."""

    table: tuple[int, ...]
    evaluations: ClassVar[int] = 0

    @property
    def n(self) -> int:
        return len(self.table) - 1

    @property
    def d(self) -> int:
        return self.table[-1]

    def cdf(self, z: int) -> int:
        _Table.evaluations += 1
        return self.table[z]

    def search(self, u: int) -> int:
        return min(z for z, f in enumerate(self.table) if f >= u)


@dataclass(frozen=True, eq=False)
class _Unequal:
    n: int = 0
    d: int = 1

    def cdf(self, z: int) -> int:
        return 1


class _Opaque:
    def __init__(self, n: int) -> None:
        self.n, self.d = n, 1

    def cdf(self, z: int) -> int:
        return 1


def _unmemoised(fn: object, monkeypatch: pytest.MonkeyPatch) -> dict[object, Fraction]:
    with monkeypatch.context() as m:
        m.setattr(ex, "_draw_key", lambda draw: None)
        return explore(fn)  # type: ignore[arg-type]


def _releases() -> list[tuple[Any, Dataset]]:
    u5, u4 = Universe(5), Universe(4)
    return [
        (KHPrime(GeoSample(2, 1), u5, strict=True), Dataset.of(u5, (1, 2))),
        (KHPrime(FastSample(1, 1, Fraction(1, 2)), u4, strict=False), Dataset.of(u4, (3,))),
        (SparseHistogram(GeoSample(1, 1), u4, Fraction(1, 40)), Dataset.of(u4, (2,))),
        (PureSparseHistogram(GeoSample(1, 1), Universe(3), 1, Fraction(1, 2)),
         Dataset.of(Universe(3), (1,))),
    ]


@pytest.mark.parametrize("case", range(4))
def test_memo_gives_the_unmemoised_distribution(case: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # CDFDraw and BinomialDraw (frozen dataclasses) and ApproxBinDraw (explore_key), on
    # the histograms' own sampling code: exactly the distribution without the memo
    alg, data = _releases()[case]

    def fn(src: RandomSource) -> object:
        return alg.release(data, src).bins

    assert explore(fn) == _unmemoised(fn, monkeypatch)


def test_value_draw_options_computed_once_per_exploration() -> None:
    draws = [_Table((1, 3, 3, 6)), _Table((2, 5, 6))]

    def fn(src: RandomSource) -> tuple[int, int, int]:
        a = src.inverse_cdf(draws[0])
        b = src.inverse_cdf(_Table((2, 5, 6)))  # a new, equal object on every path
        return a, b, src.uniform(2)

    _Table.evaluations = 0
    dist = explore(fn)
    assert _Table.evaluations == 4 + 3  # once per distinct draw
    expected = {(a, b, c): Fraction(pa, 6) * Fraction(pb, 6) / 2
                for a, pa in ((0, 1), (1, 2), (3, 3)) for b, pb in ((0, 2), (1, 3), (2, 1))
                for c in (1, 2)}
    assert dist == expected
    _Table.evaluations = 0
    assert explore(fn) == expected  # a new exploration: a new memo
    assert _Table.evaluations == 7


def test_no_memo_while_recording_or_for_opted_out_draws() -> None:
    calls = 0

    def cdf(z: int) -> int:
        nonlocal calls
        calls += 1
        return (1, 2)[z]

    fdraw = FunctionDraw(1, 2, cdf)  # fn may close over state: explore_cache = False

    def fn(src: RandomSource) -> tuple[int, int]:
        return src.inverse_cdf(fdraw), src.uniform(3)

    explore(fn)
    assert calls == 2 * 6  # every path evaluates the CDF
    _Table.evaluations = 0
    with recording():  # a cdf may record events: evaluated on every path
        explore(lambda s: (s.inverse_cdf(_Table((1, 2))), s.uniform(3)))
    assert _Table.evaluations == 2 * 6


def test_keys_of_the_library_draws() -> None:
    assert ex._draw_key(BinomialDraw(4, 1, 3, 2)) == (BinomialDraw, (4, 1, 3, 2))
    assert ex._draw_key(BinomialDraw(4, 1, 3, 2)) != ex._draw_key(BinomialDraw(4, 1, 3, 3))
    draw = ApproxBinDraw(5, 1, 3, 100, 2)
    assert ex._draw_key(draw) == (ApproxBinDraw, draw.explore_key)
    assert ex._draw_key(draw) != ex._draw_key(ApproxBinDraw(5, 1, 3, 101, 2))
    assert ex._draw_key(FunctionDraw(1, 2, abs)) is None
    mech = GeoSample(1, 1)
    assert ex._draw_key(mech.draw(0)) == (type(mech.draw(0)), (mech, 0))
    assert ex._draw_key(mech.draw(0)) != ex._draw_key(mech.draw(1))
    assert ex._draw_key(_Table((1, 2))) == (_Table, ((1, 2),))  # one field: a 1-tuple
    assert ex._draw_key(_Unequal()) is None  # eq=False: not memoised
    assert ex._draw_key(_Opaque(3)) is None  # not a dataclass, no explore_key


def test_lazy_binomial_table_equals_the_formula() -> None:
    from math import comb, gcd

    for trials, num, den, cap in [(0, 1, 2, 0), (3, 1, 2, 2), (5, 2, 6, 7), (4, 0, 3, 2),
                                  (4, 3, 3, 3)]:
        draw = BinomialDraw(trials, num, den, cap)
        n_, d_ = num // gcd(num, den), den // gcd(num, den)
        assert draw.d == (d_**trials if cap else 1)
        for z in range(-1, cap + 2):
            want = (0 if z < 0 else draw.d if z >= cap else
                    sum(comb(trials, j) * n_**j * (d_ - n_) ** (trials - j)
                        for j in range(min(z, trials) + 1)))
            assert draw.cdf(z) == want


def test_planted_coarse_key_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # a memo keyed by something that does not determine the CDF (here the draw's class:
    # CDFDraws at counts 2 and 0 share one entry) changes the distribution: the
    # comparison with the unmemoised exploration fails
    alg, u = KHPrime(GeoSample(2, 1), Universe(5), strict=True), Universe(5)
    data = Dataset.of(u, (1, 1))

    def fn(src: RandomSource) -> object:
        return alg.release(data, src).bins

    reference = _unmemoised(fn, monkeypatch)
    monkeypatch.setattr(ex, "_draw_key", lambda draw: type(draw))
    try:
        planted = explore(fn)
    except NondeterminismError:
        return
    assert planted != reference


def test_replay_that_changes_a_value_draw_still_raises() -> None:
    runs = 0

    def fn(src: RandomSource) -> int:
        nonlocal runs
        runs += 1
        table = (1, 2, 3) if runs == 1 else (3, 3, 3)  # the replay offers one option only
        return src.inverse_cdf(_Table(table)) + src.uniform(2)

    with pytest.raises(NondeterminismError, match=r"draw 0 offered 1 options of weights \[3\] "
                       r"/ 3 on replay, 3 of weights \[1, 1, 1\] / 3 before"):
        explore(fn)
