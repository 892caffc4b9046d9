"""Rounding each flip probability up to a fixed grid breaks
the smooth scheme's ratio bound; the rational base (with or without a cap L_max) keeps it."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from exactdp.certificate import Certificate, ClaimReport
from exactdp.neighbours import vectors
from exactdp.projections import exact as ex
from exactdp.projections.check import PrivacyReport, check_dp, explored_law
from exactdp.projections.rr import SmoothFlipper
from exactdp.proofs.li_li._proj import BASE, RHO, cert, worst_text

CLAIM = "Li & Li: flip probabilities rounded up to 2^-8 break rho; the rational base does not"
STATEMENT = """Rounding each smooth flip probability f_L up to the grid 2^-8 (rho = 3/2) gives
f'_10/f'_11 = 5/3 and f'_13/f'_14 = 2 > rho: the tail where f_L is below the grid step
violates the per-bit bound.  The rational base (keep a^L/(a^L+b^L) exactly) keeps every
neighbouring ratio <= rho, for every cap L_max (capping keeps |L - L'| <= 1)."""
PROOF_IDEA = """The rounded scheme is the implementation's SmoothFlipper with its thresholds replaced by
ceil(2^8 f_L) over the denominator 2^8 (the paper-side variant; its laws explored like the
real one's); the checker's worst ratio over neighbouring projections x ~ x+-1 (unit 1,
x in [-16, 16], L_max = 14) must be 2, attained between levels 13 and 14, and the ratios
f'_10/f'_11 = 5/3, f'_13/f'_14 = 2 must come out of the explored laws and of
exactdp.projections.exact.rounded_flip_probability alike.  The rational-base SmoothFlipper
(L_max = 14; full: every L_max in 1..14) must stay <= rho."""

GRID = 256
L_MAX = 14


@dataclass(frozen=True)
class RoundedFlipper(SmoothFlipper):
    """The implementation's flipper with each flip probability rounded UP to 1/GRID."""

    @cached_property
    def denominator(self) -> int:
        return GRID

    @cached_property
    def thresholds(self) -> tuple[int, ...]:
        return tuple(int(ex.rounded_flip_probability(self.base.ratio, level, GRID) * GRID)
                     for level in range(self.l_max + 1))


def flipper_report(flipper: SmoothFlipper) -> tuple[PrivacyReport, dict[int, Fraction]]:
    span = flipper.l_max + 2
    rel = vectors(1, -span, span, 1)
    laws = {u: explored_law(lambda v, src: (flipper.sample(v[0], 1, src),), u)
            for u in rel.points}
    flips = {x: laws[(x,)].get((-1,), Fraction(0)) for x in range(1, span + 1)}
    return check_dp(laws.__getitem__, rel), flips


def rounded_certificate() -> Certificate:
    rep, flips = flipper_report(RoundedFlipper(BASE, L_MAX))
    closed = [ex.rounded_flip_probability(RHO, level, GRID) for level in range(L_MAX + 1)]
    agree = all(flips[level] == closed[level] for level in range(1, L_MAX + 1))
    r10, r13 = flips[10] / flips[11], flips[13] / flips[14]
    levels = sorted(abs(v[0]) for v in (rep.worst.numerator_input, rep.worst.denominator_input))
    ok = (agree and r10 == Fraction(5, 3) and r13 == 2 and rep.worst.ratio == 2
          and levels == [13, 14])
    return cert(CLAIM + " (paper-side rounding fails)",
                f"SmoothFlipper(rho=3/2, L_max={L_MAX}) with flips rounded up to 1/{GRID}",
                {"rho": RHO, "grid": GRID, "L_max": L_MAX},
                f"{rep.pairs} ordered pairs x ~ x+-1", worst_text(rep),
                "2 > rho = 3/2 (a violation)", ok,
                {"ratio_witness": rep.worst.to_json(), "f10/f11": r10, "f13/f14": r13,
                 "explored_equals_closed_form": agree})


def exact_certificate(l_max: int) -> Certificate:
    rep, _ = flipper_report(SmoothFlipper(BASE, l_max))
    ok = rep.pure(RHO)
    return cert(CLAIM + f" (rational base, L_max = {l_max})",
                f"SmoothFlipper(rho=3/2, L_max={l_max})", {"rho": RHO, "L_max": l_max},
                f"{rep.pairs} ordered pairs x ~ x+-1", worst_text(rep), "<= rho = 3/2", ok,
                {"ratio_witness": rep.worst.to_json()})


def check(full: bool) -> ClaimReport:
    caps = range(1, L_MAX + 1) if full else (L_MAX,)
    certs = [rounded_certificate()] + [exact_certificate(c) for c in caps]
    return ClaimReport(CLAIM, f"rho = 3/2, grid 2^-8, L_max in {list(caps)}",
                       f"rounded: {certs[0].worst}; rational base: {certs[-1].worst}",
                       "rounded 2 > 3/2 (refuted); rational <= 3/2", certs)
