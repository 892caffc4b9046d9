"""Small programs written the way people write randomized code, for the rows on the audit
machinery to audit.

Each program is compiled from its source text under a module name and a file name outside
exactdp (:data:`AUDITED`), so that the audit treats it as third-party code however exactdp
is installed (a facade hands code outside exactdp a lazily compared ``random()`` value, and
the escape guards watch calls made from it).  The floats are the audited code's own and
live in the source texts; :func:`unit_value` reads a float back as the exact ratio of its
two integers (``float.as_integer_ratio``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

__all__ = [
    "AUDITED",
    "Program",
    "below",
    "bucket",
    "compare",
    "compiled",
    "uniform_below",
    "unit_value",
]

Program = Callable[[Any, Any], Any]
#: The module name (and, in brackets, the file name) the programs run under.
AUDITED = "audited_program"


def compiled(source: str, name: str = "program") -> Any:
    """The function ``name`` defined by ``source``, compiled outside exactdp."""
    namespace: dict[str, Any] = {"__name__": AUDITED}
    exec(compile(source, f"<{AUDITED}>", "exec"), namespace)  # noqa: S102 - our own text
    return namespace[name]


def _literal(x: Fraction | int, as_double: bool) -> str:
    """Source text for ``x``: an int, ``Fraction(p, q)``, or the double ``p / q`` (exact
    when ``q`` is a power of two and ``p < 2**53``)."""
    x = Fraction(x)
    if as_double:
        return f"({x.numerator} / {x.denominator})"
    if x.denominator == 1:
        return str(x.numerator)
    return f"Fraction({x.numerator}, {x.denominator})"


def compare(method: str, tests: Sequence[tuple[str, Fraction | int, bool]]) -> Program:
    """``u = rng.METHOD()`` compared with each ``(op, x, as_double)``: the tuple of answers."""
    parts = ", ".join(f"u {op} {_literal(x, d)}" for op, x, d in tests)
    return compiled("from fractions import Fraction\n\n"
                    f"def program(c, rng):\n    u = rng.{method}()\n    return ({parts},)\n")


def below(k: int, method: str = "random") -> Program:
    """``rng.METHOD() < k / 2**53`` (the double ``k / 2**53``, exact for ``k <= 2**53``)."""
    return compiled(f"T = {k} / {1 << 53}\n\n"
                    f"def program(c, rng):\n    return bool(rng.{method}() < T)\n")


def bucket(bits: int, method: str = "random") -> Program:
    """``int(rng.METHOD() * 2**bits)``: which of ``2**bits`` equal intervals the double falls
    in (multiplying by a power of two is exact)."""
    return compiled(f"def program(c, rng):\n    return int(rng.{method}() * {1 << bits})\n")


def uniform_below(a: int, b: int, t: int) -> Program:
    """``rng.uniform(a, b) < t``."""
    return compiled(f"def program(c, rng):\n    return bool(rng.uniform({a}, {b}) < {t})\n")


def unit_value(value: Any) -> tuple[int, int]:
    """A double returned by ``random()`` as the exact ratio ``(numerator, denominator)``."""
    if not isinstance(value, float):
        raise TypeError(f"random() returned {type(value).__name__}, not a float")
    return value.as_integer_ratio()
