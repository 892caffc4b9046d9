"""iDP-SignRP-RR (Algorithm 11, Theorem 6.2) is eps-iDP only
with its parameters (the set A, eps' = eps/N+) computed at the reference vector and FROZEN;
recomputed at the neighbour, as the pseudocode reads, the privacy ratio is infinite."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from exactdp.certificate import Certificate, ClaimReport
from exactdp.neighbours import vector_neighbours, vectors
from exactdp.projections import exact as ex
from exactdp.projections.check import PrivacyReport, check_idp, explored_law
from exactdp.projections.idp import IDPSignRPRR
from exactdp.proofs.li_li._proj import BASE, RHO, cert, worst_text

CLAIM = "P3: iDP-SignRP-RR (Alg 11) private only frozen at u; recomputed -> infinite"
SLIP = ('iDP-SignRP-RR (Algorithm 11, Theorem 6.2) is eps-iDP only with its parameters frozen at '
        'the reference input; recomputed at the neighbour, some outputs become impossible.')
STATEMENT = """Theorem 6.2: Algorithm 11 is eps-iDP at u.  Its proof applies u's set A and eps' to u'.
Frozen (parameters computed at u, then run on u and on each neighbour u'): both directions
have ratio <= rho_{|A|}^{|A|} <= R = 3/2.  Recomputed at u' (the pseudocode run on u' as
written): the reference W (3 x 3, C = 2, beta = 1) has u = (-2,-2,-2) with A = {} (all signs
deterministic) and u' = (-1,-2,-2) with A' = {0, 2}: an output impossible under u has
positive probability under u', an infinite ratio."""
PROOF_IDEA = """From the implementation: IDPSignRPRR.calibrate(u_ref, W, 1, 3/2) explored on u_ref and on each
of its one-coordinate neighbours (exactdp.projections.check.check_idp, both directions);
the laws equal exactdp.projections.exact.sign_idp_law (closed form with the frozen A).
Every reference of {-2..2}^3 (quick and full) must pass frozen with worst ratio <=
privacy_ratio <= 3/2 (with beta = 1 a sign only moves through 0: the worst found is 5/4,
below the bound); check_idp(frozen=False) at the reference u must report an infinite ratio,
also on the reference pair alone (u' = (-1,-2,-2), A' = {0, 2})."""

W = ((1, 1, 1), (1, 1, 1), (-1, 1, -1))
TOTAL = BASE
U_REF = (-2, -2, -2)
U_NOTES = (-1, -2, -2)
C, BETA = 2, 1


@cache
def calibrated(u: tuple[int, ...]) -> IDPSignRPRR:
    return IDPSignRPRR.calibrate(u, W, BETA, TOTAL)


def law_factory(u: tuple[int, ...]):  # type: ignore[no-untyped-def]
    mech = calibrated(u)
    return lambda v: explored_law(mech.sample, v)


def frozen_report(u: tuple[int, ...]) -> tuple[PrivacyReport, bool]:
    nbrs = vector_neighbours(u, -C, C, BETA)
    mech = calibrated(u)
    explored: dict[tuple[int, ...], dict[object, Fraction]] = {}

    def law_at_u(v: tuple[int, ...]) -> dict[object, Fraction]:
        """The law of the mechanism calibrated at u, run on v: explored once per v, read by
        the checker and by the closed-form comparison below."""
        if v not in explored:
            explored[v] = explored_law(mech.sample, v)
        return explored[v]

    rep = check_idp(lambda ref: law_at_u if ref == u else law_factory(ref), u, nbrs,
                    TOTAL.ratio)
    rho = mech.base.ratio if mech.base else RHO
    closed_ok = all(law_at_u(v) == ex.sign_idp_law(ex.projections(v, W), mech.active, rho)
                    for v in (u, *nbrs))
    return rep, closed_ok


def frozen_certificate() -> Certificate:
    worst: tuple[Fraction, tuple[int, ...]] = (Fraction(0), U_REF)
    failures = []
    for u in vectors(3, -C, C, BETA).points:
        rep, closed_ok = frozen_report(u)
        bound = calibrated(u).privacy_ratio
        if not (closed_ok and rep.pure(bound) and bound <= TOTAL.ratio):
            failures.append(u)
        elif rep.worst.ratio is not None and rep.worst.ratio > worst[0]:
            worst = (rep.worst.ratio, u)
    ok = not failures
    return cert(CLAIM + " (frozen at every reference)",
                f"IDPSignRPRR.calibrate(u, W={W}, beta=1, total=3/2)",
                {"R": TOTAL.ratio, "beta": BETA, "C": C},
                "every u in {-2..2}^3 with its one-coordinate neighbours, both directions",
                worst[0], "<= rho_|A|^|A| <= 3/2 at every reference", ok,
                {"worst_reference": worst[1],
                 "active_at_worst": sorted(calibrated(worst[1]).active),
                 "failing_references": failures[:3]})


def recomputed_certificate() -> Certificate:
    nbrs = vector_neighbours(U_REF, -C, C, BETA)
    rep = check_idp(law_factory, U_REF, nbrs, TOTAL.ratio, frozen=False)
    notes_pair = check_idp(law_factory, U_REF, [U_NOTES], TOTAL.ratio, frozen=False)
    a_ref, a_notes = calibrated(U_REF).active, calibrated(U_NOTES).active
    ok = (rep.worst.infinite and notes_pair.worst.infinite and a_ref == frozenset()
          and a_notes == frozenset({0, 2}))
    return cert(CLAIM + " (recomputed at the neighbour)",
                f"IDPSignRPRR.calibrate(v, W={W}, beta=1, total=3/2) run on v",
                {"R": TOTAL.ratio, "reference": U_REF},
                f"{rep.pairs} ordered pairs: {U_REF} and its neighbours",
                worst_text(rep), "infinite (the recomputed reading is not iDP)", ok,
                {"ratio_witness": rep.worst.to_json(),
                 "notes_pair_witness": notes_pair.worst.to_json(), "A(u)": sorted(a_ref),
                 "A(u')": sorted(a_notes)})


def check(full: bool) -> ClaimReport:
    certs = [frozen_certificate(), recomputed_certificate()]
    return ClaimReport(CLAIM, "W 3x3 (notes), u in {-2..2}^3, beta = 1, R = 3/2",
                       f"frozen worst {certs[0].worst}; recomputed {certs[1].worst}",
                       "frozen <= 3/2; recomputed infinite (refuted)", certs)
