"""Discrete Gaussian noise on the rows of an integer strategy, and its exact accounting.

The Gaussian-like option of paper 002's convolution: row ``j`` (of the kept rows ``I``)
releases ``c~_j = clamp_[lo_j, hi_j](c_j + Z_j)`` with ``Z_j`` the discrete Gaussian of
:class:`exactdp.discrete_gaussian.DiscreteGaussian` -- ``Pr[Z_j = x] = w_j(x) / W_j``,
``w_j(x) = floor(2^b exp(-x^2 / (2 sigma_j^2)))``, an exactly known law on ``[-T_j, T_j]`` --
and ``[lo_j, hi_j]`` the public range of the row's coefficient over the domain.

* **Sampling** (:class:`GaussianRowNoise`): one ``uniform(W_j)`` per kept row, rows in
  increasing order, each followed by the fixed ``ceil(log2(2 T_j + 2))``-round search of the
  sampler's table; the number, order and sizes of the draws depend only on the public
  ``sigma_j^2`` (strict time).  Rows with one ``sigma_j^2`` share one sampler and its table.
* **Law**: ``c~`` has independent coordinates, each the clamped image of ``c_j + Z_j``;
  :meth:`GaussianRowNoise.row_law` is that law, read from the sampler's integers.
* **Privacy** (:class:`GaussianProfile`): for neighbours ``x, x +- e_n`` row ``j`` moves by
  ``Delta_jn = |T_jn|``.  Clamping to the public window is a post-processing of the
  unclamped ``c_j + Z_j``, so the release's hockey-stick divergence at every ``R`` is at most
  that of the unclamped rows, whose privacy loss does not depend on ``x``:
  ``PrivacyLoss.from_laws(law(Z), law(Z + Delta))`` per row, composed over the rows that
  move (:mod:`exactdp.accounting`).  The loss has an infinite-ratio atom (the truncation at
  ``T_j``: outputs ``c - T_j .. c + Delta - T_j - 1`` are impossible under the neighbour),
  so the guarantee is ``(eps, delta)`` only.  The composition over the rows is exact when
  its support is small (:data:`EXACT_ATOMS`) and otherwise a certified upper bound on the
  grid ``base**e`` (:func:`exactdp.accounting.grid.grid_bounds`: each atom split onto the
  two neighbouring grid ratios, masses rounded up), which is never below the exact value.
* **Accuracy**: ``|clamp(c + Z) - c| <= |Z|`` for ``c`` in the window, so
  ``E[Z_j^2] = sum_x x^2 w_j(x) / W_j`` and ``E|Z_j|`` (exact rationals) bound the clamped
  row's error moments; :meth:`GaussianRowNoise.error_moments` gives the clamped ones exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property

from exactdp.accounting import PrivacyLoss, compose
from exactdp.accounting.grid import GridLoss, grid_bounds
from exactdp.convolution.per_row import per_kept_row
from exactdp.discrete_gaussian import DEFAULT_BITS, DiscreteGaussian
from exactdp.params import DomainError, ParameterError, ParameterTypeError, to_fraction
from exactdp.randomness import RandomSource

__all__ = [
    "CALIBRATION_BASE",
    "EXACT_ATOMS",
    "GaussianProfile",
    "GaussianRowNoise",
    "grid_base",
    "row_sigma2",
]

#: Largest support (product of the rows' atom counts) composed exactly; larger columns get
#: the certified grid bound.
EXACT_ATOMS = 20_000
#: The finest grid ``base = 1 + 2^-12`` of the certified bound (about ``2.4 * 10^-4`` of
#: loss per lattice step); :func:`grid_base` coarsens it for rows of wide loss.
CALIBRATION_BASE = Fraction(4097, 4096)
#: :func:`grid_base` aims at most this many grid slots per row loss.
GRID_SLOTS = 1 << 13


def row_sigma2(value: object, name: str) -> Fraction:
    """A row's ``sigma^2``: an exact positive rational (floats refused)."""
    s2 = to_fraction(value, name)
    if s2 <= 0:
        raise ParameterError(f"{name} = {s2} must be a positive rational (the row's discrete "
                             f"Gaussian variance parameter sigma^2)")
    return s2


def grid_base(rows: Sequence[tuple[Fraction, int]], bits: int = DEFAULT_BITS) -> Fraction:
    """The grid ``1 + 2^-k`` (``6 <= k <= 12``) for rows ``(sigma^2, Delta)``: the largest
    ``k`` whose lattice steps ``ln(1 + 2^-k) >= 2^-(k+1)`` cover each row's loss span
    ``Delta (2T + Delta) / (2 sigma^2)`` (``T`` bounded by
    :func:`exactdp.discrete_gaussian.tail_bound`) in at most about :data:`GRID_SLOTS`
    slots.  Public: from ``(sigma^2, Delta, b)`` only; any base gives a certified bound,
    a coarser one a looser and cheaper one."""
    from exactdp.discrete_gaussian import tail_bound

    span = max((Fraction(d * (2 * tail_bound(s2, bits) + d)) / (2 * s2) for s2, d in rows
                if d), default=Fraction(0))
    k = 12
    while k > 6 and span * (1 << (k + 1)) > GRID_SLOTS:
        k -= 1
    return Fraction((1 << k) + 1, 1 << k)


def _moments(g: DiscreteGaussian) -> tuple[Fraction, Fraction]:
    """``(E|Z|, E[Z^2])`` of the sampled law, exactly."""
    half = g.half_weights
    s1 = sum(x * w for x, w in enumerate(half))
    s2 = sum(x * x * w for x, w in enumerate(half))
    return Fraction(2 * s1, g.d), Fraction(2 * s2, g.d)


class GaussianRowNoise:
    """The discrete Gaussian noise of the kept rows (see the module doc): ``sigma2s[i]`` and
    ``ranges[i] = (lo_i, hi_i)`` for row number ``i``; rows with one ``sigma^2`` share one
    :class:`~exactdp.discrete_gaussian.DiscreteGaussian`.  ``bits`` is the weights' ``b``."""

    def __init__(self, sigma2s: Sequence[Fraction], ranges: Sequence[tuple[int, int]],
                 bits: int = DEFAULT_BITS) -> None:
        if len(sigma2s) != len(ranges):
            raise ParameterError(f"{len(sigma2s)} sigma2 values for {len(ranges)} rows")
        self.sigma2s = tuple(row_sigma2(s, f"sigma2[{i}]") for i, s in enumerate(sigma2s))
        self.ranges = tuple(ranges)
        self.bits = bits
        shared: dict[Fraction, DiscreteGaussian] = {}
        for s2 in self.sigma2s:
            if s2 not in shared:
                shared[s2] = DiscreteGaussian(s2, bits)
        self.samplers: tuple[DiscreteGaussian, ...] = tuple(shared[s] for s in self.sigma2s)
        self.draw_order: tuple[int, ...] = tuple(range(len(self.sigma2s)))
        self.distinct = len(shared)

    def __len__(self) -> int:
        return len(self.samplers)

    def _check(self, centres: Sequence[int]) -> None:
        if len(centres) != len(self.samplers):
            raise ParameterError(f"{len(centres)} centres for {len(self.samplers)} rows")
        for i, c in enumerate(centres):
            lo, hi = self.ranges[i]
            if not lo <= c <= hi:
                raise DomainError(f"centre {c} of row {i} is outside its public range "
                                  f"[{lo}, {hi}]")

    def draw(self, centres: Sequence[int], source: RandomSource) -> list[int]:
        """``[clamp(c_j + Z_j)]`` in row order: one ``inverse_cdf`` of the row's sampler per
        row (one ``uniform(W_j)`` and the fixed-round search)."""
        self._check(centres)
        out = []
        for c, g, (lo, hi) in zip(centres, self.samplers, self.ranges, strict=True):
            v = c + source.inverse_cdf(g) - g.tail
            out.append(lo if v < lo else min(v, hi))
        return out

    def apply(self, centres: Sequence[int], us: Sequence[int]) -> list[int]:
        """The deterministic map ``(c, u) -> [clamp(c_j + search_j(u_j) - T_j)]``, ``us[t]`` in
        ``[1, W_t]`` in row order."""
        self._check(centres)
        if len(us) != len(self.samplers):
            raise ParameterError(f"{len(us)} draws u for {len(self.samplers)} rows; pass one u "
                                 f"in [1, W] per kept row, in row order")
        out = []
        for t, (c, g, (lo, hi), u) in enumerate(zip(centres, self.samplers, self.ranges, us,
                                                    strict=True)):
            if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= g.d:
                raise ParameterTypeError(f"u[{t}] = {u!r:.40} must be an int in [1, W]")
            v = c + g.search(u) - g.tail
            out.append(lo if v < lo else min(v, hi))
        return out

    @property
    def draw_sizes(self) -> tuple[int, ...]:
        """``W_j`` of every draw, in row order (public)."""
        return tuple(g.d for g in self.samplers)

    def row_law(self, j: int, c: int) -> dict[int, Fraction]:
        """The exact law of ``clamp(c + Z_j)`` for row number ``j`` at centre ``c``."""
        g, (lo, hi) = self.samplers[j], self.ranges[j]
        if not lo <= c <= hi:
            raise DomainError(f"centre {c} of row {j} is outside its public range [{lo}, {hi}]")
        out: dict[int, Fraction] = {}
        for x, p in g.law().items():
            v = min(max(c + x, lo), hi)
            out[v] = out.get(v, Fraction(0)) + p
        return out

    def error_moments(self, j: int, c: int) -> tuple[Fraction, Fraction]:
        """``(E[e_j], E[e_j^2])`` for ``e_j = c~_j - c_j`` at centre ``c``, exactly."""
        m1 = m2 = Fraction(0)
        for v, p in self.row_law(j, c).items():
            m1 += p * (v - c)
            m2 += p * (v - c) ** 2
        return m1, m2

    def abs_mean(self, j: int) -> Fraction:
        """``E|Z_j|`` of the unclamped noise (an upper bound of the clamped ``E|e_j|``)."""
        return _moments(self.samplers[j])[0]

    def second_moment(self, j: int) -> Fraction:
        """``E[Z_j^2]`` of the unclamped noise (the clamped ``E[e_j^2]`` is at most this)."""
        return _moments(self.samplers[j])[1]


Signature = tuple[tuple[Fraction, int], ...]  # sorted ((sigma2, shift)) of a column's moving rows


class GaussianProfile:
    """The privacy of discrete Gaussian rows ``sigma2s[j]`` with shifts ``shifts[j][n] =
    Delta_jn`` (see the module doc): per column, the composition of the unclamped rows'
    exact losses.  ``base``: the grid of the certified bound for columns whose exact
    composition has more than ``exact_atoms`` atoms (default :func:`grid_base` of the
    rows)."""

    def __init__(self, sigma2s: Sequence[object], shifts: Sequence[Sequence[int]],
                 bits: int = DEFAULT_BITS, base: object = None,
                 exact_atoms: int = EXACT_ATOMS) -> None:
        self.sigma2s = tuple(row_sigma2(s, f"sigma2[{j}]") for j, s in enumerate(sigma2s))
        if len(shifts) != len(self.sigma2s):
            raise ParameterError(f"shifts has {len(shifts)} rows but sigma2 has "
                                 f"{len(self.sigma2s)}; one row each")
        width = len(shifts[0]) if shifts else 0
        for j, row in enumerate(shifts):
            if len(row) != width:
                raise ParameterError(f"shifts[{j}] has {len(row)} columns, expected {width}")
            for n, v in enumerate(row):
                if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                    raise ParameterError(f"shifts[{j}][{n}] = {v!r} must be an int >= 0")
        self.shifts = tuple(tuple(row) for row in shifts)
        self.columns = width
        self.bits = bits
        if base is None:
            base = grid_base([(s2, max(row, default=0)) for s2, row in zip(
                self.sigma2s, self.shifts, strict=True)], bits)
        self.base = to_fraction(base, "base")
        if self.base <= 1:
            raise ParameterError(f"base = {self.base} must be > 1")
        self.exact_atoms = exact_atoms
        self._samplers: dict[Fraction, DiscreteGaussian] = {}
        self._rows: dict[tuple[Fraction, int], PrivacyLoss] = {}
        self._exact: dict[Signature, PrivacyLoss | None] = {}
        self._grids: dict[tuple[Signature, bool], GridLoss] = {}

    def __repr__(self) -> str:
        return f"GaussianProfile(rows={len(self.sigma2s)}, columns={self.columns})"

    @classmethod
    def uniform_shift(cls, sigma2s: Sequence[object], bits: int = DEFAULT_BITS,
                      base: object = None) -> GaussianProfile:
        """Every row shifted by 1 (Walsh ``T = W``): one column describes all."""
        return cls(sigma2s, [[1] for _ in sigma2s], bits, base)

    def sampler(self, s2: Fraction) -> DiscreteGaussian:
        if s2 not in self._samplers:
            self._samplers[s2] = DiscreteGaussian(s2, self.bits)
        return self._samplers[s2]

    def row_loss(self, s2: Fraction, shift: int) -> PrivacyLoss:
        """The exact loss of ``c + Z`` against ``c + shift + Z`` (any ``c``)."""
        key = (s2, shift)
        if key not in self._rows:
            law = self.sampler(s2).law()
            self._rows[key] = PrivacyLoss.from_laws(law, {x + shift: p for x, p in law.items()})
        return self._rows[key]

    @cached_property
    def signatures(self) -> dict[Signature, int]:
        """Distinct column signatures, each with its first column index."""
        out: dict[Signature, int] = {}
        for n in range(self.columns):
            out.setdefault(self._signature(n), n)
        return out

    def _signature(self, n: int) -> Signature:
        return tuple(sorted((s2, row[n]) for s2, row in zip(self.sigma2s, self.shifts,
                                                             strict=True) if row[n]))

    def _groups(self, sig: Signature) -> list[tuple[tuple[Fraction, int], int]]:
        groups: dict[tuple[Fraction, int], int] = {}
        for key in sig:
            groups[key] = groups.get(key, 0) + 1
        return sorted(groups.items())

    def _exact_column(self, sig: Signature) -> PrivacyLoss | None:
        """The column's exact composed loss when its support is at most ``exact_atoms``."""
        if sig not in self._exact:
            size = 1
            for key, m in self._groups(sig):
                size *= len(self.row_loss(*key)) ** m
            self._exact[sig] = (compose(*(self.row_loss(*key) for key in sig))
                                if size <= self.exact_atoms else None)
        return self._exact[sig]

    def _grid_column(self, sig: Signature, upper: bool) -> GridLoss:
        """The column's certified grid bound (``upper``: never below the exact loss's
        ``delta``; else never above): each group's row bound to its power, then composed."""
        key = (sig, upper)
        if key not in self._grids:
            total: GridLoss | None = None
            for row, m in self._groups(sig):
                part = grid_bounds(self.row_loss(*row), self.base)[1 if upper else 0].power(m)
                total = part if total is None else total.compose(part)
            assert total is not None
            self._grids[key] = total
        return self._grids[key]

    def exact(self) -> bool:
        """Whether every column's loss is composed exactly (no grid bound)."""
        return all(self._exact_column(sig) is not None for sig in self.signatures if sig)

    def delta_bounds(self, ratio: object) -> tuple[Fraction, Fraction, int]:
        """``(lo, hi, column)``: ``hi`` a certified upper bound on the release's ``delta`` at
        ``eps = ln R`` (the exact ``delta`` of the unclamped rows where composed exactly),
        ``lo <= hi`` the same for the unclamped rows' lower bound, ``column`` attaining
        ``hi``."""
        return self._delta(ratio, True)

    def _delta(self, ratio: object, lower: bool) -> tuple[Fraction, Fraction, int]:
        r = to_fraction(ratio, "R")
        if r <= 0:
            raise ParameterError(f"R = {r} must be > 0")
        none = max(Fraction(0), 1 - r)  # no row moves: P = Q
        best = (none, none, 0)
        first = True
        for sig, n in self.signatures.items():
            if not sig:
                lo = hi = none
            else:
                loss = self._exact_column(sig)
                if loss is not None:
                    lo = hi = loss.delta_at_ratio(r)
                else:
                    hi = self._grid_column(sig, True).delta_at_ratio(r)
                    lo = self._grid_column(sig, False).delta_at_ratio(r) if lower else hi
            if first or hi > best[1]:
                best, first = (lo, hi, n), False
        return best

    def delta_upper(self, ratio: object) -> Fraction:
        """A certified upper bound on ``delta(R)`` of the release (see :meth:`delta_bounds`;
        only the upper grid is built)."""
        return self._delta(ratio, False)[1]

    def column_loss(self, n: int) -> PrivacyLoss:
        """The exact composed loss of column ``n`` (refused when it has more than
        ``exact_atoms`` atoms)."""
        if not 0 <= n < self.columns:
            raise ParameterError(f"column n = {n} must lie in [0, {self.columns})")
        sig = self._signature(n)
        loss = (self._exact_column(sig) if sig else
                PrivacyLoss.from_laws({0: Fraction(1)}, {0: Fraction(1)}))
        if loss is None:
            raise ParameterError(f"column {n}'s exact loss has more than {self.exact_atoms} "
                                 f"atoms; only its certified grid bound is available")
        return loss


def sigma2_for(spec: object, rows: Sequence[int]) -> tuple[Fraction, ...]:
    """Per-kept-row ``sigma^2`` from one value, a sequence over the kept rows, or a mapping."""
    return per_kept_row(spec, rows, "sigma2", row_sigma2,
                        "sigma2 is required: one sigma^2 > 0 for every kept row, a sequence "
                        "with one per kept row, a mapping {row: sigma2}, or (epsilon, delta) "
                        "to calibrate")
