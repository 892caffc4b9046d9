"""``lattice_exponent`` against brute force (powers built here by repeated multiplication),
and its cost on the ratios a FastSample release produces: bases a hair above 1, where a
step-by-step search of powers used to multiply thousands of huge rationals."""

from __future__ import annotations

import time
from fractions import Fraction as F

from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.accounting.lattice import common_base, lattice_exponent


def brute(x: F, base: F, limit: int) -> int | None:
    power = F(1)
    for k in range(limit + 1):
        if power == x:
            return k
        power *= base
    return None


@settings(max_examples=150, deadline=None)
@given(p=st.integers(2, 40), q=st.integers(1, 39), k=st.integers(0, 12),
       wobble=st.sampled_from([F(1), F(2, 3), F(7, 5), F(4), F(1, 9)]))
def test_matches_brute_force(p, q, k, wobble):
    base = F(p, q)
    if base <= 1:
        return
    x = base**k * wobble
    expected = brute(x, base, 40)
    assert lattice_exponent(x, base) == expected
    assert lattice_exponent(x, base, 5) == (expected if expected is not None and expected <= 5
                                            else None)


def test_limit_is_inclusive():
    assert lattice_exponent(F(9, 4), F(3, 2), 2) == 2
    assert lattice_exponent(F(27, 8), F(3, 2), 2) is None
    assert lattice_exponent(F(4, 9), F(3, 2)) is None  # below 1
    assert lattice_exponent(F(9, 2), F(3, 2)) is None  # numerator a power, denominator not
    assert lattice_exponent(F(8), F(2)) == 3


def test_base_near_one_is_cheap():
    base = F(10**40 + 1, 10**40)
    x = base**3000
    start = time.process_time()
    assert lattice_exponent(x, base) == 3000
    assert lattice_exponent(x * F(10**40 + 3, 10**40 + 2), base) is None
    assert lattice_exponent(x, base, 2999) is None
    # distinct ratios whose quotients are not powers of one base: no lattice, found quickly
    vals = sorted({F(10**30 + i * i, 10**30) for i in range(1, 300)})
    assert common_base(vals) is None
    assert time.process_time() - start < 2
