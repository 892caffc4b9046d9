"""Certified bounds on many-fold compositions whose exact loss is out of reach.

The exact composition (:mod:`exactdp.accounting.compose`) is fast when every ratio of a loss
lies on one lattice ``offset * base**i``.  A loss with ratios on no common lattice (FastSample
at ``n > 1``: a few ratios near ``e**(+-eps~)``; the discrete Gaussian's rounded weights:
thousands) has, after ``k`` releases, as many distinct ratios as there are ways to pick ``k``
atoms -- about ``C(k + m - 1, m - 1)`` for ``m`` ratios, ``4 * 10**10`` at ``m = 5, k =
1000``.  There :class:`GridLoss` gives a *certified interval*:

``delta(R) = sum_o max(0, P(o) - R Q(o)) = P(V = inf) + E_P[(1 - R/V)_+]`` depends on the
law of the ratio ``V`` under ``P`` only, and is non-decreasing in every ratio and in every
P-mass.  So

* the **lower** bound rounds each ratio *down* onto ``b**e`` (``b > 1`` rational, ``e`` an
  integer decided exactly by :func:`exactdp.certified.ceil_log_ratio`) and each P-mass *down*
  to a multiple of ``2**-bits``;
* the **upper** bound splits each atom ``(p, q)`` of ratio ``b**(e-1) < v < b**e`` into two
  atoms of ratios exactly ``b**(e-1)`` and ``b**e`` with the same total masses ``p`` and
  ``q`` (the original pair is the split pair with the two atoms merged, a post-processing,
  so the split pair's ``delta`` is at least the original's, also after composition: the
  "connect the dots" bound of Doroshenko, Ghazi, Kamath, Kumar and Manurangsi, 2022, here
  with exact rationals), then rounds each P-mass *up*;
* ``k`` independent releases multiply the ratios (add the exponents) and the masses: the
  rounded P-masses compose by polynomial products (:mod:`exactdp.histograms.polymul`,
  repeated squaring), each product's masses rounded back to ``bits`` bits in the bound's
  direction; the composed masses bound the true ones slot by slot, so the composed ``delta``
  bounds the true one;
* mass in the far tails (at most ``2**-tail_bits`` per side and step) is moved where it can
  only raise (upper: the top tail becomes infinite ratio, the bottom tail joins the lowest
  kept slot) or lower (lower: the top tail joins the highest kept slot, the bottom tail is
  dropped) the bound;
* ``delta`` of a bound at a rational ``R``: ``P(inf) + sum_{b**e > R} P_e (1 - R b**-e)``,
  its sum by a fixed-point Horner scheme rounded in the bound's direction, the result
  rounded outward to a multiple of ``2**-(bits + 64)``.

Everything is integer arithmetic; the width of the interval comes from the ratio lattice
(at most ``k ln b`` of loss per release, usually much less) and the mass rounding.

>>> from fractions import Fraction as F
>>> from exactdp.accounting import PrivacyLoss
>>> loss = PrivacyLoss.from_laws({0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)})
>>> box = delta_interval(loss, 8, ratio=F(5), base=F(1025, 1024))
>>> box.lo <= loss.power(8).delta_at_ratio(5) <= box.hi
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import gmpy2

from exactdp.accounting.loss import PrivacyLoss, check_loss
from exactdp.certified import Interval, ceil_log_ratio, exp_interval
from exactdp.histograms.polymul import truncated_product, truncated_square
from exactdp.params import ParameterError, to_fraction

__all__ = ["DEFAULT_BASE", "GridLoss", "delta_interval", "epsilon_interval", "grid_bounds",
           "log_exponent"]

#: The default lattice ``b = 1 + 2**-16`` (ratios rounded by at most ``1.5 * 10**-5`` of loss).
DEFAULT_BASE = Fraction(65537, 65536)
#: Extra bits of the fixed-point sums in :meth:`GridLoss.delta_at_ratio`.
_GUARD = 64


def log_exponent(x: Fraction, base: Fraction, up: bool) -> int:
    """``ceil(log_base x)`` (``up``) or ``floor(log_base x)``, exactly, for ``x > 0`` and
    ``base > 1``: the integer ``e`` with ``base**(e-1) < x <= base**e`` (resp.
    ``base**e <= x < base**(e+1)``)."""
    if x >= 1:
        e = ceil_log_ratio(x, base)
        if up or base**e == x:
            return e
        return e - 1
    e = ceil_log_ratio(1 / x, base)  # base**(e-1) < 1/x <= base**e
    exact = base**e == 1 / x
    if up:
        return -e if exact else -e + 1
    return -e


@dataclass(frozen=True)
class GridLoss:
    """A bound on a privacy loss's law under ``P``: slot ``i`` holds P-mass
    ``masses[i] / 2**bits`` at ratio ``base**(low + i)``, and ``inf / 2**bits`` sits at
    infinite ratio.  ``upper``: its ``delta`` at every ratio is at least the true loss's,
    also after composition with other upper bounds; otherwise at most (see the module
    doc)."""

    base: Fraction
    low: int
    masses: tuple[int, ...]
    inf: int
    bits: int
    upper: bool
    tail_bits: int

    def _check_same(self, other: GridLoss) -> None:
        if (other.base, other.bits, other.upper) != (self.base, self.bits, self.upper):
            raise ParameterError("grid losses compose only on the same base, bits and "
                                 "direction")

    def compose(self, other: GridLoss) -> GridLoss:
        """The bound of the two releases run independently."""
        self._check_same(other)
        size = len(self.masses) + len(other.masses) - 1
        if other is self:
            raw = truncated_square(self.masses, size)
        else:
            raw = truncated_product(self.masses, other.masses, size)
        one = 1 << self.bits
        fin = (one - self.inf) * (one - other.inf)  # over 2**(2 bits)
        if self.upper:
            mask = one - 1
            masses = [(x + mask) >> self.bits for x in raw]
            inf = one - (fin >> self.bits)
        else:
            masses = [x >> self.bits for x in raw]
            inf = one - ((fin + one - 1) >> self.bits)
        return self._pruned(self.low + other.low, masses, inf)

    def _pruned(self, low: int, masses: list[int], inf: int) -> GridLoss:
        """Tails of at most ``2**(bits - tail_bits)`` units per side moved in the bound's
        direction (see the module doc)."""
        tol = 1 << max(0, self.bits - self.tail_bits)
        n = len(masses)
        top, acc = n, 0
        while top > 1 and acc + masses[top - 1] <= tol:
            acc += masses[top - 1]
            top -= 1
        bottom, acc_b = 0, 0
        while bottom < top - 1 and acc_b + masses[bottom] <= tol:
            acc_b += masses[bottom]
            bottom += 1
        kept = masses[bottom:top]
        if self.upper:
            inf += acc
            kept[0] += acc_b
        else:
            kept[-1] += acc
        return GridLoss(self.base, low + bottom, tuple(kept), inf, self.bits, self.upper,
                        self.tail_bits)

    def power(self, k: int) -> GridLoss:
        """The bound of ``k >= 1`` independent runs (repeated squaring)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ParameterError(f"k = {k!r} must be an int >= 1 (the number of releases)")
        result: GridLoss | None = None
        sq = self
        while True:
            if k & 1:
                result = sq if result is None else result.compose(sq)
            k >>= 1
            if not k:
                break
            sq = sq.compose(sq)
        assert result is not None
        return result

    def delta_at_ratio(self, ratio: object) -> Fraction:
        """A bound (upper or lower, as the grid) on ``delta`` at ``eps = ln R``,
        ``R = ratio > 0``: a multiple of ``2**-(bits + 64)``."""
        r = to_fraction(ratio, "ratio")
        if r <= 0:
            raise ParameterError(f"ratio = {r} must be > 0 (R = e**eps)")
        return self._delta(r, log_exponent(r, self.base, up=False) + 1)

    def delta_at_exponent(self, e: int) -> Fraction:
        """:meth:`delta_at_ratio` at the lattice point ``R = base**e``."""
        b = self.base
        return self._delta(b**e if e >= 0 else 1 / b**-e, e + 1)

    def _delta(self, r: Fraction, first: int) -> Fraction:
        """The bound at ``R = r``, ``first`` the least exponent with ``base**first > r``."""
        start = max(0, first - self.low)
        bn, bd = self.base.numerator, self.base.denominator
        acc = gmpy2.mpz(0)  # sum_{i >= start} m_i b**-(i - start), times 2**_GUARD
        for m in reversed(self.masses[start:]):
            if self.upper:  # a lower bound on the sum: delta's upper bound
                acc = acc * bd // bn + (m << _GUARD)
            else:
                acc = -((-acc * bd) // bn) + (m << _GUARD)
        big_a = sum(self.masses[start:]) + self.inf
        e = self.low + start  # delta * 2**bits = A - R * b**-e * acc / 2**_GUARD
        num_r, den_r = r.numerator, r.denominator
        if e >= 0:
            sub_num, sub_den = num_r * gmpy2.mpz(bd)**e * acc, den_r * gmpy2.mpz(bn)**e << _GUARD
        else:
            sub_num, sub_den = num_r * gmpy2.mpz(bn)**-e * acc, den_r * gmpy2.mpz(bd)**-e << _GUARD
        scale = self.bits + _GUARD
        # delta * 2**scale = (A * sub_den - sub_num) * 2**_GUARD / sub_den
        top = (big_a * sub_den - sub_num) << _GUARD
        q = top // sub_den if not self.upper else -((-top) // sub_den)
        return Fraction(int(max(q, 0)), 1 << scale)

    def delta(self, epsilon: object) -> Fraction:
        """The bound on ``delta`` at ``eps`` (``e**eps`` through a certified interval, on
        the bound's side)."""
        eps = to_fraction(epsilon, "epsilon")
        box = exp_interval(eps, 64 + self.bits)
        return self.delta_at_ratio(box.lo if self.upper else box.hi)


def _power(b: Fraction, e: int) -> Fraction:
    return b**e if e >= 0 else 1 / b**-e


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


class _Powers:
    """Integers ``lo[e] <= b**e * 2**F <= hi[e]`` for ``e`` in ``[first, last]``, each from
    the previous one by one multiplication rounded outward, and exact comparisons of
    ``b**e`` with a ratio (the bounds decide almost always; an exact power otherwise)."""

    def __init__(self, b: Fraction, first: int, last: int, f: int) -> None:
        self.b, self.first, self.f = b, first, f
        start = _power(b, first)
        lo, hi = (start.numerator << f) // start.denominator, \
            _ceil_div(start.numerator << f, start.denominator)
        bn, bd = gmpy2.mpz(b.numerator), gmpy2.mpz(b.denominator)
        self.lo, self.hi = [lo], [hi]
        for _ in range(last - first):
            lo, hi = lo * bn // bd, -((-hi * bn) // bd)
            self.lo.append(lo)
            self.hi.append(hi)

    def compare(self, e: int, v: Fraction) -> int:
        """The sign of ``b**e - v``."""
        i = e - self.first
        target = v.numerator << self.f
        if self.hi[i] * v.denominator < target:
            return -1
        if self.lo[i] * v.denominator > target:
            return 1
        x = _power(self.b, e)
        return (x > v) - (x < v)


def grid_bounds(loss: PrivacyLoss, base: object = DEFAULT_BASE, bits: int = 96,
                tail_bits: int = 80) -> tuple[GridLoss, GridLoss]:
    """The lower and the upper :class:`GridLoss` of ``loss`` on the ratios ``base**e``."""
    loss = check_loss(loss, "loss")
    b = to_fraction(base, "base")
    if b <= 1:
        raise ParameterError(f"base = {b} must be > 1")
    for name, value in (("bits", bits), ("tail_bits", tail_bits)):
        if isinstance(value, bool) or not isinstance(value, int) or not 8 <= value <= 4096:
            raise ParameterError(f"{name} = {value!r} must be an int in [8, 4096]")
    atoms = [(v, p, q) for v, p, q in loss.atoms() if p]
    inf = loss.infinite_mass
    one = 1 << bits
    low_slots: dict[int, int] = {}
    up_slots: dict[int, int] = {}
    if atoms:
        first = log_exponent(atoms[0][0], b, up=True) - 1
        last = log_exponent(atoms[-1][0], b, up=True)
        f = bits + 64 + (last - first + 1).bit_length()
        powers = _Powers(b, first, last, f)
        bn, bd = b.numerator, b.denominator
        e = first + 1  # the least e with b**e >= the current atom's ratio
        for v, p, q in atoms:
            while (sign := powers.compare(e, v)) < 0:
                e += 1
            pn, pd = p.numerator, p.denominator
            m_down = (pn << bits) // pd
            m_up = _ceil_div(pn << bits, pd)
            if sign == 0:  # on the lattice: both bounds keep the atom as it is
                low_slots[e] = low_slots.get(e, 0) + m_down
                up_slots[e] = up_slots.get(e, 0) + m_up
                continue
            low_slots[e - 1] = low_slots.get(e - 1, 0) + m_down
            # upper: the atom split between b**(e-1) < v < b**e into masses (p1, q1),
            # (p2, q2), p1 + p2 = p, q1 + q2 = q, ratios b**(e-1) and b**e:
            # p2 = (p - q b**(e-1)) b / (b - 1), bounded through lo/hi of b**(e-1)
            qn, qd = q.numerator, q.denominator
            i = e - 1 - first
            den = pd * qd * (bn - bd) << f
            p2_hi = _ceil_div((((pn * qd) << f) - qn * pd * powers.lo[i]) * bn << bits, den)
            p2_lo = max(0, ((((pn * qd) << f) - qn * pd * powers.hi[i]) * bn << bits) // den)
            up_slots[e] = up_slots.get(e, 0) + p2_hi
            up_slots[e - 1] = up_slots.get(e - 1, 0) + m_up - p2_lo
    inf_down = (inf.numerator << bits) // inf.denominator
    inf_up = _ceil_div(inf.numerator << bits, inf.denominator)
    out = []
    for slots, inf_m, up in ((low_slots, inf_down, False), (up_slots, inf_up, True)):
        if not slots:
            slots = {0: 0}
        low, high = min(slots), max(slots)
        masses = tuple(int(slots.get(x, 0)) for x in range(low, high + 1))
        out.append(GridLoss(b, low, masses, int(min(inf_m, one)), bits, up, tail_bits))
    return out[0], out[1]


def delta_interval(loss: PrivacyLoss, k: int, *, ratio: object = None, epsilon: object = None,
                   base: object = DEFAULT_BASE, bits: int = 96) -> Interval:
    """A certified interval containing ``delta`` of ``k`` independent runs of ``loss`` at
    ``eps = ln ratio`` (or at ``epsilon``; exactly one of the two)."""
    if (ratio is None) == (epsilon is None):
        raise ParameterError("give exactly one of ratio and epsilon")
    lower, upper = grid_bounds(loss, base, bits)
    lo, hi = lower.power(k), upper.power(k)
    if ratio is not None:
        return Interval(lo.delta_at_ratio(ratio), hi.delta_at_ratio(ratio))
    return Interval(lo.delta(epsilon), hi.delta(epsilon))


def epsilon_interval(lower: GridLoss, upper: GridLoss, delta: object) -> Interval | None:
    """A certified interval containing the least ``eps >= 0`` with ``delta(eps) <= delta``
    of the loss that ``lower`` and ``upper`` bound, to within one lattice step ``ln b``:
    ``[e_lo ln b, e_hi ln b]`` (``ln b`` through a certified interval) for the largest
    ``e_lo`` with ``lower.delta_at_ratio(b**e_lo) > delta`` and the least ``e_hi`` with
    ``upper.delta_at_ratio(b**e_hi) <= delta``; None when no lattice point of the upper
    bound reaches ``delta`` (its infinite mass exceeds it)."""
    from exactdp.certified import ln_interval

    d = to_fraction(delta, "delta")
    if not 0 <= d < 1:
        raise ParameterError(f"delta = {d} must lie in [0, 1)")
    if lower.base != upper.base or lower.upper or not upper.upper:
        raise ParameterError("epsilon_interval needs a lower and an upper bound on one base")
    b = upper.base

    def at(g: GridLoss, e: int) -> Fraction:
        return g.delta_at_exponent(e)

    top = upper.low + len(upper.masses)  # above every slot: only the infinite mass is left
    if at(upper, top) > d:
        return None
    lo_e, hi_e = 0, max(top, 0)  # least e >= 0 with upper(e) <= d lies in [0, hi_e]
    while lo_e < hi_e:
        mid = (lo_e + hi_e) // 2
        if at(upper, mid) <= d:
            hi_e = mid
        else:
            lo_e = mid + 1
    e_hi = lo_e
    # the largest e in [0, e_hi) with lower(e) > d (lower <= upper: none at or above e_hi)
    lo_e, hi_e = -1, e_hi - 1
    while lo_e < hi_e:
        mid = (lo_e + hi_e + 1) // 2
        if at(lower, mid) > d:
            lo_e = mid
        else:
            hi_e = mid - 1
    e_lo = max(lo_e, 0)
    ln_b = ln_interval(b, 64 + b.denominator.bit_length())
    return Interval(e_lo * ln_b.lo, e_hi * ln_b.hi)
