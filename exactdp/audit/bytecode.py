"""What audited code executes on one run: its bytecode count and its sleep/clock/IO calls.

A timing observer of a mechanism sees more than its output: how long it ran.  The white-box
audit of code drawing through a facade or an exactdp source counts, on every explored path,

* the **operations** -- loop iterations (executions of an instruction that a backward jump
  targets) and calls -- among the bytecode
  instructions executed in the audited code's own frames (every frame
  whose code does not belong to the ``exactdp`` package: the audited module, the modules it
  calls, the standard library), with :func:`sys.settrace`: per-frame opcode events
  (``frame.f_trace_opcodes``; Python 3.12+ could use :mod:`sys.monitoring`, the count is the
  same: one per instruction executed), or, where the rest of a line runs straight (no
  operation after an instruction that may leave it, :func:`_line_table`), one line event
  that counts the line's remaining operations at once (an exception raised mid-line takes
  back the ones after it) -- the same count with fewer events; only loop iterations and
  calls are compared (a
  branch of ``c if u < p else 1 - c`` is two instructions longer than the other, a
  difference below any timing observer's resolution that the operation count leaves out);
* its **calls of sleep, clock and output functions** (``time.sleep`` with its argument,
  ``time.time`` / ``monotonic`` / ``perf_counter`` / ``process_time`` and their ``_ns``
  forms, ``print``, ``sys.stdout.write`` / ``sys.stderr.write``), recorded in order
  (``time.sleep`` with its argument; it still sleeps).

The trace function is written twice, with the same rules: in C (``_ctrace.c``, an optional
extension for CPython 3.11: an event costs a C call, not a call of a Python function), used
where it was built (:func:`status`), and in Python (the functions below), used otherwise and
for the per-operation detail; the tests compare the two on every run of many programs.
Tracing is switched off and on around exactdp's own work with this module's
:func:`gettrace` / :func:`settrace` (``sys.settrace`` would put the C tracer back as a
Python-level one, which still counts the same, only slowly).

Not covered, and said so in every report that uses the count: the time one instruction
takes (a big-integer multiplication costs more with larger operands; the count does not
see operand sizes), C code (a C function such as ``math.log`` or a numpy routine counts
as the one instruction that calls it), and the calls made through names bound before the
audit started other than the target module's own globals (``from time import sleep`` in
the target's module is patched; an alias kept elsewhere is not).
"""

from __future__ import annotations

import builtins
import dis
import functools
import gc
import operator
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from types import FrameType, ModuleType
from typing import Any

__all__ = ["CLOCKS", "NOT_COVERED", "Counter", "Counting", "available", "counting", "gettrace",
           "settrace", "status", "suspended", "untraced"]

#: The exactdp package's directory: frames of code under it are not counted.
_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: (file, function) of the exactdp code that calls the audited code (and the wrappers of
#: :mod:`exactdp.audit.callforms`, all of whose functions do).
_ENTRIES = {("guard.py", "call"), ("facades.py", "invoke"), ("bytecode.py", "traced_call")}
#: The call instructions an operation count counts (with the first instruction of every
#: loop iteration: the target of a backward jump).
_CALLS = frozenset({"CALL", "CALL_FUNCTION_EX"})
#: Clock functions of :mod:`time` whose calls are recorded.
CLOCKS = ("time", "time_ns", "monotonic", "monotonic_ns", "perf_counter",
          "perf_counter_ns", "process_time", "process_time_ns")
#: What the count does not cover, for reports and help.
NOT_COVERED = ("big-integer operand sizes (one instruction whatever its operands' size) and "
               "the time spent in C code (a C call is the one instruction that makes it)")


def _load_native() -> tuple[Any, str]:
    """The C trace function (``_ctrace.c``) and its status line; ``(None, why)`` when
    disabled (``EXACTDP_NATIVE=0``), not built, or built for another Python."""
    from exactdp.native_library import load_module

    return load_module(__file__, "_ctrace", _NATIVE_VERSION)


_NATIVE_VERSION = 1
_C, _STATUS = _load_native()
#: The C check of :meth:`Counting._intact` (None: an older build without it, or no C
#: module; the same check in Python)
_IDENTICAL: Callable[[Any], bool] | None = getattr(_C, "identical", None)


def available() -> bool:
    """Whether the operation count runs as a C trace function (else the Python one: the
    same counts, more slowly)."""
    return _C is not None


def status() -> str:
    """Which operation count is in use, and why not the C one."""
    return _STATUS


if _C is not None:
    #: The trace function now, as :func:`settrace` puts it back (the C tracer's own
    #: functions: ``sys.settrace`` would put a C tracer back as a Python-level one).
    gettrace: Callable[[], Any] = _C.gettrace
    #: Tracing off (None), or what :func:`gettrace` gave back.
    settrace: Callable[[Any], Any] = _C.settrace
else:
    gettrace, settrace = sys.gettrace, sys.settrace


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


#: Caches per code object, by identity (two code objects of two files that compare equal
#: -- same name, line and instructions -- are two), holding the code object (its id is
#: not reused while it is cached).
_KINDS: dict[int, tuple[Any, str]] = {}
_OPS: dict[int, tuple[Any, frozenset[int]]] = {}


def _kind(code: Any) -> str:
    """``"own"`` (exactdp's), ``"entry"`` (exactdp code that calls the audited code),
    ``"with"`` (contextlib's) or ``"other"``; cached per code object."""
    hit = _KINDS.get(id(code))
    if hit is None or hit[0] is not code:
        path = os.path.abspath(code.co_filename)
        if path.startswith(_OWN):
            name = os.path.basename(path), code.co_name
            kind = "entry" if name in _ENTRIES or name[0] == "callforms.py" else "own"
        else:
            kind = "with" if os.path.basename(path) == "contextlib.py" else "other"
        hit = _KINDS[id(code)] = (code, kind)
    return hit[1]


def _operations(code: Any) -> frozenset[int]:
    """The offsets of ``code``'s calls and of its loops' first instructions (the targets of
    its backward jumps: one execution per iteration, whatever branch the body took);
    cached."""
    hit = _OPS.get(id(code))
    if hit is None or hit[0] is not code:
        found = set()
        for i in dis.get_instructions(code):
            if "BACKWARD" in i.opname:  # a loop's back edge: its target starts an iteration
                found.add(i.argval)
            elif i.opname in _CALLS:
                found.add(i.offset)
        hit = _OPS[id(code)] = (code, frozenset(found))
    return hit[1]


_LINES: dict[int, tuple[Any, dict[int, int] | None]] = {}
#: instructions after which control may not go on to the next one
_EXITS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "YIELD_VALUE", "SEND"})
_JUMPS = frozenset(dis.opname[o] for o in dis.hasjrel + dis.hasjabs)
#: code flags of generators and coroutines (resumed mid-line: always opcode events)
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200


def _line_table(code: Any) -> dict[int, int] | None:
    """Where a line event may stand for the opcode events of the rest of its line: for each
    offset ``o`` from which the rest of the run of same-line instructions (a *segment*) is
    *straight* -- no operation after an instruction that may leave the segment (a jump, a
    return, a raise), and no jump forward to an instruction of the same line (which would
    enter it without a line event) -- the number of operations in ``[o, end)``.  From such
    an offset every one of them is executed once before control leaves the segment (or an
    exception does: :meth:`Counter._tracer` takes back the ones after it), and leaving it
    gives a line event (another line, or a jump backward).  None: the code is counted by
    opcode events only (a generator or coroutine, which resumes mid-line; an operation
    without a line number).  Cached per code object."""
    hit = _LINES.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    table: dict[int, int] | None = {}
    ops = _operations(code)
    instrs = list(dis.get_instructions(code))
    lines = [i.positions.lineno if i.positions is not None else None for i in instrs]
    line_of = {i.offset: ln for i, ln in zip(instrs, lines, strict=True)}
    if code.co_flags & _RESUMABLE or any(
            i.offset in ops and ln is None for i, ln in zip(instrs, lines, strict=True)):
        table = None
    else:
        assert table is not None
        # backwards over the code: a jump forward reaches an offset already decided
        later_ops, straight = 0, True
        for j in range(len(instrs) - 1, -1, -1):
            ins, line = instrs[j], lines[j]
            if line is None:
                continue
            if j + 1 == len(instrs) or lines[j + 1] != line:  # the segment's last one
                later_ops, straight = 0, True
            leaves = ins.opname in _EXITS or ins.opname in _JUMPS
            if leaves and later_ops:
                straight = False  # the operations after it may be skipped
            if ins.opname in _JUMPS and ins.argval > ins.offset \
                    and line_of.get(ins.argval) == line and table.get(ins.argval) != 0:
                straight = False  # enters the line elsewhere without a line event
            if ins.offset in ops:
                later_ops += 1
            if straight:
                table[ins.offset] = later_ops
    _LINES[id(code)] = (code, table)
    return table


def _ops_after(code: Any, offset: int) -> int:
    """The operations of the segment holding ``offset`` after it (not executed when an
    exception leaves at ``offset``)."""
    table = _line_table(code)
    if not table or offset not in table:
        return 0
    ops = _operations(code)
    return table[offset] - (1 if offset in ops else 0)


#: The kinds of :func:`_kind` as the C tracer numbers them.
_KIND_NUMBERS = {"own": 0, "entry": 1, "with": 2, "other": 3}


def _describe(code: Any) -> tuple[int, int, bytes | None, list[int] | None]:
    """What the C tracer needs of ``code``: its kind, its mode (0: never counted, 1: by
    opcode events, 2: by line where :func:`_line_table` allows), and per code unit (offset
    ``2 i``) whether it is an operation and its line table's entry (-1: none)."""
    kind = _kind(code)
    if kind == "own":
        return 0, 0, None, None
    n = len(code.co_code) // 2
    flags = bytearray(n)
    for offset in _operations(code):
        flags[offset // 2] = 1
    table = _line_table(code)
    entries = [-1] * n
    for offset, later in (table or {}).items():
        entries[offset // 2] = later
    return _KIND_NUMBERS[kind], 1 if table is None else 2, bytes(flags), entries


def _forget() -> None:
    """Every code object described again (a test that changes the rules)."""
    _KINDS.clear()
    _OPS.clear()
    _LINES.clear()
    if _C is not None:
        _C.forget()


class Counter:
    """The operation count and the recorded calls of one run (see the module docstring).

    One counter serves every run of a :class:`Counting` (its per-code-object trace
    functions are made once); :meth:`reset` starts a run's count and calls afresh.
    ``native``: count with the C trace function (the default where it is available,
    except with ``detail``); False: with the Python trace functions (the same counts)."""

    def __init__(self, detail: bool = False, native: bool | None = None) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self._count = [0]
        #: with ``detail``: every operation counted, as ``(code, offset, line)`` in order
        #: (what :mod:`exactdp.audit.divergence` compares)
        self.detail: list[tuple[Any, int, int]] | None = [] if detail else None
        if native and (_C is None or detail):
            raise ValueError(f"native = True needs the C operation count without detail "
                             f"(C tracer: {_STATUS}; detail = {detail})")
        #: the C tracer (None: the Python trace functions count)
        self._c = _C.Tracer(_describe) if _C is not None and not detail \
            and native is not False else None
        #: what counts the audited code's frames, as :func:`settrace` takes it
        self.trace: Any = self._c if self._c is not None else self._global
        #: the local trace function of each audited code object, by code object identity
        #: (frames are recognised as audited by their f_trace being one of these)
        self._tracers: dict[int, tuple[Any, Callable[..., Any]]] = {}
        self._known: set[Any] = set()

    @property
    def native(self) -> bool:
        """Whether the C trace function counts."""
        return self._c is not None

    def reset(self) -> None:
        """A new run: no operation counted, no call recorded."""
        self.calls = []
        self._count[0] = 0
        if self._c is not None:
            self._c.count = 0
        if self.detail is not None:
            self.detail.clear()

    @property
    def operations(self) -> int:
        """Loop iterations (backward jumps) and calls executed by the audited code."""
        return self._c.count if self._c is not None else self._count[0]

    def _tracer(self, code: Any) -> Callable[..., Any]:
        hit = self._tracers.get(id(code))
        tracer = hit[1] if hit is not None and hit[0] is code else None
        if tracer is None:
            ops, count, detail = _operations(code), self._count, self.detail
            table = None if detail is not None else _line_table(code)
            if table is not None:
                get = table.get

                def tracer(frame: FrameType, event: str, arg: object) -> Callable[..., Any]:
                    if event == "opcode":
                        n = get(frame.f_lasti)
                        if n is not None:  # straight from here: the rest of the line at once
                            count[0] += n
                            frame.f_trace_opcodes = False
                        elif frame.f_lasti in ops:
                            count[0] += 1
                    elif event == "line":
                        n = get(frame.f_lasti)
                        if n is None:  # not straight from here: opcode events to the next line
                            frame.f_trace_opcodes = True
                        else:  # the rest of the line's operations, now
                            count[0] += n
                            frame.f_trace_opcodes = False
                    elif event == "exception" and not frame.f_trace_opcodes:
                        # the operations of the line after the instruction that raised were
                        # counted but not executed; opcode events until the next line
                        count[0] -= _ops_after(code, frame.f_lasti)
                        frame.f_trace_opcodes = True
                    return tracer
            elif detail is None:
                def tracer(frame: FrameType, event: str, arg: object) -> Callable[..., Any]:
                    if event == "opcode" and frame.f_lasti in ops:
                        count[0] += 1
                    return tracer
            else:
                def tracer(frame: FrameType, event: str, arg: object) -> Callable[..., Any]:
                    if event == "opcode" and frame.f_lasti in ops:
                        count[0] += 1
                        detail.append((code, frame.f_lasti, frame.f_lineno))
                    return tracer

            self._tracers[id(code)] = (code, tracer)
            self._known.add(tracer)
        return tracer

    def _global(self, frame: FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        """A frame is the audited code's when it is not exactdp's and its caller is the
        audited code's or the exactdp code that calls the audited code."""
        back = frame.f_back
        if back is None:
            return None
        code = frame.f_code
        if back.f_trace not in self._known:
            if _kind(back.f_code) != "entry" or _kind(code) != "other":
                return None
        elif _kind(code) == "own":
            return None
        # opcode events until the first line event (a lambda's body is on the line of its
        # first instruction: no line event may come); then by line where straight
        frame.f_trace_opcodes = True
        frame.f_trace_lines = self.detail is None and _line_table(code) is not None
        return self._tracer(code)

    def traced_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` counted: the trace function is set for this call alone (inside
        :meth:`Counting.run` with ``armed=False``), so that the code around it -- the
        guard's time limit, the output's checks -- runs without a trace event per frame."""
        old = gettrace()
        settrace(self.trace)
        try:
            return fn(*args)
        finally:
            settrace(old)

    def audited(self, frame: FrameType | None) -> bool:
        """Whether ``frame`` is the audited code's (its calls are recorded)."""
        if frame is None:
            return False
        if self._c is not None:
            return frame.f_trace is self._c
        return frame.f_trace in self._known

    def observed(self) -> tuple[int, tuple[tuple[Any, ...], ...]]:
        """``(operations, calls)``: the loop iterations and calls the audited code executed,
        and its sleep/clock/output calls -- what the timing verdict compares."""
        return self.operations, tuple(self.calls)


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
        at = 0
        for obj, names in _names(patches):
            values = tuple(value for _, _, value in patches[at:at + len(names)])
            at += len(names)
            space = vars(obj) if type(obj) is ModuleType else obj  # (a subclass may
            read = operator.itemgetter if space is not obj else operator.attrgetter  # differ)
            if len(names) == 1:  # (a getter of one name gives the value, not a tuple)
                names, values = names * 2, values * 2
            readers.append((space, read(*names), values))
        self._readers = readers
        # the same check in one C call where every patched object is a module
        self._groups = tuple((vars(obj), tuple(names), tuple(
            value for o, _, value in patches if o is obj)) for obj, names in _names(patches)) \
            if _IDENTICAL is not None and all(type(obj) is ModuleType for obj, _, _ in patches) \
            and len(_names(patches)) == len({id(obj) for obj, _, _ in patches}) else None

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


@contextmanager
def suspended() -> Iterator[None]:
    """Count nothing inside the block (work the audit does for a draw, such as a facade's
    probes re-running the code, is not the run's own); a no-op when nothing is counted."""
    old = gettrace()
    if old is None:
        yield
        return
    settrace(None)
    try:
        yield
    finally:
        settrace(old)


def untraced(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run with tracing off (exactdp code called by the audited code: a facade's
    draw is not the audited code's work, and its frames need no trace events)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        old = gettrace()
        if old is None:
            return fn(*args, **kwargs)
        settrace(None)
        try:
            return fn(*args, **kwargs)
        finally:
            settrace(old)

    return functools.wraps(fn)(run)
