"""A counted run of the audited code: the operation count of :mod:`exactdp.audit.bytecode`
set around it, with recorders of its sleep, clock and output calls.

:class:`Counting` is the set-up, made once and entered for every run (:meth:`Counting.run`);
inside :meth:`Counting.held` (the runs of one exploration) the recorders stay in place from
one run to the next, and each run checks that they still are (the audited code may replace
``time.sleep``).  :func:`counting` counts one block.
"""

from __future__ import annotations

import builtins
import gc
import operator
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from types import ModuleType
from typing import Any

from exactdp.audit.bytecode import _IDENTICAL, CLOCKS, Counter, gettrace, settrace

__all__ = ["Counting", "counting"]


def _exact(value: Any) -> Any:
    """A sleep argument as an exact value where it is a number (a float is exact)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        try:
            return Fraction(value)
        except (ValueError, OverflowError):
            return repr(value)
    return repr(value)


def _recorder(counter: Counter, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        if counter.audited(sys._getframe(1)):
            counter.calls.append((name,))
        return fn(*args, **kwargs)
    return recorded


_is = operator.is_
#: the patched functions of :mod:`time` (sleep and the clocks), read in one call
_TIME_FUNCTIONS = operator.attrgetter("sleep", *CLOCKS)
#: the patched objects among :meth:`Counting._current`'s values (not the bound methods)
_PATCHED = operator.itemgetter(*range(len(CLOCKS) + 3), len(CLOCKS) + 4)


class Counting:
    """The set-up of :func:`counting`, made once and entered for every run (:meth:`run`):
    the recorders of the sleep/clock/output functions and the per-code-object trace
    functions are built on the first run and kept while the functions they stand for are
    the same objects (a changed ``sys.stdout`` or ``time.sleep`` builds them again).

    Inside :meth:`held` (the runs of one exploration), the recorders of the ``time``,
    ``builtins`` and ``sys`` functions stay in place from one run to the next instead of
    being set and put back around each run: a run finding them all still in place (by
    identity) sets nothing; one finding any replaced puts every original back first, as
    the end of a run outside :meth:`held` does, and sets them again.  The originals are put
    back when the block ends.  (The recorders record only calls from the audited code's
    frames: exactdp's own code between two runs calls through them unrecorded.)  Code
    whose module globals hold these functions (``globals_of``) is patched per run, as
    outside :meth:`held`."""

    def __init__(self, globals_of: Any = None, detail: bool = False,
                 native: bool | None = None) -> None:
        self.globals_of = globals_of
        self.counter = Counter(detail, native)
        #: inside :meth:`held`; and whether the recorders are in place from an earlier run
        self._hold = False
        self._installed = False
        #: the patches and the originals grouped per module: ``(module dict, {name: value})``
        self._set: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self._unset: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self._set_of: Any = None  # the patches grouped in _set
        #: ``(object, getter of its patched names, the recorders expected there)``
        self._readers: list[tuple[Any, Callable[[Any], Any], tuple[Any, ...]]] = []
        #: the same as ``(module dict, names, recorders)`` per module, for the C check
        self._groups: tuple[tuple[dict[str, Any], tuple[str, ...], tuple[Any, ...]], ...] \
            | None = None
        self._key: tuple[Any, ...] | None = None
        self._patches: list[tuple[Any, str, Any]] = []
        self._originals: dict[int, Any] = {}
        #: the patched attributes' values when the recorders were built, in patch order
        #: (what a run puts back while :meth:`_current` finds the same objects)
        self._restore: list[tuple[Any, str, Any]] = []

    def _build(self) -> None:
        counter = self.counter
        real_sleep = time.sleep

        def sleep(*args: Any, **kwargs: Any) -> None:
            if not counter.audited(sys._getframe(1)):
                real_sleep(*args, **kwargs)
                return
            counter.calls.append(("sleep", *(_exact(a) for a in args)))
            real_sleep(*args, **kwargs)  # as the code runs (a sleep past --time-limit hangs)

        patches: list[tuple[Any, str, Any]] = [(time, "sleep", sleep)]
        patches += [(time, n, _recorder(counter, n, getattr(time, n))) for n in CLOCKS]
        patches.append((builtins, "print", _recorder(counter, "print", builtins.print)))
        for stream in ("stdout", "stderr"):
            s = getattr(sys, stream)
            write = getattr(s, "write", None)
            if write is not None:
                patches.append((sys, stream, _Stream(s, _recorder(counter, f"{stream}.write",
                                                                   write))))
        self._originals = {id(getattr(obj, name)): value for obj, name, value in patches}
        self._restore = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
        self._patches = patches
        self._set, self._unset = _grouped(patches), _grouped(self._restore)
        self._set_of = patches
        # per patched module, one getter of its patched names read from its dict (a
        # module's attribute is its dict's item), called once per run; an object that is
        # not a module: its attributes
        readers: list[tuple[Any, Callable[[Any], Any], tuple[Any, ...]]] = []
        groups = []  # the same per module, as its dict, names and recorders: the C check
        at = 0
        for obj, names in _names(patches):
            values = tuple(value for _, _, value in patches[at:at + len(names)])
            at += len(names)
            module = type(obj) is ModuleType  # (a subclass may define __getattr__)
            space = vars(obj) if module else obj
            if module:
                groups.append((space, tuple(names), values))
            if len(names) == 1:  # (a getter of one name gives the value, not a tuple)
                names, values = names * 2, values * 2
            read = operator.itemgetter if module else operator.attrgetter
            readers.append((space, read(*names), values))
        self._readers = readers
        # the same check in one C call where every patched object is a module
        self._groups = tuple(groups) if _IDENTICAL is not None and \
            len(groups) == len(readers) else None

    def _intact(self) -> bool:
        """Whether every recorder is still in place (by identity; once per run)."""
        if self._groups is not None:
            return bool(_IDENTICAL(self._groups))  # type: ignore[misc]  # (set with it)
        try:
            for space, get, expected in self._readers:
                if not all(map(_is, get(space), expected)):
                    return False
        except (KeyError, AttributeError):  # one deleted: not in place
            return False
        return True

    def held(self) -> _Held:
        """A context manager: the recorders stay in place between the runs inside it (see
        the class); every original is put back on exit, errors and interrupts included."""
        return _Held(self)

    def _release(self) -> None:
        """Put every original back (the recorders were left in place by a held run)."""
        self._installed = False
        if self._unset:
            for space, values in self._unset:
                space.update(values)
        else:
            for obj, name, value in self._restore:
                setattr(obj, name, value)

    def _current(self) -> tuple[Any, ...]:
        """What the recorders stand for: rebuilt when one of these changed."""
        return (*_TIME_FUNCTIONS(time), builtins.print, sys.stdout,
                getattr(sys.stdout, "write", None), sys.stderr,
                getattr(sys.stderr, "write", None))

    def _changed(self, key: tuple[Any, ...]) -> bool:
        """Whether ``key`` (:meth:`_current`) differs from the recorders' one: the patched
        objects by identity (what a run puts back must be the very object it found), the
        streams' bound ``write`` methods (made afresh on each access) by equality."""
        old = self._key
        return old is None or key != old \
            or not all(map(operator.is_, _PATCHED(key), _PATCHED(old)))

    def run(self, armed: bool = True) -> _Run:
        """Count one run (see :func:`counting`): a context manager whose value is the
        counter, reset on entry.  ``armed=False``: the block's code is not traced; only the
        calls made through the counter's :meth:`Counter.traced_call` are counted."""
        return _Run(self, armed)

    def _enter(self, run: _Run) -> Counter:
        run.old = gettrace()  # (first: what a failure below puts back)
        if self._installed:  # a held run after another whose recorders are not all in
            # place (those that are: _Run.__enter__)
            self._release()  # one was replaced: the originals back, as after a run
        key = self._current()
        if self._changed(key):
            self._build()
            self._key = key
        counter = self.counter
        counter.reset()
        patches = self._patches
        module = getattr(self.globals_of, "__globals__", None)
        # no cyclic garbage collection inside the count: a collection runs finalizers
        # (``__del__``, weakref callbacks) of earlier objects in the middle of the audited
        # frame, which would count as its own operations and differ from one run of the
        # same path to the next
        run.collecting = gc.isenabled()
        gc.disable()
        if not isinstance(module, dict):
            # the patched attributes hold the objects read when the recorders were built
            # (:meth:`_changed`): those are what the run puts back (held: the block's end)
            run.plain = True
            if self._hold:
                self._installed = True  # (first: a failure below puts them back too)
            else:
                run.saved = self._restore
            if self._set and self._set_of is patches:  # (the modules' dicts, one update each)
                for space, values in self._set:
                    space.update(values)
            else:
                for obj, name, value in patches:
                    setattr(obj, name, value)
        else:
            originals = self._originals
            patches = patches + [(module, k, originals[id(v)]) for k, v in list(module.items())
                                 if id(v) in originals and callable(v)]
            saved = run.saved
            for obj, name, value in patches:
                if isinstance(obj, dict):
                    saved.append((obj, name, obj[name]))
                    obj[name] = value
                else:
                    saved.append((obj, name, getattr(obj, name)))
                    setattr(obj, name, value)
        settrace(counter.trace if run.armed else None)
        return counter


def _grouped(patches: list[tuple[Any, str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``patches`` as ``(module dict, {name: value})`` per module, in order of first
    appearance -- setting a module's attribute is setting its dict's item -- or ``[]``
    when one of the objects is not a module or a name is patched twice."""
    groups: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    for obj, name, value in patches:
        if type(obj) is not ModuleType:  # (a subclass may define __setattr__)
            return []
        values = groups.setdefault(id(obj), (vars(obj), {}))[1]
        if name in values:
            return []
        values[name] = value
    return list(groups.values())


def _names(patches: list[tuple[Any, str, Any]]) -> list[tuple[Any, list[str]]]:
    """The patched names per object, in patch order (consecutive runs of one object)."""
    out: list[tuple[Any, list[str]]] = []
    for obj, name, _ in patches:
        if out and out[-1][0] is obj:
            out[-1][1].append(name)
        else:
            out.append((obj, [name]))
    return out


class _Held:
    """:meth:`Counting.held`'s context manager."""

    __slots__ = ("counting", "outer")

    def __init__(self, counting: Counting) -> None:
        self.counting = counting
        self.outer = False

    def __enter__(self) -> None:
        self.outer = self.counting._hold
        self.counting._hold = True

    def __exit__(self, *exc: object) -> None:
        counting = self.counting
        if self.outer:
            return
        counting._hold = False
        if counting._installed:
            counting._release()


class _Run:
    """One run of a :class:`Counting` (its :meth:`~Counting.run`): the patches and the
    trace function set on entry, everything restored on exit, errors and interrupts
    included (a failure half-way through the set-up too).  (A class rather than a
    generator: entered once per explored path.)"""

    __slots__ = ("armed", "collecting", "counting", "old", "plain", "saved")

    def __init__(self, counting: Counting, armed: bool) -> None:
        self.counting, self.armed = counting, armed
        self.saved: list[tuple[Any, str, Any]] = []
        self.old: Any = None
        self.collecting = False
        #: the saved values are attributes, each once (put back in any order)
        self.plain = False

    def __enter__(self) -> Counter:
        counting = self.counting
        try:
            if counting._installed:  # a held run after another: the recorders are in
                self.old = gettrace()  # place (by identity), nothing to set (once per path)
                if counting._intact():
                    counter = counting.counter
                    counter.reset()
                    self.collecting = gc.isenabled()
                    gc.disable()
                    self.plain = True  # self.saved is empty: nothing to put back on exit
                    settrace(counter.trace if self.armed else None)
                    return counter
            return counting._enter(self)
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __exit__(self, *exc: object) -> None:
        settrace(self.old)
        if self.collecting:
            gc.enable()
        if self.plain:
            for obj, name, value in self.saved:
                setattr(obj, name, value)
        else:
            for obj, name, value in reversed(self.saved):
                if isinstance(obj, dict):
                    obj[name] = value
                else:
                    setattr(obj, name, value)
        self.saved = []  # (not cleared: it may be the counting's list of originals)


@contextmanager
def counting(globals_of: Any = None) -> Iterator[Counter]:
    """Count the bytecode of non-exactdp frames and record sleep/clock/output calls inside
    the block.  ``globals_of``: a function whose module globals that are bound to the
    patched functions (``from time import sleep``) are patched too.  Everything is restored
    on exit, errors and interrupts included.  (:class:`Counting` keeps the set-up for many
    runs.)"""
    with Counting(globals_of).run() as counter:
        yield counter


class _Stream:
    """A stream whose ``write`` is recorded; everything else is the stream's."""

    def __init__(self, stream: Any, write: Callable[..., Any]) -> None:
        self._stream, self.write = stream, write

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
