"""Finite noise tables with exact pmfs: folded discrete Laplace, rational-base discrete
Gaussian, and their exact privacy.

A :class:`NoiseTable` is a finite law on integers given by integer weights: it *is* the
mechanism's noise, so the privacy that the checker certifies is that of the table, not of a
continuous law it approximates.  Sampling is one ``uniform(total)`` through
``source.inverse_cdf`` (the exploring source branches once per value with its exact weight)
and a scan of the whole table (no early exit: strict time).

* :func:`discrete_laplace_folded` -- the two-sided geometric of ratio ``r = c/d`` folded
  modulo ``M``: pmf on ``Z_M`` proportional to ``r^z + r^(M-z)``; folding is post-processing,
  so the pure ratio bound ``r^(-Delta)`` of the unfolded law survives (checked by
  :func:`max_ratio_1d`).  (A *clamped* discrete Laplace is
  :class:`exactdp.noise.ClampedGeometric`.)
* :func:`discrete_gaussian_table` -- weights ``q^(z^2)`` on ``[-T, T]`` for a rational
  ``q = e^(-1/(2 sigma^2))`` stand-in: finite support, so only ``(eps, delta)``; its exact
  ``delta`` at a shift is :func:`delta_1d`; :func:`calibrate_gaussian_table` picks the least
  noisy ``q`` on a dyadic grid whose exact ``delta`` meets a target (the exact analogue of the
  paper's "G-OPT" calibration, Thm 3.5, for one moving coordinate).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from exactdp.params import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    open_unit,
    positive_int,
    to_fraction,
)
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "MAX_TABLE_SIZE",
    "NoiseTable",
    "calibrate_gaussian_table",
    "delta_1d",
    "discrete_gaussian_table",
    "discrete_laplace_folded",
    "max_ratio_1d",
]

#: Largest number of values a table may have (a draw scans the whole table).
MAX_TABLE_SIZE = 1 << 16


@dataclass(frozen=True)
class _TableDraw:
    """The :class:`~exactdp.randomness.InverseCDFDraw` of a table (values ``0..n``)."""

    cumulative: tuple[int, ...]

    @property
    def n(self) -> int:
        return len(self.cumulative) - 1

    @property
    def d(self) -> int:
        return self.cumulative[-1]

    def cdf(self, z: int) -> int:
        return 0 if z < 0 else self.cumulative[min(z, self.n)]

    def search(self, u: int) -> int:
        """``min{z : F(z) >= u}`` by a scan of every entry (no early exit)."""
        return sum(1 for f in self.cumulative if f < u)


@dataclass(frozen=True)
class NoiseTable:
    """Noise ``Z`` with ``Pr[Z = offset + i] = weights[i] / sum(weights)``; with a
    ``modulus M`` the values are residues and :meth:`add` releases ``(x + Z) mod M``."""

    weights: tuple[int, ...]
    offset: int = 0
    modulus: int | None = None

    def __post_init__(self) -> None:
        w = tuple(self.weights)
        if not w or len(w) > MAX_TABLE_SIZE:
            raise ParameterError(f"a noise table needs 1..{MAX_TABLE_SIZE} weights (got {len(w)})")
        for i, v in enumerate(w):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ParameterTypeError(f"weights[{i}] = {v!r:.60} must be an int >= 0")
        if sum(w) == 0:
            raise ParameterError("a noise table needs a positive total weight")
        if isinstance(self.offset, bool) or not isinstance(self.offset, int):
            raise ParameterTypeError(f"offset = {self.offset!r:.60} must be an int")
        if self.modulus is not None:
            m = positive_int(self.modulus, "modulus")
            if self.offset != 0 or len(w) != m:
                raise ParameterError(f"a folded table mod {m} needs offset 0 and {m} weights")
        object.__setattr__(self, "weights", w)

    @property
    def total(self) -> int:
        return sum(self.weights)

    @cached_property
    def _draw(self) -> _TableDraw:
        acc, cum = 0, []
        for v in self.weights:
            acc += v
            cum.append(acc)
        return _TableDraw(tuple(cum))

    def pmf(self, z: int) -> Fraction:
        """``Pr[Z = z]`` (``z`` read modulo ``M`` for a folded table)."""
        i = z % self.modulus if self.modulus else z - self.offset
        if not 0 <= i < len(self.weights):
            return Fraction(0)
        return Fraction(self.weights[i], self.total)

    def law(self) -> dict[int, Fraction]:
        """``{value: probability}`` over the support (zero weights left out)."""
        t = self.total
        return {self.offset + i: Fraction(v, t) for i, v in enumerate(self.weights) if v}

    def sample(self, source: RandomSource | None = None) -> int:
        """One draw of ``Z``: one ``uniform(total)`` (inverse CDF over the whole table)."""
        return self.offset + default_source(source).inverse_cdf(self._draw)

    def add(self, x: int, source: RandomSource | None = None) -> int:
        """``x + Z`` (``(x + Z) mod M`` for a folded table)."""
        y = x + self.sample(source)
        return y % self.modulus if self.modulus else y


def _ratio_in_unit(r: object, name: str) -> Fraction:
    q = to_fraction(r, name)
    if not 0 < q < 1:
        raise ParameterError(f"{name} = {q} must lie strictly between 0 and 1")
    return q


def discrete_laplace_folded(r: object, modulus: object) -> NoiseTable:
    """The two-sided geometric ``Pr[eta = z] ∝ r^|z|`` (``r = c/d``) folded mod ``M``:
    ``Pr[z] ∝ r^z + r^(M-z)`` for ``0 <= z < M``, integer weights
    ``c^z d^(M-z) + c^(M-z) d^z``.  Pure DP for a shift ``Delta``: ratio at most
    ``r^(-|Delta|)`` (post-processing of the unfolded law); exact value :func:`max_ratio_1d`.
    Rounding ``r`` UP (more noise) never weakens privacy."""
    q = _ratio_in_unit(r, "r")
    m = positive_int(modulus, "modulus")
    if m > MAX_TABLE_SIZE:
        raise ResourceLimitError(f"modulus = {m} exceeds {MAX_TABLE_SIZE} table entries")
    c, d = q.numerator, q.denominator
    return NoiseTable(tuple(c**z * d ** (m - z) + c ** (m - z) * d**z for z in range(m)),
                      0, m)


def discrete_gaussian_table(q: object, tail: object) -> NoiseTable:
    """Weights ``q^(z^2)`` on ``[-T, T]`` (``q = c/d`` in ``(0, 1)``, the rational stand-in
    for ``e^(-1/(2 sigma^2))``): integer weights ``c^(z^2) d^(T^2 - z^2)``.  Finite support,
    so ``(eps, delta)`` only; the table's exact ``delta`` is :func:`delta_1d`."""
    r = _ratio_in_unit(q, "q")
    t = positive_int(tail, "T")
    if 2 * t + 1 > MAX_TABLE_SIZE or t * t * max(r.denominator.bit_length(), 1) > 1 << 22:
        raise ResourceLimitError(f"T = {t} makes the discrete Gaussian table too large")
    c, d = r.numerator, r.denominator
    return NoiseTable(tuple(c ** (z * z) * d ** (t * t - z * z) for z in range(-t, t + 1)), -t)


def _shifted_pairs(table: NoiseTable, shift: int) -> list[tuple[Fraction, Fraction]]:
    """``(Pr[x + Z = y], Pr[x + shift + Z = y])`` over every output ``y`` of either."""
    if table.modulus:
        m = table.modulus
        return [(table.pmf(y), table.pmf(y - shift)) for y in range(m)]
    lo = table.offset + min(0, shift)
    hi = table.offset + len(table.weights) - 1 + max(0, shift)
    return [(table.pmf(y), table.pmf(y - shift)) for y in range(lo, hi + 1)]


def delta_1d(table: NoiseTable, shift: int, base: object) -> Fraction:
    """Exact hockey-stick ``delta = sum_y max(0, P(y) - base * Q(y))`` between ``x + Z`` and
    ``x + shift + Z`` (``base`` a rational standing for ``e^eps``)."""
    b = to_fraction(base, "base")
    if b < 1:
        raise ParameterError(f"base = {b} must be >= 1 (it stands for e^eps)")
    return sum((max(Fraction(0), p - b * q) for p, q in _shifted_pairs(table, shift)),
               Fraction(0))


def max_ratio_1d(table: NoiseTable, shift: int) -> Fraction | None:
    """``max_y P(y)/Q(y)`` between ``x + Z`` and ``x + shift + Z``; ``None`` if some ``y``
    has ``P(y) > 0 = Q(y)`` (no pure DP at this shift)."""
    worst = Fraction(0)
    for p, q in _shifted_pairs(table, shift):
        if p and not q:
            return None
        if q:
            worst = max(worst, p / q)
    return worst


def calibrate_gaussian_table(base: object, delta: object, shift: object, tail: object,
                             bits: object = 12) -> NoiseTable:
    """The table ``q^(z^2)`` on ``[-T, T]`` with the smallest ``q = m/2^bits`` (least noise)
    whose exact :func:`delta_1d` at ``shift`` and ``base`` (a rational ``<= e^eps``) is at
    most ``delta``.

    ``delta(q)`` falls as the noise grows until the truncation to ``[-T, T]`` takes over (the
    mass that a shift moves off the support), so the search first finds the least ``delta``
    on the grid (ternary search, assuming one valley), then the smallest ``m`` below it that
    meets the target (binary search).  The returned table's ``delta`` is re-computed exactly,
    so the guarantee never rests on these assumptions (they affect only how small the noise
    is).  Raises if the valley misses the target (widen ``T`` or raise ``bits``)."""
    b = to_fraction(base, "base")
    target = open_unit(delta, "delta")
    d = positive_int(shift, "shift")
    t = positive_int(tail, "T")
    nbits = positive_int(bits, "bits")
    scale = 1 << nbits

    def cost(m: int) -> Fraction:
        return delta_1d(discrete_gaussian_table(Fraction(m, scale), t), d, b)

    lo, hi = 1, scale - 1
    while hi - lo > 2:
        m1, m2 = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if cost(m1) <= cost(m2):
            hi = m2
        else:
            lo = m1
    valley = min(range(lo, hi + 1), key=cost)
    if cost(valley) > target:
        raise ParameterError(f"no q = m/2^{nbits} on [-{t}, {t}] reaches delta = {target} at "
                             f"shift {d} (least found: {cost(valley)}): widen T or raise bits")
    lo, hi = 0, valley  # cost(hi) <= target; lo = 0 stands for "no noise" (fails)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cost(mid) <= target:
            hi = mid
        else:
            lo = mid
    table = discrete_gaussian_table(Fraction(hi, scale), t)
    if delta_1d(table, d, b) > target:  # the exact re-check the docstring promises
        raise ParameterError("calibration failed its exact re-check")
    return table
