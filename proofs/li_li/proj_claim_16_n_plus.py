"""Proposition 4.5: with probability at least 1 - delta
over W, the number of projections whose sign a neighbour can change is at most N+ (eq. 27),
with F = P+ (eq. 30) and N+ computed by the implementation; checked on the exact law of the
implementation's Rademacher W."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.explore import explore
from exactdp.neighbours import vectors
from exactdp.projections import exact as ex
from exactdp.projections.idp import noise_indicators
from exactdp.projections.matrices import sample_rademacher
from exactdp.projections.nplus import fragile_probability, n_plus
from exactdp.projections.project import project
from exactdp.proofs.li_li._proj import cert

CLAIM = "Li & Li Prop 4.5: Pr_W[#fragile projections > N+] <= delta (N+ of eq. 27, computed)"
STATEMENT = """Proposition 4.5 (with eq. 30 and Lemma 4.4): for beta <= ||u|| and F = P+ = Pr[|w^T u| <=
beta max_i |w_i|], with probability at least 1 - delta over W the set S of projections whose
sign a neighbour can change has |S| <= N+ = min{F k + (log(1/delta) + sqrt(log^2(1/delta) +
8 F k log(1/delta))) / 2, k}.  For ±1 W the fragile set A = {j : |x_j| <= beta} (Algorithm
10) contains S, so the check bounds |A|, the stronger statement."""
PROOF_IDEA = """F = fragile_probability(u, beta) and N+ = n_plus(u, beta, k, delta) are the implementation's
(F by integer counts of sign vectors; N+ the floor of a certified upper end of eq. 27).  (a)
The law of W = sample_rademacher(3, 3) explored from the implementation (512 matrices): at
every u in {-2..2}^3 with u_1 = 2 (full: every u != 0), the law of |A(u)| (noise_indicators on project(u, W)) must
equal Binomial(3, F) with F also equal to the separate closed form p_plus_rademacher, and
Pr[|A| > N+] <= delta for delta in {1/2, 1/5, 1/10}.  (b) The columns being independent (as
(a) confirms), |A| ~ Binomial(k, F) at larger k: Pr[Bin(k, F) > N+] <= delta exactly for u in
{0..2}^p (p = 4; full: p = 5, 6), k in {16, 64} (full: also 256), delta in {1/10, 10^-6}.
The row prints how many points had N+ < k (a non-trivial bound); it must be > 0."""

BETA = 1
DELTAS_A = (Fraction(1, 2), Fraction(1, 5), Fraction(1, 10))
DELTAS_B = (Fraction(1, 10), Fraction(1, 10**6))


def binomial_law(k: int, f: Fraction) -> dict[int, Fraction]:
    return {i: comb(k, i) * f**i * (1 - f) ** (k - i) for i in range(k + 1)}


def tail_above(law: dict[int, Fraction], n: int) -> Fraction:
    return sum((p for i, p in law.items() if i > n), Fraction(0))


@cache
def w_law() -> dict[object, Fraction]:
    return explore(lambda src: sample_rademacher(3, 3, src))


def explored_certificate(full: bool) -> Certificate:
    failures, nontrivial, points = [], 0, 0
    worst = (Fraction(0), None, None)  # (tail / delta, u, delta)
    for u in vectors(3, -2, 2, BETA).points:
        if not any(u) or not (full or u[0] == 2):
            continue
        law: dict[int, Fraction] = {}
        for W, pw in w_law().items():
            n = len(noise_indicators(project(u, W), W, BETA))  # type: ignore[arg-type]
            law[n] = law.get(n, Fraction(0)) + pw
        f = fragile_probability(u, BETA)
        ok = f == ex.p_plus_rademacher(u, BETA) and law == {
            i: p for i, p in binomial_law(3, f).items() if p}
        for delta in DELTAS_A:
            points += 1
            bound = n_plus(u, BETA, 3, delta)
            nontrivial += bound < 3
            tail = tail_above(law, bound)
            ok = ok and tail <= delta
            if tail / delta > worst[0]:
                worst = (tail / delta, u, delta)
        if not ok:
            failures.append(u)
    verdict = not failures and nontrivial > 0
    return cert(f"{CLAIM} (W explored, p = k = 3)", "n_plus(u, 1, 3, delta) against the law of "
                "|A(u)| under sample_rademacher(3, 3)", {"beta": BETA, "deltas": DELTAS_A},
                "u in {-2..2}^3, u != 0" + ("" if full else ", u_1 = 2"), worst[0], "Pr[|A| > N+] / delta <= 1", verdict,
                {"worst_u": worst[1], "worst_delta": worst[2], "points": points,
                 "points_with_n_plus_below_k": nontrivial, "failing_u": failures[:3]},
                note=f"{nontrivial} of {points} points had N+ < k (non-trivial bound)")


def binomial_certificate(full: bool) -> Certificate:
    ps = (4, 5, 6) if full else (4,)
    ks = (16, 64, 256) if full else (16, 64)
    failures, nontrivial, points = [], 0, 0
    worst = (Fraction(0), None)
    for p in ps:
        for u in vectors(p, 0, 2, BETA).points:
            if not any(u):
                continue
            f = fragile_probability(u, BETA)
            for k in ks:
                law = binomial_law(k, f)
                for delta in DELTAS_B:
                    points += 1
                    bound = n_plus(u, BETA, k, delta)
                    nontrivial += bound < k
                    tail = tail_above(law, bound)
                    if tail > delta:
                        failures.append((u, k, delta))
                    if tail / delta > worst[0]:
                        worst = (tail / delta, (u, k, delta))
    verdict = not failures and nontrivial > 0
    return cert(f"{CLAIM} (Binomial(k, F), larger k)", "n_plus(u, 1, k, delta)",
                {"beta": BETA, "k": ks, "deltas": DELTAS_B}, f"u in {{0..2}}^p, p in {ps}",
                worst[0], "Pr[Bin(k, F) > N+] / delta <= 1", verdict,
                {"worst_point": worst[1], "points": points,
                 "points_with_n_plus_below_k": nontrivial, "failing": failures[:3]},
                note=f"{nontrivial} of {points} points had N+ < k (non-trivial bound)")


def check(full: bool) -> ClaimReport:
    certs = [explored_certificate(full), binomial_certificate(full)]
    return ClaimReport(CLAIM, "beta = 1; W explored at p = k = 3; Binomial(k, F) at k <= "
                       f"{256 if full else 64}",
                       f"worst tail/delta {brief(certs[0].worst)} (explored), "
                       f"{brief(certs[1].worst)} (binomial); {certs[0].note}; {certs[1].note}",
                       "<= 1", certs)
