"""Lemma 4.3's certified P+ integral (exactdp.projections.p_plus_gaussian), Algorithm 6's N+
for Gaussian W, and the row, which passes unplanted and FAILS on each planted bug."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.params import ParameterError
from exactdp.projections import p_plus_gaussian as pg
from exactdp.proofs.li_li import proj_claim_16_p_plus_gaussian as row


def test_p_plus_values() -> None:
    """r = 0: 2 Phi(0) - 1 = 0, the integral is 0; p = 1: (2/pi) atan(r) (Lemma 4.2 at rho = 0),
    at r = 1/2 0.2951672... (pi and atan by hand: atan(1/2) = 0.4636476...)."""
    box = pg.p_plus_gaussian(0, 3)
    assert Fraction(0) in box and box.hi < Fraction(1, 100)
    half = pg.p_plus_gaussian(Fraction(1, 2), 1)
    assert Fraction(2951, 10000) in half and Fraction(2952, 10000) in half
    finer = pg.p_plus_gaussian(Fraction(1, 2), 1, step=Fraction(1, 32))
    assert finer.hi - finer.lo < half.hi - half.lo and Fraction(2951, 10000) in finer
    with pytest.raises(ParameterError, match="r = 2"):
        pg.p_plus_gaussian(2, 3)
    with pytest.raises(ParameterError, match="beta"):
        pg.n_plus_gaussian(1, 2, 4, 4, Fraction(1, 10))


def test_exact_floor_by_hand() -> None:
    """F = 1/2, k = 100, delta = 1/4: mu = 50, 12^2/112 = 1.286 < log 4 = 1.386 < 13^2/113 =
    1.496, so floor(N) = 62; F = 0: floor(log 10) = 2."""
    assert row.exact_floor(Fraction(1, 2), 100, Fraction(1, 4)) == 62
    assert row.exact_floor(Fraction(0), 16, Fraction(1, 10)) == 2


def test_row_passes_unplanted() -> None:
    assert row.check(False).verdict


def test_density_without_power_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """[2 Phi(t) - 1]^(p-1) dropped to the first power: the r = 1 anchors p/(p+1) fail."""
    orig = pg._pow_out
    monkeypatch.setattr(pg, "_pow_out", lambda box, p, bits: orig(box, 1, bits))
    assert not row.anchor_certificate((1, 2, 3, 4)).verdict


def test_coarse_grid_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """A grid on [0, 1] only: the bracket stays valid but is far wider than 1/20."""
    orig = pg.p_plus_gaussian
    monkeypatch.setattr(pg, "p_plus_gaussian",
                        lambda r, p, step=Fraction(1, 16), top=8, bits=64: orig(r, p, step, 1, bits))
    assert not row.anchor_certificate((1, 2, 3, 4)).verdict


def test_inverted_ratio_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """F from r = m/beta clipped to 1 (inverted ratio): N+ no longer decreases in m."""
    orig = pg.p_plus_gaussian
    monkeypatch.setattr(pg, "p_plus_gaussian",
                        lambda r, p, step=Fraction(1, 16), **kw: orig(min(1 / r, 1), p, step))
    assert not row.figure5_certificate().verdict


def test_floor_off_by_one_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """n_plus_bound one too small (a lower end of log(1/delta) minus 1)."""
    from exactdp.projections import nplus
    monkeypatch.setattr(row, "n_plus_bound", lambda f, k, d: nplus.n_plus_bound(f, k, d) - 1)
    assert not row.eq27_certificate().verdict
