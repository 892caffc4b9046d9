"""Certified binomial tails, exact tests and Clopper--Pearson bounds (exactdp.binomial).

Oracles: exact rational sums of binomial terms (small K), and exact coverage / false-alarm
probabilities computed by summing the binomial pmf over the rejection region.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.binomial import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    critical_counts,
    lower_tail,
    upper_tail,
)
from exactdp.certified import Interval
from exactdp.params import FloatParameterError, ParameterError


def pmf(K: int, p: Fraction, i: int) -> Fraction:
    return comb(K, i) * p**i * (1 - p) ** (K - i)


def exact_upper(K: int, p: Fraction, x: int) -> Fraction:
    return sum((pmf(K, p, i) for i in range(max(x, 0), K + 1)), Fraction(0))


probabilities = st.integers(1, 40).flatmap(
    lambda q: st.integers(0, q).map(lambda a: Fraction(a, q)))


@given(st.integers(0, 60), probabilities, st.integers(-2, 62))
def test_upper_tail_contains_the_exact_sum_and_is_tight(K: int, p: Fraction, x: int) -> None:
    exact = exact_upper(K, p, x) if x <= K else Fraction(0)
    box = upper_tail(K, p, x)
    assert box.lo <= exact <= box.hi
    assert box.hi - box.lo <= exact * Fraction(1, 2**40) + Fraction(1, 2**80)


@given(st.integers(0, 60), probabilities, st.integers(-2, 62))
def test_lower_tail_contains_the_exact_sum(K: int, p: Fraction, x: int) -> None:
    exact = sum((pmf(K, p, i) for i in range(min(x, K) + 1)), Fraction(0))
    box = lower_tail(K, p, x)
    assert box.lo <= exact <= box.hi


def test_large_K_tail_is_fast_and_sane() -> None:
    box = upper_tail(100_000, Fraction(1, 3), 34_000)
    # 34000 is mean + 4.47 sd; the normal approximation gives about 3.9e-6 (sanity range)
    assert Fraction(2, 10**6) < box.lo <= box.hi < Fraction(8, 10**6)


@given(st.integers(1, 40), probabilities,
       st.sampled_from([Fraction(1, 10), Fraction(1, 40), Fraction(1, 1000)]))
def test_critical_counts_are_valid_and_minimal(K: int, p: Fraction, level: Fraction) -> None:
    crit = critical_counts(K, p, level)
    # validity: the exact rejection probabilities are within the level on each side
    assert exact_upper(K, p, crit.k_hi) <= level
    assert sum((pmf(K, p, i) for i in range(crit.k_lo + 1)), Fraction(0)) <= level
    # minimality (up to the certified rounding, which is far below these gaps here)
    if crit.k_hi - 1 >= 0 and crit.k_hi <= K:
        assert exact_upper(K, p, crit.k_hi - 1) > level
    if crit.k_lo >= 0:
        assert sum((pmf(K, p, i) for i in range(crit.k_lo + 2)), Fraction(0)) > level


@given(st.integers(1, 30), probabilities)
def test_two_sided_false_alarm_is_at_most_twice_the_level(K: int, p: Fraction) -> None:
    level = Fraction(1, 20)
    crit = critical_counts(K, p, level)
    false_alarm = sum((pmf(K, p, i) for i in range(K + 1) if crit.rejects(i)), Fraction(0))
    assert false_alarm <= 2 * level


def test_interval_reference_holds_for_every_p_inside() -> None:
    box = Interval(Fraction(3, 10), Fraction(7, 20))
    K, level = 50, Fraction(1, 100)
    crit = critical_counts(K, box, level)
    for p in (box.lo, (box.lo + box.hi) / 2, box.hi):
        fa = sum((pmf(K, p, i) for i in range(K + 1) if crit.rejects(i)), Fraction(0))
        assert fa <= 2 * level


def test_power_band_from_the_binomial_median() -> None:
    K, level = 200, Fraction(1, 1000)
    crit = critical_counts(K, Fraction(1, 4), level)
    above, below = crit.detect_above, crit.detect_below
    assert above is not None and below is not None
    # a true probability at the band edge is rejected with probability >= 1/2
    assert exact_upper(K, above, crit.k_hi) >= Fraction(1, 2)
    assert sum((pmf(K, below, i) for i in range(crit.k_lo + 1)), Fraction(0)) >= Fraction(1, 2)


def test_degenerate_references() -> None:
    zero = critical_counts(10, Fraction(0), Fraction(1, 10))
    assert zero.k_hi == 1 and zero.k_lo == -1 and not zero.rejects(0) and zero.rejects(1)
    one = critical_counts(10, Fraction(1), Fraction(1, 10))
    assert one.k_hi == 11 and one.k_lo == 9 and one.rejects(9) and not one.rejects(10)


@pytest.mark.parametrize("K", [1, 5, 20])
def test_clopper_pearson_coverage_is_at_least_one_minus_level(K: int) -> None:
    level = Fraction(1, 10)
    lows = [clopper_pearson_lower(x, K, level, bits=24) for x in range(K + 1)]
    highs = [clopper_pearson_upper(x, K, level, bits=24) for x in range(K + 1)]
    for j in range(1, 40):
        p = Fraction(j, 40)
        cover_lo = sum((pmf(K, p, x) for x in range(K + 1) if lows[x] <= p), Fraction(0))
        cover_hi = sum((pmf(K, p, x) for x in range(K + 1) if highs[x] >= p), Fraction(0))
        assert cover_lo >= 1 - level
        assert cover_hi >= 1 - level


def test_clopper_pearson_matches_the_beta_quantile_closed_form() -> None:
    # x = K: the exact lower bound solves p**K = level; for level = 1/2**K it is 1/2.
    assert clopper_pearson_lower(5, 5, Fraction(1, 32), bits=30) == Fraction(1, 2)
    assert clopper_pearson_lower(0, 9, Fraction(1, 10)) == 0
    assert clopper_pearson_upper(9, 9, Fraction(1, 10)) == 1
    lo = clopper_pearson_lower(500, 1000, Fraction(1, 40))
    hi = clopper_pearson_upper(500, 1000, Fraction(1, 40))
    assert lo < Fraction(1, 2) < hi and hi - Fraction(1, 2) == Fraction(1, 2) - lo


def test_bad_arguments() -> None:
    with pytest.raises(ParameterError):
        upper_tail(10, Fraction(3, 2), 1)
    with pytest.raises(ParameterError):
        upper_tail(-1, Fraction(1, 2), 1)
    with pytest.raises(FloatParameterError):
        upper_tail(10, 0.5, 1)
    with pytest.raises(ParameterError):
        critical_counts(10, Fraction(1, 2), Fraction(1, 2))
    with pytest.raises(ParameterError):
        clopper_pearson_lower(11, 10, Fraction(1, 10))
    with pytest.raises(ParameterError):
        clopper_pearson_lower(1, 10, Fraction(0))
