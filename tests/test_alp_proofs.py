"""The ALP verify rows (proofs/alp_*.py): they pass on the implementation, and each FAILS when
a bug is planted into the implementation (tests/_plant.py edits one expression of its source)
or when the row is pointed at a configuration the claim does not cover (C9)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from exactdp.certificate import ClaimReport
from exactdp.proofs.alp import (
    _alp,
    alp_eq_1_expected_error,
    alp_lemma_4_01_group_privacy,
    alp_lemma_4_12_privacy,
    alp_lemma_4_15_tail,
    alp_sampler_exactness,
    alp_strict_time,
    alp_tight_error,
    alp_tight_variant,
)
from exactdp.sparse_vectors import alp, alp_params, estimator, rr
from exactdp.sparse_vectors.alp_params import ALPParams
from tests._plant import plant

ROWS: list[Callable[[bool], ClaimReport]] = [
    alp_lemma_4_12_privacy.check, alp_tight_variant.check, alp_sampler_exactness.check,
    alp_eq_1_expected_error.check, alp_eq_1_expected_error.check_e1,
    alp_lemma_4_15_tail.check, alp_strict_time.check, alp_tight_error.check,
    *alp_lemma_4_01_group_privacy.CHECKS,
]


@pytest.fixture(autouse=True)
def _fresh_estimate_cache() -> None:
    _alp.estimate_law.cache_clear()


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.__module__}.{r.__name__}")
def test_rows_pass(row: Callable[[bool], ClaimReport]) -> None:
    report = row(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]


def test_lemma_4_12_reproduces_the_notes_table() -> None:
    report = alp_lemma_4_12_privacy.check(False)
    worst = {c.mechanism.split(":")[0]: c.worst for c in report.certificates}
    # notes §3.8: C1 -> 2, C2 -> 2, C3 -> 9/4, C4 -> 9/4; C8 -> 3, C9 -> (3718/2000)^2
    assert worst["C1"] == 2 and worst["C2"] == 2
    assert worst["C3"] == Fraction(9, 4) and worst["C4"] == Fraction(9, 4)
    assert worst["C8 (p = 1/4 in C1)"] == 3
    assert worst["C9 (histogram-tight p on grid 1/2)"] == Fraction(3718, 2000) ** 2


# --------------------------------------------------------------------------- planted bugs

def test_c8_p_one_quarter_fails_lemma_4_12(monkeypatch: pytest.MonkeyPatch) -> None:
    # p = 1/(alpha + 3): at alpha = eps = 1 that is C8's p = 1/4, worst ratio 3 > e
    plant(monkeypatch, ALPParams, "from_paper", "1 / (a + 2)", "1 / (a + 3)")
    assert ALPParams.from_paper(1, 1, 3, 3, 1, 4).flip == Fraction(1, 4)
    report = alp_lemma_4_12_privacy.check(False)
    assert not report.verdict
    c1 = next(c for c in report.certificates if c.mechanism.startswith("C1:"))
    assert c1.worst == 3 and not c1.verdict


def test_c9_tight_p_on_grid_half_fails_the_tight_row(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bug: the histogram-tight p_T used on grid-1/2 inputs (k = 2), which ALPParams refuses
    big_l = Fraction(2718, 1000)
    c9 = _alp.Config("C9", lambda: ALPParams(Fraction(1), 1 / (big_l + 1), 2, 5, 2, 3, grid=2),
                     5, 2, big_l, Fraction(1))
    monkeypatch.setattr(alp_tight_variant, "configs", lambda full: [(c9, big_l)])
    report = alp_tight_variant.check(False)
    assert not report.verdict and report.certificates[0].worst == Fraction(3718, 2000) ** 2


def test_tight_bound_rounded_up_fails_the_tight_row(monkeypatch: pytest.MonkeyPatch) -> None:
    # rounding p the wrong way: L taken from the UPPER end of the interval around e^eps
    plant(monkeypatch, alp_params, "tight_bound", ".lo", ".hi")
    report = alp_tight_variant.check(False)
    assert not report.verdict
    bad = [c for c in report.certificates if not c.verdict]
    assert bad and all("tight_bound" in c.mechanism for c in bad)


def test_paper_p_rounded_down_fails_lemma_4_12(monkeypatch: pytest.MonkeyPatch) -> None:
    # p rounded down (to a multiple of 1/100): C1's ratio is no longer the notes' exact 2
    plant(monkeypatch, ALPParams, "from_paper", "1 / (a + 2)",
          "Fraction((100 // (a + 2)).__floor__(), 100)")
    assert not alp_lemma_4_12_privacy.check(False).verdict


def test_p_too_small_fails_group_privacy(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, ALPParams, "from_paper", "1 / (a + 2)", "1 / (a + 3)")
    assert not alp_lemma_4_01_group_privacy.check_group(False).verdict


def test_wraparound_instead_of_clamp_fails_truncation(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, alp, "_scaled", "min(rand_round(value * cn, den, source), m)",
          "rand_round(value * cn, den, source) % (m + 1)")
    assert not alp_lemma_4_01_group_privacy.check_truncation(False).verdict


def test_first_argmax_estimator_fails_eq1_and_e1(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, estimator, "_argmax", "elif f == best:", "elif False:")
    assert not alp_eq_1_expected_error.check(False).verdict
    assert not alp_eq_1_expected_error.check_e1(False).verdict


def test_flip_probability_swapped_fails_tail_and_exactness(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, rr, "respond_cells", "randomized_response(c - _ZERO, flip, source)",
          "randomized_response(c - _ZERO, 1 - flip, source)")
    assert not alp_lemma_4_15_tail.check(False).verdict
    assert not alp_sampler_exactness.check(False).verdict


def test_dummies_without_coins_fail_strict_time(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, alp, "_scaled", "for key, value in pairs)", "for key, value in pairs "
          "if key)")
    assert not alp_strict_time.check(False).verdict


def test_tight_error_row_fails_when_p_t_spends_only_one_plus_eps() -> None:
    """L = 1 + eps instead of a bound near e^eps: p_T = c/(eps + 2c) = 1/(alpha + 2) is then the
    paper's p, the two MAEs are equal and the strict inequality must fail everywhere."""
    from unittest import mock

    with mock.patch.object(alp_tight_error, "tight_bound", lambda eps: 1 + Fraction(eps)):
        report = alp_tight_error.check(False)
    assert not report.verdict
    failed = [c for c in report.certificates if not c.verdict]
    assert len(failed) == len(report.certificates) == 2
    assert all(c.witness["mae_paper"] == c.witness["mae_tight"] for c in failed)
