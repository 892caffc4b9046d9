"""Tests for exactdp.accounting: privacy-loss distributions and their exact composition,
checked against brute force written here (explicit product laws, the hockey-stick sum
``sum_o max(0, P(o) - R Q(o))`` over them), never against the module's own formulas."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.accounting import LawError, PrivacyLoss, compose, power
from exactdp.accounting.lattice import common_base, lattice_exponent, relate_bases
from exactdp.certified import compare_exp
from exactdp.checker import counting_distribution
from exactdp.explore import explore
from exactdp.fastsample import FastSample
from exactdp.geosample import GeoSample
from exactdp.params import ParameterError, ParameterTypeError

# --------------------------------------------------------------------------- brute force


def product_law(*laws):
    out = {}
    for combo in itertools.product(*[list(law.items()) for law in laws]):
        p = F(1)
        for _, x in combo:
            p *= x
        key = tuple(o for o, _ in combo)
        out[key] = out.get(key, F(0)) + p
    return out


def brute_hockey(p, q, r):
    total = F(0)
    for o in set(p) | set(q):
        total += max(F(0), p.get(o, F(0)) - r * q.get(o, F(0)))
    return total


def ratios_to_try(p, q):
    """Every ratio of the joint laws, and points between and around them."""
    vals = sorted({p[o] / q[o] for o in p if p[o] and q.get(o)})
    mids = [(a + b) / 2 for a, b in itertools.pairwise(vals)]
    return [F(0), F(1, 3), F(1), *vals, *mids, vals[-1] * 2]


# --------------------------------------------------------------------------- the check


def test_three_geosample_releases_against_the_explored_joint_law():
    mech = GeoSample(4, F(1, 2))

    def joint(c):
        return lambda src: tuple(mech.sample(c, src) for _ in range(3))

    p, q = explore(joint(1)), explore(joint(2))  # the three releases on one source
    loss = PrivacyLoss.of(mech, 1, 2)
    composed = compose(loss, loss, loss)
    three = compose(PrivacyLoss.of(mech, 1, 2), PrivacyLoss.of(mech, 1, 2),
                    PrivacyLoss.of(mech, 1, 2))
    tried = ratios_to_try(p, q)
    assert len(tried) > 10
    for r in tried:
        want = brute_hockey(p, q, r)
        assert composed.delta_at_ratio(r) == want
        assert three.delta_at_ratio(r) == want
    assert composed == PrivacyLoss.from_laws(p, q) == three
    assert composed.on_lattice


def test_thousand_fold_fastsample_delta_at_one_is_certified():
    mech = FastSample(1, F(1, 2), F(1, 100))
    loss = PrivacyLoss.of(mech, 0, 1).power(1000)
    box = loss.delta(1)
    assert 0 < box.lo <= box.hi < 1
    assert box.hi - box.lo < F(1, 10**30)


def test_power_paths_agree_with_atom_by_atom_composition():
    p = {0: F(1, 2), 1: F(1, 3), 2: F(1, 6)}
    q = {0: F(1, 6), 1: F(1, 3), 2: F(1, 2)}
    loss = PrivacyLoss.from_laws(p, q)  # ratios 1/3, 1, 3: a lattice of base 3
    assert loss.on_lattice
    brute = PrivacyLoss.from_laws(product_law(p, p, p, p), product_law(q, q, q, q))
    assert loss.power(4) == brute == compose(*[PrivacyLoss.from_laws(p, q) for _ in range(4)])
    two = PrivacyLoss.from_laws({0: F(2, 3), 1: F(1, 3)}, {0: F(1, 5), 1: F(4, 5)})
    brute2 = PrivacyLoss.from_laws(product_law(*[{0: F(2, 3), 1: F(1, 3)}] * 5),
                                   product_law(*[{0: F(1, 5), 1: F(4, 5)}] * 5))
    assert two.power(5) == brute2  # the binomial closed form


def test_lattices_with_related_bases_compose_on_the_finer_one():
    a = PrivacyLoss.from_laws({0: F(5, 9), 1: F(4, 9)}, {0: F(4, 9), 1: F(5, 9)})
    pb = {0: F(25, 41), 1: F(16, 41)}
    qb = {0: F(16, 41), 1: F(25, 41)}
    b = PrivacyLoss.from_laws(pb, qb)
    got = compose(a, b)
    assert got.on_lattice
    want = PrivacyLoss.from_laws(product_law({0: F(5, 9), 1: F(4, 9)}, pb),
                                 product_law({0: F(4, 9), 1: F(5, 9)}, qb))
    assert got == want


def test_unrelated_ratios_compose_atom_by_atom():
    a = PrivacyLoss.from_laws({0: F(1, 2), 1: F(1, 4), 2: F(1, 4)},
                              {0: F(1, 4), 1: F(1, 4), 2: F(1, 2)})
    b = PrivacyLoss.from_laws({0: F(1, 3), 1: F(1, 3), 2: F(1, 3)},
                              {0: F(1, 6), 1: F(1, 2), 2: F(1, 3)})
    assert not b.on_lattice
    got = compose(a, b)
    want = PrivacyLoss.from_laws(
        product_law({0: F(1, 2), 1: F(1, 4), 2: F(1, 4)}, {0: F(1, 3), 1: F(1, 3), 2: F(1, 3)}),
        product_law({0: F(1, 4), 1: F(1, 4), 2: F(1, 2)}, {0: F(1, 6), 1: F(1, 2), 2: F(1, 3)}))
    assert got == want


def test_infinite_and_zero_ratios():
    p = {"a": F(1, 2), "b": F(1, 2)}
    q = {"a": F(1, 4), "c": F(3, 4)}
    loss = PrivacyLoss.from_laws(p, q)
    assert loss.infinite_mass == F(1, 2) and loss.zero_mass == F(3, 4)
    assert loss.max_ratio is None
    assert loss.delta_at_ratio(10**6) == F(1, 2)
    assert loss.smallest_ratio(F(1, 3)) is None and loss.epsilon(F(1, 3)) is None
    assert loss.smallest_ratio(F(1, 2)) == 2  # P(a) - R Q(a) = 0 at R = 2
    two = loss.power(2)
    pp, qq = product_law(p, p), product_law(q, q)
    assert two == PrivacyLoss.from_laws(pp, qq)
    assert two.infinite_mass == F(3, 4)
    assert loss.reverse() == PrivacyLoss.from_laws(q, p)


def test_delta_interval_and_exact_zero():
    loss = PrivacyLoss.from_laws({0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)})
    box = loss.delta(F(1))  # e < 3: 3/4 - e/4 > 0 lies in the box
    assert box.lo > 0 and box.hi - box.lo < F(1, 2**100)
    assert compare_exp(F(1), 3 - 4 * box.lo) <= 0 and compare_exp(F(1), 3 - 4 * box.hi) >= 0
    zero = loss.delta(F(11, 10))  # e^1.1 > 3: exactly 0
    assert zero.lo == zero.hi == 0


def test_epsilon_interval_contains_ln_of_smallest_ratio():
    loss = PrivacyLoss.from_laws({0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)})
    assert loss.smallest_ratio(0) == 3
    iv = loss.epsilon(0)
    assert compare_exp(iv.lo, F(3)) <= 0 <= compare_exp(iv.hi, F(3))
    assert loss.epsilon(F(1, 2)).hi == 0  # delta(1) = 1/2


def test_of_a_function_mechanism_explores_its_code():
    def rr(x, src):
        return x if src.uniform(4) > 1 else 1 - x

    loss = PrivacyLoss.of(rr, 0, 1)
    assert loss.max_ratio == 3 and loss.delta_at_ratio(1) == F(1, 2)


def test_of_counting_matches_the_checker_laws():
    mech = GeoSample(4, F(1, 2))
    got = PrivacyLoss.of(mech, 0, 1)
    assert got == PrivacyLoss.from_laws(counting_distribution(mech, 0),
                                        counting_distribution(mech, 1))


@pytest.mark.parametrize("p, q, err", [
    ({0: 0.5, 1: 0.5}, {0: F(1, 2), 1: F(1, 2)}, ParameterTypeError),
    ({0: F(1, 2)}, {0: F(1)}, LawError),
    ({}, {0: F(1)}, LawError),
    ([F(1)], {0: F(1)}, ParameterTypeError),
    ({0: F(-1), 1: F(2)}, {0: F(1)}, LawError),
])
def test_from_laws_refuses_bad_laws(p, q, err):
    with pytest.raises(err):
        PrivacyLoss.from_laws(p, q)


def test_bad_arguments():
    loss = PrivacyLoss.from_laws({0: F(1)}, {0: F(1)})
    with pytest.raises(ParameterError):
        loss.delta_at_ratio(-1)
    with pytest.raises(ParameterTypeError):
        loss.delta_at_ratio(0.5)
    with pytest.raises(ParameterError):
        loss.smallest_ratio(2)
    with pytest.raises(ParameterError):
        power(loss, 0)
    with pytest.raises(ParameterTypeError):
        compose(loss, "x")
    with pytest.raises(ParameterError):
        compose()
    with pytest.raises(ParameterError):
        PrivacyLoss.of(GeoSample(4, F(1, 2)), 0, 5)


# --------------------------------------------------------------------------- lattice helpers


def test_lattice_helpers():
    assert lattice_exponent(F(5, 4) ** 7, F(5, 4)) == 7
    assert lattice_exponent(F(3), F(2)) is None
    assert common_base([F(1, 8), F(1, 2), F(2)]) == (F(1, 8), F(4), [0, 1, 2])
    assert common_base([F(1), F(2), F(3)]) is None
    assert common_base([F(1), F(8), F(32)]) == (F(1), F(2), [0, 3, 5])  # a cube root
    assert relate_bases(F(4), F(8)) == (F(2), 2, 3)
    assert relate_bases(F(4), F(16)) == (F(4), 1, 2)
    assert relate_bases(F(2), F(3)) is None


# --------------------------------------------------------------------------- hypothesis

probs = st.lists(st.integers(0, 6), min_size=2, max_size=4).filter(lambda xs: sum(xs) > 0)


def as_law(weights):
    total = sum(weights)
    return {i: F(w, total) for i, w in enumerate(weights) if w}


@settings(max_examples=60, deadline=None)
@given(probs, probs, probs, probs, st.fractions(min_value=0, max_value=20, max_denominator=7))
def test_composition_equals_the_product_laws(w1, w2, w3, w4, r):
    p1, q1, p2, q2 = as_law(w1), as_law(w2), as_law(w3), as_law(w4)
    a, b = PrivacyLoss.from_laws(p1, q1), PrivacyLoss.from_laws(p2, q2)
    pp, qq = product_law(p1, p2), product_law(q1, q2)
    got = a.compose(b)
    assert got == PrivacyLoss.from_laws(pp, qq)
    assert got.delta_at_ratio(r) == brute_hockey(pp, qq, r)
    assert got.reverse().delta_at_ratio(r) == brute_hockey(qq, pp, r)


@settings(max_examples=60, deadline=None)
@given(probs, probs, st.fractions(min_value=0, max_value=1, max_denominator=50))
def test_smallest_ratio_is_the_least(w1, w2, d):
    p, q = as_law(w1), as_law(w2)
    loss = PrivacyLoss.from_laws(p, q)
    r = loss.smallest_ratio(d)
    if r is None:
        assert sum(x for o, x in p.items() if o not in q) > d
        return
    assert r >= 1 and brute_hockey(p, q, r) <= d
    if r > 1:
        assert brute_hockey(p, q, r - F(1, 10**9)) > d


# --------------------------------------------------------------------------- divergences


RR_P, RR_Q = {0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)}


def test_renyi_integer_and_fractional_orders_contain_the_true_value():
    from exactdp.accounting import kl, renyi

    loss = PrivacyLoss.from_laws(RR_P, RR_Q)
    for alpha in (2, 3, 5):
        s = sum(RR_P[o] ** alpha / RR_Q[o] ** (alpha - 1) for o in RR_P)  # exp((a-1) D_a)
        iv = renyi(loss, alpha)
        assert compare_exp((alpha - 1) * iv.lo, s) <= 0 <= compare_exp((alpha - 1) * iv.hi, s)
    # alpha = 3/2: sum P^(3/2) Q^(-1/2) = 5 sqrt(3) / 6, so exp(D) = 25/12
    iv = renyi(loss, F(3, 2))
    assert compare_exp(iv.lo, F(25, 12)) <= 0 <= compare_exp(iv.hi, F(25, 12))
    assert iv.hi - iv.lo < F(1, 2**60)
    # KL = (3/4 - 1/4) ln 3 = ln(3)/2
    k = kl(loss)
    assert compare_exp(2 * k.lo, F(3)) <= 0 <= compare_exp(2 * k.hi, F(3))
    inf = PrivacyLoss.from_laws({0: F(1, 2), 1: F(1, 2)}, {0: F(1)})
    assert renyi(inf, 2) is None and kl(inf) is None
    with pytest.raises(ParameterError):
        renyi(loss, 1)


def test_zcdp_rho_brackets_and_scales_with_releases():
    from exactdp.accounting import renyi, zcdp_rho

    loss = PrivacyLoss.from_laws(RR_P, RR_Q)
    rho = zcdp_rho(loss)
    assert 0 < rho.lo <= rho.hi
    for alpha in (2, 3, F(3, 2)):  # rho >= D_a / a at every order
        assert renyi(loss, alpha).lo / alpha <= rho.hi
    # pure ln(3)-DP gives (ln 3)^2 / 2 zCDP (Bun & Steinke, Prop. 1.4): ln 3 < 11/10
    assert rho.lo <= F(121, 200)
    three = zcdp_rho(loss.power(3))
    assert three.lo <= 3 * rho.hi and 3 * rho.lo <= three.hi
    assert zcdp_rho(PrivacyLoss.from_laws({0: F(1)}, {0: F(1)})).hi == 0


def test_worst_pair_against_brute_force_over_all_pairs():
    from exactdp.accounting import worst_pair
    from exactdp.neighbours import counts

    mech = GeoSample(3, F(1, 2))
    laws = [counting_distribution(mech, c) for c in range(4)]
    r = F(3, 2)
    want = max(brute_hockey(product_law(laws[a], laws[a]), product_law(laws[b], laws[b]), r)
               for a in range(4) for b in range(4) if abs(a - b) == 1)
    got = worst_pair(mech, counts(3), ratio=r, releases=2)
    assert got.delta == want and got.pairs == 6
    a, b = got.pair
    assert brute_hockey(product_law(laws[a], laws[a]), product_law(laws[b], laws[b]), r) == want


def test_from_numerators_matches_from_laws_and_checks_its_input():
    p = {0: F(3, 4), 1: F(1, 4)}
    q = {0: F(1, 4), 1: F(3, 4)}
    got = PrivacyLoss.from_numerators(4, 4, {F(3): (3, 1), F(1, 3): (1, 3)})
    assert got == PrivacyLoss.from_laws(p, q)
    with pytest.raises(LawError, match="ratio"):
        PrivacyLoss.from_numerators(4, 4, {F(2): (3, 1), F(1, 3): (1, 3)})
    with pytest.raises(LawError, match="sum"):
        PrivacyLoss.from_numerators(5, 4, {F(12, 5): (3, 1), F(4, 15): (1, 3)})
    with pytest.raises(ParameterError):
        PrivacyLoss.from_numerators(0, 4, {})


def test_epsilon_of_a_ratio_with_long_numbers_is_certified():
    loss = PrivacyLoss.of(FastSample(1, F(1, 2), F(1, 100)), 0, 1).power(6)
    d = F(1, 1000)
    r = loss.smallest_ratio(d)
    assert r.numerator.bit_length() > 4 * 128 + 256  # the fixed-point bracket is used
    box = loss.epsilon(d)
    assert compare_exp(box.lo, r) <= 0 <= compare_exp(box.hi, r)
    assert box.hi - box.lo < F(1, 2**100)
