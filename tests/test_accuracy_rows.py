"""The accuracy rows and the branch-reaching grid points fail on planted bugs.

Each test plants one bug with ``monkeypatch`` (a release that is still private but useless,
a shifted FastSample branch that only ``n > t`` reaches, a moved fallback or node boundary)
and asserts that the verify row built for it returns a FAIL verdict; where the point is that
a new grid point is needed, it also shows the old grid passing with the bug in place.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import exactdp.histograms.compact as compact_module
import exactdp.histograms.sparse as sparse_module
from exactdp import fastsample
from exactdp.certificate import ClaimReport
from exactdp.counting import FastSample
from exactdp.histograms.basic import BasicHistogram, StabilityHistogram
from exactdp.histograms.data import Dataset, Histogram
from exactdp.histograms.sparse import PureSparseHistogram, SparseHistogram
from exactdp.proofs.balcer_vadhan import _counting
from exactdp.proofs.balcer_vadhan import lemma_4_12_fastsample_cdf as lemma_4_12
from exactdp.proofs.balcer_vadhan import lemma_8_01_boundaries as boundaries
from exactdp.proofs.balcer_vadhan import thm_4_10_fastsample as thm_4_10
from exactdp.proofs.balcer_vadhan import thm_5_02_accuracy as acc_5_02
from exactdp.proofs.balcer_vadhan import thm_5_05_accuracy as acc_5_05
from exactdp.proofs.balcer_vadhan import thm_6_08_accuracy as acc_6_08
from exactdp.proofs.balcer_vadhan import thm_6_10_accuracy as acc_6_10
from exactdp.proofs.balcer_vadhan import thm_6_10_pure_sparse as thm_6_10
from exactdp.proofs.balcer_vadhan import thm_8_06_accuracy as acc_8_06
from exactdp.randomness import RandomSource

Release = Callable[..., Histogram]


def _patch_bins(monkeypatch: pytest.MonkeyPatch, cls: type,
                change: Callable[[Histogram], tuple[tuple[int, int], ...]]) -> None:
    """Replace ``cls.release`` by the original followed by ``change`` of the bins (the
    original still makes all its draws, so only the released values differ)."""
    original: Release = cls.release  # type: ignore[attr-defined]

    def release(self: Any, dataset: Dataset, source: RandomSource | None = None,
                *args: Any) -> Histogram:
        h = original(self, dataset, source, *args)
        return Histogram(h.universe, h.n, change(h), h.algorithm, h.fallback)

    monkeypatch.setattr(cls, "release", release)


def _zeros(h: Histogram) -> tuple[tuple[int, int], ...]:
    return tuple((x, 0) for x, _ in h.bins)


def _nothing(h: Histogram) -> tuple[tuple[int, int], ...]:
    return ()


def _plus_one(h: Histogram) -> tuple[tuple[int, int], ...]:
    return tuple((x, min(c + 1, h.n)) for x, c in h.bins)


def _fails(report: ClaimReport) -> bool:
    return not report.verdict and bool(report.certificates)


# --------------------------------------------------------------------- the rows pass as is

@pytest.mark.parametrize("check", [acc_5_02.check, acc_5_05.check_5_5, acc_5_05.check_5_6,
                                   acc_6_08.check, acc_6_10.check, acc_8_06.check,
                                   boundaries.check])
def test_rows_pass_on_the_implementation(check: Callable[[bool], ClaimReport]) -> None:
    assert check(False).verdict


# --------------------------------------------------------------------- Basic, Stability

def test_basic_releasing_zero_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_bins(monkeypatch, BasicHistogram, _zeros)
    assert _fails(acc_5_02.check(False))


def test_basic_adding_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_bins(monkeypatch, BasicHistogram, _plus_one)
    assert _fails(acc_5_02.check(False))


def test_stability_releasing_nothing_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_bins(monkeypatch, StabilityHistogram, _nothing)
    assert _fails(acc_5_05.check_5_5(False))
    assert _fails(acc_5_05.check_5_6(False))  # Figure 4's per-query bound is below n = 20


# --------------------------------------------------------------------- Sparse, PureSparse

def test_sparse_adding_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_bins(monkeypatch, SparseHistogram, _plus_one)
    assert _fails(acc_6_08.check(False))


def test_pure_sparse_releasing_nothing_is_private_but_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_bins(monkeypatch, PureSparseHistogram, _nothing)
    report = acc_6_10.check(False)
    assert _fails(report)
    assert "D=[1]" in str(report.certificates[0].witness["worst_event"])
    # The privacy row cannot see it where the sparse path runs (|X| >= 2n + 1): a constant
    # release is (0, 0)-DP.  (At |X| = 2n it differs from BasicHistogram's law and fails.)
    sparse_path = [c for c in thm_6_10.check(False).certificates
                   if c.parameters["|X|"] >= 2 * c.parameters["n"] + 1]
    assert sparse_path and all(c.verdict for c in sparse_path)


def test_pure_sparse_adding_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    _patch_bins(monkeypatch, PureSparseHistogram, _plus_one)
    assert _fails(acc_6_10.check(False))


def test_pure_sparse_fallback_moved_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Falling back at |X| = 2n + 1 too (private: BasicHistogram) moves the boundary."""
    original = sparse_module.fallback_reason

    def late(universe: Any, n: int) -> str | None:
        if universe.size == 2 * n + 1:
            return "planted: fallback at |X| = 2n + 1"
        return original(universe, n)

    monkeypatch.setattr(sparse_module, "fallback_reason", late)
    report = thm_6_10.check(False)
    assert _fails(report)
    bad = [c for c in report.certificates if not c.verdict]
    assert bad and all(c.parameters["|X|"] == 2 * c.parameters["n"] + 1 for c in bad)
    assert not any(c.witness["fallback_as_expected"] for c in bad)


# --------------------------------------------------------------------- Compact

def test_compact_with_too_much_noise_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """eps' = eps/8 instead of 1/ceil(10/(9 eps)): more private, less accurate than 8.6 says
    (at n = 30 the exact per-query error at beta = 1/2 exceeds ceil(5/eps ln 4) = 7)."""
    monkeypatch.setattr(compact_module, "theorem_8_6_epsilon_prime",
                        lambda epsilon: Fraction(epsilon) / 8)
    assert _fails(acc_8_06.check(False))


def test_compact_node_level_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nodes sized for n points instead of n + 1 (the padding point n no longer fits K)."""
    def short(field_: Any, universe_size: int, n: int) -> int:
        return field_.sublevel_for(max(universe_size, min(n, field_.order)))  # type: ignore

    monkeypatch.setattr(compact_module, "node_sublevel", short)
    assert _fails(boundaries.check(False))


# --------------------------------------------------------------------- FastSample, n > t

def _fresh_counting_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_counting, "_DISTS", {})
    _counting.fastsample.cache_clear()


def test_fast_grid_has_points_beyond_t() -> None:
    beyond = [m for m in _counting.each_fast(False) if m.n > m.t]
    assert {(m.n, m.t) for m in beyond} == {(41, 40), (64, 44)}


def test_fastsample_shift_below_the_window_needs_n_above_t(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """F'(z) for z < c - t (reached only when n > t) returns 1 instead of 0."""
    original = FastSample.truncated_cdf

    def shifted(self: FastSample, c: int, z: int) -> int:
        if 0 <= z < c - self.t:
            return 1
        return original(self, c, z)

    monkeypatch.setattr(FastSample, "truncated_cdf", shifted)
    _fresh_counting_cache(monkeypatch)
    assert _fails(lemma_4_12.check_i(False))
    # The grid of n <= 32 (n <= t everywhere) cannot see it.
    monkeypatch.setattr(_counting, "fast_grid", _counting._fast_cross)
    _fresh_counting_cache(monkeypatch)
    assert lemma_4_12.check_i(False).verdict


@pytest.mark.parametrize("path", ["search_cdf", "_gmp_cdf"])
def test_fastsample_search_shift_above_the_window_fails(monkeypatch: pytest.MonkeyPatch,
                                                        path: str) -> None:
    """The search's F on c + t <= z < n (reached only when n > t) is one too large: in the
    search's window of S F' (the default) or, with no room for the window, in _gmp_cdf."""
    if path == "_gmp_cdf":
        monkeypatch.setattr(fastsample, "NATIVE_TABLE_BYTES", 0)
    original = getattr(FastSample, path)

    def shifted(self: FastSample, c: int, z: int) -> Any:
        value = original(self, c, z)
        return value + 1 if c + self.t <= z < self.n else value

    monkeypatch.setattr(FastSample, path, shifted)
    _fresh_counting_cache(monkeypatch)
    assert _fails(thm_4_10.check_v(False))
    monkeypatch.setattr(_counting, "fast_grid", _counting._fast_cross)
    _fresh_counting_cache(monkeypatch)
    assert thm_4_10.check_v(False).verdict
