"""Audit targets written the way people write them: one-argument functions drawing from
the ``random`` module, a class whose method draws from its own generator attribute, and
functions in StatDP's shape ``f(prng, queries, epsilon)`` drawing numpy's Laplace noise.
(Floats here are the audited code's own, as shipped code has them.)"""

from __future__ import annotations

import math
import random

import numpy as np

E_KEEP = math.exp(1) / (1 + math.exp(1))


def rr(bit):
    """Randomized response as usually written: keep the bit with probability e/(1+e)."""
    return bit if random.random() < E_KEEP else 1 - bit


def rr_dyadic(bit):
    """Its dyadic twin: keep with probability 3/4 exactly (ratio 3: ln(3)-DP)."""
    return bit if random.random() < 0.75 else 1 - bit


class Randomiser:
    """diffprivlib's shape: ``Randomiser(p).randomise(value)`` draws from ``self._rng``."""

    def __init__(self, keep):
        self.keep = keep
        self._rng = random.Random()

    def randomise(self, value):
        return value if self._rng.random() < self.keep else 1 - value


def keep_with(prng, bit, keep):
    """The generator first, a parameter after the input."""
    return bit if prng.random() < keep else 1 - bit


def noisy_max(prng, queries, epsilon):
    """Report noisy max in StatDP's shape: the index of the largest noisy query."""
    return (np.asarray(queries, dtype=np.float64)
            + prng.laplace(scale=2.0 / epsilon, size=len(queries))).argmax()


def noisy_count_rounded(prng, count, epsilon):
    """A count plus Laplace noise of scale 1/epsilon, rounded and clamped to [-2, 2]."""
    return int(count + np.clip(np.rint(prng.laplace(scale=1.0 / epsilon)), -2, 2))


def noisy_count_global(count, epsilon):
    """The same through numpy's global functions (np.random.laplace)."""
    return int(count + np.clip(np.rint(np.random.laplace(scale=1.0 / epsilon)), -2, 2))


def noisy_values(prng, queries):
    """Outcomes as a numpy array of the noisy queries' signs (an array outcome)."""
    return np.sign(np.asarray(queries) + prng.laplace(scale=1.0, size=len(queries)))


def noisy_max_rounded(prng, queries, epsilon):
    """Noisy max with the Laplace noise rounded and clamped to [-2, 2]: every draw takes
    five values, so the joint law is finite and explored exactly."""
    noise = np.clip(np.rint(prng.laplace(scale=2.0 / epsilon, size=len(queries))), -2, 2)
    return int((np.asarray(queries, dtype=np.float64) + noise).argmax())


def rr_expovariate(bit):
    """Keep the bit when an Exp(1) draw of the random module is below 1."""
    return bit if random.expovariate(1.0) < 1.0 else 1 - bit


def rr_gauss(bit):
    """Keep the bit when a standard normal of the random module is negative."""
    return bit if random.gauss(0.0, 1.0) < 0.0 else 1 - bit
