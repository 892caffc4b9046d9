"""The C operation count (``exactdp/audit/_ctrace.c``) counts what the Python trace
functions count: the same operations and the same sleep/clock/output calls on every run, on
code of every shape (hypothesis), the same joint law of (output, trace) per input and the
same white-box reports; a trace function taken with ``sys.gettrace`` and put back with
``sys.settrace`` (code that toggles tracing) still counts; another tracer is put back
exactly; and the comparison fails on a C file with a planted bug."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import bytecode, whitebox_audit
from exactdp.audit.counted_runs import Counting
from exactdp.audit.facades import facade_mechanism
from exactdp.audit.guard import Abort, Guard
from exactdp.audit.inputs import parse_inputs
from exactdp.audit.per_input import explore_input
from tests._plant import build_planted_c
from tests.audit_targets import timing_targets as tt
from tests.test_audit_line_count import CASES, caught, with_blocks

pytestmark = pytest.mark.skipif(not bytecode.available(),
                                reason=f"C operation count: {bytecode.status()}")


def io_calls(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            time.sleep(0)
        elif i % 3 == 1:
            print(i)
        else:
            sys.stdout.write(str(time.monotonic_ns() * 0 + i))
        total += int(time.perf_counter() * 0)
    return total


def deep(n):
    if n == 0:
        raise ValueError(n)
    try:
        return deep(n - 1) + 1
    except ValueError:
        if n % 3:
            raise
        return -n


def raising(n):
    out = [deep(k) if k % 3 == 0 else 0 for k in range(n)]
    try:
        out.append(deep(n))
    except ValueError:
        out.append(len(out))
    return out


def toggles(n):
    """Code that takes the trace function off and puts it back itself."""
    old = sys.gettrace()
    sys.settrace(None)
    hidden = sum(range(n))
    sys.settrace(old)
    return [hidden + i for i in range(n) if i % 2]


def generators(n):
    def squares(k):
        for i in range(k):
            try:
                yield i * i
            finally:
                len("x")
    g = squares(n + 1)
    first = next(g, None)
    rest = [x for x in g if x % 2]
    return first, rest, sorted(range(n), key=lambda x: -x)


FUNCS = [*CASES, io_calls, raising, toggles, generators]


def observed(fn: Callable[..., Any], n: int, seed: int, native: bool) -> Any:
    args = (n % 2,) if fn is tt.cdf_walk else (n,)
    counting = Counting(None, native=native)
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(2):  # a second run: caches filled by the first (re, json) alike
            random.seed(seed)
            with counting.run() as counter, contextlib.suppress(Abort):  # raising: counted
                Guard(None).call(fn, args, "f", {})
    return counter.observed()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FUNCS), st.integers(0, 9), st.integers(0, 2**32))
def test_c_and_python_count_the_same(fn: Callable[..., Any], n: int, seed: int) -> None:
    python = observed(fn, n, seed, False)
    c = observed(fn, n, seed, True)
    assert c == python, (fn, n, c, python)


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: getattr(f, "__name__", "f"))
def test_c_and_python_count_the_same_on_every_shape(fn: Callable[..., Any]) -> None:
    counts = [(observed(fn, n, n, False), observed(fn, n, n, True)) for n in range(6)]
    assert all(a == b for a, b in counts), counts
    assert any(a[0] > 0 for a, _ in counts)
    if fn is io_calls:
        assert any(a[1] for a, _ in counts)  # the calls are recorded, by both


def _joint(mech: Any, c: Any, native: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as m:
        if not native:
            m.setattr(bytecode, "_C", None)
        explored = explore_input(mech, c, 0, 1, Guard(10), None, None, None, 1 << 16,
                                 1 << 20, 1 << 20, 1 << 30, None, None)
    return explored.traces


SVT = parse_inputs("vectors(3, 0..1, 1, linf)")
LOOP4, LOOP6 = tt.geometric_loop_for(4), tt.geometric_loop_for(6)
TARGETS = [
    ("loop", lambda: facade_mechanism(lambda c, rng: LOOP6(c), "random",
                                      patch_modules=[random]), (0, 3, 6)),
    ("cdf_walk", lambda: facade_mechanism(lambda c, rng: tt.cdf_walk(c), "random",
                                          patch_modules=[random]), (0, 1)),
    ("svt1_sym", lambda: facade_mechanism(tt.svt1_sym, "random"), SVT.inputs[:2]),
    ("svt_scan_all_sym", lambda: facade_mechanism(tt.svt_scan_all_sym, "random"),
     SVT.inputs[1:2]),
]


@pytest.mark.parametrize(("name", "make", "inputs"), TARGETS, ids=[t[0] for t in TARGETS])
def test_c_and_python_give_the_same_joint_law(name: str, make: Callable[[], Any],
                                              inputs: tuple[Any, ...],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    for c in inputs:
        python = _joint(make(), c, False, monkeypatch)
        native = _joint(make(), c, True, monkeypatch)
        assert native == python
        assert len({trace[1] for _, trace in python}) >= 1


def _report(mech: Any, native: bool, monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> Any:
    with monkeypatch.context() as m:
        if not native:
            m.setattr(bytecode, "_C", None)
        report = whitebox_audit(mech, claimed_epsilon=3, kind="source", **kwargs).to_json()
    for key in ("seconds", "environment", "elapsed_seconds"):
        report.pop(key, None)
    return report


def test_c_and_python_give_the_same_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [(lambda c, rng: tt.cdf_walk(c), range(2), "violation", False),
             (lambda c, rng: LOOP4(c), range(5), "violation", False),
             (lambda c, rng: tt.rr_plain(c), range(2), "pass", True)]
    for fn, inputs, verdict, same in cases:
        python = _report(facade_mechanism(fn, "random", patch_modules=[random]), False,
                         monkeypatch, inputs=inputs)
        native = _report(facade_mechanism(fn, "random", patch_modules=[random]), True,
                         monkeypatch, inputs=inputs)
        assert native == python
        assert python["verdict"] == verdict
        assert python["trace"]["same"] is same, python["trace"]


def test_another_trace_function_is_put_back_exactly() -> None:
    events: list[str] = []

    def other(frame: Any, event: str, arg: Any) -> None:
        events.append(event)

    old = sys.gettrace()
    sys.settrace(other)
    try:
        token = bytecode.gettrace()
        bytecode.settrace(None)
        assert sys.gettrace() is None
        bytecode.settrace(token)
        assert sys.gettrace() is other
    finally:
        sys.settrace(old)
    tracer = Counting(None).counter.trace
    bytecode.settrace(tracer)
    try:
        assert bytecode.gettrace() is tracer
    finally:
        bytecode.settrace(old)
    assert sys.gettrace() is old


def _build_planted(tmp_path: Path, old: str, new: str) -> Any:
    """``_ctrace.c`` with ``old`` replaced by ``new``, compiled and loaded (None: no
    compiler or headers here)."""
    target = build_planted_c(Path(bytecode.__file__).with_name("_ctrace.c"), tmp_path, old, new)
    if target is None:
        return None
    spec = importlib.util.spec_from_file_location("planted._ctrace", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("old", "new"), [
    ("self->count -= n - info->ops[i];", ";"),  # no take-back after an exception
    ("            else if (inside && info->ops[i]) {\n                self->count += 1;",
     "            else if (inside && info->ops[i]) {\n                self->count += 0;"),
    ("audited = info->kind != KIND_OWN;", "audited = info->kind == KIND_OTHER;"),
])
def test_planted_c_bug_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str,
                                 new: str) -> None:
    planted = _build_planted(tmp_path, old, new)
    if planted is None:
        pytest.skip("no C compiler or Python headers")
    monkeypatch.setattr(bytecode, "_C", planted)
    monkeypatch.setattr(bytecode, "gettrace", planted.gettrace)
    monkeypatch.setattr(bytecode, "settrace", planted.settrace)
    differ = [observed(fn, n, n, True) != observed(fn, n, n, False)
              for fn in (caught, with_blocks, tt.cdf_walk, raising, bytecode_user, generators)
              for n in range(6)]
    assert any(differ)


def bytecode_user(n):
    """Audited code calling code of contextlib (counted when called from audited code)."""
    total = 0
    for i in range(n):
        with contextlib.suppress(KeyError):
            total += {0: i}[i % 2]
    return total


class _EqualToAll:
    """A stream that says it equals every object (its ``__eq__`` must not hide it), with a
    ``write`` that is one object for every such stream."""

    written: ClassVar[list[str]] = []

    write = staticmethod(written.append)

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


def _writes(counting: Counting) -> Any:
    with counting.run() as counter:
        Guard(None).call(lambda: sys.stdout.write("x"), (), "f", {})
    return counter.observed()[1]


@pytest.mark.parametrize("planted", [False, True])
def test_a_run_puts_back_the_very_objects_it_found(planted: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run starts from what it finds and leaves it as found: what the audited code
    replaced is put back, a stream swapped between two runs is the one recorded and put
    back (even one that says it equals the old one); a planted key check by equality
    alone puts the old stream back."""
    if planted:
        monkeypatch.setattr(Counting, "_changed",
                            lambda self, key: self._key is None or key != self._key)
    counting = Counting(None)
    sleep = time.sleep
    with counting.run():
        time.sleep = print  # the audited code replacing a patched function
    assert time.sleep is sleep
    first, second = _EqualToAll(), _EqualToAll()
    with contextlib.redirect_stdout(first):  # type: ignore[type-var]
        assert _writes(counting) == (("stdout.write",),)
        assert sys.stdout is first
    with contextlib.redirect_stdout(second):  # type: ignore[type-var]
        assert _writes(counting) == (("stdout.write",),)
        swapped_back = sys.stdout
    assert (swapped_back is second) is not planted
    assert _EqualToAll.written[-2:] == ["x", "x"]


def test_a_failing_set_up_puts_everything_back(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(None)
    with counting.run():
        pass
    before = (time.sleep, time.time, sys.stdout, sys.gettrace())
    monkeypatch.setattr(counting, "_patches", [
        p if p[1] != "print" else (_Refusing(), "print", p[2]) for p in counting._patches])
    with pytest.raises(RuntimeError), counting.run():
        pass
    assert (time.sleep, time.time, sys.stdout, sys.gettrace()) == before


class _Refusing:
    """An object whose attribute cannot be set."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise RuntimeError(name)


def test_the_time_limit_interrupts_and_puts_the_handler_back() -> None:
    import signal

    from exactdp.audit.guard import Timeout, time_limit

    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(Timeout), time_limit(1):
        while True:
            pass
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with time_limit(1):
        pass
    assert signal.getsignal(signal.SIGALRM) is before
