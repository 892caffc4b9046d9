"""Theorem 6.8: SparseHistogram is within statistical distance delta of KH' and
(eps, (e^eps + 1) delta)-DP."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import exp_interval
from exactdp.checker import hockey_stick_eps, statistical_distance
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import KHPrime, SparseHistogram
from proofs._histograms import (
    Distributions,
    canonical_datasets,
    neighbour_pairs,
    sample_noncanonical,
)

CLAIM = "Theorem 6.8"
STATEMENT = """For deterministic M: [n] x [d]_+ -> [n], (eps/2, 0)-DP for counting queries, delta in
N^{-1} and |X| >= 2n + 1, SparseHistogram_{M,delta} (Algorithm 6.21: KH' with
ApproxOrdSample_{F_M}(m, s), s = (n^2 + 2n)|X|/delta) satisfies (i) Delta(KH'_M(D),
SparseHistogram_{M,delta}(D)) <= delta for every D, and (ii) is (eps, (e^eps + 1) delta)-DP."""
PROOF_IDEA = """(i) Both release the non-empty bins identically; only the empty candidates' counts
differ, and those are ApproxOrdSample vs OrdSample, within m(n^2 + 2n)/s <= delta
(Proposition 6.19); keeping the heaviest is post-processing.  (ii) follows from (i) and
KH' ~ KeepHeavy being (eps, 0)-DP.  Checks: exact output distributions of both
implementations (explored: SparseHistogram with part B's ApproxOrdSample, KH' with the exact
OrdSample), per dataset, statistical distance <= delta, in both modes (as printed and
strict-time); (ii) the exact hockey-stick divergence at e^eps over every neighbouring
pair, certified <= (e^eps + 1) delta with a rational upper bound on e^eps."""

DELTAS = [Fraction(1, 2), Fraction(1, 16)]


def _grid(full: bool) -> list[tuple[InverseCDFSampler, int, bool]]:
    out: list[tuple[InverseCDFSampler, int, bool]] = []
    one: list[InverseCDFSampler] = [GeoSample(1, 1), FastSample(1, 1, Fraction(1, 2))]
    two: list[InverseCDFSampler] = [GeoSample(2, 1), FastSample(2, Fraction(1, 2),
                                                                Fraction(1, 10))]
    for mech in one:
        for size in ([3, 4, 5] if full else [3, 4]):
            out += [(mech, size, False), (mech, size, True)]
    for mech in two if full else two[:1]:
        out.append((mech, 5, False))
        if full:
            out += [(mech, 6, False), (mech, 5, True)]
    return out


def _grid_text(full: bool) -> str:
    if full:
        return ("delta in {1/2, 1/16}; n=1: |X| in {3,4,5} both modes; n=2: |X| in {5,6} as "
                "printed, |X|=5 strict; GeoSample and FastSample; all datasets up to "
                "relabelling (checked), all neighbouring pairs")
    return ("delta in {1/2, 1/16}; n=1: |X| in {3,4} both modes (GeoSample, FastSample); "
            "n=2: |X|=5 as printed (GeoSample); all datasets up to relabelling, all "
            "neighbouring pairs")


def _check(full: bool) -> tuple[list[Certificate], list[Certificate], Fraction, Fraction]:
    dist_certs: list[Certificate] = []
    dp_certs: list[Certificate] = []
    worst_share = Fraction(0)
    worst_dp_share = Fraction(0)
    for mech, size, strict in _grid(full):
        universe = Universe(size)
        n = mech.n
        eps = getattr(mech, "epsilon", Fraction(0))
        kh = Distributions(KHPrime(mech, universe, strict=False).release, universe)
        e_hi = exp_interval(eps, 128).hi
        for delta in DELTAS:
            sparse = SparseHistogram(mech, universe, delta, strict=strict)
            dists = Distributions(sparse.release, universe)
            gaps = {d: statistical_distance(kh(d), dists(d)) for d in canonical_datasets(n,
                                                                                        size)}
            worst_d = max(gaps, key=lambda d: gaps[d])
            worst_share = max(worst_share, gaps[worst_d] / delta)
            sym_bad = dists.symmetry_failures(sample_noncanonical(n, size, 10**6 if full else 1))
            dist_certs.append(Certificate(
                "Theorem 6.8 (i)", repr(sparse), {"n": n, "|X|": size, "delta": delta,
                                                   "strict": strict, "s": sparse.s},
                f"{len(gaps)} datasets up to relabelling", gaps[worst_d], f"<= delta = {delta}",
                gaps[worst_d] <= delta and not sym_bad,
                {"worst_dataset": list(worst_d), "symmetry_failures": sym_bad}))
            hs = Fraction(0)
            for d, e in neighbour_pairs(n, size):
                pd, pe = dists(d), dists(e)
                hs = max(hs, hockey_stick_eps(pd, pe, eps).hi, hockey_stick_eps(pe, pd, eps).hi)
            bound = (exp_interval(eps, 128).lo + 1) * delta
            worst_dp_share = max(worst_dp_share, hs / ((e_hi + 1) * delta))
            dp_certs.append(Certificate(
                "Theorem 6.8 (ii)", repr(sparse), {"n": n, "|X|": size, "delta": delta,
                                                    "epsilon": eps, "strict": strict},
                "every neighbouring pair, both directions", hs,
                f"<= (e^eps + 1) delta (>= {brief(bound)})", hs <= bound, {}))
    return dist_certs, dp_certs, worst_share, worst_dp_share


_CACHE: dict[bool, tuple[list[Certificate], list[Certificate], Fraction, Fraction]] = {}


def _results(full: bool) -> tuple[list[Certificate], list[Certificate], Fraction, Fraction]:
    if full not in _CACHE:
        _CACHE[full] = _check(full)
    return _CACHE[full]


def check_i(full: bool) -> ClaimReport:
    certs, _, share, _ = _results(full)
    return ClaimReport("Theorem 6.8 (i)", _grid_text(full),
                       f"max Delta(KH', Sparse) / delta = {brief(share)}",
                       "Delta(KH'(D), SparseHistogram(D)) <= delta", certs)


def check_ii(full: bool) -> ClaimReport:
    _, certs, _, share = _results(full)
    return ClaimReport("Theorem 6.8 (ii)", _grid_text(full),
                       f"max hockey-stick / ((e^eps + 1) delta) <= {brief(share)}",
                       "hockey-stick at e^eps <= (e^eps + 1) delta", certs)


CHECKS = [check_i, check_ii]
