"""exactdp.neighbours: the shared neighbour relations (DESIGN.md), checked against hand
enumerations and, for all small boxes, against counting formulas."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp import neighbours as nb
from exactdp.params import DomainError, ParameterError, ResourceLimitError


def test_counts_pairs_by_hand() -> None:
    assert list(nb.counts(3).ordered_pairs()) == [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)]
    assert nb.counts(3).neighbours(0) == (1,)


def test_datasets_add_remove_by_hand() -> None:
    rel = nb.datasets(["a", "b"], 2)
    assert rel.points == ((), ("a",), ("b",), ("a", "a"), ("a", "b"), ("b", "b"))
    assert rel.neighbours(("a",)) == ((), ("a", "a"), ("a", "b"))
    assert rel.neighbours(("a", "b")) == (("a",), ("b",))


def test_datasets_replace_one_by_hand() -> None:
    rel = nb.datasets([0, 1, 2], 2, "replace-one")
    assert rel.neighbours((0, 1)) == ((0, 0), (0, 2), (1, 1), (1, 2))
    assert rel.neighbours(()) == ()
    assert all(len(a) == len(b) for a, b in rel.ordered_pairs())


def test_vectors_one_coordinate_by_hand() -> None:
    assert nb.vector_neighbours((0, 2), -1, 2, 2) == ((-1, 2), (0, 0), (0, 1), (1, 2), (2, 2))


def test_vectors_l1_by_hand() -> None:
    assert nb.vector_neighbours((0, 0), 0, 1, 2, "l1") == ((0, 1), (1, 0), (1, 1))
    assert nb.vector_neighbours((0, 0), 0, 1, 1, "l1") == ((0, 1), (1, 0))


def test_booleans_by_hand() -> None:
    assert nb.booleans(3).neighbours((0, 1, 0)) == ((0, 0, 0), (0, 1, 1), (1, 1, 0))


def test_keep_filter_excludes_points() -> None:
    rel = nb.vectors(2, -1, 1, 1, keep=any)
    assert (0, 0) not in rel
    assert len(rel.points) == 8


@given(st.integers(1, 3), st.integers(-2, 0), st.integers(0, 2), st.integers(1, 3))
def test_relations_agree_with_vector_neighbours(p: int, lo: int, hi: int, beta: int) -> None:
    for kind in ("one-coordinate", "l1"):
        rel = nb.vectors(p, lo, hi, beta, kind)
        pairs = set(rel.ordered_pairs())
        assert all((b, a) in pairs for a, b in pairs)                    # symmetric
        for u in rel.points:
            assert rel.neighbours(u) == nb.vector_neighbours(u, lo, hi, beta, kind)
    one = set(nb.vectors(p, lo, hi, beta).ordered_pairs())
    l1 = set(nb.vectors(p, lo, hi, beta, "l1").ordered_pairs())
    assert one <= l1
    # one-coordinate edges: per coordinate, pairs of values at distance 1..beta
    width = hi - lo + 1
    per_coord = sum(width - d for d in range(1, min(beta, width - 1) + 1))
    assert len(one) == 2 * p * per_coord * width ** (p - 1)


@given(st.integers(1, 3), st.integers(0, 3))
def test_add_remove_edges_count(size: int, n: int) -> None:
    universe = list(range(size))
    rel = nb.datasets(universe, n)
    # every multiset of size m < n has exactly |universe| up-neighbours
    expected = sum(size for d in rel.points if len(d) < n)       # type: ignore[arg-type]
    assert len(list(rel.ordered_pairs())) == 2 * expected


def test_l1_distance() -> None:
    assert nb.l1_distance((1, -2, 0), (0, 0, 3)) == 6
    with pytest.raises(DomainError):
        nb.l1_distance((1,), (1, 2))


def test_errors_are_typed() -> None:
    with pytest.raises(ParameterError, match="kind"):
        nb.vectors(2, 0, 1, 1, "l2")
    with pytest.raises(ParameterError, match="lo"):
        nb.vectors(2, 2, 1, 1)
    with pytest.raises(ParameterError, match="beta"):
        nb.vectors(2, 0, 1, 0)
    with pytest.raises(ParameterError, match="kind"):
        nb.datasets([0], 1, "swap")
    with pytest.raises(ResourceLimitError):
        nb.vectors(20, 0, 1, 1)
    with pytest.raises(DomainError, match="outside"):
        nb.vector_neighbours((3, 0), 0, 1, 1)
    with pytest.raises(DomainError, match="not in the domain"):
        nb.counts(2).neighbours(5)


def test_booleans_is_the_unit_box() -> None:
    assert set(nb.booleans(2).ordered_pairs()) == set(nb.vectors(2, 0, 1, 1).ordered_pairs())
    assert nb.booleans(2).points == tuple(product((0, 1), repeat=2))
