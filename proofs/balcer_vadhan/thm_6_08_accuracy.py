"""SparseHistogram's exact accuracy (Theorem 6.8 i with Theorem 6.2 ii-iii, Proposition 6.5)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import counting_distributions
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import SparseHistogram
from exactdp.proofs._histograms import Distributions, canonical_datasets, sample_noncanonical
from exactdp.proofs.balcer_vadhan._accuracy import (
    AccuracyStudy,
    basic_simultaneous_accuracy,
    counting_accuracy,
    dominance,
    error_laws,
    keep_heavy_reference,
    low_noise,
    nonvacuous_certificate,
)

CLAIM = "Theorem 6.8 (accuracy)"
STATEMENT = """SparseHistogram_{M,delta} (|X| >= 2n + 1) inherits KeepHeavy's accuracy up to delta:
Theorem 6.8 i gives Delta(KH'(D), SparseHistogram(D)) <= delta, Proposition 6.5 KH' ~
KeepHeavy, and Theorem 6.2 ii-iii KeepHeavy's (a1, 2 beta)-per-query accuracy on counts
larger than 2 a2 and (2 a2, beta)-simultaneous accuracy when BasicHistogram_{M,X} has
(a1, beta)-per-query and (a2, beta)-simultaneous accuracy.  So SparseHistogram has
(a1, 2 beta + delta)-per-query accuracy on counts > 2 a2 and (2 a2, beta + delta)-
simultaneous accuracy (the accuracy statement the paper leaves implicit; the proof of
Theorem 6.10 ii-iii takes exactly this step)."""
PROOF_IDEA = """For every event G, Pr[Sparse(D) in G] >= Pr[KeepHeavy(D) in G] - delta.  Checks, on the
exact release law explored from the implementation on every dataset (up to relabelling):
that inequality for every G = {|h_x - c_x| <= a} and G = {max_x |h_x - c_x| <= a}, every D,
x and a, against KeepHeavy's exact law computed independently here from M's per-count laws
(product, then keep the bins heavier than the (n+1)-th) -- a release that drops, shifts or
randomises counts fails; and the exact smallest errors at several beta against the derived
bounds with a1, a2 read off M exactly.  With GeoSample and FastSample at eps <= 1 these bounds
are vacuous (2 a2 >= n) at every n small enough to explore, so the grid adds a low-noise M
(error at most 1, probability 1/32 on each side: the accuracy statement does not use M's
privacy), where 2 a2 = 0 < n = 2; the row counts the non-vacuous bounds and fails if there
are none."""

BETAS = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]
DELTA = Fraction(1, 16)


def _grid(full: bool) -> list[tuple[InverseCDFSampler, int, bool]]:
    out: list[tuple[InverseCDFSampler, int, bool]] = []
    one: list[InverseCDFSampler] = [GeoSample(1, 1), FastSample(1, 1, Fraction(1, 2))]
    for mech in one:
        for size in ([3, 4] if full else [3]):
            out.append((mech, size, True))
            if full:
                out.append((mech, size, False))
    out.append((GeoSample(2, 1), 5, False))
    out.append((low_noise(2, 32), 5, True))
    if full:
        out.append((low_noise(2, 32), 5, False))
        out.append((FastSample(2, Fraction(1, 2), Fraction(1, 10)), 5, False))
    return out


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    min_slack: Fraction | None = None
    derived, nonvacuous = 0, 0
    for mech, size, strict in _grid(full):
        n = mech.n
        universe = Universe(size)
        alg = SparseHistogram(mech, universe, DELTA, strict=strict)
        dists = Distributions(alg.release, universe)
        datasets = canonical_datasets(n, size)
        study = AccuracyStudy(dists, datasets)
        sym_bad = dists.symmetry_failures(sample_noncanonical(n, size, 10**6 if full else 1))
        m_dists = counting_distributions(mech)
        ref = [error_laws(keep_heavy_reference(m_dists, d, size), d, size) for d in datasets]
        dom = dominance(study.laws, ref, n, Fraction(1), DELTA)
        min_slack = dom.slack if min_slack is None else min(min_slack, dom.slack)
        ok = dom.slack >= 0 and not sym_bad
        exact: dict[str, object] = {}
        for beta in BETAS:
            a1 = counting_accuracy(m_dists, beta)
            a2 = basic_simultaneous_accuracy(m_dists, datasets, size, beta)
            per = study.per_query(2 * beta + DELTA, above=2 * a2) if 2 * beta + DELTA < 1 \
                else None
            sim = study.simultaneous(beta + DELTA)
            derived += 2
            nonvacuous += (2 * a2 < n) + (per is not None and per.a is not None and a1 < n
                                          and 2 * a2 < n)
            if per is not None:
                ok = ok and (per.a is None or per.a <= a1)
                exact[f"per-query at {2 * beta + DELTA}, counts > {2 * a2}"] = [per.a, a1]
            ok = ok and sim.a is not None and sim.a <= 2 * a2
            exact[f"simultaneous at {beta + DELTA}"] = [sim.a, 2 * a2]
        certs.append(Certificate(
            "Theorem 6.8 (accuracy)", repr(alg),
            {"n": n, "|X|": size, "delta": DELTA, "strict": strict},
            f"{len(datasets)} datasets up to relabelling, {dom.events} events", dom.slack,
            "Pr[Sparse in G] - (Pr[KeepHeavy in G] - delta) >= 0; exact errors <= derived "
            "bounds (exact a1, a2)", ok,
            {"worst_event": dom.where, "exact_vs_bound": exact, "symmetry_failures": sym_bad}))
    certs.append(nonvacuous_certificate("Theorem 6.8 (accuracy)", nonvacuous, derived,
                                        "below n (per query: with a count above 2 a2)"))
    return ClaimReport(
        "Theorem 6.8 (accuracy, via 6.2 ii-iii)",
        ("delta = 1/16; n=1: |X| in {3,4} both modes, GeoSample and FastSample; n=2: |X|=5 as "
         "printed, GeoSample and FastSample(eps 1/2, gamma 1/10); low-noise M (d = 32), n=2, "
         "|X|=5 both modes" if full else
         "delta = 1/16; n=1: |X|=3 strict, GeoSample and FastSample; n=2: |X|=5 as printed, "
         "GeoSample; low-noise M (d = 32), n=2, |X|=5 strict") + "; every dataset; "
        "beta in {1/2, 1/4, 1/10}",
        f"min Pr[Sparse in G] - (Pr[KeepHeavy in G] - delta) = {brief(min_slack or Fraction(0))};"
        f" exact errors within the derived bounds ({nonvacuous} of {derived} below n)",
        "every accuracy event of KeepHeavy carried over within delta", certs)
