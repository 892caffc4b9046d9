"""Li & Li Algorithm 4 (OPORP): the implementation's Fisher-Yates permutation and plan are
exactly uniform, and the mechanism over a random plan is the plan mixture."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product
from math import factorial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.projections.check import explored_law
from exactdp.projections.matrices import OPORPPlan, fisher_yates
from exactdp.projections.signs import DPSignOPORP
from exactdp.proofs.li_li._proj import BASE, cert

CLAIM = "Li & Li Alg 4: Fisher-Yates uniform (1/p!), OPORP plans uniform, mixture law"
STATEMENT = """fisher_yates(p) with uniform(i) draws gives every permutation of 0..p-1 probability exactly
1/p!; OPORPPlan.sample(p, k) gives every (perm, w) probability 1/(p! 2^p); DP-SignOPORP run
on a freshly drawn plan has, for every u, the law sum_plan Pr[plan] law(plan, u)."""
PROOF_IDEA = """All three laws are explored from the implementation (fisher_yates, OPORPPlan.sample, and
DPSignOPORP(OPORPPlan.sample(p, k, source), ...).sample(u, source) in one exploration) and
compared with 1/p!, 1/(p! 2^p) and the mixture of the per-plan explored laws.  p = 1..4
(quick: permutations p <= 4, plans p = 2, 4, mixture at p = 4, k = 2 for one u; full: four)."""


def perm_certificate(p: int) -> Certificate:
    law = explore(lambda src: fisher_yates(p, src))
    want = {perm: Fraction(1, factorial(p)) for perm in permutations(range(p))}
    return cert(f"{CLAIM} (perm, p = {p})", f"fisher_yates({p})", {"p": p},
                f"all {factorial(p)} permutations", max(law.values()),
                f"every permutation = 1/{factorial(p)}", law == want, {"support": len(law)})


def plan_certificate(p: int, k: int) -> Certificate:
    law = explore(lambda src: OPORPPlan.sample(p, k, src))
    n = factorial(p) * 2 ** p
    want = {OPORPPlan(perm, w, k): Fraction(1, n) for perm in permutations(range(p))
            for w in product((-1, 1), repeat=p)}
    return cert(f"{CLAIM} (plan, p = {p}, k = {k})", f"OPORPPlan.sample({p}, {k})",
                {"p": p, "k": k}, f"all {n} plans", max(law.values()), f"every plan = 1/{n}",
                law == want, {"support": len(law)})


def mixture_certificate(u: tuple[int, ...], smooth: bool) -> Certificate:
    p, k, beta = len(u), 2, 1
    l_max = 3 if smooth else 1
    joint = explore(lambda src: DPSignOPORP(OPORPPlan.sample(p, k, src), beta, BASE, l_max,
                                            smooth).sample(u, src))
    mix: dict[tuple[int, ...], Fraction] = {}
    n = factorial(p) * 2 ** p
    for perm in permutations(range(p)):
        for w in product((-1, 1), repeat=p):
            mech = DPSignOPORP(OPORPPlan(perm, w, k), beta, BASE, l_max, smooth)
            for out, pr in explored_law(mech.sample, u).items():
                mix[out] = mix.get(out, Fraction(0)) + pr / n
    return cert(f"{CLAIM} (mixture, u = {u}, smooth = {smooth})",
                "DPSignOPORP on OPORPPlan.sample(4, 2)", {"u": u, "beta": beta},
                f"all {n} plans", max(joint.values()), "joint law = plan mixture",
                joint == dict(sorted(mix.items())), {"law": joint})


def check(full: bool) -> ClaimReport:
    certs = [perm_certificate(p) for p in range(1, 5)]
    certs += [plan_certificate(p, k) for p, k in ((2, 1), (4, 2))]
    us = [(2, -1, 0, 1)] + ([(1, 1, 1, 1), (0, 0, 0, 0), (-2, 2, -1, 1)] if full else [])
    certs += [mixture_certificate(u, s) for u in us for s in (False, True)]
    return ClaimReport(CLAIM, "p = 1..4; plans p = 2 (k 1), 4 (k 2); mixtures at p = 4",
                       "all exact", "1/p!, 1/(p! 2^p), mixture", certs)
