"""Estimators on released signs and projections (Li & Li, paper 001, eq. 8-10 and 29).

All are post-processing of released outputs and exact rationals; the final ``theta = pi(1 - P)``
of eq. (10)/(29) is left to the caller (``pi`` is not rational).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections.rr import Base

__all__ = ["collision_fraction", "debias_rr_collision", "inner_product"]


def _same_length(s1: Sequence[int], s2: Sequence[int]) -> int:
    if len(s1) != len(s2) or not s1:
        raise ParameterError(f"the two vectors must be non-empty and of one length (got "
                             f"{len(s1)} and {len(s2)})")
    return len(s1)


def collision_fraction(s1: Sequence[int], s2: Sequence[int]) -> Fraction:
    """``(1/k) sum_j 1{s1_j = s2_j}`` (eq. 10's collision frequency, exact)."""
    k = _same_length(s1, s2)
    return Fraction(sum(1 for a, b in zip(s1, s2) if a == b), k)


def debias_rr_collision(fraction: object, base: Base) -> Fraction:
    """Eq. (29) without ``pi``: ``P^_RR = (rho+1)^2/(rho-1)^2 * frac - 2 rho/(rho-1)^2`` for
    bits released by randomized response with keep probability ``rho/(rho+1)``; unbiased for
    the collision probability of the true signs (``E frac = P (q-f)^2 + 2qf``)."""
    if not isinstance(base, Base):
        raise ParameterTypeError(f"base = {base!r:.60} must be a Base(a, b)")
    if not isinstance(fraction, (int, Fraction)) or isinstance(fraction, bool):
        raise ParameterTypeError(f"fraction = {fraction!r:.60} must be an int or a Fraction")
    rho = base.ratio
    return (rho + 1) ** 2 / (rho - 1) ** 2 * Fraction(fraction) - 2 * rho / (rho - 1) ** 2


def inner_product(x: Sequence[int], y: Sequence[int]) -> int:
    """``sum_j x_j y_j`` of two integer projections (the estimator of Thm 3.9/3.10 up to the
    public scaling ``1/k``)."""
    _same_length(x, y)
    return sum(a * b for a, b in zip(x, y))
