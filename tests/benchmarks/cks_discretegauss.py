"""A port of the Canonne-Kamath-Steinke exact discrete Gaussian sampler, for the benchmark only.

Canonne, Kamath & Steinke, *The Discrete Gaussian for Differential Privacy* (NeurIPS 2020),
Algorithms 1-3, as in the authors' reference Python implementation (``discretegauss.py``,
Apache 2.0, not on PyPI): rational arithmetic with :class:`fractions.Fraction`, every random
bit from ``rng.randrange``.  Rejection sampling: the running time depends on the coins.
Not shipped with exactdp (it lives beside the benchmark that times it).
"""

from __future__ import annotations

import random
from fractions import Fraction


def uniform(m: int, rng: random.Random) -> int:
    """Uniform on ``range(m)``."""
    return rng.randrange(m)


def bernoulli(p: Fraction, rng: random.Random) -> int:
    """Bernoulli(p) for a rational ``p`` in [0, 1]."""
    return 1 if uniform(p.denominator, rng) < p.numerator else 0


def bernoulli_exp1(gamma: Fraction, rng: random.Random) -> int:
    """Bernoulli(exp(-gamma)) for ``gamma`` in [0, 1] (Algorithm 1, first part)."""
    k = 1
    while bernoulli(gamma / k, rng):
        k += 1
    return k % 2


def bernoulli_exp(gamma: Fraction, rng: random.Random) -> int:
    """Bernoulli(exp(-gamma)) for ``gamma >= 0`` (Algorithm 1)."""
    while gamma > 1:
        if not bernoulli_exp1(Fraction(1), rng):
            return 0
        gamma -= 1
    return bernoulli_exp1(gamma, rng)


def geometric_exp_slow(gamma: Fraction, rng: random.Random) -> int:
    """Geometric(1 - exp(-gamma)) by repeated Bernoulli(exp(-gamma))."""
    k = 0
    while bernoulli_exp(gamma, rng):
        k += 1
    return k


def geometric_exp_fast(gamma: Fraction, rng: random.Random) -> int:
    """Geometric(1 - exp(-gamma)) (Algorithm 2's inner step): ``gamma = s/t``."""
    if gamma == 0:
        return 0
    t = gamma.denominator
    while True:
        u = uniform(t, rng)
        if bernoulli_exp(Fraction(u, t), rng):
            break
    v = geometric_exp_slow(Fraction(1), rng)
    return (v * t + u) // gamma.numerator


def dlaplace(scale: Fraction, rng: random.Random) -> int:
    """The discrete Laplace ``Pr[Y = y]`` proportional to ``exp(-|y|/scale)`` (Algorithm 2)."""
    while True:
        sign = bernoulli(Fraction(1, 2), rng)
        magnitude = geometric_exp_fast(1 / scale, rng)
        if sign and magnitude == 0:
            continue
        return magnitude * (1 - 2 * sign)


def floorsqrt(x: Fraction) -> int:
    """``floor(sqrt(x))`` for a rational ``x >= 0``, by integer bisection."""
    lo, hi = 0, 1
    while hi * hi <= x:
        hi *= 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if mid * mid <= x:
            lo = mid
        else:
            hi = mid
    return lo


def dgauss(sigma2: Fraction, rng: random.Random) -> int:
    """The discrete Gaussian ``N_Z(0, sigma2)`` (Algorithm 3): a discrete Laplace proposal of
    scale ``t = floor(sigma) + 1`` accepted with probability
    ``exp(-(|y| - sigma2/t)^2 / (2 sigma2))``."""
    sigma2 = Fraction(sigma2)
    t = floorsqrt(sigma2) + 1
    while True:
        y = dlaplace(Fraction(t), rng)
        bias = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)
        if bernoulli_exp(bias, rng):
            return y
