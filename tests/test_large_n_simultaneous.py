"""Theorem 6.11 (iii) at large n: Figure 5's simultaneous bound checked where it is below n;
the row passes on the implementation and fails on each planted bug."""

from __future__ import annotations

from fractions import Fraction

import pytest
from _plant import plant

from exactdp.checker import counting_distribution
from exactdp.counting import GeoSample
from exactdp.histograms import sparse
from exactdp.histograms.sparse import PureSparseHistogram
from exactdp.proofs.balcer_vadhan import thm_6_11_large_n as large


def _failed(report: object) -> list[str]:
    return [c.claim for c in report.certificates if not c.verdict]  # type: ignore[attr-defined]


def test_simultaneous_row_bites() -> None:
    report = large.check_simultaneous(False)
    assert report.verdict
    points = [c for c in report.certificates if "a_sim" in c.parameters]
    assert len(points) == 2
    assert all(c.parameters["a_sim"] < c.parameters["n"] for c in points)


def test_lower_bound_by_hand() -> None:
    """GeoSample(1, 1), |X| = 2, a = 0: x must read 1 (Pr[M(1, U) = 1]) and the other bin 0
    (Pr[M(0, U) = 0]); the lower bound is their product, computed here from the laws."""
    mech = GeoSample(1, 1)
    m_1, m_0 = counting_distribution(mech, 1), counting_distribution(mech, 0)
    expected = Fraction(m_1.get(1, 0)) * Fraction(m_0.get(0, 0))
    assert expected > 0
    assert large.simultaneous_lower(m_1, m_0, 1, 2, 0) == expected
    # a zero bin reading above a, or x reading a or below, leaves the event
    assert large.simultaneous_lower(m_1, m_0, 1, 2, 1) == 0


def test_mixing_weight_bug_fails_the_simultaneous_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """beta1 = beta0 instead of beta0/4: Figure 5's simultaneous bound fails at large n."""
    plant(monkeypatch, PureSparseHistogram, "theorem_6_11",
          "return cls(mech, universe, eps, b0 / 4,", "return cls(mech, universe, eps, b0,")
    failed = _failed(large.check_simultaneous(False))
    assert failed and all(c == large.CLAIM_SIM for c in failed)


def test_undercounting_keepheavy_fails_the_lower_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """KeepHeavy releasing one less than the noisy count: the explored maximum error exceeds
    what the lower bound L promises (the formula certificates fail)."""
    plant(monkeypatch, sparse, "keep_heaviest", "kept = sorted([(x, c) for",
          "kept = sorted([(x, max(c - 1, 1)) for")
    failed = _failed(large.check_simultaneous(False))
    assert failed and all(c.endswith("(formula)") for c in failed)


def test_vacuous_grid_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large, "_large", lambda full: [])
    failed = _failed(large.check_simultaneous(False))
    assert failed == [large.CLAIM_SIM + " (non-vacuous)"]
