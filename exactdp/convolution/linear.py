"""Linear (non-circular) convolution by zero padding (paper 002, §5.3).

The linear convolution of ``x`` (length ``n``) by ``h`` (length ``m``) is
``y_k = sum_{i + j = k} x_i h_j`` for ``k = 0 .. n + m - 2``.  Padded with zeros to
``N = n + m - 1``, circular convolution on ``Z_N`` computes it exactly: ``(h' * x')_k =
sum_i x_i h'_{(k - i) mod N}`` and ``0 <= k - i + N < N + m - 1`` hits a padded zero of
``h'`` whenever ``k < i`` (no wrap-around reaches a non-zero entry).  So
:class:`LinearConvolutionMechanism` is the circular mechanism
(:class:`~exactdp.convolution.cyclic.CyclicFourierMechanism`) of the padded filter on ``Z_N``,
fed the padded input: the padding is public, so its output is post-processing of that
mechanism restricted to inputs whose last ``m - 1`` entries are zero.

* **domain**: a :class:`~exactdp.convolution.domain.Domain` of length ``n`` (the real input);
  the circular mechanism runs on the domain of the same kind and bound at length ``N``, which
  contains every padded input, so its public row ranges hold for them.
* **calibration**: over all ``N`` columns of ``T`` (conservative: a padded column never
  changes); **privacy** (:meth:`~LinearConvolutionMechanism.privacy`): the exact profile over
  the ``n`` real columns only (neighbours ``x +- e_i``, ``i < n``), never worse than the
  calibrated one.
* **accuracy**: Definition 5 per output of the ``n + m - 1`` outputs, exactly the circular
  mechanism's (same ``N``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.convolution.cyclic import CyclicFourierMechanism
from exactdp.convolution.domain import Domain
from exactdp.convolution.groups import Exact, exact_vector
from exactdp.convolution.mechanism import RatioSpec
from exactdp.params import ParameterError, ParameterTypeError

__all__ = ["LinearConvolutionMechanism", "linear_convolve", "padded_length"]


def padded_length(n: int, m: int) -> int:
    """``N = n + m - 1``: the length of the linear convolution, and of the padding."""
    if n < 1 or m < 1:
        raise ParameterError(f"linear convolution needs an input and a filter of length >= 1; "
                             f"got n = {n}, m = {m}")
    return n + m - 1


def linear_convolve(h: Sequence[object], x: Sequence[object]) -> list[Exact]:
    """``y_k = sum_{i + j = k} x_i h_j`` for ``k = 0 .. n + m - 2`` (exact; ``O(n m)``)."""
    hh = exact_vector(h, "h")
    xx = exact_vector(x, "x")
    out: list[Exact] = [0] * padded_length(len(xx), len(hh))
    for i, xi in enumerate(xx):
        if xi:
            for j, hj in enumerate(hh):
                out[i + j] += xi * hj
    return out


class LinearConvolutionMechanism(CyclicFourierMechanism):
    """Private linear convolution ``h * x`` (zero padding, §5.3; see the module doc).

    Public: ``h`` (length ``m``), the domain of ``x`` (length ``n``), and the options of
    :class:`~exactdp.convolution.cyclic.CyclicFourierMechanism` (strategy, scale, ratios or
    ``(epsilon, delta)`` with the calibration options).  :meth:`release` takes ``x`` of length
    ``n`` and returns ``y`` of length ``n + m - 1``; ``N`` is that padded length.
    """

    def __init__(self, h: Sequence[object], domain: Domain, ratios: RatioSpec = None,
                 **options: Any) -> None:
        if not isinstance(domain, Domain):
            raise ParameterTypeError(f"domain = {domain!r:.60} must be a Domain (of the input "
                                     f"x, length n)")
        hh = exact_vector(h, "h")
        n, m = domain.N, len(hh)
        big = padded_length(n, m)
        super().__init__(list(hh) + [0] * (big - m), Domain(domain.kind, big, domain.bound),
                         ratios, **options)
        self.input_domain = domain
        self.filter = tuple(hh)

    def __repr__(self) -> str:
        return (f"LinearConvolutionMechanism(strategy={self.strategy_name!r}, n="
                f"{self.input_domain.N}, m={len(self.filter)}, N={self.N}, "
                f"domain={self.input_domain}, kept rows={len(self.rows)})")

    def pad(self, x: Sequence[int]) -> list[int]:
        """``x`` (validated in the input domain) followed by ``m - 1`` zeros."""
        xs = self.input_domain.validate(x)
        return xs + [0] * (self.N - len(xs))

    def release(self, x: Sequence[int], source: Any = None, *, timed: bool = False) -> Any:
        return super().release(self.pad(x), source, timed=timed)

    def sample_with(self, x: Sequence[int], source: Any) -> tuple[Fraction, ...]:
        return super().release(self.pad(x), source).y

    def __call__(self, x: Sequence[int], us: Sequence[int]) -> tuple[Fraction, ...]:
        return super().__call__(self.pad(x), us)

    def mse(self, x: Sequence[int]) -> Fraction:
        return super().mse(self.pad(x))

    def convolve(self, x: Sequence[int]) -> list[Exact]:
        """The exact, non-private linear convolution (by its definition, not the padding)."""
        return linear_convolve(self.filter, self.input_domain.validate(x))

    def shift_matrix(self) -> list[list[int]]:
        """``|T_jn|`` for the kept rows and the ``n`` real columns (padded columns never
        change)."""
        n = self.input_domain.N
        return [row[:n] for row in super().shift_matrix()]
