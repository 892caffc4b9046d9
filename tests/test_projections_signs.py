"""Sign mechanisms (paper 001, Algorithms 6, 7, 8 and 11): exact laws under the exploring
source, draws per parameters, privacy ratios on tiny domains, clear errors."""

from __future__ import annotations

from array import array
from fractions import Fraction
from itertools import product
from math import lcm

import pytest

from exactdp.explore import explore
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.projections import (
    Base,
    DPSignOPORP,
    DPSignOPORPRepeated,
    DPSignRPRR,
    DPSignRPSmooth,
    IDPSignRPRR,
    OPORPPlan,
    dyadic_root_base,
    noise_indicators,
)
from exactdp.randomness import SeededSource
from tests._sources import RecordingSource

RHO = Base(3, 2)
PLAN = OPORPPlan((2, 0, 3, 1), (1, -1, -1, 1), 2)  # the notes' §3.1 instance
W3 = ((1, -1), (1, 1), (-1, 1))


def bit_law(x: int, unit: int, l_max: int) -> dict[int, Fraction]:
    """The law of one released sign, derived by hand from the paper's formula."""
    level = 0 if x == 0 else min(-(-abs(x) // unit), l_max)
    rho = Fraction(3, 2)
    keep = rho**level / (rho**level + 1)
    s = -1 if x < 0 else 1
    return {s: keep, -s: 1 - keep}


def product_law(laws: list[dict[int, Fraction]]) -> dict[tuple[int, ...], Fraction]:
    out: dict[tuple[int, ...], Fraction] = {}
    for combo in product(*(sorted(law.items()) for law in laws)):
        out[tuple(v for v, _ in combo)] = Fraction(1)
        for _, w in combo:
            out[tuple(v for v, _ in combo)] *= w
    return out


def worst_ratio(mech: object, vectors: list[tuple[int, ...]], beta: int) -> Fraction:
    laws = {u: explore(lambda s, u=u: mech.sample(u, s)) for u in vectors}  # type: ignore[attr-defined]
    worst = Fraction(1)
    for u in vectors:
        for i in range(len(u)):
            for d in range(-beta, beta + 1):
                v = u[:i] + (u[i] + d,) + u[i + 1:]
                if d and v in laws:
                    for o, pr in laws[u].items():
                        worst = max(worst, pr / laws[v][o])
    return worst


@pytest.mark.parametrize("smooth, l_max", [(True, 3), (False, 1)])
def test_sign_oporp_law_is_the_product_of_bit_laws(smooth: bool, l_max: int) -> None:
    mech = DPSignOPORP(PLAN, 2, RHO, l_max, smooth)
    for u in [(0, 0, 0, 0), (2, -1, 2, 0), (-2, 2, 2, -2)]:
        x = (-u[0] + u[2], u[1] - u[3])  # by hand from PLAN: w0*u[2] + w1*u[0], ...
        law = explore(lambda s, u=u: mech.sample(u, s))
        assert law == product_law([bit_law(xj, 2, l_max) for xj in x])
        assert all(0 not in out for out in law)


@pytest.mark.parametrize("smooth, l_max", [(True, 3), (False, 1)])
def test_sign_oporp_ratio_at_most_rho_under_one_coordinate_neighbours(smooth: bool,
                                                                      l_max: int) -> None:
    """Thm 4.8 on the notes' instance (p = 4, k = 2, C = 2, beta = 2): worst ratio exactly 3/2
    (both variants: a bin can cross the sign with beta = 2)."""
    mech = DPSignOPORP(PLAN, 2, RHO, l_max, smooth)
    grid = list(product(range(-2, 3), repeat=4))
    assert worst_ratio(mech, grid, 2) == Fraction(3, 2)


def test_sign_rp_smooth_law_and_ratio() -> None:
    mech = DPSignRPSmooth(W3, 1, RHO, 4)
    u = (2, -1, 1)
    x = (2 - 1 - 1, -2 - 1 + 1)
    assert explore(lambda s: mech.sample(u, s)) == product_law([bit_law(v, 1, 4) for v in x])
    grid = list(product(range(-1, 2), repeat=3))
    assert worst_ratio(mech, grid, 1) <= mech.privacy_ratio == Fraction(9, 4)


def test_sign_rp_rr_is_smooth_with_one_level() -> None:
    mech = DPSignRPRR(W3, RHO)
    u = (1, 1, 0)
    law = explore(lambda s: mech.sample(u, s))
    assert law == product_law([bit_law(2, 1, 1), bit_law(0, 1, 1)])
    assert mech.privacy_ratio == Fraction(9, 4)
    assert DPSignRPRR(W3, RHO, n_plus=1).claimed_ratio == Fraction(3, 2)


@pytest.mark.parametrize("u", [(0, 0, 0, 0), (1, -1, 1, 1), (5, 5, -5, 5)])
def test_draws_fixed_by_parameters(u: tuple[int, ...]) -> None:
    mech = DPSignOPORP(PLAN, 1, RHO, 5)
    src = RecordingSource()
    mech.sample(u, src)
    assert src.sizes == [mech.flipper.denominator] * 2
    src = RecordingSource()
    DPSignRPSmooth(((1, 0), (1, 0), (0, 0), (1, 0)), 1, RHO, 3).sample(u, src)
    assert src.sizes == [denominator_by_hand(3)] * 2


def denominator_by_hand(l_max: int) -> int:
    """``D`` of rho = 3/2 at ``L_max``: lcm of 3^L + 2^L."""
    return lcm(*(3**lv + 2**lv for lv in range(l_max + 1)))


def test_repeated_runs_concatenate_and_compose() -> None:
    rep = DPSignOPORPRepeated.sample_plans(4, 2, 2, 1, RHO, 2, True, RecordingSource(5))
    assert len(rep.runs) == 2 and all(r.k == 1 for r in rep.runs)
    assert rep.privacy_ratio == Fraction(9, 4)
    src = RecordingSource(1)
    out = rep.sample((1, 0, -1, 1), src)
    assert len(out) == 2 and len(src.sizes) == 2


def test_idp_frozen_at_reference() -> None:
    W = ((1, 1, -1), (1, -1, 1), (1, 1, 1))
    total = Base(3, 2)
    mech = IDPSignRPRR.calibrate((2, 2, -2), W, 1, total)
    # x = (2, -2, 2)*... by hand: x_j = sum_i W_ij u_i
    x = (2 + 2 - 2, 2 - 2 - 2, -2 + 2 - 2)
    assert mech.active == noise_indicators(x, W, 1) == frozenset()
    assert mech.sample((1, 2, -2)) == (1, -1, -1)  # deterministic, also at a neighbour
    mech = IDPSignRPRR.calibrate((1, 0, 0), W, 1, total)
    assert mech.active == frozenset({0, 1, 2})
    assert mech.privacy_ratio <= total.ratio
    for u in [(1, 0, 0), (0, 0, 0), (2, 0, 0), (1, 1, 0)]:
        src = RecordingSource()
        mech.sample(u, src)
        assert len(src.sizes) == 3  # |A| draws whatever the input


def test_dyadic_root_base_is_the_largest_on_its_grid() -> None:
    total = Base(3, 2)
    for n in (1, 2, 3, 7):
        rho = dyadic_root_base(total, n, 16).ratio
        assert rho**n <= Fraction(3, 2) < (rho + Fraction(1, 1 << 16)) ** n


@pytest.mark.parametrize("call, error", [
    (lambda: DPSignOPORP(PLAN, 0, RHO, 2), DomainError),
    (lambda: DPSignOPORP(PLAN, 1, RHO, 3, smooth=False), ParameterError),
    (lambda: DPSignOPORP(PLAN, 1, Fraction(3, 2), 1), ParameterTypeError),
    (lambda: DPSignOPORP((0, 1), 1, RHO, 1), ParameterTypeError),
    (lambda: DPSignRPRR(W3, RHO, n_plus=3), ParameterError),
    (lambda: DPSignOPORP(PLAN, 1, RHO, 2).sample((1, 2, 3)), ParameterError),
    (lambda: DPSignOPORPRepeated(()), ParameterTypeError),
    (lambda: IDPSignRPRR(W3, 1, frozenset({5}), RHO, RHO), ParameterError),
    (lambda: dyadic_root_base(Base(3, 2), 1000, 4), ParameterError),
])
def test_clear_errors(call: object, error: type) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]


def test_repeated_batch_is_each_runs_batch_concatenated() -> None:
    rep = DPSignOPORPRepeated.sample_plans(6, 4, 2, 1, RHO, 3, True, SeededSource(2))
    rows = [(1, -2, 0, 3, 1, 1), (0, 0, 0, 0, 0, 0), (-3, 3, 2, -1, 0, 2)]
    got = rep.sample_batch(array("b", [v for r in rows for v in r]), SeededSource(9))
    src = SeededSource(9)
    per_run = [[run.sample(u, src) for u in rows] for run in rep.runs]  # run by run
    assert got.tolist() == [list(per_run[0][i] + per_run[1][i]) for i in range(3)]
