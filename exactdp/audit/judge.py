"""Judging a white-box audit: from the exact distributions per input to the verdict.

Split out of :mod:`exactdp.audit.whitebox` (which computes the distributions): the exact
worst privacy-loss ratio over neighbouring inputs with its witness, compared with
``e**eps`` through certified bounds (:func:`~exactdp.checker.certify_ratio`);
infinite-loss outcomes; the hockey-stick ``delta(eps)`` of every ordered pair, decided with
certified intervals refined up to :data:`HOCKEY_STICK_MAX_BITS` bits; the statistical
distance to a reference; and a timing side channel found by the trace comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from exactdp.audit.guard import elapsed
from exactdp.audit.reference import RefDistribution, interval_distance
from exactdp.audit.report import (
    Distribution,
    InfiniteLoss,
    TraceResult,
    Verdict,
    WhiteBoxReport,
    _short_fraction,
)
from exactdp.certified import Interval
from exactdp.checker import certify_ratio, hockey_stick_eps, worst_ratio
from exactdp.claims import Claim, exp_bounds
from exactdp.ratio_bounds import BoundsCache

__all__ = ["HOCKEY_STICK_MAX_BITS", "HockeyStatus"]


HockeyStatus = Literal["holds", "exceeds", "undecided"]
#: Precision (bits of ``e**eps``) at which a hockey-stick interval still straddling the
#: claimed delta is given up on.
HOCKEY_STICK_MAX_BITS = 4096


def _decide_hockey_stick(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction], eps: Claim,
                         delta: Fraction, box: Interval | None = None,
                         cache: BoundsCache | None = None) -> tuple[HockeyStatus, Interval]:
    """Decide ``delta(eps) <= delta`` for one ordered pair with certified bounds, refining
    ``e**eps`` (starting from ``box``, the 128-bit interval, when given).

    ``"holds"``: the interval's upper end is ``<= delta``; ``"exceeds"``: its lower end is
    ``> delta``; ``"undecided"``: it still straddles ``delta`` at
    :data:`HOCKEY_STICK_MAX_BITS` bits.  Returns the status and the last interval.
    ``cache``: the laws' short bounds, shared with the other pairs.
    """
    bits = 128
    if box is None:
        box = hockey_stick_eps(p, q, eps, bits, cache)
    while True:
        if box.hi <= delta:
            return "holds", box
        if box.lo > delta:
            return "exceeds", box
        if bits >= HOCKEY_STICK_MAX_BITS:
            return "undecided", box
        bits *= 2
        box = hockey_stick_eps(p, q, eps, bits, cache)


def _judge(common: dict[str, Any], dists: dict[Any, Distribution],
           pairs: Sequence[tuple[Any, Any]], eps: Claim, delta: Fraction,
           ref_name: str | None, refs: Mapping[Any, RefDistribution] | None,
           method: str, d: int | None, mono: str,
           trace: TraceResult | None, start: int) -> WhiteBoxReport:
    ordered = []
    for a, b in pairs:
        ordered.append((a, dists[a], b, dists[b]))
        ordered.append((b, dists[b], a, dists[a]))
    cache = BoundsCache()  # each law read once for all its pairs
    worst = worst_ratio(ordered, cache)
    ok, bound = certify_ratio(worst, eps)
    excess = None if ok or worst.ratio is None else _excess(worst.ratio, eps)
    infinite = _infinite_losses(ordered, cache)
    boxes = [(hockey_stick_eps(pa, pb, eps, cache=cache), a, pa, b, pb)
             for a, pa, b, pb in ordered]
    top = max(boxes, key=lambda t: t[0].hi)
    hs: Interval = top[0]
    hs_pair: tuple[Any, Any] = (top[1], top[3])
    verdict: Verdict = "pass" if ok else "violation"
    if delta > 0:
        # Every ordered pair is decided on its own (certified): a pair whose 128-bit
        # interval straddles delta need not be the one with the largest upper end.
        decided = [(*_decide_hockey_stick(pa, pb, eps, delta, box, cache), (a, b))
                   for box, a, pa, b, pb in boxes]
        failing = [t for t in decided if t[0] != "holds"]
        if failing:
            status, hs, hs_pair = max(failing, key=lambda t: (t[0] == "exceeds", t[1].lo))
            verdict = "violation"
            how = ("> claimed delta" if status == "exceeds" else
                   f"straddles the claimed delta even with e^eps to {HOCKEY_STICK_MAX_BITS} "
                   f"bits: not certified, reported as a violation; claimed delta")
            bound += (f"; approximate claim: delta(eps) in [{_short_fraction(hs.lo)}, "
                      f"{_short_fraction(hs.hi)}] for the pair {hs_pair} {how} {delta}")
        else:
            _, hs, hs_pair = max(decided, key=lambda t: t[1].hi)
            verdict = "pass"
            bound += (f"; approximate claim: delta(eps) in [{_short_fraction(hs.lo)}, "
                      f"{_short_fraction(hs.hi)}] (largest, pair {hs_pair}) <= claimed delta "
                      f"{delta}, certified for all {len(decided)} ordered pairs")
    dist_val: Fraction | Interval | None = None
    dist_in: Any = None
    if refs is not None:
        for c, p in dists.items():
            v = interval_distance(p, refs[c])
            key = v.hi if isinstance(v, Interval) else v
            cur = None if dist_val is None else (dist_val.hi if isinstance(dist_val, Interval)
                                                 else dist_val)
            if cur is None or key > cur:
                dist_val, dist_in = v, c
    if trace is not None and not trace.same and verdict == "pass":
        verdict = "violation"
        bound += ("; TIMING: the joint law of (output, trace) breaks the claim (timing side "
                  "channel)" if trace.examined.startswith("the joint law") else
                  "; TIMING: operation traces depend on the input (timing side channel)")
    return WhiteBoxReport(**common, verdict=verdict, method=method, d=d, monotone=mono,
                          distributions=dists, worst=worst, bound=bound,
                          infinite=tuple(infinite), hockey_stick=hs, hockey_stick_pair=hs_pair,
                          reference=ref_name, distance=dist_val, distance_input=dist_in,
                          trace=trace, seconds=elapsed(start), excess=excess)


def _infinite_losses(ordered: Sequence[tuple[Any, Mapping[Any, Fraction], Any,
                                              Mapping[Any, Fraction]]],
                     cache: BoundsCache) -> list[InfiniteLoss]:
    """Every outcome ``o`` and ordered pair ``(a, b)`` with ``P_a(o) > 0 = P_b(o)``."""
    infinite: list[InfiniteLoss] = []
    zero = Fraction(0)
    for a, pa, b, pb in ordered:
        la, lb = cache(pa), cache(pb)
        if la.nonnegative and lb.nonnegative:  # the positive masses are those with bounds
            positive = lb.bounds
            infinite.extend(InfiniteLoss(o, a, b, pa[o]) for o in la.bounds
                            if o not in positive)
            continue
        for o, x in pa.items():
            if x > 0 and pb.get(o, zero) == 0:
                infinite.append(InfiniteLoss(o, a, b, x))
    return infinite


def _excess(ratio: Fraction, eps: Claim) -> Fraction | None:
    """A certified positive lower bound on ``ratio - e**eps`` (None if not found)."""
    bits = 128
    while bits <= 8192:
        gap = ratio - exp_bounds(eps, bits).hi
        if gap > 0:
            return gap
        bits *= 2
    return None


