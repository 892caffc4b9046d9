"""The only floats of the randomness facades: ``j / 2**53`` and ``Random.uniform``.

FLOATS LIVE HERE, AND ONLY HERE (in :mod:`exactdp.audit`): the code audited through
:mod:`exactdp.audit.facades` expects ``random()`` to return a float, so the facade hands it
the float ``j / 2**53`` -- exactly the value CPython's ``Random.random()`` (and numpy's
``Generator.random()``) returns when its 53 random bits are ``j``.  The conversion is exact
(``j < 2**53``).  No float reaches a probability, a weight or a verdict: those come from the
integer ``j`` and the breakpoints found by :mod:`exactdp.audit.facades`.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["FLOAT_BITS", "as_unit_float", "uniform_from"]

#: Bits of a ``random()`` draw: ``j`` uniform on ``[0, 2**53)``.
FLOAT_BITS = 53


def as_unit_float(j: int) -> Any:
    """``j / 2**53`` as a float (exact for ``0 <= j < 2**53``)."""
    if not 0 <= j < 1 << FLOAT_BITS:
        raise ValueError(f"j = {j} is not in [0, 2**53)")
    return math.ldexp(j, -FLOAT_BITS)  # float: exact, j < 2**53


def uniform_from(a: Any, b: Any, rng: Any) -> Any:
    """``a + (b - a) * rng.random()``: CPython's ``Random.uniform(a, b)`` (the same float
    operations in the same order, so the same float for the same ``random()``)."""
    return a + (b - a) * rng.random()  # float: CPython's formula, operation for operation
