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

A path recorded from its exploring source (:meth:`PathLog.add`) is packed only when the
log is read -- a pass being confirmed -- or once the paths waiting hold more than
:data:`PENDING_DRAWS` draws in all: until then the log keeps the source's own lists of
choices and draw entries.  A path replays the draws of the path it branched from up to its
branch point with the very same entries, so its draws are packed as that path's packed
draws up to there (after checking the entries equal) and its new draws alone.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["PENDING_DRAWS", "PathLog", "strict_key"]

#: at most this many draws (summed over their paths) wait unpacked in all the logs of a
#: process (:meth:`PathLog.add`); past it a log packs its paths as they come
PENDING_DRAWS = 1 << 21

#: the draws waiting unpacked in every log of this process
_pending = [0]

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
        #: paths recorded from their sources and not packed yet (:meth:`add`): choices,
        #: draw entries, the entries of the path branched from (or None), the number of
        #: draws replayed from it, the result
        self._waiting: list[tuple[list[int], list[Any], list[Any] | None, int, Any]] = []
        self._waiting_draws = 0

    def add(self, src: Any, result: Any) -> None:
        """Record the path an :class:`~exactdp.explore.ExploringSource` ran, with its
        ``result``: its lists of choices and draw entries are kept as they are (the
        source is done with them) and packed when the log is read (:meth:`_pack`)."""
        if self._part is not None:
            result = self._part(result)
        log = src.log
        replayed = len(src.prefix)
        parent = src.recorded if replayed and src.mismatch is None else None
        self._waiting.append((src.choices, log, parent, replayed, result))
        n = len(log)
        self._waiting_draws += n
        _pending[0] += n
        if _pending[0] > PENDING_DRAWS:
            self._pack()

    def _pack(self) -> None:
        """Pack the paths waiting (:meth:`add`), in order.  A path's first draws are the
        entries of the path it branched from (the same objects, as its replay made them):
        once its entries there are checked equal to that path's, its draws are that path's
        packed draws up to there and its new draws packed alone."""
        waiting = self._waiting
        if not waiting:
            return
        # each packed path's draws by its entry list's id: the lists are alive (held by
        # ``waiting``) until the end of this loop, so no id is reused
        packed: dict[int, tuple[tuple[Any, ...], ...]] = {}
        for choices, log, parent, replayed, result in waiting:
            draws = None
            if parent is not None:
                before = packed.get(id(parent))
                if before is not None and _shared(log, parent, replayed):
                    draws = before[:replayed] + _records(log[replayed:])
            if draws is None:
                draws = _records(log)
            packed[id(log)] = self._row(choices, draws, result)
        _pending[0] -= self._waiting_draws
        self._waiting, self._waiting_draws = [], 0

    def __del__(self) -> None:
        if self._waiting_draws:  # (never raises: a log dropped unread, even at exit)
            with contextlib.suppress(Exception):
                _pending[0] -= self._waiting_draws

    def append(self, path: Sequence[Any]) -> None:
        choices, draws, result = path
        if self._part is not None:
            result = self._part(result)
        self._pack()  # (the paths in the order recorded)
        self._row(choices, tuple(draws), result)

    def _row(self, choices: Sequence[int], draws: tuple[tuple[Any, ...], ...],
             result: Any) -> tuple[tuple[Any, ...], ...]:
        """Add a path; the table's draw sequence equal to ``draws``."""
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
        return self.draws[at]

    def clear(self) -> None:
        _pending[0] -= self._waiting_draws
        self._waiting, self._waiting_draws = [], 0
        self.draws.clear()
        self.results.clear()
        self.rows.clear()
        self._draws_at.clear()
        self._results_at.clear()

    def __len__(self) -> int:
        return len(self.rows) + len(self._waiting)

    def __iter__(self) -> Iterator[tuple[tuple[int, ...], tuple[tuple[Any, ...], ...], Any]]:
        self._pack()
        draws, results = self.draws, self.results
        for choices, at, index in self.rows:
            yield tuple(choices), draws[at], results[index]

    def state(self) -> tuple[list[Any], list[Any], list[tuple[Any, int, int]]]:
        """What another process needs: the two tables and the rows."""
        self._pack()
        return self.draws, self.results, self.rows

    def __getstate__(self) -> tuple[Any, ...]:  # to the parent from a worker: no lookups
        return self.state()

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.draws, self.results, self.rows = state
        self._part = None
        self._waiting, self._waiting_draws = [], 0
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


def _records(entries: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
    """Draw entries ``(options, weight before, den, numerators or None)`` of an
    :class:`~exactdp.explore.ExploringSource`'s log as draws ``(options, den, numerators
    or None)``."""
    return tuple([(e[0], e[3], None if e[4] is None else tuple(e[4])) for e in entries])


def _shared(log: list[Any], parent: list[Any], n: int) -> bool:
    """Whether the first ``n`` draw entries of ``log`` equal ``parent``'s (the same objects
    when a replay made the same requests: compared at once)."""
    return log[:n] == parent[:n]
