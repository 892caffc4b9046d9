"""The per-run work of a white-box exploration made cheaper where it is provably the same:
the exploration's timer started once (each call only notes when it began), a facade's run
counted without the generic traced call, outcomes' ``True``/``False`` one object each.
Each fast path is shown failing on a planted bug."""

from __future__ import annotations

import signal
import threading
from typing import Any

import pytest

from exactdp.audit import guard as guard_module
from exactdp.audit.guard import Timeout, _Clock

S = 10**9  # one second in ns


class _Timer:
    """A fake clock and timer: ``now`` in ns, the ``setitimer`` calls recorded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = 0
        self.set: list[tuple[Any, ...]] = []
        monkeypatch.setattr(guard_module, "_now", lambda: self.now)
        monkeypatch.setattr(guard_module._signal, "setitimer",
                            lambda which, *a: self.set.append(a))


def _planted_clock(planted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if planted == "interrupts any call":
        def expired(self: _Clock) -> None:
            if self.start is not None:
                raise Timeout
            self.arm(guard_module._now(), self.seconds)
        monkeypatch.setattr(_Clock, "expired", expired)
    elif planted == "not set for the rest of a call":
        original = _Clock.expired

        def expired(self: _Clock) -> None:
            if self.start is not None and guard_module._now() - self.start < self.limit:
                return
            original(self)
        monkeypatch.setattr(_Clock, "expired", expired)
    elif planted == "no overdue check":
        def begin(self: _Clock, now: int) -> int | None:
            before, self.start = self.start, now
            return before
        monkeypatch.setattr(_Clock, "begin", begin)


@pytest.mark.parametrize("planted", ["", "interrupts any call", "not set for the rest of a call",
                                     "no overdue check"])
def test_the_exploration_clock_interrupts_each_call_past_its_limit(
        planted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exploration's timer (limit 10 s) fires 7 s into a guarded call: the call runs on
    and the timer is set for the 3 s left (rounded up to whole seconds); then the call is
    past its limit: Timeout (a timeout finding), and the timer again every second.  Between
    calls the alarm sets a full limit; a call that begins after the timer failed to fire
    (the code cancelled it) sets it again.  Planted: an alarm that interrupts any running
    call, one that leaves the timer unset for the rest of a call, a call that does not
    notice a cancelled timer."""
    from exactdp.audit.guard import Abort, Guard

    _planted_clock(planted, monkeypatch)
    timer = _Timer(monkeypatch)
    clock = _Clock(10, threading.get_ident())
    monkeypatch.setattr(guard_module, "_CLOCK", [clock])  # the exploration's clock, and
    monkeypatch.setattr(guard_module, "_getsignal", lambda signum: guard_module._on_alarm)
    clock.arm(0, 10)
    assert timer.set == [(10, 0)]
    caught: list[str] = []

    def code() -> None:  # a call begun at 3 s, during which the alarm fires twice
        timer.now = 10 * S
        try:
            clock.expired()  # 7 s into the call: not past its limit
        except Timeout:
            caught.append("7 s")
        timer.now = 13 * S
        clock.expired()  # 10 s into the call
        caught.append("not interrupted")

    timer.now = 3 * S
    try:
        Guard(10).call(code, (), "f", {})
        found = ""
    except Abort as exc:
        found = exc.finding.kind
    ok = caught == [] and found == "timeout" and timer.set[1:] == [(3, 0), (1, 1)] \
        and clock.start is None
    timer.now = 14 * S
    clock.expired()  # between calls: a full limit
    ok = ok and timer.set[-1] == (10, 0) and clock.due == 24 * S
    timer.set.clear()
    timer.now = 30 * S  # the timer did not fire at 24 s: cancelled
    Guard(10).call(lambda: None, (), "f", {})
    ok = ok and timer.set == [(10, 0)] and clock.due == 40 * S and clock.start is None
    assert ok is not bool(planted)


@pytest.mark.slow  # (2 s of real time; the fake timer's test above runs by default)
@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX timers")
def test_a_call_begun_between_two_alarms_is_interrupted_after_its_limit() -> None:
    """Real time: the exploration's timer (1 s) fires 0.4 s into a call that hangs; the call
    is interrupted after its limit, within a second more, and not before."""
    import time
    with guard_module.alarm_handler(1):
        time.sleep(0.6)
        start = time.monotonic()
        with pytest.raises(Timeout), guard_module.time_limit(1):
            time.sleep(3)
        took = time.monotonic() - start
    assert 1 <= took < 2.5
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def _loop(c: int, rng: Any) -> tuple[int, bool]:
    z = 0
    for _ in range(c):
        z += rng.randrange(3)
    return z, bool(z % 2)


@pytest.mark.parametrize("planted", [False, True])
def test_a_facade_run_is_counted_as_by_the_generic_traced_call(
        planted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A facade mechanism's run (its own, without the generic traced call) gives the output
    and trace of the same run through ``Counter.traced_call`` and ``__call__`` (a subclass
    takes that road), on every path; each loop iteration adds to the count (two more
    iterations, each with one call, add four).  Planted: the direct run without the
    count's trace function."""
    from exactdp.audit.counted_runs import Counting
    from exactdp.audit.escape import watching
    from exactdp.audit.facades import FacadeMechanism
    from exactdp.audit.guard import Guard
    from exactdp.audit.per_input import run_once
    from exactdp.explore import ExploringSource

    if planted:
        counted = FacadeMechanism.counted
        monkeypatch.setattr(FacadeMechanism, "counted",
                            lambda self, c, source, tracer: counted(self, c, source, None))

    class Generic(FacadeMechanism):
        pass

    direct, generic = FacadeMechanism(_loop, "random", lazy=False), \
        Generic(_loop, "random", lazy=False)
    runs: dict[str, list[Any]] = {"direct": [], "generic": []}
    with watching(direct):
        for c, choices in [(1, (2,)), (3, (0, 1, 2)), (3, (2, 2, 1))]:
            for name, mech in (("direct", direct), ("generic", generic)):
                src = ExploringSource(choices, max_draws=len(choices))
                runs[name].append(run_once(mech, c, src, Guard(10), None, None,
                                           Counting(mech)))
    ops = [trace[1] for _, trace in runs["direct"]]
    assert (runs["direct"] == runs["generic"] and ops[1] - ops[0] == 4
            and ops[1] == ops[2]) is not planted


@pytest.mark.parametrize("planted", ["", "items as they are", "floats as they are"])
def test_outcome_items_are_told_apart_and_checked_without_a_call_each(
        planted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The items of a list or tuple outcome -- ints, strings and bools taken without a call
    each -- are told apart as an observer tells them (``True`` is not ``1``) and checked
    (nan has no exact value).  Planted: items kept as they are (bools merge with ints), a
    float taken like an int (nan accepted)."""
    from fractions import Fraction

    from exactdp.audit import outcomes
    from exactdp.audit.guard import Abort, check_outcome
    from exactdp.audit.outcomes import observed

    if planted == "items as they are":
        monkeypatch.setattr(outcomes, "_items", tuple)
    elif planted == "floats as they are":
        monkeypatch.setattr(guard_module, "_SIMPLE", frozenset({int, bool, str, float}))
    apart = (observed([True, 0]) != observed([1, 0]) and observed((1, True)) != observed((1, 1))
             and observed([False]) != observed([True]) and observed((False, "a")) != (0, "a")
             and repr(observed([True, 0, "a"])) == "[True, 0, 'a']")
    plain = check_outcome([Fraction(1, 2), 0.5, True, 1, "a", None], None, "f", {})
    try:
        check_outcome([1, float("nan")], None, "f", {})
        nan_refused = False
    except Abort:
        nan_refused = True
    assert (apart and nan_refused and plain == (Fraction(1, 2), Fraction(1, 2), True, 1, "a",
                                                None)) is not bool(planted)


def test_call_forms_pass_the_input_generator_and_keywords_as_written() -> None:
    """Each call form calls the code with what the user said, by name where it can (the
    form that passes everything by keyword) and by position where it must: the arguments
    the code receives, by hand."""
    from exactdp.audit.callforms import call_form

    got: list[Any] = []

    def statdp(prng: Any, queries: Any, epsilon: Any, **extra: Any) -> None:
        got.append(("statdp", prng, queries, epsilon, list(extra.items())))

    def plain(c: Any, rng: Any, scale: int = 1) -> None:
        got.append(("plain", c, rng, scale))

    def patched(value: Any) -> None:
        got.append(("patched", value))

    def first(c: Any, /, rng: Any) -> None:
        got.append(("first", c, rng))

    call_form(statdp, "prng", {"epsilon": 1, "z": 2, "a": 3})((0, 1), "RNG")
    call_form(plain, bind={"scale": 5})(7, "RNG")
    call_form(patched, None, patching=True)(4, "RNG")
    call_form(first)(6, "RNG")
    assert got == [("statdp", "RNG", (0, 1), 1, [("z", 2), ("a", 3)]), ("plain", 7, "RNG", 5),
                   ("patched", 4), ("first", 6, "RNG")]


class _Holder:
    def __init__(self) -> None:
        self.got: list[Any] = []

    def randomise(self, value: Any, rng: Any, k: int = 0) -> None:
        self.got.append(("method", value, rng, k))


@pytest.mark.parametrize("planted", [False, True])
def test_call_forms_made_as_one_positional_call_bind_as_by_keyword(
        planted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the parameters a call form fills are the code's first ones, each positional,
    the form is one positional call; it binds each argument to the parameter the user
    named, as the call by keyword does (by hand below), and a form whose parameters are
    not such a prefix (a bound one first, the generator after a bound one, a keyword-only
    one) is the call by keyword (a planted positional form passing the generator and the
    input the other way round binds them wrongly)."""
    from exactdp.audit import callforms

    if planted:
        real = callforms._positional

        def swapped(fn: Any, params: Any, c_param: Any, rng_param: Any, kw: Any) -> Any:
            made = real(fn, params, c_param, rng_param, kw)
            return None if made is None else (lambda c, rng: made(rng, c))
        monkeypatch.setattr(callforms, "_positional", swapped)
    got: list[Any] = []

    def plain(c: Any, rng: Any) -> None:
        got.append(("plain", c, rng))

    def statdp(prng: Any, queries: Any, epsilon: Any, N: int = 1, T: int = 1) -> None:
        got.append(("statdp", prng, queries, epsilon, N, T))

    def bound_first(eps: Any, c: Any, rng: Any) -> None:
        got.append(("bound_first", eps, c, rng))

    def rng_last(c: Any, eps: Any, rng: Any) -> None:
        got.append(("rng_last", c, eps, rng))

    def keyword_only(c: Any, rng: Any, *, scale: Any) -> None:
        got.append(("keyword_only", c, rng, scale))

    holder = _Holder()
    callforms.call_form(plain)(1, "R")
    callforms.call_form(statdp, "prng", {"epsilon": 2, "N": 3})(4, "R")
    callforms.call_form(statdp, 0, {"epsilon": 5})(6, "R")
    callforms.call_form(bound_first, bind={"eps": 7})(8, "R")
    callforms.call_form(rng_last, "rng", {"eps": 9})(10, "R")
    callforms.call_form(keyword_only, bind={"scale": 11})(12, "R")
    callforms.call_form(holder.randomise, bind={"k": 13})(14, "R")
    expected = [("plain", 1, "R"), ("statdp", "R", 4, 2, 3, 1), ("statdp", "R", 6, 5, 1, 1),
                ("bound_first", 7, 8, "R"), ("rng_last", 10, 9, "R"),
                ("keyword_only", 12, "R", 11)]
    assert (got == expected and holder.got == [("method", 14, "R", 13)]) is not planted


def _plain_draws(c: int, rng: Any) -> int:
    return c + rng.randrange(4) + rng.randrange(3)


def _lazy_draws(c: int, rng: Any) -> int:
    return c + (rng.random() < 0.5)


def _stash(c: int, rng: Any) -> int:
    _KEPT.append(rng)
    return c


_KEPT: list[Any] = []


@pytest.mark.parametrize("planted", ["", "late context live", "contexts kept by the engine"])
def test_a_run_leaves_no_cycle_and_a_late_value_escapes(
        planted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A facade run leaves no cyclic garbage (its engine, facade and sources are freed when
    it ends, not by the garbage collector): the lazy values' contexts hold the engine's
    methods, and the engine lets go of them when the run ends; a value handed out after
    the run by a facade the code kept still escapes when compared.  Planted: a context made
    after the run left live, the contexts kept by the engine after the run."""
    import gc

    from exactdp.audit import facade_engine
    from exactdp.audit.facades import FacadeMechanism
    from exactdp.audit.per_input import GuardedSource
    from exactdp.explore import ExploringSource, RestartExploration

    if planted == "late context live":
        original = facade_engine._Engine._context

        def live(self: Any, i: int) -> Any:
            done, self._done = self._done, False
            try:
                return original(self, i)
            finally:
                self._done = done
        monkeypatch.setattr(facade_engine._Engine, "_context", live)
    elif planted == "contexts kept by the engine":
        def keep(self: Any) -> None:
            self._done = True
            for name in ("_units", "_ints"):
                ctx = self.__dict__.get(name)
                if ctx is not None:
                    ctx[facade_engine.COIN] = ctx[facade_engine.BRANCH] = self._after
        monkeypatch.setattr(facade_engine._Engine, "finish", keep)
    mech = FacadeMechanism(_plain_draws, "random", lazy=False)
    lazy = FacadeMechanism(_lazy_draws, "random")
    gc.collect()
    gc.disable()
    try:
        for choices in [(0, 0), (3, 2), (1, 1)]:
            src = ExploringSource(choices, max_draws=2)
            assert mech.counted(5, GuardedSource(src, None, 5), None) == 5 + sum(choices)
        outs = [lazy.counted(5, GuardedSource(ExploringSource(choices, max_draws=1), None, 5),
                             None) for choices in [(0,), (1,)]]  # the comparison's two ways
        assert sorted(outs) == [5, 6]
        cycles = gc.collect()
    finally:
        gc.enable()
    _KEPT.clear()
    kept = FacadeMechanism(_stash, "random")
    kept.counted(0, GuardedSource(ExploringSource((), max_draws=4), None, 0), None)
    late = _KEPT[0].random()  # drawn after its run, from the facade the code kept
    try:
        _ = late < 0.5
        escaped = False
    except RestartExploration:
        escaped = True
    assert (cycles == 0 and escaped) is not bool(planted)


def _unsuspending_enter(self: Any) -> None:
    """``_TimeLimit.__enter__`` as first written: a limit of its own inside an exploration
    leaves the exploration's clock in charge of the alarm (planted bug)."""
    clock = guard_module._CLOCK[0]
    if clock is not None and self.seconds == clock.seconds:
        self.before = clock.begin(guard_module._now())
        self.old = clock
        return
    self.old = guard_module._KEPT
    guard_module._signal.setitimer(guard_module._REAL, self.seconds, 1)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX timers")
@pytest.mark.parametrize("planted", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_a_limit_of_its_own_inside_an_exploration_still_interrupts(
        planted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real time: inside an exploration whose clock has a 3 s limit, a call under a 1 s limit
    of its own that hangs is interrupted after about 1 s (the clock is suspended while that
    limit holds the timer, and set again after it).  Planted: the clock left in charge (its
    alarm finds no call of its own past its limit: the hang runs to its end)."""
    import time
    if planted:
        monkeypatch.setattr(guard_module._TimeLimit, "__enter__", _unsuspending_enter)
    with guard_module.alarm_handler(3):
        start = time.monotonic()
        try:
            with guard_module.time_limit(1):
                time.sleep(2.5)
            interrupted = False
        except Timeout:
            interrupted = True
        took = time.monotonic() - start
        clock = guard_module._CLOCK[0]
        timer = signal.getitimer(signal.ITIMER_REAL)[0]
    assert (interrupted and took < 2 and clock is not None and 0 < timer <= 3) is not planted


def _out_late(c: int, rng: Any) -> int:
    a = rng.randrange(3)
    return 9 if a == 2 and rng.randrange(2) == 1 else a


def test_an_output_outside_the_declared_ones_names_the_draws_of_its_own_run() -> None:
    """The output check made once per input reads the draws of the run in progress: after
    runs with other draws, the out-of-range output names its own (by hand: [3, 2])."""
    from exactdp.audit.counted_runs import Counting
    from exactdp.audit.facades import FacadeMechanism
    from exactdp.audit.guard import Abort, Guard
    from exactdp.audit.per_input import runner
    from exactdp.explore import ExploringSource

    mech = FacadeMechanism(_out_late, "random", lazy=False)
    once = runner(mech, 0, Guard(10), None, range(5), Counting(mech))
    assert once(ExploringSource((0,), max_draws=1))[0] == 0
    assert once(ExploringSource((2, 0), max_draws=2))[0] == 2
    with pytest.raises(Abort) as caught:
        once(ExploringSource((2, 1), max_draws=2))
    assert caught.value.finding.kind == "out_of_range"
    assert "(draws [3, 2])" in caught.value.finding.message


@pytest.mark.parametrize("planted", [False, True])
@pytest.mark.parametrize("block", ["exploration", "call"])
def test_an_alarm_handled_after_its_timer_was_cancelled_interrupts_nothing(
        planted: bool, block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal is handled between two instructions, not when it arrives: an alarm that
    arrived while an exploration's timer (or a call's own limit) ran may be handled after
    the block cancelled it, where it interrupts nothing -- the exploration (or the call)
    is over, and a Timeout raised there would fail an audit whose calls all returned in
    time.  (The alarm is held back by the signal mask until the block has ended.  Planted:
    a handler that raises whenever no exploration's clock is set, as before.)"""
    import os

    from exactdp.audit.guard import alarm_handler

    if planted:
        monkeypatch.setattr(guard_module, "_HELD", [1])
    old = signal.signal(signal.SIGALRM, guard_module._on_alarm)
    raised = False
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            with alarm_handler(5) if block == "exploration" else guard_module.time_limit(5):
                os.kill(os.getpid(), signal.SIGALRM)  # pending until unblocked
        finally:
            try:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
                for _ in range(1000):  # (the handler runs at one of these instructions)
                    pass
            except Timeout:
                raised = True
    finally:
        signal.signal(signal.SIGALRM, old)
    assert raised is planted
