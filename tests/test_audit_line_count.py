"""Operation counts from line events (a line's operations counted at once where its
instructions run straight) equal the counts from opcode events, on code of every shape:
loops, short-circuits, conditional expressions, comprehensions, generators, exceptions
raised and caught mid-line, with-blocks, lambdas, recursion, the standard library."""

from __future__ import annotations

import fractions
import json
import random
import statistics
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from exactdp.audit import bytecode
from exactdp.audit.counted_runs import Counting
from exactdp.audit.guard import Guard
from tests.audit_targets import timing_targets as tt


def _count(fn: Callable[..., Any], args: tuple[Any, ...], opcodes: bool,
           native: bool | None = None) -> int:
    counting = Counting(None, detail=opcodes, native=native)  # detail: opcode events only
    with counting.run() as counter:
        try:
            Guard(None).call(fn, args, "f", {})
        except Exception:  # noqa: BLE001, S110 - a raising run is counted too
            pass
    return counter.operations


def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0 and i > 2 or i == 1:
            continue
        j = 0
        while j < i and (j * j < n or j == 0):
            j += 1
            if j == 5:
                break
        else:
            total += 1
        total += j if j % 2 else len(str(j))
    return total


def caught(n):
    out = []
    for i in range(n):
        try:
            out.append(10 // (i - 2) + len(str(i)))
        except ZeroDivisionError:
            out.append(len("x") + 1)
        finally:
            out.append(abs(i))
    try:
        {}[n] if n > 3 else int("x") + len(out)
    except (KeyError, ValueError) as exc:
        out.append(len(str(exc)))
    return out


def gen(n):
    yield from (i * 2 for i in range(n) if i % 2)
    for i in range(n):
        yield len(str(i)) if i > 3 else i


def uses_gen(n):
    return sum(gen(n)) + sum(x for x in range(n)) + len([y for y in range(n) if y > 1])


class Ctx:
    def __enter__(self):
        return len("a")

    def __exit__(self, *exc):
        return isinstance(exc[1], KeyError)


def with_blocks(n):
    total = 0
    for i in range(n):
        with Ctx() as a:
            total += a
            if i == 2:
                raise KeyError(i)
    return total


def recursive(n):
    return 1 if n < 2 else recursive(n - 1) + recursive(n - 2)


def one_line(n): return [abs(i) for i in range(n)] if n else (lambda: len("ab"))()  # noqa: E704, PLC3002


def stdlib(n):
    data = [fractions.Fraction(i, n + 1) for i in range(n + 1)]
    text = json.dumps({"a": [str(x) for x in data], "b": n})
    return (len(textwrap.fill(text, 20)), statistics.median(range(n + 1)),
            sorted(data, key=lambda x: -x)[0])  # noqa: FURB192


def rng_code(n):
    rng = random.Random(n)
    return [rng.randrange(5) for _ in range(n)] + [rng.random() < 0.5 for _ in range(n)]


CASES = [loops, caught, uses_gen, with_blocks, recursive, one_line, stdlib, rng_code,
         tt.geometric_loop_for(7), tt.cdf_walk, lambda n: [loops(n), caught(n)][n % 2]]


@pytest.mark.parametrize("native", [False, True], ids=["python", "c"])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: getattr(f, "__name__", "f"))
def test_line_counts_equal_opcode_counts(fn: Callable[..., Any], native: bool) -> None:
    if native and not bytecode.available():
        pytest.skip(f"C operation count: {bytecode.status()}")
    counts = []
    for n in range(9):
        args = (n % 2,) if fn is tt.cdf_walk else (n,)
        _count(fn, args, True)  # warm: a first call fills caches (re, json) the next skip
        random.seed(n)  # (the loop and the walk draw from module random)
        by_opcode = _count(fn, args, True)
        random.seed(n)
        by_line = _count(fn, args, False, native)
        assert by_line == by_opcode, (fn, n, by_line, by_opcode)
        counts.append(by_opcode)
    assert max(counts) > 0


def test_line_tables_leave_out_what_they_cannot_count() -> None:
    """Generators are counted by opcode events; a line whose operations may be skipped
    after a jump has no entry at its start."""
    assert bytecode._line_table(gen.__code__) is None
    table = bytecode._line_table(loops.__code__)
    assert table is not None and table
    import dis
    starts = {i.offset for i in dis.get_instructions(loops.__code__)
              if i.starts_line is not None}
    assert not starts <= set(table)  # the while line with its call after a jump


@pytest.mark.parametrize(("old", "new", "native"), [
    ("if leaves and later_ops:", "if False:", False),
    ("if leaves and later_ops:", "if False:", True),
    ("count[0] -= _ops_after(code, frame.f_lasti)", "pass", False),
])
def test_planted_line_count_bug_is_caught(monkeypatch: pytest.MonkeyPatch, old: str,
                                          new: str, native: bool) -> None:
    if native and not bytecode.available():
        pytest.skip(f"C operation count: {bytecode.status()}")
    from _plant import plant
    target = bytecode if "count[0]" not in old else bytecode.Counter
    plant(monkeypatch, target, "_line_table" if "count[0]" not in old else "_tracer", old,
          new)
    bytecode._forget()
    try:
        differ = []
        for fn in (loops, caught, with_blocks, one_line, stdlib):
            for n in range(7):
                _count(fn, (n,), True)
                random.seed(3)
                a = _count(fn, (n,), True)
                random.seed(3)
                b = _count(fn, (n,), False, native)
                differ.append(a != b)
        assert any(differ)
    finally:
        bytecode._forget()
