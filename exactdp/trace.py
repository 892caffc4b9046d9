"""Operation traces: what a call did, recorded so that the checker can compare calls.

Samplers report their costly operations here (a uniform draw of domain size ``d``, one
evaluation of a CDF, one round of a loop).  Nothing is recorded unless a caller is
inside :func:`recording`, so the cost outside the checker is one context-variable read.

The strict-time claim of the paper (e.g. Theorem 4.7 ii: a binary search of a fixed
number of rounds, one CDF evaluation each) becomes: the recorded sequence is the same
for every private input.  (The white-box audit of other people's code judges a trace that
varies on the joint law of (output, trace) instead: :mod:`exactdp.audit.timing`.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

__all__ = ["Event", "active", "collect", "pause", "paused", "record", "recording", "resume"]

Event = tuple[object, ...]

_EVENTS: ContextVar[list[Event] | None] = ContextVar("exactdp_trace", default=None)


def record(*event: object) -> None:
    """Append ``event`` to the active trace, if any."""
    events = _EVENTS.get()
    if events is not None:
        events.append(event)


#: ``active()``: the active trace (append events to it), or None -- for loops that record one
#: event per round and read the context variable once instead of once per round.  The
#: context variable's own ``get`` (no Python frame: samplers call it once per draw).
active: Callable[[], list[Event] | None] = _EVENTS.get


@contextmanager
def recording() -> Iterator[list[Event]]:
    """Collect the events recorded inside the ``with`` block into the yielded list."""
    events: list[Event] = []
    token = _EVENTS.set(events)
    try:
        yield events
    finally:
        _EVENTS.reset(token)


@contextmanager
def paused() -> Iterator[None]:
    """Record nothing inside the ``with`` block (work done for a draw that is not part of
    what the traced code did, such as branching on a facade value's comparisons)."""
    token = _EVENTS.set(None)
    try:
        yield
    finally:
        _EVENTS.reset(token)


def pause() -> Token[list[Event] | None]:
    """:func:`paused` without a ``with`` block: record nothing until :func:`resume` is
    called with the token returned (in a ``finally``)."""
    return _EVENTS.set(None)


#: ``collect(events)``: :func:`recording` without a ``with`` block -- the events recorded
#: are appended to the list ``events`` until :func:`resume` is called with the token
#: returned (in a ``finally``); the context variable's own ``set`` (no Python frame: called
#: once per explored path).
collect: Callable[[list[Event] | None], Token[list[Event] | None]] = _EVENTS.set
#: ``resume(token)``: end a :func:`collect` or :func:`pause` (the context variable's own
#: ``reset``).
resume: Callable[[Token[list[Event] | None]], None] = _EVENTS.reset
