"""Uniform-entry projection matrices (exactdp.projections.matrices.sample_uniform_entries)
and their row: passes unplanted, FAILS on planted bugs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.explore import explore
from exactdp.params import ParameterError
from exactdp.projections import matrices, rp
from exactdp.proofs.li_li import proj_claim_19_uniform_entries as row


def test_entry_moments_by_hand() -> None:
    # m = 2: values -2..2, E w^2 = (4+1+0+1+4)/5 = 2, E w^4 = (16+1+0+1+16)/5 = 34/5
    assert row.moments_of_entries(2) == (Fraction(2), Fraction(34, 5))
    law = explore(lambda src: matrices.sample_uniform_entries(1, 1, 2, src))
    assert law == {((v,),): Fraction(1, 5) for v in range(-2, 3)}


def test_bad_m_refused() -> None:
    with pytest.raises(ParameterError):
        matrices.sample_uniform_entries(2, 2, 0)


def test_row_passes_unplanted() -> None:
    assert row.check(False).verdict


def test_rademacher_formula_is_not_the_uniform_one() -> None:
    """Theorem 3.9 verbatim (-2 sum u^2 v^2) is not the variance with uniform entries."""
    (u, v), m = row.PAIRS[0], 1
    ok, var, claim = row.variance_case(u, v, m)
    s, kappa = row.moments_of_entries(m)
    su2v2 = sum(a * a * b * b for a, b in zip(u, v))
    assert ok and claim - (kappa / (s * s) - 3 + 2) * su2v2 / 2 != var


def test_shifted_entries_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries on {-m+1..m+1} (off by one): not centred."""
    def shifted(p, k, m, source=None):  # type: ignore[no-untyped-def]
        return tuple(tuple(source.uniform(2 * m + 1) - m for _ in range(k)) for _ in range(p))
    monkeypatch.setattr(matrices, "sample_uniform_entries", shifted)
    assert not row.law_certificate(1).verdict
    assert not row.variance_certificate(1, row.PAIRS[:1]).verdict


def test_shared_noise_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def add_noise(x, noise, source):  # type: ignore[no-untyped-def]
        z = noise.add(0, source)
        return tuple(xj + z for xj in x)
    monkeypatch.setattr(rp, "add_noise", add_noise)
    assert not row.variance_certificate(1, row.PAIRS[:1]).verdict
