"""Black-box audits (exactdp.audit.blackbox_audit): stated error probabilities, sample
splitting, honest verdicts and robustness.

The privacy test's false-alarm guarantee is checked *exactly* for small K: the probability
of rejecting, summed over all count pairs with exact binomial pmfs, is at most alpha at the
worst null (``P_a(S) = e^eps P_b(S)`` as nearly as rationals allow).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from exactdp.audit import blackbox_audit, privacy_test_rejects
from exactdp.certified import Interval, exp_interval
from exactdp.counting import GeometricMechanism, GeoSample
from exactdp.params import ParameterError
from exactdp.randomness import SeededSource


def pmf(K: int, p: Fraction, i: int) -> Fraction:
    return comb(K, i) * p**i * (1 - p) ** (K - i)


@pytest.mark.parametrize(("K", "q"), [(12, Fraction(1, 5)), (16, Fraction(1, 3))])
def test_privacy_test_false_alarm_is_at_most_alpha_exactly(K: int, q: Fraction) -> None:
    eps, alpha = Fraction(1, 2), Fraction(1, 5)
    box = exp_interval(eps, 128)
    p = box.lo * q  # P_a(S) <= e^eps P_b(S): the null at its boundary
    assert p <= 1
    e_hi = box.hi
    reject = [[privacy_test_rejects(x, y, K, alpha, e_hi) for y in range(K + 1)]
              for x in range(K + 1)]
    false_alarm = sum((pmf(K, p, x) * pmf(K, q, y) for x in range(K + 1) for y in range(K + 1)
                       if reject[x][y]), Fraction(0))
    assert false_alarm <= alpha
    # and the test is not vacuous: a gross violation is rejected with these counts
    assert reject[K][0]


def test_correct_sampler_no_violation_detected_and_power_stated() -> None:
    geo = GeoSample(4, Fraction(1, 2))
    src = SeededSource(1)
    calls: dict[int, int] = {}

    def sampler(c: int) -> int:
        calls[c] = calls.get(c, 0) + 1
        return geo.sample(c, src)

    report = blackbox_audit(sampler, inputs=range(5), claimed_epsilon=Fraction(1, 4),
                            draws=400, reference=geo.ideal(), alpha=Fraction(1, 20))
    assert report.verdict == "no violation detected" and report.exit_code == 0
    assert report.fit_alpha == Fraction(1, 40) and report.fit_tests == 25
    # sample splitting: K draws on every input, then K fresh draws on each selected input
    pt = report.privacy
    assert pt is not None
    assert sum(calls.values()) == report.total_draws == 400 * 7
    assert calls[pt.a] >= 800 and calls[pt.b] >= 800
    # confidence statement: lower bound below the true ratio of the chosen set
    dist = {c: dict(enumerate(geo.ideal().distribution(c))) for c in range(5)}
    true_ratio = (sum(dist[pt.a][o] for o in pt.outcome_set)
                  / sum(dist[pt.b][o] for o in pt.outcome_set))
    assert pt.ratio_lower is not None and pt.ratio_lower <= true_ratio
    text = report.summary()
    assert "NO VIOLATION DETECTED (this is not a proof of privacy)" in text
    assert "power" in text and "private" not in text.replace("not a proof of privacy", "")


def test_wrong_distribution_is_a_mismatch_with_witnesses() -> None:
    wrong = GeoSample(4, Fraction(1, 1))
    src = SeededSource(2)
    report = blackbox_audit(lambda c: wrong.sample(c, src), inputs=range(5),
                            claimed_epsilon=Fraction(1, 2), draws=1500,
                            reference=GeometricMechanism(4, Fraction(4, 5)))
    assert report.verdict in ("mismatch", "violation") and report.exit_code == 1
    assert report.fit_rejections
    r = report.fit_rejections[0]
    assert r.critical is not None and r.critical.rejects(r.count)


def test_outcome_outside_the_reference_support_is_a_mismatch() -> None:
    src = SeededSource(3)

    def sampler(c: int) -> int:
        return 7 if src.uniform(50) == 1 else c

    ref = {c: {c: Fraction(1)} for c in range(3)}
    report = blackbox_audit(sampler, inputs=range(3), claimed_epsilon=1, draws=200,
                            reference=ref)
    assert report.verdict in ("mismatch", "violation")
    assert any(r.outcome == 7 and r.reference == 0 for r in report.fit_rejections)


def test_interval_references_are_accepted() -> None:
    geo = GeoSample(3, Fraction(1, 2))
    tiny = Fraction(1, 10**30)
    ref = {c: {z: Interval(p - tiny, p + tiny) for z, p in enumerate(geo.ideal().distribution(c))}
           for c in range(4)}
    src = SeededSource(4)
    report = blackbox_audit(lambda c: geo.sample(c, src), inputs=range(4),
                            claimed_epsilon=Fraction(1, 4), draws=300, reference=ref)
    assert report.verdict == "no violation detected"
    data = report.to_json()
    assert data["reference_distributions"]["0"]["0"]["lo"] == str(Fraction(5, 9) - tiny)


def test_gross_violation_is_detected_without_a_reference() -> None:
    src = SeededSource(5)

    def sampler(c: int) -> int:  # reveals c with probability 1/2
        return c if src.bernoulli(1, 2) else -1

    report = blackbox_audit(sampler, inputs=range(3), claimed_epsilon=1, draws=300)
    assert report.verdict == "violation" and report.fit_alpha is None
    pt = report.privacy
    assert pt is not None and pt.violation and pt.alpha == 1 * Fraction(1, 100)
    assert "EXCEEDED" in report.privacy_bound


def test_broken_samplers_are_reported() -> None:
    def raising(c: int) -> int:
        raise ValueError("nope")

    r = blackbox_audit(raising, inputs=range(2), claimed_epsilon=1, draws=10)
    assert r.verdict == "broken" and r.exit_code == 3 and r.findings[0].kind == "raised"

    def hanging(c: int) -> int:
        while True:
            pass

    r = blackbox_audit(hanging, inputs=range(2), claimed_epsilon=1, draws=10, time_limit=1)
    assert r.findings[0].kind == "timeout"
    r = blackbox_audit(lambda c: c + 10, inputs=range(2), claimed_epsilon=1, draws=10,
                       outputs=range(5))
    assert r.findings[0].kind == "out_of_range"
    assert "sampler(0) returned 10" in r.findings[0].message
    r = blackbox_audit(lambda c: {c}, inputs=range(2), claimed_epsilon=1, draws=10)
    assert r.findings[0].kind == "bad_output"


def test_batch_interface_is_used_and_checked() -> None:
    class Sampler:
        def __call__(self, c: int) -> int:
            raise AssertionError("batch should be used")

        def batch(self, c: int, k: int) -> list[int]:
            return [c] * k

    r = blackbox_audit(Sampler(), inputs=range(2), claimed_epsilon=1, draws=50)
    assert r.verdict == "violation"  # a deterministic release: infinite loss

    class Short(Sampler):
        def batch(self, c: int, k: int) -> list[int]:
            return [c]

    assert blackbox_audit(Short(), inputs=range(2), claimed_epsilon=1,
                          draws=50).findings[0].kind == "bad_output"


def test_bad_arguments() -> None:
    with pytest.raises(ParameterError):
        blackbox_audit(lambda c: c, inputs=range(2), claimed_epsilon=1, draws=0)
    with pytest.raises(ParameterError):
        blackbox_audit(lambda c: c, inputs=range(2), claimed_epsilon=1, draws=5, alpha=1)
    with pytest.raises(ParameterError):
        blackbox_audit(lambda c: c, inputs=[0], claimed_epsilon=1, draws=5)
