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


def test_vacuous_compact_grid_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.balcer_vadhan import thm_8_06_accuracy as acc_8_06
    original = acc_8_06._grid
    assert acc_8_06.check(False).verdict
    monkeypatch.setattr(acc_8_06, "_grid", lambda full: [p for p in original(full)
                                                         if p[1] < 10])
    assert _vacuity_failed(acc_8_06.check(False))


# --------------------------------------------------------------------- Theorem 6.2, Lemma 6.3

def test_keepheavy_rows_pass() -> None:
    from exactdp.proofs.balcer_vadhan import lemma_6_03_heavy_kept as lemma
    from exactdp.proofs.balcer_vadhan import thm_6_02_keepheavy as kh
    for check in (*kh.CHECKS, lemma.check):
        report = check(False)
        assert report.verdict and report.certificates, report.worst


def test_keepheavy_threshold_bug_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ties with the (n+1)-th heaviest released (>= instead of >): a neighbouring dataset's
    zero bins leak (ratio), and more than the kept bins show up (law != reference)."""
    from exactdp.histograms import sparse
    from exactdp.proofs.balcer_vadhan import thm_6_02_keepheavy as kh
    plant(monkeypatch, sparse, "keep_heaviest", "if c > threshold]", "if c >= threshold]")
    assert _fails(kh.check_ii_iii(False))


def test_keepheavy_leaking_count_fails_privacy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bins whose true count is n withheld: a neighbouring dataset shows them, ratio infinite."""
    from exactdp.histograms import sparse
    from exactdp.proofs.balcer_vadhan import thm_6_02_keepheavy as kh
    original = sparse.KeepHeavy.release

    def leaky(self: Any, dataset: Dataset, source: RandomSource | None = None) -> Histogram:
        h = original(self, dataset, source)
        full = {x for x, c in dataset.counts().items() if c == dataset.n}
        bins = tuple((x, 0 if x in full else c) for x, c in h.bins)
        return Histogram(h.universe, h.n, tuple(b for b in bins if b[1]), h.algorithm)

    monkeypatch.setattr(sparse.KeepHeavy, "release", leaky)
    assert _fails(kh.check_i(False))


def test_lemma_6_3_sees_a_dropped_heavy_bin(monkeypatch: pytest.MonkeyPatch) -> None:
    """keep_heaviest comparing with the n-th heaviest instead of the (n+1)-th drops a heavy
    bin tied with it; only points with a count above 2 a2 can show it."""
    from exactdp.histograms import sparse
    from exactdp.proofs.balcer_vadhan import lemma_6_03_heavy_kept as lemma
    plant(monkeypatch, sparse, "keep_heaviest", "threshold = values[n]",
          "threshold = values[0]")
    report = lemma.check(False)
    assert _fails(report)
    assert any("dropped" in c.witness for c in report.certificates if not c.verdict)


def test_lemma_6_3_vacuous_grid_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.counting import GeoSample
    from exactdp.proofs.balcer_vadhan import lemma_6_03_heavy_kept as lemma
    monkeypatch.setattr(lemma, "_grid", lambda full: [(GeoSample(2, 1), 3)])
    assert _vacuity_failed(lemma.check(False))


# --------------------------------------------------------------------- Section 7

def test_lower_bound_row_passes_and_bites() -> None:
    from exactdp.proofs.balcer_vadhan import thm_7_01_lower_bounds as lower
    report = lower.check(False)
    assert report.verdict
    assert report.certificates[-1].worst > 0  # type: ignore[operator]


def test_noiseless_histogram_beats_the_bound_and_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """BasicHistogram releasing the true counts (not private): error 0 < Theorem 7.1's bound."""
    from exactdp.histograms.basic import BasicHistogram
    from exactdp.proofs.balcer_vadhan import thm_7_01_lower_bounds as lower

    def exact(self: Any, dataset: Dataset, source: RandomSource | None = None,
              *args: Any) -> Histogram:
        counts = dataset.counts()
        bins = tuple((x, counts.get(x, 0)) for x in self.universe.elements())
        return Histogram(self.universe, dataset.n, bins, "BasicHistogram")

    monkeypatch.setattr(BasicHistogram, "release", exact)
    report = lower.check(False)
    assert _fails(report)
    bad = [c for c in report.certificates if not c.verdict]
    assert bad and all("Basic/" in c.mechanism for c in bad)


# --------------------------------------------------------------------- Theorem 6.11 at large n

def test_large_n_row_bites() -> None:
    from exactdp.proofs.balcer_vadhan import thm_6_11_large_n as large
    report = large.check(False)
    assert report.verdict
    assert all(c.parameters["t"] < c.parameters["n"] for c in report.certificates
               if "t" in c.parameters)


def test_large_n_mixing_weight_bug_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """beta1 = beta0 instead of beta0/4 (still pure DP: more uniform noise): Figure 5's
    per-query bound at the non-vacuous point fails."""
    from exactdp.histograms.sparse import PureSparseHistogram
    from exactdp.proofs.balcer_vadhan import thm_6_11_large_n as large
    plant(monkeypatch, PureSparseHistogram, "theorem_6_11",
          "return cls(mech, universe, eps, b0 / 4,", "return cls(mech, universe, eps, b0,")
    report = large.check(False)
    assert _fails(report)
    assert all(c.claim.endswith("(formula)") or c.claim.endswith("(non-vacuous)")
               for c in report.certificates if c.verdict)


def test_large_n_formula_sees_a_keepheavy_tie_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.histograms import sparse
    from exactdp.proofs.balcer_vadhan import thm_6_11_large_n as large
    plant(monkeypatch, sparse, "keep_heaviest", "if c > threshold]", "if c >= threshold]")
    report = large.check(False)
    assert _fails(report)
    assert any(c.claim.endswith("(formula)") for c in report.certificates if not c.verdict)
