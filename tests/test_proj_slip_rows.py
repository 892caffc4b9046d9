"""Planted failures for the slip rows P5, P7, P8 and P11 of paper 001 (proofs/li_li/proj_slip_*):
each passes on the implementation and FAILS when the bug it guards against is planted."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from _plant import plant

from exactdp.projections import idp, rr, signs
from exactdp.proofs.li_li import _ieee
from exactdp.proofs.li_li import proj_slip_p5_exact_level as p5
from exactdp.proofs.li_li import proj_slip_p7_scaled_level as p7
from exactdp.proofs.li_li import proj_slip_p8_alg10_rademacher as p8
from exactdp.proofs.li_li import proj_slip_p11_record_unit as p11


@pytest.mark.parametrize("row", [p5, p7, p8, p11])
def test_rows_pass_unplanted(row: object) -> None:
    rep = row.check(False)  # type: ignore[attr-defined]
    assert rep.verdict and all(c.verdict for c in rep.certificates)


def test_ieee_emulation_matches_hardware_floats() -> None:
    """The row's binary64 emulation against Python's own floats (correctly rounded)."""
    rng = random.Random(7)
    for _ in range(3000):
        a, b = rng.uniform(-1e6, 1e6), rng.uniform(-1e3, 1e3) or 1.0
        assert _ieee.dadd(Fraction(a), Fraction(b)) == Fraction(a + b)
        assert _ieee.ddiv(Fraction(a), Fraction(b)) == Fraction(a / b)
        n, d = rng.randrange(1, 10**30), rng.randrange(1, 10**30)
        assert _ieee.double(Fraction(n, d)) == Fraction(n / d)
    assert p5.float_level((1, 2)) == (1, 4) and p5.float_level((1, 1)) == (1, 2)
    assert (0.1 + 0.2) / 0.1 > 3  # the hardware agrees with the row's witness


def test_p5_fails_with_level_floor_plus_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """floor(|x|/unit) + 1 jumps 0 -> 2 at x = 0 -> 1: the exact-level side must fail."""
    plant(monkeypatch, rr.SmoothFlipper, "level", "(abs(x) + unit - 1) // unit",
          "abs(x) // unit + 1")
    certs = p5.check(False).certificates
    assert not certs[1].verdict


def test_p7_fails_with_scaled_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """The implementation computing the printed (scaled) level: its keep probabilities
    no longer reach the proof's."""
    monkeypatch.setattr(signs.DPSignRPSmooth, "units", property(
        lambda self: tuple(2 * self.beta * m for m in signs.column_max_abs(self.W))))
    rep = p7.check(False)
    assert not rep.certificates[0].verdict and not rep.verdict


def test_p8_fails_with_the_printed_test(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, idp, "noise_indicators", "abs(xj) <= b * m", "abs(xj) <= b")
    rep = p8.check(False)
    assert not rep.certificates[1].verdict and not rep.verdict


def test_p11_fails_with_zero_for_ties(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = rr.SmoothFlipper.sample

    def sample(self: rr.SmoothFlipper, x: int, unit: int, source: object) -> int:
        bit = orig(self, x, unit, source)  # type: ignore[arg-type]
        return 0 if x == 0 else bit

    monkeypatch.setattr(rr.SmoothFlipper, "sample", sample)
    rep = p11.check(False)
    assert not rep.certificates[0].verdict and not rep.verdict


def test_p11_fails_when_a_record_moves_one_bin(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mechanism releasing only the first bin's sign: record replacement can no longer
    reach rho^2, so the group-privacy equality (and the refutation's witness) change."""
    orig = signs.DPSignOPORP.sample

    def sample(self: signs.DPSignOPORP, u: tuple[int, ...], source: object = None
               ) -> tuple[int, ...]:
        out = orig(self, u, source)  # type: ignore[arg-type]
        return (out[0],)

    monkeypatch.setattr(signs.DPSignOPORP, "sample", sample)
    rep = p11.check(False)
    assert not rep.certificates[2].verdict and not rep.verdict
