"""iDP-SignOPORP-RR (Section 6: Algorithm 11 with the OPORP of u in place of W^T u) is
eps-iDP at the reference vector with its parameters frozen there (Theorem 6.2's argument);
recomputed at the neighbour it is not.  Checked on the implementation's release."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.certificate import ClaimReport
from exactdp.neighbours import vector_neighbours, vectors
from exactdp.projections import exact as ex
from exactdp.projections.check import check_idp, explored_law
from exactdp.projections.idp_oporp import IDPSignOPORPRR
from exactdp.projections.matrices import OPORPPlan
from exactdp.proofs.li_li._proj import BASE, NOTES_PLAN, RHO, cert, worst_text

CLAIM = "Li & Li Sec 6 iDP-SignOPORP-RR (Alg 11 on OPORP): eps-iDP frozen at u; recomputed infinite"
STATEMENT = """Section 6: replacing W^T u by the OPORP of u in Algorithm 11 gives iDP-SignOPORP, eps-iDP
at u by Theorem 6.2's argument: a one-coordinate change by at most beta moves one bin by at
most beta, so only the bins in A = {j : |x_j| <= beta} can change sign, and those are
released by randomized response with rho_|A|^|A| <= e^eps.  With e^eps = R = 3/2: frozen at
the reference (A and rho_|A| computed at u, then run on u and each neighbour), both
directions have ratio at most rho_|A|^|A| <= 3/2 and the explored laws equal the closed form;
recomputed at the neighbour (the pseudocode read literally), some reference of the grid has
an infinite ratio.  (Section 6's remark that iDP-SignOPORP perturbs more projections than
iDP-SignRP is about high-dimensional data and is not decided here: on the exactly explorable
p <= 6 the expected |A| goes both ways, through the parity of the lattice sums.)"""
PROOF_IDEA = """IDPSignOPORPRR.calibrate(u, plan, 1, 3/2) explored (exactdp.projections.check.check_idp) on u
and on each one-coordinate neighbour in the box {-2..2}^4; the closed form is
exactdp.projections.exact.sign_idp_law on exact.oporp_projections with the frozen A.  Quick
grid: the reference plan (perm (2, 0, 3, 1), signs (1, -1, -1, 1), p = 4, k = 2), every u in
{-1..1}^4; full: also three more plans, every u in {-2..2}^4.  Recomputed: check_idp with
frozen=False at each reference; the row counts the references with an infinite ratio."""

C, BETA = 2, 1
TOTAL = BASE
PLANS = (NOTES_PLAN, OPORPPlan((0, 1, 2, 3), (1, 1, 1, 1), 2),
         OPORPPlan((3, 1, 0, 2), (-1, 1, 1, -1), 2), OPORPPlan((1, 3, 2, 0), (1, 1, -1, 1), 4))


def reference_result(plan: OPORPPlan, u: tuple[int, ...]) -> dict[str, Any]:
    memo: dict[tuple[int, ...], IDPSignOPORPRR] = {}

    def mech_at(v: tuple[int, ...]) -> IDPSignOPORPRR:
        if v not in memo:
            memo[v] = IDPSignOPORPRR.calibrate(v, plan, BETA, TOTAL)
        return memo[v]

    def factory(ref: tuple[int, ...]):  # type: ignore[no-untyped-def]
        mech = mech_at(ref)
        return lambda v: explored_law(mech.sample, v)

    nbrs = vector_neighbours(u, -C, C, BETA)
    mech = mech_at(u)
    frozen = check_idp(factory, u, nbrs, TOTAL.ratio)
    rho = mech.base.ratio if mech.base else RHO
    closed_ok = all(explored_law(mech.sample, v) == ex.sign_idp_law(
        ex.oporp_projections(v, plan.perm, plan.w, plan.k), mech.active, rho)
        for v in (u, *nbrs))
    recomputed = check_idp(factory, u, nbrs, TOTAL.ratio, frozen=False)
    bound = mech.privacy_ratio
    return {"u": u, "plan": plan, "A": sorted(mech.active), "frozen": frozen,
            "ok": closed_ok and frozen.pure(bound) and bound <= TOTAL.ratio,
            "closed_ok": closed_ok, "infinite": recomputed.worst.infinite,
            "recomputed": recomputed}


def check(full: bool) -> ClaimReport:
    plans = PLANS if full else PLANS[:1]
    box = C if full else 1
    results = [reference_result(plan, u) for plan in plans
               for u in vectors(4, -box, box, BETA).points]
    failing = [r for r in results if not r["ok"]]
    finite = [r["frozen"].worst.ratio for r in results if r["frozen"].worst.ratio is not None]
    worst = max(finite) if finite else Fraction(0)
    noisy = sum(1 for r in results if r["A"])
    infinite = [r for r in results if r["infinite"]]
    refs = f"{len(results)} references ({noisy} with A non-empty)"
    certs = [
        cert(CLAIM + " (frozen at every reference)", "IDPSignOPORPRR.calibrate(u, plan, 1, 3/2)",
             {"R": TOTAL.ratio, "beta": BETA, "plans": len(plans)},
             refs + ", one-coordinate neighbours, both directions", worst,
             "<= rho_|A|^|A| <= 3/2; laws = closed form", not failing and noisy > 0,
             {"failing": [(r["u"], r["A"], r["closed_ok"]) for r in failing][:3]}),
        cert(CLAIM + " (recomputed at the neighbour)",
             "IDPSignOPORPRR.calibrate(v, plan, 1, 3/2) run on v", {"R": TOTAL.ratio},
             refs, worst_text(infinite[0]["recomputed"]) if infinite else "finite",
             "infinite at some reference (the recomputed reading is not iDP)",
             bool(infinite),
             {"references_with_infinite_ratio": len(infinite),
              "first": (infinite[0]["u"], infinite[0]["A"]) if infinite else None}),
    ]
    return ClaimReport(CLAIM, f"p = 4, {len(plans)} plan(s), u in {{-{box}..{box}}}^4, beta = 1, "
                       f"R = 3/2; {refs}",
                       f"frozen worst {worst}; recomputed infinite at {len(infinite)} of "
                       f"{len(results)} references",
                       "frozen <= 3/2; recomputed infinite (refuted)", certs)
