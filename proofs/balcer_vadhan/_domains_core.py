# The tables pass wrong types on purpose (a bool for an int, a list for a Dataset, ...):
# mypy: disable-error-code="arg-type, call-arg, list-item, misc, return-value, type-var"
"""Domain tables of ``def_2_04_domains`` for the counting mechanisms, Lemma 3.2, the random
sources, the exploring source, the checker and the certified arithmetic.

Every guard (``if bad: raise``) of ``exactdp/counting.py``, ``mixing.py``, ``randomness.py``,
``explore.py``, ``checker.py`` and ``certified.py`` has its cases here: inputs just outside
the domain (one per clause of the condition, so that ``or`` read as ``and`` is seen) and the
boundary values just inside it, with results computed here independently.
"""

from __future__ import annotations

from fractions import Fraction

from exactdp import counting
from exactdp.certified import (
    Interval,
    ceil_log2,
    ceil_log_ratio,
    exp_lower_bound_at_least,
    floor_log2,
    ln_interval,
)
from exactdp.checker import (
    FixedSource,
    NotMonotoneError,
    check_strict_time,
    enumerate_distribution,
    exact_accuracy,
    is_monotone_in_u,
    thresholds,
    worst_ratio,
)
from exactdp.counting import (
    FastSample,
    GeometricMechanism,
    GeoSample,
    TabulatedMechanism,
    inverse_cdf_search,
)
from exactdp.explore import (
    ExplorationIncomplete,
    ExplorationLimitError,
    ExploringSource,
    NondeterminismError,
    explore,
)
from exactdp.histograms.orderstats import FunctionDraw
from exactdp.mixing import lemma_3_2_condition
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.proofs.balcer_vadhan._domains import Accept, Case, Constant, Refuse, Rigged, min_z
from exactdp.randomness import (
    CallableSource,
    RandomSource,
    SeededSource,
    SystemSource,
    check_domain_size,
    check_source,
)

__all__ = ["CHECKER", "COUNTING", "SOURCES"]

F = Fraction
#: ``F_c(z)`` of a small tabulated mechanism, n = 2, d = 4 (not symmetric, on purpose).
ROWS = ((1, 3, 4), (0, 1, 4), (0, 0, 4))
T = TabulatedMechanism(ROWS)
#: ``e`` lies strictly between these (e = 2.71828...): for Lemma 3.2 and e^x bounds.
E_LO, E_HI = F(2718, 1000), F(2719, 1000)
#: ``ln 2`` lies strictly between these (ln 2 = 0.693147180559...).
LN2_LO, LN2_HI = F(6931471805, 10**10), F(6931471806, 10**10)


def _smallest_power(base: Fraction, x: Fraction) -> int:
    """The least ``a >= 0`` with ``base**a >= x`` (base > 1), by counting up."""
    a, p = 0, F(1)
    while p < x:
        a, p = a + 1, p * base
    return a


def _geosample_at_bits_limit() -> tuple[int, Fraction]:
    """``(n, eps)`` with GeoSample's ``n (k + 1) + 1`` equal to MAX_INTEGER_BITS exactly
    (``eps = 2^(1-k)`` has ``k = ceil(log2(2/eps)) = k``)."""
    limit = counting.MAX_INTEGER_BITS
    k = next(k for k in range(1, 64) if (limit - 1) % (k + 1) == 0)
    return (limit - 1) // (k + 1), F(1, 1 << (k - 1))


_N_LIMIT, _EPS_LIMIT = _geosample_at_bits_limit()


def _fastsample_t(n: int, eps: Fraction, gamma: Fraction) -> int:
    """Algorithm 4.11's ``t = ceil(9/(2 eps) ceil(log2(8(n+1)(1-gamma)/(eps gamma)))) - 1``."""
    x = 8 * (n + 1) * (1 - gamma) / (eps * gamma)
    log = 0
    while 2**log < x:
        log += 1
    q = F(9, 2) / eps * log
    return -(-q.numerator // q.denominator) - 1


COUNTING: list[Case] = [
    # inverse_cdf_search (Lemma 2.13): u an integer draw
    Refuse("inverse_cdf_search", "u = True", lambda: inverse_cdf_search(
        lambda z: ROWS[0][z], 2, True), ParameterTypeError, ("u = True",)),
    Refuse("inverse_cdf_search", "u = 1 as a Fraction", lambda: inverse_cdf_search(
        lambda z: ROWS[0][z], 2, F(1)), ParameterTypeError, ("u = ", "must be an int")),
    Accept("inverse_cdf_search", "u = 1..d", lambda: [
        inverse_cdf_search(lambda z: ROWS[0][z], 2, u) for u in range(1, 5)],
        [min_z(ROWS[0], u) for u in range(1, 5)]),
    # _check_z through the ideal mechanism's pmf/cdf: z an int
    Refuse("GeometricMechanism.pmf", "z = True", lambda: GeometricMechanism(2, F(1, 2)).pmf(
        0, True), ParameterTypeError, ("z = True",)),
    Refuse("GeometricMechanism.cdf", "z = 1 as a Fraction", lambda: GeometricMechanism(
        2, F(1, 2)).cdf(0, F(1)), ParameterTypeError, ("z = ",)),
    Accept("GeometricMechanism.pmf", "z = -1, 0, n, n + 1 at c = 0", lambda: [
        GeometricMechanism(2, F(1, 2)).pmf(0, z) for z in (-1, 0, 2, 3)],
        [0, 1 / (1 + F(1, 2)), F(1, 2)**2 / (1 + F(1, 2)), 0]),
    # GeometricMechanism: alpha in (0, 1) (Algorithm 4.5, alpha = e^(-1/s))
    Refuse("GeometricMechanism", "alpha = 0", lambda: GeometricMechanism(2, 0),
           ParameterError, ("alpha = 0",)),
    Refuse("GeometricMechanism", "alpha = 1", lambda: GeometricMechanism(2, 1),
           ParameterError, ("alpha = 1",)),
    Accept("GeometricMechanism", "alpha = 1/1000 and 999/1000: laws of total mass 1",
           lambda: [sum(GeometricMechanism(2, a).distribution(1)) for a in (F(1, 1000),
                                                                         F(999, 1000))],
           [1, 1]),
    # _guard_bits: GeoSample's d has n (k + 1) + 1 bits <= MAX_INTEGER_BITS
    Accept("GeoSample", f"n = {_N_LIMIT}, eps = {_EPS_LIMIT}: d has exactly "
                        f"MAX_INTEGER_BITS bits (accepted; d is built lazily)",
           lambda: GeoSample(_N_LIMIT, _EPS_LIMIT).n, _N_LIMIT),
    Refuse("GeoSample", f"n = {_N_LIMIT + 1}: one more row, over the limit",
           lambda: GeoSample(_N_LIMIT + 1, _EPS_LIMIT), ResourceLimitError,
           ("GeoSample's d", "MAX_INTEGER_BITS")),
    # InverseCDFSampler.__call__: u in [d]_+
    Refuse("InverseCDFSampler.__call__", "u = True", lambda: T(0, True),
           ParameterTypeError, ("u = True", "in [1, d]")),
    Refuse("InverseCDFSampler.__call__", "u = 1 as a Fraction", lambda: T(0, F(1)),
           ParameterTypeError, ("u = ", "in [1, d]")),
    Refuse("InverseCDFSampler.__call__", "u = 0", lambda: T(0, 0), DomainError, ("u = 0",)),
    Refuse("InverseCDFSampler.__call__", "u = d + 1", lambda: T(0, 5), DomainError,
           ("u = 5",)),
    Accept("InverseCDFSampler.__call__", "u = 1 and u = d at every c",
           lambda: [(T(c, 1), T(c, 4)) for c in range(3)],
           [(min_z(r, 1), min_z(r, 4)) for r in ROWS]),
    # TabulatedMechanism: rows F_c(0..n) of ints, non-decreasing, F_c(n) = d >= 1, n >= 1
    Refuse("TabulatedMechanism", "table = '' (a string)", lambda: TabulatedMechanism(""),
           ParameterTypeError, ("table = ",)),
    Refuse("TabulatedMechanism", "first row a string", lambda: TabulatedMechanism(
        ["12", [1, 2]]), ParameterTypeError, ("table = ",)),
    Refuse("TabulatedMechanism", "last row a string", lambda: TabulatedMechanism(
        [[1, 2], "12"]), ParameterTypeError, ("table = ",)),
    Refuse("TabulatedMechanism", "one row (n = 0)", lambda: TabulatedMechanism([[1]]),
           ParameterError, ("n >= 1",)),
    Refuse("TabulatedMechanism", "a row of n + 2 entries", lambda: TabulatedMechanism(
        [[1, 2], [0, 1, 2]]), ParameterError, ("row c = 1", "n + 1 = 2")),
    Refuse("TabulatedMechanism", "an entry True", lambda: TabulatedMechanism(
        [[True, 2], [0, 2]]), ParameterError, ("F_0(0) = True",)),
    Refuse("TabulatedMechanism", "an entry 1 as a Fraction", lambda: TabulatedMechanism(
        [[F(1), 2], [0, 2]]), ParameterError, ("F_0(0) = ",)),
    Refuse("TabulatedMechanism", "a decreasing row", lambda: TabulatedMechanism(
        [[0, 2], [2, 1]]), ParameterError, ("F_1(1) = 1",)),
    Refuse("TabulatedMechanism", "rows ending in different d", lambda: TabulatedMechanism(
        [[1, 2], [0, 3]]), ParameterError, ("F_1(n) = 3", "d = 2")),
    Refuse("TabulatedMechanism", "d = 0", lambda: TabulatedMechanism([[0, 0], [0, 0]]),
           ParameterError, ("d = 0",)),
    Accept("TabulatedMechanism", "n = 1, d = 1, repeated values (F_0(0) = F_0(1) = d)",
           lambda: TabulatedMechanism([[1, 1], [0, 1]]),
           lambda m: (m.n, m.d, m(0, 1), m(1, 1)) == (1, 1, 0, 1)),
    Accept("TabulatedMechanism", "n = 2 table with F_c(0) = 0 and equal neighbours",
           lambda: (T.n, T.d, [[T.cdf(c, z) for z in range(3)] for c in range(3)]),
           (2, 4, [list(r) for r in ROWS])),
    # FastSample: gamma in N^-1 with gamma < 1 (Theorem 4.10; log 0 at gamma = 1)
    Refuse("FastSample", "gamma = 1", lambda: FastSample(1, 1, 1), ParameterError,
           ("gamma = 1",)),
    Accept("FastSample", "gamma = 1/2 (the largest allowed): t of Algorithm 4.11",
           lambda: FastSample(1, 1, F(1, 2)).t, _fastsample_t(1, F(1), F(1, 2))),
    # paper_accuracy: beta in (0, 1]; FastSample's also beta > gamma (Theorem 4.10 ii)
    Refuse("FastSample.paper_accuracy", "beta = gamma", lambda: FastSample(
        1, 1, F(1, 4)).paper_accuracy(F(1, 4)), ParameterError, ("beta = 1/4", "gamma")),
    Accept("FastSample.paper_accuracy", "beta = 1/2 > gamma = 1/4: least a, (3/2)^a >= 4",
           lambda: FastSample(1, 1, F(1, 4)).paper_accuracy(F(1, 2)),
           _smallest_power(F(3, 2), F(4))),
    Refuse("GeoSample.paper_accuracy", "beta = 0", lambda: GeoSample(2, 1).paper_accuracy(0),
           ParameterError, ("beta = 0",)),
    Refuse("GeoSample.paper_accuracy", "beta = 3/2", lambda: GeoSample(2, 1).paper_accuracy(
        F(3, 2)), ParameterError, ("beta = 3/2",)),
    Accept("GeoSample.paper_accuracy", "beta = 1 (a = 0) and 1/2 (least a, (3/2)^a >= 2)",
           lambda: [GeoSample(2, 1).paper_accuracy(b) for b in (1, F(1, 2))],
           [0, _smallest_power(F(3, 2), F(2))]),
    # Lemma 3.2 (1): delta in [0, 1), eps > 0, gamma in (0, 1), min_prob in (0, 1]
    *(Refuse("lemma_3_2_condition", what, call, ParameterError, ("Lemma 3.2 needs",))
      for what, call in (
          ("delta = -1/100", lambda: lemma_3_2_condition(F(-1, 100), 1, F(1, 2), 1)),
          ("delta = 1", lambda: lemma_3_2_condition(1, 1, F(1, 2), 1)),
          ("eps = 0", lambda: lemma_3_2_condition(0, 0, F(1, 2), 1)),
          ("gamma = 0", lambda: lemma_3_2_condition(0, 1, 0, 1)),
          ("gamma = 1", lambda: lemma_3_2_condition(0, 1, 1, 1)),
          ("min_prob = 0", lambda: lemma_3_2_condition(0, 1, F(1, 2), 0)),
          ("min_prob = 101/100", lambda: lemma_3_2_condition(0, 1, F(1, 2), F(101, 100))))),
    Accept("lemma_3_2_condition", "delta = 0 (holds) at eps = 1/1000, gamma = 1/1000",
           lambda: lemma_3_2_condition(0, F(1, 1000), F(1, 1000), F(1, 1000)).holds, True),
    Accept("lemma_3_2_condition", "delta = 45/100 holds, 47/100 fails at eps = 1, gamma "
                                  "= 1/2, min_prob = 1: (e-1)/(e+1) is in (0.4620, 0.4623)",
           lambda: [lemma_3_2_condition(d, 1, F(1, 2), 1).holds for d in (F(45, 100),
                                                                        F(47, 100))],
           [(E_LO - 1) / (E_LO + 1) >= F(45, 100), (E_HI - 1) / (E_HI + 1) >= F(47, 100)]),
    Accept("lemma_3_2_condition", "gamma = 999/1000, min_prob = 1, delta = 999/1000",
           lambda: lemma_3_2_condition(F(999, 1000), 1, F(999, 1000), 1).holds, True),
]


def _callable_source(fn: object) -> object:
    return lambda: CallableSource(fn)


class _NoUniform(RandomSource):
    """A source that forgot to implement ``uniform``."""


_SYSTEM = SystemSource()


def _seeded(seed: int | str | bytes) -> int:
    return SeededSource(seed).uniform(10)


def _random_randrange(seed: int | str | bytes) -> int:
    import random
    return random.Random(seed).randrange(10) + 1


SOURCES: list[Case] = [
    # check_domain_size: uniform(d) needs an int d >= 1 (Section 2.4's oracle takes d in N+)
    Refuse("check_domain_size", "d = True", lambda: check_domain_size(True),
           ParameterTypeError, ("d = True",)),
    Refuse("check_domain_size", "d = 2 as a Fraction", lambda: check_domain_size(F(2)),
           ParameterTypeError, ("d = ",)),
    Refuse("check_domain_size", "d = 0", lambda: check_domain_size(0), DomainError,
           ("d = 0",)),
    Accept("check_domain_size", "d = 1", lambda: check_domain_size(1), 1),
    Accept("SystemSource.uniform", "d = 1: the only value", lambda: SystemSource().uniform(1),
           1),
    # RandomSource.bernoulli: ints with 0 <= num <= den
    Refuse("RandomSource.bernoulli", "num = True", lambda: CallableSource(
        lambda d: 1).bernoulli(True, 2), ParameterTypeError, ("num = True",)),
    Refuse("RandomSource.bernoulli", "den = 2 as a Fraction", lambda: CallableSource(
        lambda d: 1).bernoulli(1, F(2)), ParameterTypeError, ("den = ",)),
    Refuse("RandomSource.bernoulli", "num = -1", lambda: CallableSource(
        lambda d: 1).bernoulli(-1, 2), DomainError, ("-1/2",)),
    Refuse("RandomSource.bernoulli", "num = den + 1", lambda: CallableSource(
        lambda d: 1).bernoulli(3, 2), DomainError, ("3/2",)),
    Refuse("RandomSource.bernoulli", "den = 0", lambda: CallableSource(
        lambda d: 1).bernoulli(0, 0), DomainError, ("0/0",)),
    Accept("RandomSource.bernoulli", "num = 0 (never) and num = den (always), u = 1 and d",
           lambda: [CallableSource(f).bernoulli(num, 5) for num in (0, 5)
                    for f in (lambda d: 1, lambda d: d)], [False, False, True, True]),
    # _checked_draw: a source's uniform(d) must return an int in [1, d]
    *(Refuse("RandomSource.inverse_cdf", f"the source returns {v!r}", lambda v=v: Constant(
        v).inverse_cdf(T.draw(0)), DomainError, ("returned",))
      for v in (True, F(1), 0, 5)),
    Accept("RandomSource.inverse_cdf", "the source returns 1 and d",
           lambda: [Constant(1).inverse_cdf(T.draw(0)), Constant("d").inverse_cdf(T.draw(0))],
           [min_z(ROWS[0], 1), min_z(ROWS[0], 4)]),
    # check_source: an instance implementing uniform
    Refuse("check_source", "a RandomSource without uniform", lambda: check_source(
        _NoUniform()), ParameterTypeError, ("does not implement uniform",)),
    Refuse("check_source", "the class SystemSource", lambda: check_source(SystemSource),
           ParameterTypeError, ("not an instance",)),
    Refuse("check_source", "a random.Random", lambda: check_source(__import__(
        "random").Random(1)), ParameterTypeError, ("SeededSource",)),
    Refuse("check_source", "an int seed", lambda: check_source(5), ParameterTypeError,
           ("SeededSource(5)",)),
    Accept("check_source", "a SystemSource instance (returned as it is)",
           lambda: check_source(_SYSTEM), lambda s: s is _SYSTEM),
    # SeededSource: seed an int, str or bytes
    Refuse("SeededSource", "seed = True", lambda: SeededSource(True), ParameterTypeError,
           ("seed = True",)),
    Refuse("SeededSource", "seed = None", lambda: SeededSource(None),
           ParameterTypeError, ("seed = None",)),
    Accept("SeededSource", "seeds 0, 'x', b'x': random.Random(seed).randrange(10) + 1",
           lambda: [_seeded(s) for s in (0, "x", b"x")],
           [_random_randrange(s) for s in (0, "x", b"x")]),
    # CallableSource: a function, not a class; its values in [1, d]
    Refuse("CallableSource", "fn = 5", _callable_source(5), ParameterTypeError, ("fn = 5",)),
    Refuse("CallableSource", "fn = int (a class)", _callable_source(int), ParameterTypeError,
           ("fn = ",)),
    *(Refuse("CallableSource.uniform", f"fn returns {v!r}", lambda v=v: CallableSource(
        lambda d: v).uniform(4), DomainError, ("returned",)) for v in (True, F(1), 0, 5)),
    Accept("CallableSource.uniform", "fn returns 1 and d",
           lambda: [CallableSource(lambda d: 1).uniform(4), CallableSource(
               lambda d: d).uniform(4)], [1, 4]),
    # ExploringSource: replayed choices, the uniform limit, CDF draws, coins
    Refuse("ExploringSource.uniform", "replayed choice 2 of uniform(2)", lambda: ExploringSource(
        (2,)).uniform(2), NondeterminismError, ("fewer than before",)),
    Accept("ExploringSource.uniform", "replayed choice 1 of uniform(2): the value 2, weight "
                                      "1/2", lambda: ExploringSource((1,)),
           lambda s: (s.uniform(2), s.weight) == (2, F(1, 2))),
    Refuse("ExploringSource.uniform", "uniform(5) with max_uniform = 4", lambda: ExploringSource(
        max_uniform=4).uniform(5), ExplorationLimitError, ("uniform(5)", "limit 4")),
    Accept("explore", "uniform(4) with max_uniform = 4", lambda: explore(
        lambda s: s.uniform(4), max_uniform=4), {u: F(1, 4) for u in range(1, 5)}),
    Refuse("ExploringSource.inverse_cdf", "F decreasing", lambda: ExploringSource().inverse_cdf(
        FunctionDraw(2, 4, lambda z: (2, 1, 4)[z])), DomainError, ("F(1) = 1",)),
    Refuse("ExploringSource.inverse_cdf", "F above d", lambda: ExploringSource().inverse_cdf(
        FunctionDraw(2, 4, lambda z: (1, 5, 4)[z])), DomainError, ("F(1) = 5",)),
    Refuse("ExploringSource.inverse_cdf", "F(n) < d", lambda: ExploringSource().inverse_cdf(
        FunctionDraw(2, 4, lambda z: (1, 2, 3)[z])), DomainError, ("F(2) = 3", "d = 4")),
    Accept("explore", "inverse_cdf with F = (1, 1, 4) and (0, 4, 4) (equal values, F = d "
                      "before n)", lambda: [explore(lambda s, r=r: s.inverse_cdf(FunctionDraw(
                          2, 4, lambda z: r[z]))) for r in ((1, 1, 4), (0, 4, 4))],
           [{0: F(1, 4), 2: F(3, 4)}, {1: F(1)}]),
    *(Refuse("ExploringSource.bernoulli", f"num/den = {num}/{den}", lambda num=num, den=den:
             ExploringSource().bernoulli(num, den), DomainError, (f"{num}/{den}",))
      for num, den in ((-1, 2), (3, 2), (0, 0))),
    *(Refuse("ExploringSource.bernoulli", f"num = {num!r} (refused by every source)",
             lambda num=num: ExploringSource().bernoulli(num, 2), ParameterTypeError,
             (f"num = {num!r}",)) for num in (True, F(1))),
    Accept("explore", "bernoulli(0, 1), (1, 1), (0, 2), (2, 2)", lambda: [
        explore(lambda s, a=a, b=b: s.bernoulli(a, b)) for a, b in ((0, 1), (1, 1), (0, 2),
                                                                    (2, 2))],
        [{False: 1}, {True: 1}, {False: 1}, {True: 1}]),
    # explore: the run limit and deterministic replays
    Refuse("explore", "uniform(3) (3 runs) with max_runs = 2", lambda: explore(
        lambda s: s.uniform(3), max_runs=2), ExplorationIncomplete, ("more than 2 runs",)),
    Accept("explore", "uniform(3) with max_runs = 3", lambda: explore(
        lambda s: s.uniform(3), max_runs=3), {u: F(1, 3) for u in range(1, 4)}),
]


def _shrinking() -> object:
    """Code that draws twice on its first run and once afterwards (not replayable)."""
    runs = [0]

    def fn(src: RandomSource) -> int:
        runs[0] += 1
        u = src.uniform(2)
        return u + src.uniform(2) if runs[0] == 1 else u
    return explore(fn)


def _growing() -> object:
    """Code whose replay draws from a larger domain (its weights would sum to 3/4): the
    replayed draw differs from the one it replays."""
    runs = [0]

    def fn(src: RandomSource) -> int:
        runs[0] += 1
        return src.uniform(2 if runs[0] == 1 else 4)
    return explore(fn)


SOURCES += [
    Refuse("explore", "a replay making fewer draws", _shrinking, NondeterminismError,
           ("fewer than the 2",)),
    Refuse("explore", "a replay from a larger domain (weights 3/4)", _growing,
           NondeterminismError, ("draw 0 offered 4 options", "2 of weights [1 each (2)]")),
    Accept("explore", "two draws, replayed alike", lambda: explore(
        lambda s: s.uniform(2) + s.uniform(2)), {2: F(1, 4), 3: F(1, 2), 4: F(1, 4)}),
]

#: Law of M(0, U) for ``T``, from ``ROWS`` by differences.
_LAW0 = {z: F(ROWS[0][z] - (ROWS[0][z - 1] if z else 0), 4) for z in range(3)}
_TWO = [{0: F(1, 2), 1: F(1, 2)}, {0: F(1, 4), 1: F(3, 4)}]


def _accuracy(dists: list[dict[int, Fraction]], beta: Fraction) -> int:
    """The least ``a`` with ``Pr[|M(c) - c| <= a] >= 1 - beta`` for every c, counting up."""
    a = 0
    while any(sum(p for z, p in d.items() if abs(z - c) <= a) < 1 - beta
              for c, d in enumerate(dists)):
        a += 1
    return a


CHECKER: list[Case] = [
    # enumerate_distribution / is_monotone_in_u: d <= limit; outputs in [0, n]
    Refuse("enumerate_distribution", "limit = d - 1", lambda: enumerate_distribution(T, 0, 3),
           ResourceLimitError, ("d = 4", "limit 3")),
    Accept("enumerate_distribution", "limit = d", lambda: enumerate_distribution(T, 0, 4),
           _LAW0),
    Refuse("enumerate_distribution", "M(0, 1) = -1", lambda: enumerate_distribution(
        Rigged(ROWS, {1: -1}), 0), DomainError, ("M(0, 1) = -1", "outside")),
    Refuse("enumerate_distribution", "M(0, d) = n + 1", lambda: enumerate_distribution(
        Rigged(ROWS, {4: 3}), 0), DomainError, ("M(0, 4) = 3", "outside")),
    Refuse("is_monotone_in_u", "limit = d - 1", lambda: is_monotone_in_u(T, 0, 3),
           ResourceLimitError, ("d = 4", "limit 3")),
    Accept("is_monotone_in_u", "limit = d: T (monotone) and an out-of-order M",
           lambda: [is_monotone_in_u(T, 0, 4), is_monotone_in_u(Rigged(ROWS, {2: 2}), 0, 4)],
           [True, False]),
    # thresholds: M(c, d) <= n; outputs in [0, n]; in order
    Refuse("thresholds", "M(0, d) = n + 1", lambda: thresholds(Rigged(ROWS, {4: 3}), 0),
           DomainError, ("left [0, n]",)),
    Refuse("thresholds", "M(0, 1) = -1", lambda: thresholds(Rigged(ROWS, {1: -1}), 0),
           DomainError, ("M(0, 1) = -1", "outside")),
    Refuse("thresholds", "M(0, 2) = 2 > M(0, 3) = 1", lambda: thresholds(
        Rigged(ROWS, {2: 2}), 0), NotMonotoneError, ("M(0, 2) = 2 > M(0, 3) = 1",)),
    Accept("thresholds", "every c, with and without the hint (equal outputs at u = 2, 3)",
           lambda: [thresholds(T, c, h) for c in range(3) for h in (True, False)],
           [r for r in ROWS for _ in range(2)]),
    # worst_ratio: some outcome of positive probability
    Refuse("worst_ratio", "no pairs", lambda: worst_ratio([]), ParameterError,
           ("no outcome",)),
    Refuse("worst_ratio", "only zero-probability outcomes", lambda: worst_ratio(
        [(0, {0: F(0)}, 1, {0: F(1)})]), ParameterError, ("no outcome",)),
    Accept("worst_ratio", "one pair: (1/2) / (1/4)", lambda: worst_ratio(
        [(0, _TWO[0], 1, _TWO[1])]).ratio, F(2)),
    # exact_accuracy: beta in (0, 1], some distributions, each of mass >= 1 - beta
    Refuse("exact_accuracy", "beta = 0", lambda: exact_accuracy(_TWO, 0), ParameterError,
           ("beta = 0",)),
    Refuse("exact_accuracy", "beta = 3/2", lambda: exact_accuracy(_TWO, F(3, 2)),
           ParameterError, ("beta = 3/2",)),
    Refuse("exact_accuracy", "no distributions", lambda: exact_accuracy([], F(1, 2)),
           ParameterError, ("no distributions",)),
    Refuse("exact_accuracy", "mass 1/2 < 1 - beta", lambda: exact_accuracy(
        [{0: F(1, 2)}], F(1, 4)), ParameterError, ("total mass 1/2",)),
    Accept("exact_accuracy", "beta = 1, 1/2, 1/4 and 1/1000 (a reaching the support's end)",
           lambda: [exact_accuracy(_TWO, b).a for b in (1, F(1, 2), F(1, 4), F(1, 1000))],
           [_accuracy(_TWO, b) for b in (F(1), F(1, 2), F(1, 4), F(1, 1000))]),
    # FixedSource: values in [1, d], and enough of them
    Refuse("FixedSource.uniform", "no values left", lambda: FixedSource().uniform(2),
           DomainError, ("ran out",)),
    *(Refuse("FixedSource.uniform", f"value {v} for d = 2", lambda v=v: FixedSource(
        v).uniform(2), DomainError, (f"value {v}", "outside")) for v in (0, 3)),
    Accept("FixedSource.uniform", "values 1 and d = 2, in order", lambda: FixedSource(1, 2),
           lambda s: [s.uniform(2), s.uniform(2)] == [1, 2]),
    # check_strict_time: some draws to try
    Refuse("check_strict_time", "us = []", lambda: check_strict_time(T, []), ParameterError,
           ("no values of u",)),
    Accept("check_strict_time", "us = [1] (and [d])", lambda: [
        check_strict_time(T, us).verdict for us in ([1], [4])], [True, True]),
    # certified arithmetic: non-empty intervals, logarithms of x >= 1 / x > 0
    Refuse("Interval", "lo = 2 > hi = 1", lambda: Interval(F(2), F(1)), ValueError,
           ("empty interval",)),
    Accept("Interval", "lo = hi", lambda: F(1) in Interval(F(1), F(1)), True),
    Refuse("ceil_log2", "x = 0", lambda: ceil_log2(0), ParameterError, ("x = 0",)),
    Accept("ceil_log2", "x = 1..9", lambda: [ceil_log2(x) for x in range(1, 10)],
           [next(k for k in range(5) if 2**k >= x) for x in range(1, 10)]),
    Refuse("floor_log2", "x = 0", lambda: floor_log2(0), ParameterError, ("x = 0",)),
    Accept("floor_log2", "x = 1..9", lambda: [floor_log2(x) for x in range(1, 10)],
           [max(k for k in range(5) if 2**k <= x) for x in range(1, 10)]),
    Refuse("ln_interval", "x = 0", lambda: ln_interval(F(0), 40), ParameterError, ("x = 0",)),
    Accept("ln_interval", "x = 2^-30 encloses -30 ln 2 within 2^-30", lambda: ln_interval(
        F(1, 2**30), 40), lambda box: (box.lo <= -30 * LN2_LO and box.hi >= -30 * LN2_HI
                                       and box.hi - box.lo <= F(1, 2**30))),
    Refuse("exp_lower_bound_at_least", "r = 2 > e^0", lambda: exp_lower_bound_at_least(
        F(0), F(2)), ParameterError, ("1 = e**0",)),
    Refuse("exp_lower_bound_at_least", "r = 3 > e^1", lambda: exp_lower_bound_at_least(
        F(1), F(3)), ParameterError, ("3 > e**(1)",)),
    Accept("exp_lower_bound_at_least", "r = 1 at x = 0; r = 2 at x = 1 (2 <= L <= e)",
           lambda: [exp_lower_bound_at_least(F(0), F(1)),
                    exp_lower_bound_at_least(F(1), F(2))],
           lambda ls: ls[0] == 1 and 2 <= ls[1] < E_HI),
    Refuse("ceil_log_ratio", "x = 1/2", lambda: ceil_log_ratio(F(1, 2), F(2)), ParameterError,
           ("x=1/2",)),
    Refuse("ceil_log_ratio", "base = 1", lambda: ceil_log_ratio(F(2), F(1)), ParameterError,
           ("base=1",)),
    Accept("ceil_log_ratio", "x = 1 (0), x = 2 at base 2, x = 4 at base 3/2, x = 2 at base "
                             "1 + 2^-10", lambda: [ceil_log_ratio(x, b) for x, b in (
                                 (F(1), F(2)), (F(2), F(2)), (F(4), F(3, 2)),
                                 (F(2), 1 + F(1, 1024)))],
           [_smallest_power(b, x) for x, b in ((F(1), F(2)), (F(2), F(2)), (F(4), F(3, 2)),
                                                (F(2), 1 + F(1, 1024)))]),
]
