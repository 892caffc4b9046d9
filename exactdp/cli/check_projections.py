"""``exactdp check sign-oporp``: the exact privacy of DP-SignOPORP (Li & Li, paper 001,
Algorithm 8, Theorem 4.8) on a small domain, read off the implementation.

Every input of the box ``{-C..C}^p`` is run through :class:`~exactdp.projections.signs.
DPSignOPORP`'s own sampling code under the exploring source; over every ordered neighbouring
pair (one-coordinate or l1, :mod:`exactdp.neighbours`) and every OPORP plan asked for (the
plan is public, so the ratio must hold for each), the exact worst ratio
``Pr[s | u] / Pr[s | u']`` with its witness (plan, pair, output) is compared with ``e^eps``
through certified rational bounds (:func:`exactdp.checker.certify_ratio`).

Coverage: the box is a window on the mechanism's domain ``Z^p``, so a pass on it says
nothing unless the window reaches the pairs where the ratio is largest.  A bin's sign law
depends only on its projection's level ``min(ceil(|x|/beta), L_max)`` and sign, and a pair
with both projections at level ``L_max`` and of one sign has ratio 1; so every other pair of
projections lies in ``[-L_max beta, L_max beta]``, which the box reaches when ``C`` is at
least :func:`covering_bound` (and one coordinate can move by ``beta``).  The default
``--bound`` is that value; a smaller one that passes is reported "not covered" (exit status
2), never pass.
"""

from __future__ import annotations

import argparse
import functools
from fractions import Fraction
from itertools import permutations, product
from math import factorial
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    add_json,
    add_max_seconds,
    clip_value,
    emit_json,
    epsilon_in_range,
    max_seconds,
    per_call_ns,
    refuse_if_slow,
)
from exactdp.params import ParameterError, ResourceLimitError

__all__ = ["MAX_SIGN_OPORP_WORK", "add_check_sign_oporp", "cmd_check_sign_oporp",
           "covering_bound"]

#: Refuse a domain whose exploration would take more than this many runs of the sampler.
MAX_SIGN_OPORP_WORK = 4_000_000


def add_check_sign_oporp(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = targets.add_parser(
        "sign-oporp", help="privacy certificate of DP-SignOPORP on a small domain",
        epilog=EPILOG,
        description="DP-SignOPORP-RR and -smooth (Li & Li, Algorithm 8, Theorem 4.8) with a "
                    "rational base rho <= e^eps (keep probability rho^L/(rho^L+1), a fair coin "
                    "for a zero projection): every input of {-C..C}^p is run through the "
                    "implementation's sampling code under the exploring random source, and "
                    "the exact worst ratio Pr[s | u]/Pr[s | u'] over every ordered "
                    "neighbouring pair and every OPORP plan (--perm/--signs for one plan, "
                    "otherwise all p! 2^p plans: the plan is public, so the ratio must hold "
                    "for each) is printed as an exact fraction with its witness and compared "
                    "with e^eps through certified rational bounds. Neighbours: "
                    "one-coordinate (Definition 2.3: one coordinate moves by at most beta; "
                    "the paper's relation) or l1 (||u - u'||_1 <= beta; not "
                    "covered by Theorem 4.8). Exit status 0 if the ratio is at most e^eps, 1 "
                    "if it exceeds it (a violation), 2 for bad arguments or a domain too "
                    "large to enumerate.")
    p.add_argument("--epsilon", required=True,
                   help="the privacy parameter eps > 0 of Theorem 4.8 (an exact rational, "
                        "e.g. '1/2')")
    p.add_argument("--rho", help="the base rho = a/b > 1 (default: the largest a/b with "
                                 "b <= 64 and a/b <= e^eps, certified); a base above e^eps "
                                 "is checked as given, and refuted where the ratio shows it")
    p.add_argument("--p", required=True, help="the dimension p (a small positive integer)")
    p.add_argument("--k", required=True, help="the number of bins k (k must divide p)")
    p.add_argument("--bound",
                   help="C: inputs range over the integer box {-C..C}^p (default: the "
                        "smallest C whose projections reach level L_max, where the ratio "
                        "peaks: C = max(ceil(L_max beta k/p), ceil(beta/2)); a smaller C "
                        "that passes is reported 'not covered', exit status 2)")
    p.add_argument("--beta", default="1",
                   help="the neighbours' sensitivity in grid steps (default 1)")
    p.add_argument("--variant", choices=("smooth", "rr"), default="smooth",
                   help="smooth (default): L = min(ceil(|x|/beta), L_max); rr: L = 1")
    p.add_argument("--l-max", default="4",
                   help="the public level cap L_max of the smooth variant (default 4)")
    p.add_argument("--neighbours", choices=("one-coordinate", "l1"), default="one-coordinate",
                   help="the neighbour relation (default one-coordinate)")
    p.add_argument("--perm", help="one plan's permutation of 0..p-1, e.g. '2,0,3,1' (with "
                                  "--signs); default: every plan")
    p.add_argument("--signs", help="one plan's ±1 vector, e.g. '1,-1,-1,1' (with --perm)")
    add_json(p)
    add_max_seconds(p)
    p.set_defaults(func=cmd_check_sign_oporp)


def covering_bound(p: int, k: int, beta: int, l_max: int, neighbours: str) -> int:
    """The smallest box bound ``C`` whose box ``{-C..C}^p`` holds every pair of inputs at
    which DP-SignOPORP's ratio can be largest (bins of ``m = p/k`` coordinates).

    Every pair whose ratio exceeds 1 has both bin projections in ``[-L_max beta,
    L_max beta]`` (beyond, both sit at level ``L_max`` with one sign and one law), and the box
    realises each such projection pair when ``m C >= L_max beta`` and, one-coordinate, when
    one coordinate can move by ``beta`` (``2 C >= beta``); l1 spreads a move over the bin."""
    m = p // k
    reach = -(-l_max * beta // m)
    return max(reach, -(-beta // 2)) if neighbours == "one-coordinate" else reach


def _int_list(text: str, name: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in text.split(","))
    except ValueError:
        raise ParameterError(f"{name} = {text!r:.60} must be comma-separated integers, e.g. "
                             f"'2,0,3,1'") from None


def _setup(args: argparse.Namespace) -> dict[str, Any]:
    from exactdp.params import positive_fraction, positive_int, to_fraction
    from exactdp.projections.matrices import OPORPPlan
    from exactdp.projections.rr import Base, base_from_eps

    eps = positive_fraction(args.epsilon, "--epsilon")
    epsilon_in_range(eps)
    p, k = positive_int(args.p, "--p"), positive_int(args.k, "--k")
    if p % k:
        raise ParameterError(f"--k = {k} must divide --p = {p} (fixed-length bins)")
    beta = positive_int(args.beta, "--beta")
    smooth = args.variant == "smooth"
    l_max = positive_int(args.l_max, "--l-max") if smooth else 1
    needed = covering_bound(p, k, beta, l_max, args.neighbours)
    if args.bound is None:
        bound = Fraction(needed)
    else:
        bound = to_fraction(args.bound, "--bound")
        if bound.denominator != 1 or bound < 0:
            raise ParameterError(f"--bound = {bound} must be an integer >= 0")
    if k > 64 or (p > 64 and not (bound == 0 and args.perm is not None)):
        # 2^k sign patterns, and p! 2^p plans or (2C + 1)^p inputs, all far past the limit:
        # refused before those numbers are computed
        raise ResourceLimitError(
            f"--p = {clip_value(p)}, --k = {clip_value(k)}: the exhaustive check needs more "
            f"than {MAX_SIGN_OPORP_WORK} sampler runs (2^k sign patterns times (2C + 1)^p "
            f"inputs); use --p and --k of at most a few each")
    base = base_from_eps(eps) if args.rho is None else Base.of(args.rho)
    if (args.perm is None) != (args.signs is None):
        raise ParameterError("--perm and --signs go together (one plan); omit both for "
                             "every plan")
    if args.perm is not None:
        plans = [OPORPPlan(_int_list(args.perm, "--perm"), _int_list(args.signs, "--signs"),
                           k)]
        if plans[0].p != p:
            raise ParameterError(f"--perm has {plans[0].p} entries; --p = {p}")
    else:
        work = factorial(p) * 2 ** p * (2 * int(bound) + 1) ** p * 2 ** k
        if work > MAX_SIGN_OPORP_WORK:
            raise ResourceLimitError(
                f"every plan of p = {p} ({factorial(p) * 2 ** p} plans) over {{-{bound}.."
                f"{bound}}}^{p} needs about {work} sampler runs (limit "
                f"{MAX_SIGN_OPORP_WORK}); give one plan with --perm/--signs, or a smaller "
                f"--p, --l-max or --beta")
        plans = [OPORPPlan(perm, w, k) for perm in permutations(range(p))
                 for w in product((-1, 1), repeat=p)]
    work = len(plans) * (2 * int(bound) + 1) ** p * 2 ** k
    if work > MAX_SIGN_OPORP_WORK:
        raise ResourceLimitError(f"{{-{bound}..{bound}}}^{p} with k = {k} needs about {work} "
                                 f"sampler runs (limit {MAX_SIGN_OPORP_WORK}); use a smaller "
                                 f"--p, --l-max or --beta")
    return {"eps": eps, "p": p, "k": k, "bound": int(bound), "beta": beta, "smooth": smooth,
            "l_max": l_max, "base": base, "plans": plans, "needed": needed}


def _refuse_if_slow(args: argparse.Namespace, s: dict[str, Any], rel: Any,
                    explored_law: Any) -> None:
    """Refuse, before any law is computed, a check estimated past ``--max-seconds``: one law
    per plan and input, each timed here at the box's centre and corner (the slower of the
    two), and the pairs' comparisons at a generous constant."""
    from exactdp.projections.signs import DPSignOPORP

    mech = DPSignOPORP(s["plans"][0], s["beta"], s["base"], s["l_max"], s["smooth"])
    points = rel.points
    per_law = max(per_call_ns(functools.partial(explored_law, mech.sample, u), 3)
                  for u in (points[len(points) // 2], points[-1]))
    pairs = len(points) * len(rel.neighbours(points[len(points) // 2]))  # the most
    ns = len(s["plans"]) * (len(points) * per_law + pairs * PAIR_NS)
    refuse_if_slow(f"the laws of {len(s['plans'])} plan(s) on {len(points)} inputs", ns,
                   max_seconds(args), "give one plan with --perm/--signs, or a smaller --p, "
                   "--bound or --l-max")


#: Nanoseconds per ordered pair and plan of comparing two laws (measured: about 3000).
PAIR_NS = 4_000


def cmd_check_sign_oporp(args: argparse.Namespace) -> int:
    """The box ``{-C..C}^p`` covers the pairs where the ratio can exceed 1 when ``C`` is at
    least :func:`covering_bound` (the default); a smaller box that finds no violation is
    "not covered", never pass."""
    from exactdp.certificate import Certificate, brief
    from exactdp.checker import certify_ratio
    from exactdp.cli.check_coverage import Coverage, non_vacuous, outcome
    from exactdp.neighbours import vectors
    from exactdp.projections.check import check_dp, explored_law
    from exactdp.projections.signs import DPSignOPORP

    s = _setup(args)
    rel = vectors(s["p"], -s["bound"], s["bound"], s["beta"], args.neighbours)
    _refuse_if_slow(args, s, rel, explored_law)
    worst: Any = None
    worst_plan: Any = None
    differ = total = 0
    for plan in s["plans"]:
        mech = DPSignOPORP(plan, s["beta"], s["base"], s["l_max"], s["smooth"])
        laws = {u: explored_law(mech.sample, u) for u in rel.points}
        rep = check_dp(laws.__getitem__, rel)
        differ += non_vacuous(rel.ordered_pairs(), laws)
        total += rep.pairs
        if worst is None or rep.worst.ratio is None or (
                worst.worst.ratio is not None and rep.worst.ratio > worst.worst.ratio):
            worst, worst_plan = rep, plan
        if worst.worst.infinite:
            break
    ok, bound = certify_ratio(worst.worst, s["eps"])
    m, needed = s["p"] // s["k"], s["needed"]
    coverage = Coverage(
        s["bound"] >= needed,
        f"bin projections reach {m} x {s['bound']} = {m * s['bound']}; the ratio can exceed "
        f"1 only for projections within L_max beta = {s['l_max'] * s['beta']}"
        + (f" and moves of one coordinate by up to beta = {s['beta']}"
           if args.neighbours == "one-coordinate" else "")
        + f", which needs C >= {needed}",
        differ, total, f"raise --bound to {needed} (or omit it)")
    word, status = outcome(ok, coverage, None if worst.worst.ratio is None
                           else brief(worst.worst.ratio))
    rho = s["base"].ratio
    params = {"epsilon": s["eps"], "rho": rho, "p": s["p"], "k": s["k"], "C": s["bound"],
              "beta": s["beta"], "variant": args.variant, "L_max": s["l_max"],
              "neighbours": args.neighbours, "plans": len(s["plans"])}
    witness = {"ratio_witness": worst.worst.to_json(),
               "plan": {"perm": list(worst_plan.perm), "signs": list(worst_plan.w)}}
    domain = f"{worst.pairs} ordered pairs of {rel.name} x {len(s['plans'])} plan(s)"
    cert = Certificate("Li & Li Theorem 4.8: DP-SignOPORP is eps-DP",
                       f"DPSignOPORP(beta={s['beta']}, rho={rho}, L_max={s['l_max']}, "
                       f"smooth={s['smooth']})", params, domain,
                       "infinity" if worst.worst.ratio is None else worst.worst.ratio,
                       bound, ok and coverage.covered, witness)
    doc = {**cert.to_json(), "verdict": word, "coverage": coverage.to_json()}
    if not emit_json(args, doc, None):
        w = worst.worst
        print(f"{cert.claim} ({args.variant}, {args.neighbours} neighbours)\n  parameters: "
              f"eps = {s['eps']}, rho = {rho}, p = {s['p']}, k = {s['k']}, beta = "
              f"{s['beta']}, L_max = {s['l_max']}\n  domain: {domain}")
        print(f"  worst ratio: {cert.worst}\n    attained at u = {w.numerator_input}, "
              f"u' = {w.denominator_input}, plan perm {list(worst_plan.perm)} signs "
              f"{list(worst_plan.w)},\n    output {w.outcome}: Pr = {brief(w.p)} / "
              f"{brief(w.q)}")
        print(coverage.lines())
        print(f"  bound: {bound}\n  verdict: {word}  (exact values: "
              f"--json; decimals shown are truncated, not rounded)")
    return status
