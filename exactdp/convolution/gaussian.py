"""Private convolution with discrete Gaussian noise (the Gaussian-like option of paper 002).

For the same zCDP budget Gaussian noise has half the variance of Laplace noise
(``rho = Delta^2 / (2 sigma^2)`` against ``eps^2 / 2``), so the Fourier mechanism's error
roughly halves.  :class:`GaussianWalshMechanism` (``Z_2^d``) and
:class:`GaussianStrategyMechanism` (any integer strategy; :func:`gaussian_cyclic` for
``Z_N``) are the mechanisms of :mod:`exactdp.convolution.mechanism` with the rows' clamped
geometric noise replaced by clamped discrete Gaussians
(:class:`~exactdp.convolution.gaussian_rows.GaussianRowNoise`): the same transform, windows
and reconstruction; one ``uniform(W_j)`` and a fixed-round search per kept row.

**Privacy** (:meth:`privacy`, :class:`~exactdp.convolution.gaussian_rows.GaussianProfile`):
the rows' exact losses composed through :mod:`exactdp.accounting` -- exact on small cases,
a certified grid upper bound otherwise; never a formula for the ideal Gaussian.

**Calibration** to ``(epsilon, delta)`` (:func:`calibrate_gaussian`): row ``j`` gets
``sigma_j^2 = S / s_j`` with shape ``s_j = |w_j| / max|w|`` (``"fourier"``: the optimum of
``sum lambda_j^2 sigma_j^2`` at a fixed ``sum 1/sigma_j^2``; rounded down to a multiple of
``1/64``, at least ``1/64``) or ``s_j = 1`` (``"uniform"``), and the scale ``S = m u`` is a
multiple of a public unit ``u`` (``1/64`` of the zCDP scale) whose certified ``delta(R_lo)``
is at most ``delta``, ``R_lo <= e^eps`` rational, found by doubling and
:func:`exactdp.bisection.boundary`: ``m`` passes and ``m - 1`` does not.  A discrete
Gaussian's ``delta`` is not monotone in its variance, so ``m`` is not promised to be the least
passing multiple; the result is checked at the returned scale.

**Accuracy**: ``mse_bound`` from the exact unclamped moments ``E[Z^2]`` and ``E|Z|``
(:meth:`GaussianRowNoise.second_moment`), ``mse(x)`` exact; :func:`compare_noise` prints
both noises' exact bounds at one ``(epsilon, delta)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor, isqrt
from typing import Any

from exactdp.bisection import boundary
from exactdp.certified import exp_interval, ln_interval
from exactdp.convolution.domain import Domain
from exactdp.convolution.gaussian_rows import (
    GaussianProfile,
    GaussianRowNoise,
    sigma2_for,
)
from exactdp.convolution.groups import Exact, circular_convolve
from exactdp.convolution.mechanism import IntegerStrategyMechanism, WalshFourierMechanism
from exactdp.convolution.strategy import IntegerStrategy
from exactdp.discrete_gaussian import DEFAULT_BITS
from exactdp.params import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    epsilon_delta,
    to_fraction,
)

__all__ = [
    "GAUSSIAN_SHAPES",
    "GaussianCalibration",
    "GaussianStrategyMechanism",
    "GaussianWalshMechanism",
    "NoiseComparison",
    "calibrate_gaussian",
    "compare_noise",
    "gaussian_cyclic",
]

GAUSSIAN_SHAPES = ("fourier", "uniform")
#: Shape weights are multiples of ``1/SHAPE_STEPS`` (at most that many distinct samplers).
SHAPE_STEPS = 64
#: The scale search's unit is ``1/UNIT_STEPS`` of the zCDP scale.
UNIT_STEPS = 64
#: Largest scale multiple tried before giving up.
MAX_MULTIPLE = 1 << 16


@dataclass(frozen=True)
class GaussianCalibration:
    """The calibrated noise: ``sigma2s`` per kept row, the scale ``S = multiple * unit`` and
    its shape, the
    certificate ``delta_upper >= delta(R_lo)`` with ``R_lo <= e^eps`` rational, and whether
    the composition behind it was exact (``accounting_used``: ``"exact"`` or
    ``"exact-grid"``)."""

    sigma2s: tuple[Fraction, ...]
    scale: Fraction
    shape: str
    epsilon: Fraction
    delta: Fraction
    R_lo: Fraction
    delta_upper: Fraction
    accounting_used: str
    unit: Fraction
    multiple: int

    @property
    def certificate(self) -> dict[str, Fraction]:
        return {"R_lo": self.R_lo, "delta_upper": self.delta_upper}


def _shape(weights: Sequence[Fraction], shape: str) -> list[Fraction]:
    if shape not in GAUSSIAN_SHAPES:
        raise ParameterError(f"shape = {shape!r} must be one of {', '.join(GAUSSIAN_SHAPES)} "
                             f"for discrete Gaussian noise")
    if shape == "uniform" or not weights:
        return [Fraction(1)] * len(weights)
    top = max(abs(w) for w in weights)
    out = []
    for w in weights:
        k = floor(abs(w) * SHAPE_STEPS / top)
        out.append(Fraction(max(k, 1), SHAPE_STEPS))
    return out


def _zcdp_scale(shape: Sequence[Fraction], shifts: Sequence[Sequence[int]], eps: Fraction,
                dlt: Fraction) -> Fraction:
    """The ideal Gaussian's scale for ``(eps, delta)`` by zCDP (a starting point only):
    ``rho = (sqrt(L + eps) - sqrt L)^2`` with ``L = ln(1/delta)``, and
    ``S = max_n sum_j Delta_jn^2 s_j / (2 rho)``, rounded up to a multiple of ``2^-8``."""
    big_l = ln_interval(1 / dlt, 32).lo
    one = 1 << 32

    def root(x: Fraction) -> Fraction:
        return Fraction(isqrt(floor(x * one * one)), one)

    rho = (root(big_l + eps) - root(big_l)) ** 2
    rho = max(rho, Fraction(1, one))
    width = len(shifts[0]) if shifts else 0
    need = max((sum((row[n] ** 2 * s for row, s in zip(shifts, shape, strict=True)),
                    Fraction(0)) for n in range(width)), default=Fraction(0))
    scale = need / (2 * rho)
    return Fraction(max(1, ceil(scale * 256)), 256)


def calibrate_gaussian(weights: Sequence[object], epsilon: object, delta: object,
                       shape: str = "fourier", shifts: Sequence[Sequence[int]] | None = None,
                       bits: int = DEFAULT_BITS, base: object = None
                       ) -> GaussianCalibration:
    """``sigma_j^2`` for the rows with public weights ``weights`` (all non-zero; the kept
    rows) and shifts ``shifts[j][n]`` (default: one column of ones, Walsh) meeting
    ``(epsilon, delta)`` (see the module doc)."""
    eps, dlt = epsilon_delta(epsilon, delta)
    ws = [to_fraction(w, f"weights[{j}]") for j, w in enumerate(weights)]
    if any(w == 0 for w in ws):
        raise ParameterError("every row to calibrate needs a non-zero weight (drop the rows "
                             "with weight 0)")
    sh = [[1] for _ in ws] if shifts is None else [list(row) for row in shifts]
    s = _shape(ws, shape)
    unit = _zcdp_scale(s, sh, eps, dlt) / UNIT_STEPS
    r_lo = exp_interval(eps, 64).lo

    def profile(m: int) -> GaussianProfile:
        return GaussianProfile([m * unit / sj for sj in s], sh, bits, base)

    cache: dict[int, bool] = {}

    def ok(m: int) -> bool:
        if m not in cache:
            cache[m] = profile(m).delta_upper(r_lo) <= dlt
        return cache[m]

    hi = UNIT_STEPS
    while not ok(hi):
        hi *= 2
        if hi > MAX_MULTIPLE:
            raise ResourceLimitError(
                f"no discrete Gaussian scale up to {MAX_MULTIPLE} units meets (epsilon, delta) "
                f"= ({eps}, {dlt}); with weights rounded down at {bits} bits the noise has "
                f"outputs a neighbour cannot produce, of mass about 2^-{bits}/sigma or more, "
                f"and delta is never below that mass: ask for a larger delta")
    lo = UNIT_STEPS // 4  # exact accounting rarely saves 4x over zCDP; if it does, search lower
    if ok(lo):
        hi, lo = lo, 0  # ok(0) is False (no noise)
    hi = boundary(ok, lo, hi)
    final = profile(hi)
    bound = final.delta_upper(r_lo)
    if bound > dlt:  # pragma: no cover - ok(hi) was checked
        raise AssertionError("the calibrated scale does not meet delta")
    return GaussianCalibration(tuple(hi * unit / sj for sj in s), hi * unit, shape, eps, dlt,
                               r_lo, bound, "exact" if final.exact() else "exact-grid", unit, hi)


class _GaussianRows:
    """What the Gaussian mechanisms change in :class:`_FactorizationMechanism`: the noise,
    its calibration, the MSE bounds from the Gaussian moments, the privacy profile."""

    N: int
    rows: tuple[int, ...]
    ranges: tuple[tuple[int, int], ...]
    bits: int
    calibration: Any
    noise: Any
    _gram: Callable[[int, int], Fraction]
    _offdiagonal: Callable[[], bool]
    shift_matrix: Callable[[], list[list[int]]]

    def _calibrate(self, ratios: object, weights: Sequence[object],
                   shifts: Sequence[Sequence[int]] | None, epsilon: object, delta: object,
                   accounting: str, shape: str, max_denominator: int | None,
                   ratio_grid: str = "fractions") -> object:
        if ratios is not None:
            raise ParameterError("pass either sigma2 or (epsilon, delta), not both")
        if epsilon is None or delta is None:
            raise ParameterError("calibration needs both epsilon and delta")
        kept_shifts = None if shifts is None else [list(shifts[j]) for j in self.rows]
        cal = calibrate_gaussian([weights[j] for j in self.rows], epsilon, delta, shape,
                                 kept_shifts, self.bits)
        self.calibration = cal
        return cal.sigma2s

    def _setup_noise(self, ratios: object) -> None:
        self.sigma2s = sigma2_for(ratios, self.rows)
        self.ratios: tuple[Fraction, ...] = ()
        self.noise = GaussianRowNoise(self.sigma2s, self.ranges, self.bits)

    def mse_bound(self) -> Fraction:
        """An exact bound on ``mse(x)`` for every ``x``: ``N^-1 [sum_j (G^T G)_jj E[Z_j^2] +
        sum_{j != k} |(G^T G)_jk| E|Z_j| E|Z_k|]`` (clamping to a window containing ``c_j``
        never lengthens the error)."""
        n = len(self.rows)
        noise = self.noise
        s = [noise.second_moment(i) for i in range(n)]
        total = sum((self._gram(i, i) * s[i] for i in range(n)), Fraction(0))
        if self._offdiagonal():
            m = [noise.abs_mean(i) for i in range(n)]
            for i in range(n):
                for k in range(n):
                    if i != k:
                        total += abs(self._gram(i, k)) * m[i] * m[k]
        return total / self.N

    def unclamped_mse(self) -> Fraction:
        """The exact MSE without clamping: ``N^-1 sum_j (G^T G)_jj E[Z_j^2]``."""
        return sum((self._gram(i, i) * self.noise.second_moment(i)
                    for i in range(len(self.rows))), Fraction(0)) / self.N

    def privacy(self) -> GaussianProfile:
        """The certified privacy profile of the rows' noise
        (:class:`~exactdp.convolution.gaussian_rows.GaussianProfile`)."""
        return GaussianProfile(list(self.sigma2s), self.shift_matrix(), self.bits)


def _check_bits(bits: object) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or not 8 <= bits <= 4096:
        raise ParameterTypeError(f"bits = {bits!r:.40} must be an int in [8, 4096] (the "
                                 f"discrete Gaussian's weight precision)")
    return bits


class GaussianWalshMechanism(_GaussianRows, WalshFourierMechanism):
    """Paper 002's Algorithm 1 on ``Z_2^d`` with discrete Gaussian noise: ``sigma2`` (one
    value, one per kept row, or ``{row: sigma2}``) or ``(epsilon, delta)`` with ``shape``;
    ``bits`` the weights' precision.  Every row has shift 1 in every column."""

    def __init__(self, h: Sequence[object], domain: Domain, sigma2: object = None, *,
                 epsilon: object = None, delta: object = None, shape: str = "fourier",
                 bits: int = DEFAULT_BITS) -> None:
        self.bits = _check_bits(bits)
        super().__init__(h, domain, sigma2, epsilon=epsilon, delta=delta, shape=shape)

    def __repr__(self) -> str:
        return (f"GaussianWalshMechanism(N={self.N}, domain={self.domain}, kept rows="
                f"{len(self.rows)}, distinct samplers={self.noise.distinct})")

    def privacy(self) -> GaussianProfile:
        return GaussianProfile.uniform_shift(list(self.sigma2s), self.bits)


class GaussianStrategyMechanism(_GaussianRows, IntegerStrategyMechanism):
    """The integer-strategy mechanism with discrete Gaussian noise (shifts ``|T_jn|``)."""

    def __init__(self, strategy: IntegerStrategy, domain: Domain, sigma2: object = None, *,
                 h: Sequence[object] | None = None,
                 convolve: Callable[[Sequence[object], Sequence[object]], list[Exact]]
                 | None = None, epsilon: object = None, delta: object = None,
                 shape: str = "fourier", bits: int = DEFAULT_BITS) -> None:
        self.bits = _check_bits(bits)
        super().__init__(strategy, domain, sigma2, h=h, convolve=convolve, epsilon=epsilon,
                         delta=delta, shape=shape)

    def __repr__(self) -> str:
        return (f"GaussianStrategyMechanism({self.strategy!r}, domain={self.domain}, kept "
                f"rows={len(self.rows)})")


def gaussian_cyclic(h: Sequence[object], domain: Domain, strategy: str = "auto",
                    scale: object = 32, *, epsilon: object, delta: object,
                    shape: str = "fourier", bits: int = DEFAULT_BITS
                    ) -> GaussianStrategyMechanism:
    """Circular convolution on ``Z_N`` with discrete Gaussian noise: the strategy ``name``
    (or ``"auto"``: every applicable one calibrated to ``(epsilon, delta)``, the smallest
    exact :meth:`mse_bound` kept, ties in :func:`exactdp.convolution.cyclic.applicable`'s
    order)."""
    from exactdp.convolution.cyclic import best_strategy
    from exactdp.convolution.groups import exact_vector

    hh = exact_vector(h, "h")

    def build(strat: IntegerStrategy) -> GaussianStrategyMechanism:
        return GaussianStrategyMechanism(strat, domain, h=hh, convolve=circular_convolve,
                                         epsilon=epsilon, delta=delta, shape=shape, bits=bits)

    best: GaussianStrategyMechanism = best_strategy(hh, strategy, scale, build)[0]
    return best


@dataclass(frozen=True)
class NoiseComparison:
    """Both noises at one ``(epsilon, delta)``: the calibrated mechanisms, their exact MSE
    bounds and ``ratio = laplace_mse / gaussian_mse`` (exact)."""

    laplace: WalshFourierMechanism
    gaussian: GaussianWalshMechanism
    laplace_mse: Fraction
    gaussian_mse: Fraction

    @property
    def ratio(self) -> Fraction:
        return self.laplace_mse / self.gaussian_mse


def compare_noise(h: Sequence[object], domain: Domain, epsilon: object, delta: object,
                  shape: str = "fourier") -> NoiseComparison:
    """Both noises on ``Z_2^d`` at one ``(epsilon, delta)``, each calibrated by its exact
    accounting (clamped geometric: :class:`WalshFourierMechanism`; discrete Gaussian:
    :class:`GaussianWalshMechanism`), with their exact :meth:`mse_bound`."""
    lap = WalshFourierMechanism(h, domain, epsilon=epsilon, delta=delta, shape=shape)
    gau = GaussianWalshMechanism(h, domain, epsilon=epsilon, delta=delta, shape=shape)
    return NoiseComparison(lap, gau, lap.mse_bound(), gau.mse_bound())
