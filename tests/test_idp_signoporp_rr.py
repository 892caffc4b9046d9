"""iDP-SignOPORP-RR (Section 6, Algorithm 11 on OPORP): the class by hand, its row passes,
and the row FAILS on planted bugs in Algorithm 10's test, the per-bit budget and the OPORP
projection."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest

from exactdp.explore import explore
from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections import IDPSignOPORPRR, idp, project
from exactdp.projections.rr import Base
from exactdp.proofs.li_li import proj_claim_23_idp_signoporp_rr as row
from exactdp.proofs.li_li._proj import NOTES_PLAN
from tests._plant import plant

TOTAL = Base(3, 2)


def test_calibrate_by_hand() -> None:
    """perm (2, 0, 3, 1), w (1, -1, -1, 1): u = (1, 0, 0, 0) permutes to (0, 1, 0, 0), so
    x = (0 - 1, 0 + 0) = (-1, 0): both bins within beta = 1, A = {0, 1}."""
    mech = IDPSignOPORPRR.calibrate((1, 0, 0, 0), NOTES_PLAN, 1, TOTAL)
    assert mech.active == frozenset({0, 1})
    assert mech.base is not None and mech.base.ratio ** 2 <= Fraction(3, 2)
    # u = (2, 0, 2, 0) permutes to (2, 2, 0, 0): x = (2 - 2, 0 + 0) = (0, 0)
    assert IDPSignOPORPRR.calibrate((2, 0, 2, 0), NOTES_PLAN, 1, TOTAL).active == {0, 1}
    # u = (0, 0, 2, 0): permuted (2, 0, 0, 0): x = (2, 0): only bin 1 is fragile
    assert IDPSignOPORPRR.calibrate((0, 0, 2, 0), NOTES_PLAN, 1, TOTAL).active == {1}


def test_release_by_hand() -> None:
    """A = {1} at (0, 0, 2, 0): bin 0 (x = 2) is released as +1, bin 1 (x = 0) is a coin."""
    mech = IDPSignOPORPRR.calibrate((0, 0, 2, 0), NOTES_PLAN, 1, TOTAL)
    law = explore(lambda src: mech.sample((0, 0, 2, 0), src))
    assert law == {(1, 1): Fraction(1, 2), (1, -1): Fraction(1, 2)}


def test_empty_set_is_deterministic() -> None:
    """u = (2, 0, 0, 2) permutes to (0, 2, 2, 0): x = (0 - 2, -2 + 0) = (-2, -2): A is
    empty, the release is the sign, with no draw."""
    mech = IDPSignOPORPRR.calibrate((2, 0, 0, 2), NOTES_PLAN, 1, TOTAL)
    assert mech.active == frozenset() and mech.base is None
    assert explore(lambda src: mech.sample((2, 0, 0, 2), src)) == {(-1, -1): Fraction(1)}
    assert mech.privacy_ratio == 1


def test_validation() -> None:
    with pytest.raises(ParameterTypeError):
        IDPSignOPORPRR.calibrate((1, 0, 0, 0), "plan", 1, TOTAL)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        IDPSignOPORPRR(NOTES_PLAN, 1, frozenset({5}), Base(5, 4), TOTAL)


def test_same_release_as_the_dense_form() -> None:
    """OPORP is the projection by its matrix: the frozen dense mechanism on that matrix has
    the same law at every point of a small box."""
    from exactdp.projections.idp_gauss import oporp_matrix
    mat = oporp_matrix(NOTES_PLAN, 4)
    for u in ((1, 0, -1, 1), (0, 1, 1, 0), (2, -1, 0, 1)):
        a = IDPSignOPORPRR.calibrate(u, NOTES_PLAN, 1, TOTAL)
        b = idp.IDPSignRPRR.calibrate(u, mat, 1, TOTAL)
        assert project(u, mat) == tuple(sum(r[j] * v for r, v in zip(mat, u)) for j in range(2))
        assert explore(lambda s, m=a, v=u: m.sample(v, s)) == explore(
            lambda s, m=b, v=u: m.sample(v, s))


def test_row_passes() -> None:
    report = row.check(False)
    assert report.verdict
    assert "81 references (77 with A non-empty)" in report.grid


def test_strict_fragility_test_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Algorithm 10 with '<' (a neighbour reaching 0 is missed): infinite frozen ratio."""
    plant(monkeypatch, idp, "noise_indicators", "abs(xj) <= b * m", "abs(xj) < b * m")
    assert not row.check(False).verdict


def test_whole_budget_per_bit_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, idp.IDPSignRPRR, "calibrate", "dyadic_root_base(total, len(active), bits)",
          "dyadic_root_base(total, 1, bits)")
    assert not row.check(False).verdict


def test_oporp_sign_bug_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bin sums ignore the signs w: the release no longer matches the closed form."""
    project_module = sys.modules["exactdp.projections.project"]
    plant(monkeypatch, project_module, "oporp", "x[t // size] += wt * vec[i]",
          "x[t // size] += vec[i]")
    assert not row.check(False).verdict
