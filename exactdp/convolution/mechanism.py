"""Exact private convolution mechanisms (paper 002, Algorithm 1).

:class:`WalshFourierMechanism` is the paper's Algorithm 1 ("Fourier Mechanism") on the group
``Z_2^d`` of §5.4 (XOR convolution), made exact: the Fourier basis of ``Z_2^d`` is the ``+-1``
Walsh-Hadamard matrix ``W``, so the coefficients ``c = W x`` are integers with sensitivity
exactly 1, the noise is discrete (clamped two-sided geometric with rational ratios, one row
per coefficient ``j`` with ``lambda_j = (W h)_j != 0``), and the reconstruction
``y = N^-1 W (lambda o c~)`` (Corollary 1: ``y^ = diag(lambda) x^``) is exact rational
arithmetic.  :class:`IntegerStrategyMechanism` is the general integer-strategy mechanism of
the integral factorization lemma (any invertible integer ``T``, ``G = H T^-1``).

Common to both (``I`` the kept rows, ``r_j > 1`` their public ratios):

* **release** ``M(x)``: ``c = T x``; for every ``j`` in ``I`` (draw order below),
  ``c~_j = clamp_[lo_j, hi_j](c_j + Z_j)`` with ``Pr[Z_j = z] = ((r_j-1)/(r_j+1)) r_j^-|z|``
  (:class:`exactdp.noise.ClampedGeometric`, ratio ``alpha_j = 1/r_j``, one ``uniform(D_j)``),
  ``[lo_j, hi_j]`` the public range of ``t_j . x`` over the domain; output ``y = G c~``.
* **exact law**: ``c~`` has independent coordinates with the clamped geometric laws above;
  ``y`` is its image under ``G`` (post-processing).  :meth:`sample_with` is the sampling code
  itself, so :func:`exactdp.explore.explore` returns the exact law of ``y`` on small cases.
* **privacy**: the privacy-loss distribution between ``x`` and ``x +- e_n`` is
  data-independent; pure ratio ``max_n prod_j r_j^|T_jn|`` (Walsh: ``prod_j r_j``), exact
  ``delta(R)`` via :meth:`privacy` (:mod:`exactdp.convolution.accounting`).
* **draws / strict time**: exactly ``|I|`` draws ``uniform(D_j)``, in the public order
  :attr:`~exactdp.convolution.rows.RowNoise.draw_order` (rows grouped by sampler), with
  ``D_j`` fixed by ``(r_j, lo_j, hi_j)``; each followed by a ``(hi_j - lo_j).bit_length()``-round
  search; the transform and reconstruction have fixed schedules.  Nothing about the schedule
  depends on ``x`` (tested with a counting source); big-integer operation times are bounded by
  public sizes (as everywhere in exactdp).
* **accuracy** (Definition 5, per-output mean): :meth:`mse` exact for each ``x``,
  :meth:`mse_bound` an exact bound for every ``x`` (Walsh: ``N^-2 sum_j lambda_j^2
  2 r_j/(r_j - 1)^2``, the corrected Theorem 9).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Any

from exactdp.convolution.domain import Domain
from exactdp.convolution.groups import (
    Exact,
    circular_convolve,
    exact_vector,
    xor_convolve,
)
from exactdp.convolution.per_row import per_kept_row
from exactdp.convolution.rows import (
    RowNoise,
    row_ratio,
    unclamped_abs_mean,
    unclamped_second_moment,
)
from exactdp.convolution.strategy import IntegerStrategy
from exactdp.convolution.transforms import fwht, fwht_ints
from exactdp.params import ExactDPError, ParameterError, ParameterTypeError
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "ConvolutionRelease",
    "IntegerStrategyMechanism",
    "WalshFourierMechanism",
]


@dataclass(frozen=True)
class ConvolutionRelease:
    """One release: ``y`` (exact rationals, the estimate of ``h * x``), the noisy coefficients
    ``c~_j`` of the kept rows (``coefficients[i]`` belongs to row ``rows[i]``; releasing them
    too is post-processing of the same output), and the number of draws made.

    ``seconds``: wall-clock time of the phases ``transform``, ``noise``, ``reconstruction``
    (measurements, not part of the release; empty unless asked for).
    """

    y: tuple[Fraction, ...]
    rows: tuple[int, ...]
    coefficients: tuple[int, ...]
    draws: int
    seconds: Mapping[str, float] = field(default_factory=dict, compare=False)


#: Walsh releases read their output coordinates from a table of the 2B + 1 possible values
#: when the bound B on |(W (lambda o c~))_k| is at most this (see WalshFourierMechanism).
Y_TABLE_BOUND = 256

RatioSpec = object  # one ratio, a sequence (one per kept row) or a mapping {row: ratio}


def _ratios_for(spec: object, rows: Sequence[int]) -> tuple[Fraction, ...]:
    """Per-kept-row ratios from one ratio, a sequence over the kept rows, or a mapping."""
    return per_kept_row(spec, rows, "ratios", row_ratio,
                        "ratios is required: one ratio r > 1 for every kept row, a sequence "
                        "with one ratio per kept row, or a mapping {row: ratio}")


class _FactorizationMechanism:
    """What the integer-strategy mechanisms share (see the module doc)."""

    N: int
    domain: Domain
    rows: tuple[int, ...]
    ratios: tuple[Fraction, ...]
    ranges: tuple[tuple[int, int], ...]
    noise: RowNoise

    calibration: Any

    def _calibrate(self, ratios: object, weights: Sequence[object],
                   shifts: Sequence[Sequence[int]] | None, epsilon: object, delta: object,
                   accounting: str, shape: str, max_denominator: int | None,
                   ratio_grid: str = "fractions") -> object:
        """Ratios for an ``(epsilon, delta)`` target by
        :func:`exactdp.convolution.calibration.calibrate` (shape, accounting mode; ratios
        rounded down onto the public ``ratio_grid``, ``<= e^{eps_j}``, certified there); sets
        ``self.calibration``.  Public data only: the weights, the shifts and the target."""
        if ratios is not None:
            raise ParameterError("pass either ratios or (epsilon, delta), not both")
        if epsilon is None or delta is None:
            raise ParameterError("calibration needs both epsilon and delta")
        from exactdp.convolution.calibration import calibrate

        kwargs: dict[str, Any] = {} if max_denominator is None else {
            "max_denominator": max_denominator}
        cal = calibrate(list(weights), epsilon, delta, shape=shape, accounting=accounting,
                        shifts=shifts, ratio_grid=ratio_grid, **kwargs)
        if cal.rows != self.rows:
            raise ExactDPError(f"internal: the calibration released rows {cal.rows[:5]}..., "
                               f"the mechanism keeps {self.rows[:5]}...")
        self.calibration = cal
        return cal.kept_ratios

    def _setup_noise(self, ratios: object) -> None:
        self.ratios = _ratios_for(ratios, self.rows)
        self.noise = RowNoise(self.ratios, self.ranges)

    # -------------------------------------------------------------- to implement

    def coefficients(self, x: Sequence[int]) -> list[int]:
        """``T x`` for ``x`` already validated (all rows)."""
        raise NotImplementedError

    def reconstruct(self, noisy: Sequence[int]) -> tuple[Fraction, ...]:
        """``G c~`` from the noisy values of the kept rows (in order)."""
        raise NotImplementedError

    def _reconstruct_drawn(self, noisy: Sequence[int]) -> tuple[Fraction, ...]:
        """:meth:`reconstruct` for noisy values the rows' samplers drew (each in its row's
        public range ``[lo_j, hi_j]``); a subclass may read a precomputed table here."""
        return self.reconstruct(noisy)

    def convolve(self, x: Sequence[int]) -> list[Exact]:
        """The exact, non-private ``H x``."""
        raise NotImplementedError

    def _gram(self, i: int, k: int) -> Fraction:
        """``(G^T G)`` between kept rows number ``i`` and ``k`` (positions in ``rows``)."""
        raise NotImplementedError

    def _offdiagonal(self) -> bool:
        return True

    # -------------------------------------------------------------- releases

    @property
    def draws(self) -> int:
        """The number of draws per release: ``|I|`` (one per kept row)."""
        return len(self.rows)

    @property
    def draw_sizes(self) -> tuple[int, ...]:
        """``D`` of every draw, in the draw order (rows grouped by sampler; public)."""
        return self.noise.draw_sizes

    def release(self, x: Sequence[int], source: RandomSource | None = None, *,
                timed: bool = False) -> ConvolutionRelease:
        """One private release of ``h * x`` (see the module doc).  ``source``: the randomness
        (default the OS CSPRNG); ``timed``: record the phases' wall-clock seconds."""
        src = default_source(source)
        xs = self.domain.validate(x)
        if not timed:  # the same steps, without the clock
            c = self.coefficients(xs)
            noisy = self.noise.draw([c[j] for j in self.rows], src)
            return ConvolutionRelease(self._reconstruct_drawn(noisy), self.rows, tuple(noisy),
                                      len(noisy), {})
        t0 = time.perf_counter()
        c = self.coefficients(xs)
        centres = [c[j] for j in self.rows]
        t1 = time.perf_counter()
        noisy = self.noise.draw(centres, src)
        t2 = time.perf_counter()
        y = self._reconstruct_drawn(noisy)
        t3 = time.perf_counter()
        seconds = {"transform": t1 - t0, "noise": t2 - t1, "reconstruction": t3 - t2}
        return ConvolutionRelease(y, self.rows, tuple(noisy), len(noisy), seconds)

    def sample_with(self, x: Sequence[int], source: RandomSource) -> tuple[Fraction, ...]:
        """``y`` of one release drawn from ``source``: the sampling code that
        :func:`exactdp.explore.explore` runs to obtain the exact law of the output."""
        return self.release(x, source).y

    def __call__(self, x: Sequence[int], us: Sequence[int]) -> tuple[Fraction, ...]:
        """The deterministic ``M(x, u)``: one ``u`` per kept row, in the release's draw order
        (``us[t]`` in ``[1, draw_sizes[t]]``; :attr:`RowNoise.draw_order`)."""
        xs = self.domain.validate(x)
        c = self.coefficients(xs)
        return self._reconstruct_drawn(self.noise.apply([c[j] for j in self.rows], us))

    # -------------------------------------------------------------- accuracy

    def mse(self, x: Sequence[int]) -> Fraction:
        """``(1/N) E ||M(x) - H x||^2`` exactly (Definition 5 for this ``x``):
        ``N^-1 [sum_j (G^T G)_jj E e_j^2 + sum_{j != k} (G^T G)_jk E e_j E e_k]`` with
        ``e_j = c~_j - c_j`` independent, moments from the rows' exact laws."""
        xs = self.domain.validate(x)
        c = self.coefficients(xs)
        moments = [self.noise.error_moments(i, c[j]) for i, j in enumerate(self.rows)]
        total = sum((self._gram(i, i) * m2 for i, (_, m2) in enumerate(moments)), Fraction(0))
        if self._offdiagonal():
            for i, (m1, _) in enumerate(moments):
                for k, (m1k, _) in enumerate(moments):
                    if i != k and m1 and m1k:
                        total += self._gram(i, k) * m1 * m1k
        return total / self.N

    def mse_bound(self) -> Fraction:
        """An exact bound on :meth:`mse` for every ``x`` in the domain:
        ``N^-1 [sum_j (G^T G)_jj 2r_j/(r_j-1)^2 + sum_{j != k} |(G^T G)_jk| m_j m_k]`` with
        ``m_j = E|Z_j| = 2r_j/(r_j^2-1)`` (clamping to a range that contains ``c_j`` gives
        ``|e_j| <= |Z_j|``).  For diagonal ``G^T G`` (Walsh) this is the corrected Theorem 9's bound
        ``N^-2 sum_j lambda_j^2 2 r_j/(r_j-1)^2``, attained when no clamping can occur."""
        s = [unclamped_second_moment(r) for r in self.ratios]
        total = sum((self._gram(i, i) * s[i] for i in range(len(s))), Fraction(0))
        if self._offdiagonal():
            m = [unclamped_abs_mean(r) for r in self.ratios]
            for i in range(len(s)):
                for k in range(len(s)):
                    if i != k:
                        total += abs(self._gram(i, k)) * m[i] * m[k]
        return total / self.N

    def unclamped_mse(self) -> Fraction:
        """The exact MSE of the same mechanism without clamping (zero-mean independent noise):
        ``N^-1 sum_j (G^T G)_jj 2 r_j/(r_j - 1)^2``; the discrete analogue of the paper's
        ``2 sum |h^_i|^2 b_i^2`` (Theorem 9's computation)."""
        return sum((self._gram(i, i) * unclamped_second_moment(r)
                    for i, r in enumerate(self.ratios)), Fraction(0)) / self.N

    # -------------------------------------------------------------- privacy

    def shift_matrix(self) -> list[list[int]]:
        """``Delta_jn = |T_jn|`` for the kept rows (rows) and columns ``n``."""
        raise NotImplementedError

    def privacy(self) -> Any:
        """The exact privacy profile (:class:`exactdp.convolution.accounting.PrivacyProfile`)
        of the kept rows' ratios and shifts: ``pure_ratio``, ``delta(R)``, ..."""
        from exactdp.convolution.accounting import PrivacyProfile

        return PrivacyProfile(list(self.ratios), self.shift_matrix())


class WalshFourierMechanism(_FactorizationMechanism):
    """Paper 002's Algorithm 1 for XOR convolution over ``Z_2^d`` (§5.4), exactly.

    Public: ``h`` (length ``N = 2^d``, ints or Fractions), the domain (its ``N`` must match),
    and the ratios ``r_j > 1`` of the kept rows ``I = {j : lambda_j != 0}``, ``lambda = W h``
    (one ratio for all, a sequence in increasing ``j``, or a mapping ``{j: r_j}``).

    Algorithm 1 (exact form): ``c = W x`` (fast WHT, ``d`` rounds of ``N/2``
    butterflies); for ``j`` in ``I`` increasing, ``c~_j = clamp_[lo_j, hi_j](c_j + Z_j)``
    (:class:`~exactdp.noise.ClampedGeometric`, ratio ``1/r_j``); ``y = N^-1 W (lambda o c~)``.
    Rows outside ``I`` get no noise and no draw (Algorithm 1's ``z_i = 0``, and they are
    multiplied by ``lambda_j = 0``).  ``[lo_j, hi_j]``: row 0 of ``W`` is all ones, the others
    have ``N/2`` entries ``+1`` and ``N/2`` entries ``-1``; histograms(N, n): ``[0, n]`` and
    ``[-n, n]``; box(N, m): ``[0, N m]`` and ``[-N m/2, N m/2]``.

    Exact guarantees: pure ratio ``prod_{j in I} r_j`` (shift 1 in every row for every
    neighbour), exact ``delta(R)`` (:meth:`privacy`); ``mse(x) = N^-2 sum_{j in I} lambda_j^2
    E[(c~_j - c_j)^2] <= mse_bound() = N^-2 sum lambda_j^2 2r_j/(r_j - 1)^2`` (the corrected
    Theorem 9; for ``r_j = e^{eps_j}`` at most the paper's continuous formula).  Cost: two
    fast WHTs (``d N`` additions), ``|I|`` draws, ``N`` products and ``N`` Fractions.
    """

    def __init__(self, h: Sequence[object], domain: Domain, ratios: RatioSpec = None, *,
                 epsilon: object = None, delta: object = None, accounting: str = "exact",
                 shape: str = "fourier", max_denominator: int | None = None,
                 ratio_grid: str = "fractions") -> None:
        if not isinstance(domain, Domain):
            raise ParameterTypeError(f"domain = {domain!r:.60} must be a Domain (e.g. "
                                     f"Domain.histograms(N, n))")
        hh = exact_vector(h, "h")
        self.N = len(hh)
        if self.N < 1 or self.N & (self.N - 1):
            raise ParameterError(f"h has length {self.N}; XOR convolution over Z_2^d needs "
                                 f"N = 2^d")
        if domain.N != self.N:
            raise ParameterError(f"the domain has N = {domain.N} but h has length {self.N}")
        self.h = tuple(hh)
        self.domain = domain
        self.eigenvalues: tuple[Exact, ...] = tuple(fwht(hh))
        self.rows = tuple(j for j, v in enumerate(self.eigenvalues) if v != 0)
        if all(type(v) is int for v in self.eigenvalues):
            self._scale = 1
            self._lam_int: list[int] = [int(v) for v in self.eigenvalues]
        else:
            self._scale = lcm(*(Fraction(v).denominator for v in self.eigenvalues))
            self._lam_int = [int(Fraction(v) * self._scale) for v in self.eigenvalues]
        half = self.N // 2
        first = domain.range_from_stats(1, 1, self.N, 0)          # row 0: all +1
        other = domain.range_from_stats(1, -1, half, -half)       # N/2 entries +1, N/2 -1
        self.ranges = tuple(first if j == 0 else other for j in self.rows)
        self.calibration = None
        if epsilon is not None or delta is not None:
            ratios = self._calibrate(ratios, self.eigenvalues, None, epsilon, delta, accounting,
                                     shape, max_denominator, ratio_grid)
        self._setup_noise(ratios)
        # |(W v)_k| <= sum_j |lambda_j scale| max(|lo_j|, |hi_j|) =: B for drawn values c~_j in
        # [lo_j, hi_j]: with B small, every output coordinate w / (N scale) is built once here
        # (public: from h and the ranges) and a release reads table[w + B] -- the same
        # Fractions, and equal outputs are the same objects (cheap to compare and look up).
        bound = sum(abs(self._lam_int[j]) * max(abs(lo), abs(hi))
                    for j, (lo, hi) in zip(self.rows, self.ranges, strict=True))
        den = self.N * self._scale
        self._y_bound = bound
        self._y_table: list[Fraction] | None = (
            [Fraction(w, den) for w in range(-bound, bound + 1)] if bound <= Y_TABLE_BOUND
            else None)

    def __repr__(self) -> str:
        return (f"WalshFourierMechanism(N={self.N}, domain={self.domain}, kept rows="
                f"{len(self.rows)}, distinct samplers={self.noise.distinct})")

    def coefficients(self, x: Sequence[int]) -> list[int]:
        return fwht_ints(list(x))

    def _numerators(self, noisy: Sequence[int]) -> list[int]:
        """``W (lambda o c~)`` on integers: the outputs' numerators over ``N scale``."""
        if len(noisy) != len(self.rows):
            raise ParameterError(f"{len(noisy)} noisy values for {len(self.rows)} kept rows")
        v = [0] * self.N
        lam = self._lam_int
        for j, c in zip(self.rows, noisy, strict=True):
            v[j] = lam[j] * c
        return fwht_ints(v)

    def reconstruct(self, noisy: Sequence[int]) -> tuple[Fraction, ...]:
        den = self.N * self._scale
        return tuple(Fraction(w, den) for w in self._numerators(noisy))

    def _reconstruct_drawn(self, noisy: Sequence[int]) -> tuple[Fraction, ...]:
        table = self._y_table
        if table is None:
            return self.reconstruct(noisy)
        off = self._y_bound
        return tuple([table[w + off] for w in self._numerators(noisy)])

    def convolve(self, x: Sequence[int]) -> list[Exact]:
        return xor_convolve(self.h, self.domain.validate(x))

    def _gram(self, i: int, k: int) -> Fraction:
        # G = N^-1 W diag(lambda): G^T G = diag(lambda^2)/N
        if i != k:
            return Fraction(0)
        lam = Fraction(self.eigenvalues[self.rows[i]])
        return lam * lam / self.N

    def _offdiagonal(self) -> bool:
        return False

    def mse_bound(self) -> Fraction:
        """``N^-2 sum_j lambda_j^2 2 r_j/(r_j - 1)^2`` (see the base class), summed once per
        distinct ``(|lambda_j|, r_j)`` with its multiplicity: the same exact rational."""
        counts: dict[tuple[int, Fraction], int] = {}
        lam = self._lam_int  # lambda_j * scale, ints
        for j, r in zip(self.rows, self.ratios, strict=True):
            key = (abs(lam[j]), r)
            counts[key] = counts.get(key, 0) + 1
        total = sum((k * v * v * unclamped_second_moment(r) for (v, r), k in counts.items()),
                    Fraction(0))
        return total / (self.N * self.N * self._scale * self._scale)

    def shift_matrix(self) -> list[list[int]]:
        return [[1] * self.N for _ in self.rows]

    def privacy(self) -> Any:
        """The exact privacy profile: every kept row has shift 1 in every column, so one
        column describes all (``PrivacyProfile.uniform_shift``)."""
        from exactdp.convolution.accounting import PrivacyProfile

        return PrivacyProfile.uniform_shift(list(self.ratios))


class IntegerStrategyMechanism(_FactorizationMechanism):
    """The integer-strategy factorization mechanism.

    Public: an :class:`~exactdp.convolution.strategy.IntegerStrategy` (``T``, ``H``, exact
    ``G = H T^-1``), the domain, and the ratios of the kept rows (see
    :class:`WalshFourierMechanism` for the forms).  Release: ``c = T x`` (``N^2`` integer
    operations), one clamped geometric draw per kept row in increasing order, ``y = G c~``
    exactly.  Pure ratio ``max_n prod_j r_j^|T_jn|``; MSE as in the module doc, with the
    general ``G^T G`` form (clamping makes ``E e_j`` non-zero; the cross terms are exact).

    Calibration by ``(epsilon, delta)``: :func:`exactdp.convolution.calibration.calibrate` with the
    weights :meth:`IntegerStrategy.column_weights` (``||g_j||_2``, rounded; for Walsh/Fourier
    ``|lambda_j|/sqrt N``, so shape "fourier" is Algorithm 1's ``eps_j ∝ sqrt|h^_j|``) and the
    shifts ``|T_jn|`` (privacy comes from the exact accounting, whatever the weights).
    """

    def __init__(self, strategy: IntegerStrategy, domain: Domain,
                 ratios: RatioSpec = None, *, h: Sequence[object] | None = None,
                 convolve: Callable[[Sequence[object], Sequence[object]], list[Exact]]
                 | None = None, epsilon: object = None, delta: object = None,
                 accounting: str = "exact", shape: str = "fourier",
                 max_denominator: int | None = None, ratio_grid: str = "fractions") -> None:
        if not isinstance(strategy, IntegerStrategy):
            raise ParameterTypeError(f"strategy = {strategy!r:.60} must be an IntegerStrategy")
        if not isinstance(domain, Domain):
            raise ParameterTypeError(f"domain = {domain!r:.60} must be a Domain")
        if domain.N != strategy.N:
            raise ParameterError(f"the domain has N = {domain.N} but the strategy has "
                                 f"N = {strategy.N}")
        self.strategy = strategy
        self.N = strategy.N
        self.domain = domain
        self.rows = strategy.kept
        self.ranges = tuple(domain.row_range(strategy.T[j]) for j in self.rows)
        self.h = None if h is None else tuple(exact_vector(h, "h", self.N))
        self._convolve = convolve
        self.calibration = None
        if epsilon is not None or delta is not None:
            ratios = self._calibrate(ratios, strategy.column_weights(),
                                     [[abs(v) for v in row] for row in strategy.T], epsilon,
                                     delta, accounting, shape, max_denominator, ratio_grid)
        self._setup_noise(ratios)
        # as for WalshFourierMechanism: |sum_j G_num[k][j] c~_j| <= B for drawn c~_j in
        # [lo_j, hi_j]; with B small a release reads table[w + B] = Fraction(w, G_den)
        g = strategy.G_num
        reach = [max(abs(lo), abs(hi)) for lo, hi in self.ranges]
        bound = max((sum(abs(g[k][j]) * m for j, m in zip(self.rows, reach, strict=True))
                     for k in range(self.N)), default=0)
        self._y_bound = bound
        self._y_table: list[Fraction] | None = (
            [Fraction(w, strategy.G_den) for w in range(-bound, bound + 1)]
            if bound <= Y_TABLE_BOUND else None)

    def __repr__(self) -> str:
        return (f"IntegerStrategyMechanism({self.strategy!r}, domain={self.domain}, kept rows="
                f"{len(self.rows)})")

    def coefficients(self, x: Sequence[int]) -> list[int]:
        return self.strategy.apply(x)

    def reconstruct(self, noisy: Sequence[int]) -> tuple[Fraction, ...]:
        return self.strategy.reconstruct(noisy)

    def _reconstruct_drawn(self, noisy: Sequence[int]) -> tuple[Fraction, ...]:
        table = self._y_table
        if table is None:
            return self.strategy.reconstruct(noisy)
        if len(noisy) != len(self.rows):
            raise ParameterError(f"{len(noisy)} noisy values for {len(self.rows)} kept rows")
        g, off, rows = self.strategy.G_num, self._y_bound, self.rows
        return tuple([table[sum(g[k][j] * v for j, v in zip(rows, noisy, strict=True)) + off]
                      for k in range(self.N)])

    def convolve(self, x: Sequence[int]) -> list[Exact]:
        xs = self.domain.validate(x)
        if self.h is not None and self._convolve is not None:
            return self._convolve(self.h, xs)
        h = self.strategy.H
        return [sum((a * b for a, b in zip(row, xs, strict=True)), 0) for row in h]

    def _gram(self, i: int, k: int) -> Fraction:
        return self.strategy.gram[i][k]

    def shift_matrix(self) -> list[list[int]]:
        return self.strategy.shifts()


def circular_mechanism(strategy: IntegerStrategy, domain: Domain, ratios: RatioSpec,
                       h: Sequence[object]) -> IntegerStrategyMechanism:
    """An :class:`IntegerStrategyMechanism` for circular convolution by ``h``."""
    return IntegerStrategyMechanism(strategy, domain, ratios, h=h, convolve=circular_convolve)
