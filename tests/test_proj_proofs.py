"""Planted failures for the projection rows (proofs/proj_*.py, paper 001, notes LILI.md §6):
every row passes on the implementation and FAILS when the bug it guards against is planted
(the issue's three: each flip probability rounded up, 0 emitted for ties, iDP parameters
recomputed at the input; plus one per row)."""

from __future__ import annotations

import importlib
from fractions import Fraction
from functools import cached_property

import pytest
from _plant import plant

from exactdp.projections import idp, matrices, rr, signs
from exactdp.proofs.li_li import proj_claim_01_signoporp_pure as row01
from exactdp.proofs.li_li import proj_claim_02_signrp_smooth as row02
from exactdp.proofs.li_li import proj_claim_03_flip_ratios as row03
from exactdp.proofs.li_li import proj_claim_04_rounding as row04
from exactdp.proofs.li_li import proj_claim_12_ties as row12
from exactdp.proofs.li_li import proj_slip_p1_signrp_fixed_w as p1
from exactdp.proofs.li_li import proj_slip_p3_idp_frozen as p3
from exactdp.proofs.li_li import proj_slip_p6_oporp_l1 as p6
from exactdp.proofs.li_li._proj import NOTES_PLAN

#: exactdp.projections re-exports the function project(), which shadows the module's name.
project_mod = importlib.import_module("exactdp.projections.project")


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    """The rows cache calibrated mechanisms and laws; a planted bug must not hit them."""
    p1.mech.cache_clear()
    p1.implementation_law.cache_clear()
    p3.calibrated.cache_clear()


def _round_flips_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each flip probability b^L/(a^L+b^L) rounded UP to the grid 2^-8 (notes §5 P9)."""
    monkeypatch.setattr(rr.SmoothFlipper, "denominator", cached_property(lambda self: 256))
    monkeypatch.setattr(rr.SmoothFlipper, "thresholds", cached_property(
        lambda self: tuple(-(-256 * self.base.b ** lv // (self.base.a ** lv + self.base.b ** lv))
                           for lv in range(self.l_max + 1))))
    for cp in ("denominator", "thresholds"):
        getattr(rr.SmoothFlipper, cp).__set_name__(rr.SmoothFlipper, cp)


def _emit_zero_for_ties(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = rr.SmoothFlipper.sample

    def sample(self: rr.SmoothFlipper, x: int, unit: int, source: object) -> int:
        bit = orig(self, x, unit, source)  # type: ignore[arg-type]
        return 0 if x == 0 else bit

    monkeypatch.setattr(rr.SmoothFlipper, "sample", sample)


def _recompute_idp(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = idp.IDPSignRPRR.sample

    def sample(self: idp.IDPSignRPRR, u: tuple[int, ...], source: object = None
               ) -> tuple[int, ...]:
        fresh = idp.IDPSignRPRR.calibrate(u, self.W, self.beta, self.total)
        return orig(fresh, u, source)  # type: ignore[arg-type]

    monkeypatch.setattr(idp.IDPSignRPRR, "sample", sample)


# ------------------------------------------------------------------ unplanted: all pass

@pytest.mark.parametrize("row", [row01, row02, row03, row04, row12, p1, p3, p6])
def test_rows_pass_unplanted(row: object) -> None:
    assert row.check(False).verdict  # type: ignore[attr-defined]


# ------------------------------------------------------------------ the three bugs

def test_rounding_flips_up_fails_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    _round_flips_up(monkeypatch)
    assert not row01.plan_certificate(NOTES_PLAN, 2, 1, True).verdict
    assert not row03.base_certificate(Fraction(3, 2), 8).verdict
    cert = row04.exact_certificate(14)
    assert not cert.verdict and cert.worst == 2            # the notes' f'_13/f'_14 = 2


def test_zero_for_ties_fails_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    _emit_zero_for_ties(monkeypatch)
    coin = row12.tie_certificates()[0]
    assert not coin.verdict and coin.worst == "infinity"
    assert not row01.plan_certificate(NOTES_PLAN, 1, 1, False).verdict
    assert not row03.base_certificate(Fraction(2), 8).verdict


def test_recomputed_idp_parameters_fail_p3(monkeypatch: pytest.MonkeyPatch) -> None:
    _recompute_idp(monkeypatch)
    cert = p3.frozen_certificate()
    assert not cert.verdict and cert.witness["failing_references"]


# ------------------------------------------------------------------ one per row

def test_p6_rows_fail_with_interleaved_bins(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, project_mod, "oporp", "x[t // size]", "x[t % plan.k]")
    assert not all(c.verdict for c in p6.variant_certificates(True))


def test_p1_private_rows_fail_with_per_bit_base_3_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(p1, "PRIVATE_BASE", rr.Base(3, 2))
    assert not p1.fixed_w_certificate(p1.FULL_RANK_W, True).verdict


def test_p1_averaged_delta_fails_with_correlated_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """All k bits from one coin: the released bits are no longer independent."""
    orig = signs._release

    def shared(flipper: rr.SmoothFlipper, x: tuple[int, ...], units: tuple[int, ...],
               source: object) -> tuple[int, ...]:
        first = orig(flipper, x[:1], units[:1], source)[0]  # type: ignore[arg-type]
        s0 = -1 if x[0] < 0 else 1
        return tuple((-1 if v < 0 else 1) * first * s0 for v in x)

    monkeypatch.setattr(signs, "_release", shared)
    assert not p1.averaged_certificate(p1.NOTES_PAIRS).verdict


def test_row02_fails_without_the_column_max(monkeypatch: pytest.MonkeyPatch) -> None:
    """Alg 7's unit beta * max_i |W_ij| replaced by 1 (notes §5 P7/P8 bookkeeping)."""
    monkeypatch.setattr(signs.DPSignRPSmooth, "units",
                        property(lambda self: (1,) * self.k))
    assert not row02.beta_certificate(2).verdict


def test_row04_fails_when_cap_breaks_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels above L_max sent to 0 instead of L_max: |L - L'| jumps at the cap."""
    plant(monkeypatch, rr.SmoothFlipper, "level",
          "return min((abs(x) + unit - 1) // unit, self.l_max)",
          "lv = (abs(x) + unit - 1) // unit\n    return lv if lv <= self.l_max else 0")
    assert not row04.exact_certificate(14).verdict


def test_row01_fails_with_level_floor_plus_one(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, rr.SmoothFlipper, "level", "(abs(x) + unit - 1) // unit",
          "abs(x) // unit + 1")
    assert not row01.plan_certificate(NOTES_PLAN, 2, 2, True).verdict


def test_fisher_yates_naive_shuffle_fails_row11(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.li_li import proj_claim_11_fisher_yates as row11

    plant(monkeypatch, matrices, "fisher_yates", "j = src.uniform(i + 1) - 1",
          "j = src.uniform(p) - 1")
    assert row11.perm_certificate(2).verdict             # p = 2: the naive shuffle is fine
    assert not row11.perm_certificate(3).verdict


def test_sparse_entries_fail_row13(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.li_li import proj_claim_13_p_plus as row13

    plant(monkeypatch, matrices, "sample_rademacher", "2 * src.uniform(2) - 3",
          "src.uniform(3) - 2")
    assert not row13.p_certificate(3).verdict


def test_unsquared_debiasing_fails_row14(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.projections import estimators
    from exactdp.proofs.li_li import proj_claim_14_debias as row14

    plant(monkeypatch, estimators, "debias_rr_collision", "(rho + 1) ** 2 / (rho - 1) ** 2",
          "(rho + 1) / (rho - 1)")
    assert not row14.base_certificate(rr.Base(3, 2), 1).verdict


def test_laplace_table_fails_row09(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import noise_tables
    from exactdp.proofs.li_li import proj_claim_09_gaussian_table as row09

    plant(monkeypatch, noise_tables, "discrete_gaussian_table",
          "c ** (z * z) * d ** (t * t - z * z)", "c ** abs(z) * d ** (t * t - abs(z))")
    assert not row09.case_certificate(Fraction(1, 2), 2, 1).verdict


def test_off_by_one_fold_fails_row10(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp import noise_tables
    from exactdp.proofs.li_li import proj_claim_10_folded_laplace as row10

    plant(monkeypatch, noise_tables, "discrete_laplace_folded",
          "c ** (m - z) * d**z", "c ** (m - z - 1) * d ** (z + 1)")
    assert not row10.case_certificate(Fraction(1, 2), 10, 1).verdict


def test_l2_without_beta_squared_fails_row08(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.li_li import proj_claim_08_rp_sensitivity as row08

    plant(monkeypatch, matrices, "l2_sensitivity_sq", "return b * b * max", "return b * max")
    assert not row08.sensitivity_certificate(2, 2, 2).verdict


def test_correlated_noise_fails_row08(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.projections import rp
    from exactdp.proofs.li_li import proj_claim_08_rp_sensitivity as row08

    plant(monkeypatch, rp, "add_noise", "return tuple(noise.add(xj, source) for xj in x)",
          "z = noise.add(0, source)\n        return tuple(xj + z for xj in x)")
    assert not row08.delta_certificate("RawData", 1).verdict
