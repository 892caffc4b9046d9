"""Exact privacy-loss distributions.

For two exact laws ``P`` and ``Q`` on the same outcomes (a mechanism on neighbouring inputs
``a`` and ``b``) the privacy loss of an outcome ``o`` is ``ln P(o)/Q(o)``.  It is kept here as
the likelihood *ratio* ``V(o) = P(o)/Q(o)`` -- an exact rational, or infinity where
``Q(o) = 0 < P(o)`` -- and :class:`PrivacyLoss` records, for every distinct ratio ``v``, the
P-mass and the Q-mass of the outcomes with ratio ``v``: integer numerators over one
P-denominator and one Q-denominator.  From these:

* ``delta_at_ratio(R) = sum_o max(0, P(o) - R Q(o)) = sum_{v > R} (P_v - R Q_v) + P(V = inf)``,
  the hockey-stick divergence at ``eps = ln R``: an exact Fraction for rational ``R``;
* ``delta(eps)`` and ``epsilon(delta)``: certified intervals (``e**eps`` and ``ln R`` only
  through :mod:`exactdp.certified`; ``delta_at_ratio`` is non-increasing in ``R``, and the
  least ``R`` with ``delta_at_ratio(R) <= delta`` is rational: the divergence is piecewise
  linear in ``R``);
* composition (:mod:`exactdp.accounting.compose`): the ratio of a pair of independent
  outcomes is the product of their ratios, its P-mass (Q-mass) the product of theirs.

Where every ratio is ``offset * base**i`` (:mod:`exactdp.accounting.lattice`) the masses are
kept as dense integer lists indexed by ``i`` and composition is a polynomial product.

>>> from fractions import Fraction as F
>>> loss = PrivacyLoss.from_laws({0: F(3, 4), 1: F(1, 4)}, {0: F(1, 4), 1: F(3, 4)})
>>> loss.max_ratio, loss.delta_at_ratio(1), loss.delta_at_ratio(2), loss.delta_at_ratio(3)
(Fraction(3, 1), Fraction(1, 2), Fraction(1, 4), Fraction(0, 1))
>>> loss.smallest_ratio(Fraction(1, 4))
Fraction(2, 1)
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Iterator, Mapping
from fractions import Fraction
from math import lcm
from typing import Any

import gmpy2

from exactdp.accounting.lattice import common_base
from exactdp.accounting.product import compose_all, power_of
from exactdp.certified import Interval, compare_exp, exp_interval, ln_interval
from exactdp.params import ParameterError, ParameterTypeError, to_fraction

__all__ = ["LawError", "PrivacyLoss", "check_loss", "law_of", "laws_of"]


def _reduced(num: int, den: int) -> Fraction:
    """``Fraction(num, den)`` (``den > 0``) reduced with GMP's sub-quadratic gcd: the
    numbers of a many-fold composition have hundreds of thousands of bits, where Python's
    own gcd (quadratic) dominates everything else."""
    if den.bit_length() < 4096:
        return Fraction(int(num), int(den))
    n, d = gmpy2.mpz(num), gmpy2.mpz(den)
    g = gmpy2.gcd(n, d)
    if g != 1:
        n, d = n // g, d // g  # GMP's division: sub-quadratic too
    out = object.__new__(Fraction)  # already in lowest terms: skip Fraction's own gcd
    out._numerator, out._denominator = int(n), int(d)  # type: ignore[attr-defined]
    return out


class LawError(ParameterError):
    """A law given to :meth:`PrivacyLoss.from_laws` is not an exact probability law."""


def _law(dist: object, name: str) -> tuple[int, dict[Hashable, int]]:
    """``(D, {o: D P(o)})`` for an exact law (probabilities int/Fraction, >= 0, sum 1)."""
    if not isinstance(dist, Mapping):
        raise ParameterTypeError(f"{name} must be a mapping outcome -> Fraction, not "
                                 f"{type(dist).__name__}")
    if not dist:
        raise LawError(f"{name} is empty; a law needs at least one outcome")
    for o, v in dist.items():
        if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
            raise ParameterTypeError(f"{name}[{o!r}] = {v!r} is a {type(v).__name__}: "
                                     f"probabilities must be exact (Fraction or int)")
        if v < 0:
            raise LawError(f"{name}[{o!r}] = {v} must be >= 0")
    den = lcm(*(Fraction(v).denominator for v in dist.values()))
    nums = {o: Fraction(v).numerator * (den // Fraction(v).denominator)
            for o, v in dist.items()}
    total = sum(nums.values())
    if total != den:
        raise LawError(f"{name} sums to {Fraction(total, den)}, not 1 (an exact law "
                       f"outcome -> probability is needed)")
    return den, nums


class PrivacyLoss:
    """The exact privacy-loss distribution of ``P`` against ``Q`` (see the module doc).

    Build it with :meth:`from_laws` or :meth:`of`; combine with :meth:`compose`.  Immutable.
    ``pden``/``qden``: the P- and Q-denominators; ``infinite_mass``: ``P(Q = 0)``;
    ``zero_mass``: ``Q(P = 0)``.
    """

    __slots__ = ("_base", "_cache", "_inf", "_offset", "_pden", "_pn", "_qden", "_qn",
                 "_vals", "_zero")

    def __init__(self, *, pden: int, qden: int, pn: list[int], qn: list[int], inf: int,
                 zero: int, values: tuple[Fraction, ...] | None = None,
                 offset: Fraction | None = None, base: Fraction | None = None) -> None:
        """Internal: use :meth:`from_laws`, :meth:`of` or :func:`compose`.  Either ``values``
        (sorted distinct ratios, aligned with ``pn``/``qn``) or ``offset`` (and ``base``
        when there is more than one slot: slot ``i`` has ratio ``offset * base**i``)."""
        if (values is None) == (offset is None):
            raise ParameterError("PrivacyLoss: give exactly one of values and offset")
        self._pden, self._qden = pden, qden
        self._pn, self._qn = pn, qn
        self._inf, self._zero = inf, zero
        self._vals, self._offset, self._base = values, offset, base
        self._cache: dict[str, Any] = {}

    # ------------------------------------------------------------------------ building

    @classmethod
    def from_laws(cls, p: Mapping[Any, Fraction], q: Mapping[Any, Fraction]) -> PrivacyLoss:
        """The privacy loss of the exact law ``p`` against ``q`` (dicts outcome ->
        Fraction, each summing to exactly 1).  Outcomes missing from a law have
        probability 0 there."""
        pden, pnum = _law(p, "p")
        qden, qnum = _law(q, "q")
        atoms: dict[Fraction, list[int]] = {}
        inf = zero = 0
        for o, a in pnum.items():
            b = qnum.get(o, 0)
            if a and b:
                v = Fraction(a * qden, b * pden)
                slot = atoms.setdefault(v, [0, 0])
                slot[0] += a
                slot[1] += b
            elif a:
                inf += a
        for o, b in qnum.items():
            if b and not pnum.get(o, 0):
                zero += b
        return cls._from_atoms(pden, qden, atoms, inf, zero)

    @classmethod
    def from_numerators(cls, pden: int, qden: int,
                        atoms: Mapping[Fraction, tuple[int, int] | list[int]]) -> PrivacyLoss:
        """The loss whose finite ratio ``v`` carries P-mass ``atoms[v][0] / pden`` and
        Q-mass ``atoms[v][1] / qden`` (a law given by integer numerators over common
        denominators, e.g. from a closed form), with no infinite or zero ratio.  Checked:
        positive denominators, non-negative numerators, each side summing to 1, and
        ``P/Q == v`` on every atom."""
        if pden < 1 or qden < 1:
            raise ParameterError(f"denominators {pden}, {qden} must be >= 1")
        sp = sq = 0
        for v, (a, b) in atoms.items():
            if a < 0 or b < 0 or v <= 0 or (a or b) and a * qden != v * b * pden:
                raise LawError(f"atom {v}: P-numerator {a} / {pden} and Q-numerator {b} / "
                               f"{qden} are not non-negative with ratio {v}")
            sp += a
            sq += b
        if sp != pden or sq != qden:
            raise LawError(f"the numerators sum to {sp}/{pden} and {sq}/{qden}, not 1")
        return cls._from_atoms(pden, qden, {v: [a, b] for v, (a, b) in atoms.items()}, 0, 0)

    @classmethod
    def _from_atoms(cls, pden: int, qden: int, atoms: Mapping[Fraction, list[int]],
                    inf: int, zero: int) -> PrivacyLoss:
        """A loss from ``{ratio: [P-numerator, Q-numerator]}``: on a lattice when the ratios
        are on one (:func:`exactdp.accounting.lattice.common_base`), else as atoms."""
        vals = sorted(v for v, (a, b) in atoms.items() if a or b)
        lattice = common_base(vals)
        if lattice is not None:
            offset, base, exps = lattice
            size = exps[-1] + 1
            pn, qn = [0] * size, [0] * size
            for v, e in zip(vals, exps):
                pn[e], qn[e] = atoms[v]
            return cls(pden=pden, qden=qden, pn=pn, qn=qn, inf=inf, zero=zero,
                       offset=offset, base=base)
        if not vals:  # only infinite and zero ratios: an empty lattice at ratio 1
            return cls(pden=pden, qden=qden, pn=[], qn=[], inf=inf, zero=zero,
                       offset=Fraction(1))
        return cls(pden=pden, qden=qden, pn=[atoms[v][0] for v in vals],
                   qn=[atoms[v][1] for v in vals], inf=inf, zero=zero, values=tuple(vals))

    @classmethod
    def of(cls, mechanism: Any, a: Any, b: Any) -> PrivacyLoss:
        """The privacy loss of ``mechanism`` on input ``a`` against input ``b``, from the
        exact laws the checker computes from the implementation itself:

        * a counting mechanism (:class:`exactdp.counting.InverseCDFSampler`: GeoSample,
          FastSample, its truncated core, ClampedGeometric, ...): counts ``a`` and ``b`` in
          ``[0, n]``, laws by :func:`exactdp.checker.counting_distribution`;
        * any other callable ``mechanism(x, source)``: its code run under the exploring
          source (:func:`exactdp.explore.explore`) on ``x = a`` and ``x = b``.
        """
        p, q = laws_of(mechanism, a, b)
        return cls.from_laws(p, q)

    # ------------------------------------------------------------------------ reading

    @property
    def pden(self) -> int:
        return self._pden

    @property
    def qden(self) -> int:
        return self._qden

    @property
    def on_lattice(self) -> bool:
        """Whether the ratios are kept as ``offset * base**i`` (dense integer lists)."""
        return self._vals is None

    @property
    def lattice(self) -> tuple[Fraction, Fraction | None, int] | None:
        """``(offset, base, slots)`` when :attr:`on_lattice`, else None."""
        if self._offset is None:
            return None
        return self._offset, self._base, len(self._pn)

    @property
    def infinite_mass(self) -> Fraction:
        """``P(Q = 0)``: the P-mass of the outcomes ``Q`` never gives (loss ``+inf``)."""
        return Fraction(self._inf, self._pden)

    @property
    def zero_mass(self) -> Fraction:
        """``Q(P = 0)``: the Q-mass of the outcomes ``P`` never gives (loss ``-inf``)."""
        return Fraction(self._zero, self._qden)

    def _value(self, i: int) -> Fraction:
        if self._vals is not None:
            return self._vals[i]
        assert self._offset is not None
        if i == 0:
            return self._offset
        return _reduced(*self._ratio(i))

    def _ratio(self, i: int) -> tuple[int, int]:
        """Slot ``i``'s ratio as ``(num, den)``, ``den > 0``, not necessarily reduced."""
        if self._vals is not None:
            v = self._vals[i]
            return v.numerator, v.denominator
        assert self._offset is not None
        if i == 0:
            return self._offset.numerator, self._offset.denominator
        assert self._base is not None
        # GMP's powers: Python's own are much slower at hundreds of thousands of bits
        return (self._offset.numerator * gmpy2.mpz(self._base.numerator)**i,
                self._offset.denominator * gmpy2.mpz(self._base.denominator)**i)

    def __len__(self) -> int:
        """The number of distinct finite positive ratios with P- or Q-mass."""
        return sum(1 for a, b in zip(self._pn, self._qn) if a or b)

    def atoms(self) -> Iterator[tuple[Fraction, Fraction, Fraction]]:
        """``(ratio, P-mass, Q-mass)`` for each finite positive ratio, ascending."""
        for i, (a, b) in enumerate(zip(self._pn, self._qn)):
            if a or b:
                yield self._value(i), Fraction(a, self._pden), Fraction(b, self._qden)

    def law(self) -> dict[Fraction | None, Fraction]:
        """``{ratio: P-mass}``, the law of ``V = e**L`` under ``P``; key None is ``+inf``."""
        out: dict[Fraction | None, Fraction] = {v: p for v, p, _ in self.atoms() if p}
        if self._inf:
            out[None] = self.infinite_mass
        return out

    def _key(self) -> tuple[Any, ...]:
        if "key" not in self._cache:
            self._cache["key"] = (tuple(self.atoms()), self.infinite_mass, self.zero_mass)
        return self._cache["key"]  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PrivacyLoss):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        shape = (f"lattice base {self._base}" if self._vals is None else "atoms")
        inf = f", P(inf) = {self.infinite_mass}" if self._inf else ""
        return f"PrivacyLoss({len(self)} ratios, {shape}{inf})"

    @property
    def max_ratio(self) -> Fraction | None:
        """The largest ratio of positive P-mass (the pure ``e**eps``), None if infinite;
        1 when ``P`` gives no outcome of finite ratio."""
        if self._inf:
            return None
        for i in range(len(self._pn) - 1, -1, -1):
            if self._pn[i]:
                return self._value(i)
        return Fraction(1)

    def reverse(self) -> PrivacyLoss:
        """The privacy loss of ``Q`` against ``P`` (ratios inverted)."""
        if self._vals is not None:
            vals = tuple(1 / v for v in reversed(self._vals))
            return PrivacyLoss(pden=self._qden, qden=self._pden, pn=self._qn[::-1],
                               qn=self._pn[::-1], inf=self._zero, zero=self._inf, values=vals)
        assert self._offset is not None
        top = self._value(len(self._pn) - 1) if self._pn else self._offset
        return PrivacyLoss(pden=self._qden, qden=self._pden, pn=self._qn[::-1],
                           qn=self._pn[::-1], inf=self._zero, zero=self._inf,
                           offset=1 / top, base=self._base)

    # ------------------------------------------------------------------------ divergence

    def _first_above(self, ratio: Fraction) -> int:
        """The first slot whose ratio is ``> ratio`` (slots ascend)."""
        if self._vals is not None:
            return bisect.bisect_right(self._vals, ratio)
        rn, rd = ratio.numerator, ratio.denominator
        lo, hi = 0, len(self._pn)
        while lo < hi:
            mid = (lo + hi) // 2
            vn, vd = self._ratio(mid)
            if vn * rd > vd * rn:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def delta_at_ratio(self, ratio: object) -> Fraction:
        """``sum_o max(0, P(o) - R Q(o))`` for rational ``R = ratio >= 0``, exactly: the
        least ``delta`` for which ``P`` is ``(ln R, delta)``-indistinguishable from ``Q``."""
        r = to_fraction(ratio, "ratio")
        if r < 0:
            raise ParameterError(f"ratio = {r} must be >= 0 (R = e**eps)")
        i0 = self._first_above(r)
        big_a = sum(map(gmpy2.mpz, self._pn[i0:]), gmpy2.mpz(self._inf))
        big_b = sum(map(gmpy2.mpz, self._qn[i0:]), gmpy2.mpz(0))
        return _reduced(big_a * self._qden * r.denominator - r.numerator * big_b * self._pden,
                        self._pden * self._qden * r.denominator)

    def delta(self, epsilon: object, bits: int = 128) -> Interval:
        """A certified interval containing ``delta(eps) = delta_at_ratio(e**eps)``: exactly
        ``[0, 0]`` when ``e**eps`` is at least the largest ratio (decided exactly), else
        ``[delta_at_ratio(hi), delta_at_ratio(lo)]`` for ``lo <= e**eps <= hi``."""
        eps = to_fraction(epsilon, "epsilon")
        box = exp_interval(eps, bits)
        upper = self.delta_at_ratio(box.lo)
        if upper == 0:  # e**eps >= lo >= every ratio of positive P-mass
            return Interval(Fraction(0), Fraction(0))
        lower = self.delta_at_ratio(box.hi)
        if lower == 0:  # the top ratio lies in [lo, hi]: decide e**eps >= top exactly
            top = self.max_ratio
            if top is not None and compare_exp(eps, top) >= 0:
                return Interval(Fraction(0), Fraction(0))
        return Interval(lower, upper)

    def _suffixes(self) -> tuple[list[int], list[int]]:
        if "suffix" not in self._cache:
            n = len(self._pn)
            a, b = [0] * (n + 1), [0] * (n + 1)
            a[n] = self._inf
            for i in range(n - 1, -1, -1):
                a[i] = a[i + 1] + self._pn[i]
                b[i] = b[i + 1] + self._qn[i]
            self._cache["suffix"] = (a, b)
        return self._cache["suffix"]  # type: ignore[no-any-return]

    def smallest_ratio(self, delta: object) -> Fraction | None:
        """The least ``R >= 1`` with ``delta_at_ratio(R) <= delta``, exactly (a rational:
        the divergence is continuous, piecewise linear and non-increasing in ``R``); None
        when no finite ``R`` reaches it (``P(Q = 0) > delta``)."""
        d = to_fraction(delta, "delta")
        if not 0 <= d <= 1:
            raise ParameterError(f"delta = {d} must lie in [0, 1]")
        if self.infinite_mass > d:
            return None
        if self.delta_at_ratio(1) <= d:
            return Fraction(1)
        a, b = self._suffixes()
        # delta(R) = a_i/pden - R b_i/qden on [v_j, v_i] (v_j the slot with mass below v_i);
        # scan the segments from the top: the crossing lies on the first whose lower end
        # still has delta > d (every slot with mass has both P- and Q-mass)
        slots = [i for i, (x, y) in enumerate(zip(self._pn, self._qn)) if x or y]
        dn, dd = d.numerator, d.denominator
        pden, qden = self._pden, self._qden

        def above(k: int) -> bool:  # delta at the lower end of segment k exceeds d
            i = slots[k]
            ln_, ld = self._ratio(slots[k - 1]) if k else (0, 1)
            # a_i/pden - lo b_i/qden > d, times pden qden ld dd > 0
            return (a[i] * qden * ld - ln_ * b[i] * pden) * dd > dn * pden * qden * ld

        # above() is true for k = 0 (delta(0) = 1 > d here) and monotone: the last k with it
        lo, hi = 0, len(slots) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if above(mid):
                lo = mid
            else:
                hi = mid - 1
        if slots and above(lo):
            i = slots[lo]
            # a_i/pden - R b_i/qden = d  <=>  R = (a_i dd - dn pden) qden / (dd pden b_i)
            return max(Fraction(1), _reduced((a[i] * dd - dn * pden) * qden, dd * pden * b[i]))
        raise AssertionError("unreachable: delta(1) > delta but no crossing")  # pragma: no cover

    def epsilon(self, delta: object, bits: int = 128) -> Interval | None:
        """A certified interval containing the least ``eps >= 0`` with ``delta(eps) <=
        delta``: ``ln`` of :meth:`smallest_ratio` (exactly ``[0, 0]`` when it is 1); None
        when no finite ``eps`` reaches ``delta``."""
        r = self.smallest_ratio(delta)
        if r is None:
            return None
        if r == 1:
            return Interval(Fraction(0), Fraction(0))
        if max(r.numerator.bit_length(), r.denominator.bit_length()) > 4 * bits + 256:
            # a many-fold composition's ratio has long numbers, on which the series of
            # ln_interval is slow: bracket r by fixed-point rationals of bits + 64
            # fractional bits (ln is increasing)
            f = bits + 64
            num = gmpy2.mpz(r.numerator) << f
            lo = Fraction(int(num // r.denominator), 1 << f)
            hi = Fraction(int(-((-num) // r.denominator)), 1 << f)
            return Interval(ln_interval(max(lo, Fraction(1)), bits).lo,
                            ln_interval(hi, bits).hi)
        return ln_interval(r, bits)

    # ------------------------------------------------------------------------ composition

    def compose(self, *others: PrivacyLoss) -> PrivacyLoss:
        """The exact privacy loss of this release and ``others`` run independently
        (:func:`exactdp.accounting.compose.compose`)."""
        return compose_all([self, *(check_loss(x, f"others[{j}]")
                                    for j, x in enumerate(others))])

    def power(self, k: int) -> PrivacyLoss:
        """The exact privacy loss of ``k`` independent runs (``k >= 1``)."""
        return power_of(self, k)


def check_loss(loss: object, name: str) -> PrivacyLoss:
    """``loss`` if it is a :class:`PrivacyLoss`, else a typed error naming ``name``."""
    if not isinstance(loss, PrivacyLoss):
        raise ParameterTypeError(f"{name} = {loss!r:.60} must be a PrivacyLoss (build one with "
                                 f"PrivacyLoss.from_laws or PrivacyLoss.of)")
    return loss


def laws_of(mechanism: Any, a: Any, b: Any) -> tuple[dict[Any, Fraction], dict[Any, Fraction]]:
    """The exact laws of ``mechanism`` on ``a`` and ``b`` (see :meth:`PrivacyLoss.of`)."""
    return law_of(mechanism, a, "a"), law_of(mechanism, b, "b")


def law_of(mechanism: Any, x: Any, name: str = "x") -> dict[Any, Fraction]:
    """The exact law of ``mechanism`` on input ``x``: a counting mechanism's by
    :func:`exactdp.checker.counting_distribution`, a function ``mechanism(x, source)``'s by
    running it under the exploring source (:func:`exactdp.explore.explore`)."""
    from exactdp.checker import counting_distribution
    from exactdp.counting import InverseCDFSampler
    from exactdp.explore import explore

    if isinstance(mechanism, InverseCDFSampler):
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= mechanism.n:
            raise ParameterError(f"{name} = {x!r} must be a count in [0, {mechanism.n}] "
                                 f"for {mechanism!r}")
        return counting_distribution(mechanism, x)
    if not callable(mechanism):
        raise ParameterTypeError(f"mechanism = {mechanism!r} must be a counting mechanism or "
                                 f"a function mechanism(x, source)")
    return explore(lambda source: mechanism(x, source))
