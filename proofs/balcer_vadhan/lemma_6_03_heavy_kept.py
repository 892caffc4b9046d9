"""Lemma 6.3: when every noisy count is within a2, KeepHeavy keeps every bin heavier than 2 a2."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import counting_distributions
from exactdp.counting import GeoSample, InverseCDFSampler
from exactdp.explore import explore
from exactdp.histograms.basic import noisy_counts
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.sparse import KeepHeavy, keep_heaviest
from exactdp.proofs._histograms import Distributions, Rows, canonical_datasets
from exactdp.proofs.balcer_vadhan._accuracy import (
    basic_simultaneous_accuracy,
    describe,
    low_noise,
    nonvacuous_certificate,
)
from exactdp.randomness import RandomSource

CLAIM = "Lemma 6.3"
STATEMENT = """Let BasicHistogram_{M,X} have (a2, beta)-simultaneous accuracy and E = {for all x in X:
|c~_x - c_x(D)| <= a2} for KeepHeavy's noisy counts c~.  Then Pr[E] >= 1 - beta, and E implies
c~_x > c~_{x_{n+1}} (x is released) for every x with c_x(D) > 2 a2."""
PROOF_IDEA = """On E a bin with c_x > 2 a2 has c~_x > a2 and a bin with c_x = 0 has c~_x <= a2; at most n
bins have c_x > 0, so at least |X| - n >= 1 bins of count 0 sit at or below a2 and the
(n+1)-th heaviest noisy count is <= a2 < c~_x.  Checks: the joint law of (noisy counts,
release), explored from KeepHeavy's own two steps (noisy_counts, then keep_heaviest) on every
dataset up to relabelling -- its release marginal checked equal to KeepHeavy.release's
explored law -- with a2 the exact simultaneous accuracy read off M: Pr[E] >= 1 - beta from the
joint law, and on every outcome in E every bin with count > 2 a2 released.  The lemma says
something only when some count exceeds 2 a2: the row counts those (dataset, beta) points and
fails if there are none (the low-noise M of the accuracy rows, a2 = 1 < n/2 at n = 3)."""

BETAS = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]


def _grid(full: bool) -> list[tuple[InverseCDFSampler, int]]:
    out: list[tuple[InverseCDFSampler, int]] = [(GeoSample(2, 1), 3), (low_noise(3, 8), 4),
                                                (low_noise(3, 8), 5)]
    if full:
        out += [(GeoSample(3, 1), 4), (low_noise(4, 8), 5), (low_noise(5, 8), 6)]
    return out


def _joint(alg: KeepHeavy, rows: Rows) -> dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction]:
    """The exact law of (noisy counts in element order, released elements)."""
    data = Dataset.of(alg.universe, rows)
    elements = tuple(alg.universe.elements())

    def run(src: RandomSource) -> tuple[tuple[int, ...], tuple[int, ...]]:
        noisy = noisy_counts(alg.mechanism, data.counts(), elements, src)
        h = keep_heaviest(alg.universe, data.n, list(zip(elements, noisy)), "KeepHeavy")
        return tuple(noisy), tuple(x for x, _ in h.bins)

    return explore(run)


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    points = biting = 0
    worst_slack: Fraction | None = None
    for mech, size in _grid(full):
        n = mech.n
        alg = KeepHeavy(mech, Universe(size))
        m_dists = counting_distributions(mech)
        datasets = canonical_datasets(n, size)
        released = Distributions(alg.release, alg.universe)
        ok, witness = True, dict[str, object]()
        mech_slack: Fraction | None = None
        for rows in datasets:
            joint = _joint(alg, rows)
            marginal: dict[tuple[int, ...], Fraction] = {}
            for (_, kept), p in joint.items():
                marginal[kept] = marginal.get(kept, Fraction(0)) + p
            direct: dict[tuple[int, ...], Fraction] = {}
            for h, p in released(rows).items():
                key = tuple(x for x, _ in h)
                direct[key] = direct.get(key, Fraction(0)) + p
            if marginal != direct:
                ok, witness = False, {"release_marginal_differs": list(rows)}
            counts = Counter(rows)
            for beta in BETAS:
                a2 = basic_simultaneous_accuracy(m_dists, datasets, size, beta)
                heavy = [x for x in range(1, size + 1) if counts.get(x, 0) > 2 * a2]
                p_e = Fraction(0)
                for (noisy, kept), p in joint.items():
                    if all(abs(v - counts.get(x, 0)) <= a2 for x, v in enumerate(noisy, 1)):
                        p_e += p
                        missing = [x for x in heavy if x not in kept]
                        if missing:
                            ok = False
                            witness = {"D": list(rows), "beta": beta, "a2": a2,
                                       "noisy": list(noisy), "dropped": missing}
                slack = p_e - (1 - beta)
                worst_slack = slack if worst_slack is None else min(worst_slack, slack)
                mech_slack = slack if mech_slack is None else min(mech_slack, slack)
                ok = ok and slack >= 0
                points += 1
                biting += bool(heavy)
        certs.append(Certificate(
            CLAIM, repr(alg), {"n": n, "|X|": size},
            f"{len(datasets)} datasets up to relabelling, beta in {{1/2, 1/4, 1/10}}",
            mech_slack, "Pr[E] >= 1 - beta; E => every count > 2 a2 released", ok, witness))
    certs.append(nonvacuous_certificate(CLAIM, biting, points,
                                        "with a count above 2 a2"))
    return ClaimReport(
        CLAIM, "; ".join(f"{describe(m)} |X|={s}" for m, s in _grid(full)) + "; every dataset; "
        "a2 exact at beta in {1/2, 1/4, 1/10}",
        f"min Pr[E] - (1 - beta) = {worst_slack}; no heavy bin dropped on E ({biting} of "
        f"{points} points with a count above 2 a2)",
        "Pr[E] >= 1 - beta and E => heavy bins kept", certs)
