"""iDP-SignRP-G (Algorithm 9) and iDP-SignOPORP-G: the implementation and the Theorem 6.1
row, which passes unplanted and FAILS on each planted bug."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.noise_tables import discrete_gaussian_table, discrete_laplace_folded
from exactdp.params import ParameterError
from exactdp.projections import idp_gauss
from exactdp.projections.check import explored_law
from exactdp.projections.idp import noise_indicators
from exactdp.projections.idp_gauss import IDPSignOPORPG, IDPSignRPG, oporp_matrix
from exactdp.projections.matrices import OPORPPlan
from exactdp.projections.project import oporp, project
from exactdp.proofs.li_li import proj_claim_15_idp_signrp_g as row


def test_one_bit_law_by_hand() -> None:
    """p = k = 1, u = (0,): A = {0}; Pr[+1] = Pr[G >= 0] = (1 + sum_{z=1..2} q^(z^2)) /
    (1 + 2 sum_{z=1..2} q^(z^2)) for the table q^(z^2) on [-2, 2]."""
    q = Fraction(1, 2)
    mech = IDPSignRPG.calibrate((0,), ((1,),), 1, lambda d2: discrete_gaussian_table(q, 2))
    s = q + q**4
    assert mech.active == frozenset({0}) and mech.sensitivity_sq == 1
    assert explored_law(mech.sample, (0,)) == {(1,): (1 + s) / (1 + 2 * s),
                                               (-1,): s / (1 + 2 * s)}
    # x = 3 > beta: outside A, deterministic; no noise drawn
    far = IDPSignRPG.calibrate((3,), ((1,),), 1, lambda d2: discrete_gaussian_table(q, 2))
    assert far.active == frozenset() and far.noise is None
    assert explored_law(far.sample, (3,)) == {(1,): Fraction(1)}


def test_rademacher_sensitivity_is_beta_squared_times_active() -> None:
    W = ((1, -1, 1), (1, 1, -1), (-1, 1, 1))
    seen = []
    mech = IDPSignRPG.calibrate((0, 0, 1), W, 2, lambda d2: seen.append(d2) or
                                discrete_gaussian_table(Fraction(1, 2), 2))
    assert mech.active == noise_indicators(project((0, 0, 1), W), W, 2)
    assert seen == [4 * len(mech.active)] == [mech.sensitivity_sq]


def test_oporp_matrix_is_oporp() -> None:
    plan = OPORPPlan((2, 0, 3, 1), (1, -1, -1, 1), 2)
    M = oporp_matrix(plan, 4)
    for u in [(1, 2, 3, 4), (-2, 0, 1, -1), (0, 0, 0, 5)]:
        assert project(u, M) == oporp(u, plan)
    mech = IDPSignOPORPG.calibrate((0, 0, 0, 0), plan, 1,
                                   lambda d2: discrete_gaussian_table(Fraction(1, 2), 2))
    assert mech.active == frozenset({0, 1}) and mech.sensitivity_sq == 1


def test_folded_noise_refused() -> None:
    with pytest.raises(ParameterError, match="folded"):
        IDPSignRPG.calibrate((0,), ((1,),), 1, lambda d2: discrete_laplace_folded(
            Fraction(1, 2), 5))


def test_row_passes_unplanted() -> None:
    rep = row.check(False)
    assert rep.verdict
    assert all(c.witness["references_with_nonempty_A"] > 0 for c in rep.certificates)


def _strict_indicator(x, W, beta):  # type: ignore[no-untyped-def]
    """Algorithm 10 with '<' instead of '<=': |x_j| = beta left deterministic."""
    ties = {j for j, xj in enumerate(x) if abs(xj) == beta}
    return noise_indicators(x, W, beta) - ties


def test_strict_indicator_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(idp_gauss, "noise_indicators", _strict_indicator)
    assert not row.signrp_certificate(False).verdict
    assert not row.oporp_certificate(False).verdict


def test_sensitivity_without_active_count_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Delta_2^2 = beta^2 whatever |A| (noise for one projection only)."""
    monkeypatch.setattr(idp_gauss, "active_l2_sensitivity_sq", lambda W, beta, a: beta * beta)
    assert not row.signrp_certificate(False).verdict


def test_recalibrated_at_input_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = IDPSignRPG.sample

    def sample(self, u, source=None):  # type: ignore[no-untyped-def]
        fresh = IDPSignRPG.calibrate(u, self.W, self.beta, row.noise_for)
        return orig(fresh, u, source)

    monkeypatch.setattr(IDPSignRPG, "sample", sample)
    assert not row.signrp_certificate(False).verdict


def test_tie_emits_zero_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    def release(x, active, noise, source):  # type: ignore[no-untyped-def]
        out = []
        for j, xj in enumerate(x):
            v = noise.add(xj, source) if noise is not None and j in active else xj
            out.append((v > 0) - (v < 0))
        return tuple(out)

    monkeypatch.setattr(idp_gauss, "_release", release)
    assert not row.signrp_certificate(False).verdict
