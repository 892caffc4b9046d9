"""What the escape guards allow because it cannot reach the output as randomness -- a log
record's timestamp nobody reads back, a per-input memo, a generator seeded with a
constant inside the call -- and the twin of each that escapes (never a PASS)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from exactdp.audit import whitebox_audit
from exactdp.audit.facades import facade_mechanism
from exactdp.testing import OracleAssertionError, assert_pure_dp
from tests.audit_targets import private_targets as pt

RR = {0: {0: Fraction(3, 4), 1: Fraction(1, 4)}, 1: {0: Fraction(1, 4), 1: Fraction(3, 4)}}


def _audit(fn: Any) -> Any:
    """The audit, with only the targets' own handlers on their loggers (the test runner
    attaches handlers of its own for each test phase, code other than logging's that would
    see the records)."""
    for memo in (pt._MEMO, pt._BY_DRAW, pt._GROWING, pt._SEEN, pt._ORDER):  # as in a fresh process
        memo.clear()
    saved = [(log, log.handlers) for log in (pt.QUIET, pt.TIMED, pt.HANDED)]
    pt.QUIET.handlers, pt.TIMED.handlers, pt.HANDED.handlers = \
        [pt.QUIET_HANDLER], [pt.TIMED_HANDLER], [pt.KEPT]
    try:
        return whitebox_audit(facade_mechanism(fn), inputs=range(2), claimed_epsilon="11/10",
                              kind="source", outputs=range(2))
    finally:
        for log, handlers in saved:
            log.handlers = handlers


@pytest.mark.parametrize("fn", [pt.logged, pt.memoised, pt.memoised_by_draw, pt.constant_seed])
def test_private_code_passes(fn: Any) -> None:
    report = _audit(fn)
    assert report.verdict == "pass", report.summary()
    assert report.distributions == RR


@pytest.mark.parametrize(("fn", "named"), [
    (pt.logged_time_read, "time.time()"), (pt.logged_record_read, "time.time()"),
    (pt.growing, "_GROWING"), (pt.seen_before, ""), (pt.clock_seed, "time.time_ns()"),
    (pt.input_seed, "seeded a random.Random"), (pt.kept_seeded, "Random.random()")])
def test_escaping_twins_never_pass(fn: Any, named: str) -> None:
    for _ in range(3):
        report = _audit(fn)
        assert report.verdict == "broken", report.summary()
        (finding,) = report.findings
        assert finding.kind in ("escaped", "nondeterministic")
        assert named in finding.message


def test_a_memo_is_audited_cold_on_every_path() -> None:
    """Once a memo is known, each path runs from its first content, as in a fresh process,
    and its re-run warm: an output that depends on which inputs came first is never a
    PASS (here the first input of a process is released: an infinite loss)."""
    for _ in range(3):
        report = _audit(pt.first_input_leaks)
        assert report.verdict in ("violation", "broken"), report.summary()
        assert report.verdict == "violation" or report.findings[0].kind == "nondeterministic"


def test_the_same_in_testing_assertions() -> None:
    assert_pure_dp(pt.constant_seed_source, [(0, 1)], epsilon="11/10")
    with pytest.raises(OracleAssertionError, match="no exact law"):
        assert_pure_dp(pt.clock_seed_source, [(0, 1)], epsilon="11/10")
