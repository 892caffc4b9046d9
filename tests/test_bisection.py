from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.bisection import boundary


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
def test_boundary_passes_and_its_predecessor_fails(pattern: list[bool]) -> None:
    """Any predicate on 1..n with ok(n) true (monotone or not) and ok(0) false by fiat."""
    values = [False, *pattern, True]
    hi = len(values) - 1
    calls: list[int] = []

    def ok(m: int) -> bool:
        calls.append(m)
        return values[m]

    m = boundary(ok, 0, hi)
    assert 0 < m <= hi and values[m] and not values[m - 1]
    assert 0 not in calls and len(calls) <= hi.bit_length()


def test_boundary_is_the_least_for_a_monotone_predicate() -> None:
    assert boundary(lambda m: m * m >= 50, 0, 16) == 8
    assert boundary(lambda m: m >= 5, 4, 5) == 5


def test_boundary_refuses_an_empty_interval() -> None:
    with pytest.raises(ValueError, match="lo < hi"):
        boundary(lambda m: True, 3, 3)
