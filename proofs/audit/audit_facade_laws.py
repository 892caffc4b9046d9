"""The audit's randomness facades draw what the libraries they stand for define: ``random()``
is ``j / 2**53`` for ``j`` uniform on ``[0, 2**53)``, and every integer method is uniform
on its options."""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from itertools import pairwise, permutations
from math import ceil, floor
from typing import Any

from exactdp.audit.facade_floats import FLOAT_BITS, as_unit_float
from exactdp.audit.facades import (
    LegacyNumpyFacade,
    NumpyFacade,
    RandomFacade,
    SecretsFacade,
    facade_mechanism,
)
from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.proofs.audit._programs import (
    Program,
    below,
    bucket,
    compare,
    uniform_below,
    unit_value,
)

CLAIM = "Audit facades: random() = j/2^53 (j uniform), integer draws uniform (exact laws)"
STATEMENT = """For each facade (random.Random, secrets / SystemRandom, numpy Generator, numpy
RandomState and the np.random functions): a double draw (random(), random_sample(), rand())
makes one draw j on [0, 2^53) and returns exactly j/2^53, for EVERY j; so Pr[random() < k/2^53]
= k/2^53 for every k in [0, 2^53].  randrange, randint, choice, getrandbits, shuffle, sample,
randbelow, randbits, integers and numpy's choice make one draw on [0, n) per choice and are
uniform on their options (shuffle and sample: on the arrangements); uniform(a, b) is
a + (b - a) random()."""
PROOF_IDEA = """Two views of each facade, both from the implementation.  The value map: the facade
run on an engine that answers one chosen j (j = 0, 1, 2, 2^i - 1, 2^i, 2^i + 1 for every
i < 53, 2^53 - 2, 2^53 - 1) must ask for a draw on [0, 2^53) and return the double whose
exact ratio is j/2^53 (and an integer method, at both ends of its range, the option j).  The
law: programs written as people write them (random() < k/2^53 for k at both ends, powers
of two and odd points; the 256 intervals int(random() * 256); randrange(10^6) < 1000; a
shuffle of four items...) are explored through the facade exactly as the white-box audit
does (a draw of more than 256 values is split into the pieces of [0, n) on which the rest
of the run is constant, each weighed by its length over n, so the whole range [0, 2^53) is
covered without enumerating it), and each explored law must equal the law the definition
gives, counted in integers (k/2^53, 1/256 each, 1000/10^6, 1/24 each...)."""

TOP = 1 << 53
Law = dict[Hashable, Fraction]


def _threshold(k: int) -> Law:
    """Pr[j/2^53 < k/2^53] = k/2^53 by the definition."""
    law = {True: Fraction(k, TOP), False: Fraction(TOP - k, TOP)}
    return {o: p for o, p in law.items() if p}


def _uniform(options: Any) -> Law:
    values = list(options)
    return {v: Fraction(values.count(v), len(values)) for v in set(values)}


def _share(hits: int, n: int) -> Law:
    return {o: p for o, p in {True: Fraction(hits, n), False: Fraction(n - hits, n)}.items()
            if p}


#: Thresholds k of ``random() < k/2^53``: both ends, powers of two and their neighbours,
#: and odd points (quick); more points on the full grid.
QUICK_K = (0, 1, 2, 3, (1 << 26) + 1, (1 << 52) - 1, 1 << 52, (1 << 52) + 1,
           3 * (1 << 50) + 7, TOP - 2, TOP - 1, TOP)
FULL_K = QUICK_K + tuple(1 << i for i in range(0, 53, 4)) + tuple((1 << i) - 1
                                                                  for i in range(2, 54, 4))
OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne}
#: The doubles nearest 0.1 and 1/3, exactly.
TENTH = Fraction(3602879701896397, 1 << 55)
THIRD = Fraction(6004799503160661, 1 << 54)
#: One random() value compared several times: (op, threshold, compared as a double).
COMPARISONS: tuple[tuple[tuple[str, Fraction | int, bool], ...], ...] = (
    (("<", TENTH, True), ("<=", Fraction(3, 4), True), (">", Fraction(1, 3), False),
     ("==", 0, False)),
    (("<", Fraction(1, TOP), True), (">=", Fraction(TOP - 1, TOP), True), ("!=", 0, False),
     ("<=", 1, False)),
    ((">=", THIRD, True), ("<", THIRD, True), ("==", Fraction(1, 2), True)),
    (("<=", 0, True), (">", Fraction(TOP - 1, TOP), True), ("<", Fraction(1, 7), False)),
)


def compared(tests: Sequence[tuple[str, Fraction | int, bool]]) -> Law:
    """The definition's law of the answers ``(j/2^53 OP x, ...)``, ``j`` uniform on
    ``[0, 2^53)``: every answer is constant between the cuts ``floor(x 2^53)``,
    ``floor(x 2^53) + 1`` and ``ceil(x 2^53)``, so each stretch between consecutive cuts is
    weighed by its length and decided at its first ``j`` (exact rationals)."""
    cuts = {0, TOP}
    for _, x, _ in tests:
        y = Fraction(x) * TOP
        cuts |= {v for v in (floor(y), floor(y) + 1, ceil(y)) if 0 <= v <= TOP}
    law: Law = {}
    for a, b in pairwise(sorted(cuts)):
        key = tuple(OPS[op](Fraction(a, TOP), x) for op, x, _ in tests)
        law[key] = law.get(key, Fraction(0)) + Fraction(b - a, TOP)
    return law


#: The double-draw methods of each facade kind.
DOUBLES = {"random": ("random",), "secrets": ("random",), "numpy": ("random",),
           "numpy-legacy": ("random", "random_sample", "rand", "sample")}


def _shuffled(c: Any, rng: Any) -> tuple[int, ...]:
    items = [1, 2, 3, 4]
    rng.shuffle(items)
    return tuple(items)


def _integer_cases(kind: str) -> list[tuple[str, Program, Law]]:
    """(label, program, the definition's law) of each integer method of a facade kind."""
    if kind == "random":
        return [
            ("randrange(3, 20, 4)", lambda c, r: r.randrange(3, 20, 4), _uniform(range(3, 20, 4))),
            ("randrange(-5, 5)", lambda c, r: r.randrange(-5, 5), _uniform(range(-5, 5))),
            ("randrange(10^6) < 1000", lambda c, r: r.randrange(10**6) < 1000,
             _share(1000, 10**6)),
            ("randint(1, 6)", lambda c, r: r.randint(1, 6), _uniform(range(1, 7))),
            ("randint(0, 10^9) < 10^6", lambda c, r: r.randint(0, 10**9) < 10**6,
             _share(10**6, 10**9 + 1)),
            ("choice('abca')", lambda c, r: r.choice("abca"), _uniform("abca")),
            ("choice(range(1000)) < 7", lambda c, r: r.choice(range(1000)) < 7,
             _share(7, 1000)),
            ("getrandbits(3)", lambda c, r: r.getrandbits(3), _uniform(range(8))),
            ("getrandbits(64) >> 60", lambda c, r: r.getrandbits(64) >> 60,
             _uniform(range(16))),
            ("getrandbits(0)", lambda c, r: r.getrandbits(0), {0: Fraction(1)}),
            ("shuffle([1, 2, 3, 4])", _shuffled, _uniform(permutations([1, 2, 3, 4]))),
            ("sample(range(5), 2)", lambda c, r: tuple(r.sample(range(5), 2)),
             _uniform(permutations(range(5), 2))),
            ("uniform(0, 2) < 1", uniform_below(0, 2, 1), _share(1, 2)),
        ]
    if kind == "secrets":
        return [
            ("randbelow(7)", lambda c, r: r.randbelow(7), _uniform(range(7))),
            ("randbelow(10^6) < 1000", lambda c, r: r.randbelow(10**6) < 1000,
             _share(1000, 10**6)),
            ("randbits(5)", lambda c, r: r.randbits(5), _uniform(range(32))),
            ("choice('xyz')", lambda c, r: r.choice("xyz"), _uniform("xyz")),
            ("randrange(2, 9)", lambda c, r: r.randrange(2, 9), _uniform(range(2, 9))),
        ]
    if kind == "numpy":
        return [
            ("integers(10)", lambda c, r: r.integers(10), _uniform(range(10))),
            ("integers(3, 8)", lambda c, r: r.integers(3, 8), _uniform(range(3, 8))),
            ("integers(3, 8, endpoint=True)", lambda c, r: r.integers(3, 8, endpoint=True),
             _uniform(range(3, 9))),
            ("integers(0, 10^6) < 1000", lambda c, r: r.integers(0, 10**6) < 1000,
             _share(1000, 10**6)),
            ("choice([5, 6, 6])", lambda c, r: r.choice([5, 6, 6]), _uniform([5, 6, 6])),
            ("choice(5)", lambda c, r: r.choice(5), _uniform(range(5))),
            ("uniform(0, 2) < 1", uniform_below(0, 2, 1), _share(1, 2)),
        ]
    return [
        ("randint(2, 9)", lambda c, r: r.randint(2, 9), _uniform(range(2, 9))),
        ("randint(7)", lambda c, r: r.randint(7), _uniform(range(7))),
        ("choice(4)", lambda c, r: r.choice(4), _uniform(range(4))),
    ]


def law_of(kind: str, program: Program, lazy: bool = True) -> tuple[Law, bool]:
    """The exact law of ``program(0, facade)``, explored as the white-box audit does
    (``lazy=False``: every draw explored by its effect), and whether a ``random()`` value
    was compared lazily on the way."""
    mech = facade_mechanism(program, kind, lazy=lazy)
    law = explore(lambda source: mech(0, source))
    return law, bool(getattr(mech, "lazy_used", False))


def _cases(kind: str, full: bool) -> list[tuple[str, Program, Law]]:
    cases: list[tuple[str, Program, Law]] = []
    for method in DOUBLES[kind]:
        ks = (FULL_K if full else QUICK_K) if method == DOUBLES[kind][0] else (1, 1 << 52,
                                                                              TOP - 1)
        cases += [(f"{method}() < {k}/2^53", below(k, method), _threshold(k)) for k in ks]
        cases.append((f"int({method}() * 256)", bucket(8, method), _uniform(range(256))))
    method = DOUBLES[kind][0]
    cases += [(f"{method}() compared: " + ", ".join(f"{op} {x}" for op, x, _ in tests),
               compare(method, tests), compared(tests)) for tests in COMPARISONS]
    return cases + _integer_cases(kind)


def law_certificate(kind: str, full: bool) -> Certificate:
    """Every program's explored law against the definition's, on one facade kind."""
    wrong: list[dict[str, Any]] = []
    cases = _cases(kind, full)
    split = lazy = 0
    for label, program, want in cases:
        for mode in (True, False):  # both ways of exploring a random() value
            try:
                got, was_lazy = law_of(kind, program, mode)
                lazy += was_lazy
            except Exception as exc:  # noqa: BLE001 - a facade that fails is a wrong law
                wrong.append({"program": label, "lazy": mode,
                              "error": f"{type(exc).__name__}: {exc}"})
                continue
            split += mode and len(got) > 1
            if got != want:
                wrong.append({"program": label, "lazy": mode,
                              "explored": dict(list(got.items())[:4]),
                              "definition": dict(list(want.items())[:4])})
    return Certificate(f"{CLAIM} ({kind} facade, laws)", f"{kind} facade",
                       {"kind": kind, "programs": len(cases)},
                       f"{len(cases)} programs ({split} with more than one outcome, {lazy} "
                       f"through lazily compared doubles)",
                       len(wrong), "0 laws differ from the definition", not wrong,
                       {"wrong": wrong[:6], "split": split, "lazy": lazy})


class _Answer:
    """An engine that answers every draw with one chosen ``j`` and records the ranges."""

    def __init__(self, j: int) -> None:
        self.j = j
        self.sizes: list[int] = []

    def draw(self, n: int) -> int:
        self.sizes.append(n)
        return self.j

    #: an integer draw handed to the code (lazily, when explored): here the int ``j``
    integer = draw

    def unit(self) -> Any:
        """A ``random()`` value (lazy when explored): here the double ``j / 2**53``."""
        return as_unit_float(self.draw(1 << FLOAT_BITS))


FACADES: dict[str, Callable[[Any], Any]] = {
    "random": RandomFacade, "secrets": SecretsFacade, "numpy": NumpyFacade,
    "numpy-legacy": LegacyNumpyFacade}


def value_points() -> list[int]:
    """0, 1, 2, 3, 2^i - 1, 2^i, 2^i + 1 (i < 53), 2^53 - 2, 2^53 - 1."""
    pts = {0, 1, 2, 3, TOP - 2, TOP - 1}
    for i in range(1, 53):
        pts |= {(1 << i) - 1, 1 << i, (1 << i) + 1}
    return sorted(p for p in pts if 0 <= p < TOP)


#: Integer methods' value maps: (label, call, range size n, the option drawn j gives).
INTEGER_MAPS: dict[str, list[tuple[str, Callable[[Any], Any], int, Callable[[int], Any]]]] = {
    "random": [("randrange(3, 20, 4)", lambda r: r.randrange(3, 20, 4), 5, lambda j: 3 + 4 * j),
               ("randint(1, 6)", lambda r: r.randint(1, 6), 6, lambda j: 1 + j),
               ("getrandbits(70)", lambda r: r.getrandbits(70), 1 << 70, lambda j: j),
               ("choice('abc')", lambda r: r.choice("abc"), 3, lambda j: "abc"[j])],
    "secrets": [("randbelow(10^9)", lambda r: r.randbelow(10**9), 10**9, lambda j: j),
                ("randbits(9)", lambda r: r.randbits(9), 512, lambda j: j)],
    "numpy": [("integers(-4, 4)", lambda r: r.integers(-4, 4), 8, lambda j: j - 4),
              ("choice([7, 8])", lambda r: r.choice([7, 8]), 2, lambda j: (7, 8)[j])],
    "numpy-legacy": [("randint(5, 10)", lambda r: r.randint(5, 10), 5, lambda j: 5 + j)],
}


def value_certificate(kind: str) -> Certificate:
    """The value map: one chosen draw ``j`` -> what the facade returns, against the
    definition (``j / 2^53`` for a double; the ``j``-th option for an integer method)."""
    wrong: list[dict[str, Any]] = []
    points = value_points()
    checked = 0
    for method in DOUBLES[kind]:
        for j in points:
            engine = _Answer(j)
            try:
                got: Any = unit_value(getattr(FACADES[kind](engine), method)())
            except Exception as exc:  # noqa: BLE001 - a facade that fails is a wrong value
                got = f"{type(exc).__name__}: {exc}"
            want = Fraction(j, TOP)
            checked += 1
            if engine.sizes != [TOP] or got != (want.numerator, want.denominator):
                wrong.append({"method": method, "j": j, "draws": engine.sizes, "got": got})
    for label, call, n, option in INTEGER_MAPS[kind]:
        for j in (0, 1, n - 1):
            engine = _Answer(j)
            try:
                got = call(FACADES[kind](engine))
            except Exception as exc:  # noqa: BLE001
                got = f"{type(exc).__name__}: {exc}"
            checked += 1
            if engine.sizes != [n] or got != option(j):
                wrong.append({"method": label, "j": j, "draws": engine.sizes, "got": got})
    return Certificate(f"{CLAIM} ({kind} facade, values)", f"{kind} facade",
                       {"kind": kind, "points": len(points)},
                       f"{checked} (method, j) values, j at both ends of [0, n) and at "
                       f"every power of two +-1", len(wrong),
                       "0 values differ from the definition", not wrong,
                       {"wrong": wrong[:6]})


def check(full: bool) -> ClaimReport:
    certs = []
    for kind in FACADES:
        certs += [value_certificate(kind), law_certificate(kind, full)]
    wrong = sum(int(c.worst or 0) for c in certs)
    laws = [c for c in certs if "programs" in c.parameters]
    programs = sum(int(c.parameters["programs"]) for c in laws)
    split = sum(int(c.witness["split"]) for c in laws)
    lazy = sum(int(c.witness["lazy"]) for c in laws)
    return ClaimReport(CLAIM, f"4 facades: {programs} programs explored ({split} with more "
                              f"than one outcome, {lazy} through lazy doubles), every double "
                              f"draw's value at "
                              f"{len(value_points())} points of [0, 2^53)",
                       f"{wrong} laws or values differ", "0", certs)
