"""The smooth flipping proof (Theorems 4.7/4.8) needs |L - L'| <= 1 for neighbours, with
L = ceil(|x|/unit) computed exactly.  Read in floating point on real-valued data, as the
pseudocode is usually run, the level jumps by 2 between neighbours and the ratio exceeds rho;
on the integer grid (L = (|x| + unit - 1) // unit) it does not."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import ClaimReport
from exactdp.neighbours import vectors
from exactdp.projections.check import explored_law
from exactdp.projections.rr import SmoothFlipper
from exactdp.projections.signs import DPSignRPSmooth
from exactdp.proofs.li_li._ieee import dadd, ddiv, double
from exactdp.proofs.li_li._proj import BASE, RHO, cert, laws_of, report, worst_text
from exactdp.randomness import RandomSource

CLAIM = "Li & Li smooth flipping needs an exact level; binary64 ceil(|x|/beta) jumps by 2"
SLIP = ('The smooth flipping proof needs |L - L\'| <= 1; the level ceil(|x|/beta) computed in '
        'binary64 on real-valued data jumps by 2 between neighbours (0.1 + 0.2 vs 0.1 + 0.1).')
STATEMENT = """Algorithm 7 with one projection w = (1, 1), data u in {0, 0.1, ..., 0.5}^2 (step beta = 0.1,
stored as binary64), L = min(ceil(|x|/beta), L_max), L_max = 6, rho = 3/2.  In binary64
x = 0.1 + 0.2 = 0.30000000000000004 and x/0.1 = 3.0000000000000004, so L = 4, while its
neighbour (0.1, 0.1) has L = 2: ratio (a^4 + b^4)/(b^2 (a^2 + b^2)) = 97/52 > 3/2.  Exact
levels (the implementation: integer data in steps, L = (|x| + unit - 1) // unit): <= 3/2."""
PROOF_IDEA = """Printed reading: the levels computed by an exact emulation of binary64 (round to nearest
even on rationals, proofs/li_li/_ieee.py), each bit then released by the implementation's
SmoothFlipper at that level (explored); the checker's worst ratio over every one-coordinate
pair of the grid (one step) must exceed 3/2, at the hand-derived 97/52.  Fix: the
implementation's DPSignRPSmooth on the same grid in integer steps, explored, worst <= 3/2."""

W = ((1,), (1,))
STEPS, L_MAX = 5, 6
BETA_REAL = double(Fraction(1, 10))


def float_level(u: tuple[int, ...]) -> tuple[int, int]:
    """(sign, level) of the binary64 reading at the grid point ``u`` (in steps of 0.1)."""
    reals = [double(Fraction(ui, 10)) for ui in u]
    x = dadd(reals[0] * W[0][0], reals[1] * W[1][0])
    q = ddiv(abs(x), BETA_REAL)
    level = min(-(-q.numerator // q.denominator), L_MAX)
    return (-1 if x < 0 else 1), level


def check(full: bool) -> ClaimReport:
    flipper = SmoothFlipper(BASE, L_MAX)
    rel = vectors(2, 0, STEPS, 1)
    levels = {u: float_level(u) for u in rel.points}

    def at_level(signed_level: int, source: RandomSource) -> int:
        return flipper.sample(signed_level, 1, source)

    printed = {u: explored_law(at_level, s * lv) for u, (s, lv) in levels.items()}
    rep_p = report(printed, rel)
    jumps = [(a, b) for a, b in rel.ordered_pairs() if abs(levels[a][1] - levels[b][1]) > 1]
    mech = DPSignRPSmooth(W, 1, BASE, L_MAX)
    rep_i = report(laws_of(mech, rel.points), rel)
    notes = Fraction(97, 52)
    params = {"rho": RHO, "L_max": L_MAX, "beta": "0.1 (binary64) / 1 step"}
    domain = f"{rep_i.pairs} ordered one-coordinate pairs of {{0..5}}^2 (steps of 0.1)"
    certs = [
        cert(CLAIM + " (binary64 levels)", "SmoothFlipper(3/2, L_max=6) at binary64 levels",
             params, domain, worst_text(rep_p),
             "= 97/52 > rho = 3/2: the floating reading FAILS",
             rep_p.worst.ratio == notes and notes > RHO and bool(jumps),
             {"ratio_witness": rep_p.worst.to_json(), "level_jumps": jumps[:4],
              "level_at_(1,2)": levels[(1, 2)][1], "level_at_(1,1)": levels[(1, 1)][1]}),
        cert(CLAIM + " (exact integer levels)", "DPSignRPSmooth(W=(1,1), beta=1, 3/2, 6)",
             params, domain, worst_text(rep_i), "<= rho = 3/2", rep_i.pure(RHO),
             {"ratio_witness": rep_i.worst.to_json()}),
    ]
    return ClaimReport(CLAIM, "w = (1, 1), {0, 0.1, .., 0.5}^2, beta = 0.1, L_max = 6, rho = 3/2",
                       f"binary64 {certs[0].worst} ({len(jumps)} pairs with |L - L'| = 2); "
                       f"exact {certs[1].worst}",
                       "binary64 > 3/2 (refuted); exact <= 3/2", certs)


