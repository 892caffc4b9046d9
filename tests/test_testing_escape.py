"""exactdp.testing's assertions never pass on a law computed from runs that escaped the
exploration: the same guards and path re-runs as the white-box audit, so a mechanism drawing
module ``random`` (or any other escape route) fails with a clear error every time."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from exactdp.randomness import RandomSource
from exactdp.testing import (
    CountingFunction,
    OracleAssertionError,
    assert_approx_dp,
    assert_pure_dp,
    assert_same_distribution,
    assert_strict_time,
    exact_distribution,
)
from tests.audit_targets import escape_targets as et

REPEATS = 3


@pytest.mark.parametrize("shape", ["rare", "rr"])
@pytest.mark.parametrize("route", et.ROUTES)
def test_every_escape_route_fails_pure_dp(route: str, shape: str) -> None:
    f = et.make(route, shape, "source")
    for _ in range(REPEATS):
        with pytest.raises(OracleAssertionError, match="no exact law") as info:
            assert_pure_dp(f, [(0, 1)], epsilon=1000)
        text = str(info.value)
        assert "escape_targets.py:" in text or "counter" in route, text


def test_the_issue_example_fails_every_time() -> None:
    """A one-argument mechanism drawing module-level random.random(), wrapped in a lambda."""
    rr = et.make("random", "rr", "bit")
    for _ in range(20):
        with pytest.raises(OracleAssertionError, match=r"random\.random\(\)"):
            assert_pure_dp(lambda c, s: rr(c), [(0, 1)], epsilon=1)


@pytest.mark.parametrize("route", ["random", "numpy", "secrets", "clock", "counter"])
def test_other_assertions_fail_too(route: str) -> None:
    f = et.make(route, "rare", "source")
    with pytest.raises(OracleAssertionError, match="no exact law"):
        assert_approx_dp(f, [(0, 1)], epsilon=1000, delta="1/2")
    with pytest.raises(OracleAssertionError, match="no exact law"):
        assert_strict_time(f, [0, 1])
    with pytest.raises(OracleAssertionError, match="no exact law"):
        assert_same_distribution(lambda s: f(0, s), {0: 1})
    with pytest.raises(OracleAssertionError, match="no exact law"):
        exact_distribution(lambda s: f(1, s))


def test_a_counting_function_with_hidden_randomness_fails() -> None:
    u = et.escaped("random")
    with pytest.raises(OracleAssertionError, match=r"random\.random\(\)"):
        assert_pure_dp(CountingFunction(lambda c, v: min(3, c + (v > 2) + (u() < 0.001)),
                                        d=4, n=3), [(0, 1)], epsilon=1000)


def test_state_in_a_list_is_caught_by_the_re_run() -> None:
    calls = [0]

    def mech(c: int, source: RandomSource) -> Any:
        calls[0] += 1
        return c if calls[0] % 1000 == 3 else source.uniform(2)

    with pytest.raises(OracleAssertionError, match="re-run with the same draws"):
        assert_pure_dp(mech, [(0, 1)], epsilon=1000)


def test_clean_mechanisms_still_pass() -> None:
    def rr(c: int, source: RandomSource) -> int:
        return c if source.bernoulli(3, 4) else 1 - c

    witness = assert_pure_dp(rr, [(0, 1)], ratio_bound=3)
    assert witness.ratio == 3
    assert assert_strict_time(rr, [0, 1]) == 1
    assert exact_distribution(lambda s: rr(1, s)) == {0: Fraction(1, 4), 1: Fraction(3, 4)}
