"""uniform(a, b) values compared exactly (exactdp.audit.facade_monotone): the cut of every
comparison checked against CPython's own Random.uniform and numpy's formula on the two j
around it; whole audits against ratios counted here by bisection on the libraries' floats."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import whitebox_audit
from exactdp.audit.facade_floats import affine_unit
from exactdp.audit.facade_lazy import LazyUnit
from exactdp.audit.facade_monotone import LazyIncreasing
from tests.audit_targets import bench_targets as B

TWO53 = 1 << 53


class _AtJ(random.Random):
    """CPython's Random whose random() is j / 2^53 for a chosen j: its uniform() is the
    library's formula, not the audit's."""

    def __init__(self, j: int) -> None:
        super().__init__(0)
        self.j = j

    def random(self) -> float:
        return math.ldexp(self.j, -53)


def _first(pred) -> int:  # least j in [0, 2^53] with pred(j), pred monotone
    lo, hi = 0, TWO53
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _cut(a, b, x, op: str, answer_on_prefix: bool) -> tuple[int, int]:
    """Split a fresh LazyIncreasing of uniform(a, b) by ``value OP x``; the branch taken
    is the first part, so the cell becomes the prefix where the answer is the first one."""
    taken = []

    def branch(lengths: tuple[int, ...]) -> int:
        taken.append(lengths)
        return 0

    unit = LazyUnit(TWO53, branch, lambda what: pytest.fail(f"escaped: {what}"))
    value = LazyIncreasing(unit, affine_unit(a, b))
    {"<": value.__lt__, "<=": value.__le__, ">": value.__gt__, ">=": value.__ge__}[op](x)
    cell = object.__getattribute__(value, "_cell")
    return cell[0], cell[1]


OPS = {"<": lambda v, x: v < x, "<=": lambda v, x: v <= x, ">": lambda v, x: v > x,
       ">=": lambda v, x: v >= x}


def _check_cut(lo_, hi_, x, op: str) -> None:
    first = _first(lambda j: OPS[op](_AtJ(j).uniform(lo_, hi_), x)
                   != OPS[op](_AtJ(0).uniform(lo_, hi_), x))
    start, end = _cut(lo_, hi_, x, op, True)
    assert start == 0
    assert end == (first if first > 0 else TWO53), (lo_, hi_, x, op)
    # the answer on the whole prefix is the library's at its two ends
    assert OPS[op](_AtJ(end - 1).uniform(lo_, hi_), x) == OPS[op](_AtJ(0).uniform(lo_, hi_), x)


@settings(max_examples=60, deadline=None)
@given(a=st.integers(-8, 8), width=st.integers(1, 12), k=st.integers(0, 255),
       op=st.sampled_from(sorted(OPS)), frac=st.booleans())
def test_each_cut_is_where_cpythons_uniform_changes_its_answer(
        a: int, width: int, k: int, op: str, frac: bool) -> None:
    lo_, hi_ = (a / 4, (a + width) / 4) if frac else (a, a + width)
    x = lo_ + Fraction(k * width, 256) + (Fraction(1, 3) if frac else 0)
    _check_cut(lo_, hi_, float(x) if frac else x, op)  # a float and an exact Fraction


@pytest.mark.parametrize("plant", [1, -1])
def test_a_planted_off_by_one_cut_is_caught(monkeypatch: pytest.MonkeyPatch, plant: int) -> None:
    real = LazyIncreasing._first
    monkeypatch.setattr(LazyIncreasing, "_first",
                        lambda self, n, d, s: real(self, n, d, s) + plant)
    with pytest.raises(AssertionError):
        _check_cut(0, 5, 4, "<")
    with pytest.raises(AssertionError):
        _check_cut(-1.5, 2.5, 1.5, ">=")


def test_numpys_formula_is_the_same_function() -> None:
    np = pytest.importorskip("numpy")
    g = affine_unit(-1.5, 2.5)
    for j in (0, 1, 3 << 50, TWO53 - 1, 6305039478318694):
        u = math.ldexp(j, -53)
        assert g(j) == np.float64(-1.5) + (np.float64(2.5) - np.float64(-1.5)) * u


@pytest.mark.parametrize("bad", [(float("inf"), 1.0), (0.0, float("nan")), (2, 1), (1, 1),
                                 (1 << 60, 1 << 61), ("0", 1), (-1e308, 1e308)])
def test_no_lazy_value_where_monotonicity_is_not_sure(bad: tuple) -> None:
    assert affine_unit(*bad) is None


def _audit(fn, rng: str = "random"):
    from exactdp.audit.facades import facade_mechanism

    return whitebox_audit(facade_mechanism(fn, rng), inputs=range(2), claimed_epsilon=1)


@pytest.mark.parametrize("fn", [B.rr_uniform, B.rr_uniform_shifted])
def test_dyadic_uniform_comparisons_pass_at_ratio_3(fn) -> None:
    for rng in ("random", "numpy"):
        if rng == "numpy":
            pytest.importorskip("numpy")
        r = _audit(fn, rng)
        assert r.worst.ratio == 3 and "explored by their effect" not in r.method, r.method
        assert r.verdict == "violation"  # 3 > e: the claim 1 is broken, exactly at 3


def test_a_non_dyadic_cut_gives_the_librarys_exact_ratio() -> None:
    kept = _first(lambda j: not _AtJ(j).uniform(0, 5) < 4)  # j below: kept
    expected = Fraction(kept, TWO53 - kept)
    assert abs(expected - 4) < Fraction(1, 10 ** 14) and expected != 4
    r = _audit(B.rr_uniform_fifths)
    assert r.worst.ratio == expected and "explored by their effect" not in r.method


@pytest.mark.parametrize("fn", [B.rr_uniform_rounded, B.rr_uniform_reversed])
def test_other_uses_are_explored_by_effect_and_never_pass(fn) -> None:
    from exactdp.audit.facades import facade_mechanism

    r = whitebox_audit(facade_mechanism(fn, "random"), inputs=range(2), claimed_epsilon=2)
    assert r.verdict != "pass" and "explored by their effect" in r.method
