"""Planted failures for the slip rows P5, P7, P8, P10, P11, P13 and P14 of paper 001 (proofs/li_li/proj_slip_*):
each passes on the implementation and FAILS when the bug it guards against is planted."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
import sympy as sp
from _plant import plant

from exactdp import discrete_gaussian
from exactdp import normal_cdf as _normal
from exactdp.certified import Interval
from exactdp.projections import estimators, idp, rr, signs
from exactdp.proofs.li_li import _ieee
from exactdp.proofs.li_li import proj_slip_p5_exact_level as p5
from exactdp.proofs.li_li import proj_slip_p7_scaled_level as p7
from exactdp.proofs.li_li import proj_slip_p8_alg10_rademacher as p8
from exactdp.proofs.li_li import proj_slip_p10_sigma_star_discrete as p10
from exactdp.proofs.li_li import proj_slip_p11_record_unit as p11
from exactdp.proofs.li_li import proj_slip_p13_k_star as p13
from exactdp.proofs.li_li import proj_slip_p14_gauss_eps_below_1 as p14


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


# ------------------------------------------------------------------ P10, P14 (Gaussian noise)

@pytest.mark.parametrize("row", [p10, p14])
def test_gaussian_rows_pass_unplanted(row: object) -> None:
    rep = row.check(False)  # type: ignore[attr-defined]
    assert rep.verdict and all(c.verdict for c in rep.certificates)


class _StdlibNormal:
    """Phi in floats from the standard library's erfc (independent of the rows' code)."""

    @staticmethod
    def cdf(x: float) -> float:
        return 0.5 * math.erfc(-x / math.sqrt(2))


def test_normal_cdf_brackets_floats() -> None:
    """The rows' certified Phi and continuous delta against the standard library's erfc
    (floats, to 1e-12)."""
    norm = _StdlibNormal

    for x in (-6.5, -4.25, -1.0, 0.0, 0.375, 2.5, 5.0):
        box = _normal.phi_interval(Interval(Fraction(x), Fraction(x)), 96)
        assert box.hi - box.lo < Fraction(1, 10**25)
        assert abs(float(box.lo) - norm.cdf(x)) <= 1e-12 * max(norm.cdf(x), 1e-300) + 1e-300
    s = 0.6898
    want = norm.cdf(1 / (2 * s) - 5 * s) - math.exp(5) * norm.cdf(-1 / (2 * s) - 5 * s)
    got = _normal.gaussian_delta(_normal.sqrt_interval(Fraction(6898, 10000) ** 2, 96),
                                 Fraction(5))
    assert abs(float(got.lo) - want) < 1e-12 and got.lo <= got.hi


def test_p10_fails_when_calibration_returns_one_step_short(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    plant(monkeypatch, discrete_gaussian, "calibrate_sigma2", "return hi * unit",
          "return lo * unit")
    rep = p10.check(False)
    assert not rep.certificates[2].verdict and not rep.verdict


def test_p10_fails_with_the_continuous_formula_for_the_discrete(monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """An ideal_delta that returned the continuous delta would hide the slip."""
    def continuous(s2: object, eps: object, shift: object = 1, bits: object = 0) -> Interval:
        s = _normal.sqrt_interval(Fraction(s2), 96)  # type: ignore[arg-type]
        return _normal.gaussian_delta(s, Fraction(eps), Fraction(shift), 96)  # type: ignore[arg-type]

    monkeypatch.setattr(p10, "ideal_delta", continuous)
    assert not p10.check(False).verdict


def test_p14_fails_when_the_classic_sigma_is_doubled(monkeypatch: pytest.MonkeyPatch) -> None:
    """sigma computed from 4 ln(1.25/delta) (twice the paper's sigma): no failure at eps >= 10
    left to show."""
    real = p14.ln_interval

    def fourfold(x: Fraction, bits: int) -> Interval:
        box = real(x, bits)
        return Interval(4 * box.lo, 4 * box.hi)

    monkeypatch.setattr(p14, "ln_interval", fourfold)
    rep = p14.check(False)
    assert not rep.verdict and rep.certificates[0].verdict  # eps = 9/10 still holds


# ------------------------------------------------------------------ P13 (k* analysis)

def test_p13_passes_unplanted() -> None:
    rep = p13.check(False)
    assert rep.verdict and all(c.verdict for c in rep.certificates)


def test_p13_fails_with_unsquared_debiasing(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, estimators, "debias_rr_collision", "(rho + 1) ** 2 / (rho - 1) ** 2",
          "(rho + 1) / (rho - 1)")
    rep = p13.check(False)
    assert not rep.certificates[0].verdict and not rep.verdict


def test_p13_fails_if_the_expansion_gave_the_printed_coefficient(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = p13.symbolic

    def printed() -> dict[str, object]:
        out = real()
        out["lead3"] = 8 * sp.pi**2
        return out

    monkeypatch.setattr(p13, "symbolic", printed)
    rep = p13.check(False)
    assert not rep.certificates[1].verdict and not rep.verdict


def test_p13_fails_with_the_printed_k_star(monkeypatch: pytest.MonkeyPatch) -> None:
    real = p13.symbolic

    def printed() -> dict[str, object]:
        out = real()
        out["root_residual"] = out["paper_residual"]
        return out

    monkeypatch.setattr(p13, "symbolic", printed)
    assert not p13.check(False).certificates[2].verdict
