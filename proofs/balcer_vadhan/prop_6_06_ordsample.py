"""Proposition 6.6: OrdSample is distributed as the top n+1 order statistics of i.i.d. draws."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import statistical_distance
from exactdp.explore import explore
from exactdp.histograms.orderstats import ord_sample
from exactdp.proofs.balcer_vadhan._orderstats import cdf_cases, naive_top_order_statistics

CLAIM = "Proposition 6.6"
STATEMENT = """For F: [n] -> [d]_+ non-decreasing with F(n) = d and m >= n + 1, OrdSample_F(m)
(Algorithm 6.7: for v = n..1, l_v ~ min{Bin(m - L_{v+1}, 1 - F(v-1)/F(v)), n + 1 - L_{v+1}})
is identically distributed to the top n + 1 order statistics (Z_(m), ..., Z_(m-n)) of m
i.i.d. Z_j with CDF F(z)/d."""
PROOF_IDEA = """Y_v = #{j : Z_j = v} given Y_n..Y_{v+1} is Bin(m - L_{v+1}, Pr[Z = v | Z <= v]); the
top n + 1 order statistics only need the Y_v capped so that they sum to n + 1.  Check: the
exact distribution of the implementation (explored: one branch per binomial outcome, exact
weights) EQUALS the exact distribution of the naive sampler -- m inverse-CDF draws, sorted,
top n + 1 -- also explored from code, on every (F, n, m) of the grid."""


def _grid(full: bool) -> list[tuple[int, int]]:
    if full:
        return [(1, m) for m in range(2, 8)] + [(2, m) for m in range(3, 8)] + \
               [(3, m) for m in range(4, 8)] + [(4, 5), (4, 6)]
    return [(1, m) for m in range(2, 6)] + [(2, m) for m in range(3, 6)] + [(3, 4)]


def _grid_text(full: bool) -> str:
    pairs = ", ".join(f"n={n} m={m}" for n, m in _grid(full))
    cdfs = ("GeoSample(n,1), GeoSample(n,1/2), FastSample(n,1,1/2) noise at 0; uniform, gap, "
            "doubling, point-mass F" if full else
            "GeoSample(n,1), FastSample(n,1,1/2) noise at 0; uniform and gap F")
    return f"{pairs}; {cdfs}"


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst = Fraction(0)
    for n, m in _grid(full):
        for label, values, d in cdf_cases(n, full):
            ours = explore(partial(ord_sample, values.__getitem__, n, d, m))
            ideal = explore(partial(naive_top_order_statistics, values, d, m))
            gap = statistical_distance(ours, ideal)
            worst = max(worst, gap)
            witness = {} if gap == 0 else {
                "outcome": next(str(k) for k in ideal if ours.get(k) != ideal[k])}
            certs.append(Certificate(
                CLAIM, "ord_sample (Algorithm 6.7)",
                {"F": label, "n": n, "m": m, "d": d}, f"{len(ideal)} order-statistic vectors",
                gap, "== top n+1 order statistics of m i.i.d. draws (distance 0)", gap == 0,
                witness))
    return ClaimReport(
        CLAIM, _grid_text(full),
        "identical on every case" if worst == 0 else f"distance {worst}",
        f"statistical distance exactly 0 ({len(certs)} cases)", certs)
