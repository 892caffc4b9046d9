"""Exact worst ratios and hockey-stick divergences, screened by short certified bounds.

Comparing two probability ratios ``P(o) / Q(o)`` exactly multiplies integers as long as
the probabilities' denominators (thousands of bits for the law of a loop of ``random()``
draws).  Most comparisons are decided by far less: each positive probability
``P(o) = n / d`` gets a *short bound*, integers ``lo <= hi`` of about :data:`BITS` bits
(``hi - lo <= 10``) and an exponent ``s`` with ``lo 2^s <= P(o) <= hi 2^s``, read off the
top :data:`BITS` bits of ``n`` and ``d`` (:func:`short_bound`).  A ratio of two
probabilities then has a short bound too, and a comparison that the bounds separate is
decided by them; exact products of ``n`` and ``d`` (gmpy2 integers) decide every other one, so the
results -- ratios, witnesses, divergences -- are exactly those of comparing everything
exactly, in the same order.

* :func:`worst_ratio_screened`: the largest ``P_a(o) / P_b(o)`` over ordered pairs, the first
  (in the order given) that attains it, or the first outcome of infinite ratio.  One pass
  keeps the outcomes whose upper bound reaches the best lower bound seen; the exact ratios
  of those alone are compared.
* :func:`hockey_sticks_screened`: ``sum_o max(0, P(o) - r Q(o))`` for several ``r > 0``
  with one pass over the outcomes: which outcomes count is decided by the bounds (exactly
  where they do not separate), and the masses of those are summed as integers.

Both take laws with nonnegative exact masses (:class:`LawBounds` says when a law has
others); callers keep a direct exact path for the rest.  :class:`BoundsCache` reads each law
once however many pairs it is in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import gcd
from typing import Any

from gmpy2 import mpz

from exactdp.params import ParameterTypeError

__all__ = ["BITS", "BoundsCache", "LawBounds", "NotScreened", "hockey_sticks_screened",
           "short_bound", "worst_ratio_screened"]

#: Bits of the numerator and denominator that a short bound reads.
BITS = 64

Bound = tuple[int, int, int]  # (lo, hi, s): lo 2^s <= value <= hi 2^s


def _top(v: int) -> tuple[int, int]:
    """``(m, e)`` with ``m 2^e <= v < (m + 1) 2^e`` and ``m`` of :data:`BITS` bits
    (``v > 0``; exact, ``m 2^e = v``, when ``v`` has at most :data:`BITS` bits)."""
    e = v.bit_length() - BITS
    return (v >> e, e) if e > 0 else (v << -e, e)


def short_bound(n: int, d: int) -> Bound:
    """``(lo, hi, s)`` with ``lo 2^s <= n / d <= hi 2^s`` (``n, d > 0``).

    With ``n`` in ``[mn, mn + 1) 2^en`` and ``d`` in ``[md, md + 1) 2^ed``:
    ``n / d > mn / (md + 1) 2^(en - ed) >= floor(mn 2^B / (md + 1)) 2^(en - ed - B)`` and
    ``n / d < (mn + 1) / md 2^(en - ed) <= (floor((mn + 1) 2^B / md) + 1) 2^(en - ed - B)``.
    """
    mn, en = _top(n)
    md, ed = _top(d)
    return (mn << BITS) // (md + 1), ((mn + 1) << BITS) // md + 1, en - ed - BITS


def _ratio_bound(p: Bound, q: Bound) -> Bound:
    """A short bound on ``x / y`` from ``x`` in ``p`` and ``y`` in ``q`` (both positive)."""
    return (p[0] << BITS) // q[1], (p[1] << BITS) // q[0] + 1, p[2] - q[2] - BITS


def _above(a: int, sa: int, b: int, sb: int) -> bool:
    """``a 2^sa > b 2^sb``, exactly."""
    k = sa - sb
    return (a << k) > b if k >= 0 else a > (b << -k)


class LawBounds:
    """One law read once: the short bound of each positive mass (its masses checked exact).

    ``nonnegative`` is False when some mass is negative (then nothing else is kept: the
    screened functions do not apply).
    """

    __slots__ = ("bounds", "law", "nonnegative")

    def __init__(self, law: Mapping[Any, Any]) -> None:
        if not isinstance(law, Mapping):
            raise ParameterTypeError(f"a distribution must be a mapping outcome -> "
                                     f"probability, not {type(law).__name__}")
        self.law = law
        self.nonnegative = True
        bounds: dict[Any, Bound] = {}
        b = BITS
        for o, v in law.items():
            if type(v) is Fraction:
                n, d = v.numerator, v.denominator
            elif isinstance(v, bool) or not isinstance(v, (int, Fraction)):
                raise ParameterTypeError(f"Pr[{o!r}] = {v!r} is a {type(v).__name__}: "
                                         f"probabilities must be exact (Fraction or int)")
            else:
                n, d = v.as_integer_ratio()
            if n > 0:  # short_bound(n, d), inline: once per outcome of every law
                en, ed = n.bit_length() - b, d.bit_length() - b
                mn = n >> en if en > 0 else n << -en
                md = d >> ed if ed > 0 else d << -ed
                bounds[o] = ((mn << b) // (md + 1), ((mn + 1) << b) // md + 1, en - ed - b)
            elif n < 0:
                self.nonnegative = False
        #: outcome -> short bound of its mass, for the outcomes of positive mass
        self.bounds = bounds


class NotScreened(Exception):
    """A law with a negative mass reached a screened function: use the direct path."""


class BoundsCache:
    """:class:`LawBounds` per law object, each law read once (the laws must not change
    while the cache is in use)."""

    __slots__ = ("_laws",)

    def __init__(self) -> None:
        self._laws: dict[int, LawBounds] = {}

    def __call__(self, law: Mapping[Any, Any]) -> LawBounds:
        got = self._laws.get(id(law))
        if got is None or got.law is not law:
            got = self._laws[id(law)] = LawBounds(law)
        return got


def _exact(v: Any) -> tuple[mpz, mpz]:
    n, d = v.as_integer_ratio()
    return mpz(n), mpz(d)


Pair = tuple[Any, Mapping[Any, Any], Any, Mapping[Any, Any]]


def worst_ratio_screened(pairs: Sequence[Pair], cache: BoundsCache
                         ) -> tuple[Fraction | None, Any, Any, Any, Any, Any] | None:
    """The largest ``P_a(o) / P_b(o)`` over the ordered pairs ``(a, P_a, b, P_b)`` (all laws
    nonnegative, else :class:`NotScreened`): ``(ratio, a, b, o, P_a(o), P_b(o))`` for the
    first pair and outcome (pairs in order, outcomes in ``P_a``'s order) that attains it;
    ``ratio`` None for the first outcome with ``P_a(o) > 0 = P_b(o)``; None when no outcome
    has ``P_a(o) > 0``.

    Screening: a pass computes each ratio's short bound, keeps the best lower bound seen
    and every outcome whose upper bound reaches it (the first outcome attaining the
    maximum is among them: its upper bound is at least every lower bound); the kept
    outcomes whose upper bound reaches the final best lower bound are then compared
    exactly, in order, a later one replacing the best only when strictly larger.
    """
    best_lo = best_s = 0
    have = False
    kept: list[tuple[int, Any, int, int]] = []
    for i, (a, pa, b, pb) in enumerate(pairs):
        la, lb = cache(pa), cache(pb)
        if not (la.nonnegative and lb.nonnegative):
            raise NotScreened
        get = lb.bounds.get
        for o, p in la.bounds.items():
            q = get(o)
            if q is None:
                return None, a, b, o, pa[o], pb.get(o, Fraction(0))
            lo, hi, s = _ratio_bound(p, q)
            if not have or _above(lo, s, best_lo, best_s):
                best_lo, best_s, have = lo, s, True
            if not _above(best_lo, best_s, hi, s):
                kept.append((i, o, hi, s))
    if not have:
        return None
    bn = bd = mpz(0)
    best: tuple[Any, Any, Any, Any, Any] | None = None
    for i, o, hi, s in kept:
        if _above(best_lo, best_s, hi, s):
            continue
        a, pa, b, pb = pairs[i]
        (xn, xd), (yn, yd) = _exact(pa[o]), _exact(pb[o])
        rn, rd = xn * yd, xd * yn  # P_a(o) / P_b(o) = rn / rd, rd > 0
        if best is None or rn * bd > bn * rd:
            best, bn, bd = (a, b, o, pa[o], pb[o]), rn, rd
    assert best is not None  # the outcome of the best lower bound is kept
    return (Fraction(int(bn), int(bd)), *best)


def _mass_sum(values: Sequence[Any]) -> tuple[mpz, mpz]:
    """``(num, den)``, ``den > 0``, with ``num / den`` the exact sum of ``values`` (exact
    masses), over a common denominator grown only when a denominator does not divide it."""
    num, den = mpz(0), mpz(1)
    for v in values:
        n, d = _exact(v)
        if d == den:
            num += n
        elif den % d == 0:
            num += n * (den // d)
        elif d % den == 0:
            num, den = num * (d // den) + n, d
        else:
            g = gcd(den, d)
            num, den = num * (d // g) + n * (den // g), den * (d // g)
    return num, den


def hockey_sticks_screened(p: Mapping[Any, Any], q: Mapping[Any, Any],
                           ratios: Sequence[Fraction], cache: BoundsCache) -> list[Fraction]:
    """``[sum_o max(0, P(o) - r Q(o)) for r in ratios]`` (all ``r > 0``, both laws
    nonnegative: else :class:`NotScreened`), exactly.

    An outcome counts for ``r`` iff ``P(o) > 0`` and ``Q(o) = 0`` or ``P(o) / Q(o) > r``;
    the short bounds of the ratio and of ``r`` decide this where they separate, the exact
    products where not.  Then the divergence is ``P(S) - r Q(S)`` over the outcomes ``S``
    that count, summed exactly.
    """
    lp, lq = cache(p), cache(q)
    if not (lp.nonnegative and lq.nonnegative):
        raise NotScreened
    bp, bq = lp.bounds, lq.bounds
    rs = [(r, short_bound(r.numerator, r.denominator)) for r in ratios]
    counted: list[list[Any]] = [[] for _ in rs]
    get = bq.get
    for o, pb in bp.items():
        qb = get(o)
        if qb is None:
            for c in counted:
                c.append(o)
            continue
        lo, hi, s = _ratio_bound(pb, qb)
        for (r, (rlo, rhi, rexp)), c in zip(rs, counted, strict=True):
            if _above(lo, s, rhi, rexp):
                c.append(o)
            elif not _above(hi, s, rlo, rexp):
                continue
            else:
                (xn, xd), (yn, yd) = _exact(p[o]), _exact(q[o])
                if xn * yd * r.denominator > r.numerator * xd * yn:
                    c.append(o)
    out = []
    last: tuple[list[Any], tuple[mpz, mpz], tuple[mpz, mpz]] | None = None
    for r, c in zip(ratios, counted, strict=True):
        if not c:
            out.append(Fraction(0))
            continue
        if last is None or last[0] != c:  # the same outcomes count for most ratios
            last = (c, _mass_sum([p[o] for o in c]), _mass_sum([q[o] for o in c if o in bq]))
        _, (an, ad), (bn, bd) = last
        rn, rd = mpz(r.numerator), mpz(r.denominator)
        out.append(Fraction(int(an * rd * bd - rn * bn * ad), int(ad * rd * bd)))
    return out
