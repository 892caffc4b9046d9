"""The accuracy rows of Sections 5-6 fail when their grid leaves every bound vacuous, and
their non-vacuous grid points catch bugs: each test plants one (or takes the non-vacuous
points away) and asserts a FAIL verdict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _plant import plant

from exactdp.certificate import ClaimReport
from exactdp.histograms.basic import StabilityHistogram
from exactdp.histograms.data import Dataset, Histogram
from exactdp.histograms.sparse import PureSparseHistogram, SparseHistogram
from exactdp.proofs.balcer_vadhan import thm_5_02_accuracy as acc_5_02
from exactdp.proofs.balcer_vadhan import thm_5_05_accuracy as acc_5_05
from exactdp.proofs.balcer_vadhan import thm_5_05_stability as stab
from exactdp.proofs.balcer_vadhan import thm_6_08_accuracy as acc_6_08
from exactdp.proofs.balcer_vadhan import thm_6_10_accuracy as acc_6_10
from exactdp.randomness import RandomSource


def _fails(report: ClaimReport) -> bool:
    return not report.verdict and bool(report.certificates)


def _vacuity_failed(report: ClaimReport) -> bool:
    bad = [c for c in report.certificates if not c.verdict]
    return _fails(report) and all(c.claim.endswith("(non-vacuous)") for c in bad)


def _without_low_noise(module: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    original: Callable[[bool], list[Any]] = module._grid

    def grid(full: bool) -> list[Any]:
        return [p for p in original(full) if "Tabulated" not in repr(p[0])]

    monkeypatch.setattr(module, "_grid", grid)


@pytest.mark.parametrize("module", [acc_6_08, acc_6_10])
def test_vacuous_grid_fails(module: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the low-noise mechanism every derived bound is >= n: the row must fail."""
    assert module.check(False).verdict
    _without_low_noise(module, monkeypatch)
    assert _vacuity_failed(module.check(False))


def test_vacuous_basic_grid_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    original = acc_5_02._grid
    monkeypatch.setattr(acc_5_02, "_grid", lambda full: [p for p in original(full)
                                                         if p[0].n == 1])
    assert _vacuity_failed(acc_5_02.check(False))


def test_vacuous_stability_grid_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(acc_5_05, "BETAS", [])
    assert _vacuity_failed(acc_5_05.check_5_6(False))


def _shave_top(cls: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """A release whose bins holding the full count n read n - 1: still a histogram, wrong
    only where a bin's count is n (the heavy bin the non-vacuous points look at)."""
    original = cls.release  # type: ignore[attr-defined]

    def release(self: Any, dataset: Dataset, source: RandomSource | None = None,
                *args: Any) -> Histogram:
        h = original(self, dataset, source, *args)
        bins = tuple((x, c - 1 if c == h.n else c) for x, c in h.bins)
        return Histogram(h.universe, h.n, bins, h.algorithm, h.fallback)

    monkeypatch.setattr(cls, "release", release)


@pytest.mark.parametrize(("module", "cls"), [(acc_6_08, SparseHistogram),
                                             (acc_6_10, PureSparseHistogram)])
def test_shaved_heavy_bin_fails(module: Any, cls: type, monkeypatch: pytest.MonkeyPatch) -> None:
    _shave_top(cls, monkeypatch)
    report = module.check(False)
    assert _fails(report)
    bad = [c for c in report.certificates if not c.verdict]
    assert any("Tabulated" in c.mechanism for c in bad)


def test_stability_support_leak_fails_theorem_5_6_where_b_below_n(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bin of A released (the threshold dropped): (eps, delta)-DP fails, and the part of
    the Theorem 5.6 (i) row that sees it is the exhaustive one with b < n."""
    plant(monkeypatch, StabilityHistogram, "release", "if c > b]", "if c >= 0]")
    report = stab.check_5_6(False)
    assert _fails(report)
    bad = [c for c in report.certificates if not c.verdict]
    assert any(c.claim == "Theorem 5.6 (i), b < n" for c in bad)
