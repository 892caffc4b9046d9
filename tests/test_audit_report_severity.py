"""Severity of white-box violations (exactdp.audit.severity; issue 10, item 4).

A planted ~1e-13 excess and a planted infinite loss are both violations; the text and the
JSON must tell them apart at a glance.  Expected figures are computed here independently
(mpmath at 60 digits, or by hand), never read off the audit.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from audit_targets import severity_targets as planted
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import whitebox_audit
from exactdp.audit.severity import decimal_interval, separated_decimals, severity
from exactdp.certified import Interval, exp_interval
from exactdp.checker import RatioWitness
from exactdp.counting import GeoSample
from exactdp.randomness import RandomSource
from tests._cli import run

T = "audit_targets.severity_targets"
mpmath.mp.dps = 60


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _contains(iv: dict[str, str], x: mpmath.mpf) -> bool:
    return _mp(Fraction(iv["lo"])) <= x <= _mp(Fraction(iv["hi"]))


def _ends(text: str) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The ends of a printed ``[lo, hi]`` or of a single printed number."""
    parts = text.strip("[]").split(", ")
    return mpmath.mpf(parts[0]), mpmath.mpf(parts[-1])


def test_tiny_excess_is_marginal_with_figures_checked_independently() -> None:
    report = whitebox_audit(planted.tiny, inputs=range(2), claimed_epsilon=1)
    assert report.verdict == "violation"
    sev = report.to_json()["severity"]
    assert sev["level"] == "marginal" and sev["infinite_loss"] is False
    eff = mpmath.log(mpmath.mpf(planted.A) / planted.B)  # ln(worst ratio), 60 digits
    assert _contains(sev["effective_epsilon"], eff)
    assert _contains(sev["epsilon_excess"], eff - 1)
    assert 1e-14 < eff - 1 < 1e-13  # the planted size
    # delta(1) = (A - e B) / D: only outcome 0 of the pair (0, 1) has P > e Q (by hand).
    hs = (planted.A - mpmath.e * planted.B) / planted.D
    assert _contains(sev["hockey_stick_delta_at_claimed_epsilon"], hs)
    text = report.summary()
    assert "SEVERITY: MARGINAL" in text and "INFINITE" not in text
    assert "excess over the claimed epsilon: in [3.706e-14, 3.707e-14]" in text


def test_infinite_loss_is_infinite_and_reads_differently() -> None:
    report = whitebox_audit(planted.infinite, inputs=range(2), claimed_epsilon=1)
    sev = report.to_json()["severity"]
    assert report.verdict == "violation" and sev["level"] == "infinite"
    assert sev["infinite_loss"] is True and sev["effective_epsilon"] == "infinity"
    # delta(1) = 1/4 exactly: outcome 1 has 1/4 - e * 0; outcome 0 has 3/4 - e < 0.
    hs = sev["hockey_stick_delta_at_claimed_epsilon"]
    assert hs["lo"] == hs["hi"] == "1/4"
    text = report.summary()
    assert "SEVERITY: INFINITE" in text and "effective epsilon: infinite" in text
    tiny_text = whitebox_audit(planted.tiny, inputs=range(2), claimed_epsilon=1).summary()
    sev_lines = [[ln for ln in t.splitlines() if "SEVERITY" in ln] for t in (text, tiny_text)]
    assert sev_lines[0] != sev_lines[1] and len(sev_lines[0]) == len(sev_lines[1]) == 1


def test_pass_has_severity_none_and_a_margin() -> None:
    # GeoSample(4, 1/2): worst ratio exactly 5/4 (Theorem 4.7, k = 2); ln(5/4) < 1/4.
    report = whitebox_audit(GeoSample(4, Fraction(1, 2)), claimed_epsilon=Fraction(1, 4))
    sev = report.to_json()["severity"]
    assert sev["level"] == "none"
    assert _contains(sev["epsilon_excess"], mpmath.log(mpmath.mpf(5) / 4) - mpmath.mpf(1) / 4)
    assert "margin below the claimed epsilon" in report.summary()
    assert "hockey-stick delta at the claimed epsilon (e^(1/4)): 0 (exactly)" in report.summary()


def test_substantial_and_never_equal_decimals() -> None:
    report = whitebox_audit(GeoSample(4, Fraction(1, 2)), claimed_epsilon=Fraction(1, 5))
    assert report.to_json()["severity"]["level"] == "substantial"  # ln(5/4) - 1/5 > 1/500
    text = report.summary()
    assert "worst ratio 1.25000000 > e^(1/5) in [1.22140275, 1.22140276]" in text


def test_the_old_truncated_comparison_is_gone() -> None:
    text = whitebox_audit(planted.tiny, inputs=range(2), claimed_epsilon=1).summary()
    assert "2.71828182... > 2.71828182..." not in text
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("worst ratio 2."))
    left, right = line.split(" > e^(1) in ")
    assert left.split()[-1] not in right


@settings(max_examples=40, deadline=None)
@given(st.fractions(min_value=Fraction(1, 50), max_value=5, max_denominator=50),
       st.integers(min_value=20, max_value=120), st.booleans())
def test_separated_decimals_differ_as_printed(eps: Fraction, k: int, above: bool) -> None:
    """A ratio 2^-k away from e^eps prints differently from e^eps, and the printed
    intervals really contain the two numbers."""
    box = exp_interval(eps, k + 40)
    ratio = box.hi + Fraction(1, 2**k) if above else box.lo - Fraction(1, 2**k)
    a, b = separated_decimals(lambda bits: Interval(ratio, ratio),
                              lambda bits: exp_interval(eps, bits))
    assert a != b
    # mpmath's precision is global and other test modules set it: fix it here, well past
    # the printed digits (k <= 120 bits, about 36 digits past the point).
    with mpmath.workdps(120):
        a_lo, a_hi = _ends(a)
        b_lo, b_hi = _ends(b)
        assert b_lo <= mpmath.exp(_mp(eps)) <= b_hi
        assert a_lo <= _mp(ratio) <= a_hi
        assert a_lo > b_hi if above else a_hi < b_lo

def test_decimal_interval_rounds_outwards() -> None:
    assert decimal_interval(Interval(Fraction(1, 3), Fraction(2, 3)), 3) == "[3.33e-1, 6.67e-1]"
    assert decimal_interval(Interval(Fraction(-2, 3), Fraction(-1, 3)), 3) == \
        "[-6.67e-1, -3.33e-1]"
    assert decimal_interval(Interval(Fraction(999, 1000), Fraction(9999, 10000)), 2) == \
        "[9.9e-1, 1.0e0]"


def test_broken_audits_have_no_severity() -> None:
    w = RatioWitness(Fraction(2), 0, 1, 0, Fraction(1, 2), Fraction(1, 4))
    assert severity("broken", w, Fraction(1), Fraction(0), None, None) is None
    assert severity("violation", None, Fraction(1), Fraction(0), None, None) is None


@pytest.mark.parametrize(("name", "word"), [("tiny", "MARGINAL"), ("infinite", "INFINITE")])
def test_cli_text_and_json_carry_the_severity(capsys: pytest.CaptureFixture[str], name: str,
                                              word: str) -> None:
    code, out, _ = run(capsys, "audit", f"{T}:{name}", "--kind", "whitebox",
                       "--claimed-epsilon", "1", "--inputs", "0..1", "--monotone", "--quiet")
    assert code == 1 and f"SEVERITY: {word}" in out
    code, out, _ = run(capsys, "audit", f"{T}:{name}", "--kind", "whitebox",
                       "--claimed-epsilon", "1", "--inputs", "0..1", "--monotone", "--quiet",
                       "--json")
    data = json.loads(out)
    assert code == 1 and data["severity"]["level"] == word.lower()
    assert data["worst_ratio"] is not None and "bound" in data  # existing fields kept


@pytest.mark.parametrize("delta", [Fraction(1, 100), Fraction(127098, 10**7),
                                   Fraction(127099, 10**7), Fraction(1, 10)])
def test_approximate_claim_prints_decimals_on_the_right_side(delta: Fraction) -> None:
    """GeoSample(4, 1/2) at eps = 1/5: delta(eps) = 0.012709...; claims just below and just
    above it need more digits, and the printed enclosure must sit on the side of delta the
    verdict says (parsed back from the text)."""
    report = whitebox_audit(GeoSample(4, Fraction(1, 2)), claimed_epsilon=Fraction(1, 5),
                            claimed_delta=delta)
    line = next(ln for ln in report.summary().splitlines() if "approximate claim" in ln)
    shown = line.split("delta(eps) ", 1)[1].split(" for the pair")[0]
    ends = [Fraction(t) for t in shown.split(" ", 1)[1].strip("[]").split(", ")]
    assert "~" not in line and len(set(ends)) == len(ends)
    if report.verdict == "violation":
        assert ends[0] > delta and "> claimed delta" in line
    else:
        assert report.verdict == "pass" and ends[-1] <= delta and "<= claimed delta" in line
    sev = report.severity
    assert sev is not None and sev.level in ("none", "marginal", "substantial")
    assert (sev.level == "none") == (report.verdict == "pass")


def test_timing_channel_has_its_own_severity() -> None:
    """Same output law on both inputs (a fair bit: ratio exactly 1), but input 1 makes one
    more draw: a timing side channel, not an output violation."""
    def extra_draw(c: int, source: RandomSource) -> int:
        bit = int(source.bernoulli(1, 2))
        if c == 1:
            source.uniform(2)
        return bit

    report = whitebox_audit(extra_draw, inputs=range(2), claimed_epsilon=Fraction(1, 2),
                            kind="source", outputs=range(2))
    assert report.verdict == "violation" and report.worst is not None
    assert report.worst.ratio == 1
    sev = report.to_json()["severity"]
    assert sev["level"] == "timing" and sev["effective_epsilon"]["lo"] == "0"
    assert "SEVERITY: TIMING" in report.summary()
