"""How bad a white-box violation is, in figures that read right.

A violated claim can be anything from an excess of ``1e-13`` in epsilon (a float rounding
in a threshold) to an infinite privacy loss (an outcome possible on one input and
impossible on its neighbour: no epsilon holds at all).  Both are violations; the report must
show the difference at a glance.  :func:`severity` derives, from the exact laws the
white-box audit computed:

* the **effective epsilon** ``ln(worst ratio)`` as a certified rational interval
  (:func:`exactdp.certified.ln_interval`), or infinity;
* the **excess** ``effective epsilon - claimed epsilon`` (an interval; negative when the
  claim holds);
* the **hockey-stick delta at the claimed epsilon**, ``max over ordered neighbours of
  sum_o max(0, P(o) - e^eps Q(o))``, the certified enclosure the audit computed;
* a **level**: ``"none"`` (the claim holds), ``"marginal"`` (finite loss, the measured
  quantity exceeds the claim by less than :data:`MARGINAL_FRACTION` of the claim),
  ``"substantial"`` (finite, more than that), ``"infinite"`` (infinite privacy loss and
  the claim fails), ``"timing"`` (the outputs are private but the operation traces depend
  on the input).

Decimals are for reading and always enclosures (rounded outwards); when two quantities are
compared in text, :func:`separated_decimals` refines both until their printed intervals are
disjoint, so the text never says ``2.71828182... > 2.71828182...``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.certified import Interval, ln_interval, precision_schedule
from exactdp.checker import RatioWitness
from exactdp.claims import Claim, RatioClaim, epsilon_bounds, exp_bounds
from exactdp.params import ResourceLimitError

__all__ = ["MARGINAL_FRACTION", "Severity", "decimal_against", "decimal_interval", "in_decimal",
           "separated_decimals", "severity"]

#: A finite violation whose excess is below this fraction of the claim is "marginal".
MARGINAL_FRACTION = Fraction(1, 100)

#: Largest number of decimal places :func:`separated_decimals` tries.
MAX_DIGITS = 4096


def _fixed(iv: Interval, places: int) -> tuple[int, int]:
    """``iv`` rounded outwards to ``places`` decimal places, as integers scaled by 10^places."""
    scale = 10**places
    lo = iv.lo.numerator * scale // iv.lo.denominator
    hi = -(-iv.hi.numerator * scale // iv.hi.denominator)
    return lo, hi


def _fixed_text(v: int, places: int) -> str:
    sign, v = ("-", -v) if v < 0 else ("", v)
    text = str(v).rjust(places + 1, "0")
    return f"{sign}{text[:-places]}.{text[-places:]}" if places else f"{sign}{text}"


def _render(lo: int, hi: int, places: int) -> str:
    if lo == hi:
        return _fixed_text(lo, places)
    return f"[{_fixed_text(lo, places)}, {_fixed_text(hi, places)}]"


def separated_decimals(a: Callable[[int], Interval], b: Callable[[int], Interval],
                       places: int = 8) -> tuple[str, str]:
    """Decimal enclosures of two different reals, disjoint as printed.

    ``a(bits)`` and ``b(bits)`` return certified intervals of width about ``2**-bits``;
    decimal places (and bits) double until the outward-rounded renderings do not overlap.
    An exact rational that needs no more places is printed without brackets.  Raises
    :class:`~exactdp.params.ResourceLimitError` past :data:`MAX_DIGITS` places (the two
    reals are then equal or astronomically close).

    >>> separated_decimals(lambda b: Interval(Fraction(1), Fraction(1)),
    ...                    lambda b: exp_bounds(Fraction(1, 10**12), b))
    ('1.0000000000000', '[1.0000000000009, 1.0000000000011]')
    """
    while places <= MAX_DIGITS:
        bits = 4 * places + 16  # 2**-bits < 10**-places / 2**16
        ia, ib = a(bits), b(bits)
        a_lo, a_hi = _fixed(ia, places)
        b_lo, b_hi = _fixed(ib, places)
        if a_hi < b_lo or b_hi < a_lo:
            return _render(a_lo, a_hi, places), _render(b_lo, b_hi, places)
        places = places * 3 // 2 + 1
    raise ResourceLimitError(f"could not separate two quantities with {MAX_DIGITS} decimal "
                             f"places (they are equal or closer than 10^-{MAX_DIGITS})")


def _sci(q: Fraction, digits: int, up: bool) -> str:
    """``q`` to ``digits`` significant digits in scientific form, rounded down or up."""
    if q == 0:
        return "0"
    sign, q = ("-", -q) if q < 0 else ("", q)
    up = up != (sign == "-")  # rounding away from the interval's inside flips for negatives
    exp10 = len(str(q.numerator)) - len(str(q.denominator))
    while q >= Fraction(10) ** (exp10 + 1):
        exp10 += 1
    while q < Fraction(10) ** exp10:
        exp10 -= 1
    scaled = q / Fraction(10) ** (exp10 - digits + 1)
    m = -(-scaled.numerator // scaled.denominator) if up else scaled.numerator // scaled.denominator
    if m >= 10**digits:  # 9.99.. rounded up to 10.0..
        m //= 10
        exp10 += 1
    text = str(m)
    return f"{sign}{text[0]}.{text[1:]}e{exp10}" if digits > 1 else f"{sign}{text}e{exp10}"


def decimal_interval(iv: Interval, digits: int = 4) -> str:
    """``iv`` in scientific notation, rounded outwards (still an enclosure).

    >>> decimal_interval(Interval(Fraction(1, 3), Fraction(1, 2)), 3)
    '[3.33e-1, 5.00e-1]'
    >>> decimal_interval(Interval(Fraction(0), Fraction(0)))
    '0'
    """
    lo, hi = _sci(iv.lo, digits, up=False), _sci(iv.hi, digits, up=True)
    return lo if lo == hi and iv.lo == iv.hi else f"[{lo}, {hi}]"


def decimal_against(iv: Interval, target: Fraction) -> str:
    """``iv`` as :func:`in_decimal`, with enough digits that the printed enclosure lies on
    the same side of ``target`` as ``iv`` itself (``<= target`` or ``> target``); exact
    fractions when no decimal does (``iv`` straddles or touches ``target``).

    >>> decimal_against(Interval(Fraction(1001, 100000), Fraction(1002, 100000)),
    ...                 Fraction(1, 100))
    'in [1.001e-2, 1.002e-2]'
    """
    for digits in (4, 8, 16, 32, 64):
        text = in_decimal(iv, digits)
        ends = [Fraction(t) for t in text.split(" ", 1)[1].strip("[]").split(", ")]
        if (iv.hi <= target and ends[-1] <= target) or (iv.lo > target and ends[0] > target):
            return text
    return f"= {iv.lo}" if iv.lo == iv.hi else f"in [{iv.lo}, {iv.hi}]"


def in_decimal(iv: Interval, digits: int = 4) -> str:
    """``"= x"`` for a point, ``"in [lo, hi]"`` otherwise (scientific, rounded outwards)."""
    text = decimal_interval(iv, digits)
    return f"in {text}" if text.startswith("[") else f"= {text}"


def _interval_json(iv: Interval | None, decimal: str = "") -> Any:
    if iv is None:
        return "infinity"
    return {"lo": str(iv.lo), "hi": str(iv.hi), "decimal": decimal or decimal_interval(iv, 6)}


@dataclass(frozen=True)
class Severity:
    """The figures of :func:`severity`.  ``effective_epsilon`` and ``excess`` are None
    when the loss is infinite; ``comparison`` is the text ``"worst ratio ... > e^(eps) in
    ..."`` and ``effective_decimal`` the effective epsilon, both printed to enough places to
    differ from the claim."""

    level: str
    headline: str
    infinite: bool
    effective_epsilon: Interval | None
    excess: Interval | None
    hockey_stick: Interval | None
    comparison: str
    effective_decimal: str = ""
    delta: Fraction = Fraction(0)

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "headline": self.headline,
                "infinite_loss": self.infinite,
                "effective_epsilon": _interval_json(self.effective_epsilon,
                                                    self.effective_decimal),
                "epsilon_excess": _interval_json(self.excess),
                "hockey_stick_delta_at_claimed_epsilon":
                    None if self.hockey_stick is None else _interval_json(self.hockey_stick),
                "comparison": self.comparison,
                "marginal_fraction": str(MARGINAL_FRACTION)}

    def lines(self) -> list[str]:
        """The text block of the report (severity first: readable at a glance)."""
        out = [f"  SEVERITY: {self.level.upper()} -- {self.headline}"]
        if self.infinite:
            out.append("  effective epsilon: infinite (ln of an infinite ratio)")
        elif self.effective_epsilon is not None and self.excess is not None:
            out.append(f"  effective epsilon = ln(worst ratio): {self.effective_decimal} "
                       f"(certified)")
            word = "excess over" if self.excess.lo > 0 else "margin below"
            margin = self.excess if self.excess.lo > 0 else Interval(-self.excess.hi,
                                                                      -self.excess.lo)
            covered = " (allowed: the claim has delta > 0)" if self.excess.lo > 0 \
                and self.level == "none" and self.delta > 0 else ""
            out.append(f"  {word} the claimed epsilon: {in_decimal(margin)}{covered}")
        if self.comparison:
            out.append(f"  {self.comparison}")
        return out


def _effective(ratio: Fraction, eps: Claim) -> tuple[Interval, Interval]:
    """``ln(ratio)`` and ``ln(ratio) - eps``, refined until the excess is known to 1%
    (exactly 0 when the ratio equals a ratio-bound claim's ``e**eps``)."""
    if ratio == 1 or (isinstance(eps, RatioClaim) and ratio == eps.ratio):
        eff = Interval(Fraction(0), Fraction(0)) if ratio == 1 else ln_interval(ratio, 64)
        e0 = epsilon_bounds(eps, 64)
        return eff, (Interval(-e0.hi, -e0.lo) if ratio == 1 else Interval(Fraction(0),
                                                                           Fraction(0)))
    for bits in precision_schedule(64):
        eff = ln_interval(ratio, bits)
        e = epsilon_bounds(eps, bits)
        exc = Interval(eff.lo - e.hi, eff.hi - e.lo)
        if (exc.lo > 0 or exc.hi < 0) and (exc.hi - exc.lo) * 100 <= min(abs(exc.lo),
                                                                          abs(exc.hi)):
            return eff, exc
    return eff, exc  # pragma: no cover - a ratio equal to e^eps (eps = 0 handled above)


def _compare(ratio: Fraction, eps: Claim, exc: Interval) -> tuple[str, str]:
    """``worst ratio vs e^eps`` and ``effective epsilon vs eps``, separated as printed."""
    r_text, e_text = separated_decimals(lambda b: Interval(ratio, ratio),
                                        lambda b: exp_bounds(eps, b))
    sign = ">" if exc.lo > 0 else "<"
    comparison = (f"worst ratio {r_text} {sign} e^({eps}) {'in ' if '[' in e_text else ''}"
                  f"{e_text} (decimals rounded outwards; exact fractions in --json)")
    l_text, c_text = separated_decimals(lambda b: ln_interval(ratio, b),
                                        lambda b: epsilon_bounds(eps, b))
    return comparison, f"{'in ' if '[' in l_text else '= '}{l_text} {sign} claimed {c_text}"


def severity(verdict: str, worst: RatioWitness | None, eps: Claim, delta: Fraction,
             hockey_stick: Interval | None, trace_same: bool | None) -> Severity | None:
    """The severity of a white-box result: None unless the verdict is ``"pass"`` or
    ``"violation"`` with the worst ratio known (a broken or incomplete audit has no figures).

    >>> from exactdp.checker import RatioWitness
    >>> w = RatioWitness(Fraction(5, 4), 0, 1, 0, Fraction(5, 8), Fraction(1, 2))
    >>> s = severity("violation", w, Fraction(1, 5), Fraction(0), None, True)
    >>> s.level, s.excess.lo > 0
    ('substantial', True)
    """
    if worst is None or verdict not in ("pass", "violation"):
        return None
    infinite = worst.ratio is None
    eff = exc = None
    comparison = effective_decimal = ""
    if worst.ratio is not None:
        ratio = worst.ratio
        eff, exc = _effective(ratio, eps)
        if ratio == 1 and eps == 0:  # the only case of equality (e^eps is irrational)
            comparison, effective_decimal = "worst ratio 1 = e^(0)", "= 0 = claimed 0"
        elif isinstance(eps, RatioClaim) and ratio == eps.ratio:  # equal, exactly
            comparison = f"worst ratio {ratio} = e^({eps}) exactly"
            effective_decimal = f"= {eps} = the claim"
        else:
            comparison, effective_decimal = _compare(ratio, eps, exc)
    if verdict == "pass":
        level, headline = "none", (f"the claim (epsilon = {eps}, delta = {delta}) holds exactly "
                                   f"on the audited inputs")
        if infinite:
            headline += "; the privacy loss is infinite on some outcome, covered by delta"
    elif infinite:
        level = "infinite"
        headline = (f"the privacy loss is infinite: outcome {worst.outcome!r} has probability "
                    f"{worst.p} on input {worst.numerator_input!r} and 0 on its neighbour "
                    f"{worst.denominator_input!r}; no epsilon holds")
    elif exc is not None and exc.hi <= 0 and trace_same is False:
        level, headline = "timing", ("the outputs satisfy the claim but the operation traces "
                                     "depend on the input (timing side channel)")
    elif delta > 0 and exc is not None and exc.lo > 0 and hockey_stick is not None:
        marginal = hockey_stick.hi - delta < MARGINAL_FRACTION * delta
        level = "marginal" if marginal else "substantial"
        headline = (f"hockey-stick delta at epsilon = {eps} "
                    f"{decimal_against(hockey_stick, delta)} > claimed delta {delta} ("
                    + ("less" if marginal else "more") + f" than {MARGINAL_FRACTION} "
                    f"of the claim above it)")
    else:
        assert exc is not None
        marginal = exc.hi < MARGINAL_FRACTION * epsilon_bounds(eps, 64).lo
        level = "marginal" if marginal else "substantial"
        headline = (f"effective epsilon exceeds the claimed {eps} by {decimal_interval(exc)} ("
                    + ("less" if marginal else "more") + f" than {MARGINAL_FRACTION} of the "
                    f"claim)")
    return Severity(level, headline, infinite, eff, exc, hockey_stick, comparison,
                    effective_decimal, delta)
