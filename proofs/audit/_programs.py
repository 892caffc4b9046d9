"""Small programs written the way people write randomized code, for the facade row
(:mod:`exactdp.proofs.audit.audit_facade_laws`) to audit.

FLOATS LIVE HERE (in ``proofs/``): these programs are the *audited code*; they call
``random()`` and compare the float it returns, exactly as third-party code does.  No float
reaches a law or a verdict: the row's laws come from the facades' integer draws and their
exact weights, and the expected laws from integer counting.  :func:`unit_value` reads a
float back as the exact ratio of its two integers (``float.as_integer_ratio``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["Program", "below", "bucket", "uniform_below", "unit_value"]

Program = Callable[[Any, Any], Any]


def below(k: int, method: str = "random") -> Program:
    """``rng.METHOD() < k / 2**53`` (the threshold is the double ``k / 2**53``, exact for
    ``0 <= k <= 2**53``; made here, not by the facades' own conversion)."""
    t = math.ldexp(k, -53)

    def program(c: Any, rng: Any) -> bool:
        return bool(getattr(rng, method)() < t)

    return program


def bucket(bits: int, method: str = "random") -> Program:
    """``int(rng.METHOD() * 2**bits)``: which of ``2**bits`` equal intervals the double
    falls in (multiplying by a power of two is exact)."""
    scale = 1 << bits

    def program(c: Any, rng: Any) -> int:
        return int(getattr(rng, method)() * scale)

    return program


def uniform_below(a: int, b: int, t: int) -> Program:
    """``rng.uniform(a, b) < t``."""
    def program(c: Any, rng: Any) -> bool:
        return bool(rng.uniform(a, b) < t)

    return program


def unit_value(value: Any) -> tuple[int, int]:
    """A double returned by ``random()`` as the exact ratio ``(numerator, denominator)``."""
    if not isinstance(value, float):
        raise TypeError(f"random() returned {type(value).__name__}, not a float")
    return value.as_integer_ratio()
