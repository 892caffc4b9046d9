"""Privacy claims as the literature states them: ``eps = 1/2``, ``eps = ln 3``, ``2 ln 2``.

Randomized response with keep-probability ``3/4`` is ``ln(3)``-DP: its worst ratio is
exactly ``3 = e**eps``.  ``ln 3`` is irrational, so no rational epsilon states that claim:
rounding it down refutes a correct mechanism, rounding it up passes one that is not quite.
A :class:`RatioClaim` keeps such a claim exact by its ratio bound ``r = e**eps``
(``ln 3`` -> ``r = 3``, ``2 ln 2`` -> ``r = 4``, ``--ratio-bound 4``), and every comparison
with ``e**eps`` uses ``r`` itself.

:func:`parse_claim` reads both forms (a rational epsilon stays a ``Fraction``);
:func:`exp_bounds` and :func:`epsilon_bounds` are ``e**eps`` and ``eps`` as certified
intervals, exact (zero width) where the claim makes them rational.

>>> parse_claim("ln 3"), parse_claim("2 ln 2").ratio, parse_claim("1/2")
(RatioClaim(ratio=Fraction(3, 1), text='ln 3'), Fraction(4, 1), Fraction(1, 2))
>>> exp_bounds(parse_claim("ln(3/2)"), 64)
Interval(lo=Fraction(3, 2), hi=Fraction(3, 2))
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from exactdp.certified import Interval, exp_interval, ln_interval
from exactdp.params import ParameterError, to_fraction

__all__ = ["Claim", "RatioClaim", "epsilon_bounds", "exp_bounds", "parse_claim",
           "ratio_claim"]

#: Largest ratio bound accepted (its digits), and largest multiplier K of ``K ln R``.
MAX_RATIO_DIGITS = 100
MAX_MULTIPLIER = 1000

_LN_RE = re.compile(r"^\s*(?:([0-9]{1,4})\s*\*?\s*)?ln\s*(?:\(\s*([0-9/ ]+?)\s*\)|([0-9/ ]+?))"
                    r"\s*$", re.ASCII)


@dataclass(frozen=True)
class RatioClaim:
    """``eps = ln(ratio)`` exactly (``ratio >= 1`` rational): the claim
    ``Pr[M(x) = o] <= ratio * Pr[M(x') = o]``.  ``text`` is how it was stated."""

    ratio: Fraction
    text: str

    def __str__(self) -> str:
        return self.text


Claim = Fraction | RatioClaim


def ratio_claim(value: object, name: str = "ratio_bound") -> RatioClaim:
    """A ratio bound ``r >= 1`` (``e**eps <= r``), exact."""
    r = to_fraction(value, name)
    if r < 1:
        raise ParameterError(f"{name} = {r} must be >= 1 (it bounds e^eps)")
    if max(len(str(r.numerator)), len(str(r.denominator))) > MAX_RATIO_DIGITS:
        raise ParameterError(f"{name} has more than {MAX_RATIO_DIGITS} digits")
    return RatioClaim(r, f"ln({r})" if r.denominator != 1 else f"ln {r}")


def parse_claim(value: object, name: str = "epsilon") -> Claim:
    """An epsilon as a rational (``1/2``, ``Fraction``, int) or as ``ln R`` / ``ln(R)`` /
    ``K ln R`` / ``K*ln(R)`` with ``R >= 1`` rational and ``K`` a positive integer (then
    ``e**eps = R**K``), or a :class:`RatioClaim` as it is."""
    if isinstance(value, RatioClaim):
        return value
    if isinstance(value, str) and "ln" in value:
        m = _LN_RE.match(value)
        if m is None:
            raise ParameterError(f"{name} = {value!r} must be a rational (e.g. 1/2) or "
                                 f"'ln R' / 'K ln R' with R a rational >= 1 and K a positive "
                                 f"integer (e.g. 'ln 3', '2 ln 2')")
        k = int(m.group(1)) if m.group(1) else 1
        if not 1 <= k <= MAX_MULTIPLIER:
            raise ParameterError(f"{name} = {value!r}: K = {k} must lie in [1, "
                                 f"{MAX_MULTIPLIER}]")
        base = ratio_claim((m.group(2) or m.group(3)).replace(" ", ""),
                           f"R in {name} = {value!r}")
        text = base.text if k == 1 else f"{k} {base.text}"
        return RatioClaim(base.ratio ** k, text)
    return to_fraction(value, name)


def exp_bounds(eps: Claim, bits: int) -> Interval:
    """``e**eps`` in a certified interval (exactly ``[r, r]`` for a :class:`RatioClaim`)."""
    if isinstance(eps, RatioClaim):
        return Interval(eps.ratio, eps.ratio)
    return exp_interval(eps, bits)


def epsilon_bounds(eps: Claim, bits: int) -> Interval:
    """``eps`` in a certified interval (``ln r`` for a :class:`RatioClaim`, width about
    ``2**-bits``; exact for a rational epsilon)."""
    if isinstance(eps, RatioClaim):
        if eps.ratio == 1:
            return Interval(Fraction(0), Fraction(0))
        return ln_interval(eps.ratio, bits)
    return Interval(eps, eps)
