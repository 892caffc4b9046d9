"""Code comparing its random() values and integer draws every way the lazy draws read them:
ints, floats (dyadic and not, subnormal, signed zero, infinities, nan), Fractions, bools,
``==`` / ``!=``, values shifted by an int, reflected comparisons, and uses that escape."""

import math
import random
from fractions import Fraction


def many_operands(c):
    """One random() value compared with many kinds of numbers (every answer counted)."""
    u = random.random()
    score = c
    for x in (0.5, 0.75, math.exp(-1), 0.3, 5e-324, -0.0, 0, 1, True, math.inf, -math.inf,
              math.nan, 1 << 60, 2**-60):
        score += (u < x) + 2 * (u <= x) + 4 * (x < u) + 8 * (u >= x)
    # (Fraction's own comparisons read the value's class: on the right only)
    return (score + (u > Fraction(1, 3)) + 2 * (u <= Fraction(2, 3))) % 7


def equalities(c):
    """``==`` and ``!=`` of random() values and integer draws, at cell ends and inside
    (each answer its own bit of the output)."""
    u = random.random()
    k = random.randrange(6)
    bits = ((u == 0.5), (u == 0), (u != 2**-53), (k == 0), (k == 5), (k == 2), (3 != k),
            (k + 1 == 4), (k - 1 < 1), (k >= 4))
    return c + sum(b << i for i, b in enumerate(bits))


def shifted_randint(c):
    """``randint(a, b)``: a shifted integer draw, compared with ints and floats."""
    d = random.randint(-2, 2)
    return c + (d < 0.5) - (d >= 1) + (d == -2)


def walk(c):
    """A short geometric walk of random() values against a non-dyadic float."""
    z = c
    a = math.exp(-1)
    while z < c + 3 and random.random() < a:
        z += 1
    return z


def escapes(c):
    """A random() value used in arithmetic (the lazy draw escapes: explored by its effect)."""
    u = random.random()
    return c if u * 4 < 3 else 1 - c


def own_methods(c):
    """random's own methods compute with the float (expovariate), next to a plain draw."""
    e = random.expovariate(2.0)
    return c + (e < 0.25) + (random.random() < 0.5)


from random import random as _bound_random


def bound_name(c):
    """random() through a name bound at import (called through the audit's guard)."""
    return c if _bound_random() < 0.75 else 1 - c


def compared_twice(c):
    """Randomized response (ln 3) comparing its value twice with the same threshold: the
    second comparison falls on an end of the cell the first left (no branch)."""
    u = random.random()
    return c if u < 0.75 and u < 0.75 and 0.75 > u else 1 - c
