"""ALP-full Lemma 5.1 / 5.2 (Aumüller, Lebeda & Pagh): Threshold with exact geometric noise is
private with worst ratio exactly 1/r, and its minimal integer threshold keeps each zero with
probability r^t/(1+r) <= 1/d; the large-universe route through paper 004's PureSparseHistogram."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from functools import partial
from itertools import product
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import (
    certify_ratio,
    statistical_distance,
    threshold_distribution,
    worst_ratio,
)
from exactdp.explore import explore
from exactdp.histograms.data import Dataset, Histogram
from exactdp.histograms.sparse import KeepHeavy, KHPrime, uniform_sparse_histogram
from exactdp.proofs._histograms import Distributions, canonical_datasets, neighbour_pairs
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors.threshold import (
    PureSparseThreshold,
    Threshold,
    ThresholdParams,
)

CLAIM = "ALP Lemma 5.1 (Threshold)"
STATEMENT = """ALP-full Algorithm 6 (Threshold) with Lap(1/eps1) replaced by the two-sided geometric of
ratio r = 1/(1+eps1), clamped to {t-1, ..., hi}: for integer inputs x, x' in [0, hi]^d with
||x - x'||_1 <= 1 every output's probability changes by a factor at most 1/r = 1 + eps1 <= e^eps1,
and 1/r is attained (2 at eps1 = 1, 3/2 at eps1 = 1/2)."""
PROOF_IDEA = """The noise is independent across all d coordinates (also the zeros: pure DP needs
that); a neighbour moves one centre by 1, which changes that coordinate's clamped
geometric law by a factor <= 1/r (interior: r^|v-x| vs r^|v-x-1|; lumped ends: r^m/(1+r) vs
r^(m+1)/(1+r) or 1 - ...), and dropping values below t is post-processing.  Check on the
implementation: the exact law of Threshold.release explored (exactdp.explore) for every x of
the small domain, the worst ratio over all ordered neighbouring pairs as an exact fraction,
equal to 1/r and certified <= e^eps1.  For larger d the law is checked to factorise (explored
joint law == product of the explored one-key laws) and the worst ratio is then taken over the
one-key laws of every coordinate value."""

STATEMENT_5_2 = """ALP-full Lemma 5.2 with an integer threshold: t = the smallest integer >= 1 with
r^t/(1+r) <= 1/d; a zero coordinate is released with probability exactly r^t/(1+r) <= 1/d, so
the expected number of released zeros is at most 1 (notes: d=6, eps1=1 -> r=1/2, t=2, 1/6;
d=6, eps1=1/2 -> r=2/3, t=4, 16/135)."""


Output = tuple[tuple[int, int], ...]
Pair = tuple[Any, Mapping[Any, Fraction], Any, Mapping[Any, Fraction]]


def _release_dist(thr: Threshold, x: tuple[int, ...]) -> dict[Output, Fraction]:
    data = {i + 1: v for i, v in enumerate(x) if v}

    def run(src: RandomSource) -> tuple[tuple[int, int], ...]:
        return tuple(sorted(thr.release(data, src).items()))

    return explore(run)


def _key_law(params: ThresholdParams, x: int) -> dict[int, Fraction]:
    """One key's released value (``0`` = dropped) from the implementation's noise, through
    the checker's threshold search over its draw."""
    dist = threshold_distribution(params.noise, x)
    out: dict[int, Fraction] = {}
    for z, p in dist.items():
        v = params.noise.lo + z
        key = v if v >= params.t else 0
        out[key] = out.get(key, Fraction(0)) + p
    return {k: p for k, p in out.items() if p}


def _neighbours(x: tuple[int, ...], hi: int) -> Iterator[tuple[int, ...]]:
    for i, v in enumerate(x):
        for w in (v - 1, v + 1):
            if 0 <= w <= hi:
                yield x[:i] + (w,) + x[i + 1:]


def _max_worst(certs: list[Certificate]) -> Fraction:
    return max(Fraction(c.worst) for c in certs if isinstance(c.worst, (int, Fraction)))


def _grid(full: bool) -> list[tuple[Fraction, int, int, bool]]:
    """(eps1, d, hi, explore the whole release?)"""
    eps_list = [Fraction(1), Fraction(1, 2)] + ([Fraction(1, 3), Fraction(2)] if full else [])
    out = []
    for eps in eps_list:
        for d in range(1, 7):
            out.append((eps, d, 5, d <= (3 if full else 2)))
    return out


def check_privacy(full: bool, params_for: type[ThresholdParams] = ThresholdParams
                  ) -> ClaimReport:
    certs: list[Certificate] = []
    worst_all = Fraction(0)
    for eps, d, hi, whole in _grid(full):
        params = params_for.for_epsilon(eps, d, hi)
        thr = Threshold(params)
        laws = {v: _key_law(params, v) for v in range(hi + 1)}
        witness: dict[str, object] = {}
        pairs: list[Pair]
        if whole:
            dists = {x: _release_dist(thr, x) for x in product(range(hi + 1), repeat=d)}
            pairs = [(x, dists[x], y, dists[y]) for x in dists for y in _neighbours(x, hi)]
            factor_bad = []
            for x, dist in dists.items():
                prod_law: dict[Output, Fraction] = {}
                for outs in product(*(laws[v].items() for v in x)):
                    p = Fraction(1)
                    for _, q in outs:
                        p *= q
                    key = tuple((i + 1, o) for i, (o, _) in enumerate(outs) if o)
                    prod_law[key] = prod_law.get(key, Fraction(0)) + p
                if prod_law != dist:
                    factor_bad.append(x)
            witness["factorises_on"] = f"all {len(dists)} inputs" if not factor_bad else \
                f"FAILS at {factor_bad[:3]}"
        else:
            # one changed coordinate; the others cancel in the product (factorisation
            # checked above on the whole-release rows of the grid)
            pairs = [((v,), laws[v], (w,), laws[w]) for v in range(hi + 1)
                     for w in (v - 1, v + 1) if 0 <= w <= hi]
            factor_bad = []
        w = worst_ratio(pairs)
        ok, text = certify_ratio(w, eps)
        exact = w.ratio == 1 / params.r == 1 + eps
        verdict = ok and exact and not factor_bad
        if w.ratio is not None:
            worst_all = max(worst_all, w.ratio)
        certs.append(Certificate(
            CLAIM, repr(thr), {"eps1": eps, "r": params.r, "t": params.t, "hi": hi, "d": d},
            f"x in [0,{hi}]^{d}, {len(pairs)} ordered neighbouring pairs"
            + ("" if whole else " (one-key laws)"),
            w.ratio, "== 1/r = 1 + eps1 <= e^eps1", verdict,
            {"ratio": w.to_json(), "certified": text, **witness}))
    return ClaimReport(CLAIM, "eps1 in {1, 1/2" + (", 1/3, 2}" if full else "}")
                       + ", d = 1..6, entries 0..5; whole release explored for d <= "
                       + ("3" if full else "2"),
                       f"max ratio {brief(worst_all)}", "worst ratio == 1/r = 1 + eps1, "
                       "certified <= e^eps1", certs)


def check_false_positives(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    cases = [(Fraction(1), 6), (Fraction(1, 2), 6), (Fraction(1), 1), (Fraction(1), 2),
             (Fraction(1, 3), 100), (Fraction(2), 7)]
    if full:
        cases += [(Fraction(1, 10), 1000), (Fraction(1), 2**64), (Fraction(1, 2), 3)]
    for eps, d in cases:
        r = ThresholdParams.for_epsilon(eps, d, 10**6).r
        t = ThresholdParams.for_epsilon(eps, d, 10**6).t
        params = ThresholdParams(r, t, t + 2, d)
        # the released probability of a zero, from the implementation's noise
        whole = d <= (6 if full else 2)
        fp = None if whole else Fraction(1) - _key_law(params, 0).get(0, Fraction(0))
        if fp is None:
            dist = _release_dist(Threshold(params), (0,) * d)
            fp = sum((p for o, p in dist.items() if any(k == 1 for k, _ in o)), Fraction(0))
        closed = r ** t / (1 + r)
        minimal = t == 1 or r ** (t - 1) / (1 + r) > Fraction(1, d)
        verdict = fp == closed and fp <= Fraction(1, d) and minimal and t >= 1
        certs.append(Certificate(
            "ALP Lemma 5.2 (threshold)", f"Threshold r={r}", {"eps1": eps, "d": d, "t": t},
            "Pr[key 1 released | x = 0]", fp, "== r^t/(1+r) <= 1/d, t minimal, t >= 1",
            verdict, {"closed_form": closed, "previous_t_fails": minimal}))
    return ClaimReport("ALP Lemma 5.2 (threshold)", "worked examples and a few (eps1, d)",
                       "every false-positive probability exact",
                       "r^t/(1+r) <= 1/d with t minimal", certs)


def _thresholded(release: Callable[[Dataset, RandomSource], Histogram], t: int,
                 data: Dataset, src: RandomSource) -> Histogram:
    """A release followed by Threshold's step 2 (keep noisy counts >= t), as a Histogram."""
    h = release(data, src)
    return Histogram.from_counts(h.universe, h.n, {k: c for k, c in h.bins if c >= t})


def _via_release(alg: PureSparseThreshold, data: Dataset, src: RandomSource) -> Histogram:
    """The implementation's release, as a Histogram."""
    return Histogram.from_counts(alg.universe, alg.n, alg.release(data, src))


def _uniform_t(alg: PureSparseThreshold, src: RandomSource) -> tuple[tuple[int, int], ...]:
    h = uniform_sparse_histogram(alg.universe, alg.n, src)
    return tuple((k, c) for k, c in h.bins if c >= alg.t)


def _dense(alg: PureSparseThreshold, data: Dataset, src: RandomSource) -> Histogram:
    """The dense Threshold (ratio r, threshold t, hi = n) on the dataset's counts."""
    thr = Threshold(ThresholdParams(alg.ratio, alg.t, alg.n, alg.universe.size))
    return Histogram.from_counts(alg.universe, alg.n, thr.release(data.counts(), src))


def check_pure_sparse(full: bool) -> ClaimReport:
    """The large-universe route: PureSparseHistogram with M = ClampedGeometric(r, 0, n), then
    the threshold t."""
    certs: list[Certificate] = []
    eighth = Fraction(1, 8)
    grid = [(1, 3, Fraction(1), eighth, 1)]
    if full:
        grid += [(1, 4, Fraction(1, 2), eighth, 1), (2, 5, Fraction(1), Fraction(1, 2), 1),
                 (2, 5, Fraction(1), eighth, 2)]
    for n, size, eps, beta1, t in grid:
        alg = PureSparseThreshold(n, size, eps, beta1, t)
        released = Distributions(partial(_via_release, alg), alg.universe)
        sparse_t = Distributions(partial(_thresholded, alg.histogram.sparse.release, t),
                                 alg.universe)
        uniform_t = explore(partial(_uniform_t, alg))
        keep = KeepHeavy(alg.mechanism, alg.universe).release
        kh = Distributions(keep, alg.universe)
        kh_t = Distributions(partial(_thresholded, keep, t), alg.universe)
        dense = Distributions(partial(_dense, alg), alg.universe)
        pairs, kpairs = [], []
        for a, b in neighbour_pairs(n, size):
            pairs += [(a, released(a), b, released(b)), (b, released(b), a, released(a))]
            kpairs += [(a, kh(a), b, kh(b)), (b, kh(b), a, kh(a))]
        w = worst_ratio(pairs)
        ok, text = certify_ratio(w, eps)
        wk = worst_ratio(kpairs)
        # KeepHeavy (the exact reference) is post-processing of noise on all |X| bins with
        # ratio r: replacing a row moves two counts, so its ratio is at most r^-2.
        kh_ok = wk.ratio is not None and wk.ratio <= alg.ratio ** -2
        # Proposition 6.5 with this M: KH' (strict) has exactly KeepHeavy's law; Theorem
        # 6.8 i: SparseHistogram within delta of it
        khp = Distributions(KHPrime(alg.mechanism, alg.universe).release, alg.universe)
        sparse = Distributions(alg.histogram.sparse.release, alg.universe)
        canon = canonical_datasets(n, size)
        kh_gap = max(statistical_distance(kh(c), khp(c)) for c in canon)
        sparse_gap = max(statistical_distance(khp(c), sparse(c)) for c in canon)
        # KeepHeavy-then-t against the dense Threshold: they differ only when >= n + 1 keys
        # reach t, an event of the dense law
        dense_bad = []
        for c in canon:
            gap = statistical_distance(kh_t(c), dense(c))
            event = sum((p for h, p in dense(c).items() if len(h) >= n + 1), Fraction(0))
            if gap > event:
                dense_bad.append({"dataset": c, "distance": gap, "Pr[>= n+1 keys]": event})
        # the output law: exactly (1 - beta_1) SparseHistogram + beta_1 uniform, then t
        b1 = alg.histogram.beta1
        mixture_bad = []
        for c in canon:
            mix = {h: (1 - b1) * p for h, p in sparse_t(c).items()}
            for h, p in uniform_t.items():
                mix[h] = mix.get(h, Fraction(0)) + b1 * p
            if {h: p for h, p in mix.items() if p} != released(c):
                mixture_bad.append(c)
        verdict = (ok and kh_ok and kh_gap == 0 and sparse_gap <= alg.histogram.delta
                   and not dense_bad and not mixture_bad)
        certs.append(Certificate(
            "ALP Threshold via PureSparseHistogram", repr(alg),
            {"n": n, "|X|": size, "epsilon": eps, "beta_1": beta1, "r": alg.ratio, "t": t},
            f"{len(pairs)} ordered replace-one neighbouring pairs", w.ratio,
            "<= e^eps (Theorem 6.10 i); KeepHeavy_M <= r^-2; KH' == KeepHeavy; "
            "TV(KeepHeavy then t, dense Threshold) <= Pr[>= n+1 keys reach t]; law == "
            "(1-beta_1) SparseHistogram + beta_1 uniform, then t", verdict,
            {"ratio": w.to_json(), "certified": text, "keep_heavy_ratio": wk.ratio,
             "r^-2": alg.ratio ** -2, "distance_KeepHeavy_KH'": kh_gap,
             "distance_KH'_SparseHistogram": sparse_gap, "delta": alg.histogram.delta,
             "dense_threshold_failures": dense_bad, "mixture_failures": mixture_bad}))
    return ClaimReport("ALP Threshold via PureSparseHistogram",
                       "n=1 |X|=3 eps=1 beta_1=1/8 t=1" + (
                           "; n=1 |X|=4 eps=1/2 t=1; n=2 |X|=5 beta_1=1/2 t=1; n=2 |X|=5 t=2"
                           if full else ""),
                       f"max ratio {brief(_max_worst(certs))}",
                       "<= e^eps; KH' == KeepHeavy; SparseHistogram within delta; close to "
                       "the dense Threshold", certs)


def check(full: bool) -> ClaimReport:
    return check_privacy(full)


CHECKS: list[Callable[[bool], ClaimReport]] = [check, check_false_positives, check_pure_sparse]
