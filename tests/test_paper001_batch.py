"""The experiments' batch releases (exactdp.plot.paper001_batch, used by paper001_exact's
_release) against the mechanisms' own sample(), row after row with one seeded source: the
same draws in the same order, so every released value must be equal.  The clamped
geometric's tabulated search is also compared with the mechanism's M(c, u) at every centre
and at every CDF boundary u (and its neighbours), which is the whole map from draws to
outputs, i.e. the law."""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest

np = pytest.importorskip("numpy")

from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.noise import ClampedGeometric
from exactdp.plot import paper001_batch as batch
from exactdp.plot import paper001_exact as pe
from exactdp.projections.idp import IDPSignRPRR
from exactdp.projections.matrices import OPORPPlan, int_matrix, sample_rademacher
from exactdp.projections.rp import DPOPORP, RawData
from exactdp.projections.rr import Base
from exactdp.projections.signs import DPSignOPORP, DPSignRPRR
from exactdp.randomness import SeededSource


def _src(name: str) -> SeededSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SeededSource(name)


def _data(n: int = 30, p: int = 16, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 17, size=(n, p))
    x[rng.random((n, p)) < 0.5] = 0  # sparse rows, zero projections and empty bins
    return x


def _per_row(mech: object, x: np.ndarray, name: str) -> list[tuple[int, ...]]:
    src = _src(name)
    return [tuple(mech.sample(tuple(int(v) for v in row), src)) for row in x]  # type: ignore[attr-defined]


def _mechanisms() -> list[tuple[str, object]]:
    plan = OPORPPlan.sample(16, 4, _src("plan"))
    w = sample_rademacher(16, 5, _src("w"))
    beta = 16
    top = 16 * 4
    return [
        ("oporp-geometric", DPOPORP(plan, beta, pe.geometric(Fraction(1, 2), beta, -top, top))),
        ("oporp-geometric-big", DPOPORP(plan, beta, pe.geometric(Fraction(1, 10), beta, -top,
                                                                  top))),
        ("oporp-gauss", DPOPORP(plan, beta, DiscreteGaussian(Fraction(301, 4)))),
        ("raw-geometric", RawData(16, beta, pe.geometric(Fraction(5), beta, 0, 16))),
        ("raw-gauss", RawData(16, beta, DiscreteGaussian(Fraction(90)))),
        ("sign-oporp-smooth", DPSignOPORP(plan, beta, Base(3, 2), 5)),
        ("sign-oporp-rr", DPSignOPORP(plan, beta, Base(3, 2), 1, False)),
        ("sign-rp", DPSignRPRR(w, Base(11, 10))),
    ]


@pytest.mark.parametrize("index", range(8))
def test_batch_release_equals_row_by_row(index: int) -> None:
    name, mech = _mechanisms()[index]
    x = _data()
    got = pe._release(mech, x, _src(name))
    assert [tuple(int(v) for v in row) for row in got] == _per_row(mech, x, name)


def test_idp_batch_equals_calibrate_per_row() -> None:
    x = _data(40, 12, seed=3)
    x[0] = 0  # a zero vector: every projection active
    w = sample_rademacher(12, 6, _src("idp-w"))
    total = Base(5, 2)
    src = _src("idp")
    want = []
    for row in x:
        u = tuple(int(v) for v in row)
        want.append(IDPSignRPRR.calibrate(u, w, 16, total).sample(u, src))
    got = batch.idp_sign_rp_rows(x, int_matrix(w), 16, total, _src("idp"))
    assert [tuple(int(v) for v in row) for row in got] == want


@pytest.mark.parametrize("ratio", [Fraction(1, 2), Fraction(7, 8)])
def test_geometric_table_is_the_mechanism_map(ratio: Fraction) -> None:
    """Every centre, every u at and beside every CDF value: batch output = lo + M(c, u)."""
    noise = ClampedGeometric(ratio, -6, 9, -2, 5)

    class Fixed:  # a source answering the given draws in order
        def __init__(self, us: list[int]) -> None:
            self.us = iter(us)

        def uniform(self, d: int) -> int:
            return next(self.us)

    d = noise.d
    for c in range(-2, 6):
        us = sorted({min(max(u, 1), d) for z in range(noise.n + 1)
                     for f in [noise.cdf(c, z)] for u in (f - 1, f, f + 1)} | {1, d})
        got = batch.add_noise_rows(np.array([[c] * len(us)]), noise, Fixed(us))  # type: ignore[arg-type]
        assert [int(v) for v in got[0]] == [noise.lo + noise(c, u) for u in us]


def test_batch_refuses_centres_outside_the_range() -> None:
    from exactdp.params import DomainError

    noise = ClampedGeometric(Fraction(1, 2), -6, 9, -2, 5)
    with pytest.raises(DomainError, match="centres outside"):
        batch.add_noise_rows(np.array([[6]]), noise, _src("x"))


def test_level_law_and_flip_shares_by_hand() -> None:
    """Bins (u0 + u1, u2 + u3), beta = 16, rho = 3/2: rows (16, 16, 0, 0) -> x = (32, 0),
    levels 2 and 0; (5, 0, 0, -3) -> x = (5, -3), levels 1 and 1.  RR flips 1/2 (coin),
    2/5, 2/5, 2/5; smooth 1/2, 2/5, 2/5 and f_2 = 4/13."""
    from exactdp.plot.paper001_levels import flip_shares, level_law

    plan = OPORPPlan((0, 1, 2, 3), (1, 1, 1, 1), 2)
    law = level_law([(16, 16, 0, 0), (5, 0, 0, -3)], plan, 16)
    assert law == {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
    rr, smooth = flip_shares(law, Base(3, 2), 5)
    assert rr == Fraction(1, 8) + Fraction(1, 5) + Fraction(1, 10) == Fraction(17, 40)
    assert smooth == Fraction(1, 8) + Fraction(1, 5) + Fraction(1, 13)
    assert flip_shares(law, Base(3, 2), 1) == (rr, rr)  # L_max = 1 is RR
