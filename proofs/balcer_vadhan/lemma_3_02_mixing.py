"""Lemma 3.2 with FastSample's truncated geometric as M' and GeoSample as M."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import Distribution, certify_ratio, statistical_distance, worst_neighbour_ratio
from exactdp.counting import TruncatedGeoSample
from exactdp.explore import explore
from exactdp.mixing import lemma_3_2_condition, mix, uniform_on_counts
from exactdp.proofs.balcer_vadhan._counting import (
    distributions,
    each_fast,
    fast_grid_text,
    geosample,
)

CLAIM = "Lemma 3.2"
STATEMENT = """If M is (eps, 0)-DP and Delta(M(x), M'(x)) <= delta for every x, then
M*_{M', D, gamma} (Algorithm 3.1: M' w.p. 1 - gamma, else a sample of D) is (eps, 0)-DP
whenever delta <= (e^eps - 1)/(e^eps + 1) gamma/(1 - gamma) min_r Pr[D = r]   (1)."""
PROOF_IDEA = """Pr[M*(x) = r] = gamma p + (1-gamma) Pr[M'(x) = r]; replace M' by M at cost delta
twice, use M's eps-DP, and absorb the (e^eps+1)(1-gamma) delta excess into the gamma p term
using (1).  Instance checked (the proof of Theorem 4.10 i): M = GeoSample_{n,eps}
((eps~/2)-DP, eps~ <= eps), M' = Z'' (FastSample's truncated part, read off its sampler),
D = Unif([n]), privacy eps/2.  Checks: delta = max_c Delta(Z''(c), GeoSample(c)) exactly;
condition (1) decided with certified e^x bounds; the conclusion on M* itself: M* is the
distribution of the generic Algorithm 3.1 code (exactdp.mixing.mix) run under the
exploring source, its worst neighbouring ratio certified <= e^{eps/2}; and M* equals
FastSample's distribution exactly (Lemma 4.12 ii seen from the other side)."""


def mixture_distribution(m_prime: TruncatedGeoSample, c: int, gamma: Fraction) -> Distribution:
    """The exact distribution of Algorithm 3.1's code with M' = Z'' and D = Unif([n])."""
    fallback = uniform_on_counts(m_prime.n)
    return explore(lambda s: mix(lambda s2: m_prime.sample(c, s2), fallback, gamma, s))


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    tightest: Fraction | None = None
    for mech in each_fast(full):
        n, g = mech.n, mech.gamma
        trunc_mech = mech.truncated()
        trunc = distributions(trunc_mech)
        geo = distributions(geosample(n, mech.epsilon))
        delta = max(statistical_distance(trunc[c], geo[c]) for c in range(n + 1))
        cond = lemma_3_2_condition(delta, mech.epsilon / 2, g, Fraction(1, n + 1))

        stars = [mixture_distribution(trunc_mech, c, g) for c in range(n + 1)]
        w = worst_neighbour_ratio(stars)
        ratio_ok, bound = certify_ratio(w, mech.epsilon / 2)
        fast = distributions(mech)
        equal_fast = all({z: stars[c].get(z, Fraction(0)) for z in range(n + 1)} == fast[c]
                         for c in range(n + 1))
        if cond.rhs_lower > 0:
            slack = delta / cond.rhs_lower
            tightest = slack if tightest is None else max(tightest, slack)
        certs.append(Certificate(
            CLAIM, f"M* = mix({trunc_mech!r}, Unif[0..{n}], gamma={g})",
            {"n": n, "epsilon/2": mech.epsilon / 2, "gamma": g}, f"c in [0,{n}]",
            delta, f"(1): delta <= {cond.rhs_lower} (certified lower bound of the RHS); "
            f"M*: {bound}", cond.holds and ratio_ok and equal_fast,
            {"condition_holds": cond.holds, "ratio_witness": w.to_json(),
             "M*_equals_FastSample": equal_fast}))
    return ClaimReport(
        CLAIM + " (M' = FastSample's Z'')", fast_grid_text(full),
        f"max delta / RHS(1) = {brief(tightest) if tightest is not None else '-'}",
        "delta <= RHS of (1); M* ratio <= e^(eps/2)", certs)
