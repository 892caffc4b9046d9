"""DP-OPORP, DP-RP and the raw-data baseline with the strict-time discrete Gaussian."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactdp.checker import hockey_stick
from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.explore import explore
from exactdp.neighbours import vectors
from exactdp.params import ParameterTypeError
from exactdp.projections.check import check_dp, explored_law
from exactdp.projections.matrices import OPORPPlan
from exactdp.projections.project import oporp
from exactdp.projections.rp import DPOPORP, DPRP, RawData

G = DiscreteGaussian(Fraction(3, 2), bits=10)
PLAN = OPORPPlan((1, 0, 3, 2), (1, -1, -1, 1), 2)


def test_laws_are_products_of_the_noise_law() -> None:
    law = explore(lambda s: DPOPORP(PLAN, 1, G).sample((1, 0, 2, 1), s))
    x = oporp((1, 0, 2, 1), PLAN)  # the projection (tested on its own elsewhere)
    assert law == {(x[0] + a, x[1] + b): G.pmf(a) * G.pmf(b)
                   for a in range(-G.tail, G.tail + 1) for b in range(-G.tail, G.tail + 1)}
    w = ((1, -1), (1, 1))
    law = explore(lambda s: DPRP(w, 1, G).sample((2, 1), s))
    assert law == {(3 + a, -1 + b): G.pmf(a) * G.pmf(b)
                   for a in range(-G.tail, G.tail + 1) for b in range(-G.tail, G.tail + 1)}
    law = explore(lambda s: RawData(1, 1, G).sample((4,), s))
    assert law == {(4 + a,): G.pmf(a) for a in range(-G.tail, G.tail + 1)}


@pytest.mark.parametrize("ratio", [Fraction(1), Fraction(3, 2), Fraction(4)])
def test_dp_oporp_delta_over_every_pair_is_the_one_coordinate_delta(ratio: Fraction) -> None:
    mech = DPOPORP(PLAN, 1, G)
    report = check_dp(lambda u: explored_law(mech.sample, u), vectors(4, 0, 1, 1), ratio)
    p = G.law()
    shifted = {x + 1: v for x, v in p.items()}
    one = max(hockey_stick(p, shifted, ratio), hockey_stick(shifted, p, ratio))
    assert report.delta.delta == one > 0
    assert report.worst.ratio is None  # truncated noise: an outcome impossible under u'


def test_noise_type_is_checked() -> None:
    with pytest.raises(ParameterTypeError, match="DiscreteGaussian"):
        DPOPORP(PLAN, 1, 1.5)  # type: ignore[arg-type]


def test_upper_bounds_print_rounded_up() -> None:
    from exactdp.plot.paper001_experiments import ceil_decimal

    assert ceil_decimal(Fraction(999999648421311, 10**21)) == "1.000e-06"
    assert ceil_decimal(Fraction(12345678, 10**15)) == "1.235e-08"
    assert ceil_decimal(Fraction(1, 3)) == "3.334e-01"
    assert ceil_decimal(Fraction(5)) == "5.000e+00"
    assert ceil_decimal(Fraction(123401)) == "1.235e+05"
