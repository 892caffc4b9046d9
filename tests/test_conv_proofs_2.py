"""Planted failures for the second batch of convolution proof rows (proofs/convolution/conv_cyclic_privacy,
conv_exact_accounting_gain, conv_bounds): each row must turn False when the bug it guards
against is planted in the implementation."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from exactdp.convolution import rows
from exactdp.proofs.convolution import conv_cyclic_privacy


def _cyclic_case(i: int) -> conv_cyclic_privacy.Case:
    return conv_cyclic_privacy.cases(False)[i]


@pytest.mark.parametrize("i", range(4))
def test_cyclic_row_passes_unplanted(i: int) -> None:
    assert conv_cyclic_privacy.case_certificate(_cyclic_case(i)).verdict


@pytest.mark.parametrize("i", [0, 2, 3])     # real-fourier, hartley, auto (calibrated)
def test_cyclic_ratio_rounded_up_fails(monkeypatch: pytest.MonkeyPatch, i: int) -> None:
    orig = rows.RowNoise.__init__

    def rounded_up(self: rows.RowNoise, ratios: list[Fraction], ranges: list[tuple[int, int]]
                   ) -> None:
        orig(self, [r + Fraction(1, 2) for r in ratios], ranges)   # noise weaker than claimed
        self.ratios = tuple(ratios)

    monkeypatch.setattr(rows.RowNoise, "__init__", rounded_up)
    cert = conv_cyclic_privacy.case_certificate(_cyclic_case(i))
    assert not cert.verdict
    assert cert.worst is not None and cert.worst > cert.witness["pure_ratio"]


@pytest.mark.parametrize("i", [0, 1])
def test_cyclic_clamping_range_from_x_fails(monkeypatch: pytest.MonkeyPatch, i: int) -> None:
    orig = rows.RowNoise.draw

    def leaky(self: rows.RowNoise, centres: list[int], source: object) -> list[int]:
        out = orig(self, centres, source)  # type: ignore[arg-type]
        return [max(c - 1, min(c + 1, v)) for c, v in zip(centres, out)]   # range from x

    monkeypatch.setattr(rows.RowNoise, "draw", leaky)
    cert = conv_cyclic_privacy.case_certificate(_cyclic_case(i))
    assert not cert.verdict
    assert cert.worst is None                 # infinite ratio


def test_cyclic_profile_delta_halved_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import accounting
    orig = accounting.PrivacyProfile.delta
    monkeypatch.setattr(accounting.PrivacyProfile, "delta", lambda self, r: orig(self, r) / 2)
    assert not conv_cyclic_privacy.case_certificate(_cyclic_case(1)).verdict


# ------------------------------------------------------------------ exact accounting gain


def test_gain_row_passes_unplanted() -> None:
    from exactdp.proofs.convolution import conv_exact_accounting_gain as gain
    cert = gain.case_certificate(16, "flat")
    assert cert.verdict
    assert isinstance(cert.worst, Fraction) and cert.worst < 1     # exact beats zCDP here


def test_exact_mode_calibrated_above_e_eps_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import calibration as cal_mod
    from exactdp.proofs.convolution import conv_exact_accounting_gain as gain
    orig = cal_mod._Evaluator.__init__

    def above(self: Any, *args: object, **kw: object) -> None:
        orig(self, *args, **kw)  # type: ignore[arg-type]
        self.r_lo = self.r_lo * Fraction(11, 10)     # R above e^eps

    monkeypatch.setattr(cal_mod._Evaluator, "__init__", above)
    for n, kind in [(16, "flat"), (64, "flat")]:
        cert = gain.case_certificate(n, kind)
        assert not cert.verdict
        exact = cert.witness["modes"]["exact"]
        assert exact["R_lo_certified_below_e^eps"] is False
        assert exact["exact_delta_at_e^eps_lo"] > gain.DELTA      # and delta at e^eps exceeded


def test_zcdp_mode_too_generous_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import calibration as cal_mod
    from exactdp.proofs.convolution import conv_exact_accounting_gain as gain
    orig = cal_mod._composition_ok

    def generous(eps: object, cols: object, epsilon: Fraction, *a: object, **k: object) -> bool:
        return orig(eps, cols, epsilon * 2, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(cal_mod, "_composition_ok", generous)
    cert = gain.case_certificate(16, "flat")
    assert not cert.verdict
    assert not cert.witness["modes"]["zcdp"]["guarantee_ok"]
    assert not cert.witness["modes"]["drv"]["guarantee_ok"]


# ------------------------------------------------------------------ lower bounds and baselines


def test_bounds_row_passes_unplanted() -> None:
    from exactdp.proofs.convolution import conv_bounds
    assert conv_bounds.check(False).verdict


def test_spec_lb_wrong_power_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import lower_bounds
    from exactdp.proofs.convolution import conv_bounds

    def k_not_squared(mags: list[Fraction]) -> tuple[Fraction, int]:
        srt = sorted((Fraction(m) for m in mags), reverse=True)
        return max((k * m, k) for k, m in enumerate(srt, 1))     # K |lambda|^2, not K^2

    monkeypatch.setattr(lower_bounds, "spec_lb_core", k_not_squared)
    assert not conv_bounds.spec_certificate([3, 1, 1, 0]).verdict
    assert not conv_bounds.cyclic_spec_certificate([2, 1, 0]).verdict


def test_harmonic_number_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import lower_bounds
    from exactdp.proofs.convolution import conv_bounds
    monkeypatch.setattr(lower_bounds, "harmonic_number",
                        lambda n: sum((Fraction(1, i) for i in range(1, n)), Fraction(0)))
    assert not conv_bounds.spec_certificate([1, 1, 1, 1, 0, 0, 0, 0]).verdict


def test_wrong_geometric_variance_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.convolution import baselines
    from exactdp.proofs.convolution import conv_bounds
    monkeypatch.setattr(baselines, "geometric_variance", lambda r: r / (r - 1) ** 2)
    cert = conv_bounds.baseline_certificate([2, 1, 0], Fraction(1), Fraction(1, 100))
    assert not cert.verdict


def test_eq5_interval_without_factor_4_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.certified import Interval
    from exactdp.convolution import baselines
    from exactdp.proofs.convolution import conv_bounds
    orig = baselines.paper_mse_interval

    def no_four(*a: object, **k: object) -> Interval:
        iv = orig(*a, **k)  # type: ignore[arg-type]
        return Interval(iv.lo / 4, iv.hi / 4)

    monkeypatch.setattr(baselines, "paper_mse_interval", no_four)
    cert = conv_bounds.baseline_certificate([3, 1, 0, 1], Fraction(1), Fraction(1, 100))
    assert not cert.verdict
