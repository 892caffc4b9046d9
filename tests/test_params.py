"""Tests of exactdp.params: exact parameter parsing and the error types (DESIGN.md rule 4, 5)."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

import gmpy2
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from exactdp.params import (
    DomainError,
    ExactDPError,
    FloatParameterError,
    NotInverseIntegerError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    check_count,
    inverse_integer,
    positive_int,
    to_fraction,
)

# ---------------------------------------------------------------- error hierarchy


def test_error_types_subclass_builtin_value_and_type_errors() -> None:
    assert issubclass(ParameterError, ValueError)
    assert issubclass(ParameterError, ExactDPError)
    assert issubclass(ParameterTypeError, TypeError)
    assert issubclass(ParameterTypeError, ExactDPError)
    assert issubclass(FloatParameterError, ParameterTypeError)
    assert issubclass(NotInverseIntegerError, ParameterError)
    assert issubclass(DomainError, ParameterError)
    assert issubclass(ResourceLimitError, ValueError)
    assert issubclass(ResourceLimitError, ExactDPError)


# ---------------------------------------------------------------- accepted inputs


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Fraction(1, 10), Fraction(1, 10)),
        (1, Fraction(1)),
        ("1/10", Fraction(1, 10)),
        (" 1 / 10 ", Fraction(1, 10)),
        ("0.1", Fraction(1, 10)),
        ("0.125", Fraction(1, 8)),
        ("1e-1", Fraction(1, 10)),
        (".5", Fraction(1, 2)),
        ("3", Fraction(3)),
        (gmpy2.mpq(1, 10), Fraction(1, 10)),
        (gmpy2.mpz(7), Fraction(7)),
        (sympy.Rational(1, 10), Fraction(1, 10)),
    ],
)
def test_to_fraction_accepts_exact_values(value: object, expected: Fraction) -> None:
    got = to_fraction(value, "epsilon")
    assert type(got) is Fraction
    assert got == expected


def test_decimal_string_is_exact_not_binary() -> None:
    # "0.1" must be exactly 1/10, not the binary double nearest to it.
    assert to_fraction("0.1", "x") == Fraction(1, 10)
    assert to_fraction("0.1", "x") != Fraction(0.1)


@given(st.integers(min_value=1, max_value=10**30))
def test_inverse_integer_accepts_every_one_over_m(m: int) -> None:
    for text in (f"1/{m}", Fraction(1, m), gmpy2.mpq(1, m)):
        assert inverse_integer(text, "epsilon") == Fraction(1, m)


def test_inverse_integer_accepts_one_and_decimal_forms() -> None:
    assert inverse_integer(1, "epsilon") == 1
    assert inverse_integer("0.25", "gamma") == Fraction(1, 4)
    assert inverse_integer("1/" + "9" * 400, "gamma") == Fraction(1, int("9" * 400))


# ---------------------------------------------------------------- floats and other types


@pytest.mark.parametrize("value", [0.1, 0.5, 1.0, 1e-300, float("nan"), float("inf")])
def test_float_rejected_with_advice(value: float) -> None:
    with pytest.raises(FloatParameterError) as info:
        inverse_integer(value, "epsilon")
    msg = str(info.value)
    assert "epsilon" in msg
    assert "float" in msg
    # It must say what to pass instead: a Fraction or a string.
    assert "Fraction(" in msg or "'" in msg
    assert isinstance(info.value, TypeError)


def test_float_advice_for_one_tenth_is_the_exact_one_tenth() -> None:
    with pytest.raises(FloatParameterError) as info:
        to_fraction(0.1, "epsilon")
    assert "Fraction(1, 10)" in str(info.value)
    assert "'1/10'" in str(info.value)


def test_numpy_float64_is_a_float_and_rejected() -> None:
    np = pytest.importorskip("numpy")
    with pytest.raises(FloatParameterError):
        to_fraction(np.float64(0.25), "beta")


@pytest.mark.parametrize("value", [gmpy2.mpfr("0.1"), sympy.Float("0.1")])
def test_floating_point_library_types_rejected_as_float(value: object) -> None:
    with pytest.raises(FloatParameterError) as info:
        to_fraction(value, "delta")
    assert "delta" in str(info.value)


@pytest.mark.parametrize("value", [True, False])
def test_bool_rejected(value: bool) -> None:
    with pytest.raises(ParameterTypeError) as info:
        inverse_integer(value, "gamma")
    assert "gamma" in str(info.value)
    with pytest.raises(ParameterTypeError):
        positive_int(value, "n")


@pytest.mark.parametrize("value", [None, [1, 10], object(), Decimal("0.1"), 1j])
def test_other_types_rejected_with_type_error(value: object) -> None:
    with pytest.raises(ParameterTypeError) as info:
        to_fraction(value, "epsilon")
    assert "epsilon" in str(info.value)


@pytest.mark.parametrize("text", ["abc", "1/", "/2", "1//2", "nan", "inf", "", "0x10", "1/2/3"])
def test_malformed_strings_rejected(text: str) -> None:
    with pytest.raises(ParameterError) as info:
        to_fraction(text, "epsilon")
    assert "epsilon" in str(info.value)


@contextmanager
def _default_int_str_limit() -> Iterator[None]:
    """CPython's default 4300-digit cap on int <-> str (the CLI lifts it process-wide)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def test_very_long_parameter_strings_are_exact() -> None:
    m = 10**5000 - 1
    with _default_int_str_limit():
        text = "1/" + "9" * 5000
        assert inverse_integer(text, "gamma") == Fraction(1, m)


def test_zero_denominator_string_rejected() -> None:
    with pytest.raises(ParameterError, match="epsilon"):
        to_fraction("1/0", "epsilon")


# ---------------------------------------------------------------- the N^{-1} rule


@pytest.mark.parametrize("value", [0, "0", Fraction(0), -1, "-1/10", Fraction(-1, 3)])
def test_zero_and_negative_rejected(value: object) -> None:
    with pytest.raises(ParameterError) as info:
        inverse_integer(value, "beta")
    assert "beta" in str(info.value)
    assert "positive" in str(info.value)


def _nearest_valid_smaller(q: Fraction) -> int:
    """Smallest m >= 1 with 1/m <= q, by search (independent of the library's formula)."""
    m = 1
    while Fraction(1, m) > q:
        m += 1
    return m


@given(st.integers(min_value=1, max_value=500), st.integers(min_value=1, max_value=500))
def test_not_inverse_integer_suggests_nearest_smaller(p: int, q: int) -> None:
    value = Fraction(p, q)
    if value.numerator == 1:
        assert inverse_integer(f"{p}/{q}", "epsilon") == value
        return
    with pytest.raises(NotInverseIntegerError) as info:
        inverse_integer(f"{p}/{q}", "epsilon")
    m = _nearest_valid_smaller(value)
    assert m == math.ceil(Fraction(value.denominator, value.numerator))
    # The suggestion is valid, below the value, and the largest such value.
    assert Fraction(1, m) <= value
    assert m == 1 or Fraction(1, m - 1) > value
    msg = str(info.value)
    assert "epsilon" in msg
    assert str(value) in msg
    assert msg.endswith(f"1/{m}")


def test_epsilon_above_one_rejected_suggesting_one() -> None:
    with pytest.raises(NotInverseIntegerError, match=r"1/1$"):
        inverse_integer(2, "epsilon")
    with pytest.raises(NotInverseIntegerError, match=r"1/1$"):
        inverse_integer("3/2", "epsilon")


def test_not_inverse_integer_from_decimal_string() -> None:
    # 0.3 = 3/10: nearest valid smaller value is 1/4.
    with pytest.raises(NotInverseIntegerError, match=r"1/4$"):
        inverse_integer("0.3", "epsilon")


# ---------------------------------------------------------------- positive_int, check_count


@pytest.mark.parametrize(("value", "expected"),
                         [(1, 1), (5, 5), ("12", 12), (Fraction(6, 2), 3), (gmpy2.mpz(9), 9),
                          (10**40, 10**40)])
def test_positive_int_accepts(value: object, expected: int) -> None:
    got = positive_int(value, "n")
    assert type(got) is int
    assert got == expected


@pytest.mark.parametrize("value", [0, -3, "2.5", Fraction(5, 2), "0"])
def test_positive_int_rejects_values(value: object) -> None:
    with pytest.raises(ParameterError, match="n"):
        positive_int(value, "n")


@pytest.mark.parametrize("value", [5.0, True, None])
def test_positive_int_rejects_types(value: object) -> None:
    with pytest.raises(ParameterTypeError):
        positive_int(value, "n")


@given(st.integers(min_value=1, max_value=50), st.data())
def test_check_count(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(min_value=-5, max_value=n + 5))
    if 0 <= c <= n:
        assert check_count(c, n) == c
    else:
        with pytest.raises(DomainError) as info:
            check_count(c, n)
        assert str(c) in str(info.value)


@pytest.mark.parametrize("c", [True, 1.0, Fraction(1), "1"])
def test_check_count_type(c: object) -> None:
    with pytest.raises(ParameterTypeError, match="c = "):
        check_count(c, 5)


def test_the_shared_epsilon_delta_validator_names_parameter_value_and_rule() -> None:
    from exactdp.params import epsilon_delta, open_unit, positive_fraction

    assert epsilon_delta("1/2", "1e-6") == (Fraction(1, 2), Fraction(1, 10**6))
    with pytest.raises(ParameterError, match=r"^--epsilon = 0 must be positive$"):
        epsilon_delta(0, "1/2", "--epsilon", "--delta")
    for bad in (0, 1, "3/2", -1):
        with pytest.raises(ParameterError, match=r"^delta = .* must lie strictly between 0 and 1$"):
            open_unit(bad, "delta")
    with pytest.raises(FloatParameterError, match="delta"):
        epsilon_delta(1, 0.1)
    with pytest.raises(ParameterError, match="step = -1/64 must be positive"):
        positive_fraction("-1/64", "step")
    # the call sites keep their parameter's name in the message
    from exactdp.convolution.gaussian import calibrate_gaussian
    from exactdp.discrete_gaussian import calibrate_sigma2

    with pytest.raises(ParameterError, match="^delta = 1 must lie strictly between 0 and 1$"):
        calibrate_sigma2(1, 1)
    with pytest.raises(ParameterError, match="^epsilon = 0 must be positive$"):
        calibrate_gaussian([1], 0, Fraction(1, 10))
