"""The plain-int fast paths of exactdp.histograms.orderstats (_int, _check_vector,
cdf_values, order_statistics_from_counts): same values and typed errors as the general
path, and the existing bad-input tests catch a planted bug in each fast check."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

import exactdp.histograms.orderstats as os_mod
from exactdp.histograms.orderstats import (
    approx_conv_exp,
    cdf_values,
    order_statistics_from_counts,
)


class _Int(int):
    """An int subclass: accepted, converted to a plain int."""


def test_int_subclasses_converted() -> None:
    out = approx_conv_exp([_Int(2), _Int(1)], _Int(1), _Int(3))
    assert out == [2, 1] and all(type(x) is int for x in out)
    values = cdf_values(lambda z: _Int(z + 1), 2, 3)
    assert values == [1, 2, 3] and all(type(x) is int for x in values)
    assert os_mod._int(_Int(4), "x", 1) == 4 and type(os_mod._int(_Int(4), "x", 1)) is int


def test_order_statistics_from_counts() -> None:
    assert order_statistics_from_counts([1, 0, 2, 1]) == (3, 2, 2, 0)
    assert order_statistics_from_counts([0, 0]) == ()
    assert order_statistics_from_counts([3]) == (0, 0, 0)


@pytest.mark.parametrize(("name", "old", "new"), [
    ("_int", "value >= low:  #", "value >= low - 1:  #"),
    ("_check_vector", "if not 0 <= x <= s:", "if not 0 <= x <= s + 1:"),
])
def test_planted_fast_path_bugs_caught(monkeypatch: pytest.MonkeyPatch, name: str, old: str,
                                       new: str) -> None:
    from _plant import plant
    from test_orderstats import test_approx_conv_exp_bad_input

    test_approx_conv_exp_bad_input()  # passes as written
    plant(monkeypatch, os_mod, name, old, new)
    with pytest.raises(pytest.fail.Exception):
        test_approx_conv_exp_bad_input()


def _pmf_reference(m: int, p: Fraction, t: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for j in range(m + 1):
        mass = comb(m, j) * p**j * (1 - p) ** (m - j)
        if mass:
            out[min(j, t)] = out.get(min(j, t), Fraction(0)) + mass
    return out


def _check_pmf() -> None:
    from exactdp.proofs.balcer_vadhan._orderstats import binomial_min_pmf

    for m in range(7):
        for p in (Fraction(0), Fraction(1), Fraction(1, 3), Fraction(2, 5), Fraction(4, 6)):
            for t in range(m + 3):
                got = binomial_min_pmf(m, p, t)
                assert got == _pmf_reference(m, p, t)
                assert list(got) == list(_pmf_reference(m, p, t))


def test_binomial_min_pmf_over_a_common_denominator(monkeypatch: pytest.MonkeyPatch) -> None:
    from _plant import plant

    import exactdp.proofs.balcer_vadhan._orderstats as ref

    _check_pmf()
    plant(monkeypatch, ref, "binomial_min_pmf", "tops.get(k, 0) + top", "top")
    with pytest.raises(AssertionError):
        _check_pmf()
