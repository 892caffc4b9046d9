"""The checker: exact output distributions read off the implementation, and exact checks.

Counting mechanisms ``M: [n] x [d]_+ -> [n]`` (Definition 4.1) are deterministic functions of
``(c, u)``.  Their distribution for ``U ~ Unif([d]_+)`` is derived by calling ``M`` itself:

* :func:`enumerate_distribution` -- every ``u`` in ``[d]_+`` (small ``d`` only);
* :func:`threshold_distribution` -- for non-decreasing ``M`` (Theorem 4.7 iv, 4.10 v) the
  distribution is fixed by the thresholds ``T_z = max{u : M(c, u) <= z}``, found by binary
  search over ``u`` calling ``M``.  With ``hint=True`` the search first tries the candidate
  ``F_c(z)`` and accepts it only if ``M(c, T) <= z < M(c, T + 1)``, which under
  monotonicity pins ``T_z`` exactly as the full search would (a speed-up, never a shortcut
  around ``M``: a candidate that ``M`` contradicts falls back to the full search).  Every
  draw the search examines is kept; two of them out of order (or an output outside
  ``[0, n]``) refuse the mechanism with :class:`NotMonotoneError` (``DomainError``)
  instead of measuring it wrongly.

Both agree wherever both run (tested).  On top of distributions (``dict`` from outcome to
``Fraction``): statistical distance, hockey-stick divergence, worst privacy-loss ratio with
its witness and exact accuracy.  Operation traces and the strict-time check live in
:mod:`exactdp.strict_time` (also importable from here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from math import gcd, lcm
from typing import Any, Literal

from exactdp import ratio_bounds
from exactdp.certificate import brief, brief_apart, exact_json
from exactdp.certified import MAX_PRECISION_BITS, Interval, exp_interval
from exactdp.claims import RatioClaim, exp_bounds
from exactdp.counting import InverseCDFSampler
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    to_fraction,
)
from exactdp.ratio_bounds import BoundsCache, NotScreened
from exactdp.strict_time import TRACED_CALLS, FixedSource, check_strict_time, operation_trace

__all__ = [
    "ENUMERATION_LIMIT",
    "TRACED_CALLS",
    "AccuracyResult",
    "Distribution",
    "FixedSource",
    "NotMonotoneError",
    "RatioWitness",
    "accuracy_probability",
    "certify_ratio",
    "check_strict_time",
    "counting_distribution",
    "counting_distributions",
    "enumerate_distribution",
    "exact_accuracy",
    "hockey_stick",
    "hockey_stick_eps",
    "is_monotone_in_u",
    "operation_trace",
    "statistical_distance",
    "threshold_distribution",
    "thresholds",
    "worst_neighbour_ratio",
    "worst_ratio",
]

#: Largest ``d`` for which :func:`enumerate_distribution` calls ``M`` on every ``u``.
ENUMERATION_LIMIT = 1 << 20

Distribution = dict[Any, Fraction]


def _dist_from_masses(masses: Sequence[int], d: int) -> Distribution:
    return {z: Fraction(m, d) for z, m in enumerate(masses)}


def enumerate_distribution(mech: InverseCDFSampler, c: int,
                           limit: int = ENUMERATION_LIMIT) -> Distribution:
    """``Pr[M(c, U) = z]`` for ``z`` in ``[n]`` by calling ``M(c, u)`` for every ``u``."""
    d = mech.d
    if d > limit:
        raise ResourceLimitError(f"enumerating d = {d} values of u exceeds the limit {limit}; "
                                 f"use threshold_distribution")
    masses = [0] * (mech.n + 1)
    for u in range(1, d + 1):
        z = mech(c, u)
        if not 0 <= z <= mech.n:
            raise DomainError(f"M({c}, {u}) = {z} is outside [0, {mech.n}]")
        masses[z] += 1
    return _dist_from_masses(masses, d)


def is_monotone_in_u(mech: InverseCDFSampler, c: int, limit: int = ENUMERATION_LIMIT) -> bool:
    """Whether ``u -> M(c, u)`` is non-decreasing on all of ``[d]_+`` (enumerated)."""
    if mech.d > limit:
        raise ResourceLimitError(f"d = {mech.d} too large to enumerate (limit {limit})")
    prev = mech(c, 1)
    for u in range(2, mech.d + 1):
        z = mech(c, u)
        if z < prev:
            return False
        prev = z
    return True


class NotMonotoneError(DomainError):
    """The threshold search found ``M(c, u1) > M(c, u2)`` for some ``u1 < u2``: the mechanism
    is not non-decreasing in ``u``, so its thresholds do not determine its distribution."""

    def __init__(self, c: int, u1: int, z1: int, u2: int, z2: int) -> None:
        super().__init__(f"M({c}, {u1}) = {z1} > M({c}, {u2}) = {z2} with {u1} < {u2}: M is "
                         f"not non-decreasing in u, so the threshold search does not apply "
                         f"(enumerate u instead)")
        self.witness = {"c": c, "u1": u1, "z1": z1, "u2": u2, "z2": z2}


class _Memo:
    """``u -> M(c, u)``, each value computed once; ``seen`` keeps every draw examined."""

    def __init__(self, mech: InverseCDFSampler, c: int) -> None:
        self.mech, self.c = mech, c
        self.seen: dict[int, int] = {}

    def __call__(self, u: int) -> int:
        z = self.seen.get(u)
        if z is None:
            z = self.seen[u] = self.mech(self.c, u)
        return z


def thresholds(mech: InverseCDFSampler, c: int, hint: bool = True) -> tuple[int, ...]:
    """``(T_0, ..., T_n)`` with ``T_z = max{u in [0, d] : u = 0 or M(c, u) <= z}``.

    Assumes ``M(c, .)`` non-decreasing (the paper's claim; enumerated on small ``d`` by
    :func:`is_monotone_in_u`).  Binary search: ``log2(d)`` calls of ``M`` per ``z``; with
    ``hint`` two calls confirm the candidate ``F_c(z)`` instead.

    Checked, so that a mechanism that is not monotone is refused rather than measured
    wrongly wherever the search can see it: every interval ``(T_{z-1}, T_z]`` that the
    result gives positive mass must have ``M(c, .) = z`` at both of its ends (under
    monotonicity this always holds; otherwise :class:`NotMonotoneError` names two draws in
    the wrong order, or :class:`~exactdp.params.DomainError` an output outside ``[0, n]``).
    Interior points are not examined: for large ``d`` no search can prove monotonicity.
    At most two extra calls of ``M`` per ``z`` (none when the hint is right).
    """
    d, n = mech.d, mech.n
    m = _Memo(mech, c)
    out: list[int] = []
    lo = 0
    for z in range(n + 1):
        cand = mech.cdf(c, z) if hint else None
        t = _threshold(m, z, lo, d, cand)
        out.append(t)
        lo = t
    if out[-1] != d:
        raise DomainError(f"M({c}, {d}) > n: the mechanism left [0, n]")
    _check_interval_ends(m, c, out)
    return tuple(out)


def _threshold(m: _Memo, z: int, lo: int, d: int, cand: int | None) -> int:
    if cand is not None and lo <= cand <= d:
        ok_low = cand == 0 or m(cand) <= z
        ok_high = cand == d or m(cand + 1) > z
        if ok_low and ok_high:
            return cand
    a, b = lo, d  # invariant: a is good (a == 0 or M(c, a) <= z); the answer is in [a, b]
    while a < b:
        mid = (a + b + 1) // 2
        if m(mid) <= z:
            a = mid
        else:
            b = mid - 1
    return a


def _check_interval_ends(m: _Memo, c: int, ts: Sequence[int]) -> None:
    """Evaluate ``M(c, .)`` at both ends of every non-empty interval ``(T_{z-1}, T_z]``, then
    refuse any output outside ``[0, n]`` and any pair of draws examined (ends and search
    points alike) whose outputs are out of order.  With neither, every end is ``z``: the
    search saw ``M(c, T_{z-1} + 1) > z - 1`` and ``M(c, T_z) <= z``, so a low end above
    ``z`` would be out of order with ``T_z``, a high end below ``z`` with ``T_{z-1} + 1``."""
    n = len(ts) - 1
    for z, t in enumerate(ts):
        low = ts[z - 1] + 1 if z else 1
        if low <= t:
            m(low)
            m(t)
    seen = sorted(m.seen.items())
    for u, v in seen:
        if not 0 <= v <= n:
            raise DomainError(f"M({c}, {u}) = {v} is outside [0, {n}]")
    for (u1, v1), (u2, v2) in pairwise(seen):
        if v1 > v2:
            raise NotMonotoneError(c, u1, v1, u2, v2)


def threshold_distribution(mech: InverseCDFSampler, c: int, hint: bool = True) -> Distribution:
    """``Pr[M(c, U) = z] = (T_z - T_{z-1}) / d`` from :func:`thresholds`."""
    ts = thresholds(mech, c, hint)
    masses = [ts[0]] + [ts[z] - ts[z - 1] for z in range(1, len(ts))]
    return _dist_from_masses(masses, mech.d)


Method = Literal["auto", "enumerate", "thresholds", "search"]


def counting_distribution(mech: InverseCDFSampler, c: int, method: Method = "auto") -> Distribution:
    """The exact distribution of ``M(c, U)`` derived from the implementation.

    ``method``: ``"enumerate"`` (every ``u``), ``"search"`` (plain binary search for every
    threshold), ``"thresholds"`` (binary search confirmed from the ``F_c`` candidate), or
    ``"auto"`` (enumerate when ``d <= 4096``, else thresholds).
    """
    if not callable(mech) or not all(hasattr(mech, a) for a in ("n", "d", "cdf")):
        raise ParameterTypeError(f"mechanism = {mech!r} must be a counting mechanism M(c, u) "
                                 f"with n, d and cdf, such as GeoSample or FastSample")
    if method == "enumerate" or (method == "auto" and mech.d <= 4096):
        return enumerate_distribution(mech, c)
    if method in ("thresholds", "auto"):
        return threshold_distribution(mech, c, hint=True)
    if method == "search":
        return threshold_distribution(mech, c, hint=False)
    raise ParameterError(f"method = {method!r} must be auto, enumerate, thresholds or search")


def counting_distributions(mech: InverseCDFSampler, method: Method = "auto") -> list[Distribution]:
    """``[dist(M(0, U)), ..., dist(M(n, U))]``."""
    return [counting_distribution(mech, c, method) for c in range(mech.n + 1)]


# --------------------------------------------------------------------------- distances

def _check_exact(dist: Mapping[Any, Fraction]) -> None:
    """Refuse ``dist`` unless it is a mapping whose probabilities are ints or Fractions."""
    if not isinstance(dist, Mapping):
        raise ParameterTypeError(f"a distribution must be a mapping outcome -> "
                                 f"probability, not {type(dist).__name__}")
    for o, v in dist.items():
        if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
            raise ParameterTypeError(f"Pr[{o!r}] = {v!r} is a {type(v).__name__}: "
                                     f"probabilities must be exact (Fraction or int)")


def _support(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction]) -> list[Any]:
    """The outcomes of ``p`` and ``q``, after checking that both are exact: every
    probability an int or a Fraction (a float would make every comparison below inexact)."""
    _check_exact(p)
    _check_exact(q)
    keys = dict.fromkeys(p)
    keys.update(dict.fromkeys(q))
    return list(keys)


def _over_common(dist: Mapping[Any, Fraction]) -> tuple[int, dict[Any, int]]:
    """``(D, {o: D P(o)})``: the probabilities of a checked (exact) ``dist`` as integers over
    their least common denominator ``D``."""
    ratios = {o: v.as_integer_ratio() for o, v in dist.items()}
    den = lcm(*(b for _, b in ratios.values()))
    return den, {o: a * (den // b) for o, (a, b) in ratios.items()}


def statistical_distance(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction]) -> Fraction:
    """``Delta(P, Q) = 1/2 sum_r |P(r) - Q(r)|`` (Definition 2.9), exactly: with ``P = a/A``
    and ``Q = b/B`` over common denominators, ``sum_r |a_r B - b_r A| / (2 A B)``."""
    support = _support(p, q)
    (da, a), (db, b) = _over_common(p), _over_common(q)
    total = sum(abs(a.get(r, 0) * db - b.get(r, 0) * da) for r in support)
    return Fraction(total, 2 * da * db)


def hockey_stick(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction], ratio: object,
                 cache: BoundsCache | None = None) -> Fraction:
    """``sup_S P(S) - ratio * Q(S) = sum_r max(0, P(r) - ratio Q(r))``, exactly.

    ``P`` is ``(ln ratio, delta)``-indistinguishable from ``Q`` (one direction) iff this is
    at most ``delta``.  For ``ratio > 0`` and nonnegative laws the outcomes that count are
    screened by short bounds (:func:`~exactdp.ratio_bounds.hockey_sticks_screened`; pass a
    ``cache`` shared by calls on the same laws to read each law once); otherwise
    ``_hockey_stick_direct``.  Both give the same Fraction.
    """
    return _hockey_sticks(p, q, (to_fraction(ratio, "ratio"),), cache)[0]


def _hockey_sticks(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction],
                   ratios: Sequence[Fraction], cache: BoundsCache | None) -> list[Fraction]:
    """:func:`hockey_stick` at each of ``ratios`` (Fractions), one pass when screened."""
    if all(r > 0 for r in ratios):
        try:
            return ratio_bounds.hockey_sticks_screened(p, q, ratios,
                                          BoundsCache() if cache is None else cache)
        except NotScreened:  # a negative mass
            pass
    return [_hockey_stick_direct(p, q, r) for r in ratios]


def _hockey_stick_direct(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction],
                         r: Fraction) -> Fraction:
    """:func:`hockey_stick` for any exact laws and ratio (negative masses too), directly.

    Computed over integers: with ``P(o) = a_o / A``, ``Q(o) = b_o / B`` over the least
    common denominators and ``ratio = rn / rd``, the sum is ``sum_o max(0, a_o rd B - rn b_o
    A) / (A B rd)`` -- the same Fraction, without a Fraction operation per outcome.  The
    loop runs over ``P``'s outcomes (one lookup in ``Q`` each); an outcome of ``Q`` alone
    contributes ``max(0, -ratio Q(o))``, which is 0 unless ``ratio < 0``.
    """
    _check_exact(p)
    _check_exact(q)
    rn, rd = r.numerator, r.denominator
    da = lcm(*[v.denominator for v in p.values()])
    db = lcm(*[v.denominator for v in q.values()])
    pa, qb = rd * db, rn * da  # a_o rd B - rn b_o A = a_o pa - b_o qb
    total = 0
    qget = q.get
    for o, v in p.items():
        w = qget(o, 0)
        t = v.numerator * (da // v.denominator) * pa
        if w:
            t -= w.numerator * (db // w.denominator) * qb
        if t > 0:
            total += t
    if rn < 0:  # outcomes of Q alone: -ratio Q(o) > 0
        for o, w in q.items():
            if w and o not in p:
                total -= w.numerator * (db // w.denominator) * qb
    return Fraction(total, da * db * rd)


def hockey_stick_eps(p: Mapping[Any, Fraction], q: Mapping[Any, Fraction], epsilon: object,
                     bits: int = 128, cache: BoundsCache | None = None) -> Interval:
    """An interval containing ``delta(eps) = sum_r max(0, P(r) - e**eps Q(r))``.

    The divergence is non-increasing in the ratio, so ``[hs(e_hi), hs(e_lo)]`` with
    ``e_lo <= e**eps <= e_hi`` contains it.
    """
    box = exp_bounds(epsilon if isinstance(epsilon, RatioClaim) else
                     to_fraction(epsilon, "epsilon"), bits)
    return Interval(*_hockey_sticks(p, q, (box.hi, box.lo), cache))


@dataclass(frozen=True)
class RatioWitness:
    """The worst ``P(o) / Q(o)`` over the pairs examined, with the pair and outcome.

    ``ratio`` is None when some outcome has ``P(o) > 0 = Q(o)`` (infinite privacy loss).
    """

    ratio: Fraction | None
    numerator_input: Any
    denominator_input: Any
    outcome: Any
    p: Fraction
    q: Fraction

    @property
    def infinite(self) -> bool:
        return self.ratio is None

    def to_json(self) -> dict[str, Any]:
        return {"ratio": "infinity" if self.ratio is None else str(self.ratio),
                "numerator_input": exact_json(self.numerator_input),
                "denominator_input": exact_json(self.denominator_input),
                "outcome": exact_json(self.outcome),
                "p": str(self.p), "q": str(self.q)}


def worst_ratio(pairs: Iterable[tuple[Any, Mapping[Any, Fraction], Any, Mapping[Any, Fraction]]],
                cache: BoundsCache | None = None) -> RatioWitness:
    """The largest ``P_a(o) / P_b(o)`` over the given ordered pairs ``(a, P_a, b, P_b)``.

    Pass both orders of each neighbouring pair for the two-sided DP ratio.  Outcomes with
    ``P_a(o) = 0`` are skipped; ``P_a(o) > 0 = P_b(o)`` is an infinite ratio and wins.  The
    witness is the first pair and outcome (pairs in the order given, outcomes in ``P_a``'s
    order) attaining the worst ratio.  Nonnegative laws are screened by short bounds
    (:func:`~exactdp.ratio_bounds.worst_ratio_screened`; pass a ``cache`` shared by calls on
    the same laws to read each law once); others take ``_worst_ratio_direct``, with the
    same result.
    """
    pairs = list(pairs)
    try:
        got = ratio_bounds.worst_ratio_screened(pairs, BoundsCache() if cache is None else cache)
    except NotScreened:  # a negative mass
        return _worst_ratio_direct(pairs)
    if got is None:
        raise ParameterError("worst_ratio: no outcome with positive probability was examined")
    return RatioWitness(*got)


def _worst_ratio_direct(pairs: Iterable[tuple[Any, Mapping[Any, Fraction], Any,
                                              Mapping[Any, Fraction]]]) -> RatioWitness:
    """:func:`worst_ratio` for any exact laws (negative masses too), directly.

    Each ratio ``x / y`` is kept as the unreduced pair of ints ``(rn, rd)``, ``rd > 0``, and
    compared by cross products (no gcd per outcome; each distribution's probabilities read
    once as integers over their common denominator); the winner is reduced once.
    """
    best: tuple[Any, Any, Any, Fraction, Fraction] | None = None
    bn, bd = 0, 1  # the best ratio so far, bn / bd with bd > 0
    zero = Fraction(0)
    scaled: dict[int, tuple[Mapping[Any, Fraction], int, dict[Any, int]]] = {}

    def over_common(dist: Mapping[Any, Fraction]) -> tuple[int, dict[Any, int]]:
        """:func:`_over_common` of ``dist`` after :func:`_check_exact`, once per distribution
        (a distribution is in several pairs)."""
        got = scaled.get(id(dist))
        if got is None or got[0] is not dist:
            _check_exact(dist)
            got = (dist, *_over_common(dist))
            scaled[id(dist)] = got
        return got[1], got[2]

    for a, pa, b, pb in pairs:
        (da, na), (db, nb) = over_common(pa), over_common(pb)
        support = dict.fromkeys(pa)  # the outcomes of pa, then those only pb has
        support.update(dict.fromkeys(pb))
        for o in support:
            x = na.get(o, 0)
            if x == 0:
                continue
            y = nb.get(o, 0)
            if y == 0:
                return RatioWitness(None, a, b, o, pa.get(o, zero), pb.get(o, zero))
            rn, rd = x * db, da * y  # r = (x / da) / (y / db)
            if rd < 0:
                rn, rd = -rn, -rd
            if best is None or rn * bd > bn * rd:  # r > best ratio
                best, bn, bd = (a, b, o, pa[o], pb[o]), rn, rd
    if best is None:
        raise ParameterError("worst_ratio: no outcome with positive probability was examined")
    return RatioWitness(Fraction(bn, bd), *best)


def worst_neighbour_ratio(dists: Sequence[Mapping[Any, Fraction]]) -> RatioWitness:
    """Counting queries (Definition 4.1, Lemma 4.4): worst ratio over ``c, c+1`` both ways."""
    pairs = []
    for c in range(len(dists) - 1):
        pairs.append((c, dists[c], c + 1, dists[c + 1]))
        pairs.append((c + 1, dists[c + 1], c, dists[c]))
    return worst_ratio(pairs)


def certify_ratio(worst: RatioWitness, epsilon: object) -> tuple[bool, str]:
    """Decide ``worst.ratio <= e**eps`` exactly; return the verdict and the rational bound
    on ``e**eps`` that decided it (decimals in the text are truncated, see ``brief``, with
    enough digits that the two sides differ, see ``brief_apart``)."""
    eps = epsilon if isinstance(epsilon, RatioClaim) else to_fraction(epsilon, "epsilon")
    if worst.ratio is None:
        return False, f"infinite ratio > e^({eps})"
    if isinstance(eps, RatioClaim):  # e^eps is the rational ratio bound itself: exact
        r, bound = worst.ratio, eps.ratio
        shown = brief_apart(r, bound) if r != bound else (brief(r), brief(bound))
        sign = "<=" if r <= bound else ">"
        return r <= bound, f"{shown[0]} {sign} {shown[1]} = e^({eps})"
    # Refine [lo, hi] around e**eps until it separates the ratio (never equal for eps != 0:
    # e**eps is irrational), so that the printed inequality is true as printed.
    bits = 64
    while bits <= MAX_PRECISION_BITS:
        box = exp_interval(eps, bits)
        if worst.ratio <= box.lo:
            shown = brief_apart(worst.ratio, box.lo) if worst.ratio < box.lo else (
                brief(worst.ratio), brief(box.lo))
            return True, f"{shown[0]} <= {shown[1]} <= e^({eps})"
        if worst.ratio > box.hi:
            ratio, hi = brief_apart(worst.ratio, box.hi)
            return False, f"{ratio} > {hi} >= e^({eps})"
        bits *= 2
    raise ResourceLimitError(f"could not separate the ratio {brief(worst.ratio)} from "
                             f"e^({eps}) with {MAX_PRECISION_BITS} bits")


# --------------------------------------------------------------------------- accuracy

def accuracy_probability(dist: Mapping[int, Fraction], c: int, a: int) -> Fraction:
    """``Pr[|M(c) - c| <= a]``."""
    return sum((p for z, p in dist.items() if abs(z - c) <= a), Fraction(0))


@dataclass(frozen=True)
class AccuracyResult:
    """The smallest ``a`` with ``Pr[|M(c, U) - c| <= a] >= 1 - beta`` for every ``c``."""

    a: int
    beta: Fraction
    worst_count: int
    probability: Fraction  # Pr[|M(worst_count) - worst_count| <= a]


def exact_accuracy(dists: Sequence[Mapping[int, Fraction]], beta: object) -> AccuracyResult:
    """The exact smallest accuracy ``a`` of Definition 4.2 for these distributions."""
    b = to_fraction(beta, "beta")
    if not 0 < b <= 1:
        raise ParameterError(f"beta = {b} must lie in (0, 1]")
    if not dists:
        raise ParameterError("exact_accuracy: no distributions given")
    best_a, best_c = -1, 0
    target = 1 - b
    tn, td = target.numerator, target.denominator
    zero = Fraction(0)
    for c, dist in enumerate(dists):
        # prob = num / den as a pair of ints (exact; den > 0 grows by the lcm of the masses'
        # denominators seen), so that prob < 1 - beta is num td < tn den: no Fraction object
        # per added outcome.
        v = dist.get(c, zero)
        a, num, den = 0, v.numerator, v.denominator
        span = max((abs(z - c) for z in dist), default=0)
        while num * td < tn * den:
            if a >= span:  # nothing left to add: mass below 1 - beta (not a distribution)
                raise ParameterError(f"the distribution for c = {c} has total mass "
                                     f"{Fraction(num, den)}, below 1 - beta = {1 - b}")
            a += 1
            for v in (dist.get(c - a, zero), dist.get(c + a, zero)):
                vn, vd = v.as_integer_ratio()
                if vn:
                    if vd == den:
                        num += vn
                    else:
                        g = gcd(den, vd)
                        num, den = num * (vd // g) + vn * (den // g), den * (vd // g)
        if a > best_a:
            best_a, best_c = a, c
    return AccuracyResult(best_a, b, best_c, accuracy_probability(dists[best_c], best_c, best_a))
