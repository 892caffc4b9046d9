"""Theorems 5.2 (ii)-(iii) and 5.3 (ii)-(iii): BasicHistogram's exact accuracy."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import counting_distributions
from exactdp.counting import FastSample, GeoSample
from exactdp.histograms.accuracy import figure_3
from exactdp.histograms.basic import BasicHistogram
from exactdp.histograms.data import Universe
from exactdp.proofs._histograms import Distributions, canonical_datasets, sample_noncanonical
from exactdp.proofs.balcer_vadhan._accuracy import (
    AccuracyStudy,
    basic_simultaneous_accuracy,
    counting_accuracy,
    nonvacuous_certificate,
)

CLAIM = "Theorem 5.2 (accuracy)"
STATEMENT = """Theorem 5.2 (ii)-(iii): if M has (a, beta)-accuracy, BasicHistogram_{M,X} has
(a, beta)-per-query accuracy and (a, 1 - (1 - beta)^|X|)-simultaneous accuracy.  With
GeoSample (Figure 3) that is a = ceil(9/(2 eps) ln(1/beta)) per query and
ceil(9/(2 eps) ln(|X|/beta)) simultaneously.  Theorem 5.3 (ii)-(iii): with
M = FastSample_{n,eps,gamma}, gamma = beta0/(2|X|): a = ceil(9/(2 eps) ln(2/beta)) per query
for beta >= 2 gamma, a = ceil(9/(2 eps) ln(2|X|/beta)) simultaneously for beta >= beta0."""
PROOF_IDEA = """Each released bin is c~_x ~ M(c_x(D), U), independently (Theorem 5.2 ii-iii).
Checks, from the exact output distribution of BasicHistogram explored on every dataset (up
to relabelling, sampled directly too): the exact smallest per-query error a*(beta) (least a
with Pr[|h_x - c_x| <= a] >= 1 - beta for every D and x) EQUALS a_M(beta), the exact
smallest error of M read off M's own distributions (every count c in [n] is some c_x when
|X| >= 2, so Theorem 5.2 ii is tight); the exact smallest simultaneous error at
beta' = 1 - (1 - beta)^|X| is <= a_M(beta) and equals the one computed from M's laws by
independence; and both are <= the closed-form a(beta) of Figure 3 / Theorem 5.3.  A release
that drops, shifts or zeroes counts changes a*(beta) at some beta and fails."""

BETAS = [Fraction(3, 4), Fraction(1, 2), Fraction(1, 4), Fraction(1, 10), Fraction(1, 100)]


def _grid(full: bool) -> list[tuple[BasicHistogram, str, Fraction | None]]:
    """(algorithm, mechanism kind, beta0 for Theorem 5.3 or None)."""
    out: list[tuple[BasicHistogram, str, Fraction | None]] = []
    epss = [Fraction(1), Fraction(1, 2)] + ([Fraction(1, 4)] if full else [])
    for eps in epss:
        for n in ([1, 2, 3] if full else [1, 3]):
            for size in ([2, 3, 4] if full else [2, 3]):
                universe = Universe(size)
                out.append((BasicHistogram(GeoSample(n, eps), universe), "GeoSample", None))
                beta0 = Fraction(1, 2)
                out.append((BasicHistogram.theorem_5_3(universe, n, eps, beta0), "FastSample",
                            beta0))
    # n large enough that Figure 3's bounds are below n (not vacuous): |X| = 2.
    for n in ([12, 20] if full else [12]):
        universe = Universe(2)
        out.append((BasicHistogram(GeoSample(n, 1), universe), "GeoSample", None))
        out.append((BasicHistogram.theorem_5_3(universe, n, 1, Fraction(1, 2)), "FastSample",
                    Fraction(1, 2)))
    return out


def _grid_text(full: bool) -> str:
    if full:
        return ("GeoSample and Theorem 5.3's FastSample (beta0 = 1/2): n in {1,2,3}, |X| in "
                "{2,3,4}, eps in {1,1/2,1/4}; n in {12,20}, |X| = 2, eps = 1; every dataset; "
                "beta in {3/4,1/2,1/4,1/10,1/100}")
    return ("GeoSample and Theorem 5.3's FastSample (beta0 = 1/2): n in {1,3}, |X| in {2,3}, "
            "eps in {1,1/2}; n = 12, |X| = 2, eps = 1; every dataset; "
            "beta in {3/4,1/2,1/4,1/10,1/100}")


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    nonvacuous = total = 0
    for alg, kind, beta0 in _grid(full):
        mech = alg.mechanism
        universe, n = alg.universe, alg.n
        size = universe.size
        eps = getattr(mech, "epsilon", Fraction(1))
        dists = Distributions(alg.release, universe)
        datasets = canonical_datasets(n, size)
        study = AccuracyStudy(dists, datasets)
        sym_bad = dists.symmetry_failures(sample_noncanonical(n, size, 10**6 if full else 1))
        m_dists = counting_distributions(mech)
        for beta in BETAS:
            a_m = counting_accuracy(m_dists, beta)
            per = study.per_query(beta)
            beta_sim = 1 - (1 - beta) ** size
            sim = study.simultaneous(beta_sim)
            sim_ref = basic_simultaneous_accuracy(m_dists, datasets, size, beta_sim)
            bounds: dict[str, int] = {}
            if isinstance(mech, FastSample):
                assert beta0 is not None
                if beta >= 2 * mech.gamma:
                    bounds["per_query"] = figure_3(kind, eps, beta, size).per_query[0]
                if beta >= beta0:
                    bounds["simultaneous"] = figure_3(kind, eps, beta, size).simultaneous[0]
            else:
                bounds["per_query"] = figure_3(kind, eps, beta, size).per_query[0]
                bounds["simultaneous"] = figure_3(kind, eps, beta, size).simultaneous[0]
            sim_closed = study.simultaneous(beta)
            assert per.a is not None and sim.a is not None and sim_closed.a is not None
            ok = (per.a == a_m and sim.a <= a_m and sim.a == sim_ref and not sym_bad
                  and per.a <= bounds.get("per_query", n)
                  and sim_closed.a <= bounds.get("simultaneous", n))
            nonvacuous += sum(1 for b in bounds.values() if b < n)
            total += len(bounds)
            certs.append(Certificate(
                "Theorem 5.2 (ii)-(iii) / 5.3 (ii)-(iii)", repr(alg),
                {"n": n, "|X|": size, "epsilon": eps, "beta": beta,
                 "gamma": getattr(mech, "gamma", None)},
                f"{len(datasets)} datasets up to relabelling, every x", per.a,
                f"== a_M(beta) = {a_m}; simultaneous at 1-(1-beta)^|X| <= a_M; "
                f"<= closed form {bounds}",
                ok,
                {"per_query_witness": [list(per.rows or ()), per.x],
                 "simultaneous_at_1-(1-beta)^|X|": sim.a, "simultaneous_from_M": sim_ref,
                 "simultaneous_at_beta": sim_closed.a, "closed_form": bounds,
                 "symmetry_failures": sym_bad}))
    certs.append(nonvacuous_certificate("Theorem 5.2 (ii)-(iii) / 5.3 (ii)-(iii)", nonvacuous,
                                        total, "below n"))
    return ClaimReport(
        "Theorem 5.2 (ii)-(iii), 5.3 (ii)-(iii)", _grid_text(full),
        f"exact per-query a*(beta) == a_M(beta) on all; simultaneous <= a_M and == the "
        f"product law; all <= Figure 3 / Theorem 5.3 ({nonvacuous} of {total} closed-form bounds < n)",
        "a*(beta) == a_M(beta); a*_sim(1-(1-beta)^|X|) <= a_M(beta); closed forms", certs)
