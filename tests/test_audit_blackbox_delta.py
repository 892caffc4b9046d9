"""Black-box ``(eps, delta)`` claims (issue 10, item 3): a hockey-stick lower confidence
bound, its false-alarm probability checked exactly for small K, and a planted leak caught.

The planted sampler returns ``2 + c`` (naming its input) with probability 1/5, else a fair
bit: by hand, ``delta(eps) = 1/5`` for every eps (outcome ``2 + c`` has probability 1/5 on
``c`` and 0 on its neighbour; the fair bit has equal probabilities on both).
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from math import comb

import pytest

from exactdp.audit import blackbox_audit
from exactdp.audit.blackbox import hockey_stick_lower, hockey_stick_rejects
from exactdp.certified import exp_interval
from exactdp.params import ParameterError
from tests._cli import run


def pmf(K: int, p: Fraction, i: int) -> Fraction:
    return comb(K, i) * p**i * (1 - p) ** (K - i)


@pytest.mark.parametrize(("K", "q", "delta"), [(12, Fraction(1, 5), Fraction(1, 10)),
                                               (16, Fraction(1, 8), Fraction(1, 4))])
def test_hockey_stick_false_alarm_is_at_most_alpha_exactly(K: int, q: Fraction,
                                                           delta: Fraction) -> None:
    """At the boundary of the claim (P_a(S) = e^eps P_b(S) + delta, as nearly as rationals
    allow from below), the exact probability of rejecting is <= alpha."""
    eps, alpha = Fraction(1, 2), Fraction(1, 5)
    box = exp_interval(eps, 128)
    p = box.lo * q + delta  # <= e^eps q + delta: the claim holds on S
    assert p <= 1
    false_alarm = sum((pmf(K, p, x) * pmf(K, q, y) for x in range(K + 1) for y in range(K + 1)
                       if hockey_stick_rejects(x, y, K, alpha, box.hi, delta)), Fraction(0))
    assert false_alarm <= alpha
    assert hockey_stick_rejects(K, 0, K, alpha, box.hi, delta)  # not vacuous


def _leaky(seed: int) -> object:
    rng = random.Random(seed)

    def sampler(c: int) -> int:
        return 2 + c if rng.randrange(5) == 0 else rng.randrange(2)

    sampler.outputs = range(4)  # type: ignore[attr-defined]
    return sampler


def test_planted_leak_refutes_a_small_delta() -> None:
    report = blackbox_audit(_leaky(1), inputs=range(2), claimed_epsilon=1,
                            claimed_delta=Fraction(1, 100), draws=2000, alpha=Fraction(1, 100))
    assert report.verdict == "violation" and report.exit_code == 1
    pt = report.privacy
    assert pt is not None and pt.hockey_stick_lower is not None
    assert Fraction(1, 100) < pt.hockey_stick_lower <= Fraction(1, 5)  # true delta(1) = 1/5
    assert 2 + pt.a in pt.outcome_set
    text = report.summary()
    assert "approximate DP" in text and "claimed delta 1/100 EXCEEDED" in text
    data = report.to_json()
    assert data["claimed_delta"] == "1/100"
    assert Fraction(data["privacy"]["hockey_stick_lower"]) == pt.hockey_stick_lower


def test_a_delta_above_the_true_one_is_not_refuted() -> None:
    report = blackbox_audit(_leaky(2), inputs=range(2), claimed_epsilon=1,
                            claimed_delta=Fraction(1, 4), draws=2000, alpha=Fraction(1, 100))
    assert report.verdict == "no violation detected"
    pt = report.privacy
    assert pt is not None and pt.hockey_stick_lower is not None
    assert pt.hockey_stick_lower <= Fraction(1, 5)
    assert "claimed delta 1/4 not exceeded" in report.summary()


def test_the_pure_test_is_unchanged_when_delta_is_zero() -> None:
    report = blackbox_audit(_leaky(3), inputs=range(2), claimed_epsilon=1, draws=500)
    pt = report.privacy
    assert pt is not None and pt.hockey_stick_lower is None and pt.delta == 0
    assert "pure DP" in report.summary()


def test_hockey_stick_lower_is_the_difference_of_the_two_bounds() -> None:
    from exactdp.binomial import clopper_pearson_lower, clopper_pearson_upper

    e_hi = exp_interval(Fraction(1), 128).hi
    got = hockey_stick_lower(40, 3, 100, Fraction(1, 10), e_hi)
    assert got == clopper_pearson_lower(40, 100, Fraction(1, 20)) \
        - e_hi * clopper_pearson_upper(3, 100, Fraction(1, 20))


def test_bad_delta_is_refused() -> None:
    with pytest.raises(ParameterError, match="claimed_delta"):
        blackbox_audit(_leaky(4), inputs=range(2), claimed_epsilon=1, claimed_delta=1,
                       draws=10)


def test_cli_blackbox_claimed_delta(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit", "test_audit_blackbox_delta:cli_leaky", "--kind",
                       "blackbox", "--claimed-epsilon", "1", "--claimed-delta", "1/100",
                       "--inputs", "0..1", "--outputs", "0..3", "--draws", "2000", "--quiet",
                       "--json")
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "violation" and data["claimed_delta"] == "1/100"


def test_cli_blackbox_output_outside_declared_is_broken(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    code, out, _ = run(capsys, "audit", "test_audit_blackbox_delta:cli_leaky", "--kind",
                       "blackbox", "--claimed-epsilon", "1", "--claimed-delta", "1/100",
                       "--inputs", "0..1", "--outputs", "0..2", "--draws", "2000", "--quiet")
    assert code == 3 and "BROKEN" in out and "outside the declared outputs 0..2" in out


cli_leaky = _leaky(5)
