"""The exact privacy checker for Li & Li's mechanisms (paper 001).

The laws come from the implementation: :func:`explored_law` runs a mechanism's own sampling
code under :func:`exactdp.explore.explore` (every draw branched with its exact weight).  Three
checks, over the ordered pairs of a :class:`~exactdp.neighbours.Relation` (or any pairs):

* :func:`check_dp` -- the exact worst ratio ``max_o P(o|u)/P(o|u')`` (pure DP) with its
  witness pair and outcome, and the exact hockey-stick ``delta(R) = max_pairs sum_o
  max(0, P(o|u) - R P(o|u'))`` at a rational ``R`` standing for ``e^eps``;
* :func:`delta_at_epsilon` -- the same ``delta`` at an irrational ``e^eps``, as an interval
  from certified rational bounds on ``e^eps``;
* :func:`check_idp` -- individual DP (Definition 2.6) of a mechanism CALIBRATED at a
  reference ``u`` and then frozen (Theorems 6.1/6.2 hold only so), both
  directions over ``u``'s neighbours; ``frozen=False`` recalibrates at each neighbour (the
  paper's pseudocode run as written), which is not private;
* :func:`check_dp_over_family` -- a public matrix drawn from an enumerable family and
  RELEASED with the output: the joint law of ``(W, output)`` has
  ``delta(R) = sum_W Pr[W] delta_W(R)`` (Algorithm 6's "delta over W"), while
  the worst ratio is the worst over the family (``Pr[W]`` cancels).

>>> from exactdp.neighbours import counts
>>> rep = check_dp(lambda c: {0: Fraction(2 + c, 5), 1: Fraction(3 - c, 5)}, counts(1), 1)
>>> rep.worst.ratio, rep.delta.delta
(Fraction(3, 2), Fraction(1, 5))
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.certificate import exact_json
from exactdp.certified import Interval, exp_interval
from exactdp.checker import RatioWitness, hockey_stick, worst_ratio
from exactdp.explore import explore
from exactdp.neighbours import Relation
from exactdp.params import ParameterError
from exactdp.randomness import RandomSource

__all__ = ["DeltaWitness", "FamilyReport", "PrivacyReport", "check_dp", "check_dp_over_family",
           "check_idp", "delta_at_epsilon", "explored_law"]

Law = Mapping[Any, Fraction]
Pairs = Relation[Any] | Iterable[tuple[Hashable, Hashable]]


def explored_law(sample: Callable[[Any, RandomSource], Hashable], u: Any) -> dict[Any, Fraction]:
    """The exact law of ``sample(u, source)``, from the sampling code run under the
    exploring source."""
    return explore(lambda source: sample(u, source))


@dataclass(frozen=True)
class DeltaWitness:
    """The largest hockey-stick divergence at ``ratio`` over the pairs, and its pair."""

    delta: Fraction
    numerator_input: Any
    denominator_input: Any

    def to_json(self) -> dict[str, Any]:
        return {"delta": exact_json(self.delta), "numerator_input": exact_json(
            self.numerator_input), "denominator_input": exact_json(self.denominator_input)}


@dataclass(frozen=True)
class PrivacyReport:
    """The exact worst ratio (``worst.ratio`` is None for an infinite one) and, when a ratio
    ``R`` was given, the worst ``delta(R)``, over ``pairs`` ordered pairs."""

    relation: str
    pairs: int
    worst: RatioWitness
    ratio: Fraction | None
    delta: DeltaWitness | None

    def pure(self, bound: Fraction) -> bool:
        """``worst ratio <= bound`` (exact; an infinite ratio fails)."""
        return self.worst.ratio is not None and self.worst.ratio <= bound

    def to_json(self) -> dict[str, Any]:
        return {"relation": self.relation, "pairs": self.pairs,
                "worst": self.worst.to_json(),
                "R": None if self.ratio is None else exact_json(self.ratio),
                "delta": None if self.delta is None else self.delta.to_json()}


def _pairs(pairs: Pairs) -> tuple[str, list[tuple[Hashable, Hashable]]]:
    if isinstance(pairs, Relation):
        return pairs.name, list(pairs.ordered_pairs())
    out = list(pairs)
    return "given pairs", out


def _rational(ratio: object) -> Fraction | None:
    if ratio is None:
        return None
    if isinstance(ratio, bool) or not isinstance(ratio, (int, Fraction)):
        raise ParameterError(f"ratio R = {ratio!r:.40} must be an exact rational standing "
                             f"for e^eps (int or Fraction)")
    if ratio < 1:
        raise ParameterError(f"ratio R = {ratio} must be >= 1")
    return Fraction(ratio)


def _report(name: str, pairs: Sequence[tuple[Hashable, Hashable]],
            law: Callable[[Hashable, Hashable], tuple[Law, Law]] | Mapping[Hashable, Law],
            ratio: Fraction | None) -> PrivacyReport:
    """``law``: the two laws of a pair, or a mapping from input to law."""
    if not pairs:
        raise ParameterError(f"{name}: no neighbouring pair to check")
    triples = []
    best: DeltaWitness | None = None
    seen: set[tuple[int, int]] = set()
    by_input = law if isinstance(law, Mapping) else None
    for a, b in pairs:
        if by_input is not None:
            pa, pb = by_input[a], by_input[b]
        else:
            pa, pb = law(a, b)  # type: ignore[operator]
        key = (id(pa), id(pb))
        if key in seen:  # the same two law objects: same ratio and delta
            continue
        seen.add(key)
        triples.append((a, pa, b, pb))
        if ratio is not None:
            d = hockey_stick(pa, pb, ratio)
            if best is None or d > best.delta:
                best = DeltaWitness(d, a, b)
    return PrivacyReport(name, len(pairs), worst_ratio(triples), ratio, best)


def check_dp(law: Callable[[Any], Law], pairs: Pairs, ratio: object = None) -> PrivacyReport:
    """The worst ratio (and ``delta(ratio)``) of ``law`` over ordered neighbouring pairs.
    Laws are computed once per input; a pair of laws equal to one already examined is not
    examined again (the witness is the first pair in relation order)."""
    name, prs = _pairs(pairs)
    r = _rational(ratio)
    cache: dict[Hashable, Law] = {}
    # equal laws share one object, so repeated pairs are skipped; a law is keyed by its
    # (outcome, numerator, denominator) triples (Fractions are normalised: equal values have
    # equal pairs, and ints hash faster than Fractions)
    interned: dict[frozenset[tuple[Any, int, int]], Law] = {}
    for pair in prs:  # in pair order, each input once
        for u in pair:
            if u not in cache:
                found = law(u)
                key = frozenset([(o, v.numerator, v.denominator) for o, v in found.items()])
                cache[u] = interned.setdefault(key, found)
    return _report(name, prs, cache, r)


def delta_at_epsilon(law: Callable[[Any], Law], pairs: Pairs, epsilon: object,
                     bits: int = 128) -> tuple[Interval, DeltaWitness]:
    """``max_pairs delta(e^eps)`` for an irrational ``e^eps``: an interval certified to contain
    it (``delta`` is non-increasing in the ratio, so the exact values at the certified bounds
    ``e_lo <= e^eps <= e_hi`` bracket it), and the pair with the largest upper end (its
    ``delta`` field is that upper end)."""
    from exactdp.params import to_fraction

    box = exp_interval(to_fraction(epsilon, "epsilon"), bits)
    low = check_dp(law, pairs, box.hi).delta
    high = check_dp(law, pairs, box.lo).delta
    assert low is not None and high is not None
    return Interval(low.delta, high.delta), high


def check_idp(calibrate: Callable[[Any], Callable[[Any], Law]], reference: Any,
              neighbours: Iterable[Any], ratio: object = None, frozen: bool = True
              ) -> PrivacyReport:
    """Individual DP at ``reference`` (Definition 2.6): both directions ``(u, u')`` and
    ``(u', u)`` for every neighbour ``u'``.  ``calibrate(u)`` returns the law of the
    mechanism whose parameters were computed at ``u``.  Frozen (Theorems 6.1/6.2): the
    mechanism calibrated at ``reference`` is run on both inputs.  ``frozen=False``: each
    input runs the mechanism calibrated at itself."""
    ref_mech = calibrate(reference)
    others = list(neighbours)
    prs = [pair for v in others for pair in ((reference, v), (v, reference))]

    def law(u: Any) -> Law:
        return ref_mech(u) if frozen or u == reference else calibrate(u)(u)

    cache = {u: law(u) for u in [reference, *others]}
    name = f"iDP at {reference} ({'frozen' if frozen else 'recalibrated at each input'})"
    return _report(name, prs, cache, _rational(ratio))


@dataclass(frozen=True)
class FamilyReport:
    """A mechanism whose public matrix ``W`` is drawn from a finite family and released.

    ``conditional``: the worst ratio over pairs and matrices (the ratio of the joint law;
    also the guarantee for one fixed public ``W``).  ``averaged``: the worst over pairs of
    ``sum_W Pr[W] delta_W(R)`` (the joint law's hockey stick), with its pair;
    ``conditional_delta``: the worst single-``W`` ``delta_W(R)``."""

    relation: str
    pairs: int
    family_size: int
    ratio: Fraction
    conditional: RatioWitness
    conditional_member: Any
    averaged: DeltaWitness
    conditional_delta: Fraction
    #: ``sum_W Pr[W] delta_W(R)`` for every ordered pair (``averaged`` is its maximum).
    by_pair: Mapping[tuple[Any, Any], Fraction] = field(default_factory=dict, compare=False,
                                                        repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"relation": self.relation, "pairs": self.pairs, "family": self.family_size,
                "R": exact_json(self.ratio), "conditional_worst": self.conditional.to_json(),
                "conditional_member": exact_json(self.conditional_member),
                "averaged_delta": self.averaged.to_json(),
                "worst_fixed_member_delta": exact_json(self.conditional_delta)}


def check_dp_over_family(law: Callable[[Any, Any], Law],
                         family: Sequence[tuple[Any, Fraction]], pairs: Pairs,
                         ratio: object) -> FamilyReport:
    """``law(W, u)`` is the output law given the public member ``W``; ``family`` lists
    ``(W, Pr[W])`` with probabilities summing to 1."""
    name, prs = _pairs(pairs)
    r = _rational(ratio)
    if r is None:
        raise ParameterError("check_dp_over_family needs the ratio R standing for e^eps")
    total = sum((w for _, w in family), Fraction(0))
    if total != 1:
        raise ParameterError(f"the family's probabilities sum to {total}, not 1")
    if not prs:
        raise ParameterError(f"{name}: no neighbouring pair to check")
    points = list(dict.fromkeys(u for pair in prs for u in pair))
    worst: RatioWitness | None = None
    member: Any = None
    fixed_delta = Fraction(0)
    averaged = {pair: Fraction(0) for pair in prs}
    # Members often give equal laws: a law equal to one seen before, item for item in the
    # same order, is replaced by that one, and the worst ratio of a member's laws and the
    # delta of a pair of laws are computed once per distinct law objects (the same
    # deterministic computations on the same ordered items).
    interned: dict[tuple[tuple[Any, int, int], ...], Law] = {}
    reports: dict[tuple[int, ...], PrivacyReport] = {}
    deltas: dict[tuple[int, int], Fraction] = {}
    for W, weight in family:
        laws = {}
        for u in points:
            found = law(W, u)
            key = tuple([(o, v.numerator, v.denominator) for o, v in found.items()])
            laws[u] = interned.setdefault(key, found)
        ids = tuple([id(laws[u]) for u in points])
        rep = reports.get(ids)
        if rep is None:  # the worst ratio only: the deltas are computed just below
            rep = reports[ids] = _report(name, prs, laws, None)
        if worst is None or not _at_least(worst, rep.worst):
            worst, member = rep.worst, W
        for a, b in prs:
            pa, pb = laws[a], laws[b]
            pair_ids = (id(pa), id(pb))
            d = deltas.get(pair_ids)
            if d is None:
                d = deltas[pair_ids] = hockey_stick(pa, pb, r)
            averaged[(a, b)] += weight * d
            fixed_delta = max(fixed_delta, d)
    (a, b), d = max(averaged.items(), key=lambda item: item[1])
    assert worst is not None
    return FamilyReport(name, len(prs), len(family), r, worst, member, DeltaWitness(d, a, b),
                        fixed_delta, averaged)


def _at_least(w1: RatioWitness, w2: RatioWitness) -> bool:
    """``w1.ratio >= w2.ratio`` with None = infinity."""
    if w1.ratio is None:
        return True
    return w2.ratio is not None and w1.ratio >= w2.ratio
