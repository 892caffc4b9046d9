"""Tests of exactdp.explore: exact output distributions of sampling code."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.counting import GeoSample
from exactdp.explore import (
    MAX_UNIFORM,
    ExplorationLimitError,
    ExploringSource,
    NondeterminismError,
    explore,
)
from exactdp.params import DomainError, ExactDPError, ResourceLimitError
from exactdp.randomness import RandomSource


def brute_force(fn: object, sizes: list[int]) -> dict[object, Fraction]:
    """Distribution of fn(*draws) with independent draws uniform on [size]_+."""
    counts: Counter[object] = Counter()
    for draws in itertools.product(*(range(1, s + 1) for s in sizes)):
        counts[fn(*draws)] += 1  # type: ignore[operator]
    total = 1
    for s in sizes:
        total *= s
    return {k: Fraction(v, total) for k, v in counts.items()}


def test_two_dice() -> None:
    dist = explore(lambda s: s.uniform(2) + s.uniform(2))
    assert dist == {2: Fraction(1, 4), 3: Fraction(1, 2), 4: Fraction(1, 4)}


def test_three_six_sided_dice_vs_brute_force() -> None:
    dist = explore(lambda s: s.uniform(6) + s.uniform(6) + s.uniform(6))
    assert dist == brute_force(lambda a, b, c: a + b + c, [6, 6, 6])
    assert sum(dist.values()) == 1
    assert list(dist) == sorted(dist)  # sorted by outcome


@given(st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=4))
def test_independent_draws_vs_brute_force(sizes: list[int]) -> None:
    def fn(src: RandomSource) -> tuple[int, int]:
        draws = [src.uniform(s) for s in sizes]
        return max(draws), sum(draws) % 3

    assert explore(fn) == brute_force(lambda *v: (max(v), sum(v) % 3), sizes)


def test_dependent_draws() -> None:
    # a uniform on {1,2,3}, then b uniform on {1..a}: Pr[b] = sum_{a >= b} 1/3 * 1/a.
    dist = explore(lambda s: s.uniform(s.uniform(3)))
    expected = {b: sum((Fraction(1, 3) * Fraction(1, a) for a in range(b, 4)), Fraction(0))
                for b in (1, 2, 3)}
    assert dist == expected
    assert expected == {1: Fraction(11, 18), 2: Fraction(5, 18), 3: Fraction(1, 9)}


def test_variable_number_of_draws() -> None:
    # Flip until heads, at most 3 flips: the number of flips.
    def flips(src: RandomSource) -> int:
        for i in range(1, 4):
            if src.bernoulli(1, 2):
                return i
        return 3

    assert explore(flips) == {1: Fraction(1, 2), 2: Fraction(1, 4), 3: Fraction(1, 4)}


# ---------------------------------------------------------------- branching weights


class _Draw:
    def __init__(self, table: list[int]) -> None:
        self.table, self.n, self.d = table, len(table) - 1, table[-1]
        self.evaluations = 0

    def cdf(self, z: int) -> int:
        self.evaluations += 1
        return self.table[z]

    def search(self, u: int) -> int:
        return min(z for z, f in enumerate(self.table) if f >= u)


def test_inverse_cdf_branches_once_per_output_with_exact_weight() -> None:
    draw = _Draw([2, 2, 7, 10**30])
    runs = 0

    def fn(src: RandomSource) -> int:
        nonlocal runs
        runs += 1
        return src.inverse_cdf(draw)

    dist = explore(fn)
    assert dist == {0: Fraction(2, 10**30), 2: Fraction(5, 10**30),
                    3: Fraction(10**30 - 7, 10**30)}
    assert runs == 3  # one run per output with positive mass, never one per u


@given(st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=8))
def test_inverse_cdf_weights_vs_brute_force(masses: list[int]) -> None:
    masses[-1] += 1
    table = list(itertools.accumulate(masses))
    draw = _Draw(table)
    expected = brute_force(draw.search, [table[-1]])
    assert explore(lambda s: s.inverse_cdf(draw)) == expected


def test_bernoulli_branches_twice() -> None:
    runs = 0

    def fn(src: RandomSource) -> bool:
        nonlocal runs
        runs += 1
        return src.bernoulli(3, 10**40)

    assert explore(fn) == {False: 1 - Fraction(3, 10**40), True: Fraction(3, 10**40)}
    assert runs == 2


def test_bernoulli_certain_outcomes_branch_once() -> None:
    assert explore(lambda s: s.bernoulli(0, 5)) == {False: 1}
    assert explore(lambda s: s.bernoulli(5, 5)) == {True: 1}


def test_geosample_under_exploration_branches_per_output() -> None:
    mech = GeoSample(4, Fraction(1, 2))
    dist = explore(lambda s: mech.sample(2, s))
    # brute force over every u of [d]_+ (d = 9 * 5**3 = 1125)
    assert dist == brute_force(lambda u: mech(2, u), [mech.d])


def test_unorderable_outputs_allowed() -> None:
    dist = explore(lambda s: "a" if s.bernoulli(1, 3) else 1)
    assert dist == {"a": Fraction(1, 3), 1: Fraction(2, 3)}


def test_exploring_source_path_bookkeeping() -> None:
    src = ExploringSource((1, 0))
    assert src.uniform(3) == 2
    assert src.bernoulli(1, 4) is True  # choice 0 = True when num > 0
    assert src.choices == [1, 0] and src.sizes == [3, 2]
    assert src.weight == Fraction(1, 3) * Fraction(1, 4)
    # the path's weight (num, den) before each draw, and each draw's (den, numerators)
    assert src.before == [(1, 1), (1, 3)]
    assert src.masses == [(3, None), (4, [1, 3])]


# ---------------------------------------------------------------- misuse


def test_nondeterminism_fewer_options_on_replay() -> None:
    calls = 0

    def fn(src: RandomSource) -> int:
        nonlocal calls
        calls += 1
        return src.uniform(3 if calls == 1 else 1)

    with pytest.raises(NondeterminismError, match="deterministic"):
        explore(fn)


def test_nondeterminism_fewer_draws_on_replay() -> None:
    calls = 0

    def fn(src: RandomSource) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            return src.uniform(2) + src.uniform(2)
        return 0

    with pytest.raises(NondeterminismError, match="fewer"):
        explore(fn)


def test_nondeterminism_a_replayed_draw_offers_other_options() -> None:
    # The replay offers more options than the first run did (its mass would be 3/4): the
    # replayed draw is compared with the one it replays.
    calls = 0

    def fn(src: RandomSource) -> int:
        nonlocal calls
        calls += 1
        return src.uniform(2 if calls == 1 else 4)

    with pytest.raises(NondeterminismError, match=r"draw 0 offered 4 options .* 2 of weights"):
        explore(fn)


def test_exploration_limits() -> None:
    with pytest.raises(ExplorationLimitError, match="inverse_cdf or bernoulli"):
        explore(lambda s: s.uniform(MAX_UNIFORM + 1))
    assert len(explore(lambda s: s.uniform(50), max_uniform=50)) == 50
    with pytest.raises(ExplorationLimitError):
        explore(lambda s: s.uniform(51), max_uniform=50)
    with pytest.raises(ExplorationLimitError, match="runs"):
        explore(lambda s: s.uniform(100), max_runs=10)
    assert issubclass(ExplorationLimitError, ResourceLimitError)
    assert issubclass(NondeterminismError, ExactDPError)


def test_bad_draws_under_exploration() -> None:
    with pytest.raises(DomainError):
        explore(lambda s: s.uniform(0))
    with pytest.raises(DomainError, match="non-decreasing"):
        explore(lambda s: s.inverse_cdf(_Draw([3, 2, 5])))
    bad = _Draw([1, 2, 5])
    bad.d = 6  # F(n) != d
    with pytest.raises(DomainError, match="differs"):
        explore(lambda s: s.inverse_cdf(bad))


# ---------------------------------------------------------------- unreduced path weights


class _BigDraw:
    """An inverse-CDF draw over [0, 2] with d = 6**60 and masses 2**60, 3**60 and the rest."""

    n, d = 2, 6**60

    def cdf(self, z: int) -> int:
        return [2**60, 2**60 + 3**60, 6**60][z]

    def search(self, u: int) -> int:
        raise AssertionError("the exploring source never searches")


def _three_draws(src: RandomSource) -> tuple[int, int, bool]:
    return (src.inverse_cdf(_BigDraw()), src.inverse_cdf(_BigDraw()),
            src.bernoulli(6**30 - 1, 6**30))


def _want() -> dict[tuple[int, int, bool], Fraction]:
    d = 6**60
    p = [Fraction(2**60, d), Fraction(3**60, d), Fraction(d - 2**60 - 3**60, d)]
    q = {True: Fraction(6**30 - 1, 6**30), False: Fraction(1, 6**30)}
    return {(a, b, c): p[a] * p[b] * q[c] for a in range(3) for b in range(3) for c in (False, True)}


@pytest.mark.parametrize("bits", [1, 64, 1 << 12, 1 << 40])
def test_path_weights_exact_whether_or_not_reduced(monkeypatch: pytest.MonkeyPatch,
                                                   bits: int) -> None:
    # explore keeps each path's weight as an unreduced pair num/den, reduced (one gcd) past
    # REDUCE_BITS bits of den: every threshold gives the same exact law (sums to 1, checked)
    import exactdp.explore as ex

    monkeypatch.setattr(ex, "REDUCE_BITS", bits)
    assert explore(_three_draws) == _want()
    src = ExploringSource((1, 2))
    src.inverse_cdf(_BigDraw()), src.inverse_cdf(_BigDraw())
    assert src.weight == Fraction(3**60, 6**60) * Fraction(6**60 - 2**60 - 3**60, 6**60)


def test_planted_bad_reduction_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # the reduction divides both sides by the gcd; a bug dividing only num is caught
    from _plant import plant

    import exactdp.explore as ex

    monkeypatch.setattr(ex, "REDUCE_BITS", 1)
    plant(monkeypatch, ex, "_reduced", "num // g, den // g", "num // g, den")
    with pytest.raises(NondeterminismError, match="sum to"):
        explore(_three_draws)


def test_masses_summed_over_distinct_denominators(monkeypatch: pytest.MonkeyPatch) -> None:
    # paths of different lengths: output 0 gathers the weights 1/2 and 1/6, kept as parts
    # {2: 1, 6: 1} and summed over their least common denominator (one gcd per part)
    from _plant import plant

    import exactdp.explore as ex

    def fn(src: RandomSource) -> int:
        return 0 if src.uniform(2) == 1 else src.uniform(3) % 2

    assert explore(fn) == {0: Fraction(2, 3), 1: Fraction(1, 3)}
    parts = {6: 1, 4: 3, 10: 7, 1: 2, 12: 5, 2**80 * 3: 2**79 + 1}
    assert ex._sum(parts) == sum(Fraction(num, den) for den, num in parts.items())
    plant(monkeypatch, ex, "_sum", "top = top * m + num * (low // g)",
          "top = top + num * (low // g)")  # the running numerator not rescaled: caught
    assert ex._sum(parts) != sum(Fraction(num, den) for den, num in parts.items())
    with pytest.raises(NondeterminismError, match="sum to"):
        explore(fn)


@settings(max_examples=200, deadline=None)
@given(parts=st.dictionaries(st.one_of(st.integers(0, 300).map(lambda k: 2**k),
                                       st.integers(1, 40)),
                             st.integers(1, 2**70), max_size=8))
def test_masses_over_powers_of_two_summed_by_shifts(parts: dict[int, int]) -> None:
    """Parts over powers of two (the denominators of ``random()`` draws) are summed by
    shifts; mixed with other denominators, by their least common denominator: the exact
    sum either way."""
    import exactdp.explore as ex

    assert ex._sum(parts) == sum((Fraction(num, den) for den, num in parts.items()),
                                 Fraction(0))


def test_masses_over_powers_of_two_planted_shift(monkeypatch: pytest.MonkeyPatch) -> None:
    from _plant import plant

    import exactdp.explore as ex

    parts = {2: 1, 2**60: 3, 8: 5, 2**7: 9}
    exact = sum(Fraction(num, den) for den, num in parts.items())
    assert ex._sum(parts) == exact
    plant(monkeypatch, ex, "_sum", "top += num << -shift", "top += num")  # not rescaled
    assert ex._sum(parts) != exact


def _random_outputs(seed: int) -> list[list[Any]]:
    import random
    rng = random.Random(seed)

    def entry() -> Any:
        return (rng.randint(-3, 3) if rng.random() < 0.4
                else Fraction(rng.randint(-20, 20), rng.randint(1, 12)))
    cases: list[list[Any]] = []
    for _ in range(200):
        if rng.random() < 0.3:  # scalars
            outs = {entry() for _ in range(rng.randint(1, 30))}
        else:  # tuples of mixed lengths (a tuple before its extensions)
            outs = {tuple(entry() for _ in range(rng.randint(0, 4)))
                    for _ in range(rng.randint(1, 30))}
        out_list = list(outs)
        rng.shuffle(out_list)
        cases.append(out_list)
    return cases


def test_ordered_sorts_exact_outputs_as_sorted_does() -> None:
    from exactdp import explore as ex
    for outs in _random_outputs(3):
        pairs = [(o, Fraction(k + 1, 7)) for k, o in enumerate(outs)]
        got = ex._ordered(pairs)
        assert list(got.items()) == sorted(pairs), outs
        assert ex._exact_keys(outs) is not None
    # not exact-keyed: bools, strings, nested tuples -- sorted or found order, as before
    for outs in ([True, False], [("b",), ("a",)], [((1,), 2), ((0,), 3)], [1.5, 0.5]):
        assert ex._exact_keys(outs) is None
        assert list(ex._ordered([(o, Fraction(1, 2)) for o in outs])) == sorted(outs)
    assert list(ex._ordered([(2j, Fraction(1)), (1j, Fraction(0))])) == [2j, 1j]  # found


def test_ordered_planted_unscaled_keys_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from _plant import plant

    from exactdp import explore as ex
    plant(monkeypatch, ex, "_exact_keys", "x.numerator * (lows[i] // x.denominator)",
          "x.numerator")
    assert any(list(ex._ordered([(o, Fraction(1)) for o in outs])) != sorted(outs)
               for outs in _random_outputs(3))
