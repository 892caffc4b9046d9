"""Lemma 4.12: FastSample's F' and F are the CDFs of the truncated geometric and the mixture."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import Distribution
from exactdp.counting import FastSample
from proofs._counting import distributions, each_fast, fast_grid_text

CLAIM = "Lemma 4.12"
STATEMENT = """For k, t, d, d', F', F of Algorithm 4.11: (i) F'(z) in [d'] and F'(z)/d' is the CDF
of Z' clamped to [0, n], where Z' has the pmf of Z ~ c + Geo(2/eps~) on [c-t, c+t] \\ {c},
Pr[Z = c] + Pr[|Z - c| > t] at c, and 0 outside [c-t, c+t]; (ii) F(z) in [d] and F(z)/d is
the CDF of the mixture: Z'' with probability 1 - gamma, Unif([n]) with probability gamma."""
PROOF_IDEA = """(i) For z in [max(0, c-t), c), F_{Z''}(z) = F_Z(z) - F_Z(c-t-1); with
e^{-eps~/2} = 2^k/(2^k+1) clearing denominators by d' gives F'(z); symmetric above c.
(ii) F(z)/d = gamma (z+1)/(n+1) + (1-gamma) F'(z)/d'.
Checks: Z'' is read off the implementation (the sampler with CDF F' over [d']_+, its
thresholds confirmed by calls of M) and compared with the pmf built from the lemma's
definition of Z' (typed from the paper, then clamped); FastSample's distribution read off
M(c, u) is compared with (1-gamma) Z'' + gamma Unif([n]); both exactly, every c."""


def ideal_truncated(mech: FastSample, c: int) -> Distribution:
    """The lemma's Z' (from Z ~ c + Geo with ratio alpha), clamped to [0, n].

    Z' has mass geo * alpha^|y-c| at y in [c-t, c+t] \\ {c} (geo = (1-alpha)/(1+alpha)) and
    geo + Pr[|Z-c| > t] at c.  Clamping sums the masses at y <= 0 into 0 and at y >= n into
    n; the sums of alpha^j over j in [lo, hi] are geometric series.
    """
    a, t, n = mech.alpha, mech.t, mech.n
    geo = (1 - a) / (1 + a)
    tail = 2 * a ** (t + 1) / (1 + a)  # Pr[|Z - c| > t]

    def offsets(lo: int, hi: int) -> Fraction:
        """sum of the unclamped masses at offsets j = |y - c| in [lo, hi] on one side."""
        lo, hi = max(lo, 0), min(hi, t)
        if lo > hi:
            return Fraction(0)
        return geo * (a**lo - a ** (hi + 1)) / (1 - a)

    out: Distribution = {}
    for z in range(n + 1):
        if z == 0:
            mass = offsets(max(c, 1), t)  # y = c - j <= 0 for j >= c, centre excluded
        elif z == n:
            mass = offsets(max(n - c, 1), t)
        else:
            mass = geo * a ** abs(z - c) if 0 < abs(z - c) <= t else Fraction(0)
        if z == c:
            mass += geo + tail
        out[z] = mass
    return out


def check_i(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech in each_fast(full):
        trunc = distributions(mech.truncated())
        in_range = all(0 <= mech.truncated_cdf(c, z) <= mech.d_prime
                       for c in range(mech.n + 1) for z in range(-1, mech.n + 2))
        mism = [c for c in range(mech.n + 1) if trunc[c] != ideal_truncated(mech, c)]
        certs.append(Certificate(
            "Lemma 4.12 (i)", repr(mech.truncated()),
            {"n": mech.n, "epsilon": mech.epsilon, "gamma": mech.gamma, "t": mech.t},
            f"c in [0,{mech.n}]", None, "F' in [0,d'], Z'' == lemma's pmf", in_range and not mism,
            {"mismatched_counts": mism}))
    return ClaimReport("Lemma 4.12 (i)", fast_grid_text(full),
                       "Z'' read off M' == lemma's clamped Z' on all", "exact equality", certs)


def check_ii(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech in each_fast(full):
        n, g = mech.n, mech.gamma
        dists = distributions(mech)
        trunc = distributions(mech.truncated())
        in_range = all(0 <= mech.cdf(c, z) <= mech.d for c in range(n + 1)
                       for z in range(-1, n + 2))
        mism = [c for c in range(n + 1)
                if dists[c] != {z: (1 - g) * trunc[c][z] + g / (n + 1) for z in range(n + 1)}]
        certs.append(Certificate(
            "Lemma 4.12 (ii)", repr(mech), {"n": n, "epsilon": mech.epsilon, "gamma": g},
            f"c in [0,{n}]", None, "F in [0,d]; FastSample == (1-g) Z'' + g Unif", in_range
            and not mism, {"mismatched_counts": mism}))
    return ClaimReport("Lemma 4.12 (ii)", fast_grid_text(full),
                       "FastSample read off M == mixture on all", "exact equality", certs)


CHECKS = [check_i, check_ii]
