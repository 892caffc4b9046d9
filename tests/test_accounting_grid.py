"""Tests for exactdp.accounting.grid: the certified interval must contain the exact
``delta`` of the composed laws, computed here by brute force (explicit product laws and the
hockey-stick sum over them) or by the exact composition where that is checked elsewhere
against brute force."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.accounting import PrivacyLoss
from exactdp.accounting.grid import (
    GridLoss,
    delta_interval,
    epsilon_interval,
    grid_bounds,
    log_exponent,
)
from exactdp.certified import ln_interval
from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.fastsample import FastSample
from exactdp.geosample import GeoSample
from exactdp.params import ParameterError


def product_law(law, k):
    out = {}
    for combo in itertools.product(list(law.items()), repeat=k):
        p = F(1)
        for _, x in combo:
            p *= x
        key = tuple(o for o, _ in combo)
        out[key] = out.get(key, F(0)) + p
    return out


def brute_hockey(p, q, r):
    return sum((max(F(0), p.get(o, F(0)) - r * q.get(o, F(0))) for o in set(p) | set(q)),
               F(0))


def contains(lower: GridLoss, upper: GridLoss, r: F, exact: F) -> bool:
    return lower.delta_at_ratio(r) <= exact <= upper.delta_at_ratio(r)


def test_log_exponent_is_exact_on_and_off_the_lattice():
    b = F(5, 4)
    for e in range(-6, 7):
        x = b**e if e >= 0 else 1 / b**-e
        assert log_exponent(x, b, up=True) == e == log_exponent(x, b, up=False)
        assert log_exponent(x * F(1001, 1000), b, up=True) == e + 1
        assert log_exponent(x * F(1001, 1000), b, up=False) == e
        assert log_exponent(x * F(999, 1000), b, up=False) == e - 1


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 9)), min_size=2, max_size=4),
       st.integers(1, 3), st.sampled_from([F(9, 8), F(33, 32), F(257, 256)]))
def test_interval_contains_the_brute_force_delta(weights, k, base):
    sp = sum(a for a, _ in weights)
    sq = sum(b for _, b in weights)
    if sq == 0:
        return
    p = {i: F(a, sp) for i, (a, _) in enumerate(weights)}
    q = {i: F(b, sq) for i, (_, b) in enumerate(weights) if b}
    pk, qk = product_law(p, k), product_law(q, k)
    lower, upper = (g.power(k) for g in grid_bounds(PrivacyLoss.from_laws(p, q), base))
    ratios = sorted({pk[o] / qk[o] for o in pk if o in qk})
    for r in [F(1, 2), F(1), *ratios, *(x * F(11, 10) for x in ratios)]:
        assert contains(lower, upper, r, brute_hockey(pk, qk, r))


def test_fastsample_off_lattice_composition_is_bracketed_tightly():
    loss = PrivacyLoss.of(FastSample(2, F(1, 2), F(1, 100)), 0, 1)
    assert not loss.on_lattice
    exact = loss.power(6)  # atom by atom (checked against brute force elsewhere)
    lower, upper = (g.power(6) for g in grid_bounds(loss, F(1025, 1024)))
    for r in (F(1), F(3, 2), F(2), F(5, 2)):
        d = exact.delta_at_ratio(r)
        assert contains(lower, upper, r, d)
        assert upper.delta_at_ratio(r) - d <= d / 1000  # the split bound: second order
        assert d - lower.delta_at_ratio(r) <= d / 10


def test_on_lattice_ratios_lose_only_the_mass_rounding():
    loss = PrivacyLoss.of(GeoSample(4, F(1, 2)), 1, 2)  # ratios (5/4)**-1, (5/4)**1
    lower, upper = (g.power(50) for g in grid_bounds(loss, F(5, 4)))
    exact = loss.power(50)
    for r in (F(1), F(5, 4) ** 3, F(7)):
        d = exact.delta_at_ratio(r)
        assert contains(lower, upper, r, d)
        assert upper.delta_at_ratio(r) - lower.delta_at_ratio(r) < F(1, 2**60)


def test_discrete_gaussian_two_fold_is_bracketed():
    law = DiscreteGaussian(4).law()
    shifted = {x + 1: p for x, p in law.items()}
    loss = PrivacyLoss.from_laws(law, shifted)
    assert loss.infinite_mass > 0  # the truncated tail: an outcome impossible under c = 1
    exact = loss.power(2)
    lower, upper = (g.power(2) for g in grid_bounds(loss, F(4097, 4096)))
    for r in (F(1), F(2), F(9), F(40)):
        assert contains(lower, upper, r, exact.delta_at_ratio(r))


def test_epsilon_interval_contains_the_exact_epsilon():
    loss = PrivacyLoss.of(FastSample(2, F(1, 2), F(1, 100)), 0, 1)
    exact = loss.power(5)
    lower, upper = (g.power(5) for g in grid_bounds(loss, F(1025, 1024)))
    for d in (F(1, 10), F(1, 100), F(1, 1000)):
        r = exact.smallest_ratio(d)
        box = epsilon_interval(lower, upper, d)
        ln_r = ln_interval(r, 80)
        assert box.lo <= ln_r.hi and ln_r.lo <= box.hi
        assert box.hi - box.lo < F(1, 100)


def test_delta_interval_at_epsilon_and_errors():
    loss = PrivacyLoss.from_laws({0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)})
    box = delta_interval(loss, 3, epsilon=F(1, 2), base=F(129, 128))
    exact = loss.power(3).delta(F(1, 2))
    assert box.lo <= exact.lo and exact.hi <= box.hi
    with pytest.raises(ParameterError, match="exactly one"):
        delta_interval(loss, 3)
    with pytest.raises(ParameterError, match="base"):
        grid_bounds(loss, F(1))
    with pytest.raises(ParameterError, match="k = 0"):
        grid_bounds(loss)[0].power(0)


def test_planted_bug_an_upper_bound_rounded_down_is_caught():
    """The check above fails when the upper bound is built with the lower bound's rounding
    (ratios rounded down): the exact delta then lies above the claimed upper bound."""
    loss = PrivacyLoss.of(FastSample(2, F(1, 2), F(1, 100)), 0, 1)
    lower, _ = grid_bounds(loss, F(1025, 1024))
    wrong = GridLoss(lower.base, lower.low, lower.masses, lower.inf, lower.bits, True,
                     lower.tail_bits)
    exact = loss.power(4)
    assert not contains(lower.power(4), wrong.power(4), F(1), exact.delta_at_ratio(1))
