"""Lemma 4.3 (eq. 26, eq. 32) computed by
exactdp.projections.p_plus_gaussian as a certified interval, with its exact value p/(p+1) at
r = 1; Algorithm 6's N+ for Gaussian W from it (Figure 5's decrease in the norm bound); and
Proposition 4.5's integer N+ equal to the floor of eq. 27 decided exactly."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import compare_exp
from exactdp.projections import p_plus_gaussian as pg
from exactdp.projections.nplus import n_plus_bound
from exactdp.proofs.li_li._proj import cert

CLAIM = "Li & Li Lemma 4.3 / eq. 26, 32: certified P+ integral; N+ for Gaussian W; eq. 27's floor"
STATEMENT = """Lemma 4.3 (eq. 26; eq. 32 with r = beta/||u||): P+(r, p) <= int_0^inf 2p [2 Phi(t) -
1]^(p-1) [2 Phi(r t) - 1] phi(t) dt, the value of Pr(max_i |X_i| > |Y|) when the X_i ~ N(0,
r^2) and Y ~ N(0, 1) are independent; at r = 1 these are p + 1 iid normals and the integral is
exactly p/(p+1).  Algorithm 6 uses N+ of Proposition 4.5 (eq. 27) with F = P+(beta/m, p) for
the norm lower bound m; N+ decreases in m (Figure 5: p = 1024, k = 512, delta = 10^-6; the
text's m = 10 gives about 200).  N+ is used as an integer: the floor of eq. 27."""
PROOF_IDEA = """(a) p_plus_gaussian(1, p), the implementation's certified lower and upper
Riemann-Stieltjes sums (grid 1/16 on [0, 8], certified Phi), must contain p/(p+1) for p = 1..4
(full: 1..6) with width <= 1/20.  (b) n_plus_gaussian(m, 1, 1024, 512, 10^-6) strictly
decreases over m = 2, 5, 10, 20 and lies in [190, 215] at m = 10.  (c) The integer floor of
n_plus_bound (a certified upper end of eq. 27) equals the floor decided exactly: n is the
floor of eq. 27 iff (n - mu)^2/(n + mu) < log(1/delta) < (n + 1 - mu)^2/(n + 1 + mu) (mu = F k,
n >= mu), each side compared with compare_exp (e^x is never rational), on F in {0, 1/10, 1/3,
1/2, 3/4}, k in {8, 16, 64, 512}, delta in {1/10, 1/4, 10^-6}.  Lemma 4.3's dependence step
(the maximum over dependent X_i, Y attained at independence) cannot be exercised: it is a
statement about continuous Gaussian projections, which exactdp does not sample."""

NOT_EXERCISABLE = {
    "Lemma 4.3's maximum at independence (Gaussian W)": "a statement about the dependence of "
    "continuous Gaussian projections, which the exact implementation does not sample",
}


def exact_floor(f: Fraction, k: int, delta: Fraction) -> int:
    """``floor`` of eq. 27's ``N`` from exact comparisons: the last ``n`` with ``n <= mu`` or
    ``exp((n - mu)^2 / (n + mu)) < 1/delta``."""
    mu = f * k

    def below(n: int) -> bool:  # n <= N
        return n <= mu or compare_exp((n - mu) ** 2 / (n + mu), 1 / delta) < 0

    n = mu.numerator // mu.denominator
    while below(n + 1):
        n += 1
    return n


def anchor_certificate(ps: tuple[int, ...]) -> Certificate:
    boxes = {p: pg.p_plus_gaussian(1, p) for p in ps}
    bad = [p for p, b in boxes.items()
           if not (Fraction(p, p + 1) in b and b.hi - b.lo <= Fraction(1, 20))]
    return cert(f"{CLAIM} (eq. 26 at r = 1)", "p_plus_gaussian(1, p)", {"r": 1, "p": ps},
                "grid 1/16 on [0, 8]", max(b.hi - b.lo for b in boxes.values()),
                "p/(p+1) inside, width <= 1/20", not bad,
                {"failing_p": bad, "intervals": {p: (b.lo, b.hi) for p, b in boxes.items()}})


def figure5_certificate() -> Certificate:
    ms = (2, 5, 10, 20)
    ns = [pg.n_plus_gaussian(m, 1, 1024, 512, Fraction(1, 10**6)) for m in ms]
    ok = all(a > b for a, b in pairwise(ns)) and 190 <= ns[2] <= 215
    return cert(f"{CLAIM} (Fig. 5, N+ for Gaussian W)", "n_plus_gaussian(m, 1, 1024, 512, 1e-6)",
                {"p": 1024, "k": 512, "delta": Fraction(1, 10**6)}, f"m in {ms}", ns[2],
                "strictly decreasing in m; about 200 at m = 10", ok,
                {"n_plus_by_m": dict(zip(ms, ns, strict=True))})


def eq27_certificate() -> Certificate:
    grid = [(f, k, d) for f in (Fraction(0), Fraction(1, 10), Fraction(1, 3), Fraction(1, 2),
                                 Fraction(3, 4))
            for k in (8, 16, 64, 512) for d in (Fraction(1, 10), Fraction(1, 4),
                                                 Fraction(1, 10**6))]
    bad = []
    for f, k, d in grid:
        bound = n_plus_bound(f, k, d)
        if bound.numerator // bound.denominator != exact_floor(f, k, d):
            bad.append((f, k, d))
    return cert(f"{CLAIM} (eq. 27's floor)", "n_plus_bound(F, k, delta)", {"points": len(grid)},
                "F in {0, 1/10, 1/3, 1/2, 3/4}, k in {8, 16, 64, 512}, delta in {1/10, 1/4, "
                "10^-6}", len(bad), "floor = the exactly decided floor at every point", not bad,
                {"mismatches": bad[:3]})


def check(full: bool) -> ClaimReport:
    certs = [anchor_certificate((1, 2, 3, 4, 5, 6) if full else (1, 2, 3, 4)),
             figure5_certificate(), eq27_certificate()]
    return ClaimReport(CLAIM, "r = 1, p <= 4 (full 6); Fig. 5 setting; eq. 27 on 60 points",
                       f"P+ width {brief(certs[0].worst, 4)}; N+ at m = 10: {certs[1].worst}; "
                       f"{certs[2].worst} eq. 27 mismatches",
                       "p/(p+1) inside; N+ decreasing in m; floor exact", certs)
