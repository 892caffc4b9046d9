"""The slip row on the [BV18] order-statistic sampler (remark before Proposition 6.6) fails
when the sampler it refutes is replaced by a correct one: a row that 'exhibits a difference'
must not pass when there is none."""

from __future__ import annotations

import pytest

from exactdp.proofs.balcer_vadhan import _orderstats
from exactdp.proofs.balcer_vadhan import prop_6_06_remark_bv18 as row


def test_the_row_passes_on_the_slip() -> None:
    assert row.check(full=False).verdict


def test_the_row_fails_when_the_sampler_is_correct(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(row, "bv18_order_statistics_sampler",
                        _orderstats.naive_top_order_statistics)
    report = row.check(full=False)
    assert not report.verdict
    assert "differs on 0/" in report.worst
