"""Theorem 4.10's parameters t, d', gamma, as FastSample's constructor computes them."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.counting import FastSample
from exactdp.params import ExactDPError, ParameterError
from exactdp.proofs.balcer_vadhan._parameters import (
    least_power_of_two_exponent,
    tally,
    truncation_hypothesis,
)

CLAIM = "Theorem 4.10 (parameters)"
STATEMENT = """FastSample_{n,eps,gamma} (Algorithm 4.11) takes k = ceil(log2(2/eps)),
t = ceil(9/(2 eps) ceil(log2(8(n+1)(1-gamma)/(eps gamma)))) - 1, d' = (2^(k+1)+1)(2^k+1)^t and
d = (n+1) d'/gamma, for gamma in N^-1 with gamma < 1.  The proof of (i) needs Lemma 3.2's
condition (1) with M = GeoSample (eps/2-DP), D = Unif([n]) and delta = Pr[|Z - c| > t]:
2 alpha^(t+1)/(1 + alpha) <= (e^(eps/2) - 1)/(e^(eps/2) + 1) gamma/(1 - gamma) 1/(n + 1),
alpha = 2^k/(2^k + 1)."""
PROOF_IDEA = """Checked on each instance FastSample(n, eps, gamma) the constructor builds (its own
k, t, gamma, n), over eps = 1/m up to m = 1025 (quick; 10^4 full), gamma down to 2^-129 and
n up to 10^9: (1) condition (1) decided exactly -- the right-hand side is replaced by a
rational LOWER bound (Taylor enclosure of e^(eps/2); y -> (y-1)/(y+1) is increasing), and
2 alpha^(t+1)/(1+alpha) <= R iff t + 1 >= ceil(ln(2/((1+alpha)R)) / ln(1 + 2^-k)), an
integer decided by exactdp.certified.ceil_log_ratio (certified logarithms plus an exact
power test; a fast sufficient test from bit lengths, ln 2 <= 6932/10000 and
ln(1+x) >= x - x^2/2 runs first and errs only toward calling the exact one), so a pass
proves (1); (2) t is the statement's: with L the least integer with
2^L >= 8(n+1)(1/gamma - 1)/eps (found by doubling), 2t < 9 L/eps <= 2(t+1); (3) d' and d are
the statement's integers where they have at most 2^16 bits; (4) gamma = 1 is refused
(t would involve log 0) and gamma is kept exactly.  The margin reported is a lower bound on the
smallest (t + 1)/(least t + 1 satisfying (1)): how much slack the paper's t leaves."""

D_BITS_LIMIT = 1 << 16


def grid(full: bool) -> list[tuple[int, int, int]]:
    """``(m, g, n)``: ``eps = 1/m``, ``gamma = 1/g``."""
    if full:
        ms = [*range(1, 33), 50, 64, 65, 100, 127, 128, 129, 257, 1000, 1023, 1025, 4097, 10**4]
        gs = [2, 3, 4, 10, 100, 10**6, 2**20, 2**40, 2**64 + 1, 2**129]
        ns = [1, 2, 3, 31, 32, 33, 64, 1000, 10**6, 10**9]
    else:
        ms = [1, 2, 3, 4, 5, 9, 10, 17, 33, 100, 1000, 1025]
        gs = [2, 3, 100, 2**40, 2**129]
        ns = [1, 2, 33, 1000, 10**9]
    return [(m, g, n) for m in ms for g in gs for n in ns]


def check(full: bool) -> ClaimReport:
    pts = grid(full)
    bad: list[dict[str, object]] = []
    margin: Fraction | None = None
    tight = ""
    for m, g, n in pts:
        eps, gamma = Fraction(1, m), Fraction(1, g)
        mech = FastSample(n, eps, gamma)
        tr = truncation_hypothesis(mech)
        if margin is None or tr.margin < margin:
            margin = tr.margin
            tight = f"eps=1/{m}, gamma=1/{g}, n={n}: t+1 = {tr.t_plus_1}, least <= {tr.need}"
        big_l = least_power_of_two_exponent(8 * (n + 1) * (g - 1) * m)
        t = mech.t
        formula = 2 * t < 9 * m * big_l <= 2 * (t + 1)
        ints = True
        if t * (mech.k + 1) <= D_BITS_LIMIT:
            k = mech.k
            d_prime = ((1 << (k + 1)) + 1) * ((1 << k) + 1) ** t
            ints = mech.d_prime == d_prime and mech.d == (n + 1) * d_prime * g
        kept = mech.gamma == gamma and mech.epsilon == eps
        if not (tr.holds and formula and ints and kept):
            bad.append({"m": m, "g": g, "n": n, "t": t, "condition (1)": tr.holds,
                        "least t+1 for (1)": tr.need, "t as stated": formula,
                        "d', d as stated": ints, "gamma kept": kept})
    try:
        FastSample(1, 1, 1)
        refuses = False
    except ParameterError:
        refuses = True
    except ExactDPError:
        refuses = False
    certs = [
        Certificate(CLAIM, "FastSample(n, 1/m, 1/g)", {"settings": len(pts)},
                    "eps = 1/m, gamma = 1/g, n as in the grid", len(bad),
                    "condition (1) of Lemma 3.2 (certified); t, d', d as stated",
                    not bad, {"failed checks": tally(bad), "failures": bad[:10], "tightest": tight}),
        Certificate(CLAIM, "FastSample(1, 1, 1)", {"gamma": 1}, "gamma = 1", None,
                    "refused with ParameterError (log 0 in t)", refuses, {}),
    ]
    ms = sorted({p[0] for p in pts})
    return ClaimReport(
        CLAIM, f"{len(pts)} settings: eps = 1/m, m in {ms}; gamma = 1/g, g up to 2^129; "
        f"n in {sorted({p[2] for p in pts})}",
        f"{len(bad)} failing; min (t+1)/(least t+1 satisfying (1)) >= "
        f"{brief(margin or Fraction(0), 4)} ({tight})",
        "Lemma 3.2 (1) for Pr[|Z-c| > t]; t = ceil(9/(2eps) L) - 1 as stated", certs)
