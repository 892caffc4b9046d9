"""The reported privacy of the sign projections is per ATTRIBUTE: one coordinate of one
record changing by at most beta.  Replacing a whole record (every coordinate may change)
is not covered; it needs group privacy, here rho^min(k, p)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import ClaimReport
from exactdp.neighbours import vectors
from exactdp.projections.signs import DPSignOPORP
from exactdp.proofs.li_li._proj import BASE, NOTES_PLAN, RHO, cert, laws_of, report, worst_text

CLAIM = "Li & Li 'one record' privacy: per attribute only; record replacement exceeds rho"
SLIP = ('The paper says the mechanism makes the data private "against a change in one data '
        'record"; its adjacency changes one attribute by at most beta, and replacing a whole '
        'record costs up to rho^min(k, p).')
STATEMENT = """Li & Li §1.4: "applying this mechanism to all the points makes U DP against a change in one
data record".  The proofs (Def. 2.3) change ONE coordinate by at most beta.  DP-SignOPORP-RR
on the reference plan (p = 4, k = 2, beta = 1, rho = 3/2) over {-1..1}^4: one-attribute
neighbours have worst ratio <= 3/2; record replacement (any two points of the box, every
coordinate changed) reaches rho^k = 9/4 > 3/2, which the group-privacy bound rho^min(k, p)
covers."""
PROOF_IDEA = """The implementation's DPSignOPORP(reference plan, beta = 1, 3/2, RR) explored at every
point of {-1..1}^4 (81 laws); the checker's worst ratio over every ordered one-coordinate
pair (beta = 1) and over every ordered pair of the box (the l-infinity relation with
beta = 2 = the box's width, i.e. record replacement).  Refuted reading: the record worst must
exceed 3/2; fix: it must be <= rho^min(k, p) = 9/4, and equal to it (both bins can move)."""

C, BETA = 1, 1


def check(full: bool) -> ClaimReport:
    mech = DPSignOPORP(NOTES_PLAN, BETA, BASE, 1, False)
    laws = laws_of(mech, vectors(4, -C, C, BETA).points)
    attr = report(laws, vectors(4, -C, C, BETA))
    record = report(laws, vectors(4, -C, C, 2 * C, "linf"))
    group = RHO ** min(NOTES_PLAN.k, NOTES_PLAN.p)
    params = {"rho": RHO, "beta": BETA, "C": C, "k": NOTES_PLAN.k, "p": NOTES_PLAN.p}
    name = "DPSignOPORP(reference plan, beta=1, rho=3/2, RR)"
    certs = [
        cert(CLAIM + " (one attribute)", name, params,
             f"{attr.pairs} ordered one-coordinate pairs of {{-1..1}}^4", worst_text(attr),
             "<= rho = 3/2 (the proven claim)", attr.pure(RHO),
             {"ratio_witness": attr.worst.to_json()}),
        cert(CLAIM + " (record replacement, paper's reading)", name, params,
             f"{record.pairs} ordered pairs of {{-1..1}}^4 (whole record replaced)",
             worst_text(record), "> rho = 3/2: the 'one record' reading FAILS",
             record.worst.ratio is not None and record.worst.ratio > RHO,
             {"ratio_witness": record.worst.to_json()}),
        cert(CLAIM + " (record replacement, group privacy)", name, params,
             f"{record.pairs} ordered pairs of {{-1..1}}^4 (whole record replaced)",
             worst_text(record), f"= rho^min(k, p) = {group} (group privacy, attained)",
             record.worst.ratio == group, {"ratio_witness": record.worst.to_json()}),
    ]
    return ClaimReport(CLAIM, "reference plan, {-1..1}^4, beta = 1, rho = 3/2, RR",
                       f"one attribute {certs[0].worst}; record {certs[1].worst}",
                       f"attribute <= 3/2; record > 3/2 (refuted) and = {Fraction(group)}",
                       certs)
