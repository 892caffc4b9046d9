"""The text report of a TIMING verdict says its witness in words: the two inputs, the output,
the draws, the two operation counts (and calls), both exact probabilities and the ratio."""

from __future__ import annotations

import random

from exactdp.audit import whitebox_audit
from exactdp.audit.facades import facade_mechanism
from tests.audit_targets import timing_targets as tt


def _timing_line(fn) -> tuple[dict, str]:  # type: ignore[no-untyped-def, type-arg]
    mech = facade_mechanism(lambda c, rng: fn(c), "random", patch_modules=[random])
    report = whitebox_audit(mech, inputs=range(2), claimed_epsilon=3, kind="source")
    assert report.trace is not None and not report.trace.same, report.summary()
    lines = [x for x in report.summary().splitlines() if "TIMING: breaks the claim" in x]
    assert len(lines) == 1, report.summary()
    return dict(report.trace.witness), lines[0]


def test_a_cdf_walk_returning_early_is_said_in_words() -> None:
    w, line = _timing_line(tt.cdf_walk)
    a, b = w["inputs"]
    assert "{'" not in line  # not a Python dict
    assert f"on input {a}, the output {w['output']} after the draws" in line
    assert f"and {w['operation_count']['count']} operations" in line
    assert f"has probability {w['probability']}" in line
    assert f"on input {b}, that output with that trace has probability " \
           f"{w['other_probability']}" in line
    counts = w["operation_counts_other"]["counts"]
    assert counts and f"takes {' or '.join(map(str, counts))} operations" in line
    assert "first difference: operation" in line


def test_sleeping_code_shows_both_calls() -> None:
    w, line = _timing_line(tt.rr_sleeps)
    assert w["calls"] != w["calls_other"]
    for call in [*w["calls"], *w["calls_other"]]:
        assert call in line
