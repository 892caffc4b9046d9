"""Every explored path of one input, kept compactly to be replayed in other processes
(:mod:`exactdp.audit.hash_seed`).

A path is its choices, its draws (per draw ``(options, den, numerators or None)``) and its
result.  An exploration has many paths but few distinct draw sequences and fewer distinct
results, so :class:`PathLog` keeps each distinct one once, in a table, and per path only
its choices (as bytes when every choice is below 256) and two indices: a few objects per
path instead of dozens (the garbage collector walks every object kept, and the log is
pickled to the other processes).  Two results share a table entry only when they are equal
with the same type at every level (:func:`strict_key`: ``1``, ``True`` and ``1.0`` never
do), so a replay compares with the shared entry exactly as with its own result.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["PathLog", "strict_key"]

#: result types whose equality is equality of value within the type
_LEAVES = frozenset((int, bool, str, bytes, type(None), Fraction))


def strict_key(value: Any) -> Any:
    """A key equal for two results only when they are equal with the same type at every
    level (``True`` and ``1``, ``(1,)`` and ``(True,)`` get different keys).
    :class:`TypeError` for a type whose equality is not known to be strict."""
    kind = type(value)
    if kind is tuple:
        return (tuple, tuple(strict_key(v) for v in value))
    if kind in _LEAVES:
        return (kind, value)
    truth, typed = _outcome_types()
    if kind is truth:
        return (truth, value.value)
    if kind is typed:
        return (typed, value.kind, strict_key(value.key))
    raise TypeError(kind)


@functools.cache
def _outcome_types() -> tuple[type, type]:
    from exactdp.audit.outcomes import Truth, Typed

    return Truth, Typed


class PathLog:
    """The paths of one input: :meth:`append` ``(choices, draws, result)`` (``part``: keep
    ``part(result)`` instead of the result, e.g. a white-box result's output without its
    trace); iterating gives the paths back, equal with the same types."""

    def __init__(self, part: Callable[[Any], Any] | None = None) -> None:
        #: the distinct draw sequences
        self.draws: list[tuple[tuple[Any, ...], ...]] = []
        #: the results; equal ones (the same types throughout) share an entry
        self.results: list[Any] = []
        #: per path: its choices (bytes, or a tuple with a choice past 255), the index of
        #: its draws and of its result
        self.rows: list[tuple[Any, int, int]] = []
        self._part = part
        self._draws_at: dict[Any, int] = {}
        self._results_at: dict[Any, int] = {}

    def append(self, path: Sequence[Any]) -> None:
        choices, draws, result = path
        if self._part is not None:
            result = self._part(result)
        draws = tuple(draws)
        at = self._draws_at.get(draws)
        if at is None:
            at = self._draws_at[draws] = len(self.draws)
            self.draws.append(draws)
        try:
            packed: Any = bytes(choices)
        except (ValueError, TypeError):  # a choice past 255 (or not an int)
            packed = tuple(choices)
        try:
            key: Any = strict_key(result)
            index = self._results_at.get(key)
        except TypeError:  # unhashable, or a type whose equality is not known strict
            key, index = None, None
        if index is None:
            index = len(self.results)
            self.results.append(result)
            if key is not None:
                self._results_at[key] = index
        self.rows.append((packed, at, index))

    def clear(self) -> None:
        self.draws.clear()
        self.results.clear()
        self.rows.clear()
        self._draws_at.clear()
        self._results_at.clear()

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[tuple[tuple[int, ...], tuple[tuple[Any, ...], ...], Any]]:
        draws, results = self.draws, self.results
        for choices, at, index in self.rows:
            yield tuple(choices), draws[at], results[index]

    def state(self) -> tuple[list[Any], list[Any], list[tuple[Any, int, int]]]:
        """What another process needs: the two tables and the rows."""
        return self.draws, self.results, self.rows

    def __getstate__(self) -> tuple[Any, ...]:  # to the parent from a worker: no lookups
        return self.state()

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.draws, self.results, self.rows = state
        self._part = None
        self._draws_at = {d: i for i, d in enumerate(self.draws)}
        self._results_at = {}
        for i, result in enumerate(self.results):
            try:
                self._results_at.setdefault(strict_key(result), i)
            except TypeError:
                pass

    @classmethod
    def of(cls, paths: Sequence[Sequence[Any]] | PathLog) -> PathLog:
        """``paths`` as a log (itself when it is one)."""
        if isinstance(paths, PathLog):
            return paths
        log = cls()
        for path in paths:
            log.append(path)
        return log
