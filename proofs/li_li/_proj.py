"""Shared pieces of the projection rows (paper 001, Li & Li).

The laws always come from the implementation (:mod:`exactdp.projections`' sampling code run
under the exploring source); the values they are compared with come from
:mod:`exactdp.projections.exact` (closed forms) or from hand-derived
numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate
from exactdp.neighbours import Relation
from exactdp.projections.check import PrivacyReport, check_dp, explored_law
from exactdp.projections.matrices import OPORPPlan
from exactdp.projections.rr import Base

Law = dict[Any, Fraction]

#: The reference rational base rho = 3/2 (§3.1 instances).
RHO = Fraction(3, 2)
BASE = Base(3, 2)
#: The reference OPORP plan for Algorithm 8 (§3.1): p = 4, k = 2.
NOTES_PLAN = OPORPPlan((2, 0, 3, 1), (1, -1, -1, 1), 2)
#: The reference matrix for Algorithm 7 (§3.1): p = 3, k = 2.
NOTES_W7 = ((1, -1), (1, 1), (-1, 1))


def laws_of(mech: Any, points: Iterable[Hashable]) -> dict[Hashable, Law]:
    """``{u: exact law of mech.sample(u, source)}``, explored from the implementation."""
    return {u: explored_law(mech.sample, u) for u in points}


def by_projection(x_of: Callable[[Any], Hashable], law_of: Callable[[Any], Law]
                  ) -> Callable[[Any], Law]:
    """``u -> law_of(x_of(u))`` for a closed form that is a function of the projection
    ``x``: each distinct ``x``'s law is computed once (within one certificate)."""
    memo: dict[Hashable, Law] = {}

    def closed(u: Any) -> Law:
        x = x_of(u)
        law = memo.get(x)
        if law is None:
            law = memo[x] = law_of(x)
        return law

    return closed


def mismatches(laws: Mapping[Hashable, Law], closed: Callable[[Any], Law]) -> list[Any]:
    """The inputs whose explored law differs from the closed form."""
    return [u for u, law in laws.items() if law != closed(u)]


def report(laws: Mapping[Hashable, Law], relation: Relation, ratio: object = None
           ) -> PrivacyReport:
    """The checker's report over ``relation`` from precomputed laws."""
    return check_dp(laws.__getitem__, relation, ratio)


def cert(claim: str, mechanism: str, parameters: Mapping[str, Any], domain: str,
         worst: Fraction | int | str | None, bound: str, verdict: bool,
         witness: Mapping[str, Any] | None = None, note: str = "") -> Certificate:
    """A :class:`Certificate` (keyword-light wrapper)."""
    return Certificate(claim, mechanism, dict(parameters), domain, worst, bound, verdict,
                       dict(witness or {}), note)


def worst_text(rep: PrivacyReport) -> Fraction | str:
    """The worst ratio, ``"infinity"`` when some output has probability 0 on one side."""
    return "infinity" if rep.worst.ratio is None else rep.worst.ratio
