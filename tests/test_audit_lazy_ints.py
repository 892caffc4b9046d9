"""Integer draws handed out lazily (:class:`exactdp.audit.facade_lazy.LazyInt`): the exact law
of code drawing ``randrange``/``randint``/``secrets.randbelow`` must equal the law computed by
brute force over every value of every draw, whether the draw stays lazy (only compared),
is shifted (``randint``) or escapes (indexing, arithmetic, returned): and comparisons must
take fewer paths than the values."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from _plant import plant
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import facade_lazy, whitebox_audit
from exactdp.audit.facade_lazy import LazyInt, LazyUnit
from exactdp.audit.facades import facade_mechanism
from exactdp.claims import ratio_claim
from exactdp.explore import explore


class _Fixed(random.Random):
    """A ``random.Random`` whose ``randrange``/``_randbelow`` draws are the given values (the
    brute-force reference: every value of every draw, by stdlib code on plain ints)."""

    def __init__(self, values: tuple[int, ...]) -> None:
        super().__init__(0)
        self.values, self.sizes = list(values), []

    def _randbelow(self, n: int) -> int:  # type: ignore[override]
        self.sizes.append(n)
        return self.values.pop(0) if self.values else 0

    def randbelow(self, n: int) -> int:
        return self._randbelow(n)


def brute_force(program: Callable[[Any, Any], Any], sizes: tuple[int, ...]) -> dict[Any, Fraction]:
    """The law of ``program(0, rng)`` by running it on every tuple of draw values, for code
    whose draws are on ``[0, sizes[i])`` in that order, or a prefix of them (checked on every
    run; the values of draws a run does not make are summed over)."""
    law: dict[Any, Fraction] = {}
    total = 1
    for n in sizes:
        total *= n
    for values in itertools.product(*(range(n) for n in sizes)):
        rng = _Fixed(values)
        out = program(0, rng)
        assert tuple(rng.sizes) == sizes[:len(rng.sizes)]
        law[out] = law.get(out, Fraction(0)) + Fraction(1, total)
    return dict(sorted(law.items(), key=repr))


def sym(rng: Any) -> int:
    u = rng.randrange(4)
    return 0 if u < 2 else (1 if u == 2 else -1)


def svt(c: Any, rng: Any) -> tuple[bool, ...]:
    rho = sym(rng)
    out = []
    for q in (0, 1, 1):
        if q + sym(rng) + sym(rng) >= 1 + rho:
            out.append(True)
            break
        out.append(False)
    return tuple(out)


PROGRAMS: list[tuple[str, Callable[[Any, Any], Any], tuple[int, ...]]] = [
    ("sym", lambda c, r: sym(r), (4,)),
    ("randint(1, 6) >= 4", lambda c, r: r.randint(1, 6) >= 4, (6,)),
    ("randrange(-5, 5) < 0", lambda c, r: r.randrange(-5, 5) < 0, (10,)),
    ("randrange(3, 20, 4) == 7 (multiplied: escapes)", lambda c, r: r.randrange(3, 20, 4) == 7,
     (5,)),
    ("randint(0, 9) - 3 in (1, 2)", lambda c, r: r.randint(0, 9) - 3 in (1, 2), (10,)),
    ("randrange(1000) < 7", lambda c, r: r.randrange(1000) < 7, (1000,)),
    ("randrange(6) returned", lambda c, r: r.randrange(6), (6,)),
    ("(randrange(3), randrange(2)) returned", lambda c, r: (r.randrange(3), r.randrange(2)),
     (3, 2)),
    ("table[randrange(4)] (indexed: escapes)", lambda c, r: (0, 0, 1, -1)[r.randrange(4)], (4,)),
    ("randrange(5) + randrange(5) (two draws added: escapes)",
     lambda c, r: r.randrange(5) + r.randrange(5), (5, 5)),
    ("choice", lambda c, r: r.choice("abca"), (4,)),
    ("bool(randrange(3))", lambda c, r: bool(r.randrange(3)), (3,)),
    ("max(randrange(4), 2)", lambda c, r: max(r.randrange(4), 2) == 2, (4,)),
    ("svt", svt, (4,) * 7),
]


@pytest.mark.parametrize(("label", "program", "sizes"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
@pytest.mark.parametrize("lazy", [True, False])
def test_law_equals_brute_force(label: str, program: Callable[[Any, Any], Any],
                                sizes: tuple[int, ...], lazy: bool) -> None:
    mech = facade_mechanism(program, "random", lazy=lazy)
    law = explore(lambda source: mech(0, source))
    want = brute_force(program, sizes)
    assert dict(sorted(law.items(), key=repr)) == want


def test_secrets_randbelow_compared_lazily() -> None:
    import secrets

    program = (lambda c, r: secrets.randbelow(1000) < 3)
    mech = facade_mechanism(program, "secrets", patch_modules=[secrets])
    assert explore(lambda source: mech(0, source)) == {False: Fraction(997, 1000),
                                                       True: Fraction(3, 1000)}


def _paths(program: Callable[[Any, Any], Any], lazy: bool) -> int:
    mech = facade_mechanism(program, "random", lazy=lazy)
    runs = [0]

    def run(source: Any) -> Any:
        runs[0] += 1
        return mech(0, source)

    explore(run)
    return runs[0]


def test_comparisons_take_fewer_paths() -> None:
    """``sym`` compares its draw twice: 3 paths instead of 4; one comparison of a draw on
    [0, 200): 2 paths instead of 200."""
    assert (_paths(lambda c, r: sym(r), True), _paths(lambda c, r: sym(r), False)) == (3, 4)
    below = (lambda c, r: r.randrange(200) < 7)
    assert (_paths(below, True), _paths(below, False)) == (2, 200)
    # svt: 7 draws of 4 values
    assert _paths(svt, True) < _paths(svt, False) // 4


def svt_of(c: tuple[int, ...], rng: Any) -> tuple[bool, ...]:
    rho = sym(rng)
    out = []
    for q in c:
        if q + sym(rng) + sym(rng) >= 1 + rho:
            out.append(True)
            break
        out.append(False)
    return tuple(out)


def test_audit_verdict_and_ratio_equal_brute_force() -> None:
    """The white-box audit of SVT on 2 queries: the worst ratio over the linf neighbours
    equals the one computed from brute-force laws, with lazy draws and without."""
    inputs = [(a, b) for a in (0, 1) for b in (0, 1)]
    laws = {c: brute_force(lambda _, r, c=c: svt_of(c, r), (4,) * 5) for c in inputs}
    worst = Fraction(0)
    for x, y in itertools.permutations(inputs, 2):
        for out, p in laws[x].items():
            q = laws[y].get(out, Fraction(0))
            worst = max(worst, p / q) if q else worst
    reports = [whitebox_audit(facade_mechanism(svt_of, "random", lazy=lazy),
                              claimed_epsilon=ratio_claim(worst), kind="source",
                              inputs=inputs, neighbours=list(itertools.permutations(inputs, 2)))
               for lazy in (True, False)]
    for report in reports:
        assert report.verdict == "pass"
        assert report.worst is not None and report.worst.ratio == worst
        assert {c: dict(d) for c, d in report.distributions.items()} == \
            {c: dict(laws[c]) for c in inputs}
    assert reports[0].trace is not None and reports[1].trace is not None
    assert reports[0].trace.same == reports[1].trace.same


@pytest.mark.parametrize(("owner", "name", "old", "new", "bound"), [
    (LazyInt, "_shifted", "self._offset + sign * int(k)", "self._offset + sign * int(k) + 1",
     4),
    (LazyUnit, "_compare", "ceil = -(-num // den)", "ceil = -(-num // den) + 1", Fraction(4)),
    (facade_lazy, "_ordered", "cut = other * ctx[0] - self._offset",
     "cut = other * ctx[0] - self._offset + 1", 4),
])
def test_planted_lazy_bug_is_caught(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str,
                                    old: str, new: str, bound: Any) -> None:
    """A shifted integer draw off by one, and a ``<`` comparison cut one value late (with
    a ``Fraction``, or with an int read by the comparison itself): the law no longer
    equals the brute-force one."""
    plant(monkeypatch, owner, name, old, new)
    if owner is facade_lazy:
        monkeypatch.setattr(LazyUnit, "__lt__", facade_lazy._ordered("<", True, True))
    program = (lambda c, r: r.randint(1, 6) < bound)
    mech = facade_mechanism(program, "random")
    assert explore(lambda source: mech(0, source)) != brute_force(program, (6,))


@pytest.mark.parametrize("planted", [False, True])
def test_a_float_comparison_cuts_at_the_threshold(monkeypatch: pytest.MonkeyPatch,
                                                  planted: bool) -> None:
    """``random() < x`` for a float ``x`` holds for the ``j`` with ``j / 2**53 < x``: a
    cut one value late (planted in the comparison's float reading) changes the law."""
    if planted:
        plant(monkeypatch, facade_lazy, "_ordered", "cut = -(-num // x1) if ceiling",
              "cut = -(-num // x1) + 1 if ceiling")
        monkeypatch.setattr(LazyUnit, "__lt__", facade_lazy._ordered("<", True, True))
    x = 0.3
    below = -(-Fraction(x).numerator * 2**53 // Fraction(x).denominator)  # j < x * 2**53
    want = {False: 1 - Fraction(below, 2**53), True: Fraction(below, 2**53)}
    mech = facade_mechanism(lambda c, r: r.random() < x, "random")
    assert (explore(lambda source: mech(0, source)) == want) is not planted


_OPS = {"<": lambda v, x: v < x, "<=": lambda v, x: v <= x, ">": lambda v, x: v > x,
        ">=": lambda v, x: v >= x, "==": lambda v, x: v == x, "!=": lambda v, x: v != x}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 9), shift=st.integers(-3, 3),
       steps=st.lists(st.tuples(st.sampled_from(sorted(_OPS)),
                                st.integers(-4, 12), st.sampled_from([0, 1, 2, 4])),
                      min_size=1, max_size=5))
def test_chains_of_comparisons_equal_brute_force(n: int, shift: int,
                                                 steps: list[tuple[str, int, int]]) -> None:
    """One integer draw (shifted), compared several times with ints and floats (``k / d``,
    ``d = 0``: the int ``k``) by every operator -- the comparisons read a plain int or
    float operand themselves: the law equals the brute-force one."""
    def program(c: Any, rng: Any) -> tuple[bool, ...]:
        v = rng.randrange(n) + shift
        return tuple(_OPS[op](v, k if d == 0 else k / d) for op, k, d in steps)

    mech = facade_mechanism(program, "random")
    assert explore(lambda source: mech(0, source)) == brute_force(program, (n,))


@pytest.mark.parametrize(("old", "new"), [
    ("same = self._below(lo + 1, True)", "same = self._below(lo + 2, True)"),
    ("same = self._below(hi - 1, False)", "same = self._below(hi - 1, True)"),
    ("return not want", "return want"),
])
def test_planted_equality_bug_is_caught(monkeypatch: pytest.MonkeyPatch, old: str,
                                        new: str) -> None:
    """``==`` at the low end of the cell, at its high end, and with a float no value
    equals, each planted wrong in the comparison's own reading: the law differs."""
    plant(monkeypatch, facade_lazy, "_equality", old, new)
    monkeypatch.setattr(LazyUnit, "__eq__", facade_lazy._equality("=="))

    def program(c: Any, rng: Any) -> tuple[bool, ...]:
        v = rng.randint(1, 6)
        return v == 1, v == 6, v == 2.5, v == 3

    mech = facade_mechanism(program, "random")
    assert explore(lambda source: mech(0, source)) != brute_force(program, (6,))
