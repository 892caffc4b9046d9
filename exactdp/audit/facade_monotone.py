"""A ``random()`` value seen through a non-decreasing function, compared exactly.

``Random.uniform(a, b)`` and numpy's ``uniform(low, high)`` return ``g(j) = a + (b - a) *
(j / 2**53)`` in doubles (:func:`~exactdp.audit.facade_floats.affine_unit`).  Code that only
compares that value with numbers (``rng.uniform(0, 4) < 3``) gets a :class:`LazyIncreasing`:
the draw's cell ``[lo, hi)`` of ``j`` (shared with the :class:`~exactdp.audit.facade_lazy.
LazyUnit` it wraps), split at the least ``j`` where the answer changes.  Because ``g`` never
decreases in ``j``, ``g(j) < x`` holds on a prefix of the cell; its end is found by
bisection over the integers, each ``g(j)`` compared with ``x`` exactly (the double's own
rational value), so the parts and their lengths are exact, with no assumption.  Every other
use of the value escapes like a :class:`~exactdp.audit.facade_lazy.LazyUnit`'s: the
exploration restarts with plain values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from exactdp.audit.facade_lazy import BRANCH, ESCAPE, SCALE, LazyUnit, _comparison
from exactdp.audit.facade_lazy import _exact as exact_number

__all__ = ["LazyIncreasing"]


class LazyIncreasing(LazyUnit):
    """``g(j)`` for the ``j`` of ``unit`` (a fresh :class:`LazyUnit`), ``g`` non-decreasing
    (a double for every ``j`` in ``[0, 2**53)``)."""

    __slots__ = ("_g",)

    def __init__(self, unit: LazyUnit, g: Callable[[int], Any]) -> None:
        get = object.__getattribute__
        ctx = get(unit, "_ctx")
        super().__init__(ctx[SCALE], ctx[BRANCH], ctx[ESCAPE], cell=get(unit, "_cell"),
                         ctx=ctx)
        object.__setattr__(self, "_g", g)

    def _first(self, num: int, den: int, strict: bool) -> int:
        """The least ``j`` in ``[lo, hi]`` with ``g(j) > x`` (``strict``) or ``g(j) >= x``,
        ``x = num / den``; ``hi`` when none in the cell."""
        lo, hi = self._cell
        g = self._g
        while lo < hi:
            mid = (lo + hi) // 2
            p, q = g(mid).as_integer_ratio()  # the double's exact value p / q, q > 0
            if (p * den > num * q) if strict else (p * den >= num * q):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def _compare(self, other: Any, op: str) -> bool:
        x = exact_number(other)
        if x is None or isinstance(x, float):  # a non-number, or inf / nan: as a LazyUnit
            return super()._compare(other, op)
        num, den = x
        if op in ("<", ">="):
            return self._below(self._first(num, den, False), op == "<")
        if op in ("<=", ">"):
            return self._below(self._first(num, den, True), op == "<=")
        same = self._split((self._first(num, den, False), self._first(num, den, True)),
                           (False, True, False))
        return same if op == "==" else not same

    # every comparison through _compare (LazyUnit's own read an int or a float directly)
    __lt__ = _comparison("<")
    __le__ = _comparison("<=")
    __gt__ = _comparison(">")
    __ge__ = _comparison(">=")
    __eq__ = _comparison("==")  # type: ignore[assignment]
    __ne__ = _comparison("!=")  # type: ignore[assignment]
    __hash__ = LazyUnit.__hash__  # (an __eq__ in the class body would make it None)
