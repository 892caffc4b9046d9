"""Planted failures for the ALP row on float readings of c and p: it passes as shipped, turns
False when the implementation's own coins are off by a hair, and when the float reading is
replaced by the exact value (the slip absent)."""

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
