"""A TIMING witness names where the two inputs' operations first differ: file, line, kind of
operation and instruction, on each side."""

from __future__ import annotations

import inspect
import os

from exactdp.audit import whitebox_audit
from exactdp.audit.divergence import first_difference
from exactdp.audit.facades import facade_mechanism
from tests.audit_targets import timing_targets as tt


def _line_of(fn, text: str) -> int:
    """The line number of the line of ``fn``'s source containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def leaky(c, rng):
    """Randomized response after a loop of c + 2 rounds."""
    acc = []
    for _ in range(c + 2):
        acc.append(1)
    return c if rng.random() < 0.75 else 1 - c


def fixed(c, rng):
    """Its twin with a fixed loop: no TIMING, so no location."""
    acc = []
    for _ in range(2):
        acc.append(1)
    return c if rng.random() < 0.75 else 1 - c


def test_loop_over_the_input_is_located_at_the_loop_and_the_call_after_it() -> None:
    report = whitebox_audit(facade_mechanism(leaky, "random"), inputs=range(2),
                            claimed_epsilon="ln 3", kind="source")
    t = report.trace
    assert t is not None and not t.same and report.verdict == "violation"
    where = t.witness["first_difference"]
    name = os.path.basename(__file__)
    body = f"{name}:{_line_of(leaky, 'acc.append(1)')}"
    call = f"{name}:{_line_of(leaky, 'rng.random()')}"
    # both: the call of range, then per round a loop step and the call of append (2 rounds:
    # operations 2-5), then a loop step (6: the exit on input 0, a 3rd round on input 1);
    # operation 7 is rng.random() on input 0 and the 3rd round's append on input 1
    assert where.startswith("operation 7 (the first 6 are the same)"), where
    on0, on1 = where.split("; on input 1, ")
    assert "on input 0, a call (CALL" in on0 and call in on0 and "rng.random()" in on0
    assert on1.startswith("a call (CALL") and body in on1 and "acc.append(1)" in on1
    assert f"first difference: {where}" in report.summary()  # the report says where, in words


def test_twin_with_a_fixed_loop_passes_without_a_location() -> None:
    report = whitebox_audit(facade_mechanism(fixed, "random"), inputs=range(2),
                            claimed_epsilon="ln 3", kind="source")
    assert report.trace is not None and report.trace.same and report.verdict == "pass"
    assert not report.trace.witness


def test_cdf_walk_is_located_at_its_second_round() -> None:
    import random
    mech = facade_mechanism(lambda c, rng: tt.cdf_walk(c), "random", patch_modules=[random])
    report = whitebox_audit(mech, inputs=range(2), claimed_epsilon="11/10", kind="source")
    t = report.trace
    assert t is not None and not t.same
    where = t.witness["first_difference"]
    line = _line_of(tt.cdf_walk, "for z, p in")
    assert f"timing_targets.py:{line}" in where and "a loop iteration" in where, where
    assert "the run ends" in where or "return" in where or "a call" in where, where


def test_first_difference_of_lists() -> None:
    code = leaky.__code__
    a = [(code, 10, 1), (code, 20, 2)]
    assert first_difference(0, a, 1, list(a)) == ""
    where = first_difference(0, a, 1, a[:1])
    assert where.startswith("operation 2 (the first 1 are the same)")
    assert where.endswith("on input 1, the run ends (after 1 operations)")
    where = first_difference(0, a, 1, [(code, 10, 1), (code, 30, 3)])
    assert "offset 20" in where.split("; on input 1")[0] and "offset 30" in where.split(
        "; on input 1")[1]
