"""The worst pair of neighbours for a (composed) release, found exactly.

A mechanism is ``(ln R, delta)``-DP under a neighbour relation
(:mod:`exactdp.neighbours`) iff ``delta_at_ratio(R) <= delta`` for *every* ordered pair of
neighbours.  ``k`` releases of the same mechanism on one dataset see the same pair ``k``
times, so the composed guarantee is the maximum over ordered pairs of the ``k``-fold
composed loss.  :func:`worst_pair` computes each point's law once (the checker's laws, as
:meth:`PrivacyLoss.of`), each distinct pair loss's composition once, and returns the pair
with the largest exact ``delta_at_ratio``.

>>> from fractions import Fraction as F
>>> from exactdp.geosample import GeoSample
>>> from exactdp.neighbours import counts
>>> w = worst_pair(GeoSample(2, F(1, 2)), counts(2), ratio=F(1), releases=3)
>>> w.pair, w.delta == w.loss.delta_at_ratio(1), w.pairs
((0, 1), True, 4)
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.accounting.loss import PrivacyLoss, law_of
from exactdp.neighbours import Relation
from exactdp.params import ParameterError, ParameterTypeError, to_fraction

__all__ = ["WorstPair", "worst_pair"]


@dataclass(frozen=True)
class WorstPair:
    """The ordered pair ``(a, b)`` whose composed loss has the largest ``delta`` at
    ``ratio``, that loss, the exact ``delta``, and how many ordered pairs were examined."""

    pair: tuple[Any, Any]
    loss: PrivacyLoss
    ratio: Fraction
    delta: Fraction
    pairs: int


def worst_pair(mechanism: Any, relation: Relation[Any], *, ratio: object,
               releases: int = 1) -> WorstPair:
    """The ordered neighbouring pair of ``relation`` with the largest exact
    ``delta_at_ratio(ratio)`` of ``releases`` independent runs of ``mechanism`` (a counting
    mechanism or a function ``mechanism(x, source)``, as :meth:`PrivacyLoss.of`).  Ties go
    to the first pair in the relation's order."""
    if not isinstance(relation, Relation):
        raise ParameterTypeError(f"relation = {relation!r:.60} must be an "
                                 f"exactdp.neighbours.Relation (counts, datasets, vectors, ...)")
    r = to_fraction(ratio, "ratio")
    if r < 0:
        raise ParameterError(f"ratio = {r} must be >= 0")
    if isinstance(releases, bool) or not isinstance(releases, int) or releases < 1:
        raise ParameterError(f"releases = {releases!r} must be an int >= 1")
    laws: dict[Hashable, dict[Any, Fraction]] = {}

    def law(x: Any) -> dict[Any, Fraction]:
        if x not in laws:
            laws[x] = law_of(mechanism, x)
        return laws[x]

    composed: dict[PrivacyLoss, PrivacyLoss] = {}
    best: WorstPair | None = None
    count = 0
    for a, b in relation.ordered_pairs():
        count += 1
        one = PrivacyLoss.from_laws(law(a), law(b))
        if one not in composed:
            composed[one] = one.power(releases)
        loss = composed[one]
        delta = loss.delta_at_ratio(r)
        if best is None or delta > best.delta:
            best = WorstPair((a, b), loss, r, delta, 0)
    if best is None:
        raise ParameterError(f"relation {relation.name} has no neighbouring pair")
    return WorstPair(best.pair, best.loss, r, best.delta, count)
