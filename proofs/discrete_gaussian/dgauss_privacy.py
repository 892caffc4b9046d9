"""The discrete Gaussian's privacy figures: the law sampled, and the ideal law's (CKS Thm 7)."""

from __future__ import annotations

from fractions import Fraction
from math import floor, isqrt

from exactdp.certificate import Certificate, ClaimReport
from exactdp.certified import Interval, exp_interval
from exactdp.checker import hockey_stick
from exactdp.discrete_gaussian import DiscreteGaussian, ideal_delta
from exactdp.explore import explore

CLAIM = "Discrete Gaussian: certified delta of the law sampled and of the ideal law"
STATEMENT = """(1) For the release c + Z of DiscreteGaussian(sigma^2, b) and c' = c + Delta, the hockey-stick
divergence delta(R) = sum_y max(0, P(y) - R P'(y)) computed from DiscreteGaussian.law()
shifted by Delta (what the docs and the tutorial print) equals the divergence of the two
releases' explored laws, at every rational R, in both directions.  (2) ideal_delta(sigma^2, eps,
Delta) contains CKS Theorem 7's delta = Pr[X > eps sigma^2/Delta - Delta/2] - e^eps Pr[X > eps
sigma^2/Delta + Delta/2] of the ideal N_Z(0, sigma^2)."""
PROOF_IDEA = """(1) explore add(0) and add(Delta); compare exact Fractions at R in {1, 3/2, e-ish 2718/1000, 5}.
(2) An independent enclosure of the same delta: every term exp(-x^2/(2 sigma^2)) for
|x| <= 12 sigma + 24 enclosed by exactdp.certified.exp_interval one by one, the rest bounded by
a geometric tail; the two intervals must intersect (each contains the true value) and the
independent one must be narrow (below 10^-30 wide), so that a shifted threshold or a wrong
sign in ideal_delta cannot hide.  Grid: sigma^2 in {1/2, 3, 50/3} (and 40, 7/2 full), Delta in
{1, 2}, eps in {1/10, 1, 3}."""

QUICK = (Fraction(1, 2), Fraction(3), Fraction(50, 3))
FULL = QUICK + (Fraction(40), Fraction(7, 2))
RATIOS = (Fraction(1), Fraction(3, 2), Fraction(2718, 1000), Fraction(5))
EPSILONS = (Fraction(1, 10), Fraction(1), Fraction(3))
BITS = 160


def sampled_case(s2: Fraction, shift: int) -> Certificate:
    g = DiscreteGaussian(s2, bits=24)
    p = g.law()
    q = {x + shift: v for x, v in p.items()}
    a = explore(lambda src: g.add(0, src))
    b = explore(lambda src: g.add(shift, src))
    bad = {}
    for r in RATIOS:
        for name, (x, y), (u, v) in (("P||P'", (p, q), (a, b)), ("P'||P", (q, p), (b, a))):
            if hockey_stick(x, y, r) != hockey_stick(u, v, r):
                bad = {"R": r, "direction": name}
    worst = hockey_stick(p, q, Fraction(3, 2))
    return Certificate(CLAIM + " (sampled)", repr(g), {"sigma2": s2, "Delta": shift},
                       f"R in {[str(r) for r in RATIOS]}, both directions", worst,
                       "law() shifted = explored releases", not bad, bad)


def independent_ideal(s2: Fraction, eps: Fraction, shift: int) -> Interval:
    """CKS Theorem 7 by per-term certified exponentials (no table)."""
    top = 12 * (isqrt(s2.numerator // s2.denominator) + 1) + 12
    assert (top + 1) / s2 >= Fraction(7, 10)  # rho <= e^-0.7 < 1/2 below
    terms = {x: exp_interval(-Fraction(x * x) / (2 * s2), BITS) for x in range(-top, top + 1)}
    # beyond top: e(top + 1 + j) <= e(top + 1) rho^j, rho = e^-((top + 1)/s2) <= 1/2, so the
    # sum is at most 2 e(top + 1) <= 2 e(top) per side
    beyond = 2 * terms[top].hi

    def tail(a: Fraction) -> tuple[Fraction, Fraction]:
        m = floor(a) + 1
        lo = sum((t.lo for x, t in terms.items() if x >= m), Fraction(0))
        hi = sum((t.hi for x, t in terms.items() if x >= m), Fraction(0)) + beyond * 2
        return lo, hi

    n_lo, n_hi = tail(Fraction(-top - 1))
    a1, a2 = eps * s2 / shift - Fraction(shift, 2), eps * s2 / shift + Fraction(shift, 2)
    (p_lo, p_hi), (q_lo, q_hi) = tail(a1), tail(a2)
    e = exp_interval(eps, BITS)
    num_lo, num_hi = p_lo - e.hi * q_hi, p_hi - e.lo * q_lo
    lo = num_lo / n_hi if num_lo >= 0 else num_lo / n_lo
    hi = num_hi / n_lo if num_hi >= 0 else num_hi / n_hi
    return Interval(max(Fraction(0), lo), max(Fraction(0), lo, hi))


def ideal_case(s2: Fraction, shift: int) -> Certificate:
    bad: dict[str, object] = {}
    widest = Fraction(0)
    for eps in EPSILONS:
        ours, ref = ideal_delta(s2, eps, shift), independent_ideal(s2, eps, shift)
        widest = max(widest, ref.hi - ref.lo, ours.hi - ours.lo)
        if ours.hi < ref.lo or ref.hi < ours.lo or ref.hi - ref.lo > Fraction(1, 10**30):
            bad = {"eps": eps, "ideal_delta": [ours.lo, ours.hi],
                   "independent": [ref.lo, ref.hi]}
    return Certificate(CLAIM + " (ideal)", f"ideal_delta({s2}, eps, {shift})",
                       {"sigma2": s2, "Delta": shift}, f"eps in {[str(e) for e in EPSILONS]}",
                       widest, "intersects the independent enclosure (< 1e-30 wide)",
                       not bad, bad)


def check(full: bool) -> ClaimReport:
    grid = FULL if full else QUICK
    certs = [sampled_case(s2, d) for s2 in grid for d in (1, 2)]
    certs += [ideal_case(s2, d) for s2 in grid for d in (1, 2)]
    return ClaimReport(CLAIM, f"sigma^2 in {[str(s) for s in grid]}, Delta in (1, 2)",
                       f"delta(3/2) at sigma^2 = 1/2, Delta = 1: {certs[0].worst}",
                       "law() = explored; ideal_delta meets an independent enclosure", certs)
