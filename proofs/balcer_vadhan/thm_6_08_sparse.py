"""Theorem 6.8: SparseHistogram is within statistical distance delta of KH' and
(eps, (e^eps + 1) delta)-DP."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import exp_interval
from exactdp.checker import (
    counting_distributions,
    hockey_stick,
    statistical_distance,
    worst_ratio,
)
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.data import Universe
from exactdp.histograms.sparse import KHPrime, SparseHistogram
from exactdp.proofs._histograms import (
    Distributions,
    canonical_datasets,
    neighbour_pairs,
    sample_noncanonical,
)

CLAIM = "Theorem 6.8"
STATEMENT = """For deterministic M: [n] x [d]_+ -> [n], (eps/2, 0)-DP for counting queries, delta in
N^{-1} and |X| >= 2n + 1, SparseHistogram_{M,delta} (Algorithm 6.21: KH' with
ApproxOrdSample_{F_M}(m, s), s = (n^2 + 2n)|X|/delta) satisfies (i) Delta(KH'_M(D),
SparseHistogram_{M,delta}(D)) <= delta for every D, and (ii) is (eps, (e^eps + 1) delta)-DP.
(Section 6.2 also asks eps in N^{-1}; the restatement in Section 6.3 does not, and neither
proof uses it.)"""
PROOF_IDEA = """(i) Both release the non-empty bins identically; only the empty candidates' counts
differ, and those are ApproxOrdSample vs OrdSample, within m(n^2 + 2n)/s <= delta
(Proposition 6.19); keeping the heaviest is post-processing.  (ii) follows from (i) and
KH' ~ KeepHeavy being (eps, 0)-DP (Proposition 6.5, Theorems 6.2 i and 5.2 i, which need
only that M is (eps/2, 0)-DP).  Checks: exact output distributions of both
implementations (explored: SparseHistogram with part B's ApproxOrdSample, KH' with the exact
OrdSample), per dataset, statistical distance <= delta, in both modes (as printed and
strict-time).  (ii), over every neighbouring pair in both directions, twice:
(a) at the mechanism's nominal eps: the hockey-stick at e^eps, certified <= (e^eps + 1) delta
with rational bounds e_lo <= e^eps <= e_hi (divergence evaluated at e_lo, bound at e_lo);
on the grid it is 0, so this alone is weak.  (b) at M's exact ratio: r = the worst ratio
Pr[M(c,U)=z] / Pr[M(c',U)=z] over |c - c'| = 1, computed from the implementation (1 + 2^-k
for GeoSample, Theorem 4.7 i), makes M (ln r, 0)-DP, i.e. (eps'/2, 0)-DP with e^eps' = r^2
rational; the restated theorem then gives (eps', (r^2 + 1) delta)-DP, checked exactly:
sum_h max(0, P_D(h) - r^2 P_D'(h)) <= (r^2 + 1) delta.  Since r^2 <= e^eps this is the
stronger check, and its divergences are non-zero on the grid."""

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


Results = tuple[list[Certificate], list[Certificate], Fraction, Fraction, Fraction]


def _exact_ratio(mech: InverseCDFSampler) -> Fraction:
    """``r``: the worst ``Pr[M(c,U)=z] / Pr[M(c',U)=z]`` over neighbouring counts, from M's
    own CDF (so M is ``(ln r, 0)``-DP exactly)."""
    dists = counting_distributions(mech)
    pairs = []
    for c in range(mech.n):
        pairs += [(c, dists[c], c + 1, dists[c + 1]), (c + 1, dists[c + 1], c, dists[c])]
    worst = worst_ratio(pairs)
    if worst.ratio is None:
        raise AssertionError(f"{mech!r} has an infinite privacy-loss ratio")
    return worst.ratio


def _check(full: bool) -> Results:
    dist_certs: list[Certificate] = []
    dp_certs: list[Certificate] = []
    worst_share = Fraction(0)
    worst_dp_share = Fraction(0)
    worst_exact_share = Fraction(0)
    for mech, size, strict in _grid(full):
        universe = Universe(size)
        n = mech.n
        eps = getattr(mech, "epsilon", Fraction(0))
        kh = Distributions(KHPrime(mech, universe, strict=False).release, universe)
        e_lo = exp_interval(eps, 128).lo
        r = _exact_ratio(mech)
        r2 = r * r
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
            # hs: an upper bound on the divergence at e^eps (evaluated at e_lo <= e^eps);
            # hs_r: the exact divergence at r^2, with its witness pair.
            hs = Fraction(0)
            hs_r = Fraction(0)
            hs_r_pair: tuple[object, object] = ((), ())
            for d, e in neighbour_pairs(n, size):
                pd, pe = dists(d), dists(e)
                hs = max(hs, hockey_stick(pd, pe, e_lo), hockey_stick(pe, pd, e_lo))
                for a, b, pa, pb in ((d, e, pd, pe), (e, d, pe, pd)):
                    v = hockey_stick(pa, pb, r2)
                    if v > hs_r:
                        hs_r, hs_r_pair = v, (a, b)
            bound = (e_lo + 1) * delta  # <= (e^eps + 1) delta
            worst_dp_share = max(worst_dp_share, hs / bound)
            dp_certs.append(Certificate(
                "Theorem 6.8 (ii) at e^eps", repr(sparse),
                {"n": n, "|X|": size, "delta": delta, "epsilon": eps, "strict": strict},
                "every neighbouring pair, both directions", hs,
                f"<= (e_lo + 1) delta = {brief(bound)} <= (e^eps + 1) delta "
                f"(divergence bounded above at e_lo <= e^eps); hypothesis M (eps/2, 0)-DP: "
                f"r^2 <= e_lo", hs <= bound and r2 <= e_lo, {"M_ratio_squared": r2}))
            bound_r = (r2 + 1) * delta
            worst_exact_share = max(worst_exact_share, hs_r / bound_r)
            dp_certs.append(Certificate(
                "Theorem 6.8 (ii) at M's exact ratio", repr(sparse),
                {"n": n, "|X|": size, "delta": delta, "M_ratio": r, "e^eps'": r2,
                 "strict": strict},
                "every neighbouring pair, both directions", hs_r,
                f"<= (r^2 + 1) delta = {brief(bound_r)} (exact; M is (ln r, 0)-DP)",
                hs_r <= bound_r, {"pair": list(hs_r_pair)}))
    return dist_certs, dp_certs, worst_share, worst_dp_share, worst_exact_share


_CACHE: dict[bool, Results] = {}


def _results(full: bool) -> Results:
    if full not in _CACHE:
        _CACHE[full] = _check(full)
    return _CACHE[full]


def check_i(full: bool) -> ClaimReport:
    certs, _, share, _, _ = _results(full)
    return ClaimReport("Theorem 6.8 (i)", _grid_text(full),
                       f"max Delta(KH', Sparse) / delta = {brief(share)}",
                       "Delta(KH'(D), SparseHistogram(D)) <= delta", certs)


def check_ii(full: bool) -> ClaimReport:
    _, certs, _, share, exact_share = _results(full)
    return ClaimReport("Theorem 6.8 (ii)", _grid_text(full),
                       f"max hockey-stick / ((e^eps' + 1) delta) = {brief(exact_share)} at "
                       f"e^eps' = r^2 (r: M's exact ratio); at e^eps: <= {brief(share)}",
                       "hockey-stick <= (e^eps + 1) delta, at e^eps and at e^eps' = r^2",
                       certs)


CHECKS = [check_i, check_ii]
