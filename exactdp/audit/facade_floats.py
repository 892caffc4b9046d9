"""The only floats of the randomness facades: ``j / 2**53``, ``Random.uniform`` and the
continuous draws of numpy (``laplace``, ``exponential``, ``normal``, ``geometric``...).

FLOATS LIVE HERE, AND ONLY HERE (in :mod:`exactdp.audit`): the code audited through
:mod:`exactdp.audit.facades` expects ``random()`` to return a float, so the facade hands it
the float ``j / 2**53`` -- exactly the value CPython's ``Random.random()`` (and numpy's
``Generator.random()``) returns when its 53 random bits are ``j``.  The conversion is exact
(``j < 2**53``).  No float reaches a probability, a weight or a verdict: those come from the
integer ``j`` and the breakpoints found by :mod:`exactdp.audit.facades`.  The continuous
draws below are the libraries' own algorithms applied to those doubles, so the law the
audit explores is the law of the code over its finitely many draws, with exact weights.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["FLOAT_BITS", "affine_unit", "as_unit_float", "exact_outcome", "filled", "geometric_search",
           "geometric_search_applies", "laplace", "legacy_exponential", "legacy_gauss_pair",
           "legacy_normal", "uniform_from", "uniform_range"]

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


# --------------------------------------------------------------------------- continuous draws
#
# Each function below is a deterministic function of 53-bit uniform doubles ``u()`` (the
# facade's ``random()``, ``j / 2**53``), written operation for operation as the library
# computes it, so that the audited code sees the very float it would see from the library
# when the underlying doubles are the same (tests/test_audit_facade_draws.py compares them
# bit for bit with the real numpy and CPython generators on many states).

DoubleSource = Any  # a callable returning the next 53-bit double


def _double(x: Any, name: str) -> Any:
    """A scalar parameter as the C double numpy converts it to."""
    try:
        return float(x)  # float: numpy's own conversion of a scalar parameter
    except (TypeError, ValueError):
        raise TypeError(f"{name} = {x!r} must be a real scalar") from None


def _non_negative(x: Any, name: str) -> Any:
    v = _double(x, name)
    if not v >= 0:  # also nan, as numpy refuses it
        raise ValueError(f"{name} < 0")
    return v


def laplace(u: DoubleSource, loc: Any = 0, scale: Any = 1) -> Any:
    """numpy's ``random_laplace`` (``Generator.laplace`` and ``RandomState.laplace``): one
    double ``U``; ``U >= 1/2``: ``loc - scale * log(2 - U - U)``; ``0 < U < 1/2``:
    ``loc + scale * log(U + U)``; ``U == 0`` is rejected and drawn again."""
    loc, scale = _double(loc, "loc"), _non_negative(scale, "scale")
    while True:
        v = u()
        if v >= 0.5:
            return loc - scale * math.log(2.0 - v - v)
        if v > 0.0:
            return loc + scale * math.log(v + v)


def legacy_exponential(u: DoubleSource, scale: Any = 1) -> Any:
    """numpy's ``legacy_exponential`` (``RandomState.exponential``, ``np.random.exponential``):
    ``scale * -log(1 - U)``."""
    scale = _non_negative(scale, "scale")
    return scale * -math.log(1.0 - u())


def legacy_gauss_pair(u: DoubleSource) -> tuple[Any, Any]:
    """numpy's ``legacy_gauss`` (polar Box--Muller): draws pairs ``x1 = 2 U1 - 1``, ``x2 = 2
    U2 - 1`` until ``0 < r2 = x1^2 + x2^2 < 1``; ``f = sqrt(-2 log(r2) / r2)``; returns
    ``(f * x2, f * x1)``: the value now and the one the generator keeps for its next call."""
    while True:
        x1 = 2.0 * u() - 1.0
        x2 = 2.0 * u() - 1.0
        r2 = x1 * x1 + x2 * x2
        if r2 < 1.0 and r2 != 0.0:
            break
    f = math.sqrt(-2.0 * math.log(r2) / r2)
    return f * x2, f * x1


def legacy_normal(gauss: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale * gauss`` (numpy's ``legacy_normal``) for a standard normal ``gauss``."""
    loc, scale = _double(loc, "loc"), _non_negative(scale, "scale")
    return loc + scale * gauss


#: numpy's switch from the search to the inversion algorithm of ``random_geometric``.
GEOMETRIC_SEARCH_FROM = 0.333333333333333333333333


def geometric_search_applies(p: Any) -> bool:
    """numpy draws ``geometric(p)`` by a search on one double when ``p >= 1/3`` (else by
    inversion of its ziggurat exponential, which the facade does not model)."""
    q = _double(p, "p")
    if not 0 < q <= 1:
        raise ValueError("p <= 0, p > 1 or p contains NaNs")
    return q >= GEOMETRIC_SEARCH_FROM


def geometric_search(u: DoubleSource, p: Any) -> int:
    """numpy's ``random_geometric_search``: ``X = 1, sum = prod = p``; while ``U > sum``:
    ``prod *= 1 - p; sum += prod; X += 1``."""
    p = _double(p, "p")
    q = 1.0 - p
    x, total, prod = 1, p, p
    v = u()
    while v > total:
        prod *= q
        total += prod
        x += 1
    return x


def uniform_range(u: DoubleSource, low: Any = 0, high: Any = 1) -> Any:
    """numpy's ``random_uniform``: ``low + (high - low) * U`` in doubles."""
    lo, hi = _double(low, "low"), _double(high, "high")
    return lo + (hi - lo) * u()


def affine_unit(a: Any, b: Any) -> Any:
    """``j -> a + (b - a) * (j / 2**53)`` in doubles (``Random.uniform``'s and numpy's
    ``random_uniform``'s operations, in their order) when it is non-decreasing in ``j`` for
    sure -- ``a``, ``b`` finite floats or ints of at most 53 bits, ``b - a`` finite and
    positive: a product with a positive double and a sum with a double, each correctly
    rounded, never decrease -- else None.  Its values are compared exactly by
    :class:`~exactdp.audit.facade_monotone.LazyIncreasing`."""
    def usable(x: Any) -> bool:
        if type(x) is int:
            return -(1 << 53) <= x <= 1 << 53
        return type(x) is float and math.isfinite(x)

    if not (usable(a) and usable(b)):
        return None
    width = b - a
    if not (math.isfinite(width) and width > 0):
        return None
    return lambda j: a + width * as_unit_float(j)  # float: the library's formula


def filled(draw: Any, size: Any) -> Any:
    """``size`` draws in C order, as numpy fills an output array (``size`` an int or a
    tuple of ints): a float64 array, int64 for integer draws."""
    import numpy as np

    shape = (size,) if isinstance(size, int) else tuple(size)
    values = [draw() for _ in range(math.prod(shape))]
    kind = np.int64 if values and isinstance(values[0], int) else np.float64
    return np.array(values, dtype=kind).reshape(shape)


def exact_outcome(value: Any) -> Any:
    """A float outcome as its exact rational value (a float is a dyadic rational:
    ``Fraction(x)`` is exact), so that two outputs are the same outcome exactly when they
    are equal as numbers; nan and infinities have no such value (None)."""
    from fractions import Fraction

    x = float(value)  # float: a numpy float's value (float32 widens exactly)
    if not math.isfinite(x):
        return None
    return Fraction(x)
