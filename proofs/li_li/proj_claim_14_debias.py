"""Li & Li eq. (29) (§6 claim 14): the randomized-response debiased collision estimator is
exactly unbiased for the collision fraction of the true signs."""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from itertools import product

from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.projections import exact as ex
from exactdp.projections.estimators import collision_fraction, debias_rr_collision
from exactdp.projections.rr import Base, SmoothFlipper
from exactdp.proofs.li_li._proj import cert
from exactdp.randomness import RandomSource

CLAIM = "Li & Li eq. 29: E[P^_RR] = collision fraction of the true signs (exact)"
STATEMENT = """For sign vectors s1, s2 in {-1,1}^k released by randomized response with keep probability
rho/(rho+1) (independent bits), P^_RR = (rho+1)^2/(rho-1)^2 F - 2 rho/(rho-1)^2 (F the
collision fraction of the released bits; eq. 29 without the final pi) has expectation
exactly (1/k) #{j : s1_j = s2_j}."""
PROOF_IDEA = """The released pair is explored from the implementation (SmoothFlipper(rho, 1).sample on each
true sign, unit 1); E[debias_rr_collision(collision_fraction(.,.), base)] over that law must
equal the true fraction, and E[F] must equal exactdp.projections.exact.collision_agreement.
Every pair (s1, s2) for k <= 3 (quick: k <= 2), bases 3/2, 2, 9/7."""

BASES = (Base(3, 2), Base(2, 1), Base(9, 7))


def released_pair(flipper: SmoothFlipper, s1: tuple[int, ...], s2: tuple[int, ...],
                  src: RandomSource) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Both sign vectors through the implementation's randomized response (unit 1)."""
    return (tuple(flipper.sample(v, 1, src) for v in s1),
            tuple(flipper.sample(v, 1, src) for v in s2))


def base_certificate(base: Base, k_max: int) -> Certificate:
    flipper = SmoothFlipper(base, 1)
    bad = []
    checked = 0
    for k in range(1, k_max + 1):
        for s1 in product((-1, 1), repeat=k):
            for s2 in product((-1, 1), repeat=k):
                law = explore(partial(released_pair, flipper, s1, s2))
                mean_f = sum((pr * collision_fraction(a, b) for (a, b), pr in law.items()),
                             Fraction(0))
                mean_p = sum((pr * debias_rr_collision(collision_fraction(a, b), base)
                              for (a, b), pr in law.items()), Fraction(0))
                truth = collision_fraction(s1, s2)
                checked += 1
                if mean_p != truth or mean_f != ex.collision_agreement(s1, s2, base.ratio):
                    bad.append((s1, s2, mean_p, truth))
    return cert(f"{CLAIM} (rho = {base.ratio})", f"SmoothFlipper({base.ratio}, 1) x 2",
                {"rho": base.ratio, "k_max": k_max}, f"{checked} pairs (s1, s2), k <= {k_max}",
                len(bad), "0 biased pairs", not bad, {"biased": bad[:3]})


def check(full: bool) -> ClaimReport:
    k_max = 3 if full else 2
    certs = [base_certificate(b, k_max) for b in BASES]
    return ClaimReport(CLAIM, f"rho in {{3/2, 2, 9/7}}, all sign pairs with k <= {k_max}",
                       "biased pairs: " + ", ".join(str(c.worst) for c in certs),
                       "0 (exactly unbiased)", certs)
