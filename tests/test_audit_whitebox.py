"""White-box audits (exactdp.audit.whitebox_audit) and the ``exactdp audit`` command.

Expected values come from the paper (GeoSample's worst ratio is exactly ``1 + 2**-k``,
Theorem 4.7) or are computed by hand in the test, never read off the audit itself.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from exactdp.audit import load_target, parse_range, whitebox_audit
from exactdp.certified import exp_interval
from exactdp.checker import hockey_stick_eps
from exactdp.cli import main
from exactdp.counting import FastSample, GeometricMechanism, GeoSample
from exactdp.params import ParameterError
from exactdp.randomness import RandomSource

# ---------------------------------------------------------------- correct mechanisms pass


@pytest.mark.parametrize(("n", "eps", "k"), [(8, Fraction(1, 2), 2), (5, Fraction(1, 3), 3),
                                             (3, Fraction(1, 1), 1)])
def test_geosample_passes_with_its_exact_ratio(n: int, eps: Fraction, k: int) -> None:
    geo = GeoSample(n, eps)
    report = whitebox_audit(geo, claimed_epsilon=eps / 2,
                            reference=GeometricMechanism(n, Fraction(2**k, 2**k + 1)))
    assert report.verdict == "pass" and report.exit_code == 0
    assert report.worst is not None and report.worst.ratio == 1 + Fraction(1, 2**k)
    assert report.distance == 0
    assert report.infinite == ()
    assert report.hockey_stick is not None and report.hockey_stick.hi == 0
    assert report.trace is not None and report.trace.same
    assert report.inputs == tuple(range(n + 1))


def test_fastsample_passes_its_claim() -> None:
    fast = FastSample(6, Fraction(1, 2), Fraction(1, 4))
    report = whitebox_audit(fast, claimed_epsilon=Fraction(1, 4))
    assert report.verdict == "pass"
    assert report.worst is not None and report.worst.ratio is not None
    assert report.worst.ratio <= Fraction(5, 4)  # Theorem 4.10 i through Lemma 3.2


def test_violation_is_reported_with_exact_ratio_and_witness() -> None:
    geo = GeoSample(4, Fraction(1, 2))  # ratio exactly 5/4
    report = whitebox_audit(geo, claimed_epsilon=Fraction(1, 5))  # e^(1/5) < 1.2215 < 5/4
    assert report.verdict == "violation" and report.exit_code == 1
    w = report.worst
    assert w is not None and w.ratio == Fraction(5, 4) and w.p / w.q == Fraction(5, 4)
    assert report.excess is not None and 0 < report.excess < Fraction(5, 4) - Fraction(12214, 10**4)
    assert "5/4" in report.summary()


def test_source_kind_gives_the_same_distributions_as_the_counting_kind() -> None:
    geo = GeoSample(4, Fraction(1, 3))

    def mech(c: int, source: RandomSource) -> int:
        return geo.sample(c, source)

    a = whitebox_audit(geo, claimed_epsilon=Fraction(1, 6))
    b = whitebox_audit(mech, inputs=range(5), claimed_epsilon=Fraction(1, 6))
    assert b.kind == "source" and a.kind == "counting"
    assert dict(a.distributions) == dict(b.distributions)
    assert b.trace is not None and b.trace.same and b.verdict == "pass"


def test_enumeration_and_threshold_search_agree() -> None:
    def f(c: int, u: int) -> int:
        # c + noise in {-1, 0, 1} with weights 1:2:1 out of d = 8, clamped to [0, 4]
        noise = -1 if u <= 2 else (0 if u <= 6 else 1)
        return min(max(c + noise, 0), 4)

    f.d = 8  # type: ignore[attr-defined]
    enum = whitebox_audit(f, inputs=range(5), claimed_epsilon=1, enumeration_limit=100)
    search = whitebox_audit(f, inputs=range(5), claimed_epsilon=1, enumeration_limit=4,
                            monotone=True)
    assert "enumerated" in enum.method and "threshold" in search.method
    assert dict(enum.distributions) == dict(search.distributions)
    # by hand: Pr[f(0) = 0] = 6/8 and Pr[f(1) = 0] = 2/8 (ratio 3), but outcome 2 has
    # probability 2/8 on input 1 and is impossible on input 0: the loss is infinite
    assert enum.distributions[0] == {0: Fraction(6, 8), 1: Fraction(2, 8), 2: 0, 3: 0, 4: 0}
    assert enum.worst is not None and enum.worst.infinite and enum.verdict == "violation"
    assert any((i.outcome, i.possible_on, i.impossible_on, i.probability) == (2, 1, 0, Fraction(1, 4))
               for i in enum.infinite)


def test_approximate_claim_uses_the_hockey_stick() -> None:
    def f(c: int, u: int) -> int:
        # outputs c with probability 15/16, else 1 - c: ratio 15, delta(eps=0) = 14/16
        return c if u <= 15 else 1 - c

    f.d = 16  # type: ignore[attr-defined]
    ok = whitebox_audit(f, inputs=range(2), claimed_epsilon=0, claimed_delta=Fraction(15, 16))
    bad = whitebox_audit(f, inputs=range(2), claimed_epsilon=0, claimed_delta=Fraction(13, 16))
    assert ok.verdict == "pass" and bad.verdict == "violation"
    assert ok.hockey_stick is not None and ok.hockey_stick.lo == Fraction(14, 16)


def _near_tie_pairs() -> tuple[dict[int, tuple[int, int]], Fraction, Fraction]:
    """Two neighbouring pairs of Bernoulli mechanisms whose hockey-stick divergences at
    ``eps = 1`` lie ``2**-200`` below and above ``delta = 1/10``.

    One direction of each pair is ``P(1) - e Q(1)`` (the other outcome and the reverse
    direction contribute 0), so with ``Q_A(1) = 1/10``, ``Q_B(1) = 1/20`` and ``P(1)``
    rounded to ``2**-300`` the two divergences are ``delta - t`` and ``delta + t`` up to
    ``2**-300``, ``t = 2**-200``.  Pair A (inputs 0, 1) has the larger ``Q``, so its
    128-bit interval is the wider one and has the larger upper end, though pair B
    (inputs 2, 3) is the one that exceeds ``delta``.
    """
    e = exp_interval(Fraction(1), 1000).lo  # within 2**-990 of e
    delta, t = Fraction(1, 10), Fraction(1, 2**200)
    den = 20 * 2**300
    p_a = round((delta - t + e / 10) * den)
    p_b = round((delta + t + e / 20) * den)
    weights = {0: (p_a, den), 1: (den // 10, den), 2: (p_b, den), 3: (den // 20, den)}
    return weights, delta, t


def test_approximate_claim_decides_every_straddling_pair() -> None:
    weights, delta, t = _near_tie_pairs()

    def mech(c: int, source: RandomSource) -> int:
        return int(source.bernoulli(*weights[c]))

    pa = {1: Fraction(*weights[0]), 0: 1 - Fraction(*weights[0])}
    qa = {1: Fraction(*weights[1]), 0: 1 - Fraction(*weights[1])}
    pb = {1: Fraction(*weights[2]), 0: 1 - Fraction(*weights[2])}
    qb = {1: Fraction(*weights[3]), 0: 1 - Fraction(*weights[3])}
    box_a, box_b = hockey_stick_eps(pa, qa, 1), hockey_stick_eps(pb, qb, 1)
    # the situation the test is about, checked rather than assumed: at 128 bits both
    # intervals straddle delta and pair A has the larger upper end ...
    assert box_a.lo < delta < box_a.hi and box_b.lo < delta < box_b.hi
    assert box_a.hi > box_b.hi
    # ... while at 1024 bits A is below delta and B above it, by about t each
    fine_a, fine_b = hockey_stick_eps(pa, qa, 1, 1024), hockey_stick_eps(pb, qb, 1, 1024)
    assert fine_a.hi < delta - t / 2 and fine_b.lo > delta + t / 2
    assert hockey_stick_eps(qa, pa, 1).hi == 0 and hockey_stick_eps(qb, pb, 1).hi == 0

    report = whitebox_audit(mech, inputs=range(4), neighbours=[(0, 1), (2, 3)],
                            claimed_epsilon=1, claimed_delta=delta)
    assert report.verdict == "violation"
    assert report.hockey_stick_pair == (2, 3)
    assert report.hockey_stick is not None and report.hockey_stick.lo > delta
    assert "> claimed delta" in report.bound
    # pair A alone passes, certified
    alone = whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, claimed_delta=delta)
    assert alone.verdict == "pass" and alone.hockey_stick is not None
    assert alone.hockey_stick.hi <= delta and "certified for all 2 ordered pairs" in alone.bound


def test_infinite_loss_outcomes_are_listed() -> None:
    def f(c: int, u: int) -> int:
        return c if u == 1 else 5  # outcome c is possible only on input c

    f.d = 2  # type: ignore[attr-defined]
    report = whitebox_audit(f, inputs=range(3), claimed_epsilon=1, outputs=range(6))
    assert report.verdict == "violation"
    assert report.worst is not None and report.worst.infinite
    found = {(i.outcome, i.possible_on, i.impossible_on) for i in report.infinite}
    assert (0, 0, 1) in found and (1, 1, 0) in found and (2, 2, 1) in found
    assert all(i.probability == Fraction(1, 2) for i in report.infinite)


# ---------------------------------------------------------------- robustness


def _with_d(d: int, fn):  # type: ignore[no-untyped-def]
    fn.d = d
    return fn


def test_a_mechanism_that_raises_is_reported() -> None:
    def f(c: int, u: int) -> int:
        if (c, u) == (2, 3):
            raise ZeroDivisionError("boom")
        return c

    report = whitebox_audit(_with_d(4, f), inputs=range(4), claimed_epsilon=1)
    assert report.verdict == "broken" and report.exit_code == 3
    (finding,) = report.findings
    assert finding.kind == "raised" and "f(2, 3)" in finding.message
    assert "ZeroDivisionError" in finding.message and finding.witness == {"c": 2, "u": 3}


def test_a_mechanism_that_hangs_is_interrupted() -> None:
    def f(c: int, u: int) -> int:
        while c == 1:
            pass
        return c

    report = whitebox_audit(_with_d(2, f), inputs=range(3), claimed_epsilon=1, time_limit=1)
    assert report.verdict == "broken"
    assert report.findings[0].kind == "timeout" and "f(1, 1)" in report.findings[0].message


def test_a_hang_that_swallows_exceptions_is_still_interrupted() -> None:
    def f(c: int, u: int) -> int:
        while True:
            try:
                while True:
                    pass
            except Exception:  # noqa: BLE001, S112 - the point: it cannot swallow the timeout
                continue

    report = whitebox_audit(_with_d(2, f), inputs=range(2), claimed_epsilon=1, time_limit=1)
    assert report.findings[0].kind == "timeout"


@pytest.mark.parametrize(("value", "kind"), [(9, "out_of_range"), (-1, "out_of_range"),
                                             ("1", "bad_output"), (True, "bad_output")])
def test_outputs_outside_the_declared_range(value: object, kind: str) -> None:
    def f(c: int, u: int) -> object:
        return value if (c, u) == (1, 2) else c

    report = whitebox_audit(_with_d(3, f), inputs=range(3), claimed_epsilon=1)
    assert report.verdict == "broken" and report.findings[0].kind == kind
    assert "f(1, 2)" in report.findings[0].message


def test_hidden_randomness_is_reported() -> None:
    rng = random.Random(5)

    def f(c: int, u: int) -> int:
        return rng.randrange(2)

    report = whitebox_audit(_with_d(3, f), inputs=range(2), claimed_epsilon=1,
                            outputs=range(2))
    assert report.verdict == "broken" and report.findings[0].kind == "escaped"
    assert "Random.randrange" in report.findings[0].message


def test_randomness_outside_the_declared_domain() -> None:
    def mech(c: int, source: RandomSource) -> int:
        return sum(source.uniform(2) for _ in range(c + 1)) % 2

    report = whitebox_audit(mech, inputs=range(4), claimed_epsilon=1, randomness_size=4)
    assert report.verdict == "broken"
    (finding,) = report.findings
    assert finding.kind == "randomness_domain" and finding.witness["c"] == 2
    assert finding.witness["draw_sizes"] == [2, 2, 2]


def test_input_dependent_draw_count_is_a_timing_violation() -> None:
    def mech(c: int, source: RandomSource) -> int:
        return sum(source.uniform(2) for _ in range(c + 1)) % 2

    report = whitebox_audit(mech, inputs=range(3), claimed_epsilon=1)
    # the output is a fair bit on every input (ratio 1), yet the draws reveal c
    assert report.worst is not None and report.worst.ratio == 1
    assert report.trace is not None and not report.trace.same
    assert report.verdict == "violation"


def test_source_mechanism_with_unbounded_loop_hits_the_exploration_limit() -> None:
    def mech(c: int, source: RandomSource) -> int:
        while source.uniform(2) == 2:
            pass
        return c

    # Issue 10: the budget ends the exploration with the mass covered (path k has weight
    # 2^-k, so 200 paths cover 1 - 2^-200); M(c) = c is then certainly not 1-DP.
    report = whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, max_runs=200)
    assert [f.kind for f in report.findings] == ["incomplete", "certain_violation"]
    assert report.findings[0].witness["covered"] == {0: str(1 - Fraction(1, 2**200)),
                                                     1: str(1 - Fraction(1, 2**200))}
    assert report.verdict == "violation"


def test_unhashable_and_undeclared_outputs_of_source_mechanisms() -> None:
    report = whitebox_audit(lambda c, s: [{c}], inputs=range(2), claimed_epsilon=1)
    assert report.findings[0].kind == "bad_output"  # a set inside a list: unhashable
    report = whitebox_audit(lambda c, s: c + s.uniform(2), inputs=range(2), claimed_epsilon=1,
                            outputs=[0, 1, 2])
    assert report.findings[0].kind == "out_of_range"


def test_large_d_needs_monotonicity() -> None:
    # A limit of the audit known before any call: a usage error (exit 2), not a finding.
    with pytest.raises(ParameterError, match="too large to enumerate"):
        whitebox_audit(_with_d(10**9, lambda c, u: c), inputs=range(2), claimed_epsilon=1)


def test_false_monotonicity_declaration_is_caught_by_the_spot_check() -> None:
    d = 10**6

    def f(c: int, u: int) -> int:
        return 1 if u % 2 else 0  # not monotone in u

    report = whitebox_audit(_with_d(d, f), inputs=range(2), claimed_epsilon=1, monotone=True)
    assert report.verdict == "broken" and report.findings[0].kind == "not_monotone"


def test_json_report_is_exact_strings() -> None:
    report = whitebox_audit(GeoSample(3, Fraction(1, 2)), claimed_epsilon=Fraction(1, 4))
    data = json.loads(json.dumps(report.to_json()))
    assert data["worst_ratio"]["ratio"] == "5/4"
    assert data["verdict"] == "pass"
    assert data["distributions"]["0"]["0"] == "5/9"


def test_bad_audit_arguments_raise_typed_errors() -> None:
    with pytest.raises(ParameterError):
        whitebox_audit(lambda c, u: c, inputs=range(3), claimed_epsilon=1, kind="counting")
    with pytest.raises(ParameterError):
        whitebox_audit(GeoSample(3, 1), claimed_epsilon=-1)
    with pytest.raises(ParameterError):
        whitebox_audit(lambda c, u: c, inputs=[0], claimed_epsilon=1, d=2)


# ---------------------------------------------------------------- parsing and the CLI


def test_parse_range() -> None:
    assert parse_range("0..8") == range(9)
    assert parse_range(" -2..2 ") == range(-2, 3)
    for bad in ("0-8", "a..b", "5..1", "1..2..3"):
        with pytest.raises(ParameterError):
            parse_range(bad)


def test_load_target() -> None:
    geo = load_target("exactdp.counting:GeoSample(4, epsilon='1/2')")
    assert isinstance(geo, GeoSample) and geo.n == 4 and geo.epsilon == Fraction(1, 2)
    assert load_target("exactdp.counting:GeoSample") is GeoSample
    for bad in ("nocolon", "no_such_module_xyz:f", "exactdp.counting:Nope",
                "exactdp.counting:GeoSample(__import__('os'))"):
        with pytest.raises(ParameterError):
            load_target(bad)


def test_cli_whitebox_pass(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "exactdp.counting:GeoSample(8, '1/2')", "--kind", "whitebox",
                 "--claimed-epsilon", "1/4", "--inputs", "0..8"])
    out = capsys.readouterr()
    assert code == 0
    assert "worst privacy-loss ratio: 5/4" in out.out and "PASS" in out.out
    assert "threshold search" in out.err  # progress goes to stderr


def test_cli_whitebox_violation_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "exactdp.counting:GeoSample(8, '1/2')", "--kind", "whitebox",
                 "--claimed-epsilon", "1/5", "--inputs", "0..8", "--json", "--quiet"])
    out = capsys.readouterr()
    assert code == 1 and out.err == ""
    data = json.loads(out.out)
    assert data["verdict"] == "violation" and data["worst_ratio"]["ratio"] == "5/4"
    assert data["worst_ratio"]["outcome"] in {"0", "8"}


def test_cli_broken_and_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "test_audit_whitebox:raising_mechanism", "--kind", "whitebox",
                 "--claimed-epsilon", "1", "--inputs", "0..3", "--randomness-size", "4",
                 "--quiet"])
    assert code == 3 and "raised" in capsys.readouterr().out
    code = main(["audit", "exactdp.counting:GeoSample(8, '1/2')", "--kind", "whitebox",
                 "--claimed-epsilon", "0.1.2", "--inputs", "0..8"])
    assert code == 2 and "--claimed-epsilon" in capsys.readouterr().err


def raising_mechanism(c: int, u: int) -> int:
    """A module-level target for the CLI test: raises on one (c, u)."""
    if c == 1 and u == 4:
        raise RuntimeError("planted failure")
    return c


def fair_bit_mechanism(c: int, source: RandomSource) -> int:
    """A module-level source-drawing target for the CLI: a fair bit (ratio 1)."""
    return source.uniform(2) - 1


def test_cli_source_kind_and_declared_randomness(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["audit", "test_audit_whitebox:fair_bit_mechanism", "--kind", "whitebox", "--source",
            "--claimed-epsilon", "0", "--inputs", "0..2", "--outputs", "0..1", "--quiet"]
    assert main([*args, "--randomness-size", "2"]) == 0
    assert "worst privacy-loss ratio: 1" in capsys.readouterr().out
    assert main([*args, "--randomness-size", "1"]) == 3
    assert "randomness_domain" in capsys.readouterr().out


def test_given_neighbour_pairs_are_named_in_the_report_not_c_and_c_plus_1() -> None:
    from exactdp.counting import GeoSample

    given = whitebox_audit(GeoSample(4, 1), inputs=range(5), neighbours=[(0, 2), (1, 3)],
                           claimed_epsilon=Fraction(2))
    assert "neighbours: the 2 given pairs" in given.summary()
    assert "c and c+1" not in given.summary()
    default = whitebox_audit(GeoSample(4, 1), inputs=range(5), claimed_epsilon=Fraction(1))
    assert "neighbours c and c+1" in default.summary()
