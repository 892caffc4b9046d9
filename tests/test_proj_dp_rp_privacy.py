"""The DP-RP privacy row (Algorithms 2/3 on the implementation): passes unplanted, FAILS on
planted bugs in the noise and the sensitivity."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.projections import rp
from exactdp.proofs.li_li import proj_claim_18_dp_rp_privacy as row


def test_one_dimensional_delta_by_hand() -> None:
    """k = 1: the weights 2^-(z^2) on [-2, 2] written out, against their shift by 1 at R = 2,
    summed output by output."""
    w = [Fraction(1, 16), Fraction(1, 2), Fraction(1), Fraction(1, 2), Fraction(1, 16)]
    total = sum(w)
    p = {z - 2: x / total for z, x in enumerate(w)}
    q = {z + 1: x for z, x in p.items()}
    want = sum((max(Fraction(0), p.get(y, 0) - 2 * q.get(y, 0)) for y in range(-3, 4)),
               Fraction(0))
    assert row.product_delta(1, Fraction(2)) == want


def test_row_passes_unplanted() -> None:
    assert row.check(False).verdict


def test_noise_on_first_coordinate_only_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def add_noise(x, noise, source):  # type: ignore[no-untyped-def]
        return (noise.add(x[0], source), *x[1:])
    monkeypatch.setattr(rp, "add_noise", add_noise)
    assert not row.gaussian_certificate(2, 2).verdict
    assert not row.laplace_certificate(2, 2).verdict


def test_shared_noise_draw_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def add_noise(x, noise, source):  # type: ignore[no-untyped-def]
        z = noise.add(0, source)
        return tuple((xj + z) % noise.modulus if noise.modulus else xj + z for xj in x)
    monkeypatch.setattr(rp, "add_noise", add_noise)
    assert not row.gaussian_certificate(2, 2).verdict


def test_sensitivity_without_k_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Delta_1 = beta max_i |W_ij| (one projection's sensitivity) instead of beta k."""
    monkeypatch.setattr(rp, "l1_sensitivity", lambda W, beta: beta)
    assert not row.laplace_certificate(2, 2).verdict


def test_rademacher_sensitivity_for_uniform_entries_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Delta_2^2 = beta^2 k whatever W (true only for ±1 rows)."""
    monkeypatch.setattr(rp, "l2_sensitivity_sq", lambda W, beta: beta * beta * len(W[0]))
    assert not row.uniform_certificate().verdict
