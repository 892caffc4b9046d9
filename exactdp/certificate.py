"""Certificates: the JSON-serialisable record of one exact check.

A certificate says which claim of which paper was checked, on which mechanism and
parameters, over which domain; the exact worst value found (a Fraction, printed "p/q"),
the bound it was compared with, the verdict, and the witness that attains the worst
value.  Big integers and fractions are serialised as decimal strings / "p/q" so that no
JSON reader rounds them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import gmpy2

__all__ = ["Certificate", "ClaimReport", "brief", "brief_apart", "exact_json", "fraction_str"]


def _decimal(i: int) -> str:
    """``str(i)`` without CPython's cap on int -> str conversion (4300 digits since 3.11):
    exact numbers of any length must print (GeoSample's ``d`` has ``O(n log 1/eps)`` bits)."""
    return str(gmpy2.mpz(i).digits(10))


def fraction_str(q: Fraction | int) -> str:
    """``"p/q"`` (or ``"p"`` for integers): exact, and safe from JSON number rounding."""
    q = Fraction(q)
    num = _decimal(q.numerator)
    return num if q.denominator == 1 else f"{num}/{_decimal(q.denominator)}"


def brief(q: Fraction | int, digits: int = 8) -> str:
    """A short rendering that is still exactly true: ``p/q`` when short, otherwise the
    decimal expansion truncated (not rounded) to ``digits`` places followed by ``...``.

    >>> brief(Fraction(1, 3)), brief(Fraction(10**30 + 1, 10**30))
    ('1/3', '1.00000000...')
    """
    q = Fraction(q)
    text = fraction_str(q)
    if len(text) <= 24:
        return text
    sign, q = ("-", -q) if q < 0 else ("", q)
    whole, rest = divmod(q.numerator, q.denominator)
    return f"{sign}{_decimal(whole)}.{rest * 10**digits // q.denominator:0{digits}d}..."


def brief_apart(a: Fraction | int, b: Fraction | int) -> tuple[str, str]:
    """:func:`brief` of two different numbers with enough digits that the two texts differ,
    so that an inequality printed between them reads right (never ``2.71828182... >
    2.71828182...``): truncation keeps the order, and past the first differing digit the
    truncations differ.

    >>> brief_apart(Fraction(10**30 + 1, 10**30), Fraction(10**30 + 2, 10**30))
    ('1.000000000000000000000000000001...', '1.000000000000000000000000000002...')
    """
    if Fraction(a) == Fraction(b):
        raise ValueError("brief_apart needs two different numbers")
    same, digits = 7, 8  # brief(., same) may agree; find the fewest digits >= 8 that differ
    while brief(a, digits) == brief(b, digits):
        same, digits = digits, 2 * digits
    while digits - same > 1:
        mid = (same + digits) // 2
        same, digits = (mid, digits) if brief(a, mid) == brief(b, mid) else (same, mid)
    return brief(a, digits), brief(b, digits)


def exact_json(value: Any) -> Any:
    """Convert ints, Fractions and containers to JSON-safe values (numbers as strings)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, Fraction)):
        return fraction_str(value)
    if isinstance(value, Mapping):
        return {str(k): exact_json(v) for k, v in value.items()}
    if isinstance(value, Sequence):
        return [exact_json(v) for v in value]
    if hasattr(value, "to_json"):
        return value.to_json()
    return str(value)


@dataclass(frozen=True)
class Certificate:
    """The outcome of checking one claim on one parameter setting (or one grid)."""

    claim: str
    mechanism: str
    parameters: Mapping[str, Any]
    domain: str
    worst: Fraction | int | str | None
    bound: str
    verdict: bool
    witness: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "mechanism": self.mechanism,
            "parameters": exact_json(self.parameters),
            "domain": self.domain,
            "worst": exact_json(self.worst),
            "bound": self.bound,
            "verdict": "pass" if self.verdict else "FAIL",
            "witness": exact_json(self.witness),
            "note": self.note,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2)


@dataclass(frozen=True)
class ClaimReport:
    """All certificates for one claim of a paper, as one row of ``exactdp verify``.

    ``grid`` says which parameter grid was covered; ``worst`` and ``bound`` summarise the
    worst exact value found against the claimed bound (e.g. ``"max ratio 9/8"`` vs
    ``"= 1 + 2^-k"``).  The claim passes when every certificate passes and there is at
    least one (a check that covered nothing proves nothing).
    """

    claim: str
    grid: str
    worst: str
    bound: str
    certificates: Sequence[Certificate]

    @property
    def verdict(self) -> bool:
        return bool(self.certificates) and all(c.verdict for c in self.certificates)

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "grid": self.grid,
            "worst": self.worst,
            "bound": self.bound,
            "verdict": "pass" if self.verdict else "FAIL",
            "certificates": [c.to_json() for c in self.certificates],
        }
