"""The timing verdict of the exploring white-box audit: judged on the joint law of (output,
trace), with operation counts and sleep/clock/output calls; lazily drawn random() values."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from exactdp.audit import timing as timing_module
from exactdp.audit import whitebox_audit
from exactdp.audit.facades import facade_mechanism
from exactdp.audit.inputs import parse_inputs
from exactdp.audit.report import TraceResult
from tests.audit_targets import timing_targets as tt


def _audit(fn, inputs, eps="3", **kw):
    mech = facade_mechanism(lambda c, rng: fn(c), "random", patch_modules=[random], **kw)
    return whitebox_audit(mech, inputs=inputs, claimed_epsilon=eps, kind="source")


def _svt(fn):
    rel = parse_inputs("vectors(3, 0..1, 1, linf)")
    return whitebox_audit(facade_mechanism(lambda c, rng: fn(c), "random",
                                           patch_modules=[random]),
                          **rel.kwargs(), claimed_epsilon=3, kind="source")


@pytest.mark.parametrize("fn", [tt.svt1, pytest.param(tt.svt2, marks=pytest.mark.slow),
                                pytest.param(tt.svt1_fixed, marks=pytest.mark.slow)])
def test_sparse_vector_halting_after_c_answers_passes(fn) -> None:
    report = _svt(fn)
    assert report.trace is not None and report.trace.same
    assert report.verdict == "pass"


def test_sparse_vector_whose_busy_work_shows_the_input_is_timing() -> None:
    report = _svt(tt.svt1_busy)
    t = report.trace
    assert t is not None and not t.same and report.verdict == "violation"
    # the two operation counts of the same output and draws differ
    assert t.witness["operation_counts_other"]["counts"]
    assert t.witness["operation_count"]["count"] not in t.witness["operation_counts_other"]["counts"]
    assert "TIMING" in report.summary()


@pytest.mark.slow
def test_noise_by_a_loop_of_coins_shows_its_magnitude() -> None:
    report = _svt(tt.svt1_coins)
    assert report.trace is not None and not report.trace.same


def test_cdf_walk_returning_early_and_sleeping_code_are_timing() -> None:
    walk = _audit(tt.cdf_walk, range(2), eps="11/10")
    assert walk.worst is not None and walk.worst.ratio == 3
    assert walk.trace is not None and not walk.trace.same and walk.verdict == "violation"
    sleeps = _audit(tt.rr_sleeps, range(2), eps="11/10")
    assert sleeps.trace is not None and not sleeps.trace.same
    assert sleeps.verdict == "violation"
    assert any(c[0] == "sleep" for c in sleeps.trace.witness["calls"] or ["sleep"]) or \
        "sleep" in str(sleeps.trace.witness)
    plain = _audit(tt.rr_plain, range(2), eps="11/10")
    assert plain.trace is not None and plain.trace.same and plain.verdict == "pass"
    assert "identical" not in plain.summary() and "strict time" not in plain.summary()


def test_a_judge_ignoring_the_trace_or_the_output_fails(monkeypatch) -> None:
    """Planted bugs: a judge that looks at the output only passes the busy twin; a judge
    comparing the trace laws per input without the output fails the correct SVT."""
    real = timing_module.timing_result

    def output_only(joints, inputs, pairs, eps, delta):
        flat = {c: {(o, ((), 0, ())): p for (o, _), p in j.items()} for c, j in joints.items()}
        return real(flat, inputs, pairs, eps, delta)

    def trace_only(joints, inputs, pairs, eps, delta):  # the trace laws compared per input
        laws = {}
        for c, j in joints.items():
            law = laws.setdefault(c, {})
            for (_, t), p in j.items():
                law[t] = law.get(t, 0) + p
        same = all(laws[c] == laws[inputs[0]] for c in inputs)
        return TraceResult(same, "distribution of the trace per input", None)

    import exactdp.audit.whitebox as wb
    monkeypatch.setattr(wb, "timing_result", output_only)
    assert _svt(tt.svt1_busy).verdict == "pass"  # the bug: the leak is missed
    monkeypatch.setattr(wb, "timing_result", trace_only)
    assert _svt(tt.svt1).verdict == "violation"  # the bug: a false alarm
    # (the real judge on both: the two tests above)


def test_lazy_values_agree_with_the_search_and_escape_to_it() -> None:
    lazy = _audit(tt.rr_plain, range(2), eps="11/10")
    searched = _audit(tt.rr_plain, range(2), eps="11/10", lazy=False)
    assert lazy.distributions == searched.distributions == {
        0: {0: Fraction(3, 4), 1: Fraction(1, 4)}, 1: {0: Fraction(1, 4), 1: Fraction(3, 4)}}

    def arithmetic(c):  # the value is scaled: not a comparison, explored by its effect
        return c if random.random() * 4 < 3 else 1 - c

    scaled = _audit(arithmetic, range(2), eps="11/10")
    assert scaled.distributions == lazy.distributions
    assert "large draw" in scaled.method and "branched exactly" not in scaled.method


def test_geometric_loop_law_is_exact() -> None:
    report = _audit(tt.geometric_loop_for(3, 0.5), range(4), eps="ln 4")
    # from c = 1: stay 1/2 (two ways), up 1 step 1/8, 2 steps 1/8 (end), down 1/4 (end)
    assert report.distributions[1] == {0: Fraction(1, 4), 1: Fraction(1, 2),
                                      2: Fraction(1, 8), 3: Fraction(1, 8)}


def test_lazy_comparisons_match_brute_force_on_a_small_domain() -> None:
    """LazyUnit over n = 16 values against every j: the law of a sequence of comparisons
    (with <, <=, >, >=, ==, !=, bool, inf and nan) equals the count of j giving it."""
    from exactdp.audit.facade_lazy import LazyUnit, Parts
    from exactdp.explore import explore

    n = 16
    ops = [("<", 0.25), ("<=", 0.5), (">", 0.125), (">=", 0.75), ("==", 0.5),
           ("!=", 0.3125), ("<", float("inf")), ("==", float("nan")), ("<", 1 / 3)]

    def answers(u):
        out = []
        for op, x in ops:
            out.append({"<": u < x, "<=": u <= x, ">": u > x, ">=": u >= x, "==": u == x,
                        "!=": u != x}[op])
        out.append(bool(u))
        return tuple(out)

    def escape(what):
        raise AssertionError(what)

    law = explore(lambda src: answers(LazyUnit(
        n, lambda lengths: src.inverse_cdf(Parts(lengths)), escape)))
    brute = {}
    for j in range(n):
        a = answers(Fraction(j, n))
        brute[a] = brute.get(a, 0) + Fraction(1, n)
    assert law == brute
    with pytest.raises(AssertionError, match="used by __add__"):
        LazyUnit(n, lambda lengths: 0, escape) + 1


def test_wall_clock_test_sees_a_sleep_and_states_its_false_alarm() -> None:
    import time

    from exactdp.audit.wallclock import wall_clock_test

    slow = wall_clock_test(lambda c: time.sleep(0.002 * c), 0, 1, 30, "1/1000")
    assert slow.differ and slow.statistic > Fraction(1, 2)
    assert "false-alarm probability <= 1/1000" in slow.summary()
    # the threshold: D^2 > 2 L / K with L = 12 * 6932/10000 >= ln 4000 (bit_length 12)
    assert slow.threshold == 2 * 12 * Fraction(6932, 10000) / 30


def test_the_cost_is_estimated_from_the_first_input() -> None:
    lines: list[str] = []
    mech = facade_mechanism(lambda c, rng: tt.geometric_loop_for(4, 0.5)(c), "random",
                            patch_modules=[random])
    with pytest.raises(Exception, match="more than 10 calls"):
        whitebox_audit(mech, inputs=range(3), claimed_epsilon=3, kind="source",
                       progress=lines.append, max_calls=10)
    estimate = [x for x in lines if "estimate from the first input" in x]
    # input 0: stay (down-walk blocked at 0) or walk up 1..4: 6 paths, 3 inputs
    assert estimate and "about 18 paths (6 per input)" in estimate[0]
    assert "more than --max-calls 10" in estimate[0]
