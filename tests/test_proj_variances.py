"""Theorems 3.8-3.10's row: passes on the implementation and FAILS on planted bugs in the
noise draws, the projection matrix and the OPORP permutation."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.noise_tables import discrete_gaussian_table
from exactdp.projections import matrices, rp
from exactdp.proofs.li_li import proj_claim_17_variances as row

NOISE = discrete_gaussian_table(Fraction(1, 2), 1)
U3, V3 = row.PAIRS3[0]
U4, V4 = row.PAIRS4[0]


def test_noise_variance_by_hand() -> None:
    # weights q^(z^2) on [-1, 1], q = 1/2: (1/2, 1, 1/2) / 2 -> Var = 2 * (1/4) = 1/2
    assert row.noise_variance(NOISE) == Fraction(1, 2)


def test_raw_variance_by_hand() -> None:
    """u = (1,-2,1), v = (2,1,0): s^2 = 1/2, sum u^2 + sum v^2 = 11, p = 3:
    11/2 + 3/4 = 25/4."""
    ok, var, _ = row.raw_case(U3, V3, NOISE)
    assert ok and var == Fraction(25, 4)


def test_row_passes_unplanted() -> None:
    assert row.check(False).verdict


def test_shared_noise_draw_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """One noise draw added to every coordinate (correlated noise)."""
    def add_noise(x, noise, source):  # type: ignore[no-untyped-def]
        z = noise.add(0, source)
        return tuple(xj + z for xj in x)
    monkeypatch.setattr(rp, "add_noise", add_noise)
    assert not row.raw_case(U3, V3, NOISE)[0]
    assert not row.rp_case(U3, V3, 2, NOISE)[0]
    assert not row.oporp_case(U4, V4, 2, NOISE)[0]


def test_biased_fisher_yates_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The naive shuffle (swap position i with any position): not uniform over p!."""
    def naive(p, source=None):  # type: ignore[no-untyped-def]
        perm = list(range(p))
        for i in range(p):
            j = source.uniform(p) - 1
            perm[i], perm[j] = perm[j], perm[i]
        return tuple(perm)
    monkeypatch.setattr(matrices, "fisher_yates", naive)
    assert not row.oporp_case(U4, V4, 2, NOISE)[0]


def test_constant_oporp_signs_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = matrices.OPORPPlan.sample.__func__

    def sample(cls, p, k, source=None):  # type: ignore[no-untyped-def]
        plan = orig(cls, p, k, source)
        return cls(plan.perm, (1,) * p, k)
    monkeypatch.setattr(matrices.OPORPPlan, "sample", classmethod(sample))
    assert not row.oporp_case(U4, V4, 2, NOISE)[0]
