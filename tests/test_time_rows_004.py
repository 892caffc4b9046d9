"""The operation-count rows (Proposition 6.15 iv, Lemma A.1's time, Lemma 8.4 iv) pass on the
implementation and fail on planted bugs that add work growing with the wrong parameter."""

from __future__ import annotations

import pytest
from _plant import plant

from exactdp.histograms import distinct, orderstats
from exactdp.histograms.empty_bin import EmptyBinSampler
from exactdp.proofs.balcer_vadhan import lemma_8_04_iv_time as m0_time
from exactdp.proofs.balcer_vadhan import lemma_a_01_time as a1_time
from exactdp.proofs.balcer_vadhan import prop_6_15_iv_time as ace_time


@pytest.mark.parametrize("row", [m0_time, a1_time, ace_time],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_time_rows_pass(row: object) -> None:
    report = row.check(False)  # type: ignore[attr-defined]
    assert report.verdict and report.certificates


def test_extra_ace_round_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, orderstats, "approx_conv_exp",
          "for k in range(i.bit_length() - 2, -1, -1)]",
          "for k in range(i.bit_length() - 1, -1, -1)]")
    assert not ace_time.check(False).verdict


def test_search_over_x_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The paper's binary search over X (rounds growing with log|X|) instead of over T."""
    plant(monkeypatch, distinct.OrderStatisticSet, "free",
          "for _ in range(search_rounds(size)):",
          "for _ in range(search_rounds(size) + self.universe_size.bit_length()):")
    assert not a1_time.check(False).verdict


def test_second_search_in_m0_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, EmptyBinSampler, "search", "return self.mechanism(0, self.f(u0))",
          "return max(self.mechanism(0, self.f(u0)), self.mechanism(0, 1))")
    assert not m0_time.check(False).verdict


def test_theorem_8_6_i_at_real_d0(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passes as built; with eps' = min(1, 4 eps) (M twice as leaky) the exact premises at the
    real d0 exceed e^eps."""
    from fractions import Fraction

    from exactdp.histograms import compact_release
    from exactdp.proofs.balcer_vadhan import thm_8_06_i_real_d0 as real_d0
    assert real_d0.check(False).verdict
    monkeypatch.setattr(compact_release, "theorem_8_6_epsilon_prime",
                        lambda epsilon: min(Fraction(1), 4 * Fraction(epsilon)))
    assert not real_d0.check(False).verdict


def test_theorem_8_6_i_sees_a_skewed_m0(monkeypatch: pytest.MonkeyPatch) -> None:
    """M0 reading M at a shifted u (f(u0) + 1, capped): P0 no longer close to M(0, U)."""
    from exactdp.proofs.balcer_vadhan import thm_8_06_i_real_d0 as real_d0
    original = EmptyBinSampler.f

    def skewed(self: EmptyBinSampler, u0: int) -> int:
        d = self.mechanism.d
        return min(original(self, u0) + d // 3, d)

    monkeypatch.setattr(EmptyBinSampler, "f", skewed)
    assert not real_d0.check(False).verdict


def test_counting_time_growth_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.counting import GeoSample
    from exactdp.proofs.balcer_vadhan import thm_4_10_time_growth as growth
    assert growth.check(False).verdict
    original = GeoSample.sample

    def twice(self: GeoSample, c: int, source: object = None) -> int:
        original(self, c, source)  # type: ignore[arg-type]
        return original(self, c, source)  # type: ignore[arg-type]

    monkeypatch.setattr(GeoSample, "sample", twice)
    assert not growth.check(False).verdict


def test_counting_time_growth_sees_a_bloated_d(monkeypatch: pytest.MonkeyPatch) -> None:
    """FastSample's tail t grown by (bits of n)^2: d's bits outgrow (1/eps) log(n/gamma)."""
    from exactdp.counting import FastSample
    from exactdp.proofs.balcer_vadhan import thm_4_10_time_growth as growth
    original = FastSample.__init__

    def bloated(self: FastSample, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        self.t += self.n.bit_length() ** 2

    monkeypatch.setattr(FastSample, "__init__", bloated)
    report = growth.check(False)
    assert not report.verdict
    assert any("FastSample" in c.mechanism for c in report.certificates if not c.verdict)


def test_compact_time_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passes as built; an evaluation that calls M0 twice (one search per count is the
    bound's Time(M0)) fails it."""
    from exactdp.histograms.compact import CompactRelease
    from exactdp.proofs.balcer_vadhan import thm_8_06_iv_v_time as compact_time
    assert compact_time.check(False).verdict
    original = CompactRelease.evaluate

    def twice(self: CompactRelease, x: int) -> int:
        original(self, x)
        return original(self, x)

    monkeypatch.setattr(CompactRelease, "evaluate", twice)
    assert not compact_time.check(False).verdict


def test_basic_time_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passes as built; a release that redraws every noisy count (twice the draws) fails."""
    from exactdp.histograms.basic import BasicHistogram
    from exactdp.proofs.balcer_vadhan import thm_5_03_iv_time as basic_time
    assert basic_time.check(False).verdict
    original = BasicHistogram.release

    def twice(self: BasicHistogram, dataset: object, source: object = None,
              *args: object) -> object:
        original(self, dataset, source, *args)  # type: ignore[arg-type]
        return original(self, dataset, source, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(BasicHistogram, "release", twice)
    assert not basic_time.check(False).verdict
