"""Calling audited code safely: time limits, failures turned into findings, outcome checks.

Everything the audit learns about a third party's code comes through :class:`Guard`: one
call of the code under a time limit, every exception it raises (``SystemExit`` included:
``sys.exit(0)`` inside a sampler must not end the audit with status 0) turned into a
:class:`Finding`, and the returned value checked by :func:`check_outcome`.  Only
``KeyboardInterrupt`` passes through untouched: Ctrl-C is the user's, not a finding.

Time limits are signal-based (``SIGALRM`` through :func:`signal.setitimer`).  Why not a
subprocess: an audit calls the code up to millions of times (a process per call is far too
slow) and a third party's callable (a closure, a bound method of a native library object)
usually cannot be pickled into another process.  The price: the limit is enforced only in
the main thread, and a hang inside native code that never returns to the interpreter is
interrupted only when it does return (the elapsed time is still measured after the call).
"""

from __future__ import annotations

import _signal
import numbers
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import FrameType
from typing import Any

from exactdp.audit.facade_floats import exact_outcome
from exactdp.audit.outcomes import NONE as _NONE
from exactdp.audit.outcomes import observed
from exactdp.certificate import exact_json
from exactdp.explore import ExplorationLimitError, NondeterminismError

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "Abort",
    "Finding",
    "Guard",
    "Progress",
    "Timeout",
    "alarm_handler",
    "as_int",
    "check_observed",
    "check_outcome",
    "describe",
    "elapsed",
    "exception_text",
    "only_none",
    "plain_observed",
    "say",
    "show",
    "time_limit",
]

#: Default limit, in whole seconds, on one call of the audited code (and on its import).
DEFAULT_TIME_LIMIT = 10

Progress = Callable[[str], None] | None
#: bound once: while audited code runs, ``time.monotonic_ns`` is a guard (and a recorder)
_now = time.monotonic_ns


@dataclass(frozen=True)
class Finding:
    """Something wrong with the audited code itself (it raised, hung, left its range...)."""

    kind: str
    message: str
    witness: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "witness": exact_json(self.witness)}


class Abort(BaseException):
    """Stops an audit at a faulty call.  A BaseException, so that the audited code's own
    ``except Exception`` cannot swallow it."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


class Timeout(BaseException):
    """Raised by the alarm inside the audited code (a BaseException for the same reason)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    clock = _CLOCK[0]
    if clock is None:
        if _HELD[0]:  # a time limit of its own holds the timer (:class:`_TimeLimit`)
            raise Timeout
        return  # the late alarm of a timer already cancelled: no call runs under it
    clock.expired()


class _Clock:
    """The timer of an exploration (:class:`alarm_handler`), started once and not per call:
    the time limits inside it (:class:`_TimeLimit`) only note when their call began
    (``start``), and the alarm, when it fires, interrupts a call that has run its limit
    (:class:`Timeout`, then again every second, as a per-call timer does) or else sets
    itself for the rest of the current call's limit (a whole number of seconds, rounded up:
    a call is interrupted at most a second after its limit) or for a full limit when no
    call runs.  ``due``: when the timer should fire next; a call that begins a tenth of a
    second past it finds the timer cancelled or changed (by the audited code) and sets it
    again."""

    __slots__ = ("closed", "due", "ident", "limit", "seconds", "start")

    def __init__(self, seconds: int, ident: int) -> None:
        self.seconds, self.ident = seconds, ident
        self.limit = seconds * 10**9
        self.start: int | None = None
        self.due = 0
        #: the block is ending: an alarm landing now neither interrupts nor sets the timer
        self.closed = False

    def arm(self, now: int, seconds: int, interval: int = 0) -> None:
        """Fire in ``seconds`` (then every ``interval``)."""
        self.due = now + seconds * 10**9
        _signal.setitimer(_REAL, seconds, interval)

    def expired(self) -> None:
        """The alarm fired: interrupt the current call past its limit, else set it again."""
        if self.closed:
            return
        now = _now()
        start = self.start
        if start is not None and now - start >= self.limit:
            self.arm(now, 1, 1)  # again every second while the code catches it
            raise Timeout
        left = self.limit if start is None else start + self.limit - now
        self.arm(now, -(-left // 10**9))

    def resume(self, now: int) -> None:
        """Set the timer again after a time limit of its own held it (:class:`_TimeLimit`),
        for the rest of the current call's limit (at least a second) or a full limit."""
        start = self.start
        left = self.limit if start is None else start + self.limit - now
        self.arm(now, max(1, -(-left // 10**9)))

    def begin(self, now: int) -> int | None:
        """A call begins at ``now``: the start before it (a call inside a call) is
        returned, to be put back at its end."""
        if now > self.due + _LATE:  # the timer did not fire when due: set it again
            self.arm(now, self.seconds)
        before = self.start
        self.start = now
        return before


#: how late (ns) a timer may fire before a call that begins finds it cancelled
_LATE = 10**8
#: the clock of the exploration running in the main thread (:class:`alarm_handler`), if any
_CLOCK: list[_Clock | None] = [None]
#: how many time limits of their own (:class:`_TimeLimit`) hold the timer now: an alarm
#: with neither them nor a clock is one that the system delivered after its timer was
#: cancelled (a signal is handled between two instructions, not when it arrives), and
#: interrupts nothing
_HELD = [0]


def time_limit(seconds: int | None) -> _TimeLimit:
    """Raise :class:`Timeout` in the block after ``seconds`` (main thread, POSIX only).

    The alarm repeats every second after the first expiry, so that code which catches
    the first :class:`Timeout` (an ``except BaseException``) is interrupted again.
    """
    return _TimeLimit(seconds)


class _TimeLimit:
    """:func:`time_limit`'s context manager (a class rather than a generator: entered
    around every call of the audited code)."""

    __slots__ = ("before", "old", "seconds", "suspended")

    def __init__(self, seconds: int | None) -> None:
        self.seconds = seconds
        self.old: Any = _OFF
        self.before: int | None = None
        self.suspended: _Clock | None = None

    def __enter__(self) -> None:
        clock = _CLOCK[0]
        if clock is not None and self.seconds == clock.seconds and \
                _get_ident() == clock.ident and _signal.getsignal(_ALARM) is _on_alarm:
            # inside an exploration: its timer runs; only this call's start is noted
            self.before = clock.begin(_now())
            self.old = clock
            return
        if not self.seconds or not _ITIMER or _get_ident() != _main_ident():
            return
        # (signal's C functions: the handlers as they are, without signal.signal's
        # conversion of each to an enum, which costs more than the rest of a short call;
        # the handler is set only when it is not already: :func:`alarm_handler`)
        self.old = _KEPT if _signal.getsignal(_ALARM) is _on_alarm \
            else _signal.signal(_ALARM, _on_alarm)
        if clock is not None:  # an exploration's clock (another limit, or its handler
            # replaced): suspended while this limit holds the timer (any alarm interrupts)
            self.suspended, _CLOCK[0] = clock, None
        _HELD[0] += 1
        _signal.setitimer(_REAL, self.seconds, 1)

    def __exit__(self, *exc: object) -> None:
        old = self.old
        if old is _OFF:
            return
        if type(old) is _Clock:
            old.start = self.before
            return
        _HELD[0] -= 1  # (first: an alarm landing from here on interrupts nothing)
        while True:  # an alarm may land here: cancel the timer before anything else
            try:
                _signal.setitimer(_REAL, 0)
                break
            except Timeout:
                continue
        if self.old is not _KEPT:
            _signal.signal(_ALARM, self.old)
        clock = self.suspended
        if clock is not None:  # the exploration's clock back, its timer set again
            self.suspended, _CLOCK[0] = None, clock
            clock.resume(_now())


class alarm_handler:
    """Keep :func:`time_limit`'s alarm handler installed for the block (the main thread
    only, with a limit) and its timer running (a :class:`_Clock`), so that the time limits
    of ``seconds`` inside it -- one per call of the audited code, many thousands in an
    exploration -- neither start nor cancel a timer: they note when their call began, and
    the alarm interrupts a call past its limit.  The timer is cancelled and the handler
    before is put back on exit."""

    __slots__ = ("clock", "old", "seconds")

    def __init__(self, seconds: int | None) -> None:
        self.seconds = seconds
        self.old: Any = _OFF
        self.clock: _Clock | None = None

    def __enter__(self) -> None:
        if not self.seconds or not _ITIMER or _get_ident() != _main_ident() \
                or _CLOCK[0] is not None:
            return
        if _signal.getsignal(_ALARM) is not _on_alarm:
            self.old = _signal.signal(_ALARM, _on_alarm)
        clock = self.clock = _Clock(self.seconds, _get_ident())
        _CLOCK[0] = clock  # (first: the handler reads it)
        clock.arm(_now(), self.seconds)

    def __exit__(self, *exc: object) -> None:
        clock = self.clock
        if clock is not None:
            clock.closed = True  # (first: an alarm landing below does nothing)
            while True:  # an alarm may land here: cancel the timer before anything else
                try:
                    _signal.setitimer(_REAL, 0)
                    break
                except Timeout:
                    continue
            _CLOCK[0] = self.clock = None
        if self.old is not _OFF:
            _signal.signal(_ALARM, self.old)
            self.old = _OFF


def _main_ident() -> int | None:
    return threading.main_thread().ident


_get_ident = threading.get_ident
_getsignal = _signal.getsignal
_OFF = object()
_KEPT = object()  # the handler was already set: the limit's exit leaves it
_ITIMER = hasattr(signal, "setitimer")
_ALARM = int(getattr(signal, "SIGALRM", 14))
_REAL = int(getattr(signal, "ITIMER_REAL", 0))


def show(value: object, limit: int = 80) -> str:
    """A short, safe rendering of a value the audited code produced, for one-line messages:
    a huge int by its size, a long repr cut, a raising ``__repr__`` by its type."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"<int of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a third party's __repr__ may raise anything
        return f"<{type(value).__name__} whose repr raised>"
    text = text.replace("\n", " ")
    return text if len(text) <= limit else f"{text[:limit - 20]}...({len(text)} chars)"


def describe(obj: object) -> str:
    """A name for the audited object: its ``description`` string, else module.qualname."""
    try:
        description = getattr(obj, "description", None)
        if isinstance(description, str):
            return show(description, 400)
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        module = getattr(obj, "__module__", None)
        if isinstance(name, str) and isinstance(module, str):
            return f"{module}.{name}"
    except Exception:  # noqa: BLE001, S110 - a raising property: fall back to the type
        pass
    return show(obj, 200)


#: Outcome types an audit can count exactly: hashing and comparing them is safe and
#: exact.  Tuples and frozensets of them are accepted too.
_ATOMS = (int, str, bytes, Fraction)


#: the types :func:`_plain` returns as they are (an item of one: no call)
_SIMPLE = frozenset({int, bool, str})


def _plain(value: object, depth: int = 0) -> object:
    """``value`` as a plain exact outcome (ints normalised), or raise TypeError.

    Code as written returns more than that; each is converted to what it exactly is:
    numpy scalars to ints/bools, a finite float to its exact rational value (two outputs
    are then one outcome exactly when they are equal as numbers: ``0.5`` and ``1/2`` are
    one outcome, ``-0.0`` and ``0.0`` too), a list or numpy array to the tuple of its
    items (nested lists to nested tuples), a dict to the tuple of its ``(key, value)``
    pairs in their order.  ``None`` is itself (a bottom value: "no answer").  nan,
    infinities and anything else raise.  The type an observer sees is kept apart by
    :func:`exactdp.audit.outcomes.observed` (:func:`check_observed`)."""
    kind = type(value)  # (the commonest outcomes first, by their exact type)
    if kind is int or kind is bool or kind is str or value is None:
        return value
    if (kind is tuple or kind is list) and depth < 8 and len(value) <= 1000:  # type: ignore[arg-type]
        return tuple([v if type(v) in _SIMPLE or v is None else _plain(v, depth + 1)
                      for v in value])  # type: ignore[attr-defined]
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, numbers.Real):  # floats, numpy floats: their exact value
        exact = exact_outcome(value)
        if exact is None:
            raise TypeError(f"{type(value).__name__} {show(value)}")
        return exact
    if type(value).__module__ == "numpy":  # numpy bools and arrays, by their Python values
        listed = getattr(value, "tolist", None)
        if listed is not None and depth < 8 and getattr(value, "size", 0) <= 1000:
            return _plain(listed(), depth)
    if isinstance(value, list) and depth < 8 and len(value) <= 1000:
        return tuple(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict) and depth < 8 and len(value) <= 1000:
        return tuple((_plain(k, depth + 1), _plain(v, depth + 1)) for k, v in value.items())
    if isinstance(value, (tuple, frozenset)) and depth < 8 and len(value) <= 1000:
        items = [_plain(v, depth + 1) for v in value]
        return tuple(items) if isinstance(value, tuple) else frozenset(items)
    raise TypeError(type(value).__name__)


def check_outcome(value: object, allowed: range | frozenset[Any] | None, call: str,
                  witness: Mapping[str, Any], where: str | Callable[[], str] = "") -> Any:
    """Validate one value the audited code returned; return it normalised.

    An outcome must be an exact, safely hashable value: an int, a string, bytes, a
    Fraction, a bool, ``None``, or a tuple/frozenset of these; a finite float, a list, a
    dict or a numpy array or scalar counts as its exact value (:func:`_plain`).  Everything
    else is garbage for an audit and stops it with a ``bad_output`` finding: ``nan`` (not
    even equal to itself) or an infinity, an object whose ``__hash__`` or ``__eq__`` may do
    anything.  ``None`` is an outcome ("no answer", as an above-threshold query returns
    when no query is above; a forgotten ``return`` is caught by :func:`only_none`).  When
    ``allowed`` (the declared outputs) is given, the value must lie in it
    (``out_of_range`` otherwise); an int range takes ints only (``True`` is not the
    outcome 1).  ``where``: said after an ``out_of_range`` message (a function: called
    only then).
    """
    try:
        plain = _plain(value)
    except TypeError:
        what = f"{call} returned {show(value)}"
        raise Abort(Finding(
            "bad_output", f"{what} of type {type(value).__name__}; outcomes must be exact "
            f"values: ints, strings, bytes, Fractions, bools, None, finite floats (their "
            f"exact value) or tuples/lists/dicts of these"
            + (" (nan and infinities have no exact value)"
               if isinstance(value, numbers.Number) else ""),
            dict(witness))) from None
    if allowed is None:
        return plain
    if isinstance(allowed, range):
        if isinstance(plain, bool) or not isinstance(plain, int):
            what = f"{call} returned {show(value)}"
            raise Abort(Finding("bad_output", f"{what} of type {type(value).__name__}, not an "
                                f"int; the declared outputs are {_declared(allowed)}",
                                dict(witness)))
        ok = plain in allowed
    else:
        ok = plain in allowed and (not isinstance(plain, bool) or any(
            isinstance(a, bool) and a is plain for a in allowed))
    if not ok:
        what = f"{call} returned {show(value)}"
        raise Abort(Finding("out_of_range", f"{what}, outside the declared outputs "
                            f"{_declared(allowed)}{where() if callable(where) else where}",
                            {**witness, "value": plain}))
    return plain


def check_observed(value: object, allowed: range | frozenset[Any] | None, call: str,
                   witness: Mapping[str, Any], where: str | Callable[[], str] = "",
                   memo: dict[Any, Any] | None = None) -> Any:
    """:func:`check_outcome`, then the outcome as an observer tells it apart: its type
    kept with its value (:func:`exactdp.audit.outcomes.observed`: ``0.0`` is not ``0``,
    ``[1]`` is not ``(1,)``).  The key of an audit's law.  ``memo``: as
    :func:`plain_observed`'s (one input's runs)."""
    if allowed is None:
        plain = plain_observed(value, memo)
        if plain is not SLOW:
            return plain
    check_outcome(value, allowed, call, witness, where)
    return observed(value)


#: :func:`plain_observed`'s answer for an output that needs :func:`check_outcome`
SLOW = object()
#: how many outcomes one memo of :func:`plain_observed` keeps
MEMO_SIZE = 4096


def plain_observed(value: object, memo: dict[Any, Any] | None = None) -> Any:
    """:func:`~exactdp.audit.outcomes.observed` of an output that :func:`check_outcome`
    accepts as it is when no outputs are declared -- an ``int``, ``bool`` or ``str``, or a
    list or tuple of at most 1000 of them -- else :data:`SLOW`.  ``memo`` (one input's
    runs): a list's or tuple's outcome kept by its type, its items' types and its items,
    and given again for an equal output -- the same object, whose hash is made once and
    which compares equal to itself at once (``[True]`` and ``[1]`` differ in their items'
    types; at most :data:`MEMO_SIZE` kept)."""
    kind = type(value)
    if kind in _SIMPLE:
        return observed(value)
    items: Any = value
    if (kind is not list and kind is not tuple) or len(items) > 1000:
        return SLOW
    types = tuple(map(type, items))
    if not _SIMPLE.issuperset(types):
        return SLOW
    if memo is None:
        return observed(value)
    key = (kind, types, tuple(items))
    hit = memo.get(key)
    if hit is None:
        hit = observed(value)
        if len(memo) < MEMO_SIZE:
            memo[key] = hit
    return hit


def only_none(laws: Mapping[Any, Mapping[Any, Any]], call: str) -> None:
    """Stop the audit (``bad_output``) when every outcome on every input is ``None``: code
    whose only outcome is ``None`` lacks a ``return`` (``call``: how it is called, with
    ``{c}`` for the first input)."""
    if laws and all(law and all(o == _NONE for o in law) for law in laws.values()):
        first = next(iter(laws))
        raise Abort(Finding("bad_output", f"{call.format(c=show(first))} returned None on "
                            f"every input: None is an outcome, but never anything else "
                            f"(a missing return?)", {"c": first}))


def _declared(allowed: range | frozenset[Any]) -> str:
    if isinstance(allowed, range):
        return f"{show(allowed.start)}..{show(allowed.stop - 1)}"
    items = sorted(show(a, 20) for a in allowed)
    return "{" + ", ".join(items[:8]) + (", ...}" if len(items) > 8 else "}")


def exception_text(exc: BaseException) -> str:
    """``"TypeName: message"`` on one short line, even when ``str(exc)`` raises."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a third party's __str__ may raise anything
        text = "<message could not be rendered>"
    text = " ".join(text.split())
    if len(text) > 300:
        text = text[:280] + f"...({len(text)} chars)"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Guard:
    """Calls the audited code with a time limit and turns its failures into findings.

    ``watch`` (white-box audits: an :class:`exactdp.audit.escape.Watch`) is armed during
    each call: a call of an entropy source the audit does not model stops the audit, even
    when the code caught the :class:`Abort` it raised."""

    def __init__(self, time_limit: int | None, watch: Any = None) -> None:
        self.time_limit = time_limit
        self.watch = watch

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], what: str,
             witness: Mapping[str, Any], check: Callable[[Any], Any] | None = None) -> Any:
        """``fn(*args)``, then ``check(result)`` (inside the same time limit: a returned
        object's ``__hash__`` is the audited code's too)."""
        start = _now()
        watch = self.watch
        clock = _CLOCK[0]
        try:
            # (:func:`time_limit` written out: called once per run of an exploration)
            if clock is not None and clock.seconds == self.time_limit and \
                    _get_ident() == clock.ident and _getsignal(_ALARM) is _on_alarm:
                # inside an exploration: its timer runs; only this call's start is noted
                limit = None
                before = clock.begin(start)
            else:
                limit = _TimeLimit(self.time_limit)
                limit.__enter__()
            try:
                if watch is None:
                    result = fn(*args)
                else:
                    armed = watch.arm()
                    try:
                        result = fn(*args)
                    finally:
                        watch.disarm(armed)
                    watch.after_call()
                if check is not None:
                    result = check(result)
            finally:
                if limit is not None:
                    limit.__exit__(None, None, None)
                elif clock is not None:
                    clock.start = before
        except Timeout:
            raise Abort(Finding("timeout", f"{what} did not return within {self.time_limit} s "
                                f"(interrupted)", dict(witness))) from None
        except (KeyboardInterrupt, Abort, ExplorationLimitError, NondeterminismError):
            raise
        except BaseException as exc:  # noqa: BLE001 - the audited code's failure: report it
            if self.watch is not None:
                self.watch.check_call()  # an escape the code caught, then raised for
            # SystemExit too: sys.exit(0) in the audited code must not end the audit "OK".
            raise Abort(Finding("raised", f"{what} raised {exception_text(exc)}",
                                dict(witness))) from None
        if self.time_limit and _now() - start > self.time_limit * 10**9:  # (not interrupted)
            raise Abort(Finding("timeout", f"{what} took longer than {self.time_limit} s",
                                dict(witness)))
        return result


def as_int(value: object) -> int | None:
    """``value`` as an int if it is an integral number other than a bool, else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def say(progress: Progress, message: str) -> None:
    if progress is not None:
        progress(message)


def elapsed(start_ns: int) -> Fraction:
    return Fraction(time.monotonic_ns() - start_ns, 10**9)
