"""Theorem 3.1's row (DP-RP-G on the implementation): the calibrated sigma^2 by hand, passes,
and FAILS on planted bugs: one noise draw shared by the projections, sigma passed where
sigma^2 is expected, and a wrong l2 sensitivity."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from exactdp.projections import matrices, rp
from exactdp.proofs.li_li import proj_claim_22_dp_rp_g_theorem_3_1 as row


def test_sigma2_by_hand() -> None:
    """2 (ln(10^5) + 1) = 25.0259...: the next multiple of 1/64 is 1602/64 = 801/32."""
    exact = 2 * (5 * math.log(10) + 1)
    s2 = row.theorem_sigma2(1, Fraction(1))
    assert s2 == Fraction(801, 32)
    assert s2 - Fraction(1, 64) < exact < s2


def test_row_passes() -> None:
    report = row.check(False)
    assert report.verdict and "2 of 2 with delta(eps) > 0" in report.grid


def test_shared_noise_draw_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one draw added to both projections, u and u' (shift (1, -1)) have disjoint
    supports: delta = 1."""
    def add_noise(x, noise, source):  # type: ignore[no-untyped-def]
        z = noise.sample(source)
        return tuple(xj + z for xj in x)
    monkeypatch.setattr(rp, "add_noise", add_noise)
    assert not row.check(False).verdict


def test_sigma_for_sigma2_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = row.theorem_sigma2

    def sigma(l2_sq: int, eps: Fraction) -> Fraction:
        s2 = real(l2_sq, eps)
        return Fraction(math.isqrt(s2.numerator // s2.denominator) + 1)
    monkeypatch.setattr(row, "theorem_sigma2", sigma)
    assert not row.check(False).verdict


def test_wrong_l2_sensitivity_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matrices, "l2_sensitivity_sq", lambda W, beta: beta * beta)
    monkeypatch.setattr(rp, "l2_sensitivity_sq", lambda W, beta: beta * beta)
    assert not row.check(False).verdict
