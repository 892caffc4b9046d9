"""DistinctSample (Algorithm A.3, Lemma A.1) and its order-statistic set (Proposition A.2)."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.explore import explore
from exactdp.histograms.distinct import OrderStatisticSet, distinct_sample
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import CallableSource, SeededSource
from exactdp.trace import recording


def test_uniform_over_sequences_small() -> None:
    """Lemma A.1 claims a uniformly random *sequence*; Algorithm A.3 as printed collects a
    set S (a slip: the order matters for KH', whose q_0..q_n carry ordered counts).  The
    implementation returns the draws in order, and every order is equally likely."""
    dist = explore(lambda src: distinct_sample(6, [2, 5], 3, src))
    seqs = list(permutations([1, 3, 4, 6], 3))
    assert dist == {seq: Fraction(1, 24) for seq in seqs}


def _fixed(z: int) -> CallableSource:
    return CallableSource(lambda d: z)


def test_z_th_free_element() -> None:
    """Step 3c: z picks the z-th smallest element outside T, in order."""
    picks = [distinct_sample(10, [1, 4, 5, 9], 1, _fixed(z))[0] for z in range(1, 7)]
    assert picks == [2, 3, 6, 7, 8, 10]


@pytest.mark.parametrize("size", [1 << 64, (1 << 128) + 1, 3**200])
def test_huge_universes(size: int) -> None:
    excluded = [1, 2, 3, size // 2, size - 1, size]
    out = distinct_sample(size, excluded, 50, SeededSource(size % 1000))
    assert len(set(out)) == 50
    assert all(1 <= x <= size and x not in excluded for x in out)


def test_everything_left() -> None:
    out = distinct_sample(7, [3, 6], 5, SeededSource(1))
    assert sorted(out) == [1, 2, 4, 5, 7]
    assert distinct_sample(7, [3, 6], 0) == ()


@given(st.integers(1, 60), st.data())
def test_random_exclusions(size: int, data: st.DataObject) -> None:
    excluded = sorted(data.draw(st.sets(st.integers(1, size), max_size=size)))
    count = data.draw(st.integers(0, size - len(excluded)))
    seed = data.draw(st.integers(0, 10**6))
    out = distinct_sample(size, excluded, count, SeededSource(seed))
    assert len(out) == count == len(set(out))
    assert not set(out) & set(excluded)
    assert all(1 <= x <= size for x in out)


@given(st.sets(st.integers(1, 10**30 - 1), max_size=30), st.integers(0, 10**30 + 1))
def test_free_and_insert_on_a_huge_universe(items: set[int], x: int) -> None:
    """free(z) = x for the z = x - |{y in T : y <= x}| of an x outside T (counted here)."""
    tree = OrderStatisticSet(10**30, sorted(items))
    if 1 <= x <= 10**30 and x not in items:
        assert tree.free(x - sum(1 for y in items if y <= x)) == x
    tree.insert(10**30)
    assert tree.elements()[-1] == 10**30 and len(tree) == len(items | {10**30})


def test_fixed_number_of_search_rounds() -> None:
    """bitlen(|T|) search rounds for the element drawn when T = A + (earlier draws) has |T|
    elements, whatever the universe, the excluded elements and the draws."""
    for size in (1 << 64, (1 << 64) + 5, 3**200):
        for excluded in ([], [7, 8, 9], list(range(1, 40)), [size - 1, size]):
            for seed in range(3):
                with recording() as events:
                    distinct_sample(size, excluded, 4, SeededSource(seed))
                want = sum((len(excluded) + i).bit_length() for i in range(4))
                assert sum(1 for e in events if e == ("cdf",)) == want


@given(st.sets(st.integers(1, 200), max_size=40), st.data())
def test_free_is_the_z_th_element_outside(items: set[int], data: st.DataObject) -> None:
    """OrderStatisticSet.free(z) is the z-th smallest of [1, M] outside T, listed by hand."""
    size = 200
    outside = [x for x in range(1, size + 1) if x not in items]
    z = data.draw(st.integers(1, len(outside)))
    assert OrderStatisticSet(size, sorted(items)).free(z) == outside[z - 1]


def test_bad_input() -> None:
    with pytest.raises(ParameterError, match="sorted and distinct"):
        distinct_sample(10, [3, 2], 1)
    with pytest.raises(ParameterError, match="sorted and distinct"):
        distinct_sample(10, [2, 2], 1)
    with pytest.raises(DomainError, match="outside X"):
        distinct_sample(10, [0], 1)
    with pytest.raises(DomainError, match="outside X"):
        distinct_sample(10, [11], 1)
    with pytest.raises(ParameterTypeError):
        distinct_sample(10, [1.0], 1)  # type: ignore[list-item]
    with pytest.raises(ParameterError, match="count = 9"):
        distinct_sample(10, [1, 2], 9)
    with pytest.raises(ParameterError):
        distinct_sample(10, [], -1)
    with pytest.raises(ParameterTypeError):
        distinct_sample(10, [], True)
    with pytest.raises(ParameterError):
        distinct_sample(0, [], 0)
