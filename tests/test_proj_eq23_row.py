"""Eq. (23)'s row: hand-computed ratios, passes on the implementation, FAILS on planted bugs
in the formula (p and k swapped), in the projection, in the noise draws and in the row's
matching of sigma."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.projections import rp
from exactdp.proofs.li_li import proj_claim_20_eq23_ratio as row

EXACT_PAIR, APPROX_PAIR = row.PAIRS[0], row.PAIRS[1]


def test_two_point_and_convolution_by_hand() -> None:
    assert row.two_point(2).law() == {-2: Fraction(1, 2), 2: Fraction(1, 2)}
    # ±1 plus ±1: -2, 0, 2 with 1/4, 1/2, 1/4
    assert row.convolved(row.two_point(1), 2).law() == {
        -2: Fraction(1, 4), 0: Fraction(1, 2), 2: Fraction(1, 4)}


def test_c_term_by_hand() -> None:
    # u = (1,1,1,1)/2, v = (1,1,-1,-1)/2: rho = 0, sum u^2 v^2 = 4/16 -> c = 1 - 1/2
    assert row.c_term(*APPROX_PAIR) == Fraction(1, 2)
    assert row.c_term(*EXACT_PAIR) == 1


def test_points_by_hand() -> None:
    """p = 4, k = 2, sigma^2 = 1/4 (±1 noise, C = 2): Var_org = 1/2 + 4/16 = 3/4.
    c = 1: Var_rp = 1/2 + 2/16 + 1/2 = 9/8, R = 2/3 = eq. 23.
    c = 1/2: Var_rp = 1/2 + 1/8 + 1/4 = 7/8, R = 6/7; eq. 23 gives 2/3, error -2/9."""
    exact = row.point(*EXACT_PAIR, 2, row.two_point(1), True)
    assert exact["R"] == exact["R23"] == Fraction(2, 3) and not exact["failed"]
    approx = row.point(*APPROX_PAIR, 2, row.two_point(1), False)
    assert approx["R"] == Fraction(6, 7) and approx["R23"] == Fraction(2, 3)
    assert approx["error"] == Fraction(-2, 9) and not approx["failed"]


def test_row_passes_and_is_not_vacuous() -> None:
    report = row.check(False)
    assert report.verdict
    assert "2 of 4 points eq. 23 approximate, 2 with R < 1" in report.grid


def test_p_k_swap_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = row.eq23_ratio
    monkeypatch.setattr(row, "eq23_ratio", lambda p, k, s2: real(k, p, s2))
    assert not row.check(False).verdict


def test_rp_noise_not_matched_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The projections get the raw table's variance instead of k times it (sigma differs)."""
    monkeypatch.setattr(row, "convolved", lambda table, k: table)
    assert not row.check(False).verdict


def test_projection_bug_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = rp.project
    monkeypatch.setattr(rp, "project", lambda u, W: real(u, W)[:-1] + (0,))
    assert not row.check(False).verdict


def test_shared_noise_draw_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def add_noise(x, noise, source):  # type: ignore[no-untyped-def]
        z = noise.add(0, source)
        return tuple(xj + z for xj in x)
    monkeypatch.setattr(rp, "add_noise", add_noise)
    assert not row.check(False).verdict


vec = st.tuples(*[st.integers(-3, 3)] * 4)


@settings(max_examples=200, deadline=None)
@given(vec, vec)
def test_c_between_zero_and_twice_the_norms(u: tuple[int, ...], v: tuple[int, ...]) -> None:
    """The statement's range for c (unnormalised: 0 <= c <= 2 ||u||^2 ||v||^2)."""
    su2, sv2 = sum(a * a for a in u), sum(b * b for b in v)
    c = su2 * sv2 + sum(a * b for a, b in zip(u, v)) ** 2 - 2 * sum(
        a * a * b * b for a, b in zip(u, v))
    assert 0 <= c <= 2 * su2 * sv2
