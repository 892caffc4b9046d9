"""The per-run set-up of a white-box exploration, made once where it is sound: the
recorders of the sleep/clock/output functions held in place between the runs of one
exploration (what the audited code replaced is still undone at the next run, every run is
still recorded, the originals are back at the end), the alarm's handler set once (a time
limit still interrupts), the re-run check's comparison of draws, and outcomes whose text
is made when printed.  Each fast path is shown failing on a planted bug."""

from __future__ import annotations

import pickle
import signal
import sys
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import bytecode
from exactdp.audit.counted_runs import Counting
from exactdp.audit.guard import Guard, Timeout, alarm_handler, time_limit
from exactdp.audit.outcomes import Truth, Typed, observed
from exactdp.explore import ExploringSource


def _calls(counting: Counting, fn: Any) -> Any:
    with counting.run() as counter:
        Guard(None).call(fn, (), "f", {})
    return counter.observed()[1]


@pytest.mark.skipif(not bytecode.available(), reason="C operation count unavailable")
@pytest.mark.parametrize("planted", [False, True])
def test_held_runs_record_every_run_and_undo_what_the_code_replaced(
        planted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside ``held()`` the second run finds the recorders in place and records as the
    first did; a run after the audited code replaced ``time.sleep`` puts the recorder back
    (a planted check that always finds them in place leaves the code's replacement, and
    its sleep goes unrecorded); the originals are back after the block."""
    if planted:
        monkeypatch.setattr(Counting, "_intact", lambda self: True)
    counting = Counting(None)
    sleep, stdout, clock = time.sleep, sys.stdout, time.monotonic
    with counting.held():
        assert _calls(counting, lambda: sys.stdout.write("")) == (("stdout.write",),)
        assert _calls(counting, lambda: sys.stdout.write("")) == (("stdout.write",),)
        assert _calls(counting, lambda: time.monotonic()) == (("monotonic",),)
        with counting.run():
            time.sleep = abs  # the audited code replacing a patched function
        slept = _calls(counting, lambda: time.sleep(0))
    assert (slept == (("sleep", 0),)) is not planted
    assert (time.sleep, sys.stdout, time.monotonic) == (sleep, stdout, clock)


@pytest.mark.skipif(not bytecode.available(), reason="C operation count unavailable")
@pytest.mark.parametrize("planted", [False, True])
@pytest.mark.parametrize("where", ["time.monotonic", "builtins.print", "sys.stdout"])
@pytest.mark.parametrize("in_c", [True, False])
def test_held_runs_check_every_patched_object(planted: bool, where: str, in_c: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The check that the recorders are in place reads every patched name of every
    patched object (the time module, builtins, sys; in one C call, or one call each in
    Python): the audited code
    replacing any of them is undone at the next run, which records the call (a planted
    check that reads time.sleep alone misses the others)."""
    import builtins

    if planted:
        def first_only(self: Counting) -> bool:
            space, get, expected = self._readers[0]
            return get(space)[0] is expected[0]
        monkeypatch.setattr(Counting, "_intact", first_only)
    owner, name = {"time.monotonic": (time, "monotonic"), "builtins.print": (builtins, "print"),
                   "sys.stdout": (sys, "stdout")}[where]
    call = {"time.monotonic": lambda: time.monotonic(), "builtins.print": lambda: print(end=""),
            "sys.stdout": lambda: sys.stdout.write("")}[where]
    event = {"time.monotonic": "monotonic", "builtins.print": "print",
             "sys.stdout": "stdout.write"}[where]
    counting = Counting(None)
    original = getattr(owner, name)
    with counting.held():
        first = _calls(counting, call)
        if not in_c:  # the check in Python (where the C one is not built)
            counting._groups = None
        with counting.run():
            setattr(owner, name, original)  # the audited code putting the original back
        again = _calls(counting, call)
    assert getattr(owner, name) is original
    assert [e[0] for e in first] == [event]  # recorded on the first run
    assert (again == first) is not planted


def test_held_recorders_are_put_back_after_an_error() -> None:
    counting = Counting(None)
    sleep, stdout = time.sleep, sys.stdout
    with pytest.raises(KeyError), counting.held():
        with counting.run():
            pass
        assert time.sleep is not sleep  # held: the recorder stays between runs
        raise KeyError("stop")
    assert (time.sleep, sys.stdout) == (sleep, stdout)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX timers")
def test_the_alarm_handler_kept_for_an_exploration_still_interrupts() -> None:
    """Inside ``alarm_handler`` a time limit neither sets the handler nor starts a timer
    (the block's runs), still interrupts a hang, and the handler before is back and no
    timer runs after the block."""
    before = signal.getsignal(signal.SIGALRM)
    with alarm_handler(1):
        kept = signal.getsignal(signal.SIGALRM)
        assert kept is not before
        with time_limit(1):
            pass
        assert signal.getsignal(signal.SIGALRM) is kept
        with pytest.raises(Timeout), time_limit(1):
            while True:
                pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def _drawn(sizes: list[int], prefix: tuple[int, ...] = (), weigh: bool = True,
           recorded: Any = None) -> ExploringSource:
    src = ExploringSource(prefix, max_draws=len(prefix) or None, weigh=weigh,
                          recorded=recorded)
    for d in sizes:
        src.uniform(d)
    return src


@pytest.mark.parametrize("planted", ["", "log only", "never"])
def test_the_re_run_compares_the_domains_drawn(planted: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-run's draws are compared by their domains: the very records of the first run
    are the same draws, records equal in domains but not in weights too; another domain is
    a difference.  Planted: a comparison of the records alone, or none."""
    if planted == "log only":
        monkeypatch.setattr("exactdp.audit.replay._other_draws",
                            lambda again, src: again.log != src.log)
    elif planted == "never":
        monkeypatch.setattr("exactdp.audit.replay._other_draws", lambda again, src: False)
    from exactdp.audit import replay
    first = _drawn([3, 5])
    same = _drawn([3, 5], (0, 0), recorded=first.log)  # the very records
    unweighed = _drawn([3, 5], (0, 0), weigh=False)  # same domains, other records
    assert unweighed.log != first.log
    got = tuple(replay._other_draws(again, first) for again in (same, unweighed,
                                                                  _drawn([3, 4])))
    assert (got == (False, False, True)) is not bool(planted)


def test_outcomes_print_hash_and_pickle_as_their_values() -> None:
    """A list, dict or array outcome's text is made when printed, and survives pickling
    (to and from worker processes); a bool outcome hashes as the bool."""
    out = observed([True, 0, (False, "a")])
    assert repr(out) == "[True, 0, (False, 'a')]"
    again = pickle.loads(pickle.dumps(observed({"k": [1, False]})))
    assert again == observed({"k": [1, False]})
    assert repr(again) == "{'k': [1, False]}"
    assert hash(Truth(True)) == hash(True) and hash(Truth(False)) == hash(False)
    assert repr(Truth(False)) == "False" and str(Truth(True)) == "True"
    plain = Typed("list", (1,), (1,), "[1]")
    assert plain == observed([1]) and hash(plain) == hash(observed([1]))
    assert repr(observed([1])) == "[1]"
    numpy = pytest.importorskip("numpy")
    array = observed(numpy.array([1, 2], dtype=numpy.int64))
    assert repr(array) == "array([1, 2], dtype=int64)"
    assert repr(pickle.loads(pickle.dumps(array))) == repr(array)


def test_facade_patches_are_put_back_as_found() -> None:
    """A patched module's functions are set and put back through its dict: what the code
    replaced during the run is undone; an object that is not a module is patched and put
    back attribute by attribute."""
    import random
    import types

    from exactdp.audit.facades import FacadeMechanism
    from exactdp.randomness import SeededSource

    original = random.random

    def replaces(c: int, rng: object) -> int:
        x = random.random()
        random.random = abs  # type: ignore[assignment]  # the code replacing a patched one
        return int(x < 0.5)

    assert FacadeMechanism(replaces, "random", patch_modules=[random])(0, SeededSource(1)) \
        in (0, 1)
    assert random.random is original
    holder = types.SimpleNamespace(random=abs, randrange=abs)

    def uses(c: int, rng: object) -> int:
        return int(holder.randrange(3))

    mech = FacadeMechanism(uses, "random", patch_modules=[holder], lazy=False)
    assert [mech(0, SeededSource(s)) for s in range(40)] != [0] * 40
    assert holder.randrange is abs and holder.random is abs


_ITEM = st.one_of(st.integers(-3, 3), st.booleans(), st.sampled_from(["", "a", "1"]))
_OUTPUT = st.one_of(_ITEM, st.lists(_ITEM, max_size=4), st.tuples(_ITEM, _ITEM),
                    st.lists(_ITEM, max_size=4).map(tuple))


def _typed(outcome: Any) -> Any:
    """An outcome with every type spelled out (``==`` of outcomes merges none, but a test
    must not rely on the code under test for that)."""
    if isinstance(outcome, Typed):
        return ("Typed", outcome.kind, _typed(outcome.key))
    if isinstance(outcome, tuple):
        return ("tuple", *map(_typed, outcome))
    return (type(outcome).__name__, outcome.value if isinstance(outcome, Truth) else outcome)


@settings(max_examples=150, deadline=None)
@given(outputs=st.lists(_OUTPUT, min_size=1, max_size=6))
def test_memoised_outcomes_are_the_outcomes(outputs: list[Any]) -> None:
    """An input's runs share the outcome of equal list and tuple outputs (its hash made
    once): each is the outcome :func:`observed` makes, and equal outcomes are one object."""
    from exactdp.audit import guard

    memo: dict[Any, Any] = {}
    got = [guard.plain_observed(v, memo) for v in outputs]
    assert [_typed(g) for g in got] == [_typed(observed(v)) for v in outputs]
    for a, ga in zip(outputs, got):
        for b, gb in zip(outputs, got):
            if type(a) in (list, tuple) and _typed(observed(a)) == _typed(observed(b)):
                assert ga is gb


@pytest.mark.parametrize("planted", [False, True])
def test_memoised_outcomes_tell_apart_what_an_observer_does(
        planted: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two outputs share a memoised outcome only when an observer cannot tell them apart:
    ``[True]`` is not ``[1]`` and ``(1,)`` is not ``[1]`` (a planted memo keyed by the
    items alone gives ``[1]``'s outcome to ``[True]`` and ``(1,)``)."""
    from exactdp.audit import guard

    if planted:
        real = guard.plain_observed

        def keyed_by_items(value: Any, memo: dict[Any, Any] | None = None) -> Any:
            if type(value) not in (list, tuple) or memo is None:
                return real(value, memo)
            return memo.setdefault(tuple(value), observed(value))
        monkeypatch.setattr(guard, "plain_observed", keyed_by_items)
    memo: dict[Any, Any] = {}
    got = [guard.plain_observed(v, memo) for v in ([1], [True], (1,), [1])]
    right = [_typed(observed(v)) for v in ([1], [True], (1,), [1])]
    assert ([_typed(g) for g in got] == right) is not planted
    assert got[3] is got[0]


def test_memoised_outcomes_keep_types_and_stop_at_the_memo_size(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.audit import guard

    memo: dict[Any, Any] = {}
    one, true, tup = (guard.plain_observed(v, memo) for v in ([1], [True], (1,)))
    assert (one.kind, true.kind) == ("list", "list") and one != true and tup == (1,)
    assert guard.plain_observed([1], memo) is one and len(memo) == 3
    assert guard.plain_observed([1.5], memo) is guard.SLOW  # a float: check_outcome's
    monkeypatch.setattr(guard, "MEMO_SIZE", 3)
    assert guard.plain_observed([2], memo) == observed([2]) and len(memo) == 3


@pytest.mark.skipif(bytecode._IDENTICAL is None, reason="C check unavailable")
def test_the_c_check_of_the_recorders_compares_identity() -> None:
    """``identical`` (the held runs' check, one C call) finds a binding in place only when
    it is the very object: an object equal to everything is not, nor a missing name."""
    class Equal:
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    f, g = object(), object()
    space = {"a": f, "b": g}
    ident = bytecode._IDENTICAL
    assert ident is not None
    assert ident((({"x": 1}, (), ()), (space, ("a", "b"), (f, g))))
    space["b"] = Equal()
    assert not ident(((space, ("a", "b"), (f, g)),))
    del space["b"]
    assert not ident(((space, ("a", "b"), (f, g)),))
    with pytest.raises(TypeError):
        ident(((space, ("a",), ()),))


def test_the_recorders_file_is_not_the_callers_of_guarded_functions() -> None:
    """A recorder of the timing count calls ``time.time`` on the audited code's behalf: the
    escape guards must look past its frame to the audited code (its file is listed among
    the implementations of guarded functions), else a clock read by the audited code is
    taken as exactdp's own and escapes unseen."""
    from exactdp.audit import callers, counted_runs

    counter = bytecode.Counter()
    recorder = counted_runs._recorder(counter, "time", time.time)
    assert callers.kind(recorder.__code__.co_filename) == "implementation"
    assert callers.kind(counted_runs.__file__) == "implementation"
