"""Exact vectors for the convolution mechanisms (Fawaz, Muthukrishnan & Nikolov): the entries
are ``int`` or :class:`fractions.Fraction`, and a float, a bool or a string is refused with a
typed error naming it.  Shared by :mod:`exactdp.convolution.groups` and
:mod:`exactdp.convolution.transforms`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from numbers import Rational

from exactdp.params import FloatParameterError, ParameterError, ParameterTypeError

__all__ = ["MAX_DIRECT_N", "Exact", "exact_vector"]

#: An exact number: an int or a Fraction.
Exact = int | Fraction

#: The largest length for which the O(N^2) direct sums and N x N matrices are built.
MAX_DIRECT_N = 1 << 12


def _exact(value: object, name: str) -> Exact:
    if isinstance(value, bool):
        raise ParameterTypeError(f"{name} = {value!r}: a bool is not a number; pass an int "
                                 f"or a Fraction")
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Fraction):
        return value if value.denominator != 1 else int(value.numerator)
    if isinstance(value, float):
        raise FloatParameterError(f"{name} = {value!r} is a float, which is not exact; pass an "
                                  f"int or a Fraction (e.g. Fraction('{value}'))")
    if isinstance(value, Rational):  # gmpy2.mpz / mpq
        q = Fraction(int(value.numerator), int(value.denominator))
        return q if q.denominator != 1 else int(q.numerator)
    raise ParameterTypeError(f"{name} = {value!r:.60} has type {type(value).__name__}; pass "
                             f"an int or a Fraction")


def exact_vector(values: object, name: str, length: int | None = None) -> list[Exact]:
    """``values`` as a list of exact numbers (ints stay ints; integral Fractions become ints).

    Refuses a float entry (:class:`~exactdp.params.FloatParameterError`, naming the index),
    a bool, a string or a non-sequence, and a wrong length when ``length`` is given.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ParameterTypeError(f"{name} must be a sequence of ints/Fractions, got "
                                 f"{type(values).__name__}")
    if length is not None and len(values) != length:
        raise ParameterError(f"{name} has length {len(values)}; it must have length {length}")
    if all(type(v) is int for v in values):  # the common case, without per-entry calls
        return list(values)
    return [_exact(v, f"{name}[{i}]") for i, v in enumerate(values)]
