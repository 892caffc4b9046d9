"""Outcomes told apart as an observer tells them apart: ``False`` is not ``0``.

Python's equality merges values an observer of a mechanism's output sees as different:
``False == 0`` and ``True == 1`` (with equal hashes), so a law keyed by plain outputs would
count ``(False, False, 0)`` and ``(False, False, False)`` as one outcome -- hiding a
difference in the output (a mechanism returning ``True`` on one input and ``1`` on its
neighbour would have the same "law" on both) and mixing the traces of two outcomes in the
timing verdict.  :func:`observed` replaces every ``bool`` inside an output (itself, or in
tuples, recursively) by a :class:`Truth`, which equals only a ``bool`` of the same value
(or another ``Truth``), prints like it and is written to JSON as it.

The same holds for every type an observer tells apart: ``0`` and ``0.0`` are equal numbers,
but ``print`` shows them differently, and so do ``[1]`` and ``(1,)``, ``1`` and
``Fraction(1)`` (``repr``), ``0.0`` and ``-0.0``, ``1`` and ``numpy.int64(1)`` (``repr`` and
``type``).  :func:`observed` therefore also wraps every output that is not an ``int``, a
``str``, ``bytes`` or a tuple/frozenset of outcomes in a :class:`Typed`: its type (numpy
scalars and arrays by their own type and dtype) together with its exact value, so that two
outputs are one outcome exactly when they have the same type and the same value (a float by
its exact binary value, the sign of zero included; a dict by its items in their order, as it
prints).  A mechanism that always returns floats, or numpy scalars of one dtype, has the same
outcomes as before; one whose output type depends on its input has outcomes no neighbour
can produce.  ``None`` is an outcome too (wrapped, so that no hash of an outcome varies
between processes).
"""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from exactdp.audit.facade_floats import exact_outcome

__all__ = ["FALSE", "NONE", "TRUE", "Truth", "Typed", "observed"]

#: the builtin ``hash`` as it was when this module was loaded: while an audit runs,
#: ``builtins.hash`` is a guard (:mod:`exactdp.audit.guarded_sources`) that looks at its
#: caller's frame on every call, and an outcome is hashed several times per explored path
_hash = getattr(builtins.hash, "__wrapped__", builtins.hash)


class Truth:
    """A ``bool`` output, equal only to the same ``bool`` (never to ``0`` or ``1``)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if type(other) is Truth:
            return self.value is other.value
        return type(other) is bool and self.value is other

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return 1 if self.value else 0  # hash(True) and hash(False)

    def __lt__(self, other: object) -> bool:  # sorting outcomes: as the bools would
        return bool(self.value < (other.value if type(other) is Truth else other))  # type: ignore[operator]

    def __gt__(self, other: object) -> bool:
        return bool(self.value > (other.value if type(other) is Truth else other))  # type: ignore[operator]

    def __repr__(self) -> str:
        return "True" if self.value else "False"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return self.value

    def to_json(self) -> bool:
        return self.value


class Typed:
    """An output that is not an ``int``, ``str``, ``bytes`` or tuple: its type and its
    exact value (``key``), equal only to an output of the same type and value.  ``text``,
    how it prints: a string, or a function making it (made when first printed: most
    outcomes of an exploration are never printed)."""

    __slots__ = ("_hash", "_text", "key", "kind", "value")

    def __init__(self, kind: str, key: Any, value: Any, text: str | Callable[[], str]) -> None:
        self.kind = kind    # the type an observer sees, e.g. "float", "list", "numpy.int64"
        self.key = key      # the identity within the kind (a float: -0.0 is not 0.0)
        self.value = value  # the exact value (ordering, JSON): a Fraction, int or tuple
        self._text = text   # how it prints
        self._hash: int | None = None  # (made when first hashed: an explored path's output
        # is hashed several times, and a tuple of bools hashes item by item in Python)

    def __reduce__(self) -> tuple[Any, ...]:  # (pickled to and from workers: the text made)
        return Typed, (self.kind, self.key, self.value, self.text)

    @property
    def text(self) -> str:
        """How the output prints."""
        text = self._text
        if not isinstance(text, str):
            text = self._text = text()
        return text

    def __eq__(self, other: object) -> bool:
        return type(other) is Typed and self.kind == other.kind and self.key == other.key

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = _hash((self.kind, self.key))
        return h

    def _order(self, other: object) -> Any:
        if type(other) is not Typed or other.kind != self.kind:
            raise TypeError("outcomes of different types have no order")
        return other.value

    def __lt__(self, other: object) -> bool:  # sorting outcomes of one type by value
        return bool(self.value < self._order(other))

    def __gt__(self, other: object) -> bool:
        return bool(self.value > self._order(other))

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def to_json(self) -> Any:
        from exactdp.certificate import exact_json
        return exact_json(self.value)

    # A number keeps its numeric reading for code that plots or orders outcomes by value
    # (sorted(law, key=abs), float(z) for a label): the exact value's.
    def __abs__(self) -> Any:
        return abs(self.value)

    def __float__(self) -> Any:
        return self.value.__float__()


#: The outcome ``None``.
NONE = Typed("None", 0, None, "None")
#: The outcomes ``True`` and ``False`` (one object each: an outcome holding them compares
#: item by item by identity first, and none is made per run)
TRUE, FALSE = Truth(True), Truth(False)


def _items(value: tuple[Any, ...] | list[Any]) -> tuple[Any, ...]:
    """The items of a tuple or list, each :func:`observed` (ints, strings and bools, the
    commonest, without a call each)."""
    return tuple([v if (t := type(v)) is int or t is str else (TRUE if v else FALSE)
                  if t is bool else observed(v) for v in value])


def _numpy_name(value: Any) -> str:
    return f"numpy.{type(value).__name__}"


def observed(value: Any) -> Any:
    """``value`` as an outcome told apart as an observer tells it apart: a ``bool`` as a
    :class:`Truth`, an ``int``, ``str`` or ``bytes`` as itself, a tuple or frozenset item
    by item, anything else (a value :func:`exactdp.audit.guard.check_outcome` accepted) as
    a :class:`Typed`; the same object when nothing in it changes."""
    t = type(value)
    if t is int or t is str or t is bytes or t is Truth or t is Typed:
        return value
    if t is bool:
        return TRUE if value else FALSE
    if t is tuple:
        items = _items(value)
        return items if any(a is not b for a, b in zip(items, value)) else value
    if t is frozenset:
        return frozenset(observed(v) for v in value)
    if value is None:
        return NONE
    if t is list:
        items = _items(value)
        return Typed("list", items, items, lambda: "[" + ", ".join(map(repr, items)) + "]")
    if t is dict:
        pairs = tuple((observed(k), observed(v)) for k, v in value.items())
        return Typed("dict", pairs, pairs,
                     lambda: "{" + ", ".join(f"{k!r}: {v!r}" for k, v in pairs) + "}")
    numpy = t.__module__ == "numpy"
    if numpy and t.__name__ == "ndarray":  # an array: its dtype and its items
        items = observed(value.tolist())
        name = f"numpy.ndarray[{value.dtype}]"
        dtype = value.dtype
        return Typed(name, items, items, lambda: f"array({items!r}, dtype={dtype})")
    if isinstance(value, (str, bytes)):  # a subclass (numpy.str_...): its type and text
        name = _numpy_name(value) if numpy else f"{t.__module__}.{t.__qualname__}"
        plain = str(value) if isinstance(value, str) else bytes(value)
        return Typed(name, plain, plain, f"{name}({plain!r})")
    if numpy and hasattr(value, "item") and type(value.item()) is bool:
        truth = bool(value.item())
        return Typed(_numpy_name(value), truth, truth, f"{_numpy_name(value)}({truth})")
    if isinstance(value, numbers.Integral):
        n = int(value)
        name = _numpy_name(value) if numpy else t.__qualname__
        return Typed(name, n, n, f"{name}({n})")
    if isinstance(value, numbers.Rational):
        q = Fraction(int(value.numerator), int(value.denominator))
        name = t.__qualname__ if t is Fraction else f"{t.__module__}.{t.__qualname__}"
        return Typed(name, q, q, repr(value) if t is Fraction else f"{name}({q})")
    if isinstance(value, numbers.Real):  # a float: its exact value, the sign of zero kept
        exact = exact_outcome(value)  # (a numpy float32 or float16 widens exactly)
        if exact is None:
            raise TypeError(f"{t.__name__} {value!r} has no exact value")
        builtin = t.__module__ == "builtins"
        name = _numpy_name(value) if numpy else t.__qualname__ if builtin else \
            f"{t.__module__}.{t.__qualname__}"
        negative_zero = exact == 0 and str(value).startswith("-")
        return Typed(name, (exact, negative_zero), exact,
                     repr(value) if builtin else f"{name}({value})")
    raise TypeError(f"{t.__name__} is not an outcome")
