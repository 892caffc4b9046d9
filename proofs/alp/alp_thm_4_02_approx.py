"""ALP-short Theorem 4.2 (the (eps, delta) combination): noise only on the support with threshold
t_delta; the exact delta is r^(t-1)/(1+r) per changed support coordinate."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import partial
from itertools import product
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import RatioWitness, certify_ratio, hockey_stick, worst_ratio
from exactdp.explore import explore
from exactdp.hashing import Seed
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors.alp_check import explored_law
from exactdp.sparse_vectors.approx import (
    ApproxThresholdALP,
    ApproxThresholdParams,
    KorolovaThreshold,
)

CLAIM = "ALP Theorem 4.2 (eps, delta)"
STATEMENT = """Korolova et al.'s threshold (ALP-short Theorem 4.2) with the two-sided
geometric of ratio r = 1/(1+eps) on the non-zero coordinates only and the integer threshold
t_delta (smallest t >= 1 with q = r^(t-1)/(1+r) <= delta): on integer inputs
under adding/removing one row (one coordinate +-1), Pr[M(x) in S] <= (1/r) Pr[M(x') in S] + q
for all S, with q = r^(t-1)/(1+r) <= delta attained exactly (C7); pairs keeping the support
have worst ratio exactly 1/r and no delta; under replacing one row (l1 = 2) the same q goes
with 1/r^2.  Combined with ALP (beta = t_delta), the delta stays exactly q at the ratio
(1/r) x (ALP's worst ratio)."""
PROOF_IDEA = """Only a coordinate going from 0 to 1 changes which keys can be released: under x'
key i survives with probability Pr[1 + eta >= t] = q, under x never; every other output differs
by the factor 1 - q (the other way 1/(1 - q), which may exceed 1/r: its divergence at any L >= 1
is max(0, 1 - L(1 - q)) <= q), and coordinates that stay non-zero differ by at most 1/r.  So the
hockey-stick divergence at 1/r is exactly q.  Check on the implementation: the
exact laws of KorolovaThreshold.release (explored) on every k-sparse input of a small domain,
delta = max over ordered neighbouring pairs of the hockey-stick divergence at the ratio, as an
exact fraction compared with the closed form r^(t-1)/(1+r) (typed here); for the combination, the
explored laws of ApproxThresholdALP.project on two CW seeds, at the ratio (1/r) x (worst ratio of
the separately explored ALP laws)."""

Output = Any


def _inputs(d: int, k: int, hi: int) -> list[tuple[int, ...]]:
    return [x for x in product(range(hi + 1), repeat=d) if sum(1 for v in x if v) <= k]


def _as_map(x: tuple[int, ...]) -> dict[int, int]:
    return {i + 1: v for i, v in enumerate(x) if v}


def _release(alg: KorolovaThreshold, x: tuple[int, ...], src: RandomSource) -> Output:
    return tuple(sorted(alg.release(_as_map(x), src).items()))


def _add_remove(xs: list[tuple[int, ...]]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    return [(x, y) for x in xs for y in xs if sum(abs(a - b) for a, b in zip(x, y)) == 1]


def _replace_one(xs: list[tuple[int, ...]]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    out = []
    for x in xs:
        for y in xs:
            diff = [b - a for a, b in zip(x, y)]
            if sorted(v for v in diff if v) == [-1, 1]:
                out.append((x, y))
    return out


def _support(x: tuple[int, ...]) -> frozenset[int]:
    return frozenset(i for i, v in enumerate(x) if v)


def _max_worst(certs: list[Certificate]) -> Fraction:
    return max(Fraction(c.worst) for c in certs if isinstance(c.worst, (int, Fraction)))


def _grid(full: bool) -> list[tuple[Fraction, Fraction, int, int, int]]:
    """(eps, delta, d, k, extra range above t)."""
    # the second has q = 2/5 > 1 - r = 1/3: the 'absent' outputs' ratio 1/(1-q) = 5/3 exceeds
    # 1/r = 3/2, and delta is still exactly q
    out = [(Fraction(1), Fraction(1, 10), 2, 1, 1), (Fraction(1, 2), Fraction(1, 2), 2, 2, 1)]
    if full:
        out += [(Fraction(1), Fraction(1, 100), 3, 2, 1), (Fraction(2), Fraction(1, 5), 3, 1, 2),
                (Fraction(1, 3), Fraction(1, 4), 2, 2, 2)]
    return out


def check_threshold(full: bool,
                    params_for: Callable[..., ApproxThresholdParams]
                    = ApproxThresholdParams.for_epsilon_delta) -> ClaimReport:
    certs: list[Certificate] = []
    for eps, delta, d, k, extra in _grid(full):
        base = params_for(eps, delta, d, 10**6, k)  # t does not depend on hi
        params = ApproxThresholdParams(base.r, base.t, base.t + extra, d, k)
        alg = KorolovaThreshold(params)
        r, t = params.r, params.t
        q = r ** (t - 1) / (1 + r)  # the closed-form exact delta, typed here
        ratio = params.privacy_ratio
        xs = _inputs(d, k, params.hi)
        law = {x: explore(partial(_release, alg, x)) for x in xs}
        pairs = _add_remove(xs)
        delta_exact = max(hockey_stick(law[x], law[y], ratio) for x, y in pairs)
        same = [(x, law[x], y, law[y]) for x, y in pairs if _support(x) == _support(y)]
        w_same = worst_ratio(same)
        delta_same = max(hockey_stick(law[x], law[y], ratio) for x, y in pairs
                         if _support(x) == _support(y))
        repl = _replace_one(xs)
        delta_repl = max((hockey_stick(law[x], law[y], ratio ** 2) for x, y in repl),
                         default=None)
        verdict = (delta_exact == q == params.delta and q <= delta
                   and ratio == 1 / r == 1 + eps and w_same.ratio == 1 / r
                   and delta_same == 0 and delta_repl in (None, q))
        certs.append(Certificate(
            CLAIM, repr(alg), {"eps": eps, "delta": delta, "r": r, "t": t, "hi": params.hi,
                               "d": d, "k": k},
            f"{len(xs)} k-sparse inputs, {len(pairs)} add/remove and {len(repl)} replace-one "
            f"ordered pairs", delta_exact,
            "== r^(t-1)/(1+r) <= delta at ratio 1/r = 1 + eps", verdict,
            {"q": q, "support_kept_worst_ratio": w_same.ratio, "support_kept_delta": delta_same,
             "replace_one_delta_at_1/r^2": delta_repl}))
    return ClaimReport(CLAIM + ": threshold", "(eps, delta, d, k) in (1, 1/10, 2, 1), "
                       "(1/2, 1/2, 2, 2)" + ("; (1, 1/100, 3, 2), (2, 1/5, 3, 1), (1/3, 1/4, 2, 2)"
                                             if full else ""),
                       f"max delta {brief(_max_worst(certs))}",
                       "delta == r^(t-1)/(1+r), ratio 1/r", certs)


def _joint(alg: ApproxThresholdALP, x: tuple[int, ...], h: tuple[Seed, ...],
           src: RandomSource) -> Output:
    sk = alg.project(_as_map(x), src, seeds=h, rr="cells")
    return sk.released, sk.sketch.bits


def check_combined(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    half = Fraction(1, 2)
    one, third = Fraction(1), Fraction(1, 3)
    # (eps1, eps2, delta, alpha, s, k, d, every CW seed?)
    grid = [(one, half, third, one, 3, 1, 2, full)]
    if full:  # m = 3 columns: 2^9 noisy patterns per input, so two seeds only
        grid += [(half, half, third, half, 3, 1, 2, False)]
    for eps1, eps2, delta, alpha, rows, k, d, every_seed in grid:
        alg = ApproxThresholdALP.from_paper(eps1, eps2, delta, alpha, rows, k, d, 10**6)
        p = alg.threshold.params
        alg = ApproxThresholdALP(ApproxThresholdParams(p.r, p.t, p.t + 1, d, k),
                                 alg.alp.params)
        p = alg.threshold.params
        q = p.r ** (p.t - 1) / (1 + p.r)
        seeds_all = list(alg.alp.hashes.seeds())
        singles = seeds_all if every_seed else [seeds_all[0], seeds_all[-1]]
        m = alg.alp.params.columns
        tuples = [tuple(t) for t in product(singles, repeat=m)]
        xs = _inputs(d, k, p.hi)
        pairs = _add_remove(xs)
        joint: dict[tuple[tuple[int, ...], tuple[Seed, ...]], Mapping[Output, Fraction]] = {}
        alp_law: dict[tuple[tuple[int, ...], tuple[Seed, ...]], Mapping[Output, Fraction]] = {}
        for h in tuples:
            for x in xs:
                joint[(x, h)] = explore(partial(_joint, alg, x, h))
                alp_law[(x, h)] = explored_law(alg.alp, _as_map(x), h)
        wa = worst_ratio([(x, alp_law[(x, h)], y, alp_law[(y, h)]) for x, y in pairs
                          for h in tuples])
        assert wa.ratio is not None
        ratio = p.privacy_ratio * wa.ratio
        delta_exact = max(hockey_stick(joint[(x, h)], joint[(y, h)], ratio)
                          for x, y in pairs for h in tuples)
        ok, text = certify_ratio(RatioWitness(ratio, None, None, None, Fraction(0),
                                              Fraction(0)), eps1 + eps2)
        alp_ok, alp_text = certify_ratio(wa, eps2)
        verdict = ok and alp_ok and delta_exact == q == alg.delta and q <= delta
        certs.append(Certificate(
            CLAIM + ": with ALP", repr(alg),
            {"eps1": eps1, "eps2": eps2, "delta": delta, "alpha": alpha, "s": rows, "k": k,
             "d": d, "t": p.t, "m": m},
            f"{len(xs)} inputs, {len(pairs)} ordered add/remove pairs, {len(tuples)} seed "
            f"tuples", delta_exact, "== r^(t-1)/(1+r) at ratio (1/r) x ALP worst "
            "<= e^(eps1+eps2)", verdict,
            {"q": q, "ratio": ratio, "alp_worst": wa.ratio, "certified": text,
             "alp_certified": alp_text}))
    worst = max(Fraction(c.worst) for c in certs)  # type: ignore[arg-type]
    return ClaimReport(CLAIM + ": with ALP", "eps1 = alpha = 1, eps2 = 1/2, delta = 1/3, s = 3, "
                       "k = 1, d = 2" + ("; every CW seed; eps1 = eps2 = alpha = 1/2 on two "
                                         "seeds" if full else "; two CW seeds"),
                       f"delta {brief(worst)}",
                       "delta exact at the product ratio; ALP worst <= e^eps2", certs)


CHECKS: list[Callable[[bool], ClaimReport]] = [check_threshold, check_combined]
