"""Circular convolution on Z_N with integer strategies (notes §3.5, §3.7 "Z_N"), and the
(epsilon, delta) constructors of the convolution mechanisms (calibration.py).

Expected values are computed here (brute force over explored laws, sympy, by hand)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.certified import exp_interval
from exactdp.convolution import Domain, WalshFourierMechanism
from exactdp.convolution.cyclic import CyclicFourierMechanism, cyclic_strategy
from exactdp.explore import explore
from exactdp.params import ParameterError


def circ_direct(h: list[int], x: tuple[int, ...]) -> list[Fraction]:
    n = len(h)
    return [sum((Fraction(x[m] * h[(k - m) % n]) for m in range(n)), Fraction(0))
            for k in range(n)]


def test_hartley_mechanism_law_mse_and_worst_ratio() -> None:
    h = [1, 1, 0, 0]
    dom = Domain.box(4, 1)
    mech = CyclicFourierMechanism(h, dom, ratios=2, strategy="hartley")
    # Hartley rows (1,1,1,1), (1,1,-1,-1), (1,-1,1,-1), (1,-1,-1,1); the circulant of h has
    # eigenvalue 1 + e^{-i pi k/2} which is 0 at k = 2: row (1,-1,1,-1) is dropped
    assert mech.rows == (0, 1, 3) and mech.draws == 3
    laws = {x: explore(lambda s, x=x: mech.sample_with(list(x), s)) for x in dom.elements()}
    worst = max(max(max(laws[x][o] / laws[y][o], laws[y][o] / laws[x][o]) for o in laws[x])
                for x in dom.elements() for _, y in dom.neighbours(x))
    assert worst == 2 ** 3  # three kept rows, each moved by 1 in every column
    assert mech.privacy().pure_ratio == 8
    for x in dom.elements():
        target = circ_direct(h, x)
        explored = sum((p * sum((a - b) ** 2 for a, b in zip(y, target, strict=True))
                        for y, p in laws[x].items()), Fraction(0)) / 4
        assert mech.mse(list(x)) == explored <= mech.mse_bound()
        assert mech.convolve(list(x)) == target


def test_real_fourier_z3_is_the_notes_strategy() -> None:
    s = cyclic_strategy("real-fourier", [1, 1, 0], scale=3)
    assert s.T == ((2, 2, 2), (2, -1, -1), (0, 2, -2))


def test_strategy_refusals() -> None:
    dom = Domain.histograms(6, 2)
    with pytest.raises(ParameterError, match="2\\^k"):
        CyclicFourierMechanism([1] * 6, dom, ratios=2, strategy="walsh")
    with pytest.raises(ParameterError, match="N = 4"):
        CyclicFourierMechanism([1] * 6, dom, ratios=2, strategy="hartley")
    with pytest.raises(ParameterError, match="epsilon and delta"):
        CyclicFourierMechanism([1] * 6, dom, ratios=2)
    with pytest.raises(ParameterError, match="must be one of"):
        CyclicFourierMechanism([1] * 6, dom, ratios=2, strategy="dft")
    with pytest.raises(ParameterError, match="singular"):
        # at scale 1 the rounded real-Fourier basis of Z_6 is singular
        CyclicFourierMechanism([1] * 6, dom, ratios=2, strategy="real-fourier", scale=1)


def _certified_target(mech: object, epsilon: Fraction, delta: Fraction) -> None:
    """The calibrated ratios meet the target: exact delta(R_lo) <= delta at a rational R_lo
    that is certified <= e^epsilon (R_lo from the calibration record, checked here)."""
    cal = mech.calibration  # type: ignore[attr-defined]
    assert cal.accounting_used in ("exact", "exact-grid", "zcdp")
    profile = mech.privacy()  # type: ignore[attr-defined]
    r_lo = cal.certificate.get("R_lo")
    if cal.accounting_used == "exact":
        assert r_lo is not None
        assert r_lo <= exp_interval(epsilon, 64).lo
        assert profile.delta(r_lo) <= delta


def test_walsh_calibrated_by_epsilon_delta() -> None:
    eps, dlt = Fraction(1), Fraction(1, 10**6)
    mech = WalshFourierMechanism([1, 1, 0, 0, 0, 0, 0, 0], Domain.histograms(8, 3),
                                 epsilon=eps, delta=dlt)
    assert mech.rows == mech.calibration.rows
    assert mech.ratios == mech.calibration.kept_ratios
    _certified_target(mech, eps, dlt)
    with pytest.raises(ParameterError, match="not both"):
        WalshFourierMechanism([1, 0], Domain.histograms(2, 1), ratios=2, epsilon=1, delta="1/2")
    with pytest.raises(ParameterError, match="both"):
        WalshFourierMechanism([1, 0], Domain.histograms(2, 1), epsilon=1)


def test_auto_picks_the_smallest_bound_at_equal_privacy() -> None:
    eps, dlt = Fraction(1), Fraction(1, 10**6)
    h = [1, 1, 0, 0]
    auto = CyclicFourierMechanism(h, Domain.histograms(4, 5), epsilon=eps, delta=dlt)
    assert set(auto.candidates) == {"real-fourier", "walsh", "hartley"}
    each = {name: CyclicFourierMechanism(h, Domain.histograms(4, 5), strategy=name,
                                         epsilon=eps, delta=dlt).mse_bound()
            for name in auto.candidates}
    assert each == auto.candidates
    assert auto.mse_bound() == min(each.values())
    assert auto.candidates[auto.strategy_name] == min(each.values())
    _certified_target(auto, eps, dlt)
