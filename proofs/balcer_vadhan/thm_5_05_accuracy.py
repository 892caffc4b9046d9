"""Theorems 5.5 (ii)-(iii) and 5.6 (ii)-(iii): StabilityHistogram's exact accuracy."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import counting_distributions
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.accuracy import figure_4
from exactdp.histograms.basic import StabilityHistogram
from exactdp.histograms.data import Universe
from exactdp.proofs._histograms import Distributions, canonical_datasets, sample_noncanonical
from exactdp.proofs.balcer_vadhan._accuracy import (
    AccuracyStudy,
    counting_accuracy,
    nonvacuous_certificate,
)

CLAIM = "Theorem 5.5 (accuracy)"
STATEMENT = """Theorem 5.5 (ii)-(iii): if M has (a, beta)-accuracy, StabilityHistogram_{M,b} has
(a, beta)-per-query accuracy on counts larger than a + b and (a + b, 1 - (1 - beta)^n)-
simultaneous accuracy.  Figure 4 / Theorem 5.6 (ii)-(iii) give the closed forms at the
theorems' b: GeoSample a = ceil(9/(2 eps) ln(1/beta)) on counts > 2 + ceil(9/(2 eps)
ln(2/(beta delta))), simultaneous 2 + ceil(9/(2 eps) ln(2n/(beta delta))); FastSample
(gamma = min(beta0/(2n), delta/4)) a = ceil(9/(2 eps) ln(2/beta)) for beta >= 2 gamma on counts
> 2 + ceil(9/(2 eps) ln(8/(beta delta))), simultaneous 2 + ceil(9/(2 eps) ln(8n/(beta delta)))
for beta >= beta0."""
PROOF_IDEA = """A bin with c_x > 0 gets c~_x ~ M(c_x, U) and is released iff c~_x > b; a bin that is
not released reads 0 while c~_x <= b, so its error c_x is at most |c~_x - c_x| + b, and when
|c~_x - c_x| <= a < c_x - b the bin is released with M's error; empty bins read 0 exactly.  Checks: the exact release law explored on every
dataset (up to relabelling), the exact smallest per-query error on counts > a_M(beta) + b
compared with a_M(beta) (M's exact accuracy read off M), and the exact smallest simultaneous
error at 1 - (1 - beta)^n compared with a_M(beta) + b, for every b in [0, n]; at the
theorems' own parameters (n = 20, |X| = 2, where Figure 4's threshold is below n, so the
per-query claim is not vacuous; n = 28 with GeoSample, and n = 36 with FastSample in the full
grid, where the simultaneous bound is below n too) the exact smallest errors against the
closed forms."""

BETAS = [Fraction(3, 4), Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]
#: the least n (|X| = 2, eps = 1, delta = 1/2) where Figure 4's simultaneous bound is below n
SIM_N_GEO, SIM_N_FAST = 28, 36


def _small_grid(full: bool) -> list[tuple[InverseCDFSampler, int]]:
    out: list[tuple[InverseCDFSampler, int]] = []
    for n in ([1, 2, 3] if full else [2, 3]):
        mechs: list[InverseCDFSampler] = [GeoSample(n, 1), FastSample(n, 1, Fraction(1, 10))]
        if full:
            mechs.append(GeoSample(n, Fraction(1, 2)))
        for mech in mechs:
            for size in ([2, 3, 4] if full else [3]):
                out.append((mech, size))
    return out


def check_5_5(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    nonvacuous = 0
    for mech, size in _small_grid(full):
        n = mech.n
        universe = Universe(size)
        m_dists = counting_distributions(mech)
        datasets = canonical_datasets(n, size)
        for b in range(n + 1):
            alg = StabilityHistogram(mech, universe, b)
            dists = Distributions(alg.release, universe)
            study = AccuracyStudy(dists, datasets)
            sym_bad = dists.symmetry_failures(sample_noncanonical(n, size, 10**6 if full else 1))
            for beta in BETAS:
                a_m = counting_accuracy(m_dists, beta)
                per = study.per_query(beta, above=a_m + b)
                sim = study.simultaneous(1 - (1 - beta) ** n)
                assert sim.a is not None
                if per.a is not None:
                    nonvacuous += 1
                ok = (per.a is None or per.a <= a_m) and sim.a <= a_m + b and not sym_bad
                certs.append(Certificate(
                    "Theorem 5.5 (ii)-(iii)", repr(alg),
                    {"n": n, "|X|": size, "b": b, "beta": beta},
                    f"{len(datasets)} datasets up to relabelling, every x", per.a,
                    f"<= a_M(beta) = {a_m} on counts > {a_m + b}; simultaneous at "
                    f"1-(1-beta)^n <= {a_m + b}", ok,
                    {"per_query_witness": [list(per.rows or ()), per.x],
                     "simultaneous": sim.a, "symmetry_failures": sym_bad}))
    total = len(certs)
    certs.append(nonvacuous_certificate("Theorem 5.5 (ii)-(iii)", nonvacuous, total,
                                        "with a count above a_M + b"))
    return ClaimReport(
        "Theorem 5.5 (ii)-(iii)",
        ("n in {1,2,3}, |X| in {2,3,4}, GeoSample (eps 1, 1/2), FastSample (eps 1, gamma 1/10)"
         if full else "n in {2,3}, |X| = 3, GeoSample and FastSample (eps 1, gamma 1/10)")
        + "; every b in [0, n]; every dataset; beta in {3/4,1/2,1/4,1/10}",
        f"exact per-query error on counts > a_M + b <= a_M(beta) ({nonvacuous} of {total} "
        f"non-vacuous); "
        f"exact simultaneous error <= a_M + b",
        "Theorem 5.5 ii-iii with a = a_M(beta), M's exact accuracy", certs)


def _theorem_grid(full: bool) -> list[tuple[StabilityHistogram, str, Fraction, Fraction]]:
    """(algorithm at the theorem's parameters, mechanism kind, delta, beta0)."""
    universe = Universe(2)
    delta, beta0 = Fraction(1, 2), Fraction(1, 2)
    out = []
    for n in ([20, 24] if full else [20]):
        out.append((StabilityHistogram.with_geosample(universe, n, 1, delta, padded=False),
                    "GeoSample", delta, beta0))
        out.append((StabilityHistogram.theorem_5_6(universe, n, 1, delta, beta0, padded=False),
                    "FastSample", delta, beta0))
    # the simultaneous closed forms are >= n at n = 20, 24; below n from n = 28 (GeoSample)
    # and n = 36 (FastSample) at beta = 3/4 and 1/2
    out.append((StabilityHistogram.with_geosample(universe, SIM_N_GEO, 1, delta, padded=False),
                "GeoSample", delta, beta0))
    if full:
        out.append((StabilityHistogram.theorem_5_6(universe, SIM_N_FAST, 1, delta, beta0,
                                                   padded=False), "FastSample", delta, beta0))
    return out


def check_5_6(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    nonvacuous = sim_biting = 0
    for alg, kind, delta, beta0 in _theorem_grid(full):
        universe, n = alg.universe, alg.n
        mech = alg.mechanism
        dists = Distributions(alg.release, universe)
        datasets = canonical_datasets(n, universe.size)
        study = AccuracyStudy(dists, datasets)
        for beta in BETAS:
            if kind == "FastSample" and (beta < 2 * getattr(mech, "gamma", 0) or beta < beta0):
                continue
            g = figure_4(kind, 1, delta, beta, n)
            t = g.per_query_threshold
            assert t is not None
            per = study.per_query(beta, above=t)
            sim = study.simultaneous(beta)
            assert sim.a is not None
            if per.a is not None and g.per_query[0] < n:
                nonvacuous += 1
            sim_biting += g.simultaneous[0] < n
            ok = (g.threshold_b == alg.threshold and (per.a is None or per.a <= g.per_query[0])
                  and sim.a <= g.simultaneous[0])
            certs.append(Certificate(
                "Theorem 5.6 (ii)-(iii) / Figure 4", repr(alg),
                {"n": n, "|X|": universe.size, "delta": delta, "beta": beta, "b": alg.threshold},
                f"{len(datasets)} datasets up to relabelling, every x", per.a,
                f"<= {g.per_query[0]} on counts > {t}; simultaneous <= {g.simultaneous[0]}; "
                f"b == Figure 4's {g.threshold_b}", ok,
                {"per_query_witness": [list(per.rows or ()), per.x], "simultaneous": sim.a,
                 "simultaneous_bound": g.simultaneous[0]}))
    total = len(certs)
    certs.append(nonvacuous_certificate("Theorem 5.6 (ii)-(iii)", nonvacuous, total,
                                        "below n with a count above t"))
    certs.append(nonvacuous_certificate("Theorem 5.6 (iii)", sim_biting, total,
                                        "simultaneous, below n"))
    return ClaimReport(
        "Theorem 5.6 (ii)-(iii)",
        f"n in {{{'20, 24' if full else '20'}}}, |X| = 2, eps = 1, delta = beta0 = 1/2, "
        f"GeoSample (Figure 4) and Theorem 5.6's FastSample, unpadded (same law); GeoSample "
        f"at n = {SIM_N_GEO}" + (f", FastSample at n = {SIM_N_FAST}" if full else "")
        + "; beta in {3/4,1/2,1/4,1/10} where the theorem applies",
        f"exact errors <= Figure 4's closed forms ({nonvacuous} of {total} per-query, "
        f"{sim_biting} of {total} simultaneous bounds below n)",
        "a*(beta) <= a(beta) on counts > t; simultaneous <= Figure 4's", certs)


CHECKS = [check_5_5, check_5_6]
