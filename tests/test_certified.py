"""Tests of exactdp.certified against sympy's certified evaluation and brute force.

How the sympy oracle (tests/sympy_oracle.py) decides a sign: ``expr.evalf(n, strict=True)``
either returns a value whose first ``n`` significant digits are guaranteed correct
(sympy/mpmath track the error of every operation and raise ``PrecisionExhausted`` rather
than return fewer correct digits), or raises.  A non-zero result with at least one correct
significant digit has the sign of the true value, so the sign is decided exactly.  A
result of exactly ``0`` proves nothing (sympy returned ``0`` with ``strict=True`` for
``ln(1 + 10**-40) - 0``), so a zero result counts as "undecided" and the precision is
raised; an expression that is exactly zero is recognised symbolically (``expr.is_zero``)
first, and one that stays undecided makes the test error out instead of passing.  For
logarithms the tests compare through ``exp`` (``ln x >= lo`` iff ``x >= e**lo``), where
sympy's evaluation does not suffer that cancellation.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st
from sympy_oracle import q as _q
from sympy_oracle import sympy_sign as _sympy_sign

from exactdp.certified import (
    MAX_PRECISION_BITS,
    Interval,
    ceil_log2,
    ceil_log_ratio,
    compare_exp,
    exp_interval,
    exp_lower_bound_at_least,
    floor_log2,
    ln_interval,
    precision_schedule,
)
from exactdp.params import ParameterError, ResourceLimitError


def _approx(expr: sympy.Expr, digits: int = 60) -> Fraction:
    """A rational within about 10**-digits (relative) of ``expr``."""
    return Fraction(str(sympy.N(expr, digits)))


def test_sympy_oracle_itself() -> None:
    # The oracle must decide close calls correctly and refuse nothing it should decide.
    assert _sympy_sign(sympy.E - sympy.Rational(27182818284590452353602874713526, 10**31)) == 1
    assert _sympy_sign(sympy.E - sympy.Rational(27182818284590452353602874713527, 10**31)) == -1
    assert _sympy_sign(sympy.log(1)) == 0


fractions_small = st.fractions(min_value=-40, max_value=40, max_denominator=10**6)
positive_fractions = st.fractions(min_value=Fraction(1, 10**9), max_value=10**12,
                                  max_denominator=10**9)


# ---------------------------------------------------------------- integer logarithms


@given(st.integers(min_value=1, max_value=2**300))
def test_ceil_and_floor_log2_vs_brute_force(x: int) -> None:
    a = ceil_log2(x)
    assert 2**a >= x
    assert a == 0 or 2 ** (a - 1) < x
    b = floor_log2(x)
    assert 2**b <= x < 2 ** (b + 1)


def test_ceil_log2_small_table() -> None:
    # Brute force: least a with 2**a >= x.
    for x in range(1, 2000):
        a = 0
        while 2**a < x:
            a += 1
        assert ceil_log2(x) == a


@pytest.mark.parametrize("fn", [ceil_log2, floor_log2])
@pytest.mark.parametrize("x", [0, -1])
def test_integer_logs_reject_below_one(fn: object, x: int) -> None:
    with pytest.raises(ParameterError):
        fn(x)  # type: ignore[operator]


# ---------------------------------------------------------------- e**x


@given(fractions_small, st.sampled_from([4, 32, 64, 150]))
def test_exp_interval_contains_e_to_x_and_is_narrow(x: Fraction, bits: int) -> None:
    box = exp_interval(x, bits)
    e_x = sympy.exp(_q(x))
    assert _sympy_sign(e_x - _q(box.lo)) >= 0
    assert _sympy_sign(_q(box.hi) - e_x) >= 0
    # width about 2**-bits relative to e**x (docstring); we check <= 2**-bits * hi.
    assert (box.hi - box.lo) * 2**bits <= box.hi


def test_exp_interval_at_zero_is_exact() -> None:
    assert exp_interval(Fraction(0), 10) == Interval(Fraction(1), Fraction(1))


@given(fractions_small, st.fractions(min_value=-5, max_value=10**20, max_denominator=10**12))
def test_compare_exp_vs_sympy_random(x: Fraction, r: Fraction) -> None:
    assert compare_exp(x, r) == _sympy_sign(sympy.exp(_q(x)) - _q(r))


@given(fractions_small.filter(lambda v: v != 0), st.integers(min_value=20, max_value=200),
       st.sampled_from([-1, 1]))
def test_compare_exp_close_calls(x: Fraction, digits: int, side: int) -> None:
    # r within about 10**-digits of e**x, on either side: forces refinement.
    r = _approx(sympy.exp(_q(x)), digits) + side * Fraction(1, 10 ** (digits + 5))
    expected = _sympy_sign(sympy.exp(_q(x)) - _q(r))
    assert compare_exp(x, r) == expected


def test_compare_exp_exact_cases() -> None:
    assert compare_exp(Fraction(0), Fraction(1)) == 0
    assert compare_exp(Fraction(0), Fraction(2)) == -1
    assert compare_exp(Fraction(0), Fraction(1, 2)) == 1
    assert compare_exp(Fraction(-100), Fraction(0)) == 1
    assert compare_exp(Fraction(-100), Fraction(-1)) == 1
    assert compare_exp(Fraction(1), Fraction(27, 10)) == 1
    assert compare_exp(Fraction(1), Fraction(272, 100)) == -1


@given(fractions_small.filter(lambda v: v != 0), st.integers(min_value=5, max_value=80))
def test_exp_lower_bound_at_least(x: Fraction, digits: int) -> None:
    e_x = sympy.exp(_q(x))
    close = _approx(e_x, digits + 20)  # relative error about 10**-(digits + 20)
    below = close * (1 - Fraction(1, 10**digits))
    above = close * (1 + Fraction(1, 10**digits))
    assert _sympy_sign(e_x - _q(below)) == 1 and _sympy_sign(_q(above) - e_x) == 1
    low = exp_lower_bound_at_least(x, below)
    assert below <= low
    assert _sympy_sign(e_x - _q(low)) >= 0
    with pytest.raises(ParameterError):
        exp_lower_bound_at_least(x, above)


def test_exp_lower_bound_at_zero() -> None:
    assert exp_lower_bound_at_least(Fraction(0), Fraction(1)) == 1
    with pytest.raises(ParameterError):
        exp_lower_bound_at_least(Fraction(0), Fraction(3, 2))


# ---------------------------------------------------------------- ln x


@given(positive_fractions, st.sampled_from([4, 32, 64, 150]))
def test_ln_interval_contains_ln_x_and_is_narrow(x: Fraction, bits: int) -> None:
    box = ln_interval(x, bits)
    assert _sympy_sign(_q(x) - sympy.exp(_q(box.lo))) >= 0
    assert _sympy_sign(sympy.exp(_q(box.hi)) - _q(x)) >= 0
    assert (box.hi - box.lo) * 2**bits <= 1


@pytest.mark.parametrize("x", [Fraction(1), Fraction(2), Fraction(1, 2), Fraction(2**1000),
                               Fraction(1, 3**500), Fraction(10**40 + 1, 10**40)])
def test_ln_interval_special_points(x: Fraction) -> None:
    box = ln_interval(x, 100)
    assert _sympy_sign(_q(x) - sympy.exp(_q(box.lo))) >= 0
    assert _sympy_sign(sympy.exp(_q(box.hi)) - _q(x)) >= 0


@pytest.mark.parametrize("x", [Fraction(0), Fraction(-1)])
def test_ln_rejects_nonpositive(x: Fraction) -> None:
    with pytest.raises(ParameterError):
        ln_interval(x, 10)


# ---------------------------------------------------------------- ceil_log_ratio


def _least_power_at_least(x: Fraction, base: Fraction) -> int:
    """Brute force: the least integer a >= 0 with base**a >= x."""
    a, power = 0, Fraction(1)
    while power < x:
        power *= base
        a += 1
    return a


@given(st.fractions(min_value=1, max_value=10**4, max_denominator=1000),
       st.fractions(min_value=Fraction(101, 100), max_value=10, max_denominator=1000))
def test_ceil_log_ratio_vs_brute_force(x: Fraction, base: Fraction) -> None:
    assume(base > 1)
    a = ceil_log_ratio(x, base)
    assert a == _least_power_at_least(x, base)
    assert base**a >= x
    assert a == 0 or base ** (a - 1) < x


@given(st.integers(min_value=2, max_value=50), st.integers(min_value=1, max_value=50),
       st.integers(min_value=0, max_value=60))
def test_ceil_log_ratio_exact_powers(p: int, q: int, j: int) -> None:
    # x = base**j exactly: the answer is j, the case an interval cannot settle alone.
    base = 1 + Fraction(p, q) if p % q else Fraction(p + q, q)
    assume(base > 1)
    x = base**j
    assert ceil_log_ratio(x, base) == j
    # and just above the power, one more
    assert ceil_log_ratio(x + Fraction(1, 10**30), base) == j + 1


@given(st.integers(min_value=0, max_value=8), st.integers(min_value=1, max_value=10**5))
def test_ceil_log_ratio_paper_bases(k: int, m: int) -> None:
    # The paper's accuracy bounds: base (2**k + 1)/2**k, x = 1/beta.
    base = Fraction(2**k + 1, 2**k)
    assert ceil_log_ratio(Fraction(m), base) == _least_power_at_least(Fraction(m), base)


def _ln1p_bounds(h: Fraction, terms: int = 8) -> tuple[Fraction, Fraction]:
    """Exact bounds on ln(1 + h), 0 < h < 1, from the alternating series
    h - h**2/2 + h**3/3 - ...: consecutive partial sums bracket the value.

    (Not sympy: ``sympy.log(1 + 2**-202).evalf(30, strict=True)`` returns 0.)"""
    total, sums = Fraction(0), []
    for i in range(1, terms + 1):
        total += (-1) ** (i + 1) * h**i / i
        sums.append(total)
    return min(sums[-2:]), max(sums[-2:])


def _ln_bounds(x: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """Rational bounds on ln x (x not near 1), verified through sympy's exp."""
    mid = _approx(sympy.log(_q(x)), digits + 10)
    lo, hi = mid - Fraction(1, 10**digits), mid + Fraction(1, 10**digits)
    assert _sympy_sign(_q(x) - sympy.exp(_q(lo))) == 1
    assert _sympy_sign(sympy.exp(_q(hi)) - _q(x)) == 1
    return lo, hi


@pytest.mark.parametrize("k", [12, 64, 202])
def test_ceil_log_ratio_tiny_base(k: int) -> None:
    # base = 1 + 2**-k, x = 3: a is about 2**k ln 3.  Check a*ln(base) >= ln 3 >
    # (a-1)*ln(base) with exact bounds; for small k also base**a >= 3 > base**(a-1).
    base = 1 + Fraction(1, 2**k)
    a = ceil_log_ratio(Fraction(3), base)
    if k <= 12:
        assert base**a >= 3 > base ** (a - 1)
    l_lo, l_hi = _ln1p_bounds(Fraction(1, 2**k))
    ln3_lo, ln3_hi = _ln_bounds(Fraction(3), 2 * k + 40)
    assert a * l_lo >= ln3_hi
    assert (a - 1) * l_hi < ln3_lo


def test_ln1p_bounds_sanity() -> None:
    lo, hi = _ln1p_bounds(Fraction(1, 2))
    assert lo < hi
    assert _sympy_sign(sympy.log(sympy.Rational(3, 2)) - _q(lo)) == 1
    assert _sympy_sign(_q(hi) - sympy.log(sympy.Rational(3, 2))) == 1


@pytest.mark.parametrize(("x", "base"), [(Fraction(1, 2), Fraction(2)), (Fraction(2), Fraction(1)),
                                         (Fraction(2), Fraction(1, 2)), (Fraction(0), Fraction(2))])
def test_ceil_log_ratio_preconditions(x: Fraction, base: Fraction) -> None:
    with pytest.raises(ParameterError):
        ceil_log_ratio(x, base)


def test_ceil_log_ratio_of_one_is_zero() -> None:
    assert ceil_log_ratio(Fraction(1), Fraction(3, 2)) == 0


# ---------------------------------------------------------------- Interval


def test_interval() -> None:
    box = Interval(Fraction(1), Fraction(2))
    assert Fraction(3, 2) in box
    assert Fraction(1) in box and Fraction(2) in box
    assert Fraction(5, 2) not in box
    assert str(box) == "[1, 2]"
    with pytest.raises(ValueError):
        Interval(Fraction(2), Fraction(1))


# --- the precision schedule: every refinement loop reaches MAX_PRECISION_BITS before giving up


@given(st.integers(min_value=-5, max_value=MAX_PRECISION_BITS + 10))
def test_precision_schedule_doubles_and_ends_at_the_limit(start: int) -> None:
    s = list(precision_schedule(start))
    assert s[-1] == MAX_PRECISION_BITS
    assert s[0] == min(max(start, 1), MAX_PRECISION_BITS)
    assert all(b <= MAX_PRECISION_BITS for b in s)
    assert all(b2 == 2 * b1 for b1, b2 in itertools.pairwise(s[:-1]))
    assert len(s) == len(set(s))


def _undecidable(record: list[int]):
    """A stand-in interval function that records the precision and never decides."""
    def box(x: Fraction, bits: int) -> Interval:
        record.append(bits)
        return Interval(Fraction(-10**9), Fraction(10**9))
    return box


@pytest.mark.parametrize("call", [
    lambda: compare_exp(Fraction(1, 3), Fraction(7, 5)),
    lambda: exp_lower_bound_at_least(Fraction(1, 3), Fraction(7, 5)),
    lambda: ceil_log_ratio(Fraction(20), Fraction(3, 2)),
    lambda: ceil_log_ratio(Fraction(20), 1 + Fraction(1, 2**40)),
])
def test_refinement_tries_the_documented_limit_before_giving_up(
        monkeypatch: pytest.MonkeyPatch, call: object) -> None:
    """The module promises refinement up to MAX_PRECISION_BITS bits; a loop that stopped at
    half of it (ceil_log_ratio did, for most bases) or skipped the last step would raise
    ResourceLimitError on comparisons the documented limit decides."""
    from exactdp import certified
    record: list[int] = []
    monkeypatch.setattr(certified, "exp_interval", _undecidable(record))
    monkeypatch.setattr(certified, "ln_interval", _undecidable(record))
    with pytest.raises(ResourceLimitError):
        call()  # type: ignore[operator]
    assert max(record) == MAX_PRECISION_BITS == record[-1]
    assert record == sorted(record)


@pytest.mark.parametrize("call", [
    lambda: compare_exp(Fraction(1, 3), Fraction(7, 5)),
    lambda: exp_lower_bound_at_least(Fraction(1, 3), Fraction(7, 5)),
])
def test_exp_comparisons_try_the_documented_precisions(
        monkeypatch: pytest.MonkeyPatch, call: object) -> None:
    """The docstrings promise 64 bits first, then doubling up to 2**20 bits."""
    from exactdp import certified
    record: list[int] = []
    monkeypatch.setattr(certified, "exp_interval", _undecidable(record))
    with pytest.raises(ResourceLimitError):
        call()  # type: ignore[operator]
    assert record == [64 << i for i in range(15)]
    assert record[-1] == 2**20


@pytest.mark.parametrize("k", [1, 7, 64, 300, 2000])
def test_ceil_log_ratio_tiny_base_decides_at_its_first_precision(
        monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """ln(1 + 2**-k) ~ 2**-k: the first precision is chosen below it, so the accuracy bounds
    ``ceil(ln x / ln(1 + 2**-k))`` cost one pair of logarithms, not ~log2(k) doublings."""
    from exactdp import certified
    calls: list[int] = []
    real = certified.ln_interval

    def counting(x: Fraction, bits: int) -> Interval:
        calls.append(bits)
        return real(x, bits)

    monkeypatch.setattr(certified, "ln_interval", counting)
    for x in (Fraction(20), Fraction(10**6 + 3), Fraction(2**61 - 1, 3)):
        calls.clear()
        a = ceil_log_ratio(x, 1 + Fraction(1, 2**k))
        base = 1 + Fraction(1, 2**k)
        if k <= 7:  # the exact answer, independently, where powers are cheap
            assert base**a >= x > base**(a - 1)
        assert len(calls) == 2, (k, x, calls)


# ---------------------------------------------------------------- the integer form = the Fraction form

def _reference_exp(x: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """The Fraction form of exp_interval's steps (as the module computed them before its
    integer form): Taylor sums of ``y = x / 2**j <= 1/2``, tail ``term y/(i+1)/(1 - y/(i+2))``,
    rounded out to ``2**-work`` and squared ``j`` times."""
    def out(lo: Fraction, hi: Fraction, b: int) -> tuple[Fraction, Fraction]:
        s = 1 << b
        return (Fraction((lo.numerator * s) // lo.denominator, s),
                Fraction(-((-hi.numerator * s) // hi.denominator), s))
    if x == 0:
        return Fraction(1), Fraction(1)
    if x < 0:
        lo, hi = _reference_exp(-x, bits + 2)
        return 1 / hi, 1 / lo
    j = 0
    while x / (1 << j) > Fraction(1, 2):
        j += 1
    y, work = x / (1 << j), bits + 2 * j + 8
    term = total = Fraction(1)
    i = 0
    while True:
        i += 1
        term = term * y / i
        total += term
        tail = term * y / (i + 1) / (1 - y / (i + 2))
        if tail * (1 << work) < 1:
            break
    lo, hi = out(total, total + tail, work)
    for _ in range(j):
        lo, hi = out(lo * lo, hi * hi, work)
    return lo, hi


def _reference_atanh(s: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    if s == 0:
        return Fraction(0), Fraction(0)
    s2, power, total, i = s * s, s, Fraction(0), 0
    while True:
        total += power / (2 * i + 1)
        i += 1
        power *= s2
        tail = power / (2 * i + 1) / (1 - s2)
        if tail * (1 << (bits + 2)) < 1:
            break
    sc = 1 << (bits + 2)
    return (Fraction((total.numerator * sc) // total.denominator, sc),
            Fraction(-((-(total + tail).numerator * sc) // (total + tail).denominator), sc))


def _reference_ln(x: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    j = x.numerator.bit_length() - x.denominator.bit_length()
    y = x / (1 << j) if j >= 0 else x * (1 << -j)
    if y < 1:
        j, y = j - 1, 2 * y
    extra = abs(j).bit_length() + 4
    y_lo, y_hi = _reference_atanh((y - 1) / (y + 1), bits + 2)
    if j == 0:
        return 2 * y_lo, 2 * y_hi
    h_lo, h_hi = _reference_atanh(Fraction(1, 3), bits + extra)
    if j > 0:
        return 2 * (j * h_lo + y_lo), 2 * (j * h_hi + y_hi)
    return 2 * (j * h_hi + y_lo), 2 * (j * h_lo + y_hi)


_EQ_XS = [Fraction(1, 1000), Fraction(1, 3), Fraction(1, 2), Fraction(9, 20), Fraction(1),
          Fraction(37, 3), Fraction(40), Fraction(1, 2**200 + 1), Fraction(123456, 1000)]
_EQ_LN = [Fraction(1, 3), Fraction(1), Fraction(2), Fraction(3, 2), Fraction(2**64 + 1),
          Fraction(1, 2**64), 1 + Fraction(1, 2**60), Fraction(10**6), Fraction(1025, 1024)]


def _integer_form_equals_fraction_form(xs: list[Fraction], lns: list[Fraction],
                                       bits_list: tuple[int, ...]) -> bool:
    from exactdp import certified
    certified.clear_caches()
    for bits in bits_list:
        for x in xs:
            for v in (x, -x):
                box = exp_interval(v, bits)
                if (box.lo, box.hi) != _reference_exp(v, bits):
                    return False
        for x in lns:
            box = ln_interval(x, bits)
            if (box.lo, box.hi) != _reference_ln(x, bits):
                return False
    return True


def test_integer_form_gives_the_fraction_forms_intervals() -> None:
    """exp_interval / ln_interval compute in integers over common denominators and memoize;
    the intervals must be exactly those of the Fraction form of the same steps (certificates
    print them), on fixed points and twice (the second time from the memo tables)."""
    for _ in range(2):
        assert _integer_form_equals_fraction_form(_EQ_XS, _EQ_LN, (1, 4, 30, 64, 200, 700))


@given(st.fractions(min_value=Fraction(1, 10**9), max_value=45, max_denominator=10**9),
       st.sampled_from([1, 3, 8, 64, 96, 250]))
def test_integer_form_equals_fraction_form_random(x: Fraction, bits: int) -> None:
    assert _integer_form_equals_fraction_form([x], [x, 1 / x], (bits,))


@pytest.mark.parametrize(("name", "old", "new"), [
    ("_scaled_out", "hi_n = -((-hi_num << bits) // hi_den)", "hi_n = (hi_num << bits) // hi_den"),
    ("_exp_pos", "s = s * big_q * i + power", "s = s * big_q * i + power - (i == 3)"),
    ("_atanh_n", "+ power * (m_next // k)", "+ power * (m_next // k) * (k < 7)"),
])
def test_integer_form_comparison_catches_a_planted_bug(monkeypatch: pytest.MonkeyPatch,
                                                      name: str, old: str, new: str) -> None:
    """The equality test above fails on a planted bug in the integer form: an upper end
    rounded down, one Taylor numerator off by one, the atanh terms from s^7 on dropped."""
    import inspect
    import textwrap

    from exactdp import certified
    fn = getattr(certified, name)
    source = textwrap.dedent(inspect.getsource(fn))
    assert source.count(old) == 1
    namespace: dict[str, object] = {}
    exec(compile(source.replace(old, new), "<mutant>", "exec"),  # noqa: S102
         fn.__globals__, namespace)
    monkeypatch.setattr(fn, "__code__", namespace[name].__code__)  # type: ignore[attr-defined]
    try:
        same = _integer_form_equals_fraction_form(_EQ_XS, _EQ_LN, (4, 64))
    finally:
        monkeypatch.undo()
        certified.clear_caches()
    assert not same
