"""The planted bugs of tests/planted_bugs.py, each caught with the exact loss it really has;
exactdp's own GeoSample and FastSample pass the same audits.

Expected losses are derived in the tests from the bug itself (e.g. the float ``k``), not
read off the audit.
"""

from __future__ import annotations

from fractions import Fraction

from planted_bugs import (
    FLOAT_LOG_M,
    FloatCDFGeoSample,
    FloatLogGeoSample,
    LinearScanGeoSample,
    float_k,
    unnormalised_truncated_geometric,
)

from exactdp.audit import blackbox_audit, whitebox_audit
from exactdp.certified import compare_exp
from exactdp.counting import FastSample, GeoSample
from exactdp.randomness import SeededSource


def test_float_log_parameter_is_the_smallest_of_its_shape() -> None:
    exact = lambda m: (2 * m - 1).bit_length()
    wrong = [j for j in range(1, 60) if float_k(1 / (2**j + 1)) != exact(2**j + 1)]
    assert wrong[0] == 49 and FLOAT_LOG_M == 2**49 + 1
    assert float_k(1 / FLOAT_LOG_M) == 50 and exact(FLOAT_LOG_M) == 51


def test_bug1_float_log_k_exceeds_the_claimed_epsilon() -> None:
    bug = FloatLogGeoSample(4, FLOAT_LOG_M)
    claimed = Fraction(1, 2 * FLOAT_LOG_M)  # Theorem 4.7: (eps~/2)-DP with eps~ <= eps
    report = whitebox_audit(bug, claimed_epsilon=claimed,
                            reference=GeoSample(4, Fraction(1, FLOAT_LOG_M)))
    expected = 1 + Fraction(1, 2 ** float_k(1 / FLOAT_LOG_M))  # 1 + 2**-50
    assert report.verdict == "violation"
    assert report.worst is not None and report.worst.ratio == expected
    assert compare_exp(claimed, expected) < 0  # independently: e^(eps/2) < 1 + 2**-50
    assert report.excess is not None and report.excess > 0
    # the distribution is not GeoSample's: the distance to the correct port is positive
    assert isinstance(report.distance, Fraction) and report.distance > 0


def test_bug1_correct_port_passes_the_same_audit() -> None:
    good = GeoSample(4, Fraction(1, FLOAT_LOG_M))
    report = whitebox_audit(good, claimed_epsilon=Fraction(1, 2 * FLOAT_LOG_M))
    assert report.verdict == "pass"
    assert report.worst is not None and report.worst.ratio == 1 + Fraction(1, 2**51)


def test_bug2_float_cdf_has_infinite_loss() -> None:
    bug = FloatCDFGeoSample(100, 1)
    report = whitebox_audit(bug, inputs=range(9), claimed_epsilon=Fraction(1, 2),
                            reference=GeoSample(100, 1))
    assert report.verdict == "violation"
    assert report.worst is not None and report.worst.infinite
    # The impossible outcomes lie where F(z) = int(p * d) has lost the tail: p is within
    # a few units of 2**-53 of 1.0.  With a = 2/3 the true tail a**j/(1+a) is below
    # 2**-45 only for j >= j_min, and that is where every witness lies.
    j_min = next(j for j in range(200) if Fraction(2, 3) ** j / Fraction(5, 3) < Fraction(1, 2**45))
    assert j_min >= 75
    for inf in report.infinite:
        c = min(inf.possible_on, inf.impossible_on)
        assert inf.outcome - c >= j_min
        assert inf.probability < Fraction(1, 2**50)  # invisible to any sampling
    # and the correct GeoSample has no such outcome
    good = whitebox_audit(GeoSample(100, 1), inputs=range(9), claimed_epsilon=Fraction(1, 2))
    assert good.verdict == "pass" and good.infinite == ()


def test_bug3_unnormalised_truncated_geometric_white_box() -> None:
    n = 6
    f = unnormalised_truncated_geometric(n)
    report = whitebox_audit(f, inputs=range(n + 1), claimed_epsilon=Fraction(1, 2))
    assert report.verdict == "violation" and report.worst is not None and report.worst.infinite
    # by hand: d = 3**7 - 2**7 = 2059; on c = 0 the top outcome has mass w(6) = 2**6;
    # on c = 1 the weights 486 + 729 + 486 + ... exceed d before z = 6 is reached
    assert f.d == 3**7 - 2**7  # type: ignore[attr-defined]
    on0 = report.distributions[0]
    assert on0[6] == Fraction(64, 2059) and report.distributions[1][6] == 0
    assert any((i.outcome, i.possible_on, i.impossible_on) == (6, 0, 1) for i in report.infinite)


def test_bug3_is_also_detected_black_box_at_the_stated_alpha() -> None:
    n = 6
    f = unnormalised_truncated_geometric(n)
    src = SeededSource(7)
    d = f.d  # type: ignore[attr-defined]

    def sampler(c: int) -> int:
        return f(c, src.uniform(d))

    report = blackbox_audit(sampler, inputs=range(n + 1), claimed_epsilon=Fraction(1, 2),
                            draws=1500, alpha=Fraction(1, 100))
    assert report.verdict == "violation"
    pt = report.privacy
    assert pt is not None and pt.violation and pt.ratio_lower is not None
    assert compare_exp(Fraction(1, 2), pt.ratio_lower) < 0


def test_bug4_linear_scan_is_caught_by_trace_comparison_only() -> None:
    bug = LinearScanGeoSample(8, Fraction(1, 2))
    good = GeoSample(8, Fraction(1, 2))
    report = whitebox_audit(bug, claimed_epsilon=Fraction(1, 4), reference=good)
    # the distribution is exactly right ...
    assert report.distance == 0
    assert report.worst is not None and report.worst.ratio == Fraction(5, 4)
    # ... but the number of CDF evaluations depends on the private count
    assert report.trace is not None and not report.trace.same
    w = report.trace.witness
    assert w["trace_length"] != w["reference_length"]
    # the two traces are of the same u on two different inputs
    assert w["input"] != w["reference_input"] == 0 and 1 <= w["u"] <= bug.d
    assert report.verdict == "violation"
    assert whitebox_audit(good, claimed_epsilon=Fraction(1, 4)).trace.same  # type: ignore[union-attr]


class UDependentWorkGeoSample(GeoSample):
    """GeoSample doing ``u mod 3`` extra CDF evaluations: its work varies with the
    randomness ``u`` but, for each ``u``, not with the private count ``c``."""

    def __call__(self, c: int, u: int) -> int:
        for _ in range(u % 3):
            self.cdf(0, 0)
        return super().__call__(c, u)


def test_work_depending_on_u_alone_passes_the_input_trace_check() -> None:
    mech = UDependentWorkGeoSample(8, Fraction(1, 2))
    report = whitebox_audit(mech, claimed_epsilon=Fraction(1, 4), reference=GeoSample(8, Fraction(1, 2)))
    assert report.distance == 0
    assert report.trace is not None and report.trace.same and report.trace.witness == {}
    assert report.verdict == "pass"
    # the u-dependence is reported, as information about u (not about the input)
    assert report.trace.length is None
    note = report.trace.randomness_note
    assert "varies with the randomness u" in note and "not with the input" in note
    assert "note: the trace varies" in report.summary()
    assert report.to_json()["trace"]["randomness_dependence"] == note
    # exactdp's own GeoSample does the same work for every u: no note
    plain = whitebox_audit(GeoSample(8, Fraction(1, 2)), claimed_epsilon=Fraction(1, 4))
    assert plain.trace is not None and plain.trace.randomness_note == ""
    assert plain.trace.length is not None


def test_exactdp_samplers_pass_the_black_box_audit() -> None:
    src = SeededSource(11)
    for mech, claim in ((GeoSample(8, Fraction(1, 2)), Fraction(1, 4)),
                        (FastSample(8, Fraction(1, 2), Fraction(1, 8)), Fraction(1, 4))):
        def sampler(c: int, mech=mech) -> int:  # type: ignore[no-untyped-def]
            return mech.sample(c, src)

        report = blackbox_audit(sampler, inputs=range(9), claimed_epsilon=claim, draws=1000,
                                reference=mech)
        assert report.verdict == "no violation detected", report.summary()
        assert report.fit_rejections == ()
        assert "not a proof of privacy" in report.summary()


def test_float_bugs_are_invisible_to_sampling() -> None:
    # The honest counterpart of bugs 1 and 2: their violations have probability ~2**-55
    # or a ratio excess ~2**-99; the black-box audit must not claim to see them.
    src = SeededSource(3)
    bug = FloatLogGeoSample(4, FLOAT_LOG_M)

    def sampler(c: int) -> int:
        return bug.sample(c, src)

    report = blackbox_audit(sampler, inputs=range(5), claimed_epsilon=Fraction(1, 2 * FLOAT_LOG_M),
                            draws=300)
    assert report.verdict == "no violation detected"
    assert report.power  # the power it does have is stated
