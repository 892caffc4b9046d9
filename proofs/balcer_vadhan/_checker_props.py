"""The checker checked: properties of every checker function against an independent brute
force (``proofs/_brute_force.py``: plain ``Fraction`` definitions, no exactdp import).

Each ``prop_*`` function raises (``AssertionError`` or any other exception) when a checker
function disagrees with the brute force on its corpus of small toy mechanisms -- asymmetric
ones, infinite-loss and zero-mass outcomes, ``d = 1``, ``n = 0``, non-monotone mechanisms,
violations planted at ``c = n`` and ``u = d`` -- and returns ``None`` otherwise.  They are the
verify row ``def_2_09_checker`` and the core of ``tests/test_checker_independent.py``
(which adds hypothesis-generated toys and ``tests/test_checker_mutants.py``, which plants
single-point bugs in the checker and sees these properties fail).  The functions look the
checker up at call time (``checker.worst_ratio``, not an imported name), so that a planted
bug is seen.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from exactdp import certified, checker
from exactdp import explore as explore_mod
from exactdp.params import DomainError, ParameterError
from exactdp.proofs._brute_force import (
    INF,
    Toy,
    accuracy_need,
    brute_log_ceil,
    corpus,
    enumerate_program,
    exp_bounds,
    exp_compare,
    full,
    hs_by_events,
    law,
    neighbour_ratios,
    random_cdfs,
    scrambled_corpus,
    sd_by_events,
    toy_from_cdfs,
    toy_laws,
    worst_of,
)
from exactdp.randomness import RandomSource
from exactdp.trace import record, recording


@contextmanager
def raises(error: type[BaseException]) -> Iterator[None]:
    """Like ``pytest.raises``: the block must raise ``error``."""
    try:
        yield
    except error:
        return
    raise AssertionError(f"did not raise {error.__name__}")


CORPUS = corpus()


SCRAMBLED = [
    Toy([[0, 0, 1, 1, 0], [0, 1, 1, 1, 1]]),   # the only descent at u = d
    Toy([[1, 0, 0, 1, 1], [0, 0, 0, 1, 1]]),   # the only descent at u = 2
    Toy([[0, 1, 0, 1, 0, 1, 0, 1], [1, 1, 1, 1, 0, 0, 0, 0]]),
    *scrambled_corpus(),
]


def agree_distributions(toy: Toy) -> None:
    """Every method gives the counted law at every ``c``, both ends included."""
    for c in range(toy.n + 1):
        truth = full(law(toy.outs[c]), range(toy.n + 1))
        assert checker.enumerate_distribution(toy, c) == truth, ("enumerate", c)
        for hint in (True, False):
            assert checker.threshold_distribution(toy, c, hint) == truth, ("thresholds", c, hint)
            cdf = [sum(1 for v in toy.outs[c] if v <= z) for z in range(toy.n + 1)]
            assert checker.thresholds(toy, c, hint) == tuple(cdf), ("T", c, hint)
        for method in ("auto", "enumerate", "thresholds", "search"):
            assert checker.counting_distribution(toy, c, method) == truth, (method, c)
        assert checker.is_monotone_in_u(toy, c) is True, ("monotone", c)
    assert checker.counting_distributions(toy) == [full(p, range(toy.n + 1))
                                                   for p in toy_laws(toy)]


def agree_on_scrambled(toy: Toy) -> None:
    """A mechanism that may not be monotone: enumeration (and ``auto`` on small ``d``) is
    exact; ``is_monotone_in_u`` is exactly "no descent"; the threshold search either
    refuses with a true witness or answers what a monotone mechanism agreeing with every
    draw it examined would give (it had no evidence of disorder)."""
    for c in range(toy.n + 1):
        row = toy.outs[c]
        truth = full(law(row), range(toy.n + 1))
        assert checker.enumerate_distribution(toy, c) == truth
        assert checker.counting_distribution(toy, c) == truth
        monotone = all(row[i] <= row[i + 1] for i in range(len(row) - 1))
        assert checker.is_monotone_in_u(toy, c) is monotone
        for hint in (True, False):
            toy.calls.clear()
            try:
                got = checker.threshold_distribution(toy, c, hint)
            except checker.NotMonotoneError as exc:
                w = exc.witness
                assert not monotone
                assert w["c"] == c and w["u1"] < w["u2"]
                assert row[w["u1"] - 1] == w["z1"] > w["z2"] == row[w["u2"] - 1]
                continue
            if monotone:
                assert got == truth
                continue
            # no refusal: the answer must be consistent with every (u, M(c, u)) examined
            ts = [sum(got[y] * toy.d for y in range(z + 1)) for z in range(toy.n + 1)]
            for cc, u in toy.calls:
                assert cc == c
                implied = min(z for z, t in enumerate(ts) if t >= u)
                assert implied == row[u - 1], ("answer contradicts a draw it saw", c, u)


def prop_distributions() -> None:
    for toy in CORPUS:
        agree_distributions(toy)


def prop_scrambled() -> None:
    for toy in SCRAMBLED:
        agree_on_scrambled(toy)


def prop_lying_hint() -> None:
    """``cdf`` (only a hint) is wrong at every ``z``: the answer must not change."""
    rng = random.Random(5)
    for _ in range(40):
        n, d = rng.randint(1, 5), rng.randint(2, 30)
        cdfs = random_cdfs(rng, n, d)
        true = toy_from_cdfs(cdfs)
        liar = Toy(true.outs, hint=[[f + rng.choice((-1, 1)) for f in row] for row in cdfs])
        for c in range(n + 1):
            want = full(law(true.outs[c]), range(n + 1))
            assert checker.threshold_distribution(liar, c, True) == want


def prop_leaving_range() -> None:
    """Outputs outside ``[0, n]`` at either end of ``[d]_+`` are refused, never counted."""
    for bad, where in ((-1, 0), (3, -1)):
        outs = [[0, 1, 1, 2], [0, 0, 1, 2], [0, 1, 2, 2]]
        outs[1][where] = bad
        toy = Toy(outs)
        with raises(DomainError):
            checker.enumerate_distribution(toy, 1)
        for hint in (True, False):
            with raises(DomainError):
                checker.threshold_distribution(toy, 1, hint)


def agree_ratio(toy: Toy) -> None:
    laws = toy_laws(toy)
    ratios = neighbour_ratios(laws)
    if not ratios:  # n = 0: no neighbours; the checker must refuse, not invent a ratio
        with raises(ParameterError):
            checker.worst_neighbour_ratio(laws)
        return
    truth = worst_of(ratios)
    w = checker.worst_neighbour_ratio(laws)
    key = (w.numerator_input, w.denominator_input, w.outcome)
    assert key in ratios, key
    assert abs(w.numerator_input - w.denominator_input) == 1
    assert w.p == laws[key[0]].get(key[2], 0) and w.q == laws[key[1]].get(key[2], 0)
    if truth == INF:
        assert w.ratio is None and w.infinite and ratios[key] == INF and w.p > 0 == w.q
    else:
        assert w.ratio == truth == ratios[key] == w.p / w.q
    # the same through worst_ratio with explicit ordered pairs, full-support maps
    pairs = [(a, full(laws[a], range(toy.n + 1)), b, laws[b])
             for a in range(toy.n + 1) for b in range(toy.n + 1) if abs(a - b) == 1]
    w2 = checker.worst_ratio(pairs)
    assert (INF if w2.ratio is None else w2.ratio) == truth


def prop_ratio() -> None:
    for toy in CORPUS:
        agree_ratio(toy)


def certify_cases() -> list[tuple[Fraction | None, Fraction]]:
    cases: list[tuple[Fraction | None, Fraction]] = [(None, Fraction(1)), (Fraction(1), Fraction(0)),
                                                     (Fraction(3, 2), Fraction(0))]
    for eps in (Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(1, 7), Fraction(5, 2)):
        lo, hi = exp_bounds(eps, 60)
        tiny = Fraction(1, 2**90)
        cases += [(lo, eps), (hi, eps), (lo - tiny, eps), (hi + tiny, eps),
                  (Fraction(1), eps), (lo * 2, eps), (Fraction(1, 2), eps)]
        # within about 2**-1000 of e**eps: decided only at 1024 bits
        cases += list(zip(exp_bounds(eps, 260), (eps, eps), strict=True))
    return cases


def prop_certify() -> None:
    for ratio, eps in certify_cases():
        w = checker.RatioWitness(ratio, 0, 1, 0, Fraction(1), Fraction(1))
        ok, text = checker.certify_ratio(w, eps)
        truth = ratio is not None and exp_compare(ratio, eps) <= 0
        assert ok is truth, (ratio, eps, text)
        assert ("<=" in text) is truth and (">" in text) is not truth


def distance_cases() -> list[tuple[dict[int, Fraction], dict[int, Fraction]]]:
    laws = [p for toy in CORPUS[:25] for p in toy_laws(toy)]
    cases = [(laws[i], laws[i + 1]) for i in range(len(laws) - 1)]
    cases += [({0: Fraction(1)}, {1: Fraction(1)}),                     # disjoint
              ({0: Fraction(1), 1: Fraction(0)}, {0: Fraction(1)}),     # explicit zero
              ({0: Fraction(7, 8), 1: Fraction(1, 8)}, {0: Fraction(1, 2), 1: Fraction(1, 2)})]
    return cases


def prop_distances() -> None:
    for p, q in distance_cases():
        assert checker.statistical_distance(p, q) == sd_by_events(p, q)
        for r in (Fraction(1), Fraction(3, 2), Fraction(7, 4), Fraction(4), Fraction(1, 2)):
            assert checker.hockey_stick(p, q, r) == hs_by_events(p, q, r), (p, q, r)
            assert checker.hockey_stick(q, p, r) == hs_by_events(q, p, r), (q, p, r)


def prop_hockey_stick_eps() -> None:
    """The interval contains ``delta(eps) = A - e**eps B`` (``A``, ``B`` the masses of the
    outcomes with ``P > e**eps Q``, decided by :func:`exp_compare`), and is narrow."""
    for p, q in distance_cases():
        for eps in (Fraction(0), Fraction(1, 3), Fraction(1), Fraction(3, 2)):
            a_sum = b_sum = Fraction(0)
            for o in set(p) | set(q):
                po, qo = p.get(o, Fraction(0)), q.get(o, Fraction(0))
                if po > 0 and (qo == 0 or exp_compare(po / qo, eps) > 0):
                    a_sum, b_sum = a_sum + po, b_sum + qo
            box = checker.hockey_stick_eps(p, q, eps)
            e_lo, e_hi = exp_bounds(eps, 80)
            assert box.lo <= a_sum - e_hi * b_sum, (p, q, eps)   # <= A - e B
            assert box.hi >= a_sum - e_lo * b_sum, (p, q, eps)   # >= A - e B
            assert box.hi - box.lo <= Fraction(1, 2**100)


def agree_accuracy(laws: list[dict[int, Fraction]], beta: Fraction) -> None:
    needs = [accuracy_need(p, c, beta) for c, p in enumerate(laws)]
    res = checker.exact_accuracy(laws, beta)
    assert res.a == max(needs), (needs, res)
    assert needs[res.worst_count] == res.a
    c = res.worst_count
    assert res.probability == sum((w for z, w in laws[c].items() if abs(z - c) <= res.a),
                                  Fraction(0))
    for cc, p in enumerate(laws):
        for a in (0, 1, 2):
            assert checker.accuracy_probability(p, cc, a) == sum(
                (w for z, w in p.items() if -a <= z - cc <= a), Fraction(0))


def prop_accuracy() -> None:
    betas = [Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(1, 8),
             Fraction(1, 100)]
    for toy in CORPUS:
        for beta in betas:
            agree_accuracy(toy_laws(toy), beta)
    # only the last input c = n needs a = 2; only c = 0 needs a = 1 at exactly 1 - beta
    last = [{0: Fraction(1)}, {1: Fraction(1)}, {0: Fraction(1, 2), 2: Fraction(1, 2)}]
    assert checker.exact_accuracy(last, Fraction(1, 4)).a == 2
    first = [{0: Fraction(3, 4), 1: Fraction(1, 4)}, {1: Fraction(1)}]
    assert checker.exact_accuracy(first, Fraction(1, 4)).a == 0  # 3/4 >= 1 - 1/4 exactly
    assert checker.exact_accuracy(first, Fraction(1, 5)).a == 1


def strict_time_cases() -> list[tuple[Toy, bool]]:
    """Toys with a planted extra event at chosen ``(c, u)``; the claim holds iff none."""
    small = [[0, 0, 1, 1, 2], [0, 1, 1, 2, 2], [1, 1, 2, 2, 2]]
    rng = random.Random(7)
    big_cdfs = random_cdfs(rng, 3, 1000)
    big = toy_from_cdfs(big_cdfs).outs
    f_n = big_cdfs[3]
    cases = [(Toy(small), True), (Toy(big), True),
             (Toy(small, extra={(2, 5): 1}), False),            # only c = n, u = d
             (Toy(small, extra={(2, 1): 1}), False),            # only c = n, u = 1
             (Toy(small, extra={(0, 3): 2}), False),            # only c = 0
             (Toy([[0, 0, 0]], extra={(0, 3): 1}), False),      # n = 0: the trace varies with u
             (Toy(big, extra={(3, 1000): 1}), False),           # large d, c = n, u = d
             (Toy(big, extra={(3, 1): 1}), False),              # large d, c = n, u = 1
             # d = 256, the largest d tried in full: u = 137 is no threshold, end or middle
             (Toy(toy_from_cdfs([[100, 256], [50, 256]]).outs, extra={(1, 137): 1}), False)]
    # large d, c = n, u = F_n(z) + 1 for an interior z not near 1, d/2 or d
    for z in range(3):
        u = f_n[z] + 1
        if u not in {1, 2, 499, 500, 501, 999, 1000} and 1 <= u <= 1000:
            cases.append((Toy(big, extra={(3, u): 1}), False))
            break
    return cases


def prop_strict_time() -> None:
    for toy, holds in strict_time_cases():
        cert = checker.check_strict_time(toy)
        assert cert.verdict is holds, (toy.extra, cert)
        if not holds:
            c, u = int(cert.witness["c"]), int(cert.witness["u"])
            ref = (0, 1)  # the reference: c = 0 at the first u tried (1 in both defaults)
            assert ((c, u) in toy.extra) != (ref in toy.extra)
            assert cert.witness["trace"] != cert.witness["reference"]


def prop_trace() -> None:
    """Operation traces: the draw and the planted events, in order; recordings nest."""
    toy = Toy([[0, 1, 1], [1, 1, 1]], extra={(1, 3): 2})
    assert checker.operation_trace(toy, 0, 3) == (("uniform", 3),)
    assert checker.operation_trace(toy, 1, 3) == (("uniform", 3), ("extra",), ("extra",))
    record("lost")  # no recording active: nothing to see, no error
    with recording() as outer:
        record("a", 1)
        with recording() as inner:
            record("b")
        record("c")
    assert outer == [("a", 1), ("c",)] and inner == [("b",)]


def _program(spec: list[tuple[str, Any]]) -> tuple[Any, Any]:
    """The same program twice: against a RandomSource, and against brute_force's draw."""

    def body(draw: Any) -> Any:
        outs = []
        for kind, arg in spec:
            if kind == "sum":  # many paths to one output: the total of the draws so far
                continue
            if kind == "dependent":  # a uniform draw whose size depends on the last output
                arg = 1 + (int(outs[-1]) if outs else 0) % 3
                kind = "uniform"
            outs.append(draw(kind, arg))
        if spec and spec[0][0] == "sum":
            return sum(int(o) for o in outs)
        return tuple(outs)

    class _Draw:
        def __init__(self, table: list[int]) -> None:
            self.table, self.n, self.d = table, len(table) - 1, table[-1]

        def cdf(self, z: int) -> int:
            return self.table[z]

        def search(self, u: int) -> int:
            return min(z for z, f in enumerate(self.table) if f >= u)

    def with_source(src: RandomSource) -> Any:
        def draw(kind: str, arg: Any) -> Any:
            if kind == "uniform":
                return src.uniform(arg)
            if kind == "bernoulli":
                return src.bernoulli(*arg)
            return src.inverse_cdf(_Draw(arg))
        return body(draw)

    return with_source, body


def explore_specs() -> list[list[tuple[str, Any]]]:
    rng = random.Random(11)
    specs: list[list[tuple[str, Any]]] = [
        [("bernoulli", (1, 3))], [("bernoulli", (0, 4))], [("bernoulli", (4, 4))],
        [("inverse_cdf", [2, 2, 7, 10])], [("inverse_cdf", [0, 0, 5])], [("uniform", 1)],
        [("uniform", 3), ("dependent", None), ("bernoulli", (2, 5))],
        [("sum", None), ("uniform", 3), ("uniform", 3), ("bernoulli", (1, 4))],
        [("sum", None), ("inverse_cdf", [1, 3, 3, 6]), ("uniform", 2)],
    ]
    for _ in range(25):
        spec: list[tuple[str, Any]] = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice(["uniform", "bernoulli", "inverse_cdf", "dependent"])
            if kind == "uniform":
                spec.append((kind, rng.randint(1, 5)))
            elif kind == "bernoulli":
                den = rng.randint(1, 6)
                spec.append((kind, (rng.randint(0, den), den)))
            elif kind == "inverse_cdf":
                masses = [rng.randint(0, 3) for _ in range(rng.randint(1, 4))]
                masses[-1] += 1
                spec.append((kind, [sum(masses[:i + 1]) for i in range(len(masses))]))
            else:
                spec.append((kind, None))
        specs.append(spec)
    return specs


def agree_explore(spec: list[tuple[str, Any]]) -> None:
    with_source, body = _program(spec)
    got = explore_mod.explore(with_source)
    want = enumerate_program(body)
    assert got == {k: v for k, v in want.items() if v}, (spec, got, want)


def prop_explore() -> None:
    for spec in explore_specs():
        agree_explore(spec)
    # one run per output of positive mass, never one per u
    runs = 0

    def fn(src: RandomSource) -> int:
        nonlocal runs
        runs += 1
        return src.inverse_cdf(_Big())

    explore_mod.explore(fn)
    assert runs == 3


class _Big:
    n, d = 3, 10**30

    def cdf(self, z: int) -> int:
        return [2, 2, 7, 10**30][z]

    def search(self, u: int) -> int:
        raise AssertionError("the exploring source never searches")


def exp_points() -> list[Fraction]:
    # 2/5 at 5 bits and 1/8 at 8 bits catch a Taylor tail bound missing its geometric
    # factor (found by a search over x = num/den, den <= 12, bits <= 11)
    return [Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(-1, 3), Fraction(5, 2),
            Fraction(-7, 4), Fraction(1, 1000), Fraction(20, 3), Fraction(-20, 3),
            Fraction(2, 5), Fraction(-2, 5), Fraction(1, 8), Fraction(-1, 8)]


def prop_certified() -> None:
    for x in exp_points():
        for bits in (1, 2, 3, 5, 8, 13, 64):
            box = certified.exp_interval(x, bits)
            assert exp_compare(box.lo, x) < 0 < exp_compare(box.hi, x), (x, bits, box)
        for r in (exp_bounds(x, 40)[0], exp_bounds(x, 40)[0] * (1 - Fraction(1, 2**70))):
            lower = certified.exp_lower_bound_at_least(x, r)
            assert r <= lower and exp_compare(lower, x) < 0
            assert certified.compare_exp(x, r) == 1
        hi = exp_bounds(x, 40)[1]
        with raises(ParameterError):
            certified.exp_lower_bound_at_least(x, hi)
        assert certified.compare_exp(x, hi) == -1
    for x in (Fraction(1, 2), Fraction(3), Fraction(1, 1000), Fraction(10**6, 7), Fraction(2)):
        for bits in (4, 20, 64):
            box = certified.ln_interval(x, bits)
            assert exp_compare(x, box.lo) >= 0 and exp_compare(x, box.hi) <= 0, (x, bits)
    for x, base in ((Fraction(20), Fraction(3, 2)), (Fraction(8), Fraction(2)),
                    (Fraction(9), Fraction(2)), (Fraction(1), Fraction(2)),
                    (Fraction(10**6), Fraction(1025, 1024)), (Fraction(27, 8), Fraction(3, 2))):
        assert certified.ceil_log_ratio(x, base) == brute_log_ceil(x, base), (x, base)
    # Interval membership, and the exact power test behind ceil_log_ratio's tie-break
    # (its size shortcut must say "not equal" only when the sizes make equality impossible).
    box = certified.exp_interval(Fraction(1), 16)
    assert box.lo in box and box.hi in box and (box.lo + box.hi) / 2 in box
    assert box.lo - Fraction(1, 2**80) not in box and box.hi + Fraction(1, 2**80) not in box
    power_equals = certified._power_equals
    for base, a in ((Fraction(3, 2), 40), (Fraction(1025, 1024), 9), (Fraction(5), 7)):
        exact = base**a
        assert power_equals(base, a, exact)
        for near in (exact + 1, exact - Fraction(1, exact.denominator * 2), Fraction(
                exact.numerator // exact.denominator + 1)):
            assert not power_equals(base, a, near), (base, a, near)
    for v in range(1, 300):
        assert certified.ceil_log2(v) == brute_log_ceil(Fraction(v), Fraction(2))
        assert 2 ** certified.floor_log2(v) <= v < 2 ** (certified.floor_log2(v) + 1)

