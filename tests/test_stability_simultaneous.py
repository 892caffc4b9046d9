"""Theorem 5.6 (iii): Figure 4's simultaneous bound is checked where it is below n (n = 28,
GeoSample); the row fails when that point is taken away and when the release is always
empty."""

from __future__ import annotations

import pytest
from _plant import plant

from exactdp.histograms.basic import StabilityHistogram
from exactdp.proofs.balcer_vadhan import thm_5_05_accuracy as acc


def test_simultaneous_bound_bites_and_passes() -> None:
    report = acc.check_5_6(False)
    assert report.verdict
    biting = [c for c in report.certificates if "simultaneous_bound" in c.witness
              and c.witness["simultaneous_bound"] < c.parameters["n"]]
    assert biting and all(c.parameters["n"] == acc.SIM_N_GEO for c in biting)
    assert all(c.witness["simultaneous"] <= c.witness["simultaneous_bound"] for c in biting)


def test_without_the_large_point_the_simultaneous_part_is_vacuous(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = acc._theorem_grid
    monkeypatch.setattr(acc, "_theorem_grid",
                        lambda full: [p for p in original(full) if p[0].n != acc.SIM_N_GEO])
    failed = [c.claim for c in acc.check_5_6(False).certificates if not c.verdict]
    assert failed == ["Theorem 5.6 (iii) (non-vacuous)"]


def test_empty_release_fails_the_simultaneous_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A release that never keeps a bin (threshold n instead of b): at n = 28 the exact
    simultaneous error n exceeds Figure 4's bound (25 or 27, below n there; at n = 20 the
    bound is >= n and cannot see it)."""
    plant(monkeypatch, StabilityHistogram, "release", "if c > b]", "if c > dataset.n]")
    report = acc.check_5_6(False)
    assert not report.verdict
    seen = [c for c in report.certificates if not c.verdict and "simultaneous" in c.witness
            and c.witness["simultaneous"] > c.witness["simultaneous_bound"]]
    assert seen and all(c.parameters["n"] == acc.SIM_N_GEO for c in seen)
