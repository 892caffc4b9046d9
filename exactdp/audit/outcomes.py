"""Outcomes told apart as an observer tells them apart: ``False`` is not ``0``.

Python's equality merges values an observer of a mechanism's output sees as different:
``False == 0`` and ``True == 1`` (with equal hashes), so a law keyed by plain outputs would
count ``(False, False, 0)`` and ``(False, False, False)`` as one outcome -- hiding a
difference in the output (a mechanism returning ``True`` on one input and ``1`` on its
neighbour would have the same "law" on both) and mixing the traces of two outcomes in the
timing verdict.  :func:`observed` replaces every ``bool`` inside an output (itself, or in
tuples, recursively) by a :class:`Truth`, which equals only a ``bool`` of the same value
(or another ``Truth``), prints like it and is written to JSON as it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Truth", "observed"]


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
        return hash(self.value)

    def __lt__(self, other: object) -> bool:  # sorting outcomes: as the bools would
        return bool(self.value < (other.value if type(other) is Truth else other))  # type: ignore[operator]

    def __gt__(self, other: object) -> bool:
        return bool(self.value > (other.value if type(other) is Truth else other))  # type: ignore[operator]

    def __repr__(self) -> str:
        return repr(self.value)

    __str__ = __repr__

    def __bool__(self) -> bool:
        return self.value

    def to_json(self) -> bool:
        return self.value


def observed(value: Any) -> Any:
    """``value`` with every ``bool`` in it (itself, or inside tuples) a :class:`Truth`;
    anything else unchanged (the same object when it holds no ``bool``)."""
    if type(value) is bool:
        return Truth(value)
    if type(value) is tuple:
        items = tuple(observed(v) for v in value)
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value
