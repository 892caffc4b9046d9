"""Planted failures for the convolution proof rows (proofs/conv_*.py): each row must turn False
(or report an infinite / exceeded ratio) when the bug it guards against is planted in the
implementation (notes CONV.md §6 claim 13)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.convolution import accounting, mechanism, rows, transforms
from exactdp.convolution import calibration as calibrate
from exactdp.noise import ClampedGeometric
from exactdp.proofs.convolution import (
    conv_alg_2_spectral_partition,
    conv_lemma_factorization,
    conv_negative_controls,
    conv_sampler_lemma_4_09,
    conv_strict_time,
    conv_thm_04_composition_slip,
    conv_thm_09_fourier,
    conv_walsh_identities,
)
from tests._conv_planted import weaker_row_noise


def _first_case() -> conv_lemma_factorization.Case:
    return conv_lemma_factorization.cases(False)[1]        # Walsh N = 4 (notes' Hadamard)


def test_factorization_row_passes_unplanted() -> None:
    assert conv_lemma_factorization.case_certificate(_first_case()).verdict


def test_clamping_range_from_x_fails_factorization(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = rows.RowNoise.draw

    def leaky(self: rows.RowNoise, centres: list[int], source: object) -> list[int]:
        out = orig(self, centres, source)  # type: ignore[arg-type]
        return [max(c - 1, min(c + 1, v)) for c, v in zip(centres, out)]   # range from x

    monkeypatch.setattr(rows.RowNoise, "draw", leaky)
    cert = conv_lemma_factorization.case_certificate(_first_case())
    assert not cert.verdict
    assert cert.worst is None                 # the checker reports an infinite ratio


def test_ratios_rounded_up_fail_factorization(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = rows.RowNoise.__init__

    def rounded_up(self: rows.RowNoise, ratios: list[Fraction], ranges: list[tuple[int, int]]
                   ) -> None:
        orig(self, [r + Fraction(1, 2) for r in ratios], ranges)   # noise weaker than claimed
        self.ratios = tuple(ratios)

    monkeypatch.setattr(rows.RowNoise, "__init__", rounded_up)
    cert = conv_lemma_factorization.case_certificate(_first_case())
    assert not cert.verdict
    assert cert.worst > cert.witness["pure_ratio"]                  # exceeded ratio


def test_negative_controls_report_infinite_and_exceeded() -> None:
    report = conv_negative_controls.check(False)
    assert report.verdict
    worst = [c.worst for c in report.certificates]
    assert worst[:3] == ["infinity"] * 3      # irrational coefficients, complex, range from x
    assert worst[3] == 9                      # r = 3 rounded up: 9 > e^2


def test_wrong_profile_fails_p1(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = accounting.PrivacyProfile.delta
    monkeypatch.setattr(accounting.PrivacyProfile, "delta",
                        lambda self, r: orig(self, r) / 2)
    assert not conv_thm_04_composition_slip._p1_certificates(with_explore=False)[0].verdict


def test_wrong_loss_law_fails_corrected_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = accounting.PrivacyProfile.loss_law

    def skewed(self: accounting.PrivacyProfile, n: int) -> dict[Fraction, Fraction]:
        law = dict(orig(self, n))
        top = max(law)
        law[top] = law[top] + Fraction(1, 10 ** 9)
        return law

    monkeypatch.setattr(accounting.PrivacyProfile, "loss_law", skewed)
    certs, _ = conv_thm_04_composition_slip._grid_certificate(False)
    assert not all(c.verdict for c in certs)


def test_sampler_cdf_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    orig_cdf, orig_search = ClampedGeometric.cdf, ClampedGeometric.search_cdf

    def off(fn):  # type: ignore[no-untyped-def]
        def bad(self: ClampedGeometric, c: int, z: int) -> int:
            v = fn(self, c, z)
            return v + 1 if z == 0 and 0 < v < self.d else v
        return bad

    monkeypatch.setattr(ClampedGeometric, "cdf", off(orig_cdf))
    monkeypatch.setattr(ClampedGeometric, "search_cdf", off(orig_search))
    assert not conv_sampler_lemma_4_09.config_certificate(Fraction(1, 2), 0, 4, None, None).verdict


def test_sampler_table_entry_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = (Fraction(2, 3), -3, 3, None, None)
    assert conv_sampler_lemma_4_09.config_certificate(*cfg, tabulated=True).verdict
    orig = rows.TabulatedClampedGeometric.__init__

    def bad(self: rows.TabulatedClampedGeometric, ratio: object, lo: object, hi: object) -> None:
        orig(self, ratio, lo, hi)
        self._table[2] += 1

    monkeypatch.setattr(rows.TabulatedClampedGeometric, "__init__", bad)
    assert conv_sampler_lemma_4_09.config_certificate(*cfg).verdict      # the reference path
    assert not conv_sampler_lemma_4_09.config_certificate(*cfg, tabulated=True).verdict


def test_data_dependent_loop_fails_strict_time(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = mechanism.WalshFourierMechanism.coefficients

    def loop(self: mechanism.WalshFourierMechanism, x: list[int]) -> list[int]:
        for v in x:
            if v:
                transforms.record("step")
        return orig(self, x)

    monkeypatch.setattr(mechanism.WalshFourierMechanism, "coefficients", loop)
    report = conv_strict_time.check(False)
    assert not report.certificates[0].verdict


def test_broken_fwht_fails_walsh_identities(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = transforms.fwht
    monkeypatch.setattr(transforms, "fwht",
                        lambda v: orig(v) if len(v) < 8 else orig(v)[:-1] + [0])
    assert not conv_walsh_identities._fwht_certificate(False).verdict


def _printed_rank_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant the printed Algorithm 2 in the calibration: rank 0 gets budget eps_0/sqrt N
    (Lap(eta) instead of Lap(eta/sqrt N)); N = 4 here, so s_0 = 1/2."""
    orig = calibrate._shape_classes

    def printed(lam, shape, bits=40):  # type: ignore[no-untyped-def]
        cls, s = orig(lam, shape, bits)
        if shape == "spectral-partition":
            top = min((j for j, v in enumerate(lam) if v), key=lambda j: (-abs(lam[j]), j))
            s = list(s)
            s[cls[top]] = s[cls[top]] / 2
        return cls, s

    monkeypatch.setattr(calibrate, "_shape_classes", printed)


def test_algorithm_2_rows_pass_unplanted() -> None:
    assert conv_alg_2_spectral_partition.release_certificate([3, 1, 1, 0], "exact").verdict
    assert conv_alg_2_spectral_partition.bound_certificate([1, 1, 1, 1]).verdict
    assert conv_alg_2_spectral_partition.printed_certificate(64).verdict


def test_printed_algorithm_2_fails_eq_10(monkeypatch: pytest.MonkeyPatch) -> None:
    _printed_rank_0(monkeypatch)
    cert = conv_alg_2_spectral_partition.bound_certificate([3, 1, 1, 0])
    assert not cert.verdict
    assert cert.worst > 1                                      # MSE over the corrected eq. 10


def test_printed_algorithm_2_fails_ledger(monkeypatch: pytest.MonkeyPatch) -> None:
    _printed_rank_0(monkeypatch)
    cert = conv_alg_2_spectral_partition.release_certificate([3, 1, 1, 0], "paper-unsound")
    assert not cert.verdict
    assert not cert.witness["follows_ledger"]


def test_weaker_noise_fails_algorithm_2_privacy(monkeypatch: pytest.MonkeyPatch) -> None:
    weaker_row_noise(monkeypatch)
    cert = conv_alg_2_spectral_partition.release_certificate([3, 1, 1, 0], "exact")
    assert not cert.verdict
    assert cert.worst > conv_alg_2_spectral_partition.RELEASE_DELTA


def test_wrong_mse_fails_theorem_9(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = rows.RowNoise.error_moments

    def unclamped(self: rows.RowNoise, j: int, c: int) -> tuple[Fraction, Fraction]:
        m1, m2 = orig(self, j, c)
        return m1, m2 + Fraction(1, 1000)

    monkeypatch.setattr(rows.RowNoise, "error_moments", unclamped)
    assert not conv_thm_09_fourier._mse_certificate([1, 1, 0, 0], [Fraction(3), Fraction(6, 5)]
                                                    ).verdict
