"""Exact privacy parameters and the library's error types.

The paper (Balcer & Vadhan, Sec. 2) takes ``epsilon, delta, beta, gamma`` in
``N^{-1} = {1/m : m a positive integer}``.  This module turns what a user passes
(``Fraction``, ``int``, ``gmpy2.mpq``, or a string such as ``"1/10"`` or ``"0.1"``)
into an exact :class:`fractions.Fraction` and refuses everything else with a typed
error that names the parameter, the value and the rule.

A ``float`` is always refused: ``0.1`` is really
``3602879701896397/36028797018963968``, and silently accepting it is how
floating-point DP code goes wrong.

>>> inverse_integer("1/10", "epsilon")
Fraction(1, 10)
>>> inverse_integer(Fraction(2, 7), "epsilon")
Traceback (most recent call last):
...
exactdp.params.NotInverseIntegerError: epsilon = 2/7 is not of the form 1/m for a positive integer m; the nearest valid smaller value is 1/4
"""

from __future__ import annotations

import re
from fractions import Fraction
from numbers import Rational

import gmpy2

__all__ = [
    "DomainError",
    "ExactDPError",
    "FloatParameterError",
    "NotInverseIntegerError",
    "ParameterError",
    "ParameterTypeError",
    "ResourceLimitError",
    "check_count",
    "epsilon_delta",
    "inverse_integer",
    "open_unit",
    "positive_fraction",
    "positive_int",
    "to_fraction",
]


class ExactDPError(Exception):
    """Base class of every error exactdp raises on purpose."""


class ParameterError(ExactDPError, ValueError):
    """A parameter has the right type but a value outside the rule it must satisfy."""


class ParameterTypeError(ExactDPError, TypeError):
    """A parameter has a type exactdp cannot convert exactly."""


class FloatParameterError(ParameterTypeError):
    """A float was passed where an exact rational is required."""


class NotInverseIntegerError(ParameterError):
    """A parameter that must lie in N^{-1} = {1/m} does not."""


class DomainError(ParameterError):
    """An input (a count, a random value, a dataset element) lies outside its domain."""


class ResourceLimitError(ExactDPError, ValueError):
    """The exact computation requested would need more memory or time than allowed."""


# ASCII digits only: ``\d`` would also match full-width and Arabic-Indic digits.
_FRACTION_RE = re.compile(r"^\s*[+-]?[0-9]+\s*(/\s*[0-9]+\s*)?$", re.ASCII)
_DECIMAL_RE = re.compile(r"^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE]([+-]?[0-9]+))?\s*$",
                         re.ASCII)

#: The longest numeric string accepted (digits in all), and the largest decimal exponent:
#: parsing ``1e-1000000000`` exactly would build a billion-digit power of ten.
MAX_DIGITS = 100_000
MAX_EXPONENT = 10_000
ACCEPTED_FORMS = ("an integer '12', a fraction 'p/q' such as '1/10', or a decimal such as "
                  "'0.1' or '1e-3' (ASCII digits; exactly the rational written)")


def _show(value: str) -> str:
    """``repr`` of a user's string, shortened: error messages stay one readable line."""
    return repr(value) if len(value) <= 60 else repr(value[:40]) + f"... ({len(value)} chars)"


def to_fraction(value: object, name: str) -> Fraction:
    """Convert ``value`` to an exact Fraction, refusing floats and other inexact types.

    Accepted: ``int`` (not ``bool``), ``Fraction``, any :class:`numbers.Rational`
    (e.g. ``gmpy2.mpq``, ``gmpy2.mpz``), and strings ``"p/q"``, ``"p"`` or a decimal
    literal such as ``"0.125"`` (decimal strings are exact rationals).
    """
    if isinstance(value, bool):
        raise ParameterTypeError(f"{name} = {value!r}: a bool is not a number; pass an int, "
                                 f"a Fraction or a string such as '1/10'")
    if isinstance(value, float):
        try:
            hint = Fraction(value).limit_denominator(10**6)
        except (ValueError, OverflowError):  # nan, inf: no rational value to suggest
            raise FloatParameterError(
                f"{name} = {value!r} is a float and not even a finite number; pass an "
                f"int, a Fraction or a string such as '1/10'") from None
        raise FloatParameterError(
            f"{name} = {value!r} is a float, which is not exact (it equals "
            f"{Fraction(value)}); pass Fraction({hint.numerator}, {hint.denominator}) "
            f"or the string '{hint}' instead")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, str):
        text = value.strip()
        digits = sum(ch.isdigit() for ch in text)
        if digits > MAX_DIGITS:
            raise ParameterError(f"{name} has {digits} digits; at most {MAX_DIGITS} are "
                                 f"accepted")
        if _FRACTION_RE.match(text):
            # gmpy2 parses integers of any length (CPython's int(str) stops at 4300 digits).
            num, _, den = text.replace(" ", "").partition("/")
            p, q = int(gmpy2.mpz(num)), int(gmpy2.mpz(den or "1"))
            if q == 0:
                raise ParameterError(f"{name} = {value!r} has a zero denominator")
            return Fraction(p, q)
        decimal = _DECIMAL_RE.match(text)
        if decimal:
            if decimal.group(3) is not None and abs(int(decimal.group(3))) > MAX_EXPONENT:
                raise ParameterError(f"{name} = {_show(value)}: the exponent is beyond "
                                     f"+-{MAX_EXPONENT}; write the number as 'p/q'")
            return Fraction(text)
        raise ParameterError(f"{name} = {_show(value)} is not a number; write {ACCEPTED_FORMS}")
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    type_name = type(value).__name__
    if "mpfr" in type_name or "mpc" in type_name or "Float" in type_name:
        raise FloatParameterError(f"{name} = {value!r} is a floating-point {type_name}, "
                                  f"which is not exact; pass a Fraction or a string 'p/q'")
    raise ParameterTypeError(f"{name} = {value!r} has type {type_name}; pass an int, a "
                             f"Fraction or a string such as '1/10'")


def inverse_integer(value: object, name: str, *, below_one: bool = False) -> Fraction:
    """Validate a parameter that must lie in ``N^{-1} = {1/m : m >= 1}``; return it exactly.

    Nothing is rounded: a value that is not ``1/m`` is refused, and the message suggests
    the largest valid value below it, ``1/ceil(1/value)``, which never weakens privacy.
    ``below_one`` also refuses ``1`` (``m >= 2``): ``delta = 1`` or ``beta = 1`` promise
    nothing.
    """
    q = to_fraction(value, name)
    if q <= 0:
        raise ParameterError(f"{name} = {q} must be positive (of the form 1/m with m >= 1)")
    if below_one and q >= 1:
        raise ParameterError(f"{name} = {q} must be below 1 (of the form 1/m with m >= 2): "
                             f"{name} = 1 promises nothing")
    if q.numerator != 1:
        m = -(-q.denominator // q.numerator)
        raise NotInverseIntegerError(
            f"{name} = {q} is not of the form 1/m for a positive integer m; "
            f"the nearest valid smaller value is 1/{m}")
    return q


def positive_int(value: object, name: str) -> int:
    """Validate a positive integer (``int`` or integral ``Rational``/string, never a float)."""
    q = to_fraction(value, name)
    if q.denominator != 1 or q < 1:
        raise ParameterError(f"{name} = {q} must be a positive integer")
    return int(q)


def positive_fraction(value: object, name: str) -> Fraction:
    """An exact rational ``> 0`` (an ``epsilon``, a step), else a :class:`ParameterError`
    naming ``name``.

    >>> positive_fraction("1/2", "epsilon")
    Fraction(1, 2)
    """
    q = to_fraction(value, name)
    if q <= 0:
        raise ParameterError(f"{name} = {q} must be positive")
    return q


def open_unit(value: object, name: str) -> Fraction:
    """An exact rational strictly between 0 and 1 (a ``delta``: 0 is pure DP, 1 promises
    nothing), else a :class:`ParameterError` naming ``name``."""
    q = to_fraction(value, name)
    if not 0 < q < 1:
        raise ParameterError(f"{name} = {q} must lie strictly between 0 and 1")
    return q


def epsilon_delta(epsilon: object, delta: object, eps_name: str = "epsilon",
                  delta_name: str = "delta") -> tuple[Fraction, Fraction]:
    """``(epsilon, delta)`` exact, with ``epsilon > 0`` and ``0 < delta < 1``
    (:func:`positive_fraction`, :func:`open_unit`); the names are those the caller's user
    knows (``"--epsilon"`` on the command line)."""
    return positive_fraction(epsilon, eps_name), open_unit(delta, delta_name)


def check_count(c: object, n: int, name: str = "c") -> int:
    """Validate a count ``c`` in ``[n] = {0, ..., n}``."""
    if isinstance(c, bool) or not isinstance(c, int):
        raise ParameterTypeError(f"{name} = {c!r} must be an int in [0, {n}]")
    if not 0 <= c <= n:
        raise DomainError(f"{name} = {c} is outside [n] = {{0, ..., {n}}} with n = {n}")
    return int(c)
