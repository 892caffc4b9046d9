"""Proposition 6.19: ApproxOrdSample is within m(n^2 + 2n)/s of OrdSample."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import statistical_distance
from exactdp.explore import explore
from exactdp.histograms.orderstats import approx_ord_sample, ord_sample
from exactdp.proofs.balcer_vadhan._orderstats import cdf_cases

CLAIM = "Proposition 6.19"
STATEMENT = """For F: [n] -> [d]_+ non-decreasing with F(n) = d, m >= n + 1 and s >= m:
Delta(OrdSample_F(m), ApproxOrdSample_F(m, s)) <= m(n^2 + 2n)/s."""
PROOF_IDEA = """Couple the two algorithms step by step (Lemma 2.10 iii): given the same earlier
counts, step v draws min{Bin(m - K, p_v), n + 1 - K} exactly in OrdSample and by
ApproxBinSample_{s, n+1-K}(m - K, .) in ApproxOrdSample, within (m(n+2))/s by Proposition
6.17; n steps.  Check: both implementations' exact output distributions (explored from
code; OrdSample with exact binomials) and their exact statistical distance."""


def _grid(full: bool) -> list[tuple[int, int, int]]:
    """(n, m, k): s = m when k = 0, else s = k m (n^2 + 2n) (bound 1/k)."""
    if full:
        return [(n, m, k) for n in (1, 2, 3, 4) for m in (n + 1, n + 2, 2 * n + 3, 20, 64)
                for k in (0, 1, 10, 100, 1000)]
    return [(n, m, k) for n in (1, 2) for m in (n + 1, 2 * n + 3, 12) for k in (10, 100)] + \
           [(3, m, k) for m in (4, 9) for k in (10, 100)]


def _grid_text(full: bool) -> str:
    if full:
        return ("n <= 4, m in {n+1, n+2, 2n+3, 20, 64}, s in {m, k m(n^2+2n) : k = 1, 10, "
                "100, 1000}, every Prop 6.6 CDF")
    return ("n <= 2, m in {n+1, 2n+3, 12}; n = 3, m in {4, 9}; s = k m(n^2+2n), k in "
            "{10, 100} (bound 1/k); GeoSample, FastSample, uniform and gap CDFs")


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_ratio = Fraction(0)
    worst_at: dict[str, object] = {}
    for n, m, k in _grid(full):
        s = m if k == 0 else k * m * (n * n + 2 * n)
        bound = Fraction(m * (n * n + 2 * n), s)
        for label, values, d in cdf_cases(n, full):
            exact = explore(partial(ord_sample, values.__getitem__, n, d, m))
            approx = explore(partial(approx_ord_sample, values.__getitem__, n, d, m, s))
            gap = statistical_distance(exact, approx)
            ratio = gap / bound
            if ratio > worst_ratio:
                worst_ratio = ratio
                worst_at = {"F": label, "n": n, "m": m, "s": s, "distance": brief(gap)}
            certs.append(Certificate(
                CLAIM, "approx_ord_sample (Algorithm 6.20) vs ord_sample (Algorithm 6.7)",
                {"F": label, "n": n, "m": m, "s": s}, "top n+1 order statistics",
                gap, f"<= m(n^2+2n)/s = {bound}", gap <= bound))
    return ClaimReport(
        CLAIM, f"{_grid_text(full)} ({len(certs)} cases)",
        f"max distance/bound {brief(worst_ratio)} at {worst_at}",
        "<= 1: distance <= m(n^2+2n)/s", certs)
