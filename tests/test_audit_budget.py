"""Budgets of the white-box exploration (issue 10 item 2): a planted unbounded rejection loop
ends at its budget with an "incomplete" verdict and its exact covered mass; certain
violations from partial mass; progress on stderr; CLI statuses."""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.audit import whitebox_audit
from exactdp.audit.budget import MAX_DRAWS_PER_PATH, certain_violation, check_time_budget
from exactdp.explore import ExplorationIncomplete, explore
from exactdp.params import ParameterError
from exactdp.randomness import RandomSource
from tests._cli import one_line_error, run


def rejection_loop(c: int, source: RandomSource) -> int:
    """Planted: an unbounded rejection loop (infinitely many paths) with a constant output."""
    while source.uniform(2) == 2:
        pass
    return 0


def test_unbounded_loop_ends_at_max_paths_with_its_covered_mass() -> None:
    report = whitebox_audit(rejection_loop, inputs=range(2), claimed_epsilon=1,
                            kind="source", max_runs=30, outputs=range(2))
    assert report.verdict == "incomplete" and report.exit_code == 2
    # path k (k = 1, 2, ...) leaves the loop after k - 1 rejections: weight 2^-k, so the
    # first 30 paths cover 1 - 2^-30 on each input
    mass = 1 - Fraction(1, 2**30)
    assert report.findings[0].witness["covered"] == {0: str(mass), 1: str(mass)}
    assert report.distributions[0] == {0: mass}
    assert "0: 1 - u, u <= 2^-30, 1: 1 - u, u <= 2^-30" in report.summary()


def test_time_budget_stops_and_reports_progress() -> None:
    lines: list[str] = []
    report = whitebox_audit(rejection_loop, inputs=range(2), claimed_epsilon=1,
                            kind="source", time_budget=3, outputs=range(2),
                            progress=lines.append)
    assert report.verdict == "incomplete"
    covered = {c: Fraction(m) for c, m in report.findings[0].witness["covered"].items()}
    assert all(0 < m < 1 for m in covered.values())
    assert report.seconds < 6
    assert any("paths, mass covered 1 - u, u <= 2^-" in line and "paths/s" in line
               for line in lines)


def test_certain_violation_from_partial_mass() -> None:
    assert certain_violation({0: {0: Fraction(9, 10)}, 1: {0: Fraction(1, 100)}},
                             {0: Fraction(9, 10), 1: Fraction(51, 100)}, [(0, 1)], Fraction(1)
                             ) is None  # 9/10 / (1/100 + 49/100) = 9/5 < e
    hit = certain_violation({0: {0: Fraction(9, 10)}, 1: {1: Fraction(1, 2)}},
                            {0: Fraction(9, 10), 1: Fraction(1, 2)}, [(0, 1)], Fraction(1))
    # outcome 0: 9/10 / (0 + 1/2) = 9/5 < e; outcome 1 from input 1: 1/2 / (0 + 1/10) = 5
    assert hit is not None and hit[0] == 5 and hit[1:4] == (1, 0, 1)
    inf = certain_violation({0: {0: Fraction(1)}, 1: {1: Fraction(1, 2)}},
                            {0: Fraction(1), 1: Fraction(1, 2)}, [(0, 1)], Fraction(1))
    assert inf is not None and inf[0] is None and inf[1:4] == (1, 0, 1)


weights = st.lists(st.integers(0, 20), min_size=3, max_size=3).filter(any)


@given(weights, weights, weights, weights)
def test_certain_violations_hold_for_the_true_distributions(
        wa: list[int], wb: list[int], ka: list[int], kb: list[int]) -> None:
    """Soundness: truncate two true distributions (keep a part of each outcome's mass, as a
    budget-stopped exploration does); any violation declared certain from the parts holds
    for the true distributions, with at least the declared ratio."""
    true = {0: {o: Fraction(w, sum(wa)) for o, w in enumerate(wa)},
            1: {o: Fraction(w, sum(wb)) for o, w in enumerate(wb)}}
    keep = {0: ka, 1: kb}
    part = {c: {o: p * Fraction(min(keep[c][o], 20), 20) for o, p in true[c].items()}
            for c in (0, 1)}
    covered = {c: sum(part[c].values(), Fraction(0)) for c in (0, 1)}
    hit = certain_violation(part, covered, [(0, 1)], Fraction(1, 2))
    if hit is None:
        return
    ratio, a, b, o, _, _ = hit
    if ratio is None:
        assert true[a][o] > 0 == true[b][o]
    else:
        assert true[b][o] == 0 or true[a][o] / true[b][o] >= ratio > Fraction(16487, 10000)


def test_violation_certain_before_the_budget_is_reported() -> None:
    def leaky(c: int, source: RandomSource) -> int:
        while source.uniform(2) == 2:
            pass
        return c

    report = whitebox_audit(leaky, inputs=range(2), claimed_epsilon=1, kind="source",
                            max_runs=10, outputs=range(2))
    assert report.verdict == "violation" and report.exit_code == 1
    assert [f.kind for f in report.findings] == ["incomplete", "certain_violation"]
    w = report.findings[1].witness
    assert w["p_at_least"] == 1 - Fraction(1, 2**10) and w["q_at_most"] == Fraction(1, 2**10)


def test_check_time_budget() -> None:
    assert check_time_budget(None) is None and check_time_budget("5") == 5
    for bad in ("0", "1.5", "-3", "x", True, str(10**9)):
        with pytest.raises(ParameterError, match="time_budget"):
            check_time_budget(bad)


def test_cli_budget_statuses(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "loops.py").write_text(
        "def loop(c, source):\n    while source.uniform(2) == 2:\n        pass\n    return 0\n"
        "def crash(c, source):\n    if source.uniform(2) == 2 and c:\n        raise ValueError\n"
        "    return 0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    rc, out, err = run(capsys, "audit", "loops:loop", "--kind", "whitebox", "--source",
                       "--claimed-epsilon", "1", "--inputs", "0..1", "--max-paths", "20",
                       "--json")
    assert rc == 2, err
    data = json.loads(out)
    assert data["verdict"] == "incomplete"
    assert data["findings"][0]["witness"]["covered"]["0"] == str(1 - Fraction(1, 2**20))
    rc, _, err = run(capsys, "audit", "loops:crash", "--kind", "whitebox", "--source",
                     "--claimed-epsilon", "1", "--inputs", "0..1", "--max-paths", "20")
    assert rc == 3  # a crashing mechanism is broken, never a violation
    rc, _, err = run(capsys, "audit", "loops:loop", "--kind", "blackbox",
                     "--claimed-epsilon", "1", "--inputs", "0..1", "--time-budget", "5")
    assert rc == 2
    one_line_error(err, "--time-budget")
    rc, _, err = run(capsys, "audit", "loops:loop", "--kind", "whitebox", "--source",
                     "--claimed-epsilon", "1", "--inputs", "0..1", "--time-budget", "0")
    assert rc == 2
    one_line_error(err, "--time-budget")


def test_incomplete_report_renders_as_html() -> None:
    pytest.importorskip("matplotlib")
    from exactdp.audit.html import html_report

    report = whitebox_audit(rejection_loop, inputs=range(2), claimed_epsilon=1,
                            kind="source", max_runs=10, outputs=range(2))
    page = html_report(report)
    assert "INCOMPLETE" in page and "u &lt;= 2^-10" in page


def zeros_loop(c: int, source: RandomSource) -> int:
    """Planted: draw choice 0 (``uniform(2) == 1``) forever -- the explorer's first path,
    every draw at choice 0, never returns (a probability-0 path)."""
    while source.uniform(2) == 1:
        pass
    return 0


def test_explore_cuts_a_path_at_max_draws_and_goes_on() -> None:
    with pytest.raises(ExplorationIncomplete) as info:
        explore(partial(zeros_loop, 0), max_draws=12)
    exc = info.value
    # the all-zeros path is cut at its 13th draw (12 made, mass 2^-12 uncovered); the paths
    # leaving the loop at draw i = 1..12 have weight 2^-i: covered 1 - 2^-12, 13 paths run
    assert (exc.reason, exc.cut, exc.runs) == ("draws", 1, 13)
    assert exc.covered == 1 - Fraction(1, 2**12) and exc.partial == {0: exc.covered}


def stubborn(source: RandomSource) -> int:
    """Planted: from every prefix, the choice-0 ending loops forever (``uniform(3)`` gives 1
    forever), yet the loop ends with probability 1: ``k`` is geometric, Pr[k = 0] = 1/3."""
    k = 0
    while source.uniform(3) != 3:
        k += 1
    return min(k, 1)


def test_after_a_cut_paths_end_at_random_and_heaviest_first() -> None:
    found = []
    for _ in range(2):
        with pytest.raises(ExplorationIncomplete) as info:
            explore(stubborn, max_draws=40, max_runs=200)
        found.append(info.value)
    exc = found[0]
    assert (exc.reason, exc.cut, exc.runs) == ("runs", 1, 200)
    # k = 0 iff the first draw is 3: its one path, weight 1/3, is among the heaviest
    assert exc.partial[0] == Fraction(1, 3) and 0 < exc.partial[1] < Fraction(2, 3)
    assert exc.covered == exc.partial[0] + exc.partial[1] > Fraction(9, 10)
    assert found[1].partial == exc.partial  # reproducible: seeded by the run number


def test_zeros_loop_is_incomplete_with_its_exact_covered_mass() -> None:
    report = whitebox_audit(zeros_loop, inputs=range(2), claimed_epsilon=1, kind="source",
                            outputs=range(2), max_draws=30)
    assert report.verdict == "incomplete" and report.exit_code == 2
    mass = 1 - Fraction(1, 2**30)
    assert report.findings[0].witness["covered"] == {0: str(mass), 1: str(mass)}
    assert "--max-draws-per-path / max_draws = 30 draws per path, or 3/4 of --time-limit " \
           "per path (1 of 31 paths on input " in report.findings[0].witness["stopped_at"]


def test_default_draw_cap_ends_a_never_returning_path() -> None:
    def forever(c: int, source: RandomSource) -> int:
        while True:
            source.uniform(1)  # one option: a single path, which never returns

    report = whitebox_audit(forever, inputs=range(1), claimed_epsilon=1, kind="source",
                            outputs=range(1), neighbours=[])
    assert report.verdict == "incomplete" and report.distributions == {0: {}}
    assert report.findings[0].witness == {
        "covered": {0: "0"}, "stopped_at": f"--max-draws-per-path / max_draws = "
        f"{MAX_DRAWS_PER_PATH} draws per path, or 3/4 of --time-limit per path (1 of 1 "
        f"paths on input 0 cut off)"}


def test_a_certain_violation_despite_a_cut_path() -> None:
    def leaky(c: int, source: RandomSource) -> int:
        while source.uniform(2) == 1:
            pass
        return c

    report = whitebox_audit(leaky, inputs=range(2), claimed_epsilon=1, kind="source",
                            outputs=range(2), max_draws=8)
    assert report.verdict == "violation"
    w = report.findings[1].witness
    assert w["p_at_least"] == 1 - Fraction(1, 2**8) and w["q_at_most"] == Fraction(1, 2**8)


def test_deadline_stops_a_path_that_never_returns() -> None:
    report = whitebox_audit(zeros_loop, inputs=range(2), claimed_epsilon=1, kind="source",
                            outputs=range(2), max_draws=None, time_budget=2)
    assert report.verdict == "incomplete" and report.seconds < 5
    assert report.findings[0].witness["covered"] == {0: "0", 1: "0"}
    assert report.findings[0].witness["stopped_at"] == "--time-budget / time_budget"


def test_cli_max_draws_per_path(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "zloop.py").write_text(
        "def loop(c, source):\n    while source.uniform(2) == 1:\n        pass\n    return 0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    rc, out, err = run(capsys, "audit", "zloop:loop", "--kind", "whitebox", "--source",
                       "--claimed-epsilon", "1", "--inputs", "0..1",
                       "--max-draws-per-path", "16", "--json")
    assert rc == 2, err
    assert json.loads(out)["findings"][0]["witness"]["covered"]["1"] == str(
        1 - Fraction(1, 2**16))
    rc, _, err = run(capsys, "audit", "zloop:loop", "--kind", "whitebox", "--source",
                     "--claimed-epsilon", "1", "--inputs", "0..1", "--max-draws-per-path", "0")
    assert rc == 2
    one_line_error(err, "--max-draws-per-path")


def test_a_path_is_cut_after_path_ns() -> None:
    def slow_zeros_loop(source: RandomSource) -> int:
        while source.uniform(2) == 1:
            time.sleep(1 / 500)  # at most 50 draws in 0.1 s
        return 0

    with pytest.raises(ExplorationIncomplete) as info:
        explore(slow_zeros_loop, path_ns=10**8)
    exc = info.value
    # the all-zeros path is cut after 0.1 s; the paths leaving the loop at draw i weigh
    # 2^-i, heaviest first: (1,) of weight 1/2 finishes first, and every covered mass is a
    # sum of distinct 2^-i < 1 (a long replay may be cut too on a loaded machine)
    assert exc.reason == "draws" and exc.cut >= 1 and 5 < exc.runs <= 52
    assert Fraction(1, 2) < exc.covered < 1 and exc.partial == {0: exc.covered}
    assert exc.covered.denominator & (exc.covered.denominator - 1) == 0


def test_a_facade_search_does_not_overrun_the_budget() -> None:
    from exactdp.audit.facades import facade_mechanism

    def halves(c: int, rng: Any) -> int:
        while rng.random() < 0.5:  # j = 0 loops: every draw is a costly breakpoint search
            pass
        return 0

    report = whitebox_audit(facade_mechanism(halves, "random"), inputs=range(2),
                            claimed_epsilon=1, kind="source", outputs=range(1),
                            time_budget=2, max_draws=None)
    assert report.verdict == "incomplete" and report.seconds < 3
    assert report.findings[0].witness == {"covered": {0: "0", 1: "0"},
                                          "stopped_at": "--time-budget / time_budget"}
