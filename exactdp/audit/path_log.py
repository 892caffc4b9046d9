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

A path recorded from its exploring source (:meth:`PathLog.add`) replayed the draws of the
path it branched from up to its branch point with that path's very entries: its draws are
packed as that path's packed draws up to there (once the entries are checked equal) and
its new draws alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["OUTCOMES", "RECENT", "PathLog", "strict_key"]

#: how many of the last paths added a log keeps at hand to pack a path's first draws from
#: the path it branched from (:meth:`PathLog.add`): in a depth-first exploration a path
#: branches from one of the last few (its parent pushed it among its alternatives)
RECENT = 64

#: how many outcome objects a log keeps by id (:meth:`PathLog.add`): an input's outputs
#: come as a few objects used again, or as a new object per path (then none is found)
OUTCOMES = 256

#: result types whose equality is equality of value within the type
_LEAVES = frozenset((int, bool, str, bytes, type(None), Fraction))


def strict_key(value: Any) -> Any:
    """A key equal for two results only when they are equal with the same type at every
    level (``True`` and ``1``, ``(1,)`` and ``(True,)`` get different keys).
    :class:`TypeError` for a type whose equality is not known to be strict."""
    kind = type(value)
    if kind in _LEAVES:
        return (kind, value)
    if kind is tuple:
        return (tuple, tuple(map(strict_key, value)))
    truth, typed = _OUTCOME_TYPES or _outcome_types()
    if kind is truth:
        return (truth, value.value)
    if kind is typed:
        return (typed, value.kind, strict_key(value.key))
    raise TypeError(kind)


#: the outcome types (Truth, Typed), read once (:func:`_outcome_types`): a key is made
#: once per explored path
_OUTCOME_TYPES: list[type] = []


def _outcome_types() -> list[type]:
    from exactdp.audit.outcomes import Truth, Typed

    _OUTCOME_TYPES[:] = [Truth, Typed]
    return _OUTCOME_TYPES


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
        #: the last :data:`RECENT` paths added from their sources (:meth:`add`), by the id
        #: of their entry list: its entries (a tuple: no list kept alive, which the
        #: garbage collector would walk; an id reused after the list is gone is told
        #: apart by them) and its packed draws
        self._recent: dict[int, tuple[tuple[Any, ...], tuple[tuple[Any, ...], ...]]] = {}
        #: outcome objects (:class:`~exactdp.audit.outcomes.Typed`, ``Truth``: immutable)
        #: already in the table, by id: the object (kept: its id not reused) and its entry;
        #: an audit's runs give one object per equal output of an input
        #: (:func:`~exactdp.audit.guard.plain_observed`), found here without its key
        self._outcomes: dict[int, tuple[Any, int]] = {}

    def add(self, src: Any, result: Any) -> None:
        """Record the path an :class:`~exactdp.explore.ExploringSource` ran, with its
        ``result``.  The path replayed the first draws of the path it branched from with
        that path's very entries: when that path is among the last :data:`RECENT` added
        and the entries are equal there, its draws are that path's packed draws up to
        its branch point and its new draws alone are packed."""
        if self._part is not None:
            result = self._part(result)
        entries = tuple(src.log)
        replayed = len(src.prefix)
        draws = None
        if replayed and src.mismatch is None:
            hit = self._recent.get(id(src.recorded))
            if hit is not None and _shared(entries, hit[0], replayed):
                draws = hit[1][:replayed] + _records(entries[replayed:])
        if draws is None:
            draws = _records(entries)
        recent = self._recent
        recent[id(src.log)] = (entries, self._row(src.choices, draws, result))
        if len(recent) > RECENT:
            del recent[next(iter(recent))]  # (the oldest)

    def append(self, path: Sequence[Any]) -> None:
        choices, draws, result = path
        if self._part is not None:
            result = self._part(result)
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
        kind = type(result)
        outcome = kind in (_OUTCOME_TYPES or _outcome_types())
        hit = self._outcomes.get(id(result)) if outcome else None
        index: int | None
        if hit is not None and hit[0] is result:
            index = hit[1]
        else:
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
            if outcome and len(self._outcomes) < OUTCOMES:
                self._outcomes[id(result)] = (result, index)
        assert index is not None
        self.rows.append((packed, at, index))
        return self.draws[at]

    def clear(self) -> None:
        self._recent.clear()
        self._outcomes.clear()
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
        self._recent = {}
        self._outcomes = {}
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


def _shared(entries: tuple[Any, ...], parent: tuple[Any, ...], n: int) -> bool:
    """Whether the first ``n`` draw entries of a path equal those of the path it branched
    from (the same objects when its replay made the same requests: compared at once)."""
    return entries[:n] == parent[:n]
