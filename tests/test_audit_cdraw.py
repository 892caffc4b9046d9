"""The lazy draw chain in C (exactdp/audit/_cdraw.c) against its Python reference.

* every comparison of a lazy value with a number gives the answer, the cell and the coins
  of the reference ``LazyUnit._compare`` (hypothesis over ints, floats -- subnormal, signed
  zero, infinities, nan --, Fractions, bools, offsets and scales);
* explorations with the coin in C and with the coin in Python give the same laws, paths,
  weights, cuts and mismatches;
* whole white-box reports are the same with the C chain and without it (a fresh process
  with ``EXACTDP_CDRAW=0``), and a C build with a planted bug differs from them.
"""

from __future__ import annotations

import json
import math
import operator
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import explore as explore_module
from exactdp.audit import draw_native, facade_lazy
from exactdp.audit.counted_runs import Counting
from exactdp.audit.facade_lazy import LazyInt, LazyUnit, Parts, context, fresh
from exactdp.audit.guard import Abort, Guard
from exactdp.audit.per_input import GuardedSource
from exactdp.explore import (
    ExplorationIncomplete,
    NondeterminismError,
    RestartExploration,
    explore,
)
from tests._plant import build_planted_c

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "cdraw_reports.py"
OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
       "==": operator.eq, "!=": operator.ne}
REFLECTED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
native = pytest.mark.skipif(not draw_native.available(), reason=draw_native.status())


def test_status_says_which_chain_runs() -> None:
    text = draw_native.status()
    assert text.startswith("native (_cdraw") == draw_native.available()
    if os.environ.get("EXACTDP_CDRAW") == "0":
        assert not draw_native.available() and "EXACTDP_CDRAW=0" in text


# ---- one comparison at a time ----

numbers = st.one_of(
    st.integers(-3, 3), st.integers(-(1 << 70), 1 << 70), st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-2.0, 2.0), st.floats(0, 1e-300, allow_subnormal=True),
    st.sampled_from([0.0, -0.0, 0.5, 0.75, math.exp(-1), 5e-324, 1 - 2**-53, 1.0,
                     math.inf, -math.inf, math.nan]),
    st.fractions(min_value=-3, max_value=3, max_denominator=50))


def _value(cls: type, scale: int, lo: int, width: int, offset: int,
           seed: int) -> tuple[Any, list[int], list[Any]]:
    """A lazy value on ``[lo, lo + width)`` whose coins and branches are drawn from
    ``random.Random(seed)`` and logged."""
    log: list[Any] = []
    rng = random.Random(seed)

    def coin(num: int, den: int) -> bool:
        log.append(("coin", num, den))
        return rng.randrange(den) < num

    def branch(lengths: tuple[int, ...]) -> int:
        log.append(("branch", lengths))
        return Parts(lengths).search(rng.randrange(sum(lengths)) + 1)

    def escape(what: str) -> Any:
        log.append(("escape", what))
        raise RestartExploration(what)

    cell = [lo, lo + width]
    return fresh(cls, cell, context(scale, branch, escape, coin), offset), cell, log


def _answers(value: Any, steps: list[tuple[str, Any, bool]], reference: bool) -> list[Any]:
    out: list[Any] = []
    for op, x, reflected in steps:
        try:
            if reference:
                out.append(value._compare(x, op))
            elif reflected and type(x) is not Fraction:  # (Fraction's own == reads the
                out.append(OPS[REFLECTED[op]](x, value))  # value's class: an escape)
            else:
                out.append(OPS[op](value, x))
        except RestartExploration:
            out.append("escaped")
            break
    return out


@settings(max_examples=400, deadline=None)
@given(lazy_int=st.booleans(), scale=st.sampled_from([1 << 53, 1, 7, 1 << 10]),
       lo=st.integers(0, 1 << 12), width=st.integers(1, 1 << 54),
       offset=st.integers(-(1 << 54), 1 << 54),
       steps=st.lists(st.tuples(st.sampled_from(sorted(OPS)), numbers, st.booleans()),
                      min_size=1, max_size=6),
       seed=st.integers(0, 1000))
def test_comparisons_are_the_reference(lazy_int: bool, scale: int, lo: int, width: int,
                                       offset: int, steps: list[tuple[str, Any, bool]],
                                       seed: int) -> None:
    """Operators (the C comparisons where built, else the Python fast paths) against
    ``_compare``, the reference, on one value compared several times (its cell shrinking;
    a float met again is read from what the last comparison kept)."""
    cls, scale = (LazyInt, 1) if lazy_int else (LazyUnit, scale)
    a, cell_a, log_a = _value(cls, scale, lo, width, offset, seed)
    b, cell_b, log_b = _value(cls, scale, lo, width, offset, seed)
    assert _answers(a, steps, False) == _answers(b, steps, True)
    assert cell_a == cell_b
    assert log_a == log_b


def test_comparisons_cut_where_the_rules_say() -> None:
    """Known cuts, worked by hand: ``j / 2**53 < 0.75`` holds for ``j < 3 * 2**51``; with
    offset 5 and scale 10, ``(5 + j) / 10 <= 1`` for ``j <= 5``; ``offset + j == 3`` on
    ``[0, 6)`` with offset 1 is ``j == 2``: three parts."""
    u, cell, log = _value(LazyUnit, 1 << 53, 0, 1 << 53, 0, 1)
    u < 0.75  # noqa: B015
    assert log == [("coin", 3 << 51, 1 << 53)]
    assert cell in ([0, 3 << 51], [3 << 51, 1 << 53])
    v, cell, log = _value(LazyUnit, 10, 0, 100, 5, 2)
    v <= 1  # noqa: B015
    assert log == [("coin", 6, 100)]
    k, cell, log = _value(LazyInt, 1, 0, 6, 1, 3)
    k == 3  # noqa: B015
    assert log == [("branch", (2, 1, 3))]
    w, cell, log = _value(LazyUnit, 1 << 53, 0, 1 << 53, 0, 4)
    nan = math.nan
    assert (w < math.inf, w > nan, w != nan, w == 0.3) == (True, False, True, False)
    assert log == [] and cell == [0, 1 << 53]  # no j gives 0.3 exactly


# ---- the coin, in explorations ----

def _program(thresholds: list[Any], native_coin: bool, limit: int | None,
             paths: list[Any]) -> Any:
    """Code comparing one lazy value per threshold (int draws for ints), with the coin of
    a guarded exploring source: called by the C comparisons directly (``native_coin``)
    or through a Python function (the Python methods then)."""

    def f(src: Any) -> Any:
        gs = GuardedSource(src, limit, 0)
        coin = gs.explore_coin if native_coin else (lambda n, d: gs.explore_coin(n, d))

        def branch(lengths: tuple[int, ...]) -> int:
            return src.inverse_cdf(Parts(lengths))

        units = context(1 << 53, branch, _escape, coin)
        ints = context(1, branch, _escape, coin)
        out = []
        for x in thresholds:
            if type(x) is int:
                k = fresh(LazyInt, [0, 6], ints, 0)
                out.append((k < x, k == x - 1) if native_coin
                           else (k._compare(x, "<"), k._compare(x - 1, "==")))
            else:
                u = fresh(LazyUnit, [0, 1 << 53], units, 0)
                out.append((u < x,) if native_coin else (u._compare(x, "<"),))
        paths.append((tuple(src.choices), list(src.log), src.num, src.den, gs.draws))
        return tuple(out)

    return f


def _escape(what: str) -> Any:
    raise RestartExploration(what)


def _explored(thresholds: list[Any], native_coin: bool, **kwargs: Any) -> Any:
    paths: list[Any] = []
    limit = kwargs.pop("limit", None)
    try:
        law: Any = explore(_program(thresholds, native_coin, limit, paths), **kwargs)
    except ExplorationIncomplete as exc:
        law = ("incomplete", exc.partial, exc.covered, exc.runs, exc.cut, exc.reason)
    except (Exception, Abort) as exc:  # noqa: BLE001 - compared, not hidden
        law = (type(exc).__name__, str(exc))
    return law, paths


thresholds = st.lists(st.one_of(st.integers(1, 5), st.sampled_from([0.5, 0.75, 1 / 3]),
                                st.floats(0.01, 0.99)), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(xs=thresholds, max_draws=st.sampled_from([None, 2, 3]),
       limit=st.sampled_from([None, 1 << 60, 1 << 200]))
def test_the_coin_in_c_is_the_coin_in_python(xs: list[Any], max_draws: int | None,
                                             limit: int | None) -> None:
    """The same laws (or the same cut-off, or the same randomness-domain stop), and on every
    path the same choices, draw records, weights and charged draws."""
    native_run = _explored(xs, True, max_draws=max_draws, limit=limit)
    python_run = _explored(xs, False, max_draws=max_draws, limit=limit)
    assert native_run == python_run
    law = native_run[0]
    if max_draws is None and limit is None:
        assert isinstance(law, dict) and sum(law.values()) == 1


def test_a_replay_that_differs_is_named_either_way() -> None:
    """A threshold that moves between runs: the replayed coin differs, and both coins stop
    the exploration with the same message."""
    for native_coin in (True, False):
        moving = iter(Fraction(1, 2) + Fraction(k, 1 << 20) for k in range(100))
        paths: list[Any] = []

        def f(src: Any, native_coin: bool = native_coin, paths: list[Any] = paths,
              moving: Any = moving) -> Any:
            x = float(next(moving))
            return _program([x, x], native_coin, None, paths)(src)

        with pytest.raises(NondeterminismError, match="draw 0 offered 2 options of weights"):
            explore(f)


# ---- whole reports, and planted bugs ----

def _reports(planted: str = "", cases: str = "", cdraw: bool = True) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("EXACTDP_NATIVE", None)
    env["EXACTDP_CDRAW"] = "1" if cdraw else "0"
    args = [sys.executable, str(SCRIPT), planted] + ([cases] if cases else [])
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT,
                          check=True, timeout=600)
    out: dict[str, Any] = json.loads(done.stdout)
    return out


@pytest.fixture(scope="module")
def python_reports() -> dict[str, Any]:
    return _reports(cdraw=False)


@native
def test_c_and_python_give_the_same_reports(python_reports: dict[str, Any]) -> None:
    reports = _reports()
    assert reports.pop("status") == "native"
    assert python_reports.pop("status", "disabled") == "disabled"
    assert reports == python_reports
    verdicts = {name: r.get("verdict", r.get("raised")) for name, r in reports.items()}
    assert verdicts["rr"] == verdicts["svt1_sym"] == verdicts["compared_twice"] == "pass"
    assert verdicts["many_operands"] == verdicts["loop"] == "violation"
    assert verdicts["drifting"] == verdicts["np_drifting"] == verdicts["np_limited"] == "broken"
    assert verdicts["np_svt"] == verdicts["np_choices"] == verdicts["plain_randrange"] == "pass"


def _planted(tmp_path: Path, old: str, new: str) -> Path | None:
    return build_planted_c(ROOT / "exactdp" / "audit" / "_cdraw.c", tmp_path, old, new)


PLANTED: list[tuple[str, ...]] = [
    # floor instead of ceiling for an int operand (<, >=)
    ("cut = ceiling ? (Py_INCREF(num), num) : PyNumber_Add(num, s_one);",
     "cut = !ceiling ? (Py_INCREF(num), num) : PyNumber_Add(num, s_one);", "walk,equalities"),
    # floor(num / x1) instead of floor + 1 for a float operand (<=, >)
    ("cut = q == NULL ? NULL : PyNumber_Add(q, s_one);", "cut = q; Py_XINCREF(q);",
     "many_operands"),
    # off by one at the cell's end: a cut at hi is branched on as if inside
    ("if ((c = cmp(cut, hi, Py_GE)) != 0) {", "if ((c = cmp(cut, hi, Py_GT)) != 0) {",
     "compared_twice"),
    # == at the cell's last value: the part [hi - 1, hi) taken as empty
    ("same = below(self, last, 0);", "same = below(self, hi, 0);", "equalities"),
    # == at the cell's start: the part [lo, lo + 1) taken as [lo, lo + 2)
    ("PyObject *next = PyNumber_Add(lo, one);", "PyObject *next = PyNumber_Add(lo, s_two);",
     "equalities"),
    # a replayed coin that differs from the run it replays is accepted
    ("        if (!m) {  /* a mismatch: the Python method records it */\n            goto python;",
     "        if (0) {  /* a mismatch: the Python method records it */\n            goto python;",
     "drifting"),
    # the path's weight multiplied by the wrong part
    ("PyObject *a = PyNumber_Multiply(wnum, num);", "PyObject *a = PyNumber_Multiply(wnum, rest);",
     "rr"),
    # random's own methods handed lazy values
    ("    if (own || PyErr_Occurred()) {", "    if (PyErr_Occurred()) {", "own_methods"),
    # randrange(n) handed a draw on [0, 2) whatever n
    ("lazy_draw(engine, 0, n, &value)", "lazy_draw(engine, 0, s_two, &value)",
     "svt1_sym,equalities"),
    # random() handed a value on [0, 2 / 2**53)
    ("lazy_draw(engine, 1, s_unit_n, &value)", "lazy_draw(engine, 1, s_two, &value)", "rr",
     "slow"),
    # a lazy value on [0, 2) whatever it is drawn on (random() and randrange)
    ("    Py_INCREF(n);\n    PyList_SET_ITEM(cell, 1, n);",
     "    Py_INCREF(s_two);\n    PyList_SET_ITEM(cell, 1, s_two);", "rr,svt1_sym,equalities",
     "slow"),
    # numpy's choice(a) drawn on [0, len(a) - 1)
    ("PyObject *n = PyLong_FromSsize_t(Py_SIZE(args[1]));",
     "PyObject *n = PyLong_FromSsize_t(Py_SIZE(args[1]) - 1);", "np_choices"),
    # integers(0) drawn (numpy refuses it: low >= high)
    ("&& PyLong_CheckExact(args[1]) && cmp(args[1], s_one, Py_GE) == 1) {",
     "&& PyLong_CheckExact(args[1]) && cmp(args[1], s_zero, Py_GE) == 1) {", "np_refused",
     "slow"),
    # a new draw takes option 1, not 0
    ("        j = s_zero;\n        Py_INCREF(j);", "        j = s_one;\n        Py_INCREF(j);",
     "np_svt", "slow"),
    # a replayed draw that differs from the run it replays is accepted
    (("                || cmp(PyTuple_GET_ITEM(entry, 0), n, Py_EQ) != 1\n"
      "                || cmp(PyTuple_GET_ITEM(entry, 3), n, Py_EQ) != 1) {"), ") {",
     "np_drifting"),
    # the draw not charged against the declared domain
    ("if (new_size != NULL && PyObject_SetAttr(gs, str_size, new_size) < 0) {", "if (0) {",
     "np_limited"),
    # the declared domain passed without the Python method's stop
    ("if (new_size == NULL || cmp(new_size, limit, Py_GT) != 0) {", "if (new_size == NULL) {",
     "np_limited", "slow"),
    # the path's weight multiplied by 1/2 whatever the draw
    ("PyObject *product = PyNumber_Multiply(wden, n);",
     "PyObject *product = PyNumber_Multiply(wden, s_two);", "np_svt", "slow"),
    # randrange(n) drawn on [0, 2) when integer draws are not lazy
    ("        r = engine_draw(engine, n, &value);",
     "        r = engine_draw(engine, s_two, &value);", "plain_randrange"),
]


@native
@pytest.mark.parametrize(("old", "new", "cases"), [  # (a 4th item: a slow case, -m slow)
    pytest.param(*p[:3], id=p[2], marks=[pytest.mark.slow] if p[3:] else []) for p in PLANTED])
def test_planted_c_bug_is_caught(tmp_path: Path, python_reports: dict[str, Any], old: str,
                                 new: str, cases: str) -> None:
    target = _planted(tmp_path, old, new)
    if target is None:
        pytest.skip("no C compiler or Python headers")
    try:
        planted = _reports(str(target), cases)
    except subprocess.CalledProcessError as exc:  # a crash is caught too
        assert exc.returncode != 0
        return
    assert planted.pop("status") == "native"
    assert any(planted[name] != python_reports[name] for name in cases.split(","))


# ---- the operation count ----

class _PythonLazy(LazyUnit):
    """A LazyUnit whose comparisons are the Python ones (``_ordered`` / ``_equality``)
    whatever its base: the reference of the operation count."""

    __slots__ = ()
    __lt__ = facade_lazy._ordered("<", True, True)
    __le__ = facade_lazy._ordered("<=", False, True)
    __gt__ = facade_lazy._ordered(">", False, False)
    __ge__ = facade_lazy._ordered(">=", True, False)
    __eq__ = facade_lazy._equality("==")  # type: ignore[assignment]
    __ne__ = facade_lazy._equality("!=")  # type: ignore[assignment]
    __hash__ = LazyUnit.__hash__


def compares(u: Any) -> tuple[bool, ...]:
    """Comparisons of every kind: ints, floats, a Fraction and a bool (the Python methods,
    called from C), nan, ==, !=."""
    third, nan = Fraction(1, 3), math.nan
    return (u < third, u <= 0.5, u == 0.25, u != 1, u > nan, u >= True, 0.75 > u,
            u < 0.75, u == 2**-53)


@pytest.mark.parametrize("seed", range(6))
def test_the_operation_count_does_not_see_the_comparisons(seed: int) -> None:
    """The audited code's operation count is the same whichever code compares (no Python
    frame run for a comparison is counted: the coins here are this module's functions)."""
    counts, answers = [], []
    for cls in (LazyUnit, _PythonLazy):
        u, _, log = _value(cls, 1 << 53, 0, 1 << 53, 0, seed)
        with Counting(None).run() as counter:
            answers.append(Guard(None).call(compares, (u,), "f", {}))
        counts.append(counter.observed())
        answers.append(log)
    assert counts[0] == counts[1]
    assert answers[0] == answers[2] and answers[1] == answers[3]
    assert counts[0][0] > 0


COUNTED = """
import sys
from pathlib import Path
import exactdp.native_library as nl
real = nl.candidates
nl.candidates = lambda f, name: [Path(sys.argv[1])] if name == "_cdraw" else real(f, name)
sys.path.insert(0, sys.argv[2])
import test_audit_cdraw as t
failed = 0
for seed in range(6):
    try:
        t.test_the_operation_count_does_not_see_the_comparisons(seed)
    except AssertionError:
        failed += 1
print(t.draw_native.status().split(" ")[0], failed)
"""


@native
@pytest.mark.parametrize(("old", "new"), [
    # a Python coin called with tracing on (the coins are the audited code's callees then)
    ("PyObject *r = call_untraced(coin, args, 2);",
     "PyObject *r = PyObject_Vectorcall(coin, args, 2, NULL);"),
])
def test_planted_counted_callback_is_caught(tmp_path: Path, old: str, new: str) -> None:
    target = _planted(tmp_path, old, new)
    if target is None:
        pytest.skip("no C compiler or Python headers")
    done = subprocess.run([sys.executable, "-c", COUNTED, str(target), str(ROOT / "tests")],
                          capture_output=True, text=True, cwd=ROOT, check=True, timeout=300)
    status, failed = done.stdout.split()
    assert status == "native" and int(failed) > 0


# ---- the exact sums of path weights (powers of two without a gcd) ----

dens = st.one_of(st.integers(0, 300).map(lambda k: 1 << k), st.integers(1, 1 << 200))


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(st.integers(0, 1 << 400), st.integers(0, 300).map(lambda k: 1 << k),
                   st.tuples(st.integers(1, 1 << 30), st.integers(0, 300)).map(
                       lambda t: t[0] << t[1])), b=dens)
def test_gcd_of_a_power_of_two_is_the_gcd(a: int, b: int) -> None:
    assert explore_module._gcd(a, b) == math.gcd(a, b)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(dens, st.integers(0, 1 << 210), min_size=1, max_size=6))
def test_sums_of_weights_are_exact_and_in_lowest_terms(parts: dict[int, int]) -> None:
    got = explore_module._sum(parts)
    want = sum((Fraction(n, d) for d, n in parts.items()), Fraction(0))
    assert got == want
    assert (got.numerator, got.denominator) == (want.numerator, want.denominator)
    assert math.gcd(got.numerator, got.denominator) == 1 and got.denominator > 0
