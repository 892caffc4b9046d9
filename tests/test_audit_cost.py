"""The white-box exploration's cost estimate and its limit (``--max-seconds``): Knuth's
estimator on trees of known size, the refusal before any exploration and the clean stop of
an exploration that runs past the limit (exit status 2, one line, nothing on stdout)."""

from __future__ import annotations

import json
import time
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


def _loop(n: int, continue_first: bool) -> Any:
    """A loop of at most ``n`` coins that goes on while the coin says so: with choice 0
    continuing it (``while coin() == 0``) or stopping it; n + 1 paths either way."""
    def f(c: Any, src: RandomSource) -> int:
        k = 0
        while k < n and (src.uniform(2) == 1) == continue_first:
            k += 1
        return k
    return lambda c: (lambda src: f(c, src))


def test_knuth_probe_of_a_full_tree_is_exact() -> None:
    """k coins: every probe's product of option counts is 2^k, the number of paths."""
    for k in (0, 1, 5, 9):
        assert cost._probe(_coins(k)(0), "s")[0] == 2 ** k


def test_descents_of_loops_are_near_their_size_whichever_option_continues() -> None:
    """The first-choice decomposition of a loop: choice 0 stopping, one subtree per level
    (one alternative each: exact); choice 0 continuing, the first path is the whole loop
    and each alternative a leaf (unbiased: the mean of many descents is near n + 1)."""
    import random
    for n in (0, 1, 7, 60):
        for seed in range(3):
            paths, _ = cost._descent(_loop(n, False)(0), random.Random(seed))
            assert paths == n + 1
    for n in (1, 7, 60):
        runs = [cost._descent(_loop(n, True)(0), random.Random(seed))[0]
                for seed in range(300)]
        assert 0.8 * (n + 1) <= sum(runs) / len(runs) <= 1.2 * (n + 1)


def test_estimate_of_loops_and_full_trees_is_near_their_size() -> None:
    """The larger of the two estimators: Knuth's on the draws alone estimates a loop of 60
    coins far too low (a probe rarely goes deep), the descents near it."""
    knuth = [cost._probe(_loop(60, True)(0), f"{k}")[0] for k in range(12)]
    assert sum(knuth) / 12 < 61 / 4
    for continue_first in (True, False):
        guess = cost.estimate(_loop(60, continue_first), [0, 1, 2, 3])
        assert 61 / 2 <= guess.paths <= 2 * 61
        assert guess.inputs == 4 and guess.ns == guess.paths * 4 * guess.ns_per_path
    for k in (0, 1, 5, 9):
        guess = cost.estimate(_coins(k), [0])
        assert 2 ** k <= guess.paths <= 3 * 2 ** k


def test_estimate_of_a_skewed_tree_is_near_its_size() -> None:
    """Knuth's estimator: 3 (a short leaf) or 3 * 16 (a long one): mean 18 in expectation."""
    guess = cost.estimate(lambda c: (lambda src: _skewed(c, src)), list(range(7)),
                          probes=200)
    assert 12 <= guess.paths <= 40


_SHAPES = [(_coins(5), 32), (_loop(40, True), 41), (_loop(40, False), 41),
           (lambda c: (lambda src: sum(src.uniform(3) for _ in range(4))), 81)]


def _means() -> list[float]:
    """The mean of 100 descents and of 100 Knuth probes on each shape, over its size."""
    import random
    out = []
    for shape, size in _SHAPES:
        run = shape(0)
        out.append(sum(cost._descent(run, random.Random(k))[0] for k in range(100))
                   / 100 / size)
        out.append(sum(cost._probe(run, f"{k}")[0] for k in range(100)) / 100 / size)
    return out


def test_both_estimators_are_unbiased_on_these_shapes() -> None:
    means = _means()
    assert all(0.8 <= m <= 1.25 for m in means[0::2]), means  # descents
    assert all(0.8 <= m <= 1.25 for m in means[1::2][:1] + means[1::2][3:]), means  # Knuth


@pytest.mark.parametrize(("name", "old", "new"), [
    ("_probe", "math.prod(src.sizes)", "len(src.sizes)"),
    ("_descent", "weight *= Fraction(2 * count * total, mass)", "pass"),
    ("_descent", "weight *= Fraction(2 * count * total, mass)", "weight *= count"),
])
def test_planted_estimator_bug_fails(monkeypatch: pytest.MonkeyPatch, name: str, old: str,
                                     new: str) -> None:
    """The number of draws for the product of their option counts; a descent that forgets
    the weight of the subtree it stands for; one that weighs it as if picked uniformly."""
    plant(monkeypatch, cost, name, old, new)
    means = _means()
    mine = means[1::2] if name == "_probe" else means[0::2]
    if name == "_probe":
        mine = mine[:1] + mine[3:]
    assert not all(0.8 <= m <= 1.25 for m in mine), means


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
                        lambda runner, inputs, **kw: cost.Estimate(1, 1, len(inputs), 1))
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


WAITS = "tests.audit_targets.limit_targets:rr_waits"
SWALLOWS = "tests.audit_targets.limit_targets:rr_busy_swallowing"


def _waits_audit(capsys: pytest.CaptureFixture[str],
                 monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    # (the estimate's probes would wait too: skipped, the refusal is tested above)
    monkeypatch.setattr("exactdp.audit.whitebox.estimate",
                        lambda runner, inputs, **kw: cost.Estimate(1, 1, len(inputs), 1))
    return run(capsys, "audit", WAITS, "--kind", "whitebox", "--rng", "random", "--patch",
               "random", "--claimed-epsilon", "ln 3", "--inputs", "0..15", "--json",
               "--quiet", "--max-seconds", "1")


def test_the_limit_counts_processor_time_not_waiting(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit that waits (0.03 s per run, about 2 s in all) but computes for well under a
    second is neither refused nor stopped by --max-seconds 1: the limit is the estimate's
    unit, processor time, so a loaded machine does not stop an audit that fits."""
    start = time.monotonic()
    code, out, err = _waits_audit(capsys, monkeypatch)
    assert time.monotonic() - start > 1.5  # it did run past 1 s of wall-clock time
    assert code == 0, err
    assert json.loads(out)["verdict"] == "pass"


def test_a_wall_clock_limit_would_have_stopped_it(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above can fail: the limit planted back on the wall clock stops that audit."""
    plant(monkeypatch, cost, "exploration_deadline", "_CPU_LIMIT[0] is not None",
          "_CPU_LIMIT[0] is None")
    code, out, err = _waits_audit(capsys, monkeypatch)
    assert code == 2 and out == ""
    one_line_error(err, "ran past --max-seconds 1", "wall-clock")


def _swallowing_audit(capsys: pytest.CaptureFixture[str],
                      monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.setattr("exactdp.audit.whitebox.estimate",
                        lambda runner, inputs, **kw: cost.Estimate(1, 1, len(inputs), 1))
    return run(capsys, "audit", SWALLOWS, "--kind", "whitebox", "--rng", "random", "--patch",
               "random", "--claimed-epsilon", "ln 3", "--inputs", "0..40", "--json",
               "--quiet", "--max-seconds", "1")


def test_a_limit_reached_voids_whatever_the_audit_ended_with(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the limit the interruption lands anywhere, the audited code included (here code
    that swallows it and returns 0, a law that is not the code's): whatever the audit then
    ends with -- a report, BROKEN, the interruption itself -- the command says only that it
    ran past the limit (status 2, nothing on stdout)."""
    start = time.process_time()
    code, out, err = _swallowing_audit(capsys, monkeypatch)
    assert code == 2 and out == "", err
    one_line_error(err, "ran past --max-seconds 1 of processor time", "nothing is concluded")
    assert time.process_time() - start < 20  # stopped, not run to the end (about 33 s)


def test_a_limit_that_does_not_void_would_be_caught(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above can fail: a naive limit (the same timer, raising the same exception,
    without voiding what it interrupted) lets the swallowed interruption through as a
    finding of the code or a crash, not as the limit."""
    import signal
    from contextlib import contextmanager

    @contextmanager
    def naive(limit: int | None) -> Any:
        def expired(signum: int, frame: object) -> None:
            raise cost.OverLimit

        old = signal.signal(signal.SIGPROF, expired)
        cost._CPU_LIMIT[0] = limit
        signal.setitimer(signal.ITIMER_PROF, limit or 0, 1)
        try:
            yield True
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, old)
            cost._CPU_LIMIT[0] = None

    monkeypatch.setattr(cost, "cpu_limit", naive)
    try:
        code, _out, err = _swallowing_audit(capsys, monkeypatch)
    except cost.OverLimit:
        return  # escaped the command line altogether: caught
    assert not (code == 2 and "ran past --max-seconds 1 of processor time" in err)


def _svt_limited(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    return run(capsys, "audit", SVT, "--kind", "whitebox", "--rng", "random",
               "--ratio-bound", "12", "--inputs", "vectors(3, 0..1, 1, linf)", "--json",
               "--quiet", "--max-seconds", "1", *extra)


def test_a_budget_that_fits_the_limit_is_not_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Refused at --max-seconds 1 in full (test_refused_before_exploring), the same audit
    asked for a partial verdict (--max-paths 3 per input) runs and ends INCOMPLETE: the
    estimate counts what the budget lets the exploration run."""
    code, out, err = _svt_limited(capsys, "--max-paths", "3")
    assert code == 2, err
    assert json.loads(out)["verdict"] == "incomplete"


def test_an_estimate_ignoring_the_budget_would_refuse_it(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    plant(monkeypatch, cost.Estimate, "capped", "max_paths=max_paths", "max_paths=None")
    code, out, err = _svt_limited(capsys, "--max-paths", "3")
    assert code == 2 and out == ""
    one_line_error(err, "would take about", "over --max-seconds 1",
                   "--max-paths N or --time-budget S for a partial verdict")


def test_the_estimate_counts_the_budgets() -> None:
    ns = cost.NS
    full = cost.Estimate(paths=1000, ns_per_path=ns // 100, inputs=4, probes=1)
    assert full.ns == 40 * ns  # 4000 paths of 10 ms
    assert full.capped(10, None).ns == 4 * ns // 10  # 10 paths per input
    assert full.capped(None, 5 * ns).ns == 5 * ns  # stopped after 5 s
    assert full.capped(5000, 100 * ns).ns == 40 * ns  # budgets it does not reach
    assert "--time-budget 5 s" in full.capped(None, 5 * ns).line()
    assert "--max-paths" not in full.capped(5000, None).line()


def test_one_stretched_run_does_not_scale_the_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The time per path is what a typical run takes: one probe stretched a thousand times
    (a collection, a preemption), and the input's first run (its once-per-input work, not
    timed), leave it near the others'."""
    probes = iter(range(10**6))

    def probe(run: Any, seed: str, max_draws: int = cost.PROBE_DRAWS) -> tuple[int, int, int]:
        return 2 ** 5, (10**9 if next(probes) == 0 else 6 * 10**5), 5

    monkeypatch.setattr(cost, "_probe", probe)
    spines: list[tuple[int, ...]] = []
    real = cost._spine

    def spine(run: Any, prefix: tuple[int, ...], max_draws: int = cost.PROBE_DRAWS) -> Any:
        spines.append(prefix)
        return real(run, prefix, max_draws)

    monkeypatch.setattr(cost, "_spine", spine)
    # every spine's time: 10^5 ns a unit (1 + 5 draws: a path of 5 coins)
    clock = iter(range(0, 10**15, 6 * 10**5)).__next__  # each reading 6 * 10^5 ns later
    monkeypatch.setattr(cost.time, "process_time_ns", clock)
    guess = cost.estimate(_coins(5), [0], budget_ns=10**9)
    assert 2 ** 5 <= guess.paths <= 2 ** 6
    # 12 probes (one stretched) and the descents' spines, 10^5 ns a unit each: the median
    # keeps 6 * 10^5 ns a path; the probes' mean alone would be about 8.3 * 10^7
    assert guess.ns_per_path == 6 * 10**5
    # the descents (12) start from the empty prefix, after the untimed warm-up run of the
    # same first path
    assert spines.count(()) == 13
