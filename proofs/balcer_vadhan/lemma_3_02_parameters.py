"""Lemma 3.2's condition (1) as the library decides it (exactdp.mixing.lemma_3_2_condition),
against an independent enclosure, at the boundary."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.mixing import lemma_3_2_condition
from exactdp.proofs.balcer_vadhan._parameters import tally, tanh_half

CLAIM = "Lemma 3.2 (parameters)"
STATEMENT = """M*_{M',D,gamma} is (eps, 0)-DP whenever
delta <= (e^eps - 1)/(e^eps + 1) * gamma/(1 - gamma) * min_r Pr[D = r]      (1)."""
PROOF_IDEA = """exactdp.mixing.lemma_3_2_condition decides (1) for the rows that apply the lemma
(Lemma 3.2's row for FastSample's truncation).  Here its verdict is checked at the
boundary: the right-hand side is enclosed independently (a Taylor sum for e^eps written in
proofs/balcer_vadhan/_parameters.py, remainder at most twice the first omitted term; y -> (y-1)/(y+1)
increasing) as [lo, hi] with hi/lo - 1 below 2^-100, and for every (eps, gamma, p) of the
grid the library must accept delta = lo and delta = lo (1 - 2^-60) (both satisfy (1)) and
refuse delta = hi (1 + 2^-60) (which violates it); its reported bounds must overlap [lo,
hi] (rhs_lower <= hi and rhs_upper >= lo).  A constant-factor slip in the lemma's factor
(gamma/(1-gamma), the 1/(e^eps+1), min_r Pr) moves the library's boundary by that factor and
fails these.  Grid: eps in {1, 1/2, 1/10, 1/1000, 2^-30}, gamma in {1/2, 1/3, 1/100, 2^-40},
min_r Pr in {1, 1/3, 1/1000, 2^-64} (quick: a subset)."""


def grid(full: bool) -> list[tuple[Fraction, Fraction, Fraction]]:
    epss = [Fraction(1), Fraction(1, 2), Fraction(1, 10), Fraction(1, 1000), Fraction(1, 2**30)]
    gammas = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 100), Fraction(1, 2**40)]
    ps = [Fraction(1), Fraction(1, 3), Fraction(1, 1000), Fraction(1, 2**64)]
    if not full:
        epss, gammas, ps = epss[::2], gammas[1::2], ps[1::2]
    return [(e, g, p) for e in epss for g in gammas for p in ps]


def check(full: bool) -> ClaimReport:
    pts = grid(full)
    bad: list[dict[str, object]] = []
    tiny = Fraction(1, 2**60)
    for eps, gamma, p in pts:
        t_lo, t_hi = tanh_half(eps)
        lo, hi = t_lo * gamma / (1 - gamma) * p, t_hi * gamma / (1 - gamma) * p
        at_lo = lemma_3_2_condition(lo, eps, gamma, p)
        below = lemma_3_2_condition(lo * (1 - tiny), eps, gamma, p)
        above = lemma_3_2_condition(hi * (1 + tiny), eps, gamma, p)
        overlap = at_lo.rhs_lower <= hi and at_lo.rhs_upper >= lo
        # The certificate's own rule (Lemma32Condition): holds iff delta <= rhs_lower,
        # refuted iff delta > rhs_upper -- also for a delta equal to the library's first
        # (64-bit) upper bound, where a refutation must refine until it is strict.
        first = lemma_3_2_condition(hi * (1 + tiny), eps, gamma, p).rhs_upper
        at_upper = lemma_3_2_condition(first, eps, gamma, p)
        certified = all(c.delta <= c.rhs_lower if c.holds else c.delta > c.rhs_upper
                        for c in (at_lo, below, above, at_upper)) and not at_upper.holds
        if not (at_lo.holds and below.holds and not above.holds and overlap and certified):
            bad.append({"eps": eps, "gamma": gamma, "min_prob": p,
                        "accepts delta = lo": at_lo.holds,
                        "accepts delta just below": below.holds,
                        "refuses delta just above": not above.holds,
                        "library bounds overlap the independent ones": overlap,
                        "certificates follow their rule": certified})
    certs = [Certificate(
        CLAIM, "exactdp.mixing.lemma_3_2_condition", {"settings": len(pts)},
        "delta at lo, lo (1 - 2^-60) and hi (1 + 2^-60) of an independent enclosure",
        len(bad), "accepted below the true RHS, refused above it", not bad,
        {"failed checks": tally(bad), "failures": bad[:10]})]
    return ClaimReport(
        CLAIM, f"{len(pts)} settings (eps, gamma, min_r Pr[D = r]) down to 2^-30, 2^-40, "
        f"2^-64", f"{len(bad)} settings decided wrongly at the boundary",
        "the decision of (1) flips exactly at (e^eps-1)/(e^eps+1) gamma/(1-gamma) min Pr",
        certs)
