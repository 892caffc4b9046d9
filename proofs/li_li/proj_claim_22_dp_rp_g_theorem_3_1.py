"""Theorem 3.1 (DP-RP-G, after Kenthapadi et al.): noise of standard deviation
sigma >= Delta_2 sqrt(2(log(1/delta) + eps))/eps on every projection gives (eps, delta)-DP,
checked on the implementation's DP-RP release with its strict-time discrete Gaussian at that
sigma (rounded up), with the exact delta(eps) of the explored release."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.certificate import ClaimReport
from exactdp.certified import ln_interval
from exactdp.checker import hockey_stick_eps
from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.projections.check import explored_law
from exactdp.projections.rp import DPRP
from exactdp.proofs.li_li._proj import cert

CLAIM = "Li & Li Thm 3.1 (DP-RP-G): sigma = Delta_2 sqrt(2(log(1/delta)+eps))/eps gives (eps, delta) on DPRP"
STATEMENT = """Theorem 3.1: for eps > 0 and 0 < delta < 1/2, adding N(0, sigma^2) to every coordinate of
W^T u with sigma >= Delta_2 sqrt(2(log(1/delta) + eps))/eps is (eps, delta)-DP.  On the
implementation (DPRP with ±1 W, noise DiscreteGaussian(sigma^2) at sigma^2 = Delta_2^2 2(log(1/
delta) + eps)/eps^2 rounded up to a multiple of 1/64, Delta_2^2 = DPRP.l2_sensitivity_sq): the
exact delta(eps) of the release, over both orders of a neighbour pair, is at most delta =
10^-5 at every grid point.  The theorem is loose there: the row prints the upper end of the
bracket of delta(eps), between 10^-9 and 10^-7 on the grid."""
PROOF_IDEA = """W = ((1,), (1,)) (k = 1, Delta_2^2 = 1) and W = ((1, -1), (1, 1)) (k = 2, Delta_2^2 = 2),
beta = 1, the neighbours u = (0, 0), u' = (1, 0): every projection moves by exactly 1, the
worst case of a one-coordinate change by beta.  log(1/delta) is bracketed by
exactdp.certified.ln_interval and its upper end used (sigma^2 only grows).  The law of
DPRP(W, 1, DiscreteGaussian(sigma^2, bits = 32)).sample at u and u' is explored from the
implementation; delta(eps) is bracketed by exactdp.checker.hockey_stick_eps (e^eps bracketed)
and its upper end compared with delta.  Quick grid: k = 1 at eps = 1 and k = 2 at eps = 4;
full: k in {1, 2}, eps in {1/2, 1, 4, 10}."""

NOT_EXERCISABLE = {
    "Theorem 3.4 and Lemmas 3.2, 3.3 (sigma for a Gaussian W through a chi-square bound on "
    "Delta_2)": "exactdp draws integer W, whose Delta_2 is computed exactly "
    "(DPRP.l2_sensitivity_sq), so no bound over a random Gaussian W is ever used",
    "Lemmas 3.6 and 3.7 (Delta_1 of a Gaussian W)": "the same: with integer W, Delta_1 is "
    "computed exactly (DPRP.l1_sensitivity)",
    "Remark 3.1 (sigma = O(Delta_2/eps) and O(Delta_2/sqrt(eps)))": "an asymptotic statement "
    "about the continuous calibration; its curves are Figure 1",
    "Lemma 4.2 (Pr(|X| > |Y|) for a bivariate normal pair)": "a fact about continuous normal "
    "pairs, which the implementation never draws; for ±1 W its P+ is computed exactly by "
    "fragile_probability",
}

DELTA = Fraction(1, 10**5)
STEP = Fraction(1, 64)
BITS = 32
W_BY_K = {1: ((1,), (1,)), 2: ((1, -1), (1, 1))}
U, U_NEIGHBOUR = (0, 0), (1, 0)


def theorem_sigma2(l2_sq: int, eps: Fraction) -> Fraction:
    """``Delta_2^2 2(log(1/delta) + eps)/eps^2``, from above, rounded up to ``STEP``."""
    log_hi = ln_interval(1 / DELTA, 64).hi
    s2 = l2_sq * 2 * (log_hi + eps) / (eps * eps)
    return -(-s2 // STEP) * STEP


def point(k: int, eps: Fraction) -> dict[str, Any]:
    W = W_BY_K[k]
    l2_sq = DPRP(W, 1, DiscreteGaussian(1, BITS)).l2_sensitivity_sq
    s2 = theorem_sigma2(l2_sq, eps)
    mech = DPRP(W, 1, DiscreteGaussian(s2, BITS))
    p, q = explored_law(mech.sample, U), explored_law(mech.sample, U_NEIGHBOUR)
    delta_hi = max(hockey_stick_eps(p, q, eps).hi, hockey_stick_eps(q, p, eps).hi)
    return {"k": k, "eps": eps, "l2_sq": l2_sq, "sigma2": s2, "delta": delta_hi,
            "ok": delta_hi <= DELTA and l2_sq == k}


def grid(full: bool) -> list[tuple[int, Fraction]]:
    if full:
        return [(k, Fraction(e)) for k in (1, 2)
                for e in (Fraction(1, 2), 1, 4, 10)]
    return [(1, Fraction(1)), (2, Fraction(4))]


def _sci(x: Fraction) -> str:
    """``x > 0`` as ``m.mme-N`` (display only; integer arithmetic)."""
    e = 0
    while x < 1:
        x, e = x * 10, e - 1
    while x >= 10:
        x, e = x / 10, e + 1
    n = round(x * 100)
    return f"{n // 100}.{n % 100:02d}e{e}"


def check(full: bool) -> ClaimReport:
    points = [point(k, e) for k, e in grid(full)]
    worst = max(points, key=lambda pt: pt["delta"])
    bad = [pt for pt in points if not pt["ok"]]
    nonzero = sum(1 for pt in points if pt["delta"] > 0)
    certs = [cert(CLAIM, "DPRP with DiscreteGaussian explored at u and u'",
                  {"delta": str(DELTA), "bits": BITS, "sigma2 step": str(STEP)},
                  f"{len(points)} (k, eps) points", worst["delta"], "<= delta = 10^-5",
                  not bad, {"points": [(pt["k"], str(pt["eps"]), str(pt["sigma2"]),
                                        _sci(pt["delta"]) if pt["delta"] else "0")
                                       for pt in points],
                            "failing": [(pt["k"], str(pt["eps"])) for pt in bad]},
                  f"{nonzero} of {len(points)} points with delta(eps) > 0")]
    return ClaimReport(CLAIM, "k in {" + ", ".join(sorted({str(pt["k"]) for pt in points}))
                       + "}, eps in {" + ", ".join(str(e) for e in sorted(
                           {pt["eps"] for pt in points})) + "}, delta = 10^-5; "
                       f"{nonzero} of {len(points)} with delta(eps) > 0",
                       f"largest delta(eps) = {_sci(worst['delta'])} (k = {worst['k']}, "
                       f"eps = {worst['eps']}, sigma^2 = {worst['sigma2']})"
                       if worst["delta"] else "delta(eps) = 0 everywhere",
                       "<= 10^-5", certs)
