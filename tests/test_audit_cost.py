"""The white-box exploration's cost estimate and its limit (``--max-seconds``): Knuth's
estimator on trees of known size, the refusal before any exploration and the clean stop of
an exploration that runs past the limit (exit status 2, one line, nothing on stdout)."""

from __future__ import annotations

from typing import Any

import pytest
from _cli import one_line_error, run
from _plant import plant

from exactdp.audit import cost, whitebox_audit
from exactdp.audit.facades import facade_mechanism
from exactdp.randomness import RandomSource
from tests.audit_targets import realcode_targets

LOOP = "tests.audit_targets.timing_targets:geometric_loop_for(100)"
SVT = "tests.audit_targets.timing_targets:svt_resample_sym"


def _coins(k: int) -> Any:
    def f(c: Any, src: RandomSource) -> int:
        return sum(src.uniform(2) for _ in range(k))
    return lambda c: (lambda src: f(c, src))


def _skewed(c: Any, src: RandomSource) -> int:
    """A draw of 3 values, then 4 more coins only after the value 1: 2 + 16 = 18 paths."""
    if src.uniform(3) == 1:
        return sum(src.uniform(2) for _ in range(4))
    return -1


def test_estimate_of_a_full_tree_is_exact() -> None:
    """k coins: every probe's product of option counts is 2^k, the number of paths."""
    for k in (0, 1, 5, 9):
        guess = cost.estimate(_coins(k), [0, 1, 2, 3])
        assert guess.paths == 2 ** k
        assert guess.inputs == 4 and guess.probes == 3 * cost.PROBES
        assert guess.ns == guess.paths * 4 * guess.ns_per_path


def test_estimate_of_a_skewed_tree_is_near_its_size() -> None:
    """Knuth's estimator: 3 (a short leaf) or 3 * 16 (a long one): mean 18 in expectation."""
    guess = cost.estimate(lambda c: (lambda src: _skewed(c, src)), list(range(7)),
                          probes=200)
    assert 12 <= guess.paths <= 26


def test_planted_estimator_bug_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The number of draws in place of the product of their option counts."""
    plant(monkeypatch, cost, "estimate", "math.prod(src.sizes)", "len(src.sizes)")
    assert cost.estimate(_coins(5), [0]).paths != 32


def test_refused_before_exploring(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "audit", "tests.audit_targets.realcode_targets:rr_dyadic",
                         "--kind", "whitebox", "--rng", "random", "--patch", "random",
                         "--claimed-epsilon", "1", "--inputs", "0..1", "--json",
                         "--max-seconds", "1")
    assert code in (0, 1), err  # tiny: not refused
    code, out, err = run(capsys, "audit", SVT, "--kind", "whitebox", "--rng", "random",
                         "--ratio-bound", "12", "--inputs", "vectors(3, 0..1, 1, linf)",
                         "--json", "--quiet", "--max-seconds", "1")
    assert code == 2 and out == ""
    one_line_error(err, "would take about", "over --max-seconds 1", "pass --max-seconds")


def test_stopped_past_the_limit(capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """An estimate far too low (as for long loops): the exploration stops at the limit."""
    monkeypatch.setattr("exactdp.audit.whitebox.estimate",
                        lambda runner, inputs: cost.Estimate(1, 1, len(inputs), 1))
    code, out, err = run(capsys, "audit", LOOP, "--kind", "whitebox", "--rng", "random",
                         "--patch", "random", "--claimed-epsilon", "3", "--inputs", "0..100",
                         "--json", "--quiet", "--max-seconds", "1")
    assert code == 2 and out == ""
    one_line_error(err, "ran past --max-seconds 1", "nothing is concluded")


def test_max_seconds_is_whitebox_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "audit", "tests.audit_targets.realcode_targets:rr_dyadic",
                         "--kind", "blackbox", "--claimed-epsilon", "1", "--inputs", "0..1",
                         "--max-seconds", "5")
    assert code == 2
    one_line_error(err, "--max-seconds")


@pytest.mark.parametrize("program", [
    lambda c, rng: realcode_targets.noisy_count_rounded(rng, c, 1),  # large draws: notes
    lambda c, rng: c + rng.randrange(3),  # a lazy draw escapes: restart without them
])
def test_the_estimate_leaves_the_report_unchanged(program: Any) -> None:
    """The probes' breakpoint searches, notes and lazy escapes are forgotten: the report
    (method, laws, verdict) is the one computed without an estimate."""
    kind = "numpy" if program.__code__.co_names[:1] == ("realcode_targets",) else "random"
    reports = [whitebox_audit(facade_mechanism(program, kind), claimed_epsilon=3,
                              kind="source", inputs=range(3), max_seconds=limit)
               for limit in (None, 600)]
    assert reports[0].method == reports[1].method and reports[0].method
    assert reports[0].distributions == reports[1].distributions
    assert reports[0].verdict == reports[1].verdict
