"""The discrete Gaussian's verify rows pass, and fail on planted bugs."""

from __future__ import annotations

import pytest

from exactdp import discrete_gaussian as dgm
from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.proofs.discrete_gaussian import dgauss_law, dgauss_privacy, dgauss_strict_time
from tests._plant import plant


def test_rows_pass() -> None:
    for row in (dgauss_law, dgauss_strict_time):
        report = row.check(False)
        assert report.verdict, report.worst
        assert len(report.certificates) >= 3


def test_law_row_fails_when_a_table_weight_is_off_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, dgm, "_half_weights", "out.append(w)", "out.append(w + (x == 2))")
    report = dgauss_law.check(False)
    assert not report.verdict
    assert any("first_difference" in c.witness for c in report.certificates)


def test_law_row_fails_when_the_search_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    # a search that returns min{z : F(z) > u} instead of >= u: the top output loses mass
    plant(monkeypatch, DiscreteGaussian, "search",
          "inverse_cdf_search(table.__getitem__, len(table) - 1, u)",
          "min(inverse_cdf_search(table.__getitem__, len(table) - 1, u + 1), len(table) - 1)"
          " if u < table[-1] else len(table) - 1")
    assert not dgauss_law.check(False).verdict


def test_law_row_fails_when_the_centre_leaks_into_the_noise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, DiscreteGaussian, "add", "return c + self.sample(source)",
          "return c + self.sample(source) + (c < 0)")
    assert not dgauss_law.check(False).verdict


def test_strict_time_row_fails_on_a_centre_dependent_operation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, DiscreteGaussian, "add", "return c + self.sample(source)",
          "return c + self.sample(source) + (0 * self.cdf(0) if c > 10**6 else 0)")
    report = dgauss_strict_time.check(False)
    assert not report.verdict
    assert not report.certificates[0].verdict


def test_strict_time_row_fails_on_an_early_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DiscreteGaussian, "search", dgauss_strict_time.EarlyExit.search)
    report = dgauss_strict_time.check(False)
    assert not report.certificates[0].verdict


def test_privacy_row_passes() -> None:
    report = dgauss_privacy.check(False)
    assert report.verdict, report.worst
    assert any(c.worst for c in report.certificates)  # non-vacuous: delta(3/2) > 0


def test_privacy_row_fails_when_the_law_drops_an_outcome(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, DiscreteGaussian, "law", "range(-t, t + 1)", "range(-t, t)")
    report = dgauss_privacy.check(False)
    assert not report.verdict
    assert not any(c.verdict for c in report.certificates if "(sampled)" in c.claim)


def test_privacy_row_fails_on_a_shifted_threshold_in_ideal_delta(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, dgm, "ideal_delta", "(half, floor(a) + 1,", "(half, floor(a),")
    report = dgauss_privacy.check(False)
    assert not report.verdict
    assert not all(c.verdict for c in report.certificates if "(ideal)" in c.claim)


def test_privacy_row_fails_when_ideal_delta_uses_the_wrong_end_of_e_eps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, dgm, "ideal_delta", "hi_num = p1[1] - e.lo * p2[0]",
          "hi_num = p1[1] - e.lo * p2[1] * 2")
    assert not dgauss_privacy.check(False).verdict
