"""Exact convolutions, transforms and domains of exactdp.convolution (paper 002, notes §3).

Expected values come from the definitions (double sums, sympy), never from the code under test.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from exactdp.convolution import (
    Domain,
    circulant,
    circular_convolve,
    fwht,
    hartley4,
    real_fourier_rounded,
    walsh_matrix,
    xor_circulant,
    xor_convolve,
    xor_convolve_direct,
)
from exactdp.convolution.transforms import (
    real_fourier_basis_squares,
    round_half_up_scaled_cos,
    round_half_up_sqrt,
)
from exactdp.params import (
    DomainError,
    FloatParameterError,
    ParameterError,
    ParameterTypeError,
)

exact_numbers = st.one_of(
    st.integers(-50, 50),
    st.fractions(min_value=-20, max_value=20, max_denominator=7),
)


def pow2_vectors(elements: st.SearchStrategy[object], max_d: int = 4) -> st.SearchStrategy:
    return st.integers(0, max_d).flatmap(
        lambda d: st.lists(elements, min_size=1 << d, max_size=1 << d))


def popcount_sign(a: int, b: int) -> int:
    return (-1) ** bin(a & b).count("1")  # noqa: FURB161 (not the code's bit_count)


# ------------------------------------------------------------------ Walsh-Hadamard


@given(pow2_vectors(exact_numbers, 5))
def test_fwht_is_the_walsh_sum(v: list[object]) -> None:
    n = len(v)
    expected = [sum((popcount_sign(j, m) * v[m] for m in range(n)), Fraction(0))
                for j in range(n)]
    assert fwht(v) == expected


@given(pow2_vectors(st.integers(-10**30, 10**30), 4))
def test_fwht_twice_is_n_times_identity_on_ints(v: list[int]) -> None:
    w = fwht(v)
    assert all(type(a) is int for a in w)
    assert fwht(w) == [len(v) * a for a in v]


def test_walsh_matrix_squares_to_n_identity() -> None:
    for n in (1, 2, 4, 8, 16):
        w = walsh_matrix(n)
        for i in range(n):
            for j in range(n):
                assert w[i][j] == popcount_sign(i, j)
                assert sum(w[i][k] * w[k][j] for k in range(n)) == (n if i == j else 0)


def test_fwht_schedule_is_fixed() -> None:
    from exactdp.trace import recording

    traces = []
    for v in ([0] * 16, list(range(16)), [10**40] * 16, [Fraction(1, 3)] * 16):
        with recording() as events:
            fwht(v)
        traces.append(tuple(events))
    assert len(set(traces)) == 1
    assert traces[0] == (("fwht-round", 16),) * 4


def test_fwht_refuses_bad_input() -> None:
    with pytest.raises(ParameterError, match="2\\^d"):
        fwht([1, 2, 3])
    with pytest.raises(FloatParameterError, match=r"v\[1\]"):
        fwht([1, 0.5])
    with pytest.raises(ParameterTypeError):
        fwht([True, 1])
    with pytest.raises(ParameterTypeError):
        fwht("1234")


# ------------------------------------------------------------------ convolutions


@given(st.data())
def test_xor_convolve_equals_direct_sum(data: st.DataObject) -> None:
    d = data.draw(st.integers(0, 4))
    h = data.draw(st.lists(exact_numbers, min_size=1 << d, max_size=1 << d))
    x = data.draw(st.lists(exact_numbers, min_size=1 << d, max_size=1 << d))
    n = len(h)
    direct = [sum((x[b] * h[a ^ b] for b in range(n)), Fraction(0)) for a in range(n)]
    assert xor_convolve(h, x) == direct
    assert xor_convolve_direct(h, x) == direct
    mat = xor_circulant(h)
    assert [sum((mat[a][b] * x[b] for b in range(n)), Fraction(0)) for a in range(n)] == direct


@given(st.data())
def test_xor_convolve_ints_stay_ints(data: st.DataObject) -> None:
    d = data.draw(st.integers(0, 5))
    h = data.draw(st.lists(st.integers(-9, 9), min_size=1 << d, max_size=1 << d))
    x = data.draw(st.lists(st.integers(0, 9), min_size=1 << d, max_size=1 << d))
    y = xor_convolve(h, x)
    assert all(type(v) is int for v in y)


@given(st.data())
def test_circular_convolve_is_eq_1(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 9))
    h = data.draw(st.lists(exact_numbers, min_size=n, max_size=n))
    x = data.draw(st.lists(exact_numbers, min_size=n, max_size=n))
    # y_k = sum_n x_n h_{(k - n) mod N}, written with sympy as an independent evaluator
    hs, xs = sympy.Matrix([sympy.nsimplify(v) for v in h]), [sympy.nsimplify(v) for v in x]
    expected = [sum(xs[m] * hs[(k - m) % n] for m in range(n)) for k in range(n)]
    y = circular_convolve(h, x)
    assert [sympy.Rational(v.numerator, v.denominator) for v in map(Fraction, y)] == expected
    mat = circulant(h)
    assert [mat[k][0] for k in range(n)] == [Fraction(v) for v in h]  # first column is h


def test_circular_convolve_small_example() -> None:
    # running sum of width 2 on Z_4: y_k = x_k + x_{k-1}
    assert circular_convolve([1, 1, 0, 0], [1, 2, 3, 4]) == [5, 3, 5, 7]
    assert xor_convolve([0, 1, 0, 0], [1, 2, 3, 4]) == [2, 1, 4, 3]  # y_a = x_{a XOR 1}


def test_convolutions_refuse_mismatches() -> None:
    with pytest.raises(ParameterError, match="equal lengths"):
        circular_convolve([1, 2], [1, 2, 3])
    with pytest.raises(ParameterError, match="2\\^d"):
        xor_convolve([1, 2, 3], [1, 2, 3])
    with pytest.raises(FloatParameterError, match=r"h\[0\]"):
        circular_convolve([0.1], [1])


# ------------------------------------------------------------------ rounded strategies


def test_hartley4_is_cas() -> None:
    for k in range(4):
        for m in range(4):
            cas = sympy.cos(2 * sympy.pi * k * m / 4) + sympy.sin(2 * sympy.pi * k * m / 4)
            assert hartley4()[k][m] == int(sympy.nsimplify(cas))
    h = hartley4()
    assert [[sum(h[k][i] * h[k][j] for k in range(4)) for j in range(4)] for i in range(4)] == \
        [[4 if i == j else 0 for j in range(4)] for i in range(4)]


def test_real_fourier_rounded_z3_example_of_the_notes() -> None:
    # notes §3.0: T = round(3 Q) on Z_3
    assert real_fourier_rounded(3, 3) == [[2, 2, 2], [2, -1, -1], [0, 2, -2]]


def _sympy_entry(c: Fraction, j: int, m: int, n: int) -> int:
    """round_half_up(c Q[j][m]) with Q the real orthonormal Fourier basis, by sympy."""
    cc = sympy.Rational(c.numerator, c.denominator)
    if j == 0:
        q = 1 / sympy.sqrt(n)
    elif n % 2 == 0 and j == n - 1:
        q = sympy.Integer(-1) ** m / sympy.sqrt(n)
    else:
        k = (j + 1) // 2
        trig = sympy.cos if j % 2 == 1 else sympy.sin
        q = sympy.sqrt(sympy.Rational(2, n)) * trig(2 * sympy.pi * k * m / n)
    return int(sympy.floor(cc * q + sympy.Rational(1, 2)))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 8, 12, 16])
@pytest.mark.parametrize("c", [Fraction(1), Fraction(2), Fraction(5, 2), Fraction(8),
                               Fraction(32)])
def test_real_fourier_rounded_matches_sympy(n: int, c: Fraction) -> None:
    t = real_fourier_rounded(n, c)
    assert len(t) == n and all(len(row) == n for row in t)
    for j in range(n):
        for m in range(n):
            assert t[j][m] == _sympy_entry(c, j, m, n), (n, c, j, m)


def test_ties_beyond_rational_cosines() -> None:
    # N = 16, c = 2: 2 sqrt(2/16) cos(2 pi 2/16) = 2 (1/(2 sqrt 2)) (1/sqrt 2) = 1/2 exactly, a tie
    # where cos itself is irrational; half up gives 1 (and -1/2 at cos(3 pi/4) gives 0)
    t = real_fourier_rounded(16, 2)
    assert t[3][1] == 1  # row 3 = cos row of k = 2, column m = 1
    assert t[3][3] == 0  # cos(2 pi 6/16) = -1/sqrt 2: -1/2 rounds up to 0
    assert round_half_up_scaled_cos(Fraction(4 * 2, 16), Fraction(2, 16)) == 1


def test_round_half_up_sqrt_ties_and_signs() -> None:
    cases = [(1, Fraction(1, 4), 1), (-1, Fraction(1, 4), 0), (1, Fraction(9, 4), 2),
             (-1, Fraction(9, 4), -1), (1, Fraction(2), 1), (-1, Fraction(2), -1),
             (1, Fraction(0), 0), (-1, Fraction(6), -2), (1, Fraction(6), 2)]
    for sign, square, expected in cases:  # floor(+-sqrt(square) + 1/2) by hand
        assert round_half_up_sqrt(sign, square) == expected


@given(st.fractions(min_value=0, max_value=400, max_denominator=50), st.sampled_from([1, -1]))
def test_round_half_up_sqrt_against_sympy(square: Fraction, sign: int) -> None:
    v = sign * sympy.sqrt(sympy.Rational(square.numerator, square.denominator))
    assert round_half_up_sqrt(sign, square) == int(sympy.floor(v + sympy.Rational(1, 2)))


def test_real_fourier_basis_is_orthonormal_in_squares() -> None:
    # Q Q^T = I checked exactly with sympy for N = 6 from the (s, t) description
    n = 6
    rows = real_fourier_basis_squares(n)
    q = sympy.Matrix([[sympy.sqrt(sympy.Rational(s.numerator, s.denominator))
                       * sympy.cos(2 * sympy.pi * sympy.Rational(t.numerator, t.denominator))
                       for s, t in row] for row in rows])
    assert sympy.simplify(q * q.T - sympy.eye(n)) == sympy.zeros(n, n)


def test_real_fourier_rounded_refuses() -> None:
    with pytest.raises(ParameterError, match="c = 0"):
        real_fourier_rounded(4, 0)
    with pytest.raises(FloatParameterError):
        real_fourier_rounded(4, 2.0)


# ------------------------------------------------------------------ domains


def test_domain_row_ranges_by_enumeration() -> None:
    rows = [[1, 1, 1, 1], [1, -1, 1, -1], [2, -1, 0, 3], [0, 0, 0, 0], [-2, -1, -1, 0]]
    for dom in (Domain.histograms(4, 3), Domain.box(4, 2)):
        elements = list(dom.elements())
        assert len(elements) == dom.size()
        for row in rows:
            values = [sum(a * b for a, b in zip(row, x, strict=True)) for x in elements]
            assert dom.row_range(row) == (min(values), max(values))


def test_domain_validation_and_neighbours() -> None:
    dom = Domain.histograms(3, 2)
    assert dom.validate([1, 0, 1]) == [1, 0, 1]
    assert [1, 1, 1] not in dom and (0, 0, 2) in dom
    with pytest.raises(DomainError, match="n = 2"):
        dom.validate([1, 1, 1])
    with pytest.raises(DomainError, match="negative"):
        dom.validate([-1, 0, 0])
    with pytest.raises(ParameterTypeError, match=r"x\[1\]"):
        dom.validate([0, 0.5, 0])
    with pytest.raises(DomainError, match="length"):
        dom.validate([0, 0])
    assert list(dom.neighbours([1, 0, 0])) == [(0, (2, 0, 0)), (1, (1, 1, 0)), (2, (1, 0, 1))]
    assert list(dom.neighbours([1, 1, 0])) == []
    box = Domain.box(2, 1)
    assert list(box.neighbours([1, 0])) == [(1, (1, 1))]
    with pytest.raises(DomainError, match="m = 1"):
        box.validate([2, 0])
    with pytest.raises(ParameterError):
        Domain.histograms(0, 3)
    with pytest.raises(ParameterTypeError):
        Domain.box(2, 1.0)
