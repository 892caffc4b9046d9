"""The Threshold, Threshold-ALP and (eps, delta) verify rows pass; each fails on a planted bug."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction

import pytest

from exactdp.certificate import ClaimReport
from exactdp.hashing import Seed
from exactdp.histograms.data import Dataset
from exactdp.noise import ClampedGeometric
from exactdp.params import to_fraction
from exactdp.proofs.alp import alp_lemma_5_01_threshold as lemma_5_01
from exactdp.proofs.alp import alp_lemma_5_03_threshold_alp as lemma_5_03
from exactdp.proofs.alp import alp_thm_4_02_approx as thm_4_02
from exactdp.randomness import RandomSource, default_source
from exactdp.sparse_vectors import approx as approx_mod
from exactdp.sparse_vectors import threshold as threshold_mod
from exactdp.sparse_vectors.alp import ALPParams
from exactdp.sparse_vectors.approx import ApproxThresholdParams, KorolovaThreshold
from exactdp.sparse_vectors.combined import ThresholdALP, ThresholdALPSketch
from exactdp.sparse_vectors.threshold import Threshold, ThresholdParams, threshold_input

F = Fraction


def _verdicts(checks: list[Callable[[bool], ClaimReport]]) -> list[bool]:
    return [c(False).verdict for c in checks]


def test_threshold_rows_pass() -> None:
    assert _verdicts(lemma_5_01.CHECKS) == [True, True, True]


def test_ratio_rounded_down_fails_the_privacy_row(monkeypatch: pytest.MonkeyPatch) -> None:
    # r = 1/(1 + eps1) rounded the wrong way (down: less noise than the guarantee needs)
    original = ThresholdParams.for_ratio.__func__  # type: ignore[attr-defined]

    def rounded_down(cls: type[ThresholdParams], r: object, universe: object,
                     hi: object) -> ThresholdParams:
        return original(cls, to_fraction(r, "r") * F(99, 100), universe, hi)

    monkeypatch.setattr(ThresholdParams, "for_ratio", classmethod(rounded_down))
    assert lemma_5_01.check(False).verdict is False


def test_noise_weaker_than_its_parameter_fails_the_privacy_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def weaker(self: ThresholdParams) -> ClampedGeometric:
        return ClampedGeometric(self.r * F(9, 10), self.t - 1, self.hi, 0, self.hi)

    monkeypatch.setattr(ThresholdParams, "noise", property(weaker))
    assert lemma_5_01.check(False).verdict is False


def test_noise_only_on_the_support_fails_the_privacy_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def support_only(self: Threshold, x: object,
                     source: RandomSource | None = None) -> dict[int, int]:
        p = self.params
        values = threshold_input(x, p.d, p.hi)
        src = default_source(source)
        out = {}
        for key, v in sorted(values.items()):
            if v:
                noisy = p.noise.sample_value(v, src)
                if noisy >= p.t:
                    out[key] = noisy
        return out

    monkeypatch.setattr(Threshold, "release", support_only)
    assert lemma_5_01.check(False).verdict is False


def test_threshold_one_too_small_fails_the_false_positive_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = threshold_mod.minimal_threshold
    monkeypatch.setattr(threshold_mod, "minimal_threshold",
                        lambda r, d: max(1, original(r, d) - 1))
    assert lemma_5_01.check_false_positives(False).verdict is False


def test_threshold_zero_fails_the_false_positive_row(monkeypatch: pytest.MonkeyPatch) -> None:
    # t = 0 in effect: everything at or above t - 1 (the 'dropped' value) is released
    def keep_all(self: Threshold, x: object,
                 source: RandomSource | None = None) -> dict[int, int]:
        p = self.params
        values = threshold_input(x, p.d, p.hi)
        src = default_source(source)
        return {key: p.noise.sample_value(values.get(key, 0), src)
                for key in range(1, p.d + 1)}

    monkeypatch.setattr(Threshold, "release", keep_all)
    assert lemma_5_01.check_false_positives(False).verdict is False


def test_pure_sparse_route_with_eps_per_count_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # M must be (eps/2)-DP for counting queries: ratio 1/(1 + eps) per count is twice too weak
    original_init = threshold_mod.PureSparseThreshold.__init__

    def too_weak(self: threshold_mod.PureSparseThreshold, n: object, universe: object,
                 epsilon: object, beta1: object, t: object = None, strict: bool = True) -> None:
        original_init(self, n, universe, epsilon, beta1, t, strict)
        self.ratio = 1 / (1 + self.epsilon)
        self.mechanism = ClampedGeometric(self.ratio, 0, self.n)
        self.histogram = threshold_mod.PureSparseHistogram(
            self.mechanism, self.universe, self.epsilon, self.histogram.beta1, strict=strict)

    monkeypatch.setattr(threshold_mod.PureSparseThreshold, "__init__", too_weak)
    assert lemma_5_01.check_pure_sparse(False).verdict is False


# ------------------------------------------------------------------ Lemma 5.3 (Threshold ALP)


def test_threshold_alp_row_passes() -> None:
    assert lemma_5_03.check(False).verdict is True


def test_threshold_alp_with_alp_flip_rounded_down_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # p = 1/(alpha + 2) rounded down to 1/(alpha + 3): ALP's ratio grows past e^eps2
    original = ALPParams.from_paper.__func__  # type: ignore[attr-defined]

    def rounded(cls: type[ALPParams], epsilon: object, alpha: object, *rest: object
                ) -> ALPParams:
        good = original(cls, epsilon, alpha, *rest)
        return dataclasses.replace(good, flip=1 / (to_fraction(alpha, "alpha") + 3))

    monkeypatch.setattr(ALPParams, "from_paper", classmethod(rounded))
    assert lemma_5_03.check(False).verdict is False


def test_threshold_alp_with_threshold_on_the_support_only_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def support_only(self: Threshold, x: object,
                     source: RandomSource | None = None) -> dict[int, int]:
        p = self.params
        values = threshold_input(x, p.d, p.hi)
        src = default_source(source)
        out = {}
        for key, v in sorted(values.items()):
            noisy = p.noise.sample_value(v, src)
            if v and noisy >= p.t:
                out[key] = noisy
        return out

    monkeypatch.setattr(Threshold, "release", support_only)
    assert lemma_5_03.check(False).verdict is False


def test_threshold_alp_where_alp_reads_the_threshold_noise_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # an "optimisation": ALP skips the keys Threshold already released.  The parts then
    # depend on each other, the law is no longer the product of the parts' laws
    def coupled(self: ThresholdALP, x: object, source: RandomSource | None = None,
                seeds: tuple[Seed, ...] | None = None, *, rr: str = "auto"
                ) -> ThresholdALPSketch:
        src = default_source(source)
        released = self.threshold.release(x, src)
        rest = {k: v for k, v in dict(x).items() if k not in released}  # type: ignore[call-overload]
        sketch = self.alp.project(rest, src, seeds, rr=rr)
        return ThresholdALPSketch(self.threshold.params, tuple(sorted(released.items())),
                                  sketch)

    monkeypatch.setattr(ThresholdALP, "project", coupled)
    assert lemma_5_03.check(False).verdict is False


# ------------------------------------------------------------------ Theorem 4.2 ((eps, delta))


def test_approx_rows_pass() -> None:
    assert _verdicts(thm_4_02.CHECKS) == [True, True]


def test_t_delta_one_too_small_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    original = approx_mod.approx_threshold
    monkeypatch.setattr(approx_mod, "approx_threshold",
                        lambda r, d: max(1, original(r, d) - 1))
    assert thm_4_02.check_threshold(False).verdict is False


def test_releasing_at_t_minus_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def off_by_one(self: KorolovaThreshold, x: object,
                   source: RandomSource | None = None) -> dict[int, int]:
        p = self.params
        values = threshold_input(x, p.d, p.hi)
        support = sorted((key, v) for key, v in values.items() if v)
        padded = support + [(0, 0)] * (p.sparsity - len(support))
        src = default_source(source)
        out = {}
        for key, v in padded:
            noisy = p.noise.sample_value(v, src)
            if key and noisy > p.t - 2:  # '>= t' written as '> t - 2'
                out[key] = noisy
        return out

    monkeypatch.setattr(KorolovaThreshold, "release", off_by_one)
    assert thm_4_02.check_threshold(False).verdict is False


def test_ratio_rounded_down_fails_the_approx_row(monkeypatch: pytest.MonkeyPatch) -> None:
    def rounded(eps: object, delta: object, universe: int, hi: int,
                sparsity: int) -> ApproxThresholdParams:
        r = F(1, 2) / (1 + to_fraction(eps, "eps"))
        return ApproxThresholdParams(r, approx_mod.approx_threshold(r, to_fraction(delta, "d")),
                                     hi, universe, sparsity)

    assert thm_4_02.check_threshold(False, rounded).verdict is False


def test_alp_flip_rounded_down_fails_the_combined_approx_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = ALPParams.from_paper.__func__  # type: ignore[attr-defined]

    def rounded(cls: type[ALPParams], epsilon: object, alpha: object, *rest: object
                ) -> ALPParams:
        good = original(cls, epsilon, alpha, *rest)
        return dataclasses.replace(good, flip=1 / (to_fraction(alpha, "alpha") + 3))

    monkeypatch.setattr(ALPParams, "from_paper", classmethod(rounded))
    assert thm_4_02.check_combined(False).verdict is False


def test_pure_sparse_route_with_the_threshold_off_by_one_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def strict_above(self: threshold_mod.PureSparseThreshold, dataset: Dataset,
                     source: RandomSource | None = None) -> dict[int, int]:
        return {k: c for k, c in self.histogram.release(dataset, source).bins if c > self.t}

    monkeypatch.setattr(threshold_mod.PureSparseThreshold, "release", strict_above)
    assert lemma_5_01.check_pure_sparse(False).verdict is False


def test_pure_sparse_route_dropping_the_uniform_branch_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # always the SparseHistogram branch: Theorem 6.10's mixture is gone (and with it the
    # pure-DP argument); the row compares the law with the exact mixture
    def no_mixture(self: threshold_mod.PureSparseThreshold, dataset: Dataset,
                   source: RandomSource | None = None) -> dict[int, int]:
        bins = self.histogram.sparse.release(dataset, source).bins
        return {k: c for k, c in bins if c >= self.t}

    monkeypatch.setattr(threshold_mod.PureSparseThreshold, "release", no_mixture)
    assert lemma_5_01.check_pure_sparse(False).verdict is False
