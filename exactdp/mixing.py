"""Algorithm 3.1 and Lemma 3.2: recover pure DP by mixing with a full-support distribution.

``M*_{M', D, gamma}``: with probability ``1 - gamma`` release ``M'(x)``, otherwise a sample
of ``D``.  Lemma 3.2 i: if some ``(eps, 0)``-DP ``M`` has ``Delta(M(x), M'(x)) <= delta``
for every input ``x``, then ``M*`` is ``(eps, 0)``-DP whenever

    delta <= (e**eps - 1)/(e**eps + 1) * gamma/(1 - gamma) * min_r Pr[D = r].      (1)

Condition (1) compares a rational with an irrational (for ``eps > 0``), so
:func:`lemma_3_2_condition` decides it with certified bounds on ``e**eps``; the function
``L -> (L - 1)/(L + 1)`` is increasing, so a lower bound ``L <= e**eps`` gives a lower bound
on the right-hand side (rounding errs toward refusing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

from exactdp.certified import MAX_PRECISION_BITS, exp_interval
from exactdp.params import ParameterError, ResourceLimitError, inverse_integer, to_fraction
from exactdp.randomness import RandomSource, default_source

__all__ = ["Lemma32Condition", "lemma_3_2_condition", "mix", "uniform_on_counts"]

R = TypeVar("R")


def mix(release: Callable[[RandomSource], R], fallback: Callable[[RandomSource], R],
        gamma: object, source: RandomSource | None = None) -> R:
    """Algorithm 3.1: ``release(source)`` with probability ``1 - gamma``, else ``fallback(source)``.

    ``gamma`` in ``N^{-1}`` (``gamma = 1/g``); the coin is ``source.bernoulli(g - 1, g)``, one
    draw from ``[g]_+`` whatever the input (Lemma 3.2 ii: ``O(log 1/gamma)`` time plus the
    time of the branch taken).
    """
    if type(gamma) is Fraction and gamma.numerator == 1:  # already 1/m (denominator > 0)
        g = gamma.denominator
    else:
        g = inverse_integer(gamma, "gamma").denominator
    src = default_source(source)
    if src.bernoulli(g - 1, g):
        return release(src)
    return fallback(src)


def uniform_on_counts(n: int) -> Callable[[RandomSource], int]:
    """The distribution ``Unif([n])`` as sampling code: ``uniform(n + 1) - 1``."""
    return lambda src: src.uniform(n + 1) - 1


@dataclass(frozen=True)
class Lemma32Condition:
    """The decided condition (1): ``delta <= rhs_lower`` proves it; ``delta > rhs_upper``
    refutes it.  ``rhs_lower <= (e**eps-1)/(e**eps+1) * gamma/(1-gamma) * min_prob <= rhs_upper``.
    """

    holds: bool
    delta: Fraction
    rhs_lower: Fraction
    rhs_upper: Fraction


def lemma_3_2_condition(delta: object, epsilon: object, gamma: object,
                        min_prob: object) -> Lemma32Condition:
    """Decide condition (1) of Lemma 3.2 exactly (certified bounds on ``e**eps``)."""
    d = to_fraction(delta, "delta")
    eps = to_fraction(epsilon, "epsilon")
    g = to_fraction(gamma, "gamma")
    p = to_fraction(min_prob, "min_prob")
    if not 0 <= d < 1 or eps <= 0 or not 0 < g < 1 or not 0 < p <= 1:
        raise ParameterError(f"Lemma 3.2 needs 0 <= delta < 1, eps > 0, 0 < gamma < 1 and "
                             f"0 < min_prob <= 1; got {d}, {eps}, {g}, {p}")
    factor = g / (1 - g) * p
    bits = 64
    while bits <= MAX_PRECISION_BITS:
        box = exp_interval(eps, bits)
        lower = (box.lo - 1) / (box.lo + 1) * factor
        upper = (box.hi - 1) / (box.hi + 1) * factor
        if d <= lower:
            return Lemma32Condition(True, d, lower, upper)
        if d > upper:
            return Lemma32Condition(False, d, lower, upper)
        bits *= 2
    raise ResourceLimitError(f"could not decide Lemma 3.2 (1) for delta = {d}")
