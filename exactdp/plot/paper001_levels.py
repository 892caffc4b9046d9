"""Why DP-SignOPORP-RR and -smooth (Algorithm 8) can look alike, exactly: the law of the
levels ``L = ceil(|x_j| / beta)`` over the bits of a data set under one OPORP plan, and the
expected share of flipped bits of each variant (exact rationals).

Per bit the smooth variant keeps the sign with probability ``a^L/(a^L + b^L)``, at least
RR's ``a/(a + b)`` for every ``L >= 1``, and both toss a fair coin at ``L = 0`` (an empty or
cancelled bin).  So the two differ only on the bits with ``L >= 2``, by ``f_1 - f_L`` each
(``f_L = b^L/(a^L + b^L)``), less than ``f_1 = 1/(rho + 1)``, about ``e^-eps``: at
``eps = 5`` under 0.7 % of a bit.  On sparse data most bins hold at most one non-zero entry of size at most
``beta``, so levels 0 and 1 dominate and the two variants release nearly the same law;
the smooth variant's advantage lives at small ``eps`` and on data with large projections.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from fractions import Fraction

from exactdp.projections.matrices import OPORPPlan
from exactdp.projections.project import oporp
from exactdp.projections.rr import Base

__all__ = ["flip_shares", "level_law"]


def level_law(rows: Iterable[Sequence[int]], plan: OPORPPlan, beta: int) -> dict[int, Fraction]:
    """``{L: share of bits at level L}`` over every row and bin (exact, uncapped levels)."""
    counts: Counter[int] = Counter()
    for u in rows:
        counts.update(-(-abs(x) // beta) for x in oporp(u, plan))
    total = sum(counts.values())
    return {L: Fraction(c, total) for L, c in sorted(counts.items())}


def flip_shares(law: dict[int, Fraction], base: Base, l_max: int) -> tuple[Fraction, Fraction]:
    """The expected share of released bits that are NOT the true sign (a coin at ``L = 0``
    counts 1/2), for RR and for smooth (levels capped at ``l_max``), under ``law``."""
    rr = sum((share * (Fraction(1, 2) if L == 0 else base.flip(1))
              for L, share in law.items()), Fraction(0))
    smooth = sum((share * base.flip(min(L, l_max)) for L, share in law.items()), Fraction(0))
    return rr, smooth
