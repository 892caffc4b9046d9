"""The slip rows of Balcer & Vadhan pass on the implementation (each exhibits the paper's slip
on a witness) and fail when a planted bug removes the witness or breaks what the row checks."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from _plant import plant

from exactdp.certificate import ClaimReport
from exactdp.histograms import compact_release, distinct, orderstats
from exactdp.histograms.compact import CompactHistogram
from exactdp.histograms.orderstats import ApproxBinDraw
from exactdp.proofs.balcer_vadhan import lemma_8_01_slip_iv_small_x as slip_8_1
from exactdp.proofs.balcer_vadhan import lemma_a_01_slip_a3_set as slip_a3
from exactdp.proofs.balcer_vadhan import prop_6_06_footnote_7 as footnote_7
from exactdp.proofs.balcer_vadhan import prop_6_15_i_slip_even_odd as slip_6_15
from exactdp.proofs.balcer_vadhan import prop_6_17_slip_time_at_zero as slip_6_17
from exactdp.proofs.balcer_vadhan import thm_8_06_slip_iii_simultaneous as slip_8_6

ROWS = [slip_8_1, slip_a3, footnote_7, slip_6_15, slip_6_17, slip_8_6]


def _fails(report: ClaimReport) -> bool:
    return not report.verdict and bool(report.certificates)


@pytest.mark.parametrize("row", ROWS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_slip_rows_pass_and_declare_the_slip(row: Any) -> None:
    assert row.check(False).verdict
    assert row.SLIP and len(row.SLIP) > 40  # the paper's statement, for the claims page


def test_ace_swapped_in_the_implementation_fails_6_15(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, orderstats, "approx_conv_exp", "            if bit:\n",
          "            if not bit:\n")
    assert _fails(slip_6_15.check(False))


def test_output_zero_lost_fails_6_17(monkeypatch: pytest.MonkeyPatch) -> None:
    original = ApproxBinDraw.search
    monkeypatch.setattr(ApproxBinDraw, "search", lambda self, u: original(self, u) + 1)
    assert _fails(slip_6_17.check(False))


def test_ord_sample_one_draw_short_fails_footnote_7(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, orderstats, "ord_sample", "m = _check_m(m, n)",
          "m = _check_m(m, n) - 1")
    assert _fails(footnote_7.check(False))


def test_padding_value_fixed_fails_8_1_iv(monkeypatch: pytest.MonkeyPatch) -> None:
    """Points outside A (the ones that lie outside X here) no longer drawn from M0."""
    plant(monkeypatch, CompactHistogram, "_point_value",
          "v = source.inverse_cdf(self._m0_draw)", "v = 0")
    assert _fails(slip_8_1.check(False))


def test_too_much_noise_fails_8_6_iii(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compact_release, "theorem_8_6_epsilon_prime",
                        lambda epsilon: Fraction(epsilon) / 8)
    assert _fails(slip_8_6.check(False))


def test_distinct_sample_as_a_set_fails_a3(monkeypatch: pytest.MonkeyPatch) -> None:
    """The implementation itself returning the sorted set: no longer a uniform sequence, and
    KH' no longer KeepHeavy."""
    original = distinct.distinct_sample

    def as_set(*args: Any) -> tuple[int, ...]:
        return tuple(sorted(original(*args)))

    monkeypatch.setattr(slip_a3, "distinct_sample", as_set)
    from exactdp.histograms import sparse
    monkeypatch.setattr(sparse, "distinct_sample", as_set)
    report = slip_a3.check(False)
    assert _fails(report)
    assert sparse.distinct_sample is as_set  # the row restored what it found
