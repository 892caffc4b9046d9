"""Linear convolution by zero padding (paper 002 §5.3): the API and its verify row, with
planted bugs the row must catch."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.convolution import linear
from exactdp.convolution.domain import Domain
from exactdp.convolution.linear import LinearConvolutionMechanism, linear_convolve
from exactdp.params import DomainError, ParameterError
from exactdp.proofs.convolution import conv_sec_5_3_linear as row
from exactdp.randomness import SeededSource


def test_linear_convolve_by_hand() -> None:
    # (1 + 2z)(3 + z + z^2) = 3 + 7z + 3z^2 + 2z^3
    assert linear_convolve([3, 1, 1], [1, 2]) == [3, 7, 3, 2]
    assert linear_convolve([Fraction(1, 2)], [4, 0, 2]) == [2, 0, 1]
    with pytest.raises(ParameterError):
        linear_convolve([], [1])


def test_release_has_the_linear_length_and_input_domain() -> None:
    mech = LinearConvolutionMechanism([1, 1, 1], Domain.histograms(5, 3), epsilon=1,
                                      delta=Fraction(1, 10 ** 6))
    assert mech.N == 7
    out = mech.release([1, 0, 2, 0, 0], SeededSource(1))
    assert len(out.y) == 7
    assert mech.convolve([1, 0, 2, 0, 0]) == [1, 1, 3, 2, 2, 0, 0]
    with pytest.raises(DomainError):
        mech.release([1, 0, 2, 0, 0, 0, 0], SeededSource(1))   # padded length: refused
    # the exact profile over the real columns is never worse than the calibrated one
    from exactdp.convolution.accounting import PrivacyProfile

    every_column = PrivacyProfile(list(mech.ratios), mech.strategy.shifts())
    assert 1 < mech.privacy().pure_ratio <= every_column.pure_ratio


def test_row_passes() -> None:
    assert row.check(False).verdict


def test_short_padding_fails_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(linear, "padded_length", lambda n, m: n + m - 1 if m == 1 else n + m - 2)
    cert = row.identity_certificate(False)
    assert not cert.verdict
    assert cert.witness["noise_free"] != cert.witness["linear"]      # wrap-around


def test_understated_shifts_fail_release(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = LinearConvolutionMechanism.shift_matrix
    monkeypatch.setattr(LinearConvolutionMechanism, "shift_matrix",      # a shift off by one
                        lambda self: [[max(0, v - 1) for v in r] for r in orig(self)])
    cert = row.release_certificate([2, 1], 2, [Fraction(2), Fraction(3, 2), Fraction(5, 3)],
                                   [Fraction(1), Fraction(2)])
    assert not cert.verdict


def test_check_convolution_linear_explores_the_real_inputs(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from tests._cli import run

    args = ["check", "convolution", "--group", "cyclic", "--linear", "2", "--filter", "2,1",
            "--domain", "histograms:n=1", "--epsilon", "1", "--delta", "1/10", "--scale", "3",
            "--strategy", "real-fourier", "--json"]
    rc, out, _ = run(capsys, *args)
    doc = json.loads(out)
    assert rc == 0 and doc["N"] == 3 and doc["explored"]["inputs"] == 3   # x of length 2
    assert doc["explored"]["ratio_equals_profile"]
    orig = LinearConvolutionMechanism.shift_matrix
    monkeypatch.setattr(LinearConvolutionMechanism, "shift_matrix",      # understated shifts
                        lambda self: [[max(0, v - 1) for v in r] for r in orig(self)])
    rc, out, _ = run(capsys, *args)
    assert rc == 1 and not json.loads(out)["explored"]["ratio_equals_profile"]
