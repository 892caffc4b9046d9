"""Planted failures for the paper-002 slip rows on Gaussian noise in the Laplace ledger and on the
input domain: each row passes as shipped and turns False when the implementation is broken
the way it guards against, or when the slip it shows is absent."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.convolution import mechanism
from exactdp.proofs.convolution import conv_sec_2_slip_p11_domain as p11
from exactdp.proofs.convolution import conv_sec_4_slip_p3_gaussian as p3
from tests._conv_planted import weaker_row_noise


def test_p3_row_passes_and_shows_the_gap() -> None:
    report = p3.check(False)
    assert all(c.verdict for c in report.certificates)
    for cert in report.certificates:
        r = cert.parameters["r"]
        assert cert.witness["laplace_worst"] == 1 / r
        assert cert.witness["gaussian_worst"] is None or cert.witness["gaussian_worst"] > 1 / r


def test_p3_weaker_laplace_rows_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    weaker_row_noise(monkeypatch)
    cert = p3.slip_certificate(Fraction(1, 2))
    assert not cert.verdict
    assert cert.witness["laplace_worst"] > 2


def test_p3_fails_when_the_gaussian_reading_is_private(monkeypatch: pytest.MonkeyPatch) -> None:
    # the printed half is not vacuous: noise that does meet e^eps_j is not reported as a slip
    monkeypatch.setattr(p3, "gaussian_laws", lambda _s2: p3.geometric_laws(Fraction(1, 2)))
    assert not p3.slip_certificate(Fraction(1, 2)).verdict


def test_p11_row_passes() -> None:
    cert = p11.check(False).certificates[0]
    assert cert.verdict
    assert cert.worst == "inf"
    assert cert.witness["integer_worst"] == 5       # 2 * 3/2 * 5/4 * 4/3


def test_p11_weaker_row_noise_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    weaker_row_noise(monkeypatch)
    cert = p11.slip_certificate()
    assert not cert.verdict
    assert cert.witness["integer_worst"] > 5


def test_p11_wrong_reconstruction_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = mechanism.WalshFourierMechanism.reconstruct

    def off(self: mechanism.WalshFourierMechanism, noisy: list[int]) -> tuple[Fraction, ...]:
        y = orig(self, noisy)
        return (y[0] + Fraction(1, 4),) + tuple(y[1:])

    monkeypatch.setattr(mechanism.WalshFourierMechanism, "reconstruct", off)
    assert not p11.slip_certificate().verdict


def test_p11_fails_if_fractions_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mechanism.WalshFourierMechanism, "sample_with",
                        lambda self, x, source: tuple(x))
    assert not p11.slip_certificate().verdict


def test_theorem_9_row_counts_non_trivial_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.convolution import conv_thm_09_fourier as t9

    report = t9.check(False)
    assert report.verdict
    counted = next(c for c in report.certificates if c.claim.endswith("non-trivial points"))
    # h = (1,1,0,0): lambda = (2, 0, 2, 0); on histograms(4, 3) rows 0 and 2 range over
    # [0, 3] and [-3, 3] (widths 3 and 6), so the clamped maximum is (4*9 + 4*36)/16 = 45/4; the bound with ratios 3
    # and 2 is (4 * 2*3/4 + 4 * 2*2/1)/16 = 11/8 (2r/(r-1)^2 per row)
    mech, _ = t9.walsh_mechanism([1, 1, 0, 0], [Fraction(3), Fraction(2)], "histograms", 3)
    assert t9.trivial_mse(mech) == Fraction(45, 4)
    assert mech.mse_bound() == Fraction(11, 8)
    assert counted.worst == 1
    monkeypatch.setattr(t9, "MSE_CASES", t9.MSE_CASES[:2])     # only the vacuous grids
    assert not t9.check(False).verdict


def test_conjunction_row_counts_non_trivial_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.convolution import conv_thm_12_dnf_marginals as t12

    report = t12.check(False)
    assert report.verdict and report.certificates[-1].worst > 0
    monkeypatch.setattr(t12, "trivial_mse", lambda mech: Fraction(0))   # every bound vacuous
    assert not t12.check(False).verdict
