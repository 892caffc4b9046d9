"""Theorems 7.1 and 7.2 (informally Theorem 1.5): no histogram mechanism of exactdp beats the
lower bounds; the exact gap of each."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.counting import FastSample, GeoSample
from exactdp.histograms.accuracy import (
    LowerBound,
    theorem_7_1_per_query,
    theorem_7_1_simultaneous,
    theorem_7_2_sparse,
)
from exactdp.histograms.basic import BasicHistogram, StabilityHistogram
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import KeepHeavy, PureSparseHistogram, SparseHistogram
from exactdp.proofs._histograms import Distributions, canonical_datasets
from exactdp.proofs.balcer_vadhan._accuracy import AccuracyStudy, nonvacuous_certificate

CLAIM = "Theorem 7.1"
STATEMENT = """Theorem 7.1: an (eps, delta)-DP histogram algorithm with (a, beta)-per-query
accuracy, beta in (0, 1/2], has a >= 1/2 min{ln(1/(4 beta))/eps - 1, ln(eps/(4 delta))/eps - 1,
n} (i), and with (a, beta)-simultaneous accuracy a >= 1/2 min{ln((|X|-1)/(4 beta))/eps - 1,
ln(eps/(4 delta))/eps - 1, n} (ii).  Theorem 7.2 (informally Theorem 1.5): if its outputs have
at most n' nonzero bins, a >= 1/2 min{ln(|X|/(16 beta n'))/(2 eps) - 1, ln(eps/(4 delta))/eps -
1, n}."""
PROOF_IDEA = """Packing arguments (group privacy over m = 2a + 1 rows, Lemma 2.3).  Checks, for
every histogram mechanism of exactdp on small n and |X|: the exact smallest per-query error
(over every dataset and bin) and simultaneous error (over every dataset) at beta in {1/100,
1/20, 1/8}, read off the release law explored from the implementation, against the certified
lower bound (exactdp.histograms.accuracy, ln enclosed in rational intervals) at the privacy
the mechanism is verified for: BasicHistogram and KeepHeavy with GeoSample / FastSample
(eps = 1, delta = 0), StabilityHistogram with GeoSample at every b (delta = 2 Pr[M(1,U) > b],
exact), SparseHistogram (delta' = 4 delta >= (e + 1) delta: a larger delta only lowers the
bound) and PureSparseHistogram (delta = 0).  Theorem 7.2 applies to the sparse ones (n' = n).
The row prints the smallest gap (exact error minus the bound) and counts the bounds that are
at least 1; a mechanism beating a bound would mean its privacy or the bound is wrong."""

BETAS = [Fraction(1, 100), Fraction(1, 20), Fraction(1, 8)]


def _mechanisms(full: bool) -> list[tuple[str, Any, Fraction, Fraction, bool]]:
    """(label, algorithm, eps, delta, sparse output)."""
    out: list[tuple[str, Any, Fraction, Fraction, bool]] = []
    for n, size in [(2, 3), (3, 3), (3, 4)] + ([(2, 4), (4, 5)] if full else []):
        universe = Universe(size)
        out.append(("Basic/GeoSample", BasicHistogram(GeoSample(n, 1), universe), Fraction(1),
                    Fraction(0), False))
        out.append(("Basic/FastSample",
                    BasicHistogram(FastSample(n, 1, Fraction(1, 2)), universe), Fraction(1),
                    Fraction(0), False))
        if size >= n + 1:
            out.append(("KeepHeavy/GeoSample", KeepHeavy(GeoSample(n, 1), universe),
                        Fraction(1), Fraction(0), True))
        for b in range(n + 1):
            alg = StabilityHistogram(GeoSample(n, 1), universe, b, padded=False)
            out.append((f"Stability/GeoSample b={b}", alg, Fraction(1), alg.certified_delta(),
                        True))
    delta = Fraction(1, 16)
    out.append(("Sparse/GeoSample", SparseHistogram(GeoSample(1, 1), Universe(3), delta),
                Fraction(1), 4 * delta, True))
    out.append(("PureSparse/GeoSample", PureSparseHistogram.theorem_6_11(
        Universe(3), 1, 1, Fraction(1, 2), "geosample"), Fraction(1), Fraction(0), True))
    if full:
        out.append(("Sparse/GeoSample", SparseHistogram(GeoSample(2, 1), Universe(5), delta,
                                                        strict=False),
                    Fraction(1), 4 * delta, True))
    return out


def _bounds(eps: Fraction, delta: Fraction, beta: Fraction, n: int, size: int,
            sparse: bool) -> list[tuple[str, LowerBound, Callable[[AccuracyStudy], int | None]]]:
    out: list[tuple[str, LowerBound, Callable[[AccuracyStudy], int | None]]] = [
        ("7.1 (i)", theorem_7_1_per_query(eps, beta, delta, n),
         lambda s: s.per_query(beta).a),
        ("7.1 (ii)", theorem_7_1_simultaneous(eps, beta, delta, n, size),
         lambda s: s.simultaneous(beta).a)]
    if sparse:
        out.append(("7.2", theorem_7_2_sparse(eps, beta, delta, n, size),
                    lambda s: s.per_query(beta).a))
    return out


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    bounds = biting = 0
    gaps: dict[str, Fraction] = {}
    for label, alg, eps, delta, sparse in _mechanisms(full):
        universe, n = alg.universe, alg.mechanism.n
        study = AccuracyStudy(Distributions(alg.release, universe),
                              canonical_datasets(n, universe.size))
        ok, rows = True, {}
        for beta in BETAS:
            for name, lower, exact_of in _bounds(eps, delta, beta, n, universe.size, sparse):
                a = exact_of(study)
                assert a is not None
                bounds += 1
                biting += lower.at_least >= 1
                ok = ok and a >= lower.at_least and a >= lower.interval.lo
                gap = a - lower.interval.lo
                gaps[name] = gap if name not in gaps else min(gaps[name], gap)
                rows[f"{name} at beta={beta}"] = [a, str(lower.at_least), brief(gap)]
        certs.append(Certificate(
            "Theorems 7.1, 7.2", f"{label}: {alg!r}",
            {"n": n, "|X|": universe.size, "epsilon": eps, "delta": delta},
            "every dataset up to relabelling; beta in {1/100, 1/20, 1/8}", None,
            "exact error >= certified lower bound", ok,
            {"exact_bound_gap": rows}))
    certs.append(nonvacuous_certificate("Theorems 7.1, 7.2", biting, bounds, "at least 1"))
    return ClaimReport(
        "Theorems 7.1, 7.2 (lower bounds vs exact errors)",
        "Basic (GeoSample, FastSample), KeepHeavy (|X| > n), Stability (every b) at (n, |X|) in "
        + ("{(2,3), (3,3), (3,4), (2,4), (4,5)}" if full else "{(2,3), (3,3), (3,4)}")
        + "; Sparse, PureSparse at n = 1" + (" and n = 2" if full else "")
        + "; eps = 1; beta in {1/100, 1/20, 1/8}",
        "no mechanism beats a bound; smallest gaps (exact error - bound): "
        + ", ".join(f"{k} {brief(v)}" for k, v in sorted(gaps.items()))
        + f" ({biting} of {bounds} bounds >= 1)",
        "exact error >= 1/2 min{...} (Theorem 7.1 i, ii; 7.2 for sparse outputs)", certs)
