"""Theorem 4.6's mean and variance of the de-biased collision estimator on the implementation's
exact law: the row passes unplanted and FAILS on each planted bug."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.projections import estimators, signs
from exactdp.projections.rr import Base
from exactdp.proofs.li_li import proj_claim_06_rr_variance as row


def test_theorem_value_by_hand() -> None:
    """rho = 3/2, P = 0: 2 rho/(rho-1)^2 = 12, 4 rho^2/(rho-1)^4 = 144; rho = 2, P = 1/2:
    1/4 + 4 + 16."""
    assert row.v_rr(Fraction(0), Fraction(3, 2)) == 156
    assert row.v_rr(Fraction(1, 2), Fraction(2)) == Fraction(81, 4)


def test_row_passes_unplanted() -> None:
    rep = row.check(False)
    assert rep.verdict and rep.certificates[-1].worst > 0


def test_wrong_debias_constant_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """eq. 29 with rho/(rho-1)^2 in place of 2 rho/(rho-1)^2: biased."""
    orig = estimators.debias_rr_collision

    def biased(fraction, base):  # type: ignore[no-untyped-def]
        rho = base.ratio
        return orig(fraction, base) + rho / (rho - 1) ** 2
    monkeypatch.setattr(estimators, "debias_rr_collision", biased)
    assert not row.check(False).verdict


def test_one_draw_for_all_bits_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """All bits of a release flipped together by one draw: the mean is right, the k = 2
    variance is not V_RR/2."""
    def sample(self, u, source=None):  # type: ignore[no-untyped-def]
        x = signs.project(u, self.W)
        keep = source.uniform(self.base.a + self.base.b) <= self.base.a
        return tuple((1 if xj > 0 else -1) * (1 if keep else -1) for xj in x)
    monkeypatch.setattr(signs.DPSignRPRR, "sample", sample)
    certs = row.check(False).certificates
    assert all(c.verdict for c in certs if c.parameters.get("k") == 1)
    assert not all(c.verdict for c in certs if c.parameters.get("k") == 2)


def test_flip_probability_halved_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Flip with b/(2(a+b)) instead of b/(a+b): the de-biasing no longer matches, biased.
    (Swapping keep and flip would not be seen: both releases flip alike and the collision law
    is unchanged.)"""
    monkeypatch.setattr(row, "BASES", (Base(3, 2),))

    def sample(self, u, source=None):  # type: ignore[no-untyped-def]
        x = signs.project(u, self.W)
        d = 2 * (self.base.a + self.base.b)
        return tuple((1 if xj > 0 else -1) * (1 if source.uniform(d) <= d - self.base.b else -1)
                     for xj in x)
    monkeypatch.setattr(signs.DPSignRPRR, "sample", sample)
    assert not row.check(False).verdict
