"""Theorems 6.10 (ii)-(iii) and 6.11 (ii)-(iii): PureSparseHistogram's exact accuracy."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import counting_distributions
from exactdp.counting import FastSample, GeoSample
from exactdp.histograms.accuracy import figure_5
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import PureSparseHistogram
from exactdp.proofs._histograms import Distributions, canonical_datasets, sample_noncanonical
from exactdp.proofs.balcer_vadhan._accuracy import (
    AccuracyStudy,
    basic_simultaneous_accuracy,
    counting_accuracy,
    dominance,
    error_laws,
    guaranteed_error,
    keep_heavy_reference,
    low_noise,
    nonvacuous_certificate,
)

CLAIM = "Theorem 6.10 (accuracy)"
STATEMENT = """Theorem 6.10 (ii)-(iii): if BasicHistogram_{M,X} has (a1, beta2)-per-query and
(a2, beta2)-simultaneous accuracy (a1 <= a2), PureSparseHistogram_{M,eps,beta1} has
(a1, 2 beta1 + 2 beta2)-per-query accuracy on counts larger than 2 a2 and
(2 a2, 2 beta1 + beta2)-simultaneous accuracy.  Theorem 6.11 / Figure 5: with beta1 = beta0/4
and GeoSample, a = ceil(9/(2 eps) ln(4/beta)) on counts > 2 ceil(9/(2 eps) ln(4|X|/beta)),
simultaneous 2 ceil(9/(2 eps) ln(2|X|/beta)) (FastSample, gamma = beta0/(8|X|): 8/beta,
8|X|/beta, 4|X|/beta), for every beta >= beta0."""
PROOF_IDEA = """The proof bounds, for every event G, Pr[PureSparse(D) in G] >= Pr[Sparse(D) in G] -
beta1 >= Pr[KH'(D) in G] - 2 beta1, then uses KeepHeavy's accuracy (Theorem 6.2, KH' ~
KeepHeavy by Proposition 6.5).  Exactly: PureSparse = (1 - beta1) Sparse + beta1 Uniform and
Delta(Sparse, KH') <= delta, so Pr[PureSparse in G] >= (1 - beta1)(Pr[KeepHeavy in G] - delta),
which implies the paper's inequality (delta <= beta1).  Checks, on the exact release law
explored from the implementation on every dataset (up to relabelling): that inequality for
every G = {|h_x - c_x| <= a} and G = {max_x |h_x - c_x| <= a}, every D, x, a, against
KeepHeavy's exact law computed independently here from M's per-count laws (product, then keep
the bins heavier than the (n+1)-th) -- so a release that is private but useless (empty,
shifted, random) fails; the exact smallest errors at several beta against Theorem 6.10 ii-iii
with a1, a2 read off M exactly, and against Figure 5's closed forms at Theorem 6.11's
parameters.  On grids small enough to explore (n <= 2), the bounds with GeoSample and
FastSample at eps <= 1 are >= n, i.e. vacuous; so the grid adds a low-noise M (error at most 1,
probability 1/32 on each side; Theorem 6.10 ii-iii uses only BasicHistogram's accuracy, not
M's privacy), where 2 a2 = 0 < n = 2.  The row counts the non-vacuous bounds and fails if
there are none.  Figure 5's closed forms stay >= n at every n this row explores; they bite
from n = 65 (|X| = 131), where the rows "Theorem 6.11 (ii) at large n" and "Theorem 6.11
(iii) at large n" check them."""

BETAS = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]


def _grid(full: bool) -> list[tuple[PureSparseHistogram, str, Fraction | None]]:
    """(algorithm, mechanism kind, beta0 when built by Theorem 6.11)."""
    out: list[tuple[PureSparseHistogram, str, Fraction | None]] = []
    beta0 = Fraction(1, 2)
    for size in ([3, 4] if full else [3]):
        universe = Universe(size)
        for counting, kind in (("geosample", "GeoSample"), ("fastsample", "FastSample")):
            out.append((PureSparseHistogram.theorem_6_11(universe, 1, 1, beta0, counting),
                        kind, beta0))
    out.append((PureSparseHistogram(GeoSample(2, 1), Universe(5), 1, Fraction(1, 8),
                                    strict=False), "GeoSample", beta0))
    out.append((PureSparseHistogram(low_noise(2, 32), Universe(5), 1, Fraction(1, 8)),
                "low-noise", None))
    if full:
        out.append((PureSparseHistogram(GeoSample(1, Fraction(1, 2)), Universe(3),
                                        Fraction(1, 2), Fraction(1, 2)), "GeoSample", None))
        out.append((PureSparseHistogram(FastSample(2, 1, Fraction(1, 80)), Universe(5), 1,
                                        Fraction(1, 8), strict=False), "FastSample", beta0))
    return out


def _grid_text(full: bool) -> str:
    base = ("Theorem 6.11 (beta0 = 1/2, eps = 1): n = 1, |X| in {3, 4}, GeoSample and FastSample"
            if full else "Theorem 6.11 (beta0 = 1/2, eps = 1): n = 1, |X| = 3, GeoSample and "
            "FastSample")
    extra = ("; n = 2, |X| = 5 as printed, GeoSample and FastSample (gamma 1/80); n = 1, |X| = "
             "3, eps = 1/2, beta1 = 1/2" if full else "; n = 2, |X| = 5 as printed, GeoSample")
    extra += "; low-noise M (d = 32), n = 2, |X| = 5, beta1 = 1/8"
    return base + extra + "; every dataset; beta in {1/2, 1/4, 1/10}"


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    min_slack: Fraction | None = None
    closed, closed_nonvacuous = 0, 0
    derived, derived_nonvacuous = 0, 0
    for alg, kind, beta0 in _grid(full):
        universe, n, beta1 = alg.universe, alg.n, alg.beta1
        size = universe.size
        mech = alg.mechanism
        dists = Distributions(alg.release, universe)
        datasets = canonical_datasets(n, size)
        study = AccuracyStudy(dists, datasets)
        sym_bad = dists.symmetry_failures(sample_noncanonical(n, size, 10**6 if full else 1))
        m_dists = counting_distributions(mech)
        ref = [error_laws(keep_heavy_reference(m_dists, d, size), d, size) for d in datasets]
        scale, shift = 1 - beta1, alg.delta
        dom = dominance(study.laws, ref, n, scale, shift)
        min_slack = dom.slack if min_slack is None else min(min_slack, dom.slack)
        ok = dom.slack >= 0 and not sym_bad
        exact: dict[str, object] = {}
        for beta in BETAS:
            # Theorem 6.10 ii-iii with beta2 = beta and a1, a2 exact.
            a1 = counting_accuracy(m_dists, beta)
            a2 = basic_simultaneous_accuracy(m_dists, datasets, size, beta)
            per_beta, sim_beta = 2 * beta1 + 2 * beta, 2 * beta1 + beta
            if per_beta < 1:
                per = study.per_query(per_beta, above=2 * a2)
                ok = ok and (per.a is None or per.a <= a1)
                exact[f"6.10 ii at {per_beta}, counts > {2 * a2}"] = [per.a, a1]
                derived += 1
                derived_nonvacuous += per.a is not None and a1 < n
            if sim_beta < 1:
                sim = study.simultaneous(sim_beta)
                ok = ok and sim.a is not None and sim.a <= 2 * a2
                exact[f"6.10 iii at {sim_beta}"] = [sim.a, 2 * a2]
                derived += 1
                derived_nonvacuous += 2 * a2 < n
            # What the exact inequality guarantees, per dataset and x, at beta.
            guaranteed = [guaranteed_error(law.per_bin[x], n, scale, shift, beta)
                          for law in ref for x in law.per_bin]
            exact[f"a*({beta}), proof-guaranteed"] = [
                study.per_query(beta).a,
                None if None in guaranteed else max(g for g in guaranteed if g is not None)]
            if beta0 is not None and beta >= beta0:
                g = figure_5(kind, alg.epsilon, beta, size)
                t = g.per_query_threshold
                assert t is not None
                per = study.per_query(beta, above=t)
                sim = study.simultaneous(beta)
                ok = ok and (per.a is None or per.a <= g.per_query[0]) and \
                    sim.a is not None and sim.a <= g.simultaneous[0]
                closed += 2
                closed_nonvacuous += (t < n) + (g.simultaneous[0] < n)
                exact[f"Figure 5 at {beta}"] = {"per_query": [per.a, g.per_query[0], t],
                                                "simultaneous": [sim.a, g.simultaneous[0]]}
        certs.append(Certificate(
            "Theorem 6.10 (ii)-(iii) / 6.11 (ii)-(iii)", repr(alg),
            {"n": n, "|X|": size, "epsilon": alg.epsilon, "beta_1": beta1, "delta": alg.delta,
             "strict": alg.sparse.strict},
            f"{len(datasets)} datasets up to relabelling, {dom.events} events", dom.slack,
            "Pr[Pure in G] - (1-beta1)(Pr[KeepHeavy in G] - delta) >= 0; exact errors <= "
            "Theorem 6.10 ii-iii (exact a1, a2) and Figure 5", ok,
            {"worst_event": dom.where, "exact_vs_bound": exact, "symmetry_failures": sym_bad}))
    certs.append(nonvacuous_certificate(
        "Theorem 6.10 (ii)-(iii)", derived_nonvacuous, derived,
        "below n (per query: with a count above 2 a2)"))
    return ClaimReport(
        "Theorem 6.10 (ii)-(iii), 6.11 (ii)-(iii)", _grid_text(full),
        f"min Pr[Pure in G] - (1-beta1)(Pr[KeepHeavy in G] - delta) = "
        f"{brief(min_slack or Fraction(0))}; exact errors within Theorem 6.10 ii-iii "
        f"({derived_nonvacuous} of {derived} bounds below n) and Figure 5 "
        f"({closed_nonvacuous} of {closed} closed-form bounds below n)",
        "every accuracy event of KeepHeavy carried over (the proof's inequality, exact)", certs)
