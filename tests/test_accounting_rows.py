"""The accounting verify rows pass, and fail on planted bugs in the composition."""

from __future__ import annotations

import pytest

from exactdp.accounting import loss as loss_module
from exactdp.accounting import product
from exactdp.proofs.accounting import acc_composition
from tests._plant import plant


def verdicts() -> tuple[bool, bool]:
    return (acc_composition.check_loss(False).verdict,
            acc_composition.check_hockey_stick(False).verdict)


def test_rows_pass_and_reach_every_composition_path() -> None:
    for check in acc_composition.CHECKS:
        report = check(False)
        assert report.verdict, report.worst
        assert len(report.certificates) >= 6
    lattice = atoms = infinite = 0
    for _, build, pairs in acc_composition.cases(False):
        mechs = build()
        for a, b in pairs:
            got = acc_composition._composed(mechs, a, b)
            lattice += got.on_lattice
            atoms += not got.on_lattice
            infinite += got.infinite_mass > 0
    assert lattice and atoms and infinite


def test_rows_fail_when_infinite_masses_compose_wrongly(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, product, "_pair",
          "inf = pden - (x._pden - x._inf) * (y._pden - y._inf)",
          "inf = x._inf * y._pden + y._inf * x._pden")
    assert verdicts() == (False, False)


def test_rows_fail_when_the_binomial_form_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, product, "_binomial", "term = term * (k - i) * m1",
          "term = term * (k - i + 1) * m1")
    assert not acc_composition.check_loss(False).verdict


def test_rows_fail_when_related_bases_are_spread_the_wrong_way(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, product, "_pair", "base, sx, sy = rel", "base, sy, sx = rel")
    assert verdicts() == (False, False)


def test_rows_fail_when_atom_q_masses_are_mixed_up(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, product, "_pair", "atoms[vx * vy] = [ax * ay, bx_ * by_]",
          "atoms[vx * vy] = [ax * ay, bx_ * ay]")
    assert not acc_composition.check_loss(False).verdict


def test_hockey_row_fails_when_the_threshold_search_is_off_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, loss_module.PrivacyLoss, "_first_above", "    return lo\n",
          "    return max(lo - 1, 0)\n")
    assert not acc_composition.check_hockey_stick(False).verdict
