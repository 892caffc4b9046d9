"""Tests for exactdp.convolution.lower_bounds and baselines (paper 002 Thm 5, Thm 10, Lemma 2,
eq. 5, Algorithm 2 / P7) against independent computations."""

from __future__ import annotations

import cmath
import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.convolution.baselines import (
    algorithm2_mse,
    cyclic_magnitudes,
    geometric_variance,
    input_perturbation_mse,
    output_perturbation_mse,
    paper_mse,
    paper_mse_interval,
    pi_interval,
    walsh_magnitudes,
)
from exactdp.convolution.lower_bounds import (
    cauchy_binet,
    det,
    harmonic_inequality,
    herdisc2_sq,
    lemma2_walsh,
    spec_lb,
    spec_lb_core,
    walsh_matrix,
    xor_circulant_matrix,
)
from exactdp.noise import ClampedGeometric
from exactdp.params import ParameterError, ResourceLimitError


def test_spec_lb():
    assert spec_lb_core([1, 16, 4, 4]) == (F(36), 3)  # 1*16, 4*4, 9*4, 16*1
    assert spec_lb([16, 4, 4, 4]) == F(16 * 4, 16 * 4)  # max K^2 m = 16 (K=1,2) ... /(N^2 log^2 N)
    with pytest.raises(ParameterError):
        spec_lb([1, 2, 3])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=12))
def test_harmonic_inequality_theorem_10(values):
    if not any(values):
        return
    check = harmonic_inequality([F(v) for v in values])
    assert check.lhs.lo == sum(abs(v) for v in values)
    assert check.holds
    sq = harmonic_inequality(magnitudes_sq=[F(v * v) for v in values])
    assert sq.holds and sq.lhs.lo <= check.lhs.lo <= sq.lhs.hi


def test_harmonic_inequality_is_tight_for_harmonic_magnitudes():
    # |lambda_(i)| = 1/i: sum = H_n = H_n * max_K K (1/K): equality (not strict)
    mags = [F(1, i) for i in range(1, 9)]
    c = harmonic_inequality(mags)
    assert c.lhs.lo == c.rhs.lo
    # and a planted violation is caught: drop H from the right-hand side
    assert not (c.lhs.hi <= c.max_k_lambda.lo)


def test_det_and_cauchy_binet():
    assert det([[2, 1], [1, 1]]) == 1
    assert det([[0, 1], [1, 0]]) == -1
    assert det([[1, 2], [2, 4]]) == 0
    c = [[1, 2, 0, -1], [3, 0, 1, 1]]
    g, s, m = cauchy_binet(c)
    assert g == 6 * 11 - 2 * 2  # C C^T = [[6, 2], [2, 11]]
    brute = sum((det([[c[0][i], c[0][j]], [c[1][i], c[1][j]]]) ** 2
                 for i, j in itertools.combinations(range(4), 2)), F(0))
    assert g == brute and s == brute and m <= s


def test_herdisc_notes_example():
    """CONV.md §6 claim 8: h = [1,1,1,0] on Z_2^2 has herdisc2^2 = 5, while
    max K |det B|^{2/K} = 4 sqrt 3 ~ 6.93 (so C' < 1)."""
    h = xor_circulant_matrix([1, 1, 1, 0])
    value, _ = herdisc2_sq(h)
    assert value == 5
    # independent brute force over all subsets and sign vectors (no symmetry shortcut)
    best = F(0)
    for size in range(1, 5):
        for sub in itertools.combinations(range(4), size):
            low = min(sum((sum(h[i][j] * v for j, v in zip(sub, signs)) ** 2 for i in range(4)),
                          F(0)) for signs in itertools.product((1, -1), repeat=size))
            best = max(best, low)
    assert best == value
    with pytest.raises(ResourceLimitError):
        herdisc2_sq([[1] * 9])


def test_lemma2_walsh():
    rows = lemma2_walsh([1, 1, 1, 0])
    lam_sq = sorted((v * v for v in walsh_magnitudes([1, 1, 1, 0])), reverse=True)
    prod = F(1)
    for row, m in zip(rows, lam_sq):
        prod *= m
        assert row.gram_det == row.product == prod == row.cauchy_binet_sum  # Cauchy-Binet
        assert row.bound_holds
        assert row.max_det_sq <= row.cauchy_binet_sum
    for h in ([1, 0, 0, 0, 0, 0, 0, 0], [1, 2, 0, 1, 0, 0, 3, 1], [1, -1, 1, 1]):
        for row in lemma2_walsh(h):
            assert row.gram_det == row.product == row.cauchy_binet_sum
            assert row.bound_holds


def test_walsh_matrix_squares_to_n():
    for n in (1, 2, 4, 8):
        w = walsh_matrix(n)
        assert [[sum(w[i][k] * w[k][j] for k in range(n)) for j in range(n)]
                for i in range(n)] == [[n if i == j else 0 for j in range(n)] for i in range(n)]


def test_geometric_variance_matches_the_noise_law():
    # wide clamp window: the variance of the clamped law approaches 2r/(r-1)^2 from below
    r = F(3)
    law = ClampedGeometric(1 / r, -60, 60).law(0)
    var = sum((v * v * p for v, p in law.items()), F(0))
    assert var <= geometric_variance(r) and geometric_variance(r) - var < F(1, 10**20)
    assert geometric_variance(r) == F(3, 2)


def test_input_and_output_perturbation():
    r, mse = input_perturbation_mse([1, 1, 0, 0], 1)
    assert mse == 2 * geometric_variance(r)
    r2, mse2, how = output_perturbation_mse([1, 1, 0, 0], 1)
    assert how == "pure" and r2 * r2 < F(27183, 10000) and mse2 == geometric_variance(r2)
    r3, _, how3 = output_perturbation_mse([1, 1, 0, 0], 1, F(1, 10**6))
    # two outputs move by 1: delta = 1e-6 buys nothing over pure eps/2 per output
    assert how3 == "exact" and r2 * (1 - F(1, 10**4)) <= r3 and r3 * r3 < F(27183, 10000)
    with pytest.raises(ParameterError):
        output_perturbation_mse([F(1, 2)], 1)  # type: ignore[list-item]


def test_cyclic_magnitudes_certified():
    pi = pi_interval()
    assert F(31415926535897932384, 10**19) < pi.lo <= pi.hi < F(31415926535897932385, 10**19)
    for h in ([1, 2, 0, -1, 3], [1, 1, 1, 0, 0, 0], [F(1, 3), 2, 5]):
        ivs = cyclic_magnitudes(h)
        for m, iv in enumerate(ivs):
            ref = abs(sum(float(h[n]) * cmath.exp(-2j * cmath.pi * m * n / len(h))
                          for n in range(len(h))))
            # float reference: only as a sanity check of the certified enclosure (test only)
            assert float(iv.lo) - 1e-9 <= ref <= float(iv.hi) + 1e-9
            assert iv.hi - iv.lo < F(1, 10**15)
    # the Walsh and cyclic spectra agree at N = 2 (both are +-1 transforms)
    assert all(w in iv for iv, w in zip(cyclic_magnitudes([3, 1]), walsh_magnitudes([3, 1])))


def test_p7_algorithm_2_printed_vs_fixed():
    """CONV.md §5 P7: h = 1 at N = 1024, eps = 1, delta = 1e-6: printed ~ 6.2e5, fixed ~ 608,
    Algorithm 1 (eq. 5) ~ 55; printed/fixed = N exactly."""
    n = 1024
    mags = [F(n)] + [F(0)] * (n - 1)
    printed = algorithm2_mse(mags, 1, F(1, 10**6), printed=True)
    fixed = algorithm2_mse(mags, 1, F(1, 10**6), printed=False)
    assert printed.lo == n * fixed.lo and printed.hi == n * fixed.hi
    assert 607 < fixed.lo <= fixed.hi < 609
    assert 622_000 < printed.lo
    eq5 = paper_mse_interval(mags, 1, F(1, 10**6))
    assert 55 < eq5.lo <= eq5.hi < 56


def test_eq5_walsh_conjunction_is_independent_of_d():
    """Notes §1.4: k-way conjunction on Z_2^d, ||h^||_1 = 2^{d/2}: MSE = 4L/eps^2 for all d."""
    values = []
    for d in (2, 3, 4):
        n = 2**d
        h = [1 if (c & 0b11) == 0 else 0 for c in range(n)]  # conjunction on 2 bits
        values.append(paper_mse_interval(walsh_magnitudes(h), 1, F(1, 1000)))
    assert values[0] == values[1] == values[2]
    assert paper_mse([1, 0, 0, 0], 1, F(1, 1000), group="xor") == values[0]
    # cyclic: h = e_0 has |lambda_m| = 1 for all m: eq. 5 = 4 L / eps^2 as well
    cyc = paper_mse([1, 0, 0, 0, 0], 1, F(1, 1000), group="cyclic")
    assert cyc.lo <= values[0].lo and values[0].hi <= cyc.hi and cyc.hi - cyc.lo < F(1, 10**12)
