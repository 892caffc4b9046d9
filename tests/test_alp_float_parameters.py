"""Planted failures for the ALP row on float readings of c and p (it passes as shipped, turns
False when the implementation's own coins are off by a hair, and when the float reading is
replaced by the exact value: the slip absent), and for the non-trivial-point counts of the
Equation 1 and reconstructed-tail accuracy rows."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.proofs.alp import alp_slip_p6ac_float_parameters as p6ac
from exactdp.proofs.li_li._ieee import double
from exactdp.sparse_vectors import alp, rr
from tests._plant import plant


def test_row_passes_and_the_float_values_are_the_binary64_ones() -> None:
    report = p6ac.check(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]
    # fl(0.1) = 3602879701896397 / 2^55, above 1/10
    assert double(Fraction(1, 10)) == Fraction(3602879701896397, 2 ** 55) > Fraction(1, 10)
    # fl(4/5) = 3602879701896397 / 2^52; k/2^53 >= it for 2^53 - 7205759403792794 values of k
    assert double(Fraction(4, 5)) == Fraction(3602879701896397, 2 ** 52)
    assert p6ac.float_flip(Fraction(1, 5)) == Fraction(2 ** 53 - 7205759403792794, 2 ** 53)


def test_flip_probability_a_hair_low_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, rr, "respond_cells", "randomized_response(c - _ZERO, flip, source)",
          "randomized_response(c - _ZERO, flip * (1 - Fraction(1, 2 ** 60)), source)")
    report = p6ac.check(False)
    assert not any(c.verdict for c in report.certificates)


def test_rounding_coin_a_hair_high_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = alp.rand_round

    def up(num: int, den: int, source: object) -> int:
        return orig(num * 2, den * 2 - 1, source)  # type: ignore[arg-type]

    monkeypatch.setattr(alp, "rand_round", up)
    assert not p6ac.case_certificate(p6ac.cases()[0]).verdict


def test_exact_flip_in_place_of_the_float_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(p6ac, "float_flip", lambda p: p)
    assert not p6ac.case_certificate(p6ac.cases()[1]).verdict


# -------------------------------------------- accuracy rows count their non-trivial points

def test_eq_1_row_counts_non_trivial_points(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.alp import alp_eq_1_expected_error as e1

    report = e1.check(False)
    assert report.verdict
    counted = report.certificates[len(e1.PS)]
    # the bound is below max(y, m - y) (the largest possible |y~ - y|) at 17 points for
    # p = 1/10 (9/8: every (m, y) with max(y, m - y) >= 2) and 6 for p = 1/5 (32/9: >= 4),
    # none for p = 1/3 (16) and 2/5 (48); quick grid y <= m <= 5
    assert counted.worst == 17 + 6
    # only the vacuous p's left: the row must fail on its count
    monkeypatch.setattr(e1, "PS", (Fraction(1, 3), Fraction(2, 5)))
    assert not e1.check(False).verdict


def test_tail_row_fails_when_every_bound_is_vacuous(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.alp import alp_lemma_4_15_tail as tail
    from exactdp.sparse_vectors import exact as ex

    assert tail.check(False).verdict
    orig = ex.tail_bound
    monkeypatch.setattr(ex, "tail_bound", lambda p, t: max(Fraction(1), orig(p, t)))
    assert not tail.check(False).verdict


# ------------------------------------------------ expected maximum error, explicit form

def test_max_error_row_passes_and_matches_a_hand_value() -> None:
    from exactdp.proofs.alp import alp_max_error_explicit as mx

    assert mx.check(False).verdict
    # p = 1/20: 4pq = 19/100, 2/(q - p) = 20/9; d = 16: 16 (20/9) (19/100)^k <= 1 first at
    # k = 3 (0.2438...; k = 2 gives 1.28), so the bound is 6 + (38/100)/(81/100) = 6 + 38/81
    assert mx.k_d(Fraction(1, 20), 16) == 3
    assert mx.bound(Fraction(1, 20), 16) == 6 + Fraction(38, 81)
    # E max of d copies of a two-point |e| in {0, 1}, Pr[1] = 1/2: 1 - 2^-d
    assert mx.expected_max({Fraction(0): Fraction(1, 2), Fraction(-1): Fraction(1, 2)}, 3) \
        == Fraction(7, 8)


def test_max_error_row_sees_swapped_flips(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.alp import alp_max_error_explicit as mx
    from exactdp.proofs.alp._alp import estimate_law

    plant(monkeypatch, rr, "respond_cells", "randomized_response(c - _ZERO, flip, source)",
          "randomized_response(c - _ZERO, 1 - flip, source)")
    estimate_law.cache_clear()            # laws explored before the plant must not be reused
    try:
        assert not mx.check(False).verdict
    finally:
        estimate_law.cache_clear()


def test_max_error_row_fails_when_every_bound_is_vacuous(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.alp import alp_max_error_explicit as mx

    monkeypatch.setattr(mx, "bound", lambda p, d: Fraction(mx.M))  # >= every m
    assert not mx.check(False).verdict
