"""Tests of exactdp.checker (and exactdp.certificate): distributions read off the
implementation, distances, hockey-stick divergence, worst ratios, accuracy, traces.

Expected values come from toy mechanisms whose distribution is known by construction,
from brute force over all subsets / all ``a`` (Definitions 2.9, 4.2), from the paper's
formulas typed independently, or from sympy (see ``_sympy_sign``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy_oracle import q as _q
from sympy_oracle import sympy_sign as _sympy_sign

from exactdp.certificate import Certificate, ClaimReport, brief, exact_json, fraction_str
from exactdp.checker import (
    AccuracyResult,
    FixedSource,
    RatioWitness,
    accuracy_probability,
    certify_ratio,
    check_strict_time,
    counting_distribution,
    counting_distributions,
    enumerate_distribution,
    exact_accuracy,
    hockey_stick,
    hockey_stick_eps,
    is_monotone_in_u,
    operation_trace,
    statistical_distance,
    threshold_distribution,
    thresholds,
    worst_neighbour_ratio,
    worst_ratio,
)
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler, TabulatedMechanism
from exactdp.params import DomainError, FloatParameterError, ParameterError, ResourceLimitError
from exactdp.trace import record


def rounds_brute(n: int) -> int:
    r = 0
    while 2**r < n + 1:
        r += 1
    return r


# ---------------------------------------------------------------- toy mechanisms


class TableSampler(TabulatedMechanism):
    """A counting mechanism with explicit integer CDF tables ``tables[c][z]``."""

    def expected(self, c: int) -> dict[int, Fraction]:
        """The distribution by construction: (F(z) - F(z-1)) / d."""
        return {z: Fraction(self.cdf(c, z) - self.cdf(c, z - 1), self._d)
                for z in range(self.n + 1)}


@st.composite
def table_samplers(draw: st.DrawFn, max_n: int = 6, max_d: int = 40) -> TableSampler:
    n = draw(st.integers(min_value=1, max_value=max_n))
    d = draw(st.integers(min_value=1, max_value=max_d))
    tables = []
    for _ in range(n + 1):
        cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=d),
                                    min_size=n, max_size=n)))
        tables.append(cuts + [d])
    return TableSampler(tables)


class LyingHint(TableSampler):
    """``cdf`` (used only as a hint) is wrong; ``M`` itself searches the true table."""

    def cdf(self, c: int, z: int) -> int:
        return max(0, min(self._d, super().cdf(c, z) + (1 if z % 2 else -1)))

    def __call__(self, c: int, u: int) -> int:
        return min(z for z in range(self.n + 1) if TableSampler.cdf(self, c, z) >= u)

    def expected(self, c: int) -> dict[int, Fraction]:
        return {z: Fraction(TableSampler.cdf(self, c, z) - TableSampler.cdf(self, c, z - 1),
                            self._d) for z in range(self.n + 1)}


class NonMonotone(TableSampler):
    def __call__(self, c: int, u: int) -> int:
        return (self.d - u) % (self.n + 1)


class EarlyExit(GeoSample):
    """GeoSample with a linear search that stops at the first z with F(z) >= u: same
    output, but the number of CDF evaluations depends on c (not strict time)."""

    def __call__(self, c: int, u: int) -> int:
        z = 0
        while True:
            record("cdf")
            if self.cdf(c, z) >= u:
                return z
            z += 1


# ---------------------------------------------------------------- distributions of M(c, U)


@given(table_samplers(), st.data())
def test_enumeration_equals_thresholds_equals_construction(mech: TableSampler,
                                                           data: st.DataObject) -> None:
    c = data.draw(st.integers(min_value=0, max_value=mech.n))
    expected = mech.expected(c)
    assert enumerate_distribution(mech, c) == expected
    assert threshold_distribution(mech, c, hint=True) == expected
    assert threshold_distribution(mech, c, hint=False) == expected
    for method in ("auto", "enumerate", "thresholds", "search"):
        assert counting_distribution(mech, c, method) == expected  # type: ignore[arg-type]


@given(table_samplers(), st.data())
def test_wrong_hint_never_changes_the_answer(mech: TableSampler, data: st.DataObject) -> None:
    liar = LyingHint(mech.table)
    c = data.draw(st.integers(min_value=0, max_value=liar.n))
    assert threshold_distribution(liar, c, hint=True) == liar.expected(c)
    assert enumerate_distribution(liar, c) == liar.expected(c)


@pytest.mark.parametrize(("n", "m"), [(1, 1), (3, 1), (4, 2), (5, 2), (3, 8)])
def test_geosample_three_methods_agree(n: int, m: int) -> None:
    mech = GeoSample(n, Fraction(1, m))
    for c in range(n + 1):
        enum = enumerate_distribution(mech, c)
        assert enum == threshold_distribution(mech, c, hint=True)
        assert enum == threshold_distribution(mech, c, hint=False)
        assert sum(enum.values()) == 1


@pytest.mark.parametrize(("n", "m", "g"), [(3, 1, 2), (6, 2, 8)])
def test_fastsample_hinted_and_plain_search_agree(n: int, m: int, g: int) -> None:
    mech = FastSample(n, Fraction(1, m), Fraction(1, g))
    for c in range(n + 1):
        hinted = threshold_distribution(mech, c, hint=True)
        assert hinted == threshold_distribution(mech, c, hint=False)
        # thresholds are F_c(z): Pr[M(c, U) <= z] = F(z)/d (Theorem 4.10 proof)
        assert thresholds(mech, c) == tuple(mech.cdf(c, z) for z in range(n + 1))


def test_counting_distributions_list() -> None:
    mech = GeoSample(3, 1)
    dists = counting_distributions(mech)
    assert len(dists) == 4
    assert dists == [enumerate_distribution(mech, c) for c in range(4)]


def test_monotonicity_check() -> None:
    tables = [[1, 3, 3, 6], [0, 2, 5, 6], [2, 2, 2, 6], [0, 0, 0, 6]]
    assert all(is_monotone_in_u(TableSampler(tables), c) for c in range(4))
    assert not any(is_monotone_in_u(NonMonotone(tables), c) for c in range(4))
    geo = GeoSample(4, Fraction(1, 2))
    assert all(is_monotone_in_u(geo, c) for c in range(5))


def test_distribution_errors() -> None:
    geo = GeoSample(4, Fraction(1, 2))
    with pytest.raises(ResourceLimitError, match="threshold"):
        enumerate_distribution(geo, 0, limit=100)
    with pytest.raises(ResourceLimitError):
        is_monotone_in_u(geo, 0, limit=100)
    with pytest.raises(ParameterError, match="method"):
        counting_distribution(geo, 0, "magic")  # type: ignore[arg-type]

    class Escapes(TableSampler):
        def __call__(self, c: int, u: int) -> int:
            return self.n + 1 if u == self.d else 0

    bad = Escapes([[1, 2, 4], [1, 2, 4], [1, 2, 4]])
    with pytest.raises(DomainError, match="outside"):
        enumerate_distribution(bad, 0)
    with pytest.raises(DomainError, match="left"):
        thresholds(bad, 0, hint=False)


# ---------------------------------------------------------------- distances


@st.composite
def distributions(draw: st.DrawFn, support: int = 5) -> dict[int, Fraction]:
    weights = draw(st.lists(st.integers(min_value=0, max_value=6), min_size=support,
                            max_size=support).filter(lambda w: sum(w) > 0))
    total = sum(weights)
    # zero-probability outcomes are left out at random, as callers may do
    return {i: Fraction(w, total) for i, w in enumerate(weights) if w or draw(st.booleans())}


def _mass(p: Mapping[int, Fraction], subset: tuple[int, ...]) -> Fraction:
    return sum((p.get(o, Fraction(0)) for o in subset), Fraction(0))


def _subsets(outcomes: list[int]) -> list[tuple[int, ...]]:
    return [s for r in range(len(outcomes) + 1) for s in itertools.combinations(outcomes, r)]


def sd_brute(p: Mapping[int, Fraction], q: Mapping[int, Fraction]) -> Fraction:
    """Definition 2.9, first line: max over events A of |P(A) - Q(A)|."""
    outs = sorted(set(p) | set(q))
    return max(abs(_mass(p, s) - _mass(q, s)) for s in _subsets(outs))


def hs_brute(p: Mapping[int, Fraction], q: Mapping[int, Fraction], r: Fraction) -> Fraction:
    """sup over events S of P(S) - r Q(S)."""
    outs = sorted(set(p) | set(q))
    return max(_mass(p, s) - r * _mass(q, s) for s in _subsets(outs))


def test_distances_hand_cases() -> None:
    p = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    q = {0: Fraction(1, 4), 1: Fraction(3, 4)}
    assert statistical_distance(p, q) == Fraction(1, 4)
    assert statistical_distance(p, p) == 0
    assert statistical_distance({0: Fraction(1)}, {1: Fraction(1)}) == 1
    assert statistical_distance({0: Fraction(1)}, {0: Fraction(1), 1: Fraction(0)}) == 0
    assert hockey_stick(p, q, 1) == Fraction(1, 4)
    assert hockey_stick(p, q, 2) == 0              # 1/2 - 2*1/4 = 0, 1/2 - 3/2 < 0
    assert hockey_stick(p, q, Fraction(3, 2)) == Fraction(1, 8)
    assert hockey_stick(q, p, 1) == Fraction(1, 4)
    assert hockey_stick(q, p, Fraction(3, 2)) == 0
    assert hockey_stick({0: Fraction(1)}, {1: Fraction(1)}, 10**9) == 1


@given(distributions(), distributions(), distributions())
def test_statistical_distance_properties(p: dict[int, Fraction], q: dict[int, Fraction],
                                         r: dict[int, Fraction]) -> None:
    sd = statistical_distance(p, q)
    assert sd == sd_brute(p, q)
    assert sd == statistical_distance(q, p)
    assert 0 <= sd <= 1
    assert statistical_distance(p, p) == 0
    assert statistical_distance(p, r) <= sd + statistical_distance(q, r)
    assert (sd == 0) == all(p.get(o, 0) == q.get(o, 0) for o in set(p) | set(q))


@given(distributions(), distributions(),
       st.fractions(min_value=1, max_value=5, max_denominator=20),
       st.fractions(min_value=0, max_value=2, max_denominator=20))
def test_hockey_stick_properties(p: dict[int, Fraction], q: dict[int, Fraction],
                                 ratio: Fraction, step: Fraction) -> None:
    hs = hockey_stick(p, q, ratio)
    assert hs == hs_brute(p, q, ratio)
    assert hockey_stick(p, q, 1) == statistical_distance(p, q)
    assert 0 <= hs <= 1
    assert hockey_stick(p, q, ratio + step) <= hs  # non-increasing in the ratio


def test_hockey_stick_rejects_float_ratio() -> None:
    with pytest.raises(FloatParameterError, match="ratio"):
        hockey_stick({0: Fraction(1)}, {0: Fraction(1)}, 1.5)


@given(distributions(support=4), distributions(support=4),
       st.fractions(min_value=0, max_value=2, max_denominator=50))
def test_hockey_stick_eps_contains_sympy_value(p: dict[int, Fraction], q: dict[int, Fraction],
                                               eps: Fraction) -> None:
    # delta(eps) = sum over outcomes with P > e**eps Q of (P - e**eps Q) = A - e**eps B.
    e = sympy.exp(_q(eps))
    a_sum, b_sum = Fraction(0), Fraction(0)
    for o in set(p) | set(q):
        po, qo = p.get(o, Fraction(0)), q.get(o, Fraction(0))
        if _sympy_sign(_q(po) - e * _q(qo)) > 0:
            a_sum += po
            b_sum += qo
    value = _q(a_sum) - e * _q(b_sum)
    box = hockey_stick_eps(p, q, eps)
    assert _sympy_sign(value - _q(box.lo)) >= 0
    assert _sympy_sign(_q(box.hi) - value) >= 0
    assert box.hi - box.lo <= Fraction(1, 2**100)


# ---------------------------------------------------------------- worst ratio


def test_worst_ratio_finds_infinite_ratio_and_witness() -> None:
    p = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    q = {0: Fraction(1)}
    w = worst_ratio([("D", p, "D'", q)])
    assert w.infinite and w.ratio is None
    assert (w.numerator_input, w.denominator_input, w.outcome) == ("D", "D'", 1)
    assert (w.p, w.q) == (Fraction(1, 2), 0)
    assert w.to_json()["ratio"] == "infinity"
    # the other direction is finite: q(0)/p(0) = 2
    w2 = worst_ratio([("D'", q, "D", p)])
    assert w2.ratio == 2 and not w2.infinite and w2.outcome == 0


@given(st.lists(st.tuples(distributions(support=4), distributions(support=4)), min_size=1,
                max_size=4))
def test_worst_ratio_vs_brute_force(pairs: list[tuple[dict[int, Fraction], dict[int, Fraction]]]
                                    ) -> None:
    candidates = [(i, o) for i, (p, q) in enumerate(pairs) for o in set(p) | set(q)
                  if p.get(o, 0) > 0]
    w = worst_ratio([(i, p, -i, q) for i, (p, q) in enumerate(pairs)])
    infinite = [(i, o) for i, o in candidates if pairs[i][1].get(o, 0) == 0]
    if infinite:
        assert w.ratio is None
        assert (w.numerator_input, w.outcome) in infinite
        return
    best = max(pairs[i][0][o] / pairs[i][1][o] for i, o in candidates)
    assert w.ratio == best
    p, q = pairs[w.numerator_input]
    assert w.denominator_input == -w.numerator_input
    assert w.p == p[w.outcome] and w.q == q[w.outcome] and w.p / w.q == best


def test_worst_ratio_compares_signed_ratios_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # worst_ratio keeps x / y as an unreduced pair (rn, rd) with rd > 0 and compares cross
    # products: with a negative value (not a probability, but typed as one) the ratios are
    # still those of Fraction division, first winner kept on ties, reduced once at the end
    from _plant import plant

    import exactdp.checker as checker_mod

    pairs = [("a", {0: Fraction(2, 6), 1: Fraction(1, 4)}, "b", {0: Fraction(-1, 3), 1: 1}),
             ("c", {0: Fraction(3, 9)}, "d", {0: Fraction(1, 2)})]
    w = worst_ratio(pairs)
    assert (w.ratio, w.numerator_input, w.outcome) == (Fraction(2, 3), "c", 0)
    assert (w.ratio.numerator, w.ratio.denominator) == (2, 3)
    ties = [("a", {0: Fraction(1, 2)}, "b", {0: Fraction(1, 4)}),
            ("c", {0: Fraction(2, 4)}, "d", {0: Fraction(2, 8)})]
    assert worst_ratio(ties).numerator_input == "a"
    # a negative mass takes the direct path (the screened one takes nonnegative laws)
    plant(monkeypatch, checker_mod, "_worst_ratio_direct", "rn, rd = -rn, -rd", "pass")
    assert checker_mod.worst_ratio(pairs).ratio != Fraction(2, 3)  # the sign fix matters


def test_worst_ratio_nothing_examined() -> None:
    with pytest.raises(ParameterError):
        worst_ratio([])
    with pytest.raises(ParameterError):
        worst_ratio([(0, {0: Fraction(0)}, 1, {0: Fraction(1)})])


@pytest.mark.parametrize(("n", "m"), [(1, 1), (4, 2), (6, 3), (5, 8)])
def test_geosample_worst_neighbour_ratio(n: int, m: int) -> None:
    mech = GeoSample(n, Fraction(1, m))
    dists = counting_distributions(mech)
    w = worst_neighbour_ratio(dists)
    k = 0
    while 2**k < 2 * m:
        k += 1
    assert w.ratio == 1 + Fraction(1, 2**k)  # Theorem 4.7 i: e**(eps~/2) = 1 + 2**-k
    assert abs(w.numerator_input - w.denominator_input) == 1
    assert w.p == dists[w.numerator_input][w.outcome]
    assert w.q == dists[w.denominator_input][w.outcome]
    ok, text = certify_ratio(w, Fraction(1, 2 * m))  # (eps/2, 0)-DP
    assert ok and "<=" in text
    # 1 + 2**-k > e**(eps/4) for these m, so the checker must refuse eps/4.
    assert _sympy_sign(_q(w.ratio) - sympy.exp(sympy.Rational(1, 4 * m))) == 1
    ok, text = certify_ratio(w, Fraction(1, 4 * m))
    assert not ok and ">" in text


def test_fastsample_worst_ratio_certified() -> None:
    mech = FastSample(4, Fraction(1, 2), Fraction(1, 4))
    w = worst_neighbour_ratio(counting_distributions(mech))
    assert w.ratio is not None
    assert _sympy_sign(sympy.exp(sympy.Rational(1, 4)) - _q(w.ratio)) == 1
    assert certify_ratio(w, Fraction(1, 4))[0]  # Theorem 4.10 i: (eps/2, 0)-DP


def test_certify_ratio_hand_cases() -> None:
    def witness(r: Fraction | None) -> RatioWitness:
        return RatioWitness(r, 0, 1, 0, Fraction(1), Fraction(1))

    assert certify_ratio(witness(Fraction(2718, 1000)), 1)[0]
    assert not certify_ratio(witness(Fraction(2719, 1000)), 1)[0]
    assert not certify_ratio(witness(None), 1)[0]
    assert certify_ratio(witness(Fraction(1)), 0)[0]


# ---------------------------------------------------------------- accuracy


def accuracy_brute(dists: list[dict[int, Fraction]], beta: Fraction) -> int:
    a = 0
    while True:
        if all(sum((p for z, p in d.items() if abs(z - c) <= a), Fraction(0)) >= 1 - beta
               for c, d in enumerate(dists)):
            return a
        a += 1


@given(table_samplers(max_n=6, max_d=30), st.fractions(min_value=Fraction(1, 50), max_value=1,
                                                       max_denominator=50))
def test_exact_accuracy_vs_brute_force(mech: TableSampler, beta: Fraction) -> None:
    dists = [mech.expected(c) for c in range(mech.n + 1)]
    res = exact_accuracy(dists, beta)
    assert isinstance(res, AccuracyResult)
    assert res.a == accuracy_brute(dists, beta)
    assert res.beta == beta
    assert res.probability == accuracy_probability(dists[res.worst_count], res.worst_count, res.a)
    assert res.probability >= 1 - beta
    # the worst count really needs a: with a - 1 it fails there
    if res.a > 0:
        assert accuracy_probability(dists[res.worst_count], res.worst_count, res.a - 1) < 1 - beta


def test_accuracy_hand_case() -> None:
    dists = [{0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)},
             {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)},
             {0: Fraction(0), 1: Fraction(0), 2: Fraction(1)}]
    assert exact_accuracy(dists, Fraction(1, 2)).a == 1
    assert exact_accuracy(dists, Fraction(1, 4)).a == 1
    assert exact_accuracy(dists, Fraction(1, 5)).a == 2
    assert exact_accuracy(dists, Fraction(3, 4)).a == 0
    assert exact_accuracy(dists, 1).a == 0


def test_exact_accuracy_refuses_sub_probability_instead_of_hanging() -> None:
    # Total mass 1/2 < 1 - beta: no a can reach it; must be a typed error, not a hang.
    with pytest.raises(ParameterError, match="total mass 1/2"):
        exact_accuracy([{0: Fraction(1, 2)}], Fraction(1, 10))
    with pytest.raises(ParameterError, match="c = 1"):
        exact_accuracy([{0: Fraction(1)}, {0: Fraction(1, 4), 3: Fraction(1, 4)}],
                       Fraction(1, 10))
    with pytest.raises(ParameterError):
        exact_accuracy([{}], Fraction(1, 10))
    # exactly at the boundary it is fine: mass 9/10 >= 1 - 1/10
    assert exact_accuracy([{0: Fraction(9, 10)}], Fraction(1, 10)).a == 0


@pytest.mark.parametrize("beta", [0, -1, 2])
def test_exact_accuracy_bad_beta(beta: object) -> None:
    with pytest.raises(ParameterError, match="beta"):
        exact_accuracy([{0: Fraction(1)}], beta)


# ---------------------------------------------------------------- traces, strict time


def test_operation_trace_of_geosample() -> None:
    mech = GeoSample(6, Fraction(1, 2))
    # One draw; per round: the recorded round, then the profiler-seen call of the search's
    # F (PowerWalk.search_cdf, on gmpy2 integers).
    one_round = (("cdf",), ("call", "search_cdf"))
    expected = (("uniform", mech.d),) + one_round * rounds_brute(6)
    for c in range(7):
        for u in (1, mech.d // 2, mech.d):
            assert operation_trace(mech, c, u) == expected


@pytest.mark.parametrize("mech", [GeoSample(2, 1), GeoSample(5, Fraction(1, 2)),
                                  FastSample(3, 1, Fraction(1, 2)),
                                  FastSample(6, Fraction(1, 3), Fraction(1, 8))],
                         ids=repr)
def test_strict_time_passes_for_the_samplers(mech: InverseCDFSampler) -> None:
    cert = check_strict_time(mech)
    assert cert.verdict is True
    trace = operation_trace(mech, 0, 1)
    assert [e for e in trace if e[0] == "uniform"] == [("uniform", mech.d)]
    assert trace.count(("cdf",)) == rounds_brute(mech.n)  # the fixed rounds
    # one F each; FastSample's native search evaluates F in C, where no profiler sees it
    # (proofs/balcer_vadhan/thm_4_10_fast_path.py proves its outputs equal the Python search's)
    in_c = getattr(mech, "_native", None) is not None
    assert trace.count(("call", "search_cdf")) == (0 if in_c else rounds_brute(mech.n))


class SilentLinearScan(GeoSample):
    """A linear search that records nothing itself: only the profiler sees its CDF calls."""

    def __call__(self, c: int, u: int) -> int:
        z = 0
        while self.cdf(c, z) < u:
            z += 1
        return z


def test_strict_time_fails_for_a_scan_that_records_nothing() -> None:
    mech = SilentLinearScan(4, Fraction(1, 2))
    cert = check_strict_time(mech)
    assert cert.verdict is False
    assert cert.witness["trace"] != cert.witness["reference"]


def test_strict_time_fails_for_early_exit_search() -> None:
    mech = EarlyExit(4, Fraction(1, 2))
    # Same outputs as GeoSample: the failure is about time, not about values.
    plain = GeoSample(4, Fraction(1, 2))
    assert all(mech(c, u) == plain(c, u) for c in range(5) for u in (1, 500, mech.d))
    cert = check_strict_time(mech)
    assert cert.verdict is False
    assert cert.witness["trace"] != cert.witness["reference"]
    assert 0 <= int(cert.witness["c"]) <= 4
    assert cert.to_json()["verdict"] == "FAIL"
    # restricted to a single u, the trace still varies with c
    assert not check_strict_time(mech, us=[mech.d // 2]).verdict


def test_fixed_source() -> None:
    src = FixedSource(3, 1)
    assert src.uniform(5) == 3 and src.uniform(1) == 1
    with pytest.raises(DomainError, match="ran out"):
        src.uniform(5)
    with pytest.raises(DomainError, match="outside"):
        FixedSource(6).uniform(5)


# ---------------------------------------------------------------- certificates


def _numbers_are_strings(value: Any) -> bool:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, (int, float)):
        return False
    if isinstance(value, dict):
        return all(_numbers_are_strings(v) for v in value.values())
    if isinstance(value, list):
        return all(_numbers_are_strings(v) for v in value)
    return False


def test_certificate_json_round_trip() -> None:
    big = 2**300 + 1
    witness = RatioWitness(Fraction(9, 8), 2, 3, 1, Fraction(8, big), Fraction(64, 9 * big))
    cert = Certificate(
        claim="Theorem 4.7 i", mechanism="GeoSample(n=3, epsilon=1/4)",
        parameters={"n": 3, "epsilon": Fraction(1, 4), "d": big},
        domain="c in [0, 3]", worst=Fraction(9, 8), bound="= 1 + 2^-k", verdict=True,
        witness={"ratio": witness, "pair": (2, 3), "p": Fraction(8, big)}, note="exact")
    text = cert.dumps()
    data = json.loads(text)
    assert _numbers_are_strings(data)
    assert data["worst"] == "9/8" and Fraction(data["worst"]) == Fraction(9, 8)
    assert data["parameters"] == {"n": "3", "epsilon": "1/4", "d": str(big)}
    assert int(data["parameters"]["d"]) == big
    assert Fraction(data["witness"]["p"]) == Fraction(8, big)
    assert data["witness"]["pair"] == ["2", "3"]
    assert data["witness"]["ratio"]["ratio"] == "9/8"
    assert Fraction(data["witness"]["ratio"]["q"]) == Fraction(64, 9 * big)
    assert data["verdict"] == "pass"
    assert (data["claim"], data["bound"], data["note"]) == ("Theorem 4.7 i", "= 1 + 2^-k", "exact")
    assert json.loads(json.dumps(data)) == data


def test_exact_json_and_fraction_str() -> None:
    assert fraction_str(Fraction(6, 4)) == "3/2"
    assert fraction_str(7) == "7"
    assert exact_json({"a": [Fraction(1, 3), 2, None, True, "x"]}) == {
        "a": ["1/3", "2", None, True, "x"]}


@given(st.fractions(max_denominator=10**40), st.integers(min_value=1, max_value=30))
def test_brief_is_exactly_true(q: Fraction, digits: int) -> None:
    text = brief(q, digits)
    if not text.endswith("..."):
        assert Fraction(text) == q  # short: exact p/q
        return
    shown = Fraction(text[:-3])
    assert len(text[:-3].split(".")[1]) == digits
    # truncated toward zero: |shown| <= |q| < |shown| + 10**-digits
    assert abs(shown) <= abs(q) < abs(shown) + Fraction(1, 10**digits)
    assert shown == 0 or (shown < 0) == (q < 0)


def test_brief_hand_cases() -> None:
    assert brief(Fraction(1, 3)) == "1/3"
    assert brief(7) == "7"
    assert brief(Fraction(10**30 + 1, 10**30)) == "1.00000000..."
    assert brief(-Fraction(2 * 10**30 - 1, 10**30)) == "-1.99999999..."


def test_numbers_longer_than_cpython_str_cap_serialise() -> None:
    # CPython 3.11 refuses str(int) beyond 4300 digits; certificates must still be exact
    # (GeoSample's d has about n log2(2^k + 1) bits: n = 4000, eps = 1/10 gives 7000 digits).
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    try:
        big = 3**20000 + 1
        q = Fraction(big, 7**6000)  # coprime: big = 3 (mod 7)
        text = fraction_str(q)
        num, den = text.split("/")
        assert len(num) == 9543  # floor(20000 log10 3) + 1
        assert num[-1] == "2"  # 3**20000 = 81**5000 = 1 (mod 10)
        assert len(den) == 5071  # floor(6000 log10 7) + 1
        cert = Certificate("c", "m", {"d": big}, "dom", q, "b", True)
        data = json.loads(cert.dumps())
        assert data["worst"] == text and data["parameters"]["d"] == num
        assert brief(q).endswith("...")
        assert brief(-q).startswith("-")
        sys.set_int_max_str_digits(0)  # parse back with CPython's own int()
        assert Fraction(int(num), int(den)) == q
        assert Fraction(brief(q)[:-3]) <= q < Fraction(brief(q)[:-3]) + Fraction(1, 10**8)
    finally:
        sys.set_int_max_str_digits(old)


def test_claim_report_verdict() -> None:
    def cert(ok: bool) -> Certificate:
        return Certificate("c", "m", {}, "dom", Fraction(1), "b", ok)

    assert not ClaimReport("claim", "grid", "w", "b", []).verdict  # covered nothing
    assert ClaimReport("claim", "grid", "w", "b", [cert(True), cert(True)]).verdict
    report = ClaimReport("claim", "grid", "w", "b", [cert(True), cert(False)])
    assert not report.verdict
    data = json.loads(json.dumps(report.to_json()))
    assert data["verdict"] == "FAIL"
    assert [c["verdict"] for c in data["certificates"]] == ["pass", "FAIL"]
    assert _numbers_are_strings(data)


def test_strict_time_certificate_of_a_huge_d() -> None:
    """d of ~700,000 bits (FastSample(1, 1/1000, 1/2)): the certificate's trace sample
    describes d by its size instead of raising on int -> str conversion."""
    from exactdp.checker import check_strict_time
    from exactdp.counting import FastSample

    mech = FastSample(1, "1/1000", "1/2")
    cert = check_strict_time(mech)
    assert cert.verdict
    assert cert.witness["trace"][0] == ["uniform", f"<an int of {mech.d.bit_length()} bits>"]


@given(st.fractions(min_value=0, max_value=10), st.fractions(min_value=0, max_value=10))
def test_brief_apart_prints_two_different_numbers_differently_and_in_order(
        a: Fraction, b: Fraction) -> None:
    from decimal import Decimal

    from exactdp.certificate import brief_apart

    if a == b:
        return
    sa, sb = brief_apart(a, b)
    assert sa != sb
    if sa.endswith("...") and sb.endswith("..."):  # truncated decimals keep the order
        assert (Decimal(sa[:-3]) < Decimal(sb[:-3])) == (a < b)
        assert Decimal(sa[:-3]) <= a and Decimal(sb[:-3]) <= b


def test_certify_ratio_never_prints_two_equal_looking_sides() -> None:
    # diffprivlib's GeometricTruncated at eps = 1: the ratio exceeds e by about 3.7e-13
    w = RatioWitness(Fraction(2001517169164, 736317017687), 0, 1, 8, Fraction(1), Fraction(1))
    ok, text = certify_ratio(w, 1)
    left, right = text.split(" > ")[0], text.split(" > ")[1].split(" >= ")[0]
    assert not ok and left != right


def _hockey_stick_by_fractions(p: Mapping[Any, Any], q: Mapping[Any, Any],
                               r: Fraction) -> Fraction:
    """The definition, one Fraction per outcome of P and Q (the reference of the integer
    path of :func:`exactdp.checker.hockey_stick`)."""
    zero = Fraction(0)
    return sum((max(zero, p.get(o, zero) - r * q.get(o, zero)) for o in {**p, **q}), zero)


def _random_hs_cases(seed: int) -> list[tuple[dict[int, Any], dict[int, Any], Fraction]]:
    import random
    rng = random.Random(seed)
    cases = []
    for _ in range(400):
        def dist() -> dict[int, Any]:
            keys = rng.sample(range(8), rng.randint(0, 6))
            return {k: Fraction(rng.randint(0, 9), rng.randint(1, 40)) if rng.random() < 0.8
                    else rng.randint(0, 1) for k in keys}
        r = rng.choice([Fraction(rng.randint(-5, 20), rng.randint(1, 7)), Fraction(0),
                        Fraction(1), Fraction(-1)])
        cases.append((dist(), dist(), r))
    return cases


def test_hockey_stick_integer_path_equals_fraction_definition() -> None:
    # outcomes of P only, of Q only (they count only for a negative ratio), int masses
    for p, q, r in _random_hs_cases(1):
        got = hockey_stick(p, q, r)
        assert type(got) is Fraction and got == _hockey_stick_by_fractions(p, q, r), (p, q, r)


def test_hockey_stick_planted_missing_q_only_outcomes_is_caught() -> None:
    from test_checker_mutants import planted

    from exactdp import checker
    with planted(checker, "_hockey_stick_direct", "if rn < 0:", "if False:"):
        bad = [c for c in _random_hs_cases(1)
               if checker.hockey_stick(*c) != _hockey_stick_by_fractions(*c)]
    assert bad and all(r < 0 for _, _, r in bad)
