"""A zero projection must give a fair coin; the printed
"s~_j = 0" of Algorithm 8 (a third output symbol) has an infinite privacy ratio."""

from __future__ import annotations

from exactdp.certificate import Certificate, ClaimReport
from exactdp.neighbours import vectors
from exactdp.projections.project import oporp
from exactdp.projections.signs import DPSignOPORP
from exactdp.proofs.li_li._proj import BASE, NOTES_PLAN, RHO, cert, laws_of, report, worst_text
from exactdp.randomness import RandomSource

CLAIM = "P4 ties: coin for x_j = 0 gives (rho+1)/2; emitting 0 is an infinite ratio"
SLIP = ('The printed sign of a zero projection is 0, a third symbol that reveals x_j = 0 (an '
        'infinite ratio); a fair coin fixes it.')
STATEMENT = """Algorithm 8 step 4 prints "s~_j = 0" for a zero projection (meaning a random coin).  Read
literally (a third symbol 0), the output reveals x_j = 0: an output with probability 0 for a
neighbour, an infinite ratio.  The implementation's coin gives, at beta = 1 on the integer
grid (signs only move through 0), the worst ratio (rho+1)/2 = 5/4 <= rho."""
PROOF_IDEA = """The implementation's DPSignOPORP (RR, reference plan, {-1..1}^4, beta = 1) explored at every
point: the checker's worst ratio must be exactly (rho+1)/2.  The printed reading is the
same implementation post-processed with the projection: bit j replaced by 0 where
oporp(u)_j = 0 (a function of u, so not a post-processing of the output); its worst ratio
must be infinite, with a witness whose output contains 0."""


class PrintedZero:
    """Algorithm 8 as printed: the implementation's bits, with 0 where x_j = 0."""

    def __init__(self, mech: DPSignOPORP) -> None:
        self.mech = mech

    def sample(self, u: tuple[int, ...], source: RandomSource) -> tuple[int, ...]:
        bits = self.mech.sample(u, source)
        return tuple(0 if x == 0 else b for x, b in zip(oporp(u, self.mech.plan), bits))


def tie_certificates() -> list[Certificate]:
    mech = DPSignOPORP(NOTES_PLAN, 1, BASE, 1, False)
    rel = vectors(4, -1, 1, 1)
    coin = report(laws_of(mech, rel.points), rel)
    zero = report(laws_of(PrintedZero(mech), rel.points), rel)
    want = (RHO + 1) / 2
    return [
        cert(CLAIM + " (coin)", "DPSignOPORP(reference plan, beta=1, rho=3/2, RR)",
             {"rho": RHO, "beta": 1}, f"{coin.pairs} ordered pairs of {rel.name}",
             worst_text(coin), f"= (rho+1)/2 = {want} <= rho", coin.worst.ratio == want,
             {"ratio_witness": coin.worst.to_json()}),
        cert(CLAIM + " (printed 0)", "the same, with bit j := 0 where x_j = 0",
             {"rho": RHO, "beta": 1}, f"{zero.pairs} ordered pairs of {rel.name}",
             worst_text(zero), "infinite (the printed reading leaks x_j = 0)",
             zero.worst.infinite and 0 in zero.worst.outcome,
             {"ratio_witness": zero.worst.to_json()}),
    ]


def check(full: bool) -> ClaimReport:
    certs = tie_certificates()
    return ClaimReport(CLAIM, "reference plan, {-1..1}^4, beta = 1, RR",
                       f"coin {certs[0].worst}; printed 0: {certs[1].worst}",
                       "coin = 5/4 <= 3/2; printed 0 infinite (refuted)", certs)
