"""The "parameters against hypotheses" rows fail on planted parameter slips.

Each planted bug is a one-token change to the exact line of library code that computes the
parameter, made by :func:`plant`: it takes the function's source, replaces one expression
(which must occur exactly once, so the test breaks loudly if the line changes), compiles it
in the function's own module namespace and monkeypatches it into every module that holds
the original -- what editing the source line would do.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from _plant import plant

from exactdp import counting, mixing
from exactdp.certificate import ClaimReport
from exactdp.histograms import basic, compact, sparse
from exactdp.histograms.basic import StabilityHistogram
from exactdp.histograms.data import Universe
from exactdp.proofs.balcer_vadhan import (
    lemma_3_02_parameters,
    thm_4_07_parameters,
    thm_4_10_parameters,
    thm_5_03_parameters,
    thm_5_06_parameters,
    thm_6_11_parameters,
    thm_8_06_parameters,
)

ROWS: list[Callable[[bool], ClaimReport]] = [
    lemma_3_02_parameters.check, thm_4_07_parameters.check, thm_4_10_parameters.check,
    thm_5_03_parameters.check, thm_5_06_parameters.check, thm_6_11_parameters.check,
    thm_8_06_parameters.check_wide,
]


def failures(report: ClaimReport) -> list[dict[str, Any]]:
    """The first failing settings the row lists (at most 10 per certificate)."""
    return [f for c in report.certificates for f in c.witness.get("failures", [])]


def failed(report: ClaimReport) -> dict[str, int]:
    """How many settings failed each named check, over all the row's certificates."""
    out: dict[str, int] = {}
    for c in report.certificates:
        for key, count in c.witness.get("failed checks", {}).items():
            out[key] = out.get(key, 0) + count
    return out


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.__module__.split(".")[-1])
def test_rows_pass_on_the_library(row: Callable[[bool], ClaimReport]) -> None:
    report = row(False)
    assert report.verdict, report.to_json()


# --------------------------------------------------------------------------- Theorem 4.7

def test_geosample_k_off_by_one_fails_theorem_4_7(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, counting, "geosample_k", "ceil_log2(2 * epsilon.denominator)",
          "ceil_log2(2 * epsilon.denominator) - 1")
    report = thm_4_07_parameters.check(False)
    assert not report.verdict
    # Not only the formula: eps~ = 2 ln(1 + 2^-(k-1)) exceeds eps (a privacy failure).
    assert failed(report)["eps~ <= eps"] > 0


# --------------------------------------------------------------------------- Theorem 4.10

def test_fastsample_t_too_small_fails_lemma_3_2_condition(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # t = ceil(2/eps L) - 1 instead of ceil(9/(2 eps) L) - 1: the truncated mass is too big.
    plant(monkeypatch, counting.FastSample, "__init__", "(9 * m * self.log_term + 1) // 2",
          "(4 * m * self.log_term + 1) // 2")
    report = thm_4_10_parameters.check(False)
    assert not report.verdict
    assert failed(report)["condition (1)"] > 0


def test_fastsample_t_with_another_constant_fails_the_stated_t(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 9 -> 8 leaves condition (1) true on the grid (the paper's t has slack), but it is not
    # the theorem's t: the row says so.
    plant(monkeypatch, counting.FastSample, "__init__", "(9 * m * self.log_term + 1) // 2",
          "(8 * m * self.log_term + 1) // 2")
    report = thm_4_10_parameters.check(False)
    assert not report.verdict
    counts = failed(report)
    assert counts["t as stated"] == 300 and "condition (1)" not in counts


# --------------------------------------------------------------------------- Theorem 5.3

def test_theorem_5_3_gamma_doubled_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, basic, "theorem_5_3_gamma", "/ (2 * as_universe(universe).size)",
          "/ as_universe(universe).size")
    report = thm_5_03_parameters.check(False)
    assert not report.verdict
    assert failed(report)["2 gamma |X| <= beta0"] > 0


# --------------------------------------------------------------------------- Theorem 5.6

def test_geosample_threshold_constant_fails_theorem_5_5_hypothesis(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, StabilityHistogram, "with_geosample", "Fraction(9, 2) / eps",
          "Fraction(2, 9) / eps")
    # The example: eps = 1, delta = 1e-6 gives b = 5 and, with alpha = 2/3,
    # 2 Pr[M(1,U) > 5] = 2 alpha^5 / (1 + alpha) = 192/1215 (about 0.158).
    alg = StabilityHistogram.with_geosample(Universe(100), 10, 1, Fraction(1, 10**6))
    assert alg.threshold == 5
    alpha = Fraction(2, 3)
    assert alg.certified_delta() == 2 * alpha**5 / (1 + alpha) == Fraction(192, 1215)
    report = thm_5_06_parameters.check(False)
    assert not report.verdict
    assert any(f["M"] == "GeoSample" and not f["H1 2Pr[M(1,U)>b] <= delta"]
               for f in failures(report))
    assert failed(report)["H1 2Pr[M(1,U)>b] <= delta"] > 0


def test_fastsample_threshold_constant_fails_theorem_5_5_hypothesis(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, basic, "theorem_5_6_threshold", "Fraction(9, 2) / eps",
          "Fraction(2, 9) / eps")
    report = thm_5_06_parameters.check(False)
    assert not report.verdict
    assert failed(report)["H1 2Pr[M(1,U)>b] <= delta"] > 0
    # The command line's planner refuses these parameters (it checks the hypothesis too).
    assert any("exceeds delta" in f.get("error", "") for f in failures(report))


@pytest.mark.parametrize(("old", "new", "hypothesis"), [
    ("dl / 4)", "dl / 2)", "H1 2Pr[M(1,U)>b] <= delta"),
    ('b / (2 * positive_int(n, "n"))', 'b / positive_int(n, "n")',
     "H2 gamma <= delta/4, 2n gamma <= beta0, Lemma 3.2 (1)"),
])
def test_theorem_5_6_gamma_slips_fail(monkeypatch: pytest.MonkeyPatch, old: str, new: str,
                                      hypothesis: str) -> None:
    plant(monkeypatch, basic, "theorem_5_6_gamma", old, new)
    report = thm_5_06_parameters.check(False)
    assert not report.verdict
    assert failed(report)[hypothesis] > 0


# --------------------------------------------------------------------------- Theorem 6.11

def test_sparse_histogram_s_too_small_fails_theorem_6_8(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, sparse.SparseHistogram, "__init__", "(n * n + 2 * n) * self.universe",
          "(n * n + n) * self.universe")
    report = thm_6_11_parameters.check(False)
    assert not report.verdict
    assert failed(report)["6.8 i: |X|(n^2+2n)/s <= delta, s >= |X|"] > 0


@pytest.mark.parametrize(("old", "new"), [
    ("eps / 3 * b1", "eps * b1"),
    ("Fraction(1, 3 * size)", "Fraction(1, size)"),
])
def test_pure_sparse_delta_slips_fail_lemma_3_2(monkeypatch: pytest.MonkeyPatch, old: str,
                                                new: str) -> None:
    plant(monkeypatch, sparse, "pure_sparse_delta", old, new)
    report = thm_6_11_parameters.check(False)
    assert not report.verdict
    assert failed(report)["Lemma 3.2 (1)"] > 0


def test_theorem_6_11_fastsample_gamma_slip_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, sparse.PureSparseHistogram, "theorem_6_11",
          "b0 / (8 * universe.size)", "b0 / (2 * universe.size)")
    report = thm_6_11_parameters.check(False)
    assert not report.verdict
    assert failed(report)["gamma (FastSample)"] > 0


# --------------------------------------------------------------------------- Lemma 3.2

@pytest.mark.parametrize("new", ["factor = 2 * g / (1 - g) * p", "factor = g * p"])
def test_lemma_3_2_factor_slips_fail(monkeypatch: pytest.MonkeyPatch, new: str) -> None:
    plant(monkeypatch, mixing, "lemma_3_2_condition", "factor = g / (1 - g) * p", new)
    assert not lemma_3_02_parameters.check(False).verdict


# --------------------------------------------------------------------------- Theorem 8.6

def test_theorem_8_6_field_constant_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, compact, "theorem_8_6_level", "30 * d * m", "3 * d * m")
    report = thm_8_06_parameters.check_wide(False)
    assert not report.verdict
    assert any(f["eps' + 3d/d0"] > Fraction(1, f["m"]) for f in failures(report))


def test_plant_refuses_a_line_that_is_not_there(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(AssertionError, match="exactly once"):
        plant(monkeypatch, counting, "geosample_k", "no such text", "")


def test_lemma_3_2_refutation_must_be_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuting at ``delta >= rhs_upper`` (same verdict, a certificate that breaks its own
    rule ``delta > rhs_upper`` when delta equals the first upper bound) fails the row."""
    plant(monkeypatch, mixing, "lemma_3_2_condition", "if d > upper:", "if d >= upper:")
    assert not lemma_3_02_parameters.check(False).verdict
