"""Proposition 4.5's N+ computed by the implementation (exactdp.projections.nplus) and its
row, which passes unplanted and FAILS on each planted bug."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from exactdp.params import ParameterError
from exactdp.projections import nplus
from exactdp.proofs.li_li import proj_claim_16_n_plus as row


def test_fragile_probability_by_hand() -> None:
    # u = (1, 1, 1): sums +-1 +-1 +-1 in {-3, -1, 1, 3} with weights 1, 3, 3, 1 -> 6/8
    assert nplus.fragile_probability((1, 1, 1), 1) == Fraction(3, 4)
    # u = (2, 2): sums in {-4, 0, 4} with weights 1, 2, 1 -> only 0 is within beta = 1
    assert nplus.fragile_probability((2, 2), 1) == Fraction(1, 2)
    assert nplus.fragile_probability((2, 2), 4) == 1


def test_n_plus_against_floats() -> None:
    """The certified integer agrees with a float evaluation of eq. 27 away from integers."""
    for f, k, d in [(Fraction(3, 4), 16, Fraction(1, 10)), (Fraction(1, 8), 512, Fraction(1, 10**6)),
                    (Fraction(0), 64, Fraction(1, 2))]:
        big_l = math.log(1 / float(d))
        val = float(f) * k + (big_l + math.sqrt(big_l**2 + 8 * float(f) * k * big_l)) / 2
        bound = nplus.n_plus_bound(f, k, d)
        assert abs(float(bound) - val) < 1e-9 * max(1.0, val)
    # F = 3/4, k = 16: eq. 27 is 20.67 > k, so N+ = k; u = (2, 2) (F = 1/2), k = 64: 45.4 (float), so N+ = 45
    assert nplus.n_plus((1, 1, 1), 1, 16, Fraction(1, 10)) == 16
    assert nplus.n_plus((2, 2), 1, 64, Fraction(1, 10)) == 45
    assert nplus.n_plus((2, 2, 2), 1, 64, Fraction(1, 10)) == math.floor(
        (math.log(10) + math.sqrt(math.log(10) ** 2)) / 2)  # F = 0: N+ = log(1/delta) -> 2


def test_n_plus_refuses_bad_delta() -> None:
    with pytest.raises(ParameterError, match="delta"):
        nplus.n_plus((1, 1), 1, 4, Fraction(1))


def test_row_passes_unplanted() -> None:
    rep = row.check(False)
    assert rep.verdict
    assert all(c.witness["points_with_n_plus_below_k"] > 0 for c in rep.certificates)


def _strict_fragile(u, beta):  # type: ignore[no-untyped-def]
    """Ties |w^T u| = beta left out of F (eq. 30's '>=' read as '>')."""
    counts = {0: 1}
    for v in u:
        nxt: dict[int, int] = {}
        for s, c in counts.items():
            nxt[s + v] = nxt.get(s + v, 0) + c
            nxt[s - v] = nxt.get(s - v, 0) + c
        counts = nxt
    return Fraction(sum(c for s, c in counts.items() if abs(s) < beta), 1 << len(u))


def test_strict_fragile_probability_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nplus, "fragile_probability", _strict_fragile)
    assert not row.binomial_certificate(False).verdict


def test_halved_deviation_term_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = nplus.n_plus_bound

    def no_root(f, k, delta, bits=64):  # type: ignore[no-untyped-def]
        """F k + (log(1/delta) + sqrt(...)) / 4: half of eq. 27's deviation term."""
        return orig(f, k, delta, bits) - (orig(f, k, delta, bits) - Fraction(f) * k) / 2
    monkeypatch.setattr(nplus, "n_plus_bound", no_root)
    assert not row.binomial_certificate(False).verdict


def test_mean_only_bound_fails_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nplus, "n_plus_bound", lambda f, k, delta, bits=64: Fraction(f) * k)
    assert not row.explored_certificate(False).verdict
    assert not row.binomial_certificate(False).verdict
