"""Algorithm 10 (which projections iDP-SignRP randomizes) assumes Rademacher W: its test
|x_j| <= beta (unscaled; beta/sqrt(k) scaled) uses max_i |W_ij| = 1.  For any other integer
W the test must be |x_j| <= beta * max_i |W_ij|; with the printed test, Algorithm 11 frozen at
u releases a sign deterministically that a neighbour flips: an infinite ratio."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.neighbours import vector_neighbours, vectors
from exactdp.projections.check import PrivacyReport, check_idp, explored_law
from exactdp.projections.exact import projections
from exactdp.projections.idp import IDPSignRPRR, dyadic_root_base
from exactdp.proofs.li_li._proj import BASE, cert

CLAIM = "Li & Li Alg 10 test |x_j| <= beta assumes +-1 entries; W with a 2 -> infinite ratio"
SLIP = ('Algorithm 10 tests |x_j| <= beta/sqrt(k), which assumes Rademacher entries; for another '
        'W the test needs beta * max_i |W_ij|, else iDP-SignRP fails.')
STATEMENT = """Algorithm 10 puts j in A (randomized) iff |x_j| <= beta/sqrt(k), x = W^T u/sqrt(k): in integers,
|w_j^T u| <= beta, right when every |W_ij| = 1 (a neighbour moves x_j by at most beta).  For
W = ((2,1),(1,-1),(-1,1)) (column 0 has a 2), beta = 1, R = 3/2, u in {-2..2}^3: the printed
test frozen at some u leaves out a projection that a neighbour moves by 2 across 0, so an
output impossible under u is possible under u' (infinite ratio); the test with
beta * max_i |W_ij| (exactdp.projections.idp.noise_indicators) is <= 3/2 at every u."""
PROOF_IDEA = """Both mechanisms are the implementation's IDPSignRPRR: calibrated by noise_indicators (the
fix) or built with the printed set A = {j : |x_j| <= beta} and the same base rho_|A|
(dyadic_root_base).  At every reference of {-2..2}^3, each is explored on u and on its
one-coordinate neighbours and checked in both directions (check_idp, frozen).  The printed
test must fail (an infinite ratio) at some reference; the fix must pass at all."""

W = ((2, 1), (1, -1), (-1, 1))
C, BETA = 2, 1


def printed(u: tuple[int, ...]) -> IDPSignRPRR:
    """Algorithm 10 as printed (unit beta, i.e. max_i |W_ij| taken as 1), frozen at u."""
    active = frozenset(j for j, xj in enumerate(projections(u, W)) if abs(xj) <= BETA)
    base = dyadic_root_base(BASE, len(active)) if active else None
    return IDPSignRPRR(W, BETA, active, base, BASE)


def fixed(u: tuple[int, ...]) -> IDPSignRPRR:
    return IDPSignRPRR.calibrate(u, W, BETA, BASE)


def frozen(build, u: tuple[int, ...]) -> tuple[PrivacyReport, Fraction]:  # type: ignore[no-untyped-def]
    mech = build(u)

    def calib(ref: tuple[int, ...]):  # type: ignore[no-untyped-def]
        m = mech if ref == u else build(ref)
        return lambda v: explored_law(m.sample, v)

    return check_idp(calib, u, vector_neighbours(u, -C, C, BETA), BASE.ratio), mech.privacy_ratio


def variant(build, label: str, paper: bool) -> Certificate:  # type: ignore[no-untyped-def]
    worst: tuple[Fraction, tuple[int, ...]] | None = None
    infinite: list[tuple[int, ...]] = []
    over: list[tuple[int, ...]] = []
    for u in vectors(3, -C, C, BETA).points:
        rep, bound = frozen(build, u)
        if rep.worst.ratio is None:
            infinite.append(u)
            continue
        if not (rep.pure(bound) and bound <= BASE.ratio):
            over.append(u)
        if worst is None or rep.worst.ratio > worst[0]:
            worst = (rep.worst.ratio, u)
    shown: Fraction | str
    if paper:
        ok, shown = bool(infinite), "infinity" if infinite else (worst[0] if worst else "none")
        text = "infinite at some reference: the printed test FAILS"
    else:
        ok, shown = not infinite and not over, worst[0] if worst else "none"
        text = "<= rho_|A|^|A| <= 3/2 at every reference"
    return cert(f"{CLAIM} ({label})", f"IDPSignRPRR frozen at u, W={W}, beta=1, R=3/2 ({label})",
                {"R": BASE.ratio, "beta": BETA, "C": C},
                "every u in {-2..2}^3 with its one-coordinate neighbours, both directions",
                shown, text, ok,
                {"infinite_at": infinite[:3], "infinite_count": len(infinite),
                 "over_bound_at": over[:3], "worst_finite": worst[0] if worst else None})


def check(full: bool) -> ClaimReport:
    certs = [variant(printed, "printed test |x_j| <= beta", True),
             variant(fixed, "test |x_j| <= beta max_i |W_ij|", False)]
    return ClaimReport(CLAIM, "W 3x2 with a 2, u in {-2..2}^3, beta = 1, R = 3/2",
                       f"printed {certs[0].worst} ({certs[0].witness['infinite_count']} "
                       f"references); fixed {certs[1].worst}",
                       "printed infinite (refuted); fixed <= 3/2", certs)
