"""``random.choices`` as CPython 3.11 computes it, with ``random()`` compared exactly.

CPython picks ``population[floor(random() * n)]`` without weights and
``population[bisect(cum_weights, random() * total, 0, n - 1)]`` with them, where
``random() * total`` is a rounded double product.  Rounding to nearest is monotone, so for
every number ``w`` the set of doubles ``u = j / 2**53`` with ``fl(u * total) >= w`` is
``j >= b`` for one ``b``, found by bisection on ``j`` (:func:`threshold`).  Each comparison
CPython makes with the product (``x < cum_weights[mid]`` in ``bisect``, ``floor(x) >= i``)
is therefore the exact comparison ``u < b / 2**53``, which a lazy ``random()`` value
branches on exactly: the law of the index is CPython's, found without exploring the
``2**53`` doubles one by one.  (The ``u < b / 2**53`` reads ``fl(u * total) < w``, the
comparison ``bisect`` makes, so that a nan among ``cum_weights`` behaves as in CPython.)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

__all__ = ["choose", "prepared", "threshold"]

_N = 1 << 53


@lru_cache(maxsize=4096)
def threshold(total: float, w: Any) -> float:
    """``b / 2**53`` for the least ``b`` in ``[0, 2**53]`` with ``not fl(b / 2**53 * total)
    < w`` (``2**53`` -- the value 1.0, which ``random()`` never gives -- when there is none):
    ``u * total < w`` exactly when ``u < threshold(total, w)``, for every double ``u`` in
    ``[0, 1)`` (``total > 0``: the product is monotone in ``u``; a nan ``w``, which no
    product is below, gives 0)."""
    lo, hi = 0, _N
    while lo < hi:
        mid = (lo + hi) // 2
        if not math.ldexp(mid, -53) * total < w:  # the double product CPython takes
            hi = mid
        else:
            lo = mid + 1
    return math.ldexp(lo, -53)


def prepared(n: int, weights: Any, cum_weights: Any, k: Any) -> tuple[Any, float]:
    """CPython 3.11's checks of ``choices``' arguments, in its order and with its errors;
    ``(cum_weights or None, total)``."""
    if cum_weights is None:
        if weights is None:
            return None, n + 0.0
        try:
            cum_weights = list(itertools.accumulate(weights))
        except TypeError:
            if not isinstance(weights, int):
                raise
            k = weights
            raise TypeError(f"The number of choices must be a keyword argument: {k=}") from None
    elif weights is not None:
        raise TypeError("Cannot specify both weights and cumulative weights")
    if len(cum_weights) != n:
        raise ValueError("The number of weights does not match the population")
    total = cum_weights[-1] + 0.0  # convert to float
    if total <= 0.0:
        raise ValueError("Total of weights must be greater than zero")
    if not math.isfinite(total):
        raise ValueError("Total of weights must be finite")
    return cum_weights, total


def choose(u: Any, population: Sequence[Any], cum_weights: Any, total: float) -> Any:
    """``population[i]`` for the index CPython computes from ``random() == u``: ``u`` a
    double or a lazy value, only ever compared with doubles."""
    n = len(population)
    if cum_weights is None:  # floor(u * n): the greatest i in [0, n] with u * n >= i
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if u < threshold(total, mid):
                hi = mid - 1
            else:
                lo = mid
        return population[lo]  # i == n (a product rounded up to n) raises, as CPython's
    lo, hi = 0, n - 1  # bisect_right(cum_weights, u * total, 0, n - 1)
    while lo < hi:
        mid = (lo + hi) // 2
        if u < threshold(total, cum_weights[mid]):  # u * total < cum_weights[mid]
            hi = mid
        else:
            lo = mid + 1
    return population[lo]
