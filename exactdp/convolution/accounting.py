"""Exact privacy accounting for integer-strategy convolution mechanisms.

Paper 002 (Fawaz, Muthukrishnan, Nikolov, "Nearly Optimal Private Convolution") adds
independent Laplace noise to each Fourier coefficient and composes the per-coefficient pure
guarantees with "Theorem 4 [DRV10]".  On a finite computer the noise is discrete (clamped
two-sided geometric, :class:`exactdp.noise.ClampedGeometric`) and the linear map before the
noise is an integer strategy ``T``; then the whole privacy-loss distribution is exact.

**Integral factorization lemma**.  Rows ``j`` with ratio ``r_j > 1``
(noise ``Pr[Z_j = z] ∝ r_j^-|z|``) and, for a neighbour ``x' = x ± e_n``, shifts
``Δ_jn = |T_jn|``.  The privacy loss ``ln P(o)/Q(o)`` of the output under ``x`` against ``x'``
is a sum of independent ``L_j``: ``L_j = 0`` if ``Δ_j = 0``, otherwise ``L_j = (Δ_j - 2i) ln r_j``
with probability ``r_j/(r_j+1)`` (``i = 0``), ``((r_j-1)/(r_j+1)) r_j^-i`` (``0 < i < Δ_j``),
``r_j^(1-Δ_j)/(r_j+1)`` (``i = Δ_j``).  Clamping to a public window merges only outputs with
equal ratios, so this law does not depend on ``x``.  Hence

* the exact pure ratio is ``max_n prod_j r_j^Δ_jn`` (attained), and
* ``δ(R) = max_n E[(1 - R e^(-sum_j L_j))_+]`` is a rational number for rational ``R``.

Each row's loss is an :class:`exactdp.accounting.PrivacyLoss`; a column's rows are composed
by :func:`exactdp.accounting.product.compose_all` (polynomial products on a common lattice of
ratios, atom by atom otherwise) and :func:`compose_laws` returns the law of ``e^L`` (the
likelihood ratio) as ``{value: probability}`` with exact :class:`~fractions.Fraction` keys
and values; ``δ(R) = sum_{v > R} p_v (1 - R/v)``.

The composition bounds the paper uses (Theorem 4 as printed, the correct DRV statement, and the
zCDP route) are returned as certified rational intervals (:class:`exactdp.certified.Interval`):
``ln`` and ``sqrt`` only through :mod:`exactdp.certified` and integer square roots, never floats.

One module past 600 lines on purpose: the exact loss laws, the certified composition bounds
and :class:`PrivacyProfile`, which compares them column by column, are one account of
Theorem 4 and are read and checked together.

>>> p = PrivacyProfile([Fraction(2), Fraction(3, 2), Fraction(4, 3), Fraction(3)],
...                    [[1, 1, 1, 1]] * 4)
>>> p.pure_ratio, p.delta(Fraction(1)), p.delta(Fraction(8)), p.delta(Fraction(12))
(Fraction(12, 1), Fraction(37, 70), Fraction(2, 35), Fraction(0, 1))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import isqrt

import gmpy2

from exactdp.accounting.loss import PrivacyLoss
from exactdp.accounting.product import compose_all, power_of
from exactdp.certified import Interval, compare_exp, exp_interval, ln_interval
from exactdp.params import ParameterError, ParameterTypeError, open_unit, to_fraction

__all__ = [
    "COMPOSITION_MODES",
    "ColumnLaw",
    "CompositionViolation",
    "PrivacyProfile",
    "column_delta",
    "compose_laws",
    "composition_delta",
    "composition_epsilon",
    "find_composition_violation",
    "row_loss_law",
    "row_ratio",
    "sqrt_interval",
]

#: Largest number of distinct likelihood-ratio values one column's law may have.
MAX_SUPPORT = 200_000

#: The composition bounds of Theorem 4: as printed (unsound), the correct DRV statement, zCDP.
COMPOSITION_MODES = ("paper-unsound", "drv", "zcdp")

LossLaw = dict[Fraction, Fraction]


# ---------------------------------------------------------------------------------------------
# validation


def row_ratio(value: object, name: str) -> Fraction:
    """A row's privacy ratio ``r_j``: an exact rational ``> 1`` (floats refused)."""
    r = to_fraction(value, name)
    if r <= 1:
        raise ParameterError(f"{name} = {r} must be a rational > 1 (the per-row ratio "
                             f"r_j = e^eps_j = 1/alpha_j; the row's noise has Pr[Z = z] "
                             f"proportional to r_j^-|z|)")
    return r


def _shift(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} = {value!r} must be an int (|T_jn|)")
    if value < 0:
        raise ParameterError(f"{name} = {value} must be >= 0 (a shift |T_jn|)")
    return int(value)


# ---------------------------------------------------------------------------------------------
# per-row laws and their exact composition


def row_loss_law(ratio: object, shift: int) -> LossLaw:
    """The law of ``e^{L_j}`` for one row: ``{r^(Δ-2i): probability}``.

    ``Δ = 0`` gives the point mass at 1.  ``Δ = 1`` is randomized response with
    ``ε_j = ln r``: ``{r: r/(r+1), 1/r: 1/(r+1)}``.

    >>> row_loss_law(2, 2)
    {Fraction(4, 1): Fraction(2, 3), Fraction(1, 1): Fraction(1, 6), Fraction(1, 4): Fraction(1, 6)}
    """
    r = row_ratio(ratio, "ratio")
    d = _shift(shift, "shift")
    if d == 0:
        return {Fraction(1): Fraction(1)}
    law: LossLaw = {r**d: r / (r + 1)}
    for i in range(1, d):
        law[r ** (d - 2 * i)] = (r - 1) / (r + 1) / r**i
    law[r**-d] = law.get(r**-d, Fraction(0)) + r ** (1 - d) / (r + 1)
    return law


def _row_loss(r: Fraction, d: int) -> PrivacyLoss:
    """One row's privacy loss (the table of §3.0) over the common denominator
    ``a^(Δ-1) (a+b)``, ``r = a/b``; the Q-law is the mirror of the P-law."""
    a, b = r.numerator, r.denominator
    nums = [a**d] + [(a - b) * b**i * a ** (d - 1 - i) for i in range(1, d)] + [b**d]
    atoms: dict[Fraction, list[int]] = {}
    for i, num in enumerate(nums):
        slot = atoms.setdefault(r ** (d - 2 * i), [0, 0])
        slot[0] += num
        slot[1] += nums[d - i]
    den = a ** (d - 1) * (a + b)
    return PrivacyLoss.from_numerators(den, den, atoms)


def _compose_groups(groups: Mapping[tuple[Fraction, int], int], limit: int) -> PrivacyLoss:
    """The loss of independent rows given as ``{(r, Δ): multiplicity}`` (``Δ > 0``): each
    group a power of its row's loss (binomial closed form for ``Δ = 1``, repeated squaring
    otherwise), the groups composed by :func:`exactdp.accounting.product.compose_all`
    (polynomial products where the ratios share a lattice, atom by atom otherwise)."""
    parts = [power_of(_row_loss(r, d), m, limit) for (r, d), m in sorted(groups.items())]
    if not parts:
        return PrivacyLoss.from_numerators(1, 1, {Fraction(1): (1, 1)})
    return compose_all(parts, limit)


def _compose_rows(rows: Iterable[tuple[Fraction, int]], limit: int) -> PrivacyLoss:
    groups: dict[tuple[Fraction, int], int] = {}
    for r, d in rows:
        if d:
            groups[(r, d)] = groups.get((r, d), 0) + 1
    return _compose_groups(groups, limit)


def compose_laws(rows: Iterable[tuple[Fraction, int]], limit: int = MAX_SUPPORT) -> LossLaw:
    """Exact law ``{e^L: probability}`` of ``sum L_j`` for independent rows ``(r_j, Δ_j)``.

    Rows with the same ``(r, Δ)`` are grouped (binomial closed form for ``Δ = 1``, repeated
    squaring otherwise), so a Walsh column of ``m`` equal ratios costs ``O(m)`` values.
    Raises :class:`~exactdp.params.ResourceLimitError` past ``limit`` distinct values.
    """
    return {v: p for v, p, _ in _compose_rows(rows, limit).atoms() if p}


@dataclass(frozen=True)
class ColumnLaw:
    """The exact law of the likelihood ratio ``V = e^L`` for one neighbour direction ``e_n``:
    an :class:`exactdp.accounting.PrivacyLoss` (``loss``) with every ratio of positive mass
    under both laws.  ``δ(R) = sum_{v > R} (P(v) - R Q(v))``.
    """

    loss: PrivacyLoss

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[Fraction, int]], limit: int = MAX_SUPPORT
                  ) -> ColumnLaw:
        return cls(_compose_rows(rows, limit))

    @classmethod
    def from_groups(cls, groups: Mapping[tuple[Fraction, int], int], limit: int = MAX_SUPPORT
                    ) -> ColumnLaw:
        """As :meth:`from_rows` for rows given with multiplicity ``{(r_j, Δ_j): m}`` (the
        same law: :meth:`from_rows` groups its rows this way first)."""
        for (r, d), m in groups.items():
            row_ratio(r, "ratio")
            if _shift(d, "shift") == 0 or isinstance(m, bool) or not isinstance(m, int) \
                    or m < 1:
                raise ParameterError(f"group (r = {r}, shift = {d}) x {m!r}: shifts and "
                                     f"multiplicities must be positive ints")
        return cls(_compose_groups(groups, limit))

    @cached_property
    def values(self) -> tuple[Fraction, ...]:
        """The ratios, ascending."""
        return tuple(v for v, _, _ in self.loss.atoms())

    @property
    def probs(self) -> tuple[Fraction, ...]:
        return tuple(p for _, p, _ in self.loss.atoms())

    @property
    def max_ratio(self) -> Fraction:
        top = self.loss.max_ratio
        assert top is not None  # no infinite ratio: every output is possible under both
        return top

    def delta(self, ratio: Fraction) -> Fraction:
        """``E[(1 - R/V)_+] = sum_{v > R} P(v) - R Q(v)``, exactly."""
        return self.loss.delta_at_ratio(ratio)

    def smallest_ratio(self, delta: Fraction) -> Fraction:
        """The least ``R >= 1`` with ``delta(R) <= delta`` (``δ`` is continuous, piecewise
        linear and non-increasing in ``R``, so the answer is rational)."""
        r = self.loss.smallest_ratio(delta)
        assert r is not None  # no infinite ratio
        return r


def _rr_tail_delta(r: Fraction, m: int, ratio: Fraction) -> Fraction:
    """``δ(R)`` of ``m`` randomized responses of ratio ``r = a/b`` without building the law:
    the values ``r^(m-2i)`` decrease in ``i``, so ``δ(R) = (A - R B)/(a+b)^m`` with
    ``A = sum_{i < i0} C(m,i) a^(m-i) b^i``, ``B = sum_{i < i0} C(m,i) a^i b^(m-i)`` and
    ``i0`` the number of values ``> R`` (found by exact binary search).  Equal to
    ``ColumnLaw.from_groups({(r, 1): m}).delta(R)`` (tested), in ``O(i0)`` big-integer steps
    instead of sorting ``m + 1`` rationals."""
    a, b = gmpy2.mpz(r.numerator), gmpy2.mpz(r.denominator)
    rn, rd = gmpy2.mpz(ratio.numerator), gmpy2.mpz(ratio.denominator)

    def above(i: int) -> bool:  # r^(m-2i) > R
        e = m - 2 * i
        return bool(a**e * rd > b**e * rn) if e >= 0 else bool(b**-e * rd > a**-e * rn)

    lo, hi = 0, m + 1  # first i with r^(m-2i) <= R
    while lo < hi:
        mid = (lo + hi) // 2
        if above(mid):
            lo = mid + 1
        else:
            hi = mid
    p, q = a**m, b**m
    big_a, big_b = gmpy2.mpz(0), gmpy2.mpz(0)
    for i in range(lo):
        big_a += p
        big_b += q
        p = p * (m - i) * b // ((i + 1) * a)  # exact: the next binomial terms
        q = q * (m - i) * a // ((i + 1) * b)
    return Fraction(int(big_a * rd - rn * big_b), int((a + b) ** m * rd))


def column_delta(groups: Mapping[tuple[Fraction, int], int], ratio: object,
                 limit: int = MAX_SUPPORT) -> Fraction:
    """Exact ``δ(R) = E[(1 - R e^-L)_+]`` for one column given as ``{(r_j, Δ_j): m}``
    (``Δ > 0``): a single randomized-response group by :func:`_rr_tail_delta`, otherwise
    :meth:`ColumnLaw.from_groups`."""
    big_r = to_fraction(ratio, "R")
    if big_r <= 0:
        raise ParameterError(f"R = {big_r} must be > 0")
    if not groups:
        return max(Fraction(0), 1 - big_r)
    if len(groups) == 1:
        ((r, d), m), = groups.items()
        if d == 1 and not isinstance(m, bool) and isinstance(m, int) and m >= 1:
            return _rr_tail_delta(row_ratio(r, "ratio"), m, big_r)
    return ColumnLaw.from_groups(groups, limit).delta(big_r)


# ---------------------------------------------------------------------------------------------
# certified real arithmetic helpers


def sqrt_interval(x: Fraction, bits: int = 64) -> Interval:
    """``[lo, hi]`` with denominator ``2**bits`` containing ``sqrt(x)`` (``x >= 0``), by
    integer square roots: exact when ``x`` is the square of such a dyadic."""
    x = Fraction(x)
    if x < 0:
        raise ParameterError(f"sqrt: x = {x} must be >= 0")
    scale = 1 << (2 * bits)
    lo_sq = (x.numerator * scale) // x.denominator  # floor(x 4^bits)
    s = isqrt(lo_sq)
    hi = s if s * s * x.denominator == x.numerator * scale else s + 1
    return Interval(Fraction(s, 1 << bits), Fraction(hi, 1 << bits))


def _sqrt_iv(iv: Interval, bits: int) -> Interval:
    return Interval(sqrt_interval(max(iv.lo, Fraction(0)), bits).lo, sqrt_interval(iv.hi, bits).hi)


def _ln_pos(x: Fraction, bits: int) -> Interval:
    """``ln x`` for ``x >= 1``, lower end clamped at 0."""
    iv = ln_interval(x, bits)
    return Interval(max(iv.lo, Fraction(0)), max(iv.hi, Fraction(0)))


def _column_eps(rows: Sequence[tuple[Fraction, int]], bits: int) -> list[tuple[Interval, Fraction]]:
    """Per-row ``(ε_j interval, e^{ε_j})`` with ``ε_j = Δ ln r`` for the rows with ``Δ > 0``."""
    return [(_ln_pos(r**d, bits), r**d) for r, d in rows if d]


def _composition_eps_column(rows: Sequence[tuple[Fraction, int]], log_inv_delta: Interval,
                            mode: str, bits: int) -> Interval:
    eps = _column_eps(rows, bits)
    s2 = Interval(sum((e.lo**2 for e, _ in eps), Fraction(0)),
                  sum((e.hi**2 for e, _ in eps), Fraction(0)))
    if mode in ("paper-unsound", "drv"):
        base = _sqrt_iv(Interval(2 * log_inv_delta.lo * s2.lo, 2 * log_inv_delta.hi * s2.hi), bits)
        if mode == "paper-unsound":
            return base
        extra_lo = sum((e.lo * (x - 1) for e, x in eps), Fraction(0))
        extra_hi = sum((e.hi * (x - 1) for e, x in eps), Fraction(0))
        return Interval(base.lo + extra_lo, base.hi + extra_hi)
    if mode == "zcdp":
        rho = Interval(s2.lo / 2, s2.hi / 2)
        root = _sqrt_iv(Interval(rho.lo * log_inv_delta.lo, rho.hi * log_inv_delta.hi), bits)
        return Interval(rho.lo + 2 * root.lo, rho.hi + 2 * root.hi)
    raise ParameterError(f"mode = {mode!r} must be one of {', '.join(COMPOSITION_MODES)}")


def composition_epsilon(rows: Sequence[tuple[object, int]], delta: object, mode: str,
                        bits: int = 64) -> Interval:
    """Certified interval for the ``ε`` a composition theorem gives for pure rows at ``δ``.

    Row ``j`` contributes ``ε_j = Δ_j ln r_j`` (it is ``Δ_j ln r_j``-DP against this
    neighbour).  ``L = ln(1/δ)``.

    * ``"paper-unsound"``: Theorem 4 as printed, ``sqrt(2 L sum ε_j²)`` (false: P1).
    * ``"drv"``: Dwork–Rothblum–Vadhan, ``sqrt(2 L sum ε_j²) + sum ε_j (e^ε_j - 1)``.
    * ``"zcdp"``: Bun–Steinke, ``ρ = sum ε_j²/2``, ``ρ + 2 sqrt(ρ L)``.
    """
    d = open_unit(delta, "delta")
    rs = [(row_ratio(r, "ratio"), _shift(s, "shift")) for r, s in rows]
    return _composition_eps_column(rs, _ln_pos(1 / d, bits), mode, bits)


def _exp_neg_iv(iv: Interval, bits: int) -> Interval:
    """``e^-x`` for ``x`` in ``iv``: ``[e^-hi, e^-lo]``."""
    return Interval(exp_interval(-iv.hi, bits).lo, exp_interval(-iv.lo, bits).hi)


def composition_delta(rows: Sequence[tuple[object, int]], epsilon: object, mode: str,
                      bits: int = 64) -> Interval:
    """Certified interval for the ``δ`` a composition bound gives at ``ε`` (the inverse of
    :func:`composition_epsilon`; ``1`` where the bound says nothing).

    * ``"paper-unsound"``: ``exp(-ε²/(2 S))``, ``S = sum ε_j²``.
    * ``"drv"``: ``exp(-(ε - E)²/(2 S))`` for ``ε > E = sum ε_j(e^ε_j - 1)``.
    * ``"zcdp"``: ``exp(-(ε - ρ)²/(4ρ))`` for ``ε > ρ = S/2``.
    """
    e = to_fraction(epsilon, "epsilon")
    if e < 0:
        raise ParameterError(f"epsilon = {e} must be >= 0")
    rs = [(row_ratio(r, "ratio"), _shift(s, "shift")) for r, s in rows]
    eps = _column_eps(rs, bits)
    if not eps:
        return Interval(Fraction(0), Fraction(0))
    s2 = Interval(sum((x.lo**2 for x, _ in eps), Fraction(0)),
                  sum((x.hi**2 for x, _ in eps), Fraction(0)))
    one = Interval(Fraction(1), Fraction(1))
    if mode == "paper-unsound":
        gap = Interval(e, e)
        den = Interval(2 * s2.lo, 2 * s2.hi)
    elif mode == "drv":
        extra = Interval(sum((x.lo * (v - 1) for x, v in eps), Fraction(0)),
                         sum((x.hi * (v - 1) for x, v in eps), Fraction(0)))
        gap = Interval(e - extra.hi, e - extra.lo)
        den = Interval(2 * s2.lo, 2 * s2.hi)
    elif mode == "zcdp":
        gap = Interval(e - s2.hi / 2, e - s2.lo / 2)
        den = Interval(2 * s2.lo, 2 * s2.hi)
    else:
        raise ParameterError(f"mode = {mode!r} must be one of {', '.join(COMPOSITION_MODES)}")
    if gap.hi <= 0 or den.lo == 0:
        return one
    g_lo = max(gap.lo, Fraction(0))
    expo = Interval(g_lo**2 / den.hi, gap.hi**2 / den.lo)
    iv = _exp_neg_iv(expo, bits)
    return Interval(iv.lo, min(iv.hi, Fraction(1))) if gap.lo > 0 else Interval(iv.lo, Fraction(1))


# ---------------------------------------------------------------------------------------------
# the profile


class PrivacyProfile:
    """Exact privacy profile of independent per-row clamped geometric noise on ``T x``.

    ``ratios[j] = r_j > 1`` (``1/α_j``; ``ClampedGeometric(ratio=1/r_j, ...)``) and
    ``shifts[j][n] = Δ_jn = |T_jn|`` (rows x columns).  Independent of the mechanism classes:
    plain lists in, exact Fractions out (integral factorization lemma).
    """

    def __init__(self, ratios: Sequence[object], shifts: Sequence[Sequence[int]],
                 max_support: int = MAX_SUPPORT) -> None:
        self.ratios: tuple[Fraction, ...] = tuple(
            row_ratio(r, f"ratios[{j}]") for j, r in enumerate(ratios))
        if len(shifts) != len(self.ratios):
            raise ParameterError(f"shifts has {len(shifts)} rows but ratios has "
                                 f"{len(self.ratios)}; they must match (one row per ratio)")
        width = len(shifts[0]) if shifts else 0
        rows: list[tuple[int, ...]] = []
        for j, row in enumerate(shifts):
            if len(row) != width:
                raise ParameterError(f"shifts[{j}] has {len(row)} columns, expected {width}")
            rows.append(tuple(_shift(v, f"shifts[{j}][{n}]") for n, v in enumerate(row)))
        self.shifts: tuple[tuple[int, ...], ...] = tuple(rows)
        self.columns = width
        self.max_support = max_support
        self._laws: dict[tuple[tuple[Fraction, int], ...], ColumnLaw] = {}

    @classmethod
    def from_matrix(cls, ratios: Sequence[object], matrix: Sequence[Sequence[int]],
                    max_support: int = MAX_SUPPORT) -> PrivacyProfile:
        """Profile of the strategy ``T`` itself: ``Δ_jn = |T_jn|``."""
        return cls(ratios, [[abs(_signed(v, f"T[{j}][{n}]")) for n, v in enumerate(row)]
                            for j, row in enumerate(matrix)], max_support)

    @classmethod
    def uniform_shift(cls, ratios: Sequence[object], columns: int = 1) -> PrivacyProfile:
        """Every row shifted by 1 in every column (Walsh ``T = W``: ``|W_jn| = 1``)."""
        return cls(ratios, [[1] * columns for _ in ratios])

    def __repr__(self) -> str:
        return f"PrivacyProfile(rows={len(self.ratios)}, columns={self.columns})"

    # -- columns -----------------------------------------------------------------------------

    def column_rows(self, n: int) -> tuple[tuple[Fraction, int], ...]:
        """``((r_j, Δ_jn))`` for the rows that move in column ``n`` (sorted: the signature)."""
        if not 0 <= n < self.columns:
            raise ParameterError(f"column n = {n} must lie in [0, {self.columns})")
        return tuple(sorted((r, row[n]) for r, row in zip(self.ratios, self.shifts) if row[n]))

    @cached_property
    def signatures(self) -> dict[tuple[tuple[Fraction, int], ...], int]:
        """Distinct column signatures, each with its first column index."""
        out: dict[tuple[tuple[Fraction, int], ...], int] = {}
        for n in range(self.columns):
            out.setdefault(self.column_rows(n), n)
        return out

    @cached_property
    def support_bound(self) -> int:
        """An upper bound on the number of distinct loss values of any column:
        ``prod_groups (Δ m + 1)`` over groups of ``m`` equal rows ``(r, Δ)``.  The exact law is
        computed only if this is at most ``max_support``."""
        worst = 1
        for sig in self.signatures:
            groups: dict[tuple[Fraction, int], int] = {}
            for key in sig:
                groups[key] = groups.get(key, 0) + 1
            size = 1
            for (_, d), m in groups.items():
                size *= d * m + 1
            worst = max(worst, size)
        return worst

    def _law(self, sig: tuple[tuple[Fraction, int], ...]) -> ColumnLaw:
        if sig not in self._laws:
            self._laws[sig] = ColumnLaw.from_rows(sig, self.max_support)
        return self._laws[sig]

    def loss_law(self, n: int) -> dict[Fraction, Fraction]:
        """Exact law ``{e^L: probability}`` of the privacy loss against neighbour ``x ± e_n``."""
        return {v: p for v, p, _ in self._law(self.column_rows(n)).loss.atoms() if p}

    # -- pure and approximate guarantees -----------------------------------------------------

    @cached_property
    def _pure(self) -> tuple[Fraction, int]:
        best, arg = Fraction(1), 0
        for sig, n in self.signatures.items():
            value = Fraction(1)
            for r, d in sig:
                value *= r**d
            if value > best:
                best, arg = value, n
        return best, arg

    @property
    def pure_ratio(self) -> Fraction:
        """``max_n prod_j r_j^Δ_jn``: exact, attained (by :attr:`worst_column`)."""
        return self._pure[0]

    @property
    def worst_column(self) -> int:
        """A column attaining :attr:`pure_ratio`."""
        return self._pure[1]

    def delta(self, ratio: object) -> Fraction:
        """``δ(R) = max_n E[(1 - R e^{-L_n})_+]``, exactly, for rational ``R > 0``."""
        return self.delta_with_column(ratio)[0]

    def delta_with_column(self, ratio: object) -> tuple[Fraction, int]:
        """``(δ(R), a column attaining it)``."""
        big_r = to_fraction(ratio, "R")
        if big_r <= 0:
            raise ParameterError(f"R = {big_r} must be > 0")
        best, arg = Fraction(-1), 0
        for sig, n in self.signatures.items():
            value = self._law(sig).delta(big_r) if sig else max(Fraction(0), 1 - big_r)
            if value > best:
                best, arg = value, n
        return (best, arg) if self.columns else (max(Fraction(0), 1 - big_r), 0)

    def delta_interval(self, epsilon: object, bits: int = 64) -> Interval:
        """Certified interval for ``δ(e^ε)``: ``[δ(hi), δ(lo)]`` for ``e^ε`` in ``[lo, hi]``
        (``δ`` is non-increasing in ``R``); exactly 0 when ``e^ε >= pure ratio`` (decided by
        :func:`exactdp.certified.compare_exp`)."""
        eps = to_fraction(epsilon, "epsilon")
        if eps < 0:
            raise ParameterError(f"epsilon = {eps} must be >= 0")
        if compare_exp(eps, self.pure_ratio) >= 0:
            return Interval(Fraction(0), Fraction(0))
        box = exp_interval(eps, bits)
        return Interval(self.delta(box.hi), self.delta(box.lo))

    def smallest_ratio(self, delta: object) -> Fraction:
        """The least ``R >= 1`` with ``δ(R) <= delta``, exactly (rational).  The mechanism is
        ``(ln R, delta)``-DP and for no smaller ``ε``."""
        d = to_fraction(delta, "delta")
        if not 0 <= d <= 1:
            raise ParameterError(f"delta = {d} must lie in [0, 1]")
        best = Fraction(1)
        for sig in self.signatures:
            if sig:
                best = max(best, self._law(sig).smallest_ratio(d))
        return best

    def epsilon_interval(self, delta: object, bits: int = 64) -> Interval:
        """Certified interval for the exact ``ε(δ) = ln`` :meth:`smallest_ratio`."""
        return _ln_pos(self.smallest_ratio(delta), bits)

    # -- composition bounds ------------------------------------------------------------------

    def composition_epsilon(self, delta: object, mode: str, bits: int = 64) -> Interval:
        """Certified interval for ``max_n`` of :func:`composition_epsilon` over the columns."""
        d = open_unit(delta, "delta")
        if mode not in COMPOSITION_MODES:
            raise ParameterError(f"mode = {mode!r} must be one of {', '.join(COMPOSITION_MODES)}")
        log_inv = _ln_pos(1 / d, bits)
        ivs = [_composition_eps_column(sig, log_inv, mode, bits) for sig in self.signatures]
        if not ivs:
            return Interval(Fraction(0), Fraction(0))
        return Interval(max(iv.lo for iv in ivs), max(iv.hi for iv in ivs))

    def paper_unsound(self, delta: object, bits: int = 64) -> Interval:
        """Theorem 4 as printed: ``sqrt(2 ln(1/δ) sum ε_j²)`` (false, P1)."""
        return self.composition_epsilon(delta, "paper-unsound", bits)

    def drv(self, delta: object, bits: int = 64) -> Interval:
        """The correct DRV advanced composition."""
        return self.composition_epsilon(delta, "drv", bits)

    def zcdp(self, delta: object, bits: int = 64) -> Interval:
        """The zCDP route: ``ρ + 2 sqrt(ρ ln(1/δ))``, ``ρ = sum ε_j²/2``."""
        return self.composition_epsilon(delta, "zcdp", bits)


def _signed(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} = {value!r} must be an int (integer strategy entry)")
    return int(value)


# ---------------------------------------------------------------------------------------------
# certified counterexamples to a composition bound


@dataclass(frozen=True)
class CompositionViolation:
    """Certificate that a composition bound is false for a profile.

    The bound claims ``(ε_claim, δ)``-DP with ``ε_claim <= epsilon_upper``; ``ratio >= e^{ε_claim}``
    is certified by ``exp_upper = exp(epsilon_upper)`` upper end ``<= ratio``; then the claim
    implies ``δ(ratio) <= δ(e^{ε_claim}) <= delta`` but the exact ``δ(ratio) > delta``.
    """

    mode: str
    delta: Fraction
    epsilon_claim: Interval
    ratio: Fraction
    exact_delta: Fraction
    column: int

    @property
    def holds(self) -> bool:
        return self.exact_delta > self.delta


def find_composition_violation(profile: PrivacyProfile, delta: object, mode: str,
                               ratio: object = None, bits: int = 64
                               ) -> CompositionViolation | None:
    """Check the composition bound ``mode`` at ``δ`` against the exact profile.

    ``ratio`` (default: a dyadic upper bound of ``e^{ε_claim}``) must be certified
    ``>= e^{ε_claim}``: this is checked with :func:`compare_exp` on the interval's upper end.
    Returns the certificate if the exact ``δ(ratio)`` exceeds ``δ``, else ``None``.
    """
    d = to_fraction(delta, "delta")
    claim = profile.composition_epsilon(d, mode, bits)
    if ratio is None:
        big_r = exp_interval(claim.hi, bits).hi
    else:
        big_r = to_fraction(ratio, "ratio")
        if compare_exp(claim.hi, big_r) > 0:
            raise ParameterError(f"ratio = {big_r} is not certified >= e^eps_claim "
                                 f"(eps_claim <= {claim.hi})")
    exact, column = profile.delta_with_column(big_r)
    if exact > d:
        return CompositionViolation(mode, d, claim, big_r, exact, column)
    return None
