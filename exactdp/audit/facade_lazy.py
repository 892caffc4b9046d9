"""``random()`` values drawn lazily: branched exactly on each comparison the code makes.

The commonest use of ``random()`` in a mechanism is a comparison with a number,
``random() < p``.  Rather than searching the effect of all ``2**53`` values of the draw
(:mod:`exactdp.audit.facades`: probes re-running the code, assumed piecewise constant), a
facade hands the code a :class:`LazyUnit`: the value ``j / 2**53`` with ``j`` not yet
chosen, only known to lie in an interval ``[lo, hi)`` (at first ``[0, 2**53)``).  Each
comparison with an exact number ``x`` (an int, a float, a ``Fraction``) splits the interval
where the answer changes -- ``j < x * 2**53`` is ``j < ceil(x * 2**53)`` -- and the exploring
source branches over the parts, each weighted by its length over the interval's, exactly.
A path is then the sequence of answers, and its weight the exact probability that a
uniform ``j`` gives them all.

**Why this is exact.**  If the value is only ever compared, the rest of the run is a
function of the answers (and of the other draws): every ``j`` left in the final interval
gives the same run.  Any other use -- arithmetic, a conversion (``float``, ``int``,
``round``; C code such as ``math.log`` converts through ``__float__``), hashing, printing,
an ``isinstance`` check, an attribute, a comparison with another random value or with a
non-number -- is caught (every such operation of the object is intercepted) and the
exploration restarts with plain floats explored by their effect, as without this
(:class:`~exactdp.explore.RestartExploration`).  What is not intercepted: ``type(value)``
(a ``LazyUnit``, not ``float``) and identity (``is``); code that branches on either is
outside this exploration.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from exactdp.audit.bytecode import untraced

__all__ = ["LazyUnit", "Parts"]


class Parts:
    """An inverse-CDF draw over the parts of an interval: output ``i`` has mass
    ``lengths[i]`` out of ``d = sum(lengths)`` (parts of length 0 are never taken)."""

    def __init__(self, lengths: tuple[int, ...]) -> None:
        self.lengths = lengths
        self._ends = [sum(lengths[:i + 1]) for i in range(len(lengths))]

    @property
    def n(self) -> int:
        return len(self.lengths) - 1

    @property
    def d(self) -> int:
        return self._ends[-1]

    def cdf(self, z: int) -> int:
        return self._ends[z] if z >= 0 else 0

    def search(self, u: int) -> int:
        return next(i for i, e in enumerate(self._ends) if u <= e)


def _exact(other: Any) -> tuple[int, int] | float | None:
    """``other`` as an exact ratio ``(num, den)``, ``den > 0``, an infinite or NaN float,
    or None (not a plain number: the comparison is an escape)."""
    if type(other) is LazyUnit:
        return None
    if isinstance(other, float):
        try:
            return other.as_integer_ratio()
        except (ValueError, OverflowError):  # nan, or an infinity: answered without j
            return other
    if isinstance(other, numbers.Rational):
        return int(other.numerator), int(other.denominator)
    return None


class LazyUnit:
    """A ``random()`` value ``j / n`` (``n = 2**53``) with ``j`` known to lie in
    ``[lo, hi)``; see the module docstring.  ``branch(lengths)`` (the facade's) picks a part
    with the exploring source; ``escape(what)`` restarts the exploration without lazy
    values."""

    __slots__ = ("_branch", "_escape", "_hi", "_lo", "_n")

    def __init__(self, n: int, branch: Callable[[tuple[int, ...]], int],
                 escape: Callable[[str], Any]) -> None:
        object.__setattr__(self, "_n", n)
        object.__setattr__(self, "_lo", 0)
        object.__setattr__(self, "_hi", n)
        object.__setattr__(self, "_branch", branch)
        object.__setattr__(self, "_escape", escape)

    def _split(self, cuts: tuple[int, ...], truth: tuple[bool, ...]) -> bool:
        """The parts ``[lo, c1), [c1, c2), ..., [ck, hi)`` (cuts clamped to the interval)
        with their answers ``truth``: branch over the non-empty parts."""
        lo, hi = self._lo, self._hi
        bounds = [lo] + [min(max(c, lo), hi) for c in cuts] + [hi]
        lengths = tuple(bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1))
        live = [i for i, m in enumerate(lengths) if m]
        i = live[0] if len(live) == 1 else self._branch(lengths)
        object.__setattr__(self, "_lo", bounds[i])
        object.__setattr__(self, "_hi", bounds[i + 1])
        return truth[i]

    def _compare(self, other: Any, op: str) -> bool:
        x = _exact(other)
        if x is None:
            return bool(self._escape(f"compared ({op}) with {type(other).__name__}"))
        if isinstance(x, float):  # inf or nan: the same answer for every j
            above, below = x > 0, x < 0  # the value is below +inf, above -inf
            if not (above or below):  # nan: unordered, unequal
                return op == "!="
            return {"<": above, "<=": above, ">": not above, ">=": not above,
                    "==": False, "!=": True}[op]
        num, den = x[0] * self._n, x[1]  # j / n OP x  <=>  j OP num / den
        floor = num // den
        ceil = -(-num // den)
        if op == "<":
            return self._split((ceil,), (True, False))
        if op == "<=":
            return self._split((floor + 1,), (True, False))
        if op == ">":
            return self._split((floor + 1,), (False, True))
        if op == ">=":
            return self._split((ceil,), (False, True))
        if num % den:  # == / != with a value no j gives
            return op == "!="
        same = self._split((floor, floor + 1), (False, True, False))
        return same if op == "==" else not same

    __lt__ = untraced(lambda self, other: self._compare(other, "<"))
    __le__ = untraced(lambda self, other: self._compare(other, "<="))
    __gt__ = untraced(lambda self, other: self._compare(other, ">"))
    __ge__ = untraced(lambda self, other: self._compare(other, ">="))
    __eq__ = untraced(lambda self, other: self._compare(other, "=="))  # type: ignore[assignment]
    __ne__ = untraced(lambda self, other: self._compare(other, "!="))  # type: ignore[assignment]
    __bool__ = untraced(lambda self: self._compare(0, "!="))

    def __getattr__(self, name: str) -> Any:
        return self._escape(f"asked for its attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        self._escape(f"given the attribute {name}")

    @property  # type: ignore[misc]
    def __class__(self) -> Any:  # isinstance(value, ...) and ABC checks read it
        return self._escape("type-checked (isinstance)")


def _escaping(name: str) -> Callable[..., Any]:
    def escape(self: LazyUnit, *args: Any, **kwargs: Any) -> Any:
        return object.__getattribute__(self, "_escape")(f"used by {name}")
    escape.__name__ = name
    return escape


for _name in ("__hash__", "__repr__", "__str__", "__format__", "__bytes__", "__float__",
              "__int__", "__index__", "__complex__", "__round__", "__trunc__", "__floor__",
              "__ceil__", "__neg__", "__pos__", "__abs__", "__invert__", "__reduce__",
              "__reduce_ex__", "__copy__", "__deepcopy__", "__len__", "__iter__",
              "__getitem__", "__contains__", "__call__", "__array__",
              *(f"__{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod",
                                       "divmod", "pow", "matmul", "lshift", "rshift", "and",
                                       "or", "xor")),
              *(f"__r{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod",
                                        "divmod", "pow", "matmul", "lshift", "rshift", "and",
                                        "or", "xor"))):
    setattr(LazyUnit, _name, _escaping(_name))
del _name
