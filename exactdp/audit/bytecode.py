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

import dis
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["CLOCKS", "NOT_COVERED", "Counter", "available", "gettrace",
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
#: The C check of :meth:`~exactdp.audit.counted_runs.Counting._intact` (None: an older
#: build without it, or no C module; the same check in Python)
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

    One counter serves every run of a :class:`~exactdp.audit.counted_runs.Counting` (its
    per-code-object trace functions are made once); :meth:`reset` starts a run's count and
    calls afresh.
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
        :meth:`~exactdp.audit.counted_runs.Counting.run` with ``armed=False``), so that the
        code around it -- the guard's time limit, the output's checks -- runs without a trace
        event per frame."""
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
