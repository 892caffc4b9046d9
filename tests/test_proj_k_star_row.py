"""The k* row (after Theorem 4.6): hand-computed pieces, the variance of the implementation's
estimate from a full exploration (k = 2), and FAILS on planted bugs: an objective without
the 1/k, k* without the square root, an off-by-one flip threshold in the sampler, and a
halved per-bit budget."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.explore import explore
from exactdp.projections import rr
from exactdp.projections.estimators import collision_fraction, debias_rr_collision
from exactdp.projections.matrices import sample_rademacher
from exactdp.projections.signs import DPSignRPRR
from exactdp.proofs.li_li import proj_slip_p13_k_star_argmin as row
from tests._plant import plant

HALF, EIGHTH = Fraction(1, 2), Fraction(1, 8)


def test_fragile_probability_by_hand() -> None:
    """x = a + 3(w4 + w5) with a = w1 + w2 + w3: |x| <= 1 iff w4 = -w5 (1/2) and |a| = 1
    (3/4): F = 3/8."""
    assert row.fragile_probability(row.U, 1) == Fraction(3, 8)


def test_theta_half_by_hand() -> None:
    """v = u with the last sign flipped: when w4 = w5 only x_u gets the ±6, otherwise only
    x_v, and the other is a in {±1, ±3}: the signs agree half the time."""
    agree, ties = row.sign_collision(row.U, row.VS[HALF], row.column_law())
    assert (agree, ties) == (HALF, 0)


def test_variance_by_hand() -> None:
    """rho = 3, theta/pi = 1/2: q = 3/4, P~ = (1/2)(9/16 + 1/16) + (1/2)(6/16) = 1/2,
    slope (rho+1)^2/(rho-1)^2 = 4: Var = 16 * 1/4 / k; Theorem 4.6's V_RR/pi^2 = 1/4 + 6/4 +
    36/16 = 4 as well."""
    assert row.variance(HALF, rr.Base(3, 1), 1) == 4
    assert row.variance(HALF, rr.Base(3, 1), 4) == 1


def test_variance_is_the_implementations_at_k_2() -> None:
    """Full exploration of W (5 x 2) and of both releases: the exact variance of the
    debiased collision estimate equals the row's s^2 P~ (1 - P~)/k."""
    base = rr.Base(5, 2)
    v = row.VS[EIGHTH]
    law: dict[Fraction, Fraction] = {}
    for W, pw in explore(lambda src: sample_rademacher(5, 2, src)).items():
        mech = DPSignRPRR(W, base)
        lu = explore(lambda src, m=mech: m.sample(row.U, src))
        lv = explore(lambda src, m=mech: m.sample(v, src))
        for su, pu in lu.items():
            for sv, pv in lv.items():
                est = debias_rr_collision(collision_fraction(su, sv), base)
                law[est] = law.get(est, Fraction(0)) + pw * pu * pv
    mean = sum((e * p for e, p in law.items()), Fraction(0))
    var = sum((e * e * p for e, p in law.items()), Fraction(0)) - mean * mean
    assert mean == 1 - EIGHTH
    assert var == row.variance(1 - EIGHTH, base, 2)


def test_row_passes_quick() -> None:
    report = row.check(False)
    assert report.verdict and "2 of 2 argmins interior" in report.grid


def test_objective_without_1_over_k_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = row.variance
    monkeypatch.setattr(row, "variance", lambda a, base, k: real(a, base, k) * k)
    assert not row.check(False).verdict


def test_k_star_without_sqrt_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_sqrt(eps: Fraction, f: Fraction, t: Fraction) -> tuple[Fraction, Fraction]:
        x = eps / f * t * (1 - t) / 2
        return x, x
    monkeypatch.setattr(row, "corrected_k", no_sqrt)
    assert not row.check(False).verdict


def test_off_by_one_flip_threshold_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """flip iff uniform(D) <= N_L + 1 (a '<' made '<='): the released bits' law is not the
    closed form."""
    plant(monkeypatch, rr.SmoothFlipper, "sample", "self.thresholds[self.level(x, unit)]",
          "self.thresholds[self.level(x, unit)] + 1")
    assert not row.check(False).verdict


def test_halved_budget_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """rho_k for eps/(2 F k) instead of eps/(F k)."""
    real = row.base_from_eps
    monkeypatch.setattr(row, "base_from_eps", lambda e, k, m: real(e, 2 * k, m))
    assert not row.check(False).verdict


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.integers(1, 6), st.sampled_from([HALF, EIGHTH]))
def test_variance_equals_theorem_4_6(a: int, b: int, t: Fraction) -> None:
    """s^2 P~ (1 - P~) = Theorem 4.6's V_RR/pi^2 = t(1-t) + 2 rho/(rho-1)^2 +
    4 rho^2/(rho-1)^4 at every rational rho > 1."""
    rho = Fraction(a + b, b)
    base = rr.Base.of(rho)
    v_rr = t * (1 - t) + 2 * rho / (rho - 1) ** 2 + 4 * rho**2 / (rho - 1) ** 4
    assert row.variance(1 - t, base, 1) == v_rr
