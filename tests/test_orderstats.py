"""Order statistics (Section 6.1-6.3): OrdSample, ApproxConvExp, ApproxBinSample,
ApproxOrdSample, and the truncated polynomial products under them."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import partial
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.checker import statistical_distance
from exactdp.counting import FastSample, GeoSample
from exactdp.explore import explore
from exactdp.histograms import binomial_bounds, orderstats
from exactdp.histograms.orderstats import (
    ApproxBinDraw,
    BinomialDraw,
    approx_bin_sample,
    approx_conv_exp,
    approx_ord_sample,
    cdf_values,
    doubling_widths,
    ord_sample,
    order_statistics_from_counts,
)
from exactdp.histograms.polymul import (
    BACKENDS,
    floor_divide,
    truncated_product,
    truncated_square,
)
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.proofs.balcer_vadhan._orderstats import (
    binomial_min_pmf,
    exact_convolution_power,
    naive_top_order_statistics,
)
from exactdp.proofs.balcer_vadhan.prop_6_06_remark_bv18 import bv18_order_statistics_sampler
from exactdp.randomness import CallableSource, RandomSource, SeededSource
from exactdp.trace import recording


def _cdf(values: tuple[int, ...]):  # type: ignore[no-untyped-def]
    return lambda z: values[z]


# --------------------------------------------------------------------------- polymul

def _schoolbook(a: list[int], b: list[int], length: int) -> list[int]:
    return [sum(a[i] * b[k - i] for i in range(k + 1) if i < len(a) and k - i < len(b))
            for k in range(length)]


coeffs = st.lists(st.one_of(st.just(0), st.integers(0, 2**70)), max_size=12)


@given(coeffs, coeffs, st.integers(0, 15))
def test_truncated_product_all_backends_equal_schoolbook(a: list[int], b: list[int],
                                                         length: int) -> None:
    expected = _schoolbook(a, b, length)
    for backend in BACKENDS:
        assert truncated_product(a, b, length, backend=backend) == expected
        assert truncated_square(a, length, backend=backend) == _schoolbook(a, a, length)


def test_truncated_product_big_coefficients() -> None:
    rng = random.Random(7)
    a = [rng.getrandbits(5000) for _ in range(40)]
    b = [rng.getrandbits(3000) for _ in range(33)]
    expected = _schoolbook(a, b, 50)
    for backend in BACKENDS:
        assert truncated_product(a, b, 50, backend=backend) == expected


def test_floor_divide() -> None:
    values = [0, 1, 7, 8, 2**200 + 3, 3**150]
    for divisor in (1, 3, 8, 2**64, 3**40 + 1):
        assert floor_divide(values, divisor) == [v // divisor for v in values]


def test_polymul_bad_input() -> None:
    with pytest.raises(ParameterError):
        truncated_product([1], [1], 2, backend="fortran")
    with pytest.raises(ParameterError):
        truncated_product([1, -1], [1], 2)
    with pytest.raises(ParameterError):
        truncated_product([1], [1], -1)
    with pytest.raises(ParameterError):
        floor_divide([1], 0)


# --------------------------------------------------------------------------- inputs

def test_cdf_values_checks_proposition_6_6_hypotheses() -> None:
    assert cdf_values(_cdf((1, 2, 4)), 2, 4) == [1, 2, 4]
    with pytest.raises(DomainError, match="F\\(0\\) = 0"):
        cdf_values(_cdf((0, 2, 4)), 2, 4)  # F maps into [d]_+
    with pytest.raises(DomainError):
        cdf_values(_cdf((2, 1, 4)), 2, 4)  # decreasing
    with pytest.raises(DomainError, match="must equal d"):
        cdf_values(_cdf((1, 2, 3)), 2, 4)
    with pytest.raises(DomainError):
        cdf_values(_cdf((1, 2, 5)), 2, 4)
    with pytest.raises(ParameterTypeError):
        cdf_values(lambda z: Fraction(z + 1), 2, 3)  # type: ignore[arg-type, return-value]
    with pytest.raises(ParameterError):
        cdf_values(_cdf((1,)), 0, 1)


def test_order_statistics_from_counts() -> None:
    assert order_statistics_from_counts([1, 0, 2, 1]) == (3, 2, 2, 0)


# --------------------------------------------------------------------------- exact

@pytest.mark.parametrize(("trials", "num", "den", "cap"),
                         [(5, 1, 3, 3), (4, 2, 4, 6), (3, 0, 5, 2), (3, 5, 5, 2), (6, 2, 7, 0)])
def test_binomial_draw_is_the_capped_binomial(trials: int, num: int, den: int,
                                              cap: int) -> None:
    dist = explore(lambda src: src.inverse_cdf(BinomialDraw(trials, num, den, cap)))
    assert dist == binomial_min_pmf(trials, Fraction(num, den), cap)


def test_binomial_draw_bad_input() -> None:
    with pytest.raises(ParameterError):
        BinomialDraw(3, 4, 3, 1)


@given(st.integers(1, 2), st.data())
def test_ord_sample_equals_naive_order_statistics(n: int, data: st.DataObject) -> None:
    steps = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    first = data.draw(st.integers(1, 3))
    values = tuple(first + sum(steps[:z]) for z in range(n + 1))
    d = values[-1]
    m = data.draw(st.integers(n + 1, n + 3))
    ours = explore(lambda src: ord_sample(_cdf(values), n, d, m, src))
    ideal = explore(lambda src: naive_top_order_statistics(values, d, m, src))
    assert ours == ideal


def test_ord_sample_output_shape_and_errors() -> None:
    geo = GeoSample(5, Fraction(1, 2))
    out = ord_sample(geo.scaled_cdf_at_zero, 5, geo.d, 40, SeededSource(3))
    assert len(out) == 6 and list(out) == sorted(out, reverse=True)
    assert all(0 <= z <= 5 for z in out)
    with pytest.raises(ParameterError, match="n \\+ 1"):
        ord_sample(geo.scaled_cdf_at_zero, 5, geo.d, 5)


def test_footnote_7_top_order_statistic_at_zero() -> None:
    """Footnote 7 (read as Pr[Z_(m) = 0] = Pr[M(0, U) = 0]^m): exact on OrdSample."""
    geo = GeoSample(2, 1)
    for m in (3, 5):
        dist = explore(partial(ord_sample, geo.scaled_cdf_at_zero, 2, geo.d, m))
        top_zero = sum((w for k, w in dist.items() if k[0] == 0), Fraction(0))
        assert top_zero == Fraction(geo.scaled_cdf_at_zero(0), geo.d) ** m


def test_bv18_sampler_is_wrong_for_discrete_f() -> None:
    """The remark before Proposition 6.6, on the smallest case: two fair bits."""
    values = (1, 2)
    true = explore(lambda src: naive_top_order_statistics(values, 2, 2, src))
    wrong = explore(lambda src: bv18_order_statistics_sampler(values, 2, 2, src))
    assert true == {(0, 0): Fraction(1, 4), (1, 0): Fraction(1, 2), (1, 1): Fraction(1, 4)}
    assert wrong == {(0, 0): Fraction(1, 4), (1, 0): Fraction(3, 8), (1, 1): Fraction(3, 8)}
    assert statistical_distance(true, wrong) == Fraction(1, 8)


# --------------------------------------------------------------------------- ApproxConvExp

def test_approx_conv_exp_by_hand() -> None:
    """Algorithm 6.16 squares for even i and multiplies by a for odd i (the proof of
    Proposition 6.15 i states the two cases the other way round -- a slip)."""
    # (3 + x)^2 = 9 + 6x + x^2 -> (9, 6) // 4 = (2, 1);  (3 + x)^3 -> (27, 27) // 16 = (1, 1)
    assert approx_conv_exp([3, 1], 1, 4) == [3, 1]
    assert approx_conv_exp([3, 1], 2, 4) == [2, 1]
    assert approx_conv_exp([3, 1], 3, 4) == [1, 1]
    # i = 4: b = ACE(a, 2) = (2, 1); (b*b) = (4, 4) // 4 = (1, 1)
    assert approx_conv_exp([3, 1], 4, 4) == [1, 1]


@given(st.integers(1, 9), st.data())
def test_approx_conv_exp_padded_is_identical(s: int, data: st.DataObject) -> None:
    t = data.draw(st.integers(1, 4))
    a = data.draw(st.lists(st.integers(0, s), min_size=t, max_size=t))
    i = data.draw(st.integers(1, 200))
    extra = data.draw(st.integers(0, 3))
    assert approx_conv_exp(a, i, s, exponent_rounds=i.bit_length() + extra) == \
        approx_conv_exp(a, i, s)


def test_approx_conv_exp_zero_exponent_is_unit_when_padded() -> None:
    assert approx_conv_exp([3, 1, 0], 0, 4, exponent_rounds=3) == [4, 0, 0]


def test_approx_conv_exp_exact_when_no_flooring_needed() -> None:
    # a = (s, 0..): powers are exact; a = (1, 1) with s = 2^k and small i stays exact too
    assert approx_conv_exp([5, 0, 0], 7, 5) == [5, 0, 0]
    a, s, i = [8, 8], 16, 3
    assert [x * s ** (i - 1) for x in approx_conv_exp(a, i, s)] == exact_convolution_power(a, i)


def test_approx_conv_exp_bad_input() -> None:
    with pytest.raises(ParameterError):
        approx_conv_exp([], 2, 3)
    with pytest.raises(DomainError):
        approx_conv_exp([4], 2, 3)
    with pytest.raises(ParameterError):
        approx_conv_exp([1], 0, 3)
    with pytest.raises(ParameterError):
        approx_conv_exp([1], 8, 3, exponent_rounds=3)
    with pytest.raises(ParameterTypeError):
        approx_conv_exp([True], 2, 3)


# --------------------------------------------------------------------------- ApproxBinSample

def test_doubling_widths() -> None:
    assert doubling_widths(0) == []
    assert doubling_widths(1) == [1]
    assert doubling_widths(4) == [1, 2, 4]
    assert doubling_widths(5) == [1, 2, 4, 8]


def test_approx_bin_sample_exact_distribution_small() -> None:
    """Pr[l] = d^(t)_l / s for l < t (the proof of Proposition 6.17), on one case by hand:
    m = 2, p/q = 1/2, s = 4 -> p' = 2, a = (2, 2); ACE(a, 2) = (4, 8, 4) // 4 truncated."""
    dist = explore(lambda src: approx_bin_sample(2, 1, 2, 4, 3, src))
    assert dist == {0: Fraction(1, 4), 1: Fraction(2, 4), 2: Fraction(1, 4)}
    dist = explore(lambda src: approx_bin_sample(2, 1, 2, 4, 1, src))
    assert dist == {0: Fraction(1, 4), 1: Fraction(3, 4)}


def test_certified_output_agrees_with_the_loop_for_every_u() -> None:
    """The certified decisions of ApproxBinDraw.search agree with Algorithm 6.18's loop
    (and with the CDF the exploring source uses) for every u; hits, misses-to-t and
    undecided u (loop fallback) all occur on this grid."""
    kinds = {"hit": 0, "t": 0, "undecided": 0}
    for m in range(1, 7):
        for q in (1, 3, 7):
            for p in range(q + 1):
                for s in (m, 2 * m + 1, 60, 500):
                    for t in range(1, m + 2):
                        fast = ApproxBinDraw(m, p, q, s, t)
                        slow = ApproxBinDraw(m, p, q, s, t, shortcuts=False)
                        inverse = [slow.cdf(z) for z in range(t + 1)]
                        for u in range(1, s + 1):
                            got = fast.search(u)
                            assert got == slow.search(u)
                            assert got == next(z for z, f in enumerate(inverse) if f >= u)
                            c = fast.certified_output(u)
                            kinds["undecided" if c is None else "t" if c == t else "hit"] += 1
    assert min(kinds.values()) > 1000, kinds


def test_certified_output_on_large_m() -> None:
    """m ~ 2^20 and s ~ 2^400 (the p/q enclosure of pi): certified decisions against the full loop at u values next
    to every threshold G(l) and at random."""
    rng = random.Random(11)
    m, s = (1 << 20) + 3, (1 << 400) + 7
    decided = 0
    for p, q, t in [(1, 3 << 20, 3), (5, 1 << 20, 6), (1, 1 << 14, 4), (1, 1 << 30, 2),
                    (3, 1 << 18, 7)]:
        fast = ApproxBinDraw(m, p, q, s, t)
        slow = ApproxBinDraw(m, p, q, s, t, shortcuts=False)
        cuts = [slow.cdf(z) for z in range(t)]
        us = {1, s, *(c for c in cuts if c >= 1), *(c + 1 for c in cuts if c < s)}
        us |= {rng.randrange(1, s + 1) for _ in range(20)}
        for u in sorted(us):
            assert fast.search(u) == slow.search(u)
            decided += fast.certified_output(u) is not None
    assert decided > 50


def test_certified_output_saturated_binomial() -> None:
    """Bin(2^64, 2^-20) capped at 3: every u returns the cap without computing ACE."""
    draw = ApproxBinDraw(1 << 64, 1, 1 << 20, 1 << 200, 3)
    with recording() as events:
        assert draw.search(1) == 3 and draw.search(1 << 200) == 3
    assert events == [("abs_certified",), ("abs_certified",)]


@pytest.mark.parametrize(("m", "p_prime", "s"),
                         [(1, 1, 3), (7, 2, 5), (30, 1, 1000), (40, 999, 1000), (12, 0, 9),
                          (12, 9, 9), (300, 7, 10**6 + 3)])
def test_binomial_cdf_bounds_enclose_the_exact_cdf(m: int, p_prime: int, s: int) -> None:
    bounds = orderstats.BinomialCDFBounds(m, p_prime, s, s)
    pi = Fraction(p_prime, s)
    cdf = Fraction(0)
    for ell in range(min(m, 40) + 1):
        cdf += comb(m, ell) * pi**ell * (1 - pi) ** (m - ell)
        lo, hi = (Fraction(x) * Fraction(2) ** e for x, e in bounds.at(ell))
        assert lo <= cdf <= hi
        assert hi - lo <= Fraction(1, 2**180) * max(cdf, Fraction(1, 2**60))


def test_binomial_cdf_bounds_tiny_values_keep_relative_precision() -> None:
    """(1 - 2^-10)^(2^40) ~ 2^-(1.44 * 2^30): far below any fixed-point format; the
    relative width stays below 2^-200 (powering multiplies the relative error by m)."""
    lo, hi = orderstats.BinomialCDFBounds(1 << 40, 1, 1 << 10, 1 << 10).at(0)
    assert lo[1] == hi[1] and 0 < lo[0] <= hi[0] < lo[0] + (lo[0] >> 200)
    assert -(1 << 31) < lo[1] < -(1 << 30)


def _fixed(u: int) -> CallableSource:
    return CallableSource(lambda d: u)


def test_approx_bin_sample_padded_trace_is_output_independent() -> None:
    m, p, q, s, t = 6, 2, 5, 40, 5
    traces = set()
    outputs = set()
    for u in range(1, s + 1):
        with recording() as events:
            outputs.add(approx_bin_sample(m, p, q, s, t, _fixed(u), padded=True))
        traces.add(tuple(events))
    assert len(outputs) >= 3
    assert len(traces) == 1
    unpadded = set()
    for u in range(1, s + 1):
        with recording() as events:
            approx_bin_sample(m, p, q, s, t, _fixed(u))
        unpadded.add(tuple(events))
    assert len(unpadded) > 1  # the dependence that padding removes


def test_paper_slip_time_bound_at_output_zero() -> None:
    """Proposition 6.17 bounds the time of a run with output l by
    O~(log q) + O(log m) O~(l log s), i.e. no ApproxConvExp work for l = 0; but the loop
    computes width 1 first, bitlen(m) - 1 ACE rounds: read l + 1 for l."""
    m = 1000
    draw = ApproxBinDraw(m, 1, 10**6, 10**9, 5, shortcuts=False)
    with recording() as events:
        assert draw.search(1) == 0
    assert sum(1 for e in events if e[0] == "ace_round") == m.bit_length() - 1


def test_approx_bin_sample_edge_cases_and_errors() -> None:
    assert approx_bin_sample(3, 1, 2, 5, 0) == 0
    assert approx_bin_sample(0, 1, 2, 5, 3) == 0
    assert explore(lambda src: approx_bin_sample(0, 1, 2, 5, 3, src, padded=True)) == \
        {0: Fraction(1)}
    assert explore(lambda src: approx_bin_sample(3, 0, 2, 5, 3, src)) == {0: Fraction(1)}
    assert explore(lambda src: approx_bin_sample(3, 2, 2, 5, 2, src)) == {2: Fraction(1)}
    with pytest.raises(ParameterError, match="s = 2 must be >= m"):
        approx_bin_sample(3, 1, 2, 2, 1)
    with pytest.raises(DomainError):
        approx_bin_sample(3, 3, 2, 5, 1)
    with pytest.raises(ParameterError):
        approx_bin_sample(3, 1, 2, 5, -1)
    with pytest.raises(ParameterError):
        approx_bin_sample(3, 1, 2, 5, 2, padded=True, pad_t=1)
    with pytest.raises(ParameterTypeError):
        approx_bin_sample(3, 1, 2, Fraction(5), 2)  # type: ignore[arg-type]


def test_approx_bin_sample_against_binomial_bound() -> None:
    """Proposition 6.17 on one larger case than the proof grid (m = 12, t = 6)."""
    m, p, q, s, t = 12, 3, 7, 200, 6
    dist = explore(lambda src: approx_bin_sample(m, p, q, s, t, src))
    gap = statistical_distance(dist, binomial_min_pmf(m, Fraction(p, q), t))
    assert 0 < gap <= Fraction(m * (t + 1) - t, s)


# --------------------------------------------------------------------------- ApproxOrdSample

def test_approx_ord_sample_large_s_close_to_exact() -> None:
    geo = GeoSample(2, 1)
    values = tuple(geo.scaled_cdf_at_zero(z) for z in range(3))
    exact = explore(lambda src: ord_sample(_cdf(values), 2, geo.d, 5, src))
    for s in (5, 400, 10**6):
        approx = explore(partial(approx_ord_sample, _cdf(values), 2, geo.d, 5, s))
        assert statistical_distance(exact, approx) <= Fraction(5 * 8, s)


def test_approx_ord_sample_padded_identical_and_trace_fixed() -> None:
    fast = FastSample(2, 1, Fraction(1, 2))
    cdf, d = fast.scaled_cdf_at_zero, fast.d
    m, s = 7, 300
    plain = explore(lambda src: approx_ord_sample(cdf, 2, d, m, s, src))
    padded = explore(lambda src: approx_ord_sample(cdf, 2, d, m, s, src, True, max_m=64))
    assert plain == padded
    traces, outputs = set(), set()
    for seed in range(40):
        with recording() as events:
            outputs.add(approx_ord_sample(cdf, 2, d, m, s, SeededSource(seed), True, max_m=64))
        traces.add(tuple(events))
    assert len(outputs) > 1 and len(traces) == 1


def test_approx_ord_sample_pure_sparse_size() -> None:
    """PureSparseHistogram sizes (|X| = 2^64, eps = 1/10, beta = 1/20, FastSample), n = 60:
    the v = n call is saturated and decided by the certified shortcut."""
    n, size = 60, 1 << 64
    eps, beta = Fraction(1, 10), Fraction(1, 20)
    delta = eps / 3 * (beta / 4) * Fraction(1, 3 * size) ** n
    s = (n * n + 2 * n) * size * delta.denominator
    mech = FastSample(n, eps, beta / (8 * size))
    out = approx_ord_sample(mech.scaled_cdf_at_zero, n, mech.d, size - n, s, SeededSource(5))
    assert out == (n,) * (n + 1)


def test_approx_ord_sample_errors() -> None:
    geo = GeoSample(2, 1)
    with pytest.raises(ParameterError, match="s = 3 must be >= m"):
        approx_ord_sample(geo.scaled_cdf_at_zero, 2, geo.d, 4, 3)
    with pytest.raises(ParameterError):
        approx_ord_sample(geo.scaled_cdf_at_zero, 2, geo.d, 2, 10)
    with pytest.raises(ParameterError):
        approx_ord_sample(geo.scaled_cdf_at_zero, 2, geo.d, 4, 10, padded=True, max_m=3)


def test_binomial_min_pmf_reference() -> None:
    """The reference used by the proofs is the binomial pmf."""
    pmf = binomial_min_pmf(4, Fraction(1, 3), 2)
    assert pmf[0] == Fraction(16, 81) and pmf[1] == comb(4, 1) * Fraction(8, 81)
    assert sum(pmf.values()) == 1


def test_inverse_cdf_default_path_matches_exploration() -> None:
    """RandomSource.inverse_cdf (search(uniform(d))) and the exploring source's branching
    on cdf give the same law for ApproxBinDraw -- the two paths of every draw."""
    draw = ApproxBinDraw(5, 2, 7, 23, 4)
    by_search = explore(lambda src: RandomSource.inverse_cdf(src, draw))
    by_cdf = explore(lambda src: src.inverse_cdf(draw))
    assert by_search == by_cdf


@given(st.integers(1, 1 << 70), st.integers(0, 1 << 40), st.integers(1, 3000),
       st.integers(300, 2000), st.integers(0, 10**6), st.integers(1, 1 << 700))
def test_certified_zero_implies_the_exact_bernoulli_test(
        m: int, p_small: int, q_bits: int, s_bits: int, seed: int, u_frac: int) -> None:
    """certified_zero(u) (leading bits of p, q, s, u only) => u + m - 1 <= s (1 - m p/q),
    decided here with exact Fractions, hence u <= s P_0 - (m - 1) (Bernoulli); and with
    p = 0 and u far below s it decides."""
    rng = random.Random(seed)
    q = rng.getrandbits(q_bits) | (1 << (q_bits - 1)) | 1
    p = min(p_small * (q >> 60), q)
    s = rng.getrandbits(s_bits) | (1 << (s_bits - 1))
    u = 1 + u_frac % s
    if orderstats.BinomialCDFBounds(m, p, q, s).certified_zero(u):
        assert u + m - 1 <= s * (1 - m * Fraction(p, q))
    if s > 4 * m:
        assert orderstats.BinomialCDFBounds(m, 0, q, s).certified_zero(s // 2)


@given(st.integers(1, 2000), st.integers(0, 1 << 300), st.integers(-3000, 200),
       st.integers(0, 10**9), st.integers(-5, 5))
def test_times_lt_is_the_exact_comparison(s_bits: int, mant: int, exp: int, seed: int,
                                          near: int) -> None:
    """_times_lt(x, s, u) == (s x < u), decided here with Fractions, for s of up to 2000
    bits (the leading-bit tests apply above 400) and u random or within a few units of
    floor(s x) (where only the exact product decides)."""
    rng = random.Random(seed)
    s = rng.getrandbits(s_bits) | (1 << (s_bits - 1))
    x = Fraction(mant) * Fraction(2) ** exp
    exact = (s * x.numerator) // x.denominator
    for u in (rng.randrange(0, 2 * s + 2), exact + near, exact + 1, exact):
        assert binomial_bounds.times_lt((mant, exp), s, u) == (s * x < u)
