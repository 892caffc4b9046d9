"""What a release spends, exactly, and the paper's parameters chosen from a budget.

On the command line ``--epsilon E`` is the *total* privacy budget of a command's output as a
whole (K noisy counts, a histogram, a sketch, a set of projections, a convolution).  Each
release command picks the paper's parameters whose proven privacy loss is at most ``E`` and
states that loss, its *spend*, exactly.  The library keeps the papers' parameters under the
papers' names (``GeoSample(n, epsilon)`` takes the paper's ``eps = 1/m``); the budget-first
constructors (``GeoSample.for_budget``, ``FastSample.for_budget``, ...) are built on the
choosers below.

A spend is either a rational (where the guarantee is a rational ``eps``: FastSample's
``eps/2`` per value, a histogram's ``eps``, an ALP sketch's ``eps_cert``) or
``coefficient * ln(ratio)`` with rational ``coefficient`` and ``ratio`` (K GeoSample draws:
``K ln(1 + 2^-k)``; randomized response with base ``rho``: ``L ln(rho)``).  Whether a spend is
at most a budget is decided exactly: ``ln(ratio)`` is irrational for a rational ``ratio !=
1``, so refining certified intervals (:func:`exactdp.certified.ln_interval`) always separates
the two; no float is involved.

Every release command's JSON carries the same object under ``"spent"`` (:meth:`Spend.to_json`):

``epsilon``
    the exact spend as an expression: ``"1/2"``, ``"ln(3/2)"``, ``"3*ln(9/8)"``;
``epsilon_rational``
    the same number as a fraction when it is rational, else ``null``;
``epsilon_lower`` / ``epsilon_upper``
    a certified decimal interval around it (ends rounded outwards, 6 places);
``delta``
    the exact ``delta`` spent (``"0"`` for pure DP);
``requested_epsilon``
    the budget ``--epsilon`` as given (exact); the spend is never above it;
``composition``
    how the parts add up, in words;
``meaning``
    how the spend relates to the paper's ``eps``, in words.

>>> s = geosample_spend(3, 3)
>>> s.expression(), s.at_most(Fraction(1, 2)), s.to_json()["epsilon_upper"]
('3*ln(9/8)', True, '0.353350')
>>> geosample_k_for_budget(Fraction(1, 2), 3, largest_k=100)
3
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import gmpy2

from exactdp.certified import (
    Interval,
    ceil_log2,
    compare_exp,
    ln_interval,
    precision_schedule,
)
from exactdp.params import ParameterError, ResourceLimitError, to_fraction

__all__ = [
    "EpsilonRangeError",
    "Spend",
    "budget",
    "compact",
    "fastsample_m_for_budget",
    "fastsample_spend",
    "geosample_k_for_budget",
    "geosample_spend",
    "histogram_epsilon_for_budget",
    "histogram_m_for_budget",
    "histogram_spend",
    "ln_fits",
    "readable_bound",
]

#: Decimal places of ``epsilon_lower`` / ``epsilon_upper``.
PLACES = 6


class EpsilonRangeError(ParameterError):
    """A budget ``--epsilon`` outside the range a command can spend (the message names the
    range, and the smallest or largest spend when that is the reason)."""


def budget(value: object, name: str = "--epsilon") -> Fraction:
    """A privacy budget: any exact positive rational (``'1/2'``, ``'0.3'``, ``Fraction``)."""
    q = to_fraction(value, name)
    if q <= 0:
        raise EpsilonRangeError(f"{name} = {_text(q)} must be positive")
    return q


def _ln_times(coefficient: Fraction, ratio: Fraction, bits: int) -> Interval:
    """A certified interval around ``coefficient * ln(ratio)`` (``coefficient >= 0``,
    ``ratio >= 1``) of width about ``coefficient * 2**-bits``."""
    if ratio == 1 or coefficient == 0:
        return Interval(Fraction(0), Fraction(0))
    box = ln_interval(ratio, bits)
    return Interval(coefficient * box.lo, coefficient * box.hi)


def ln_fits(coefficient: object, ratio: object, limit: object) -> bool:
    """``coefficient * ln(ratio) <= limit``, decided exactly (``coefficient >= 0``,
    ``ratio >= 1``, ``limit`` rational).

    For ``ratio != 1`` and ``coefficient > 0`` the left side is irrational, so the two are
    never equal and the refinement ends; ``MAX_PRECISION_BITS`` bounds it regardless."""
    c, r, e = (to_fraction(coefficient, "coefficient"), to_fraction(ratio, "ratio"),
               to_fraction(limit, "limit"))
    if c < 0 or r < 1:
        raise ParameterError(f"ln_fits needs coefficient >= 0 and ratio >= 1, got {c}, {r}")
    if c == 0 or r == 1:
        return e >= 0
    if e <= 0:
        return False  # c ln r > 0
    x = e / c
    if _size(x) < _size(r):
        # c ln r <= e  <=>  r <= e^(e/c), never equal (e^x is irrational for rational
        # x != 0).  The cost of either series grows with the size of the rational it is
        # taken of: a base near e^1000 has ~1450-bit terms, its budget 1000 has 10 bits.
        return compare_exp(x, r) > 0
    return _ln_fits_by_ln(c, r, e)


def _size(q: Fraction) -> int:
    return q.numerator.bit_length() + q.denominator.bit_length()


def _ln_fits_by_ln(c: Fraction, r: Fraction, e: Fraction) -> bool:
    """:func:`ln_fits` by refining ``c ln r`` (for ``c > 0``, ``r > 1``)."""
    for bits in precision_schedule(64 + 2 * r.denominator.bit_length()):
        box = _ln_times(c, r, bits)
        if box.hi <= e:
            return True
        if box.lo > e:
            return False
    raise ResourceLimitError(f"could not compare {c}*ln({r}) with {e}")


def _text(q: Fraction) -> str:
    """``q`` as ``p/q`` when short, else its ends and length (messages stay one line)."""
    text = str(q)
    return text if len(text) <= 60 else f"{text[:24]}...{text[-12:]} ({len(text)} characters)"


def _ratio_text(r: Fraction) -> str:
    """A ratio as written in an expression: ``1+2^-k`` for GeoSample's ``1 + 2^-k`` when
    ``2^k`` has more than 20 digits, else ``p/q``."""
    den = r.denominator
    if r.numerator == den + 1 and den & (den - 1) == 0 and den.bit_length() > 64:
        return f"1+2^-{den.bit_length() - 1}"
    return str(r)


def _decimal(q: Fraction, up: bool) -> str:
    """``q >= 0`` to :data:`PLACES` decimals, rounded down (``up``: up): a true bound."""
    v = q * 10**PLACES
    whole = -((-v.numerator) // v.denominator) if up else v.numerator // v.denominator
    digits = str(whole).rjust(PLACES + 1, "0")
    return f"{digits[:-PLACES]}.{digits[-PLACES:]}"


def _scientific(q: Fraction, digits: int, up: bool) -> str:
    """``q > 0`` as ``m.mmmmme-X`` (``digits`` significant digits), rounded down (``up``:
    up): a true bound."""
    e = q.numerator.bit_length() * 3 // 10 - q.denominator.bit_length() * 3 // 10
    while Fraction(10) ** e > q:
        e -= 1
    while Fraction(10) ** (e + 1) <= q:
        e += 1
    v = q / Fraction(10) ** (e - digits + 1)  # in [10^(digits-1), 10^digits)
    m = -((-v.numerator) // v.denominator) if up else v.numerator // v.denominator
    if m == 10**digits:  # rounding up carried into the next power of ten
        m, e = 10 ** (digits - 1), e + 1
    text = str(m)
    return f"{text[0]}.{text[1:]}e{e:+d}" if digits > 1 else f"{text}e{e:+d}"


def readable_bound(q: Fraction, up: bool = True, digits: int = 6) -> str:
    """``q >= 0`` for text output: exactly (``p/q``) when that is at most 24 characters, else
    ``<= m.mmmmme-X`` (``up``: rounded up, never toward less privacy for a ``delta``) or
    ``>= ...`` (rounded down).  JSON carries the exact value.

    >>> readable_bound(Fraction(1, 1000)), readable_bound(Fraction(10**30 + 1, 3 * 10**33))
    ('1/1000', '<= 3.33334e-4')
    """
    if q.numerator.bit_length() + q.denominator.bit_length() <= 80 and len(str(q)) <= 24:
        return str(q)
    return f"{'<=' if up else '>='} {_scientific(q, digits, up)}"


def compact(q: Fraction) -> str:
    """An accepted value echoed in text output, exactly true: ``p/q`` when at most 40
    characters; ``1e+10000`` or ``3e-500`` when that is exact; else its
    leading digits truncated, ``1.2345678...e+10000`` (JSON carries the exact value).

    >>> compact(Fraction(10**10000)), compact(Fraction(3, 10**500)), compact(Fraction(1, 7))
    ('1e+10000', '3e-500', '1/7')
    """
    if q.numerator.bit_length() + q.denominator.bit_length() <= 128:
        text = str(q)
        if len(text) <= 40:
            return text
    sign, a = ("-", -q) if q < 0 else ("", q)
    num, den = a.numerator, a.denominator
    if den == 1:
        mant, k = gmpy2.remove(num, 10)
        if mant < 10**20:
            return f"{sign}{mant}e+{k}"
    else:
        rest, k = gmpy2.remove(den, 10)
        if rest == 1 and num < 10**20:
            return f"{sign}{num}e-{k}"
    mant_text, exp = _scientific(a, 9, up=False).split("e")
    return f"{sign}{mant_text}...e{exp}"


@dataclass(frozen=True)
class Spend:
    """The privacy a release spends: ``epsilon = coefficient * ln(ratio)`` (``ratio`` given)
    or ``epsilon = coefficient`` (``ratio`` None), and ``delta``; ``requested`` is the budget
    it was chosen for (``None`` when it was not chosen from one)."""

    coefficient: Fraction
    ratio: Fraction | None = None
    delta: Fraction = Fraction(0)
    requested: Fraction | None = None
    composition: str = ""
    meaning: str = ""

    @property
    def rational(self) -> Fraction | None:
        """The spend as a Fraction when it is rational (``ln r`` is irrational for a
        rational ``r != 1``), else None."""
        if self.ratio is None:
            return Fraction(self.coefficient)
        if self.ratio == 1 or self.coefficient == 0:
            return Fraction(0)
        return None

    def expression(self) -> str:
        """The exact spend: ``"1/2"``, ``"ln(3/2)"``, ``"3*ln(9/8)"``."""
        exact = self.rational
        if exact is not None:
            return str(exact)
        assert self.ratio is not None
        head = "" if self.coefficient == 1 else f"{self.coefficient}*"
        return f"{head}ln({_ratio_text(self.ratio)})"

    def interval(self, bits: int = 64) -> Interval:
        """A certified rational interval around the spend."""
        exact = self.rational
        if exact is not None:
            return Interval(exact, exact)
        assert self.ratio is not None
        return _ln_times(Fraction(self.coefficient), self.ratio, bits)

    def at_most(self, limit: object) -> bool:
        """``spend <= limit``, decided exactly."""
        if self.ratio is None:
            return Fraction(self.coefficient) <= to_fraction(limit, "limit")
        return ln_fits(self.coefficient, self.ratio, limit)

    def to_json(self) -> dict[str, Any]:
        """The ``"spent"`` object every release command's JSON carries (module doc)."""
        box = self.interval(PLACES * 4 + 16)
        exact = self.rational
        return {
            "epsilon": self.expression(),
            "epsilon_rational": None if exact is None else str(exact),
            "epsilon_lower": _decimal(box.lo, up=False),
            "epsilon_upper": _decimal(box.hi, up=True),
            "delta": str(self.delta),
            "requested_epsilon": None if self.requested is None else str(self.requested),
            "composition": self.composition,
            "meaning": self.meaning,
        }

    def describe(self) -> str:
        """One line for text output."""
        j = self.to_json()
        value = (j["epsilon"] if self.rational is not None
                 else f"{j['epsilon']} in [{j['epsilon_lower']}, {j['epsilon_upper']}]")
        asked = ("" if self.requested is None
                 else f" (budget --epsilon {_text(self.requested)})")
        delta = ("" if self.delta == 0 else
                 f", delta {'' if readable_bound(self.delta)[0] == '<' else '= '}"
                 f"{readable_bound(self.delta)}")
        return f"spent: epsilon = {value}{delta}{asked}; {self.composition}; {self.meaning}"


# --------------------------------------------------------------------------- counting

def _above_top(total: Fraction, top: Fraction, draws: int, what: str) -> None:
    if total > top:
        raise EpsilonRangeError(
            f"--epsilon = {_text(total)} is above the largest budget {what} can use for {draws} "
            f"value{'s' if draws != 1 else ''}: the range is (0, {top}] (the paper's eps is "
            f"at most 1, and one released count spends at most eps/2)")


def geosample_k_for_budget(total: object, draws: int, largest_k: int) -> int:
    """The smallest ``k >= 1`` (the most accurate GeoSample) with ``draws * ln(1 + 2^-k) <=
    total``: ``draws`` values of ``GeoSample_{n,eps}`` with ``k = ceil(log2(2/eps))`` spend
    ``draws * eps~/2 = draws * ln(1 + 2^-k)`` (Theorem 4.7 i, basic composition).

    Range: ``total`` in ``(0, draws/2]`` (the paper's ``eps <= 1``, so ``k >= 1``); below
    ``draws * ln(1 + 2^-largest_k)`` (``largest_k``: the size limit of ``d``) nothing fits.
    """
    e = budget(total)
    _above_top(e, Fraction(draws, 2), draws, "GeoSample")
    x = e / draws
    # k0: the smallest k >= 1 with 2^-k <= x, i.e. 2^k >= ceil(1/x); then ln(1 + 2^-k) <
    # 2^-k <= x fits.  k0 - 2 never fits: 2^-(k0-2) > 2x and ln(1 + y) >= y/2 for y <= 1.
    k0 = max(1, ceil_log2(-(-x.denominator // x.numerator)))
    if largest_k < 1:
        raise ResourceLimitError("no GeoSample fits here: d = (2^(k+1)+1)(2^k+1)^(n-1) passes "
                                 "the integer size limit even at k = 1 (use a smaller n)")
    k = k0
    if k0 > 1 and k0 - 1 <= largest_k and ln_fits(draws, 1 + Fraction(1, 1 << (k0 - 1)), e):
        k = k0 - 1
    if k > largest_k:
        smallest = geosample_spend(largest_k, draws)
        raise EpsilonRangeError(
            f"--epsilon = {_text(e)} is below the smallest budget GeoSample can spend here, "
            f"{smallest.expression()} (<= {smallest.to_json()['epsilon_upper']}; k at most "
            f"{largest_k}, as d = (2^(k+1)+1)(2^k+1)^(n-1) must stay within the integer size "
            f"limit): the range is [{smallest.expression()}, {Fraction(draws, 2)}]")
    return k


def geosample_spend(k: int, draws: int, requested: Fraction | None = None) -> Spend:
    """``draws`` values of GeoSample with this ``k``: ``draws * ln(1 + 2^-k)`` exactly."""
    m = 1 << (k - 1)
    plural = "s" if draws != 1 else ""
    return Spend(
        Fraction(draws), 1 + Fraction(1, 1 << k), requested=requested,
        composition=(f"{draws} value{plural}, each ln(1 + 2^-{k}) (basic composition)"
                     if draws > 1 else "one value"),
        meaning=(f"GeoSample with the paper's eps = {Fraction(1, m)} (k = ceil(log2(2/eps)) = {k}): one "
                 f"value is (eps~/2, 0)-DP with eps~/2 = ln(1 + 2^-{k}) < eps/2 = 2^-{k} "
                 f"(Theorem 4.7 i)"))


def fastsample_m_for_budget(total: object, draws: int, largest_m: int) -> int:
    """The smallest ``m`` (the most accurate FastSample) with ``draws * eps/2 <= total`` for
    the paper's ``eps = 1/m`` (Theorem 4.10 i: one value is ``(eps/2, 0)``-DP): ``m =
    ceil(draws / (2 total))``.  Range ``(0, draws/2]``; below ``draws/(2 largest_m)`` nothing
    fits (``largest_m``: the size limit of ``d'``)."""
    e = budget(total)
    _above_top(e, Fraction(draws, 2), draws, "FastSample")
    q = Fraction(draws) / (2 * e)
    m = -((-q.numerator) // q.denominator)
    if m > largest_m:
        smallest = Fraction(draws, 2 * largest_m)
        raise EpsilonRangeError(
            f"--epsilon = {_text(e)} is below the smallest budget FastSample can spend here, "
            f"{smallest} (eps = 1/m with m at most {largest_m}, as d' must stay within the "
            f"integer size limit): the range is [{smallest}, {Fraction(draws, 2)}]")
    return m


def fastsample_spend(m: int, draws: int, requested: Fraction | None = None) -> Spend:
    """``draws`` values of FastSample with the paper's ``eps = 1/m``: ``draws/(2m)``."""
    plural = "s" if draws != 1 else ""
    return Spend(
        Fraction(draws, 2 * m), requested=requested,
        composition=(f"{draws} value{plural}, each eps/2 = 1/{2 * m} (basic composition)"
                     if draws > 1 else "one value"),
        meaning=(f"FastSample with the paper's eps = {Fraction(1, m)}: one value is (eps/2, 0)-DP "
                 f"(Theorem 4.10 i)"))


# --------------------------------------------------------------------------- histograms

def histogram_m_for_budget(total: object, largest_m: int | None) -> int:
    """The paper's ``eps = 1/m`` of a histogram whose whole release may spend ``total``: the
    largest ``1/m <= total`` (the histogram theorems give ``(eps, 0)``-DP, or ``(eps,
    delta)``, for the whole release).  Range ``(0, 1]``; below ``1/largest_m``
    (``largest_m``: the size limit of the counting mechanism's integers; None: no limit
    checked here) nothing fits."""
    e = budget(total)
    if e > 1:
        raise EpsilonRangeError(
            f"--epsilon = {_text(e)} is above 1, the largest budget a histogram can use: the range "
            f"is (0, 1] (the paper's eps is 1/m for a whole m)")
    m = -((-e.denominator) // e.numerator)
    if largest_m is not None and m > largest_m:
        smallest = Fraction(1, max(largest_m, 1))
        raise EpsilonRangeError(
            f"--epsilon = {_text(e)} is below the smallest budget this histogram can spend here, "
            f"{smallest} (eps = 1/m with m at most {largest_m}, as the counting mechanism's "
            f"integers must stay within the size limit): the range is [{smallest}, 1]"
            if largest_m >= 1 else
            f"--epsilon = {_text(e)}: no eps = 1/m keeps the counting mechanism's integers within "
            f"the size limit here (use fewer rows)")
    return m


def histogram_epsilon_for_budget(total: object) -> Fraction:
    """The paper's ``eps`` for a histogram whose whole release may spend ``total`` (in ``(0,
    1]``): ``1/ceil(1/total)``, the largest ``1/m <= total``.  The integer size limit is the
    mechanisms' own (they refuse past it when built)."""
    return Fraction(1, histogram_m_for_budget(total, None))


def histogram_spend(epsilon: Fraction, delta: Fraction | None, requested: Fraction | None,
                    theorem: str) -> Spend:
    """A histogram released with the paper's ``eps`` (and ``delta``): the theorem's
    guarantee for the whole release, exactly."""
    return Spend(
        Fraction(epsilon), delta=Fraction(0) if delta is None else Fraction(delta),
        requested=requested,
        composition=("the whole histogram: a changed row moves two counts, each spending "
                     "eps/2" + ("" if not delta else " and delta/2")),
        meaning=(f"the paper's eps = {epsilon}" + (", the largest 1/m within --epsilon"
                                                if requested is not None else "")
                 + f"; {theorem}"))
