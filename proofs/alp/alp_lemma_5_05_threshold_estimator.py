"""ALP-full Algorithm 8 (Threshold ALP-estimator) and Lemma 5.5 (its error and access time),
on the implementation: ThresholdALP.project then ThresholdALPSketch.estimate."""

from __future__ import annotations

import warnings
from fractions import Fraction
from functools import cache, partial
from itertools import product

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.explore import explore
from exactdp.hashing import CarterWegman, Seed
from exactdp.proofs.alp._alp import gamma, nonvacuous, reads_per_query
from exactdp.randomness import NotForReleaseWarning, RandomSource, SeededSource
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp_check import explored_law
from exactdp.sparse_vectors.alp_error import estimate_law
from exactdp.sparse_vectors.approx import ApproxThresholdALP
from exactdp.sparse_vectors.combined import ThresholdALP, ThresholdALPSketch

CLAIM = "ALP Algorithm 8 (Threshold ALP-estimator)"
STATEMENT = """ALP-full Algorithm 8: x~_i = v~_i if v~_i != 0, otherwise ALP-estimator_{alpha, eps2}(z~, h, i),
on the release (v~, h, z~) of Algorithm 7.  Checked as a law: the implementation's estimates
of every key, explored through ThresholdALP.project and ThresholdALPSketch.estimate, equal the
estimates the algorithm prescribes on the independently explored parts (Threshold's release
and ALP's bits), the ALP estimate re-derived from the bits with the specification's hashing
and unary estimator."""
PROOF_IDEA = """eps1 = eps2 = 1, alpha = 1/2 (c = 2, p = 2/5), s = 2, k = 1, d = 2, hi = 3 (t = 1,
m = 2): every input, one Carter-Wegman seed tuple (two in --full); the joint exploration of
the implementation (Threshold's d noise draws, ALP's randomized-response coins) against the
product of the parts' explored laws pushed through Algorithm 8 as written."""

NOT_EXERCISABLE = {
    "ALP-full Lemma 5.5's expected maximum error O(log(d)/eps)":
        "it needs the joint law of all d estimates under shared hash functions, beyond "
        "exhaustive computation at any d where log d is not a small constant.",
}


CLAIM_55 = "ALP Lemma 5.5 (Threshold ALP error and access)"
STATEMENT_55 = """ALP-full Lemma 5.5: with alpha, s/k and eps1/eps2 constant, Algorithm 8 answers a
query in O(log d) time with expected per-entry error O(1/eps).  Explicit form checked:
E|x~_i - x_i| <= (8p'q'/(q'-p')^2 + 1/2) alpha/eps2 + 2r/(1 - r^2), the Lemma 4.14 constant
at beta = t (p' = 1/(gamma + 2), gamma = alpha (s - 2k)/(s + alpha k)) plus E|eta| of the
threshold's noise (ratio r = 1/(1 + eps1)); a query not answered by v~ reads m = ceil(t
eps2/alpha) cells, a released key none, and t is the least integer with r^t/(1+r) <= 1/d
(so r^(t-1)/(1+r) > 1/d: t - 1 < log_{1/r} d).  The expected MAXIMUM error O(log(d)/eps)
is not exercised: it needs the joint law of all d estimates under shared hash functions,
beyond exhaustive computation at any d where log d differs from a constant."""
PROOF_IDEA_55 = """The proof's split, exactly: Threshold's noise for key i (the implementation's
ClampedGeometric explored) is independent of ALP's coins (the Lemma 5.3 row factorises the
joint law), so E|x~_i - x_i| = E[|v - x_i|; v >= t] + Pr[v < t] E|ALP estimate - x_i|, the
ALP part from the implementation's own hashing (alp_error.estimate_law, every Carter-Wegman
seed), and ThresholdALPSketch.estimate must answer v for every released value v and the
sketch's estimate for a dropped key (the split's rule, on the implementation).  eps1 = 1, eps2 = 4, alpha = 8, s = 100, k = 2, d = 30 (t = 5, m = 3), key 1 at every
value in [0, 12], key 2 at 0, 6 or 12 (--full adds d = 60 and a second key value grid); and
ALP-short Theorem 4.2's per-entry error O(1/eps), the same split with Korolova's threshold
(delta = 1/1000: a key of value 0 is never released and always answered by the sketch).  A
bound is non-trivial when it is below the largest possible error max(x_i, max(hi, m/c) - x_i)."""


def _alg8_config() -> ThresholdALP:
    return ThresholdALP.from_paper(1, 1, Fraction(1, 2), 2, 1, 2, 3)


def _joint(alg: ThresholdALP, x: dict[int, int], seeds: tuple[Seed, ...],
           src: RandomSource) -> tuple[Fraction, ...]:
    sk = alg.project(x, src, seeds=seeds, rr="cells")
    return tuple(sk.estimate(key) for key in range(1, alg.threshold.params.d + 1))


def _prescribed(alg: ThresholdALP, x: dict[int, int], seeds: tuple[Seed, ...]
                ) -> dict[tuple[Fraction, ...], Fraction]:
    """Algorithm 8 as written, on the parts' own explored laws."""
    thr = explore(lambda src: tuple(sorted(alg.threshold.release(x, src).items())))
    bits = explored_law(alg.alp, x, seeds)
    prm = alg.alp.params
    fam = alg.alp.hashes
    assert isinstance(fam, CarterWegman)
    d, s = alg.threshold.params.d, prm.rows
    out: dict[tuple[Fraction, ...], Fraction] = {}
    for released, w1 in thr.items():
        values = dict(released)
        for mask, w2 in bits.items():
            ests = []
            for key in range(1, d + 1):
                if values.get(key, 0) != 0:
                    ests.append(Fraction(values[key]))
                    continue
                col = [(mask >> ex.cell_index(ex.cw_row(sd.a, sd.b, fam.prime, s, key), b, s)) & 1
                       for b, sd in enumerate(seeds, start=1)]  # type: ignore[union-attr]
                ests.append(ex.unary_estimate(col) / prm.scale)
            k = tuple(ests)
            out[k] = out.get(k, Fraction(0)) + w1 * w2
    return out


def check(full: bool) -> ClaimReport:
    alg = _alg8_config()
    every = list(alg.alp.hashes.seeds())
    m = alg.alp.params.columns
    tuples = [tuple([every[0]] * m), tuple(every[-m:])][: 2 if full else 1]
    d, hi = alg.threshold.params.d, alg.threshold.params.hi
    xs = [{}] + [{key: v} for key in range(1, d + 1) for v in range(1, hi + 1)]
    certs = []
    for seeds in tuples:
        bad = []
        for x in xs:
            got = explore(partial(_joint, alg, x, seeds))
            if got != _prescribed(alg, x, seeds):
                bad.append(x)
        certs.append(Certificate(CLAIM, repr(alg), {"t": alg.threshold.params.t, "m": m,
                                                   "seeds": str(seeds)},
                                 f"{len(xs)} inputs, every key", len(bad),
                                 "== 0 inputs where the explored estimates differ from "
                                 "Algorithm 8 on the parts", not bad,
                                 {"differs_at": [str(x) for x in bad[:3]]}))
    return ClaimReport(CLAIM, f"d = 2, hi = 3, t = 1, m = 2; {len(tuples)} seed tuple(s)",
                       f"{sum(int(c.worst) for c in certs)} differing inputs",  # type: ignore[arg-type]
                       "== 0", certs)


#: (eps1, eps2, alpha, s, k, d, hi, other key values)
QUICK_55 = [(1, 4, 8, 100, 2, 30, 12, (0, 6, 12))]
FULL_55 = QUICK_55 + [(1, 4, 8, 100, 2, 60, 16, (0, 4, 8, 12, 16)),
                      (Fraction(1, 2), 2, 8, 100, 2, 30, 20, (0, 10, 20))]


@cache
def _threshold_alp(cfg: tuple) -> ThresholdALP:  # type: ignore[type-arg]
    eps1, eps2, alpha, s, k, d, hi, _ = cfg
    return ThresholdALP.from_paper(eps1, eps2, alpha, s, k, d, hi)


def _noise_law(alg: ThresholdALP, value: int) -> dict[int, Fraction]:
    noise = alg.threshold.params.noise
    return explore(lambda src: noise.sample_value(value, src))


def _access(alg: ThresholdALP) -> tuple[bool, dict[str, object]]:
    thr, prm = alg.threshold.params, alg.alp.params
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotForReleaseWarning)
        src = SeededSource(55)
    big = thr.hi
    sk = alg.project({1: big}, src)  # key 1 far above t: released w.h.p.
    reads = {key: (0 if sk.value(key) else reads_per_query(sk.sketch, key))
             for key in (1, 2, thr.d)}
    r, t, d = thr.r, thr.t, thr.d
    minimal = t == 1 or r ** (t - 1) / (1 + r) > Fraction(1, d)
    ok = (minimal and r ** t / (1 + r) <= Fraction(1, d)
          and all(v in (0, prm.columns) for v in reads.values())
          and any(v == prm.columns for v in reads.values()))
    # Algorithm 8's rule on the implementation for every value the noise can give key 2:
    # released (v >= t) answers v, dropped answers the sketch's estimate
    wrong = [v for v in range(t - 1, thr.hi + 1)
             if ThresholdALPSketch(thr, ((2, v),) if v >= t else (), sk.sketch).estimate(2)
             != (Fraction(v) if v >= t else sk.sketch.estimate(2))]
    return ok and not wrong, {"reads": reads, "m": prm.columns, "t": t, "t_minimal": minimal,
                              "algorithm_8_rule_wrong_at": wrong}


def check_error(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_all, bites, total = Fraction(0), 0, 0
    for cfg in FULL_55 if full else QUICK_55:
        alg = _threshold_alp(cfg)
        eps1, eps2, alpha, s, k, d, hi, others = cfg
        prm, thr = alg.alp.params, alg.threshold.params
        c, m, t, r = prm.scale, prm.columns, thr.t, thr.r
        pe = 1 / (gamma(Fraction(alpha), s, k) + 2)
        bound = (ex.eq1_bound(pe) + Fraction(1, 2)) / c + 2 * r / (1 - r * r)
        worst, arg = Fraction(0), None
        for xi, other in product(range(hi + 1), others):
            x = {key: v for key, v in ((1, xi), (2, other)) if v}
            law = estimate_law(alg.alp, x, 1)
            alp_mae = sum((abs(e / c - xi) * w for (_, e), w in law.items()), Fraction(0))
            noise = _noise_law(alg, xi)
            kept = sum((abs(v - xi) * w for v, w in noise.items() if v >= t), Fraction(0))
            dropped = sum((w for v, w in noise.items() if v < t), Fraction(0))
            mae = kept + dropped * alp_mae
            total += 1
            bites += bound < max(Fraction(xi), max(Fraction(hi), m / c) - xi)
            if mae / bound > worst:
                worst, arg = mae / bound, {"x": x, "mae": mae, "released": 1 - dropped}
        access_ok, access = _access(alg)
        worst_all = max(worst_all, worst)
        certs.append(Certificate(
            CLAIM_55, repr(alg), {"eps1": eps1, "eps2": eps2, "alpha": alpha, "s": s, "k": k,
                                  "d": d, "hi": hi, "t": t, "m": m, "p_eff": pe},
            f"key 1 in [0, {hi}], key 2 in {others}, every CW seed", worst,
            f"E|x~-x| / ((8p'q'/(q'-p')^2 + 1/2)/c + 2r/(1-r^2) = {brief(bound)}) <= 1; "
            f"reads in {{0, m}}; t minimal", worst <= 1 and access_ok,
            {"attained_at": arg, **access}))
    approx_cert, b2, t2 = _approx_error()
    certs.append(approx_cert)
    bites, total = bites + b2, total + t2
    worst_all = max(worst_all, Fraction(approx_cert.worst))  # type: ignore[arg-type]
    certs.append(nonvacuous(CLAIM_55, bites, total,
                            "below the largest possible error"))
    return ClaimReport(CLAIM_55, f"{len(FULL_55 if full else QUICK_55)} configuration(s), "
                       f"every Carter-Wegman seed", f"max E|x~-x|/bound {brief(worst_all)}; "
                       f"{bites} of {total} bounds non-trivial",
                       "<= 1; reads = m (0 when released)", certs)


#: Theorem 4.2's per-entry error, the same split with Korolova's threshold (noise on the
#: support only: a zero key is never released and always answered by the sketch).
APPROX_55 = (1, 4, Fraction(1, 1000), 8, 100, 2, 30, 16, (0, 8, 16))


def _approx_error() -> tuple[Certificate, int, int]:
    eps1, eps2, delta, alpha, s, k, d, hi, others = APPROX_55
    alg = ApproxThresholdALP.from_paper(eps1, eps2, delta, alpha, s, k, d, hi)
    prm, thr = alg.alp.params, alg.threshold.params
    c, m, t, r = prm.scale, prm.columns, thr.t, thr.r
    pe = 1 / (gamma(Fraction(alpha), s, k) + 2)
    bound = (ex.eq1_bound(pe) + Fraction(1, 2)) / c + 2 * r / (1 - r * r)
    noise = thr.noise
    worst, arg, bites, total = Fraction(0), None, 0, 0
    for xi, other in product(range(hi + 1), others):
        x = {key: v for key, v in ((1, xi), (2, other)) if v}
        law = estimate_law(alg.alp, x, 1)
        alp_mae = sum((abs(e / c - xi) * w for (_, e), w in law.items()), Fraction(0))
        if xi:
            values = explore(lambda src, xi=xi: noise.sample_value(xi, src))
            kept = sum((abs(v - xi) * w for v, w in values.items() if v >= t), Fraction(0))
            dropped = sum((w for v, w in values.items() if v < t), Fraction(0))
        else:
            kept, dropped = Fraction(0), Fraction(1)
        mae = kept + dropped * alp_mae
        total += 1
        bites += bound < max(Fraction(xi), max(Fraction(hi), m / c) - xi)
        if mae / bound > worst:
            worst, arg = mae / bound, {"x": x, "mae": mae}
    return Certificate(
        CLAIM_55 + ": Theorem 4.2 (eps, delta)", repr(alg),
        {"eps1": eps1, "eps2": eps2, "delta": delta, "alpha": alpha, "s": s, "k": k, "d": d,
         "t_delta": t, "m": m, "p_eff": pe},
        f"key 1 in [0, {hi}], key 2 in {others}, every CW seed", worst,
        f"E|x~-x| / ((8p'q'/(q'-p')^2 + 1/2)/c + 2r/(1-r^2) = {brief(bound)}) <= 1",
        worst <= 1, {"attained_at": arg}), bites, total


check.CLAIM = CLAIM  # type: ignore[attr-defined]
check_error.CLAIM = CLAIM_55  # type: ignore[attr-defined]
CHECKS = [check, check_error]
