"""Li & Li Theorem 4.8: DP-SignOPORP-RR and -smooth (Algorithm 8) are pure DP for every
fixed OPORP plan under one-coordinate neighbours."""

from __future__ import annotations

from itertools import permutations, product

from exactdp.certificate import Certificate, ClaimReport
from exactdp.neighbours import vectors
from exactdp.projections import exact as ex
from exactdp.projections.matrices import OPORPPlan
from exactdp.projections.signs import DPSignOPORP, DPSignOPORPRepeated
from exactdp.proofs.li_li._proj import (
    BASE,
    NOTES_PLAN,
    RHO,
    by_projection,
    cert,
    laws_of,
    mismatches,
    report,
    worst_text,
)

CLAIM = "Li & Li Thm 4.8: SignOPORP (Alg 8) pure rho per fixed plan"
STATEMENT = """Algorithm 8 with a rational base rho (keep rho^L/(rho^L+1), a coin for x_j = 0) has worst
ratio <= rho for every fixed plan (Pi, w) under one-coordinate beta-neighbours; the ratio is
rho iff a bin can cross sign (beta >= 2 on the integer grid); at beta = 1 the RR variant's
worst is (rho+1)/2 and the smooth variant's is (rho^{L*+1}+1)/(rho^{L*}+1) for the largest
reachable transition L* -> L*+1 (at rho = 3/2, C = 2: 5/4 and 97/70)."""
PROOF_IDEA = """Only the bin holding the changed coordinate moves, by at most beta, so |L - L'| <= 1 and the
per-bit ratio is at most rho (Thm 4.8 with e^eps -> rho).  Check: the implementation's
DPSignOPORP explored at every point of {-C..C}^4, the law equal to the closed form
(exactdp.projections.exact), the checker's worst ratio over every ordered one-coordinate pair
equal to the expected value computed from the closed-form factors: max((rho+1)/2,
f_{Lm-1}/f_{Lm}) at beta = 1 (Lm = the largest reachable level, C * p/k / beta) and rho at
beta = 2.  Quick: the reference plan, C = 2, and 8 more plans of p = 4, k = 2 (every 48th of
the 384, from the 6th) at C = 1.  Full: every plan of p = 4, k = 2 (4! 2^4 = 384) at C = 1.  The repeated form (t = 2 runs of one bin, basic composition) is explored too:
worst <= rho^2 and equal to the max over pairs of the product of both runs' bit factors."""

L_MAX = 4


def expected(beta: int, smooth: bool, top: int) -> object:
    """The worst ratio from the closed forms: rho if a sign can cross (beta >= 2);
    otherwise the through-zero factor (rho+1)/2 and, smooth, the largest level step."""
    if beta >= 2:
        return RHO
    through_zero = (RHO + 1) / 2
    if not smooth:
        return through_zero
    lm = min(-(-top // beta), L_MAX)
    return max(through_zero, ex.flip_probability(RHO, lm - 1) / ex.flip_probability(RHO, lm))


def plan_certificate(plan: OPORPPlan, c: int, beta: int, smooth: bool) -> Certificate:
    mech = DPSignOPORP(plan, beta, BASE, L_MAX if smooth else 1, smooth)
    rel = vectors(plan.p, -c, c, beta)
    laws = laws_of(mech, rel.points)

    def closed(x: tuple[int, ...]) -> ex.Law:
        if smooth:
            return ex.sign_smooth_law(x, [beta] * plan.k, RHO, L_MAX)
        return ex.sign_rr_law(x, RHO)

    bad = mismatches(laws, by_projection(
        lambda u: ex.oporp_projections(u, plan.perm, plan.w, plan.k), closed))
    rep = report(laws, rel)
    want = expected(beta, smooth, c * plan.bin_size)
    ok = not bad and rep.worst.ratio == want and rep.pure(RHO)
    name = "smooth" if smooth else "RR"
    return cert(f"{CLAIM} ({name}, beta = {beta})",
                f"DPSignOPORP(perm={plan.perm}, w={plan.w}, k={plan.k}, rho=3/2, "
                f"L_max={mech.l_max}, smooth={smooth})",
                {"rho": RHO, "beta": beta, "C": c, "expected": want},
                f"{rep.pairs} ordered pairs of {rel.name}", worst_text(rep),
                f"= {want} <= rho = 3/2; explored law = closed form at all {len(laws)} points",
                ok, {"ratio_witness": rep.worst.to_json(), "law_mismatches": bad[:3]})


#: Two runs of one bin each (end of §4.4, t = 2): plans for p = 4.
REPEATED_PLANS = (OPORPPlan((2, 0, 3, 1), (1, -1, -1, 1), 1),
                  OPORPPlan((1, 3, 0, 2), (-1, 1, 1, 1), 1))


def repeated_certificate(beta: int, smooth: bool) -> Certificate:
    """Algorithm 8 repeated t = 2 times (basic composition): worst ratio <= rho^2, equal to
    the max over pairs of the product of the closed-form bit factors of both runs."""
    l_max = L_MAX if smooth else 1
    mech = DPSignOPORPRepeated(tuple(DPSignOPORP(pl, beta, BASE, l_max, smooth)
                                     for pl in REPEATED_PLANS))
    rel = vectors(4, -1, 1, beta)
    laws = laws_of(mech, rel.points)

    def x(u: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(v for pl in REPEATED_PLANS
                     for v in ex.oporp_projections(u, pl.perm, pl.w, pl.k))

    bad = mismatches(laws, by_projection(
        x, lambda xu: ex.sign_smooth_law(xu, [beta] * 2, RHO, l_max)))
    xs = {u: x(u) for u in rel.points}
    want = max(ex.smooth_pair_ratio(xa, xb, [beta] * 2, RHO, l_max)
               for xa, xb in {(xs[a], xs[b]) for a, b in rel.ordered_pairs()})
    rep = report(laws, rel)
    ok = not bad and rep.worst.ratio == want and rep.pure(RHO ** 2)
    return cert(f"{CLAIM} (repeated t = 2, {'smooth' if smooth else 'RR'}, beta = {beta})",
                f"DPSignOPORPRepeated(2 plans of k = 1, rho=3/2, L_max={l_max})",
                {"rho": RHO, "beta": beta, "t": 2, "expected": want},
                f"{rep.pairs} ordered pairs of {rel.name}", worst_text(rep),
                f"= closed-form {want} <= rho^2 = 9/4", ok,
                {"ratio_witness": rep.worst.to_json(), "law_mismatches": bad[:3]})


def all_plans(p: int, k: int) -> list[OPORPPlan]:
    return [OPORPPlan(perm, w, k) for perm in permutations(range(p))
            for w in product((-1, 1), repeat=p)]


def check(full: bool) -> ClaimReport:
    certs = [plan_certificate(NOTES_PLAN, 2, beta, smooth)
             for beta in (1, 2) for smooth in (False, True)]
    certs += [repeated_certificate(2, smooth) for smooth in (False, True)]
    grid = ("reference plan (perm 2,0,3,1; w 1,-1,-1,1), C = 2, beta 1, 2, RR and smooth; "
            "repeated t = 2 at C = 1, beta = 2")
    plans = all_plans(4, 2) if full else all_plans(4, 2)[5::48]
    if plans:
        for beta in (1, 2):
            for smooth in (False, True):
                sub = [plan_certificate(pl, 1, beta, smooth) for pl in plans]
                bad = [c for c in sub if not c.verdict]
                certs.append(bad[0] if bad else sub[0])
        grid += (f"; all {len(plans)} plans of p = 4, k = 2 at C = 1" if full else
                 f"; {len(plans)} more plans of p = 4, k = 2 at C = 1")
    worst = ", ".join(str(c.worst) for c in certs[:4])
    rep = ", ".join(str(c.worst) for c in certs[4:6])
    return ClaimReport(CLAIM, grid, f"worst ratios beta 1 (RR, smooth), beta 2 (RR, smooth): "
                       f"{worst}; repeated t = 2 (RR, smooth): {rep}",
                       "5/4, 97/70, 3/2, 3/2 (all <= rho = 3/2); repeated <= rho^2", certs)
