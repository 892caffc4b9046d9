"""Theorem 4.7's parameter k, as GeoSample's and FastSample's constructors compute it."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.certified import compare_exp
from exactdp.counting import FastSample, GeoSample
from exactdp.proofs.balcer_vadhan._parameters import least_power_of_two_exponent, tally

CLAIM = "Theorem 4.7 (parameters)"
STATEMENT = """GeoSample_{n,eps} uses k = ceil(log2(2/eps)), and its privacy and accuracy rest on
eps~ = 2 ln(1 + 2^-k) lying in (4/9 eps, eps]: eps~ <= eps makes it (eps/2, 0)-DP (it is
(eps~/2, 0)-DP exactly), and eps~ > 4/9 eps gives the 9/(2 eps) of every accuracy bound of
Figures 3-6.  FastSample (Algorithm 4.11) uses the same k."""
PROOF_IDEA = """eps~ <= eps  iff  (1 + 2^-k)^2 <= e^eps, and eps~ > 4/9 eps  iff  (1 + 2^-k)^2 >
e^(4 eps/9): both decided by exactdp.certified.compare_exp (the Taylor enclosure of e^x is
refined until it separates the two numbers, which always happens: e^x is irrational for
rational x != 0).  Checked on k READ OFF THE INSTANCES GeoSample(1, eps) and FastSample(1,
eps, 1/2) build, for eps = 1/m over every m up to 64 (quick; 4096 full) and the power-of-two
boundaries m = 2^j - 1, 2^j, 2^j + 1 (j <= 40 quick, <= 200 full), where an off-by-one in k
shows first.  Also: k is the theorem's value (the least k with 2^k >= 2m, found by doubling),
the instance's privacy ratio is exactly 1 + 2^-k and its alpha 2^k/(2^k + 1)."""


def _ms(full: bool) -> list[int]:
    top_j = 200 if full else 40
    ms = set(range(1, 4097 if full else 65))
    for j in range(1, top_j + 1):
        ms.update((2**j - 1, 2**j, 2**j + 1))
    ms.update((1000, 10**6, 10**9, 3**50))
    return sorted(m for m in ms if m >= 1)


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    bad: list[dict[str, object]] = []
    ms = _ms(full)
    for m in ms:
        eps = Fraction(1, m)
        geo, fast = GeoSample(1, eps), FastSample(1, eps, Fraction(1, 2))
        k = geo.k
        sq = (1 + Fraction(1, 1 << k)) ** 2  # e^{eps~}
        private = compare_exp(eps, sq) >= 0  # e^eps >= e^{eps~}
        accurate = compare_exp(4 * eps / 9, sq) < 0  # e^{4 eps/9} < e^{eps~}
        formula = k == least_power_of_two_exponent(2 * m)
        same = (fast.k == k and geo.privacy_ratio == 1 + Fraction(1, 1 << k)
                and geo.alpha == Fraction(1 << k, (1 << k) + 1))
        if not (private and accurate and formula and same):
            bad.append({"m": m, "k": k, "eps~ <= eps": private, "eps~ > 4/9 eps": accurate,
                        "k = least with 2^k >= 2m": formula, "instances agree": same})
    certs.append(Certificate(
        CLAIM, "GeoSample(1, 1/m).k, FastSample(1, 1/m, 1/2).k", {"values of m": len(ms)},
        f"m in 1..{64 if not full else 4096} and 2^j - 1, 2^j, 2^j + 1 for j <= "
        f"{200 if full else 40}", len(bad),
        "eps~ = 2 ln(1 + 2^-k) in (4/9 eps, eps] (certified e^x); k = ceil(log2(2/eps))",
        not bad, {"failed checks": tally(bad), "failures": bad[:10]}))
    return ClaimReport(
        CLAIM, f"eps = 1/m for {len(ms)} values of m up to 2^{max(ms).bit_length() - 1}+; "
        f"k read off the constructed instances", f"{len(bad)} failing values of m",
        "4/9 eps < eps~ <= eps and k = ceil(log2(2/eps)) for every m", certs)
