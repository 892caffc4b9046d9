"""exactdp.testing for real test suites (issue 10, item 6): the counting fast path, claims
as ratio_bound=, assert_strict_time, and failure messages naming the pair and outcome.

Expected values are derived by hand here: randomized response with keep-probability 3/4
has worst ratio 3 and hockey-stick divergence p - r q at ratio r; GeoSample's worst ratio
is 1 + 2^-k (Theorem 4.7).
"""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from exactdp.checker import NotMonotoneError
from exactdp.counting import GeoSample
from exactdp.params import ParameterError
from exactdp.randomness import RandomSource
from exactdp.testing import (
    CountingFunction,
    OracleAssertionError,
    assert_approx_dp,
    assert_pure_dp,
    assert_strict_time,
    exact_distribution,
)


def rr(x: int, source: RandomSource) -> int:
    """Randomized response: keep the bit with probability 3/4 (ratio exactly 3)."""
    return x if source.bernoulli(3, 4) else 1 - x


# ---------------------------------------------------------------- ratio_bound= claims

def test_ln3_dp_as_ratio_bound() -> None:
    worst = assert_pure_dp(rr, [(0, 1)], ratio_bound=3)  # ln(3)-DP: epsilon irrational
    assert worst.ratio == 3
    with pytest.raises(OracleAssertionError) as info:
        assert_pure_dp(rr, [(0, 1)], ratio_bound=Fraction(299, 100))
    msg = str(info.value)
    assert "not (ln(299/100), 0)-DP" in msg and "inputs x = 0, x' = 1, outcome 0" in msg
    assert "Pr[M(0) = 0] = 3/4" in msg and "Pr[M(1) = 0] = 1/4" in msg and "ratio 3" in msg


def test_approx_dp_with_ratio_bound_is_exact() -> None:
    # at ratio 2: max(0, 3/4 - 2 * 1/4) + max(0, 1/4 - 2 * 3/4) = 1/4 (by hand)
    assert assert_approx_dp(rr, [(0, 1)], delta=Fraction(1, 4), ratio_bound=2) == Fraction(1, 4)
    with pytest.raises(OracleAssertionError) as info:
        assert_approx_dp(rr, [(0, 1)], delta=Fraction(1, 5), ratio_bound=2)
    msg = str(info.value)
    assert "hockey-stick divergence at ratio 2 is exactly 1/4, above delta = 1/5" in msg
    assert "inputs x = 0, x' = 1" in msg and "outcome 0: Pr[M(0) = 0] = 3/4" in msg


def test_exactly_one_claim() -> None:
    with pytest.raises(ParameterError, match="exactly one of epsilon"):
        assert_pure_dp(rr, [(0, 1)])
    with pytest.raises(ParameterError, match="exactly one of epsilon"):
        assert_pure_dp(rr, [(0, 1)], 1, ratio_bound=3)
    with pytest.raises(ParameterError, match="must be >= 1"):
        assert_pure_dp(rr, [(0, 1)], ratio_bound=Fraction(1, 2))
    with pytest.raises(ParameterError, match="delta must be given"):
        assert_approx_dp(rr, [(0, 1)], ratio_bound=3)


def test_epsilon_failure_prints_decimals_that_differ() -> None:
    # ln 3 = 1.0986...: epsilon 1.0986 is just below, so the ratio 3 exceeds e^eps by ~1e-4
    with pytest.raises(OracleAssertionError) as info:
        assert_pure_dp(rr, [(0, 1)], Fraction(10986, 10000))
    msg = str(info.value)
    assert "inputs x = 0, x' = 1, outcome 0" in msg
    tail = msg.split("; ")[-1]
    left, right = tail.split(" > e^(5493/5000) ")
    assert left == "3.00000000" and right.startswith("in [2.999") and "..." not in msg


# ---------------------------------------------------------------- counting fast path

def test_counting_sampler_fast_path_equals_exploration() -> None:
    geo = GeoSample(4, Fraction(1, 2))  # d = 1125; worst ratio 5/4 (Theorem 4.7, k = 2)
    pairs = [(c, c + 1) for c in range(4)]
    fast = assert_pure_dp(geo, pairs, Fraction(1, 4))
    slow = assert_pure_dp(lambda x, s: geo(x, s.uniform(geo.d)), pairs, Fraction(1, 4))
    assert fast.ratio == slow.ratio == Fraction(5, 4)
    # the same exact laws, through a user's f(c, u) wrapped as CountingFunction
    wrapped = CountingFunction(lambda c, u: geo(c, u), d=geo.d, n=4)
    assert assert_pure_dp(wrapped, pairs, ratio_bound=Fraction(5, 4)).ratio == Fraction(5, 4)


def test_counting_function_large_d_uses_thresholds() -> None:
    """d = 10^12: exploring would branch 10^12 ways; thresholds take O(n log d) calls.
    f(c, u) = 0 for u <= t_c, else 1, with t_0 = d/2 and t_1 = d/2 - 10^6.  By hand: the
    worst ratio is Pr[M(0) = 0] / Pr[M(1) = 0] = (d/2) / (d/2 - 10^6) (outcome 1's
    reverse ratio (d/2 + 10^6) / (d/2) is smaller)."""
    d = 10**12
    half = d // 2
    calls = [0]

    def f(c: int, u: int) -> int:
        calls[0] += 1
        return 0 if u <= half - c * 10**6 else 1

    expected = Fraction(half, half - 10**6)
    mech = CountingFunction(f, d=d, n=1)
    start = time.process_time()
    worst = assert_pure_dp(mech, [(0, 1)], ratio_bound=expected)
    assert time.process_time() - start < 30 and calls[0] < 1000
    assert worst.ratio == expected and worst.outcome == 0
    with pytest.raises(OracleAssertionError, match="inputs x = 0, x' = 1, outcome 0"):
        assert_pure_dp(mech, [(0, 1)], ratio_bound=expected - Fraction(1, 10**15))


def test_counting_function_refuses_non_monotone_and_bad_inputs() -> None:
    mech = CountingFunction(lambda c, u: 1 if u == 5000 else 0, d=10**4, n=1)
    with pytest.raises(NotMonotoneError):
        assert_pure_dp(mech, [(0, 1)], 1)
    with pytest.raises(ParameterError, match="must be an int in"):
        assert_pure_dp(GeoSample(2, Fraction(1, 2)), [(0, 3)], 1)


# ---------------------------------------------------------------- strict time

def test_strict_time_passes_for_geosample_and_constant_time_rr() -> None:
    length = assert_strict_time(GeoSample(4, Fraction(1, 2)))
    assert length is not None and length >= 1
    assert assert_strict_time(rr, [0, 1]) == 1  # one draw: ("uniform", 4)


def test_strict_time_catches_an_input_dependent_loop() -> None:
    def early_exit(x: int, source: RandomSource) -> int:
        for _ in range(x + 1):  # one more draw per unit of input: a timing channel
            if source.bernoulli(1, 2):
                return x
        return 1 - x

    assert exact_distribution(lambda s: early_exit(0, s)) == {0: Fraction(1, 2),
                                                              1: Fraction(1, 2)}
    with pytest.raises(OracleAssertionError) as info:
        assert_strict_time(early_exit, [0, 1])
    msg = str(info.value)
    assert "between inputs x = 0 and x' = 1" in msg and "uniform 2" in msg


def test_strict_time_catches_a_counting_sampler_with_a_linear_search() -> None:
    class Linear(GeoSample):
        def _search(self, c: int, u: int) -> int:  # scans from 0: rounds depend on c
            z = 0
            while self.cdf(c, z) < u:
                z += 1
            return z

    with pytest.raises(OracleAssertionError, match="operation traces differ: input c = "):
        assert_strict_time(Linear(4, Fraction(1, 2)))


def test_strict_time_needs_inputs_and_refuses_ignored_ones() -> None:
    with pytest.raises(ParameterError, match="two or more"):
        assert_strict_time(rr, [0])
    with pytest.raises(ParameterError, match="every count in"):
        assert_strict_time(GeoSample(2, Fraction(1, 2)), [0, 1])
