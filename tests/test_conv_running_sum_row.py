"""The §5.2 running-sum row (printed spectrum and O(1) MSE wrong): passes as shipped, fails on
planted errors in its exact spectrum and in its certified growth enclosure."""

from __future__ import annotations

from fractions import Fraction
from math import pi, sin

import pytest
from _plant import plant

from exactdp.proofs.convolution import conv_sec_5_2_running_sum as rs


def test_row_passes_and_shows_the_growth() -> None:
    report = rs.check(False)
    assert report.verdict
    growth = {c.parameters["N"]: Fraction(c.worst) for c in report.certificates
              if c.claim.endswith(": growth")}
    # ||h^||_1^2/(2N) = (N + S)^2/(4N^2), S = sum over odd m < 2N of csc(pi m/2N): recomputed
    # here in floating point (a cross-check of the certified lower ends, not a verdict path)
    for n, low in growth.items():
        s = sum(1 / sin(pi * m / (2 * n)) for m in range(1, 2 * n, 2))
        value = (n + s) ** 2 / (4 * n * n)
        assert float(low) <= value < float(low) + 0.01
    assert growth[16] < growth[64] < growth[256]


def test_wrong_cyclotomic_modulus_fails_the_spectrum(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, rs, "ring_checks", "phi = _phi(period)", "phi = _phi(period + 1)")
    failed = [c for c in rs.check(False).certificates if not c.verdict]
    assert failed and all(not c.claim.endswith(": growth") for c in failed)


def test_csc_sum_missing_its_symmetric_half_fails_the_growth(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, rs, "csc_sum_bounds", "return 2 * lo, 2 * hi", "return lo, hi")
    failed = [c for c in rs.check(False).certificates if not c.verdict]
    assert failed and all(c.claim.endswith(": growth") for c in failed)
