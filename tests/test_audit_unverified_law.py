"""No PASS rests on an unverified law: a draw explored by its effect (the facades' breakpoint
search, checked at finitely many values) never yields a white-box PASS or a passing
``exactdp.testing`` assertion.

The targets are counterexamples to the search: each one's exact law, computed here by
counting by hand, breaks the claim (an infinite privacy loss), yet the search finds a law
that meets it.  Before the rule each of them was reported PASS.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from exactdp.audit import whitebox_audit
from exactdp.audit.facades import FacadeRefusal, facade_mechanism
from exactdp.testing import OracleAssertionError, assert_pure_dp

TWO53 = 1 << 53


def narrow_integer(c: int, rng: random.Random) -> int:
    """``c`` on one value of a wide integer draw, scaled (so not branched lazily):
    Pr[1 | c=1] = 10^-6, Pr[1 | c=0] = 0."""
    return c if rng.randrange(10**6) * 1 == 123457 else 0


def narrow_window(c: int, rng: random.Random) -> int:
    """``c`` on a window of ``random()`` (scaled, so not branched lazily) strictly inside one
    of the search's grid intervals, between its spot checks."""
    u = rng.random() * 1.0
    return c if 0.3001 < u < 0.30011 else 0


def joint_window(c: int, rng: random.Random) -> int:
    """Two draws that reveal ``c`` only when they nearly coincide (a joint event)."""
    x, y = rng.random() * 1.0, rng.random() * 1.0
    return c if abs(x - y) < 1e-9 else 0


def _window_mass() -> Fraction:
    """#{j : 0.3001 < j/2^53 < 0.30011} / 2^53, counted exactly from the floats."""
    lo, hi = Fraction(0.3001) * TWO53, Fraction(0.30011) * TWO53
    first = math.floor(lo) + 1
    last = math.ceil(hi) - 1
    return Fraction(last - first + 1, TWO53)


@pytest.mark.parametrize("target, leak", [(narrow_integer, lambda: Fraction(1, 10**6)),
                                          (narrow_window, _window_mass)])
def test_a_searched_law_never_passes(target: object, leak: object) -> None:
    true_leak = leak()  # type: ignore[operator]
    assert true_leak > 0  # the brute-force law: output 1 from c = 1 only, infinite loss
    report = whitebox_audit(facade_mechanism(target), inputs=range(2),  # type: ignore[arg-type]
                            claimed_epsilon=1, kind="source", outputs=range(2))
    # the search misses the piece: the law it found is wrong and meets the claim
    assert report.distributions[1] == {0: Fraction(1)} != {0: 1 - true_leak, 1: true_leak}
    assert report.verdict == "incomplete" and report.exit_code == 2
    assert any(f.kind == "unverified_law" for f in report.findings)
    assert "no PASS on an unverified law" in report.bound
    assert "verdict: PASS" not in report.summary() and "INCOMPLETE" in report.summary()


def test_joint_draws_are_never_a_pass() -> None:
    """Two continuous draws compared with each other: the search either refuses or reports
    a law flagged as unverified (here: a violation, from too small a mass), never PASS."""
    try:
        report = whitebox_audit(facade_mechanism(joint_window), inputs=range(2),
                                claimed_epsilon=1, kind="source", outputs=range(2))
    except FacadeRefusal:
        return
    assert report.verdict != "pass"
    assert any(f.kind == "unverified_law" for f in report.findings)


def test_compared_values_stay_exact_and_pass() -> None:
    """The twins that only compare their draws are branched exactly: a PASS, no finding,
    and the integer counterexample compared unscaled is refuted exactly."""
    def window_compared(c: int, rng: random.Random) -> int:
        u = rng.random()
        return 0 if 0.3001 < u < 0.30011 else 1  # the same for every c

    report = whitebox_audit(facade_mechanism(window_compared), inputs=range(2),
                            claimed_epsilon=1, kind="source", outputs=range(2))
    assert report.verdict == "pass"
    assert report.distributions[0] == {0: _window_mass(), 1: 1 - _window_mass()}
    assert not any(f.kind == "unverified_law" for f in report.findings)

    def one_value(c: int, rng: random.Random) -> int:
        return c if rng.randrange(10**6) == 123457 else 0

    exact = whitebox_audit(facade_mechanism(one_value), inputs=range(2), claimed_epsilon=1,
                           kind="source", outputs=range(2))
    assert exact.distributions[1] == {0: Fraction(999999, 10**6), 1: Fraction(1, 10**6)}
    assert exact.verdict == "violation" and exact.worst is not None
    assert exact.worst.ratio is None


def test_testing_assertions_never_pass_on_a_searched_law() -> None:
    mech = facade_mechanism(narrow_integer)
    with pytest.raises(OracleAssertionError, match="explored by its effect"):
        assert_pure_dp(mech, [(0, 1)], epsilon=1)
    # the same facade hidden inside other code, and found in the facade's cache: still no pass
    with pytest.raises(OracleAssertionError, match="explored by its effect"):
        assert_pure_dp(lambda c, s: mech(c, s), [(0, 1)], epsilon=1)


def test_numpy_random_values_are_compared_lazily() -> None:
    """numpy's scalar random() (Generator and the legacy global functions) is branched on
    each comparison like random.random(): exact, a PASS possible."""
    import numpy as np

    def rr_generator(c: int, rng: object) -> int:
        return c if rng.random() < 0.75 else 1 - c  # type: ignore[attr-defined]

    def rr_global(c: int, rng: object) -> int:
        return c if np.random.random() < 0.75 else 1 - c

    for mech in (facade_mechanism(rr_generator, "numpy"),
                 facade_mechanism(rr_global, "numpy", patch_modules=[np.random])):
        report = whitebox_audit(mech, inputs=range(2), claimed_epsilon="11/10",
                                kind="source", outputs=range(2))
        assert report.verdict == "pass", report.summary()
        assert report.distributions[0] == {0: Fraction(3, 4), 1: Fraction(1, 4)}
        assert "branched exactly" in report.method
