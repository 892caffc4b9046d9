"""Circular convolution on ``Z_N`` with an integer strategy.

Paper 002's Algorithm 1 adds noise to the complex DFT coefficients; with discrete noise that is
not private at all (the shifts ``F e_n`` are irrational), so on ``Z_N`` the
transform is replaced by an integer strategy ``T`` and the output is ``y = G c~`` with
``G = H T^-1`` exact (:class:`~exactdp.convolution.mechanism.IntegerStrategyMechanism`).
Strategies (all public, chosen from public data only):

* ``"real-fourier"`` -- ``T = round_half_up(c Q)``, the real orthonormal Fourier basis at scale
  ``c`` rounded with certified exact rounding
  (:func:`~exactdp.convolution.transforms.real_fourier_rounded`); ``O(N^3)`` setup, ``O(N^2)``
  per release;
* ``"walsh"`` (``N = 2^k``) -- ``T = W``: not diagonalising, but flat rows (every shift 1);
* ``"hartley"`` (``N = 4``) -- ``T = cas(2 pi k n/4)``, a ``+-1`` matrix that block-diagonalises
  every circulant exactly (the Gaussian-integer case);
* ``"auto"`` -- each applicable strategy calibrated to the same ``(epsilon, delta)``, and the one
  with the smallest exact :meth:`mse_bound` (ties: the order above).

Calibration: as in :class:`~exactdp.convolution.mechanism.IntegerStrategyMechanism` (weights
``||g_j||_2``, shifts ``|T_jn|``, exact accounting by default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from exactdp.convolution.domain import Domain
from exactdp.convolution.groups import circulant, circular_convolve, exact_vector
from exactdp.convolution.mechanism import IntegerStrategyMechanism, RatioSpec
from exactdp.convolution.strategy import IntegerStrategy
from exactdp.convolution.transforms import hartley4, real_fourier_rounded, walsh_matrix
from exactdp.params import ParameterError, ParameterTypeError

__all__ = ["STRATEGIES", "CyclicFourierMechanism", "cyclic_strategy"]

STRATEGIES = ("real-fourier", "walsh", "hartley", "auto")

#: Default rounding scale ``c`` of the real-Fourier strategy (notes §3.5: ``c = 32`` is within
#: about 1.0-1.1 of eq. 5 for broadband filters).
DEFAULT_SCALE = 32


def applicable(n: int) -> tuple[str, ...]:
    """The concrete strategies available at length ``N``, in ``auto``'s tie order."""
    out = ["real-fourier"]
    if n & (n - 1) == 0:
        out.append("walsh")
    if n == 4:
        out.append("hartley")
    return tuple(out)


def cyclic_strategy(name: str, h: Sequence[object], scale: object = DEFAULT_SCALE
                    ) -> IntegerStrategy:
    """The integer strategy ``name`` for circular convolution by ``h`` (``H`` = circulant)."""
    hh = exact_vector(h, "h")
    n = len(hh)
    if n < 1:
        raise ParameterError("h is empty; N must be at least 1")
    if name == "real-fourier":
        t = real_fourier_rounded(n, scale)
    elif name == "walsh":
        if n & (n - 1):
            raise ParameterError(f"strategy 'walsh' needs N = 2^k; N = {n}")
        t = walsh_matrix(n)
    elif name == "hartley":
        if n != 4:
            raise ParameterError(f"strategy 'hartley' is exact only at N = 4; N = {n}")
        t = hartley4()
    else:
        raise ParameterError(f"strategy = {name!r} must be one of {', '.join(STRATEGIES)}")
    return IntegerStrategy(t, circulant(hh), name)


def best_strategy(hh: Sequence[object], strategy: str, scale: object,
                  build: Callable[[IntegerStrategy], Any]) -> tuple[Any, dict[str, Fraction]]:
    """The mechanism ``build(strategy)`` of the named strategy, or for ``"auto"`` the one of
    least exact :meth:`mse_bound` among the :func:`applicable` strategies whose rounded basis
    is invertible at ``scale`` (ties: the first in that order), with every candidate's bound."""
    if strategy not in STRATEGIES:
        raise ParameterError(f"strategy = {strategy!r} must be one of {', '.join(STRATEGIES)}")
    names = applicable(len(hh)) if strategy == "auto" else (strategy,)
    candidates: dict[str, Fraction] = {}
    best: Any = None
    for name in names:
        try:
            strat = cyclic_strategy(name, hh, scale)
        except ParameterError:
            if strategy != "auto":
                raise
            continue  # e.g. a rounded basis that is singular at a small scale
        mech = build(strat)
        candidates[name] = mech.mse_bound()
        if best is None or candidates[name] < candidates[best.strategy.name]:
            best = mech
    if best is None:
        raise ParameterError(f"no strategy of {names} is invertible at N = {len(hh)} and "
                             f"scale {scale}; raise the scale")
    return best, candidates


class CyclicFourierMechanism(IntegerStrategyMechanism):
    """Private circular convolution ``h * x`` on ``Z_N`` (paper 002 eq. 1; Algorithm 1 with an
    integer strategy in place of the DFT).

    Public: ``h`` (length ``N``), the domain, the strategy (``"auto"`` by default) and its
    rounding ``scale`` (real-Fourier only), and either ``ratios`` (one per kept row; not with
    ``"auto"``, which compares strategies at equal privacy) or ``(epsilon, delta)`` with
    ``accounting``/``shape``/``max_denominator``/``ratio_grid`` for the calibration.

    Exact guarantees: pure ratio ``max_n prod_j r_j^|T_jn|``; exact ``delta(R)``
    (:meth:`privacy`); ``mse(x)`` exact with the general ``G^T G`` form; :meth:`mse_bound` for
    every ``x``.  Draws: one per kept row (rows with ``G e_j = 0`` are dropped).
    """

    def __init__(self, h: Sequence[object], domain: Domain, ratios: RatioSpec = None, *,
                 strategy: str = "auto", scale: object = DEFAULT_SCALE, epsilon: object = None,
                 delta: object = None, accounting: str = "exact", shape: str = "fourier",
                 max_denominator: int | None = None, ratio_grid: str = "fractions") -> None:
        if not isinstance(domain, Domain):
            raise ParameterTypeError(f"domain = {domain!r:.60} must be a Domain")
        hh = exact_vector(h, "h")
        if domain.N != len(hh):
            raise ParameterError(f"the domain has N = {domain.N} but h has length {len(hh)}")
        if strategy == "auto" and epsilon is None and delta is None:
            raise ParameterError("strategy 'auto' compares strategies at equal privacy: pass "
                                 "epsilon and delta (or choose a strategy to use ratios)")

        def build(strat: IntegerStrategy) -> IntegerStrategyMechanism:
            return IntegerStrategyMechanism(
                strat, domain, ratios, h=hh, convolve=circular_convolve, epsilon=epsilon,
                delta=delta, accounting=accounting, shape=shape,
                max_denominator=max_denominator, ratio_grid=ratio_grid)

        best, self.candidates = best_strategy(hh, strategy, scale, build)
        self.__dict__.update(best.__dict__)
        self.strategy_name = best.strategy.name

    def __repr__(self) -> str:
        return (f"CyclicFourierMechanism(strategy={self.strategy_name!r}, N={self.N}, "
                f"domain={self.domain}, kept rows={len(self.rows)})")
