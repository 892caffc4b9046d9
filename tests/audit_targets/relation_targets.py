"""Mechanisms on datasets for the neighbour-relation audit tests (tests/test_audit_inputs.py):
f(D, source) with D a sorted tuple (a multiset)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.counting import GeoSample
from exactdp.randomness import RandomSource

_GEO2 = GeoSample(2, Fraction(1, 2))
_GEO4 = GeoSample(4, Fraction(1, 2))


def ones_count(data: tuple[int, ...], source: RandomSource) -> int:
    """GeoSample on the number of 1s: sensitivity 1 under add-remove and replace-one."""
    return _GEO2.sample(sum(1 for v in data if v == 1), source)


def value_sum(data: tuple[int, ...], source: RandomSource) -> int:
    """GeoSample on the sum of values in 0..2: replacing a 0 by a 2 moves it by 2."""
    return _GEO4.sample(sum(data), source)
