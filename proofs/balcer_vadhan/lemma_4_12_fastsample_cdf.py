"""Lemma 4.12: FastSample's F' and F are the CDFs of the truncated geometric and the mixture."""

from __future__ import annotations

from exactdp.certificate import Certificate, ClaimReport
from exactdp.proofs.balcer_vadhan._counting import distributions, each_fast, fast_grid_text

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
M(c, u) is compared with (1-gamma) Z'' + gamma Unif([n]) for Z'' read off M', and with
the same mixture of the lemma's pmf; all exactly, every c."""


def check_i(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech in each_fast(full):
        trunc = distributions(mech.truncated())
        in_range = all(0 <= mech.truncated_cdf(c, z) <= mech.d_prime
                       for c in range(mech.n + 1) for z in range(-1, mech.n + 2))
        mism = [c for c in range(mech.n + 1) if trunc[c] != mech.ideal_truncated(c)]
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
        keep, share = 1 - g, g / (n + 1)  # (1 - gamma) Z'' + gamma Unif([n]), per outcome
        mism = [c for c in range(n + 1)
                if dists[c] != {z: keep * trunc[c][z] + share for z in range(n + 1)}
                or dists[c] != mech.ideal_distribution(c)]
        certs.append(Certificate(
            "Lemma 4.12 (ii)", repr(mech), {"n": n, "epsilon": mech.epsilon, "gamma": g},
            f"c in [0,{n}]", None, "F in [0,d]; FastSample == (1-g) Z'' + g Unif", in_range
            and not mism, {"mismatched_counts": mism}))
    return ClaimReport("Lemma 4.12 (ii)", fast_grid_text(full),
                       "FastSample read off M == (1-g) Z'' + g Unif == lemma's pmf mixture, on all", "exact equality", certs)


CHECKS = [check_i, check_ii]
