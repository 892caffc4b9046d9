"""The ALP rows on the implementation's own hashing (Lemmas 4.14, 4.15 and its gamma slip):
the law they read equals a plain exploration of ALP.project, they pass, and each FAILS on a
planted bug (tests/_plant.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.explore import explore
from exactdp.hashing import CarterWegman
from exactdp.proofs.alp import alp_eq_1_expected_error as e1
from exactdp.proofs.alp import alp_lemma_4_14_hashing as h14
from exactdp.proofs.alp import alp_lemma_4_15_slip_gamma as slip
from exactdp.proofs.alp import alp_lemma_5_05_threshold_estimator as h55
from exactdp.proofs.alp import alp_sec_4_03_unscaled as unscaled
from exactdp.proofs.alp import alp_slip_p6e_shared_coins as slip_p6e
from exactdp.proofs.alp import alp_slip_p7_data_seeds as slip_p7
from exactdp.proofs.alp import alp_thm_1_01_slip_approx_space as slip_p4
from exactdp.proofs.alp import alp_thm_4_01_space_access as space
from exactdp.proofs.alp import alp_thm_4_02_slip_support_changes as slip_p10
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors import alp, approx, combined, estimator, rr, threshold
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_error import column_one_probability, estimate_law
from exactdp.sparse_vectors.alp_params import ALPParams
from tests._plant import plant


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    h14.laws.cache_clear()
    h14._alp.cache_clear()
    h55._threshold_alp.cache_clear()


@pytest.mark.parametrize("prm, family, x, key", [
    (ALPParams(Fraction(1, 2), Fraction(1, 5), 2, 2, 2, 2), CarterWegman(3, 2, 2),
     {1: 3, 2: 2}, 1),
    (ALPParams(Fraction(1), Fraction(1, 3), 2, 2, 2, 3), CarterWegman(5, 2, 3),
     {3: 2, 1: 1}, 2),
    (ALPParams(Fraction(1), Fraction(1, 3), 2, 2, 2, 3), CarterWegman(5, 2, 3),
     {2: 1, 1: 2}, 1),
])
def test_estimate_law_is_the_explored_implementation(prm: ALPParams, family: CarterWegman,
                                                     x: dict[int, int], key: int) -> None:
    sketcher = ALP(prm, family)
    law = estimate_law(sketcher, x, key)
    marginal: dict[Fraction, Fraction] = {}
    for (_, est), w in law.items():
        marginal[est] = marginal.get(est, Fraction(0)) + w

    def run(source: RandomSource) -> Fraction:
        return sketcher.project(x, source, rr="cells").estimate_units(key)

    assert marginal == explore(run)
    assert sum(law.values()) == 1


def test_column_probability_counts_collisions_by_hand() -> None:
    # P = 5, s = 2, keys 1 and 2: (a + b) mod 5 and (2a + b) mod 5 agree mod 2 for
    # 8 of the 20 seeds (counted by hand: a = 1..4, b = 0..4; u = a + b, v = u + a mod 5)
    sketcher = ALP(ALPParams(Fraction(1), Fraction(1, 3), 1, 2, 2, 3), CarterWegman(5, 2, 3))
    pairs = 0
    for a in range(1, 5):
        for b in range(5):
            pairs += ((a + b) % 5) % 2 == ((2 * a + b) % 5) % 2
    assert column_one_probability(sketcher, 1, frozenset({2})) == Fraction(pairs, 20)
    assert column_one_probability(sketcher, 1, frozenset({1})) == 1
    assert column_one_probability(sketcher, 1, frozenset()) == 0


@pytest.mark.parametrize("row", [h14.check, h14.check_tail, slip.check],
                         ids=["4.14", "4.15", "gamma"])
def test_rows_pass_and_bite(row) -> None:  # type: ignore[no-untyped-def]
    report = row(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]
    if row is not slip.check:
        bites = report.certificates[-1]
        assert "non-vacuous" in bites.claim and bites.worst > 0


def test_gamma_slip_row_needs_the_collisions(monkeypatch: pytest.MonkeyPatch) -> None:
    # colliding keys XOR-ed instead of OR-ed (notes P8): two colliding ones cancel, fewer
    # ones reach key 1's column, and the row must notice the changed collisions
    plant(monkeypatch, alp, "embed_cells", "cells[base + (a * key + b) % prime % s] |= bcol <= y",
          "cells[base + (a * key + b) % prime % s] ^= bcol <= y")
    report = slip.check(False)
    assert not report.verdict
    assert not report.certificates[0].verdict


def test_m_off_by_one_fails_the_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, ALPParams, "from_paper", "_ceil(b * eps / a)", "_ceil(b * eps / a) + 1")
    report = h14.check(False)
    assert not report.verdict
    assert any(c.witness.get("reads") and not c.verdict for c in report.certificates)


def test_last_argmax_estimator_fails_the_error_row(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, estimator, "unary_estimate", "positions = argmax_positions(bits)",
          "positions = argmax_positions(bits)[-1:]")
    report = h14.check(False)
    assert not report.verdict
    assert any(c.witness.get("law_matches_spec") == "NO" for c in report.certificates)


def test_rounding_without_alpha_fails_the_error_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # Algorithm 4's x^ = eps x rounded without the division by alpha (c's denominator lost):
    # y = RandRound(eps x), estimates alpha times too large, the error passes the bound
    plant(monkeypatch, alp, "_scaled", "params.scale.denominator * params.grid",
          "params.grid")
    report = h14.check(False)
    assert not report.verdict
    assert any(c.worst > 1 for c in report.certificates[:-1])


# ------------------------------------------------- Algorithm 8 and Lemma 5.5 (Threshold ALP)

@pytest.mark.parametrize("row", [h55.check, h55.check_error], ids=["alg8", "5.5"])
def test_threshold_estimator_rows_pass(row) -> None:  # type: ignore[no-untyped-def]
    report = row(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]


def test_lemma_5_5_bites() -> None:
    bites = h55.check_error(False).certificates[-1]
    assert "non-vacuous" in bites.claim and bites.worst > 0


def test_released_value_at_t_ignored_fails_algorithm_8(monkeypatch: pytest.MonkeyPatch) -> None:
    # Algorithm 8's test "v~_i != 0" written as "v~_i > t": a key released at exactly t is
    # answered from the sketch instead
    plant(monkeypatch, combined.ThresholdALPSketch, "estimate", "if v:",
          "if v > self.threshold.t:")
    assert not h55.check(False).verdict


def test_estimator_ignoring_the_threshold_fails_both(monkeypatch: pytest.MonkeyPatch) -> None:
    # the released v~ never consulted: heavy keys are truncated at m/c by the sketch
    plant(monkeypatch, combined.ThresholdALPSketch, "estimate", "if v:", "if False:")
    assert not h55.check(False).verdict
    report = h55.check_error(False)
    assert not report.verdict
    assert report.certificates[0].witness["algorithm_8_rule_wrong_at"]


def test_threshold_not_minimal_fails_the_access_part(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, threshold, "minimal_threshold", "return t", "return t + 1")
    h55._threshold_alp.cache_clear()
    report = h55.check_error(False)
    assert not report.verdict
    assert report.certificates[0].witness["t_minimal"] is False


# ------------------------------------------------------------- E1-exact on real hashing

def test_e1_row_passes_with_collisions_raising_the_error() -> None:
    report = e1.check_e1(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]
    small, large = report.certificates[0], report.certificates[1]
    assert small.parameters["s"] < large.parameters["s"] and small.worst > large.worst


def test_xor_collisions_fail_e1(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, alp, "embed_cells", "cells[base + (a * key + b) % prime % s] |= bcol <= y",
          "cells[base + (a * key + b) % prime % s] ^= bcol <= y")
    report = e1.check_e1(False)
    assert not report.verdict
    assert not any(c.witness["law_matches_spec"] for c in report.certificates)


# ------------------------------------------------------------------ the unscaled variant

def test_unscaled_row_passes_and_bites() -> None:
    report = unscaled.check(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]
    assert report.certificates[-1].worst > 0


def test_unscaled_p_too_small_fails_privacy(monkeypatch: pytest.MonkeyPatch) -> None:
    # p = 1/(eps + 3): (1 - 2p)/p = eps + 1, the ratio 2 + eps exceeds e^eps
    plant(monkeypatch, ALPParams, "unscaled", "1 / (eps + 2)", "1 / (eps + 3)")
    report = unscaled.check(False)
    assert not report.verdict
    assert not report.certificates[0].verdict and not report.certificates[1].verdict


# ------------------------------------------------------ Theorems 4.1/4.2: space and access

def test_space_access_row_passes() -> None:
    report = space.check(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]


def test_twice_the_columns_fails_the_space_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # Algorithm 7's m = ceil(t eps2/alpha) built with beta = 2t: twice the matrix
    plant(monkeypatch, combined.ThresholdALP, "from_paper",
          "ALPParams.from_paper(eps2, alpha, thr.t,", "ALPParams.from_paper(eps2, alpha, 2 * thr.t,")
    report = space.check(False)
    assert not report.verdict
    bad = [c for c in report.certificates if not c.verdict]
    assert bad and all("pure" in c.claim for c in bad)


def test_approx_threshold_not_minimal_fails_access(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, approx, "approx_threshold", "return t", "return t + 1")
    report = space.check(False)
    assert not report.verdict
    assert any(c.witness.get("t_minimal") is False for c in report.certificates)


def test_p4_slip_row_passes() -> None:
    report = slip_p4.check(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]


def test_p4_slip_row_fails_when_m_stops_growing(monkeypatch: pytest.MonkeyPatch) -> None:
    # a sketch whose columns were capped (beta = min(t_delta, 10)) would make Theorem 1.1's
    # delta-free space true -- and the slip row must then fail
    plant(monkeypatch, approx.ApproxThresholdALP, "from_paper",
          "ALPParams.from_paper(eps2, alpha, thr.t,", "ALPParams.from_paper(eps2, alpha, min(thr.t, 10),")
    assert not slip_p4.check(False).verdict


def test_p10_slip_row_passes_and_fails_on_a_shifted_threshold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    report = slip_p10.check(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]
    # a key released only strictly above t: survival is no longer q, the exact form breaks
    plant(monkeypatch, approx.KorolovaThreshold, "release", "noisy >= p.t", "noisy > p.t")
    assert not slip_p10.check(False).verdict


# ------------------------------------------------------------------ slips P6 (e) and P7

@pytest.mark.parametrize("row", [slip_p6e.check, slip_p7.check], ids=["p6e", "p7"])
def test_coin_and_seed_slip_rows_pass(row) -> None:  # type: ignore[no-untyped-def]
    report = row(False)
    assert report.verdict, [c.to_json() for c in report.certificates if not c.verdict]


def test_p6e_row_sees_the_implementations_coins(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, rr, "respond_cells", "randomized_response(c - _ZERO, flip, source)",
          "randomized_response(c - _ZERO, flip / 2, source)")
    report = slip_p6e.check(False)
    assert not report.verdict and not report.certificates[1].verdict


def test_p7_row_sees_seeds_that_depend_on_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    # a second key present: seeds fixed to the family's first seed instead of drawn
    plant(monkeypatch, alp.ALP, "project", "chosen = self.draw_hashes(src)",
          "chosen = (self.draw_hashes(src) if pairs[1][0] == 0 else "
          "(next(iter(self.hashes.seeds())),) * self.params.columns)")
    report = slip_p7.check(False)
    assert not report.verdict and not report.certificates[1].verdict


def test_claims_page_lists_the_parts_not_exercised() -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "exactdp" / "docs" / "_ext" / "exactdp_docs.py"
    spec = importlib.util.spec_from_file_location("_claims_docs", path)
    assert spec is not None and spec.loader is not None
    docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs)
    page = docs.ClaimsSummaryDirective.markdown(None)
    for module in (h55, space, slip_p6e):
        for part, why in module.NOT_EXERCISABLE.items():
            assert part in page and why in page


def test_beta_not_t_fails_the_theorem_4_2_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # Algorithm 7's undefined beta taken as 1 instead of t: the sketch truncates every key the
    # threshold drops at m/c = 2, far below t, and the per-entry error passes the bound
    plant(monkeypatch, approx.ApproxThresholdALP, "from_paper",
          "ALPParams.from_paper(eps2, alpha, thr.t,", "ALPParams.from_paper(eps2, alpha, 1,")
    report = h55.check_error(False)
    bad = [c for c in report.certificates if not c.verdict]
    assert not report.verdict and bad and all("Theorem 4.2" in c.claim for c in bad)


def test_threshold_baseline_of_the_sweeps_by_the_closed_form() -> None:
    from exactdp.plot.paper003_more import threshold_baseline

    # r = 1/(1 + eps) = 1/2; t = 2 is the least t with r^t/(1 + r) <= 1/4; values clamped to
    # [t - 1, 6]; Pr[eta = z] = (1 - r)/(1 + r) r^|z|; an unreleased key is answered 0
    r, t, hi = Fraction(1, 2), 2, 6
    assert r ** t / (1 + r) <= Fraction(1, 4) < r ** (t - 1) / (1 + r)

    def pmf(z: int) -> Fraction:
        return (1 - r) / (1 + r) * r ** abs(z)

    total = Fraction(0)
    for x in range(hi + 1):
        released = [(v, pmf(v - x)) for v in range(t, hi)]
        # mass at >= hi: 1 - Pr[eta < hi - x], the sum from -60 plus the tail below -60
        below = sum((pmf(z) for z in range(-60, hi - x)), Fraction(0)) + r ** 61 / (1 + r)
        released.append((hi, 1 - below))
        kept = sum((abs(v - x) * w for v, w in released), Fraction(0))
        dropped = 1 - sum((w for _, w in released), Fraction(0))
        total += kept + dropped * x
    assert threshold_baseline(hi) == total / (hi + 1)
