"""Theorem 6.2: KeepHeavy is (eps, 0)-DP (i) and inherits BasicHistogram's accuracy (ii)-(iii)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import certify_ratio, counting_distributions, worst_ratio
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import KeepHeavy
from exactdp.proofs._histograms import (
    Distributions,
    canonical_datasets,
    neighbour_pairs,
    sample_noncanonical,
)
from exactdp.proofs.balcer_vadhan._accuracy import (
    AccuracyStudy,
    basic_simultaneous_accuracy,
    counting_accuracy,
    describe,
    error_laws,
    keep_heavy_reference,
    low_noise,
    nonvacuous_certificate,
)

CLAIM = "Theorem 6.2"
STATEMENT = """Let M: [n] x [d]_+ -> [n] be (eps/2, 0)-DP for counting queries, and let
BasicHistogram_{M,X} have (a1, beta)-per-query and (a2, beta)-simultaneous accuracy, a1 <= a2.
KeepHeavy_M (Algorithm 6.1: the noisy counts of every bin, then the bins strictly heavier than
the (n+1)-th heaviest) (i) is (eps, 0)-DP, (ii) has (a1, 2 beta)-per-query accuracy on counts
larger than 2 a2, (iii) has (2 a2, beta)-simultaneous accuracy."""
PROOF_IDEA = """(i) post-processing of BasicHistogram (Theorem 5.2 i).  (ii)-(iii) Lemma 6.3: on the
event E that every noisy count is within a2, every bin with count > 2 a2 is kept; off E at
most beta.  Checks, on the exact release law of the implementation's KeepHeavy explored on
every dataset (up to relabelling, checked on a sample): (i) the worst ratio P(h)/P'(h) over
every ordered neighbouring pair, certified <= e^eps; (ii)-(iii) the law equals KeepHeavy's law
computed independently from M's per-count laws, and the exact smallest per-query error on
counts > 2 a2 and simultaneous error at several beta against a1, 2 a2 read off M exactly.
With GeoSample and FastSample at eps <= 1, 2 a2 >= n on every grid small enough to explore,
so the accuracy grid adds a low-noise M (error at most 1, probability 1/8 each side; the
accuracy parts use only BasicHistogram's accuracy, not M's privacy), where 2 a2 = 2 < n = 3;
the row counts the non-vacuous bounds and fails if there are none."""

BETAS = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]


def _privacy_grid(full: bool) -> list[tuple[InverseCDFSampler, int]]:
    out: list[tuple[InverseCDFSampler, int]] = [
        (GeoSample(1, 1), 2), (GeoSample(1, 1), 3), (GeoSample(2, 1), 3),
        (FastSample(2, 1, Fraction(1, 2)), 3), (GeoSample(3, 1), 4)]
    if full:
        out += [(GeoSample(2, 1), 4), (GeoSample(2, Fraction(1, 2)), 4), (GeoSample(3, 1), 5),
                (GeoSample(4, 1), 5), (FastSample(1, Fraction(1, 2), Fraction(1, 10)), 3)]
    return out


def check_i(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_seen = Fraction(0)
    for mech, size in _privacy_grid(full):
        n, eps = mech.n, Fraction(mech.epsilon)  # type: ignore[attr-defined]
        alg = KeepHeavy(mech, Universe(size))
        dists = Distributions(alg.release, alg.universe)
        pairs = []
        for d, e in neighbour_pairs(n, size):
            pd, pe = dists(d), dists(e)
            pairs += [(d, pd, e, pe), (e, pe, d, pd)]
        w = worst_ratio(pairs)
        ok, text = certify_ratio(w, eps)
        sym_bad = dists.symmetry_failures(sample_noncanonical(n, size, 10**6 if full else 1))
        if w.ratio is not None:
            worst_seen = max(worst_seen, w.ratio)
        certs.append(Certificate(
            "Theorem 6.2 (i)", repr(alg), {"n": n, "|X|": size, "epsilon": eps},
            f"{len(pairs)} ordered neighbouring pairs", w.ratio, "<= e^eps",
            ok and not sym_bad,
            {"ratio": w.to_json(), "certified": text, "symmetry_failures": sym_bad}))
    return ClaimReport(
        "Theorem 6.2 (i)",
        "; ".join(f"{describe(m)} |X|={s}" for m, s in _privacy_grid(full)) + "; all neighbouring pairs",
        f"max ratio {brief(worst_seen)}", "ratio <= e^eps (certified rational lower bound)",
        certs)


def _accuracy_grid(full: bool) -> list[tuple[InverseCDFSampler, int]]:
    out: list[tuple[InverseCDFSampler, int]] = [
        (GeoSample(2, 1), 3), (FastSample(2, 1, Fraction(1, 2)), 3), (low_noise(3, 8), 4),
        (low_noise(3, 8), 5)]
    if full:
        out += [(GeoSample(3, 1), 4), (low_noise(4, 8), 5), (low_noise(4, 16), 6),
                (low_noise(3, 8), 7), (low_noise(5, 8), 6), (low_noise(5, 16), 8)]
    return out


def check_ii_iii(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    bounds = nonvacuous = 0
    for mech, size in _accuracy_grid(full):
        n = mech.n
        alg = KeepHeavy(mech, Universe(size))
        dists = Distributions(alg.release, alg.universe)
        datasets = canonical_datasets(n, size)
        study = AccuracyStudy(dists, datasets)
        m_dists = counting_distributions(mech)
        reference_bad = [list(d) for d, law in zip(datasets, study.laws)
                         if error_laws(keep_heavy_reference(m_dists, d, size), d, size) != law]
        ok = not reference_bad
        exact: dict[str, object] = {}
        for beta in BETAS:
            a1 = counting_accuracy(m_dists, beta)
            a2 = basic_simultaneous_accuracy(m_dists, datasets, size, beta)
            per = study.per_query(2 * beta, above=2 * a2) if 2 * beta < 1 else None
            sim = study.simultaneous(beta)
            assert sim.a is not None
            ok = ok and a1 <= a2 and sim.a <= 2 * a2
            exact[f"simultaneous at {beta}"] = [sim.a, 2 * a2]
            bounds += 1
            nonvacuous += 2 * a2 < n
            if per is not None:
                ok = ok and (per.a is None or per.a <= a1)
                exact[f"per-query at {2 * beta}, counts > {2 * a2}"] = [per.a, a1]
                bounds += 1
                nonvacuous += per.a is not None and a1 < n
        certs.append(Certificate(
            "Theorem 6.2 (ii)-(iii)", repr(alg), {"n": n, "|X|": size},
            f"{len(datasets)} datasets up to relabelling, every x", None,
            "law == KeepHeavy from M's laws; per-query <= a1 on counts > 2 a2; simultaneous "
            "<= 2 a2 (a1, a2 exact)", ok,
            {"exact_vs_bound": exact, "reference_mismatch": reference_bad}))
    certs.append(nonvacuous_certificate("Theorem 6.2 (ii)-(iii)", nonvacuous, bounds,
                                        "below n (per query: with a count above 2 a2)"))
    return ClaimReport(
        "Theorem 6.2 (ii)-(iii)",
        "; ".join(f"{describe(m)} |X|={s}" for m, s in _accuracy_grid(full))
        + "; every dataset; beta in {1/2, 1/4, 1/10}",
        f"law == KeepHeavy from M's laws; exact errors within a1 and 2 a2 ({nonvacuous} of "
        f"{bounds} bounds below n)",
        "(a1, 2 beta)-per-query on counts > 2 a2; (2 a2, beta)-simultaneous", certs)


CHECKS = [check_i, check_ii_iii]
