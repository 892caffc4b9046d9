"""Where two runs' operations first differ: what a TIMING witness names.

A TIMING verdict (:mod:`exactdp.audit.timing`) compares the operation counts of paths of
two inputs with the same output.  The two counts say *that* the code did more on one input;
this module says *where*: it runs one path of each input again with the same draws, this
time listing every operation counted (:class:`~exactdp.audit.bytecode.Counter` with
``detail``: the code object, bytecode offset and line of each call and each loop
iteration, in order) and reports the first position where the two lists differ -- the
file, line, kind of operation (a call, or an iteration of the loop whose first
instruction it is), its bytecode instruction and the source line, on each side; or, when
one list is a prefix of the other, that the shorter run ended there.
"""

from __future__ import annotations

import dis
import linecache
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from exactdp.audit.counted_runs import Counting
from exactdp.audit.guard import Guard, show
from exactdp.audit.per_input import run_once
from exactdp.audit.report import TraceResult
from exactdp.audit.timing import _calls, _draws
from exactdp.explore import ExploringSource
from exactdp.randomness import RandomSource

__all__ = ["first_difference", "located", "operations_of"]

Operation = tuple[Any, int, int]  # (code object, bytecode offset, line)


def operations_of(f: Callable[[Any, RandomSource], Any], c: Any, choices: tuple[int, ...],
                  guard: Guard, randomness_size: int | None,
                  allowed: range | frozenset[Any] | None, max_uniform: int
                  ) -> tuple[Any, list[Operation]]:
    """The path of ``f(c, source)`` taking ``choices`` at its draws, run again: its
    ``(output, trace)`` and every operation it counted, in order."""
    counting = Counting(f, detail=True)
    src = ExploringSource(tuple(choices), max_uniform, max_draws=len(choices))
    result = run_once(f, c, src, Guard(guard.time_limit), randomness_size, allowed, counting)
    detail = counting.counter.detail
    assert detail is not None
    return result, list(detail)


def _instruction(code: Any, offset: int) -> str:
    for i in dis.get_instructions(code):
        if i.offset == offset:
            return i.opname
    return "?"


def describe(op: Operation) -> str:
    """``file:line: a call (CALL) in name(): `source```, or a loop iteration."""
    code, offset, line = op
    opname = _instruction(code, offset)
    kind = "a call" if opname.startswith("CALL") else "a loop iteration"
    text = linecache.getline(code.co_filename, line).strip() if line else ""
    where = f"{os.path.basename(code.co_filename)}:{line}"
    return f"{kind} ({opname} at offset {offset}) in {code.co_name}() at {where}" + (
        f": {text}" if text else "")


def first_difference(a: Any, ops_a: list[Operation], b: Any, ops_b: list[Operation]) -> str:
    """Where the operation lists of a path on input ``a`` and one on input ``b`` first
    differ, in words ("" when they are equal)."""
    n = min(len(ops_a), len(ops_b))
    i = next((k for k in range(n) if ops_a[k][:2] != ops_b[k][:2]), n)
    if i == len(ops_a) == len(ops_b):
        return ""
    side_a = describe(ops_a[i]) if i < len(ops_a) else f"the run ends (after {i} operations)"
    side_b = describe(ops_b[i]) if i < len(ops_b) else f"the run ends (after {i} operations)"
    return (f"operation {i + 1} (the first {i} are the same): on input {show(a)}, {side_a}; "
            f"on input {show(b)}, {side_b}")


def located(result: TraceResult, joints: Mapping[Any, Mapping[Any, Fraction]],
            paths: Mapping[Any, Mapping[Any, tuple[int, ...]]],
            f: Callable[..., Any], guard: Any, randomness_size: int | None,
            allowed: Any, max_uniform: int) -> TraceResult:
    """``result`` (a TIMING verdict) with its witness naming the first operation where a
    path of each input with the witness's output differs
    (:func:`first_difference`): the witness's path on the first
    input, and on the other input the path with the same output and draws (or, without
    one, the same output) whose operation count is nearest."""
    w = dict(result.witness)
    if not w or "inputs" not in w:
        return result
    a, b = w["inputs"]
    out = w["output"]
    key_a = next((k for k in joints[a] if k[0] == out and _draws(k[1]) == w["draws"]
                  and k[1][1] == w["operation_count"]["count"]
                  and _calls(k[1]) == w["calls"]), None)
    if key_a is None or key_a not in paths.get(a, {}):
        return result
    same_draws = [k for k in joints[b] if k[0] == out and k[1][0] == key_a[1][0]]
    others = same_draws or [k for k in joints[b] if k[0] == out]
    others = [k for k in others if k in paths.get(b, {})]
    if not others:
        return result
    key_b = min(others, key=lambda k: (abs(k[1][1] - key_a[1][1]), k[1][1]))
    try:
        _, ops_a = operations_of(f, a, paths[a][key_a], guard, randomness_size, allowed,
                                 max_uniform)
        _, ops_b = operations_of(f, b, paths[b][key_b], guard, randomness_size, allowed,
                                 max_uniform)
    except Exception:  # noqa: BLE001 - the witness stands without the location
        return result
    where = first_difference(a, ops_a, b, ops_b)
    if not where:
        return result
    w["first_difference"] = where
    if not same_draws:
        w["first_difference_note"] = (f"the path on input {b} compared has other draws: "
                                      f"{' | '.join(_draws(key_b[1]))}")
    return replace(result, witness=w)
