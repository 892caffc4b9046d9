"""Threshold ([F] Algorithm 6) with exact geometric noise and its large-universe route; Threshold
ALP ([F] Algorithms 7-8); the (eps, delta) combination ([S] Theorem 4.2)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest

from exactdp.explore import explore
from exactdp.histograms.data import Dataset
from exactdp.params import DomainError, ParameterError, ParameterTypeError, ResourceLimitError
from exactdp.randomness import RandomSource, SeededSource
from exactdp.sparse_vectors.approx import (
    ApproxThresholdALP,
    ApproxThresholdParams,
    KorolovaThreshold,
)
from exactdp.sparse_vectors.combined import ThresholdALP, ThresholdALPSketch
from exactdp.sparse_vectors.threshold import (
    PureSparseThreshold,
    Threshold,
    ThresholdParams,
    minimal_threshold,
)
from exactdp.trace import record, recording
from tests._sources import RecordingSource

F = Fraction


def _seeded(seed: int) -> SeededSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SeededSource(seed)


@pytest.mark.parametrize("eps1,d,r,t,fp", [
    (F(1), 6, F(1, 2), 2, F(1, 6)),        # notes ALP.md §3.5
    (F(1, 2), 6, F(2, 3), 4, F(16, 135)),  # notes ALP.md §3.5
])
def test_the_notes_examples(eps1: Fraction, d: int, r: Fraction, t: int, fp: Fraction) -> None:
    p = ThresholdParams.for_epsilon(eps1, d, 10)
    assert (p.r, p.t, p.false_positive) == (r, t, fp)
    # independently: t is the first integer whose tail is <= 1/d (the Laplace-free analogue
    # of t = ln(d/2)/eps1); the tail of a ratio-r two-sided geometric at t is r^t/(1+r)
    tails = [r ** s / (1 + r) for s in range(1, 10)]
    assert next(s for s, q in enumerate(tails, 1) if q <= F(1, d)) == t


@pytest.mark.parametrize("r", [F(1, 2), F(2, 3), F(9, 10), F(1, 100)])
@pytest.mark.parametrize("d", [1, 2, 3, 10, 1000, 2**64])
def test_minimal_threshold_is_minimal(r: Fraction, d: int) -> None:
    t = minimal_threshold(r, d)
    assert t >= 1
    assert r ** t / (1 + r) <= F(1, d)
    assert t == 1 or r ** (t - 1) / (1 + r) > F(1, d)


def test_released_law_from_exploration() -> None:
    p = ThresholdParams(F(1, 2), 2, 4, 2)
    thr = Threshold(p)
    dist = explore(lambda s: tuple(sorted(thr.release({2: 3}, s).items())))
    r = p.r
    geo = {j: (1 - r) / (1 + r) * r ** abs(j) for j in range(-10, 11)}
    # key 1 (x = 0): released as v in {2, 3} with the pmf, 4 with the tail r^4/(1+r)
    k1 = {2: geo[2], 3: geo[3], 4: r ** 4 / (1 + r)}
    k1[0] = 1 - sum(k1.values(), F(0))
    # key 2 (x = 3): values 2, 3 with the pmf, 4 with the tail r/(1+r), dropped below 2
    k2 = {2: geo[-1], 3: geo[0], 4: r / (1 + r)}
    k2[0] = 1 - sum(k2.values(), F(0))
    expected: dict[tuple[tuple[int, int], ...], Fraction] = {}
    for a, pa in k1.items():
        for b, pb in k2.items():
            key = tuple((k, v) for k, v in ((1, a), (2, b)) if v)
            expected[key] = pa * pb
    assert dist == expected
    # a zero is released with probability r^t/(1+r), as false_positive says
    assert 1 - k1[0] == p.false_positive == F(1, 6)


def test_strict_time_same_trace_for_every_input() -> None:
    p = ThresholdParams.for_epsilon(1, 5, 6)
    thr = Threshold(p)

    class Tracing(RandomSource):
        def __init__(self) -> None:
            self.inner = _seeded(3)

        def uniform(self, d: int) -> int:
            record("uniform", d)
            return self.inner.uniform(d)

    traces = set()
    for x in ({}, {1: 6}, {2: 1, 3: 6, 5: 0}, [(4, 2)], {1: 6, 2: 6, 3: 6, 4: 6, 5: 6}):
        with recording() as events:
            thr.release(x, Tracing())
        traces.add(tuple(events))
    assert len(traces) == 1
    (trace,) = traces
    assert sum(1 for e in trace if e[0] == "uniform") == p.draws == 5
    assert all(e == ("uniform", p.noise.d) for e in trace if e[0] == "uniform")


def test_release_outputs_are_at_least_t_and_at_most_hi() -> None:
    p = ThresholdParams(F(1, 2), 2, 5, 20)
    out = Threshold(p).release({i: 5 for i in range(1, 11)}, _seeded(1))
    assert out and all(p.t <= v <= p.hi for v in out.values())
    assert all(1 <= k <= 20 for k in out)


def test_errors() -> None:
    with pytest.raises(ParameterError):
        ThresholdParams(F(1, 2), 0, 5, 3)
    with pytest.raises(ParameterError):
        ThresholdParams(F(1, 2), 4, 3, 3)
    with pytest.raises(ParameterError):
        ThresholdParams(F(3, 2), 1, 3, 3)
    with pytest.raises(ParameterTypeError):
        ThresholdParams(0.5, 1, 3, 3)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        ThresholdParams.for_epsilon(0, 3, 3)
    with pytest.raises(ParameterError):  # rounding r down would weaken privacy
        ThresholdParams.for_epsilon(1, 3, 3, ratio=F(49, 100))
    assert ThresholdParams.for_epsilon(1, 3, 3, ratio=F(3, 4)).r == F(3, 4)
    thr = Threshold(ThresholdParams(F(1, 2), 1, 3, 3))
    for bad in ({4: 1}, {0: 1}, {1: 4}, {1: -1}, [(1, 1), (1, 2)]):
        with pytest.raises(DomainError):
            thr.release(bad, _seeded(0))
    for bad_input in ("12", 3, {1: 1.0}, [(1,)]):
        with pytest.raises(ParameterTypeError):
            thr.release(bad_input, _seeded(0))
    with pytest.raises(ResourceLimitError):
        Threshold(ThresholdParams.for_epsilon(1, 2**64, 100))


def test_pure_sparse_route_at_two_to_the_64() -> None:
    alg = PureSparseThreshold(200, 2**64, 1, F(1, 8))
    assert alg.ratio == F(2, 3) and alg.mechanism.privacy_ratio == F(3, 2)
    # (64 ln 2 + ln(3/5)) / ln(3/2) = 108.15...: the first integer is 109
    assert alg.t == minimal_threshold(F(2, 3), 2**64) == 109
    rows = [5] * 197 + [7, 9, 11]
    for seed in range(3):
        out = alg.release(Dataset.of(alg.universe, rows), _seeded(seed))
        assert all(alg.t <= c <= 200 for c in out.values())
        assert len(out) <= 200
    with pytest.raises(ParameterError):  # t = 109 > n: nothing could be released
        PureSparseThreshold(100, 2**64, 1, F(1, 8))
    with pytest.raises(ParameterError):
        PureSparseThreshold(3, 2**64, F(2, 3), F(1, 8), t=1)  # epsilon must be 1/m


# ------------------------------------------------------------------ Algorithms 7-8 and Thm 4.2





def test_threshold_alp_parameters_follow_algorithm_7() -> None:
    half = F(1, 2)
    alg = ThresholdALP.from_paper(half, half, half, 3, 1, 6, 5)
    thr, alp = alg.threshold.params, alg.alp.params
    assert (thr.r, thr.t) == (F(2, 3), 4)                       # notes: d = 6, eps1 = 1/2
    assert alp.columns == 4                                     # m = ceil(t eps2/alpha) = 4
    assert (alp.scale, alp.flip) == (F(1), F(2, 5))             # c = eps2/alpha, 1/(alpha+2)
    assert alg.privacy_ratio_bound == (F(3, 2), half)


def test_threshold_alp_estimate_is_algorithm_8() -> None:
    alg = ThresholdALP.from_paper(1, 1, 1, 5, 2, 8, 6)
    for seed in range(5):
        sk = alg.project({2: 6, 5: 1}, _seeded(seed))
        released = dict(sk.released)
        for key in range(1, 9):
            if key in released:
                assert sk.estimate(key) == released[key] >= alg.threshold.params.t
            else:
                assert sk.value(key) == 0
                assert sk.estimate(key) == sk.sketch.estimate(key)


def test_threshold_alp_draws_do_not_depend_on_the_input() -> None:
    alg = ThresholdALP.from_paper(1, 1, 1, 5, 2, 8, 6)
    runs = []
    for x in ({}, {1: 6}, {3: 2, 8: 6}):
        src = RecordingSource(0)
        alg.project(x, src, rr="cells")
        runs.append(src.sizes)
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) == 8 + alg.alp.draw_count(rr="cells")


def test_threshold_alp_refuses_before_drawing() -> None:
    alg = ThresholdALP.from_paper(1, 1, 1, 5, 1, 8, 6)
    src = RecordingSource(0)
    for bad in ({1: 1, 2: 1}, {1: 7}, {9: 1}):
        with pytest.raises(DomainError):
            alg.project(bad, src)
    assert src.sizes == []
    with pytest.raises(ParameterError):
        ThresholdALP(ThresholdParams(F(1, 2), 1, 3, 4), alg.alp.params)


def test_sketch_validation() -> None:
    alg = ThresholdALP.from_paper(1, 1, 1, 5, 1, 8, 6)
    sk = alg.project({1: 3}, _seeded(1))
    with pytest.raises(DomainError):
        ThresholdALPSketch(sk.threshold, ((1, 0),), sk.sketch)
    with pytest.raises(DomainError):
        ThresholdALPSketch(sk.threshold, ((2, 3), (1, 3)), sk.sketch)
    with pytest.raises(ParameterError):
        ThresholdALPSketch(ThresholdParams(F(1, 2), 1, 6, 9), (), sk.sketch)


@pytest.mark.parametrize("eps,delta", [(F(1), F(1, 10)), (F(1, 2), F(1, 3)), (F(1), F(1, 10**6)),
                                       (F(1, 10), F(1, 2))])
def test_t_delta_is_minimal(eps: Fraction, delta: Fraction) -> None:
    p = ApproxThresholdParams.for_epsilon_delta(eps, delta, 10, 10**6, 2)
    r, t = p.r, p.t
    assert r == 1 / (1 + eps)
    q = r ** (t - 1) / (1 + r)
    assert p.delta == p.survival == q <= delta
    assert t == 1 or r ** (t - 2) / (1 + r) > delta
    assert p.privacy_ratio == 1 + eps


def test_korolova_threshold_releases_only_the_support_in_k_draws() -> None:
    p = ApproxThresholdParams.for_epsilon_delta(1, F(1, 3), 6, 5, 2)
    alg = KorolovaThreshold(p)
    dist = explore(lambda s: tuple(sorted(alg.release({4: 1}, s).items())))
    assert set(dist) <= {(), ((4, 2),), ((4, 3),), ((4, 4),), ((4, 5),)}
    assert sum(pr for o, pr in dist.items() if o) == p.delta == F(1, 3)
    sizes = []
    for x in ({}, {2: 5}, {1: 1, 6: 5}):
        src = RecordingSource(1)
        alg.release(x, src)
        sizes.append(src.sizes)
    assert sizes[0] == sizes[1] == sizes[2] == [p.noise.d] * 2
    with pytest.raises(ParameterError):
        alg.release({1: 1, 2: 1, 3: 1}, _seeded(0))


def test_approx_threshold_alp() -> None:
    alg = ApproxThresholdALP.from_paper(1, 1, F(1, 1000), 1, 5, 2, 50, 40)
    p = alg.threshold.params
    assert alg.alp.params.columns == p.t  # m = ceil(t_delta eps2/alpha) with eps2 = alpha
    assert alg.delta == p.r ** (p.t - 1) / (1 + p.r) <= F(1, 1000)
    sk = alg.project({7: 40, 9: 1}, _seeded(4))
    assert all(k in (7, 9) for k, _ in sk.released)
    assert sk.estimate(3) == sk.sketch.estimate(3)
