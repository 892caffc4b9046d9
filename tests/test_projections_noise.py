"""Exact noise tables (exactdp/noise_tables.py) and the noisy projections of paper 001
(DP-RP, DP-OPORP, raw data; Algorithms 2, 3, 5, Thm 3.8; notes LILI.md §3.0, P10)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.explore import explore
from exactdp.noise import ClampedGeometric
from exactdp.noise_tables import (
    NoiseTable,
    calibrate_gaussian_table,
    delta_1d,
    discrete_gaussian_table,
    discrete_laplace_folded,
    max_ratio_1d,
)
from exactdp.params import ParameterError, ParameterTypeError, ResourceLimitError
from exactdp.projections import DPOPORP, DPRP, OPORPPlan, RawData
from tests._sources import RecordingSource


@given(st.fractions(Fraction(1, 20), Fraction(19, 20)), st.integers(2, 12))
def test_folded_laplace_pmf_is_the_folded_geometric(r: Fraction, m: int) -> None:
    table = discrete_laplace_folded(r, m)
    # fold the two-sided geometric r^|z| by hand (terms |z| < 40 m; the tail is below r^(40m)
    # relative, and the identity is exact after normalising: r^z + r^(M-z) over 1 - r^M)
    raw = [r**z + r ** (m - z) for z in range(m)]
    total = sum(raw)
    assert [table.pmf(z) for z in range(m)] == [v / total for v in raw]
    assert explore(table.sample) == {z: v / total for z, v in enumerate(raw)}


def test_folded_laplace_ratios_of_the_notes() -> None:
    """Notes §3.1 (DP-RP-L row): r = 1/2, M = 10: shift 1 -> 1025/514 < 2, 2 -> 205/52 < 4."""
    table = discrete_laplace_folded(Fraction(1, 2), 10)
    assert max_ratio_1d(table, 1) == Fraction(1025, 514)
    assert max_ratio_1d(table, 2) == Fraction(205, 52)


def test_gaussian_table_pmf_and_delta_by_hand() -> None:
    table = discrete_gaussian_table(Fraction(1, 2), 2)
    weights = [Fraction(1, 2) ** (z * z) for z in range(-2, 3)]
    total = sum(weights)
    assert table.law() == {z: w / total for z, w in zip(range(-2, 3), weights)}
    assert explore(table.sample) == table.law()
    # delta at shift 1, base 2: sum over y of max(0, P(y) - 2 P(y - 1)), y in -2..3
    p = {z: w / total for z, w in zip(range(-2, 3), weights)}
    by_hand = sum(max(Fraction(0), p.get(y, 0) - 2 * p.get(y - 1, 0)) for y in range(-2, 4))
    assert delta_1d(table, 1, 2) == by_hand > 0
    assert max_ratio_1d(table, 1) is None  # finite support: no pure DP


def test_one_uniform_per_draw() -> None:
    table = discrete_gaussian_table(Fraction(2, 3), 3)
    src = RecordingSource()
    for _ in range(4):
        table.add(5, src)
    assert src.sizes == [table.total] * 4


def test_dp_rp_dp_oporp_raw_data_laws() -> None:
    table = discrete_laplace_folded(Fraction(1, 3), 5)
    W = ((1, -1), (1, 1))
    mech = DPRP(W, 1, table)
    law = explore(lambda s: mech.sample((2, 1), s))
    x = (3, -1)
    assert law == {(a, b): table.pmf(a - x[0]) * table.pmf(b - x[1])
                   for a in range(5) for b in range(5)}
    assert mech.l1_sensitivity == 2 and mech.l2_sensitivity_sq == 2
    plan = OPORPPlan((1, 0), (1, -1), 1)
    geo = ClampedGeometric(Fraction(1, 2), -3, 3)
    law = explore(lambda s: DPOPORP(plan, 1, geo).sample((1, 2), s))
    assert law == {(v,): geo.pmf(1, v) for v in range(-3, 4)}  # x = u[1] - u[0] = 1
    law = explore(lambda s: RawData(1, 1, table).sample((4,), s))
    assert law == {((4 + z) % 5,): table.pmf(z) for z in range(5)}


@pytest.mark.parametrize("call, error", [
    (lambda: NoiseTable(()), ParameterError),
    (lambda: NoiseTable((0, 0)), ParameterError),
    (lambda: NoiseTable((1, -1)), ParameterTypeError),
    (lambda: NoiseTable((1, 2), 0, 3), ParameterError),
    (lambda: discrete_laplace_folded(Fraction(3, 2), 4), ParameterError),
    (lambda: discrete_laplace_folded(0.5, 4), ParameterTypeError),
    (lambda: discrete_gaussian_table(Fraction(1, 2), 10**5), ResourceLimitError),
    (lambda: delta_1d(discrete_gaussian_table(Fraction(1, 2), 1), 1, Fraction(1, 2)),
     ParameterError),
    (lambda: DPRP(((1,),), 1, Fraction(1, 2)), ParameterTypeError),
])
def test_clear_errors(call: object, error: type) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]


def test_gaussian_calibration_meets_its_target_and_is_least_on_its_grid() -> None:
    base, target = Fraction(27, 10), Fraction(1, 10**4)  # 27/10 < e
    table = calibrate_gaussian_table(base, target, 1, 20, bits=8)
    assert delta_1d(table, 1, base) <= target
    q = Fraction(table.weights[21], table.weights[20])  # weight(1)/weight(0) = q
    assert q.denominator <= 256
    less = discrete_gaussian_table(q - Fraction(1, 256), 20)
    assert delta_1d(less, 1, base) > target
    with pytest.raises(ParameterError):
        calibrate_gaussian_table(base, target, 1, 3, bits=6)
