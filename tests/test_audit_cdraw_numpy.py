"""The numpy facade's plain integer draws (``integers(n)``, ``choice`` of a list or tuple)
in C (exactdp/audit/_cdraw.c) against the facade's Python methods, call by call; whole
reports and planted C bugs are in test_audit_cdraw.py."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import draw_native, facade_numpy
from exactdp.audit.facade_engine import _Engine
from exactdp.audit.facade_numpy import NumpyFacade
from exactdp.audit.facades import facade_mechanism
from exactdp.audit.guard import Abort
from exactdp.audit.per_input import GuardedSource
from exactdp.explore import ExploringSource
from exactdp.trace import collect, resume

np = pytest.importorskip("numpy", reason="numpy ints and arrays among the arguments")
native = pytest.mark.skipif(not draw_native.available(), reason=draw_native.status())


def _numpy_calls(method: Any, calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]],
                 prefix: tuple[int, ...], recorded: list[Any] | None, limit: int | None,
                 max_draws: int | None, weigh: bool, seed: int | None,
                 guarded: bool = True) -> tuple[Any, ...]:
    """The calls made on a numpy facade whose engine draws from a guarded exploring source
    (``guarded``; else the exploring source itself, as a replay in another process)
    replaying ``prefix`` over ``recorded``: each call's value or exception, and all the
    state the draws leave (events, charged draws, choices, records, weight, history)."""
    mech = facade_mechanism(lambda c, rng: None, "numpy")
    mech.exact_limit = 1 << 80  # (past it, the search probes a running audit's code)
    src = ExploringSource(prefix, max_draws=max_draws, weigh=weigh, recorded=recorded,
                          chooser=None if seed is None else random.Random(seed))
    gs = GuardedSource(src, limit, 0)
    engine = _Engine(mech, 0, gs if guarded else src)
    facade = NumpyFacade(engine)
    out: list[Any] = []
    events: list[Any] = []
    token = collect(events)
    try:
        for name, args, kwargs in calls:
            try:
                value = method[name](facade, *args, **kwargs)
                out.append((type(value).__name__, repr(value)))
            except (Exception, Abort) as exc:  # noqa: BLE001 - compared, not hidden
                out.append((type(exc).__name__, str(exc)))
    finally:
        resume(token)
    return (out, events, gs.draws, gs.size, src.choices, src.log, src.num, src.den,
            src.mismatch, engine.history)


sizes = st.one_of(st.integers(-2, 6), st.integers(1 << 63, 1 << 70), st.booleans(),
                  st.integers(0, 5).map(np.int64), st.just(70000))
numpy_calls = st.lists(st.one_of(
    st.tuples(st.just("integers"), st.tuples(sizes), st.just({})),
    st.tuples(st.just("integers"), st.tuples(sizes, sizes), st.just({})),
    st.tuples(st.just("integers"), st.tuples(sizes), st.fixed_dictionaries(
        {"endpoint": st.booleans()})),
    st.tuples(st.just("integers"), st.just(()), st.fixed_dictionaries({"low": sizes})),
    st.tuples(st.just("integers"), st.tuples(sizes), st.just({"size": None})),
    st.tuples(st.just("choice"), st.tuples(st.one_of(
        st.lists(st.integers(0, 9), max_size=4), st.lists(st.integers(0, 9), max_size=4).map(
            tuple), sizes, st.just(np.arange(3)))), st.just({}))), max_size=6)


@native
@settings(max_examples=150, deadline=None)
@given(first=numpy_calls, again=st.one_of(st.none(), numpy_calls),
       cut=st.integers(0, 6), limit=st.sampled_from([None, 64, 1 << 200]),
       max_draws=st.sampled_from([None, 2, 5]), weigh=st.booleans(),
       seed=st.sampled_from([None, 7]), guarded=st.booleans())
def test_numpy_integer_draws_in_c_are_the_python_ones(
        first: list[Any], again: list[Any] | None, cut: int, limit: int | None,
        max_draws: int | None, weigh: bool, seed: int | None, guarded: bool) -> None:
    """integers/choice in C against the facade's Python methods, on a new path and on a
    replay of it (the same calls, or others: mismatches), every argument form: the same
    values or exceptions and the same state (n = 1, n past 2**63 and past max_uniform,
    numpy ints, bools, low/high, endpoint, keywords, empty sequences, arrays)."""
    native_method = {"integers": NumpyFacade.integers, "choice": NumpyFacade.choice}
    python_method = {"integers": facade_numpy.PY_INTEGERS, "choice": facade_numpy.PY_CHOICE}
    assert native_method["integers"] is not python_method["integers"]
    runs = []
    for method in (native_method, python_method):
        run = _numpy_calls(method, first, (), None, limit, max_draws, weigh, seed, guarded)
        log = run[5]
        replay = _numpy_calls(method, first if again is None else again,
                              tuple(run[4][:cut]), log, limit, max_draws, weigh, seed, guarded)
        runs.append((run, replay))
    assert runs[0] == runs[1]
