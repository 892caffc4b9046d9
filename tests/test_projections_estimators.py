"""Estimators (paper 001, eq. 10 and 29): the RR-debiased collision estimator is unbiased,
exactly, for every pair of true sign vectors (notes LILI.md §6 claim 14)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from exactdp.explore import explore
from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections import (
    Base,
    SmoothFlipper,
    collision_fraction,
    debias_rr_collision,
    inner_product,
)


@pytest.mark.parametrize("base", [Base(3, 2), Base(5, 1), Base(19, 7)])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_debiased_collision_is_unbiased(base: Base, k: int) -> None:
    flipper = SmoothFlipper(base, 1)
    for s1, s2 in product(product((-1, 1), repeat=k), repeat=2):
        def release(src: object, s1: tuple[int, ...] = s1, s2: tuple[int, ...] = s2) -> Fraction:
            r1 = [flipper.sample(v, 1, src) for v in s1]  # type: ignore[arg-type]
            r2 = [flipper.sample(v, 1, src) for v in s2]  # type: ignore[arg-type]
            return collision_fraction(r1, r2)

        law = explore(release)
        mean = sum((debias_rr_collision(f, base) * w for f, w in law.items()), Fraction(0))
        assert mean == Fraction(sum(a == b for a, b in zip(s1, s2)), k)


def test_by_hand() -> None:
    assert collision_fraction((1, -1, 1), (1, 1, 1)) == Fraction(2, 3)
    assert inner_product((1, 2, -3), (4, 5, 6)) == 4 + 10 - 18
    # rho = 3: (4/2)^2 * f - 6/4
    assert debias_rr_collision(Fraction(1, 2), Base(3, 1)) == 4 * Fraction(1, 2) - Fraction(3, 2)


@pytest.mark.parametrize("call, error", [
    (lambda: collision_fraction((1,), (1, 1)), ParameterError),
    (lambda: collision_fraction((), ()), ParameterError),
    (lambda: debias_rr_collision(0.5, Base(3, 2)), ParameterTypeError),
    (lambda: debias_rr_collision(Fraction(1, 2), Fraction(3, 2)), ParameterTypeError),
])
def test_clear_errors(call: object, error: type) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]
