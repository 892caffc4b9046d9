"""The sympy oracle shared by the tests: exact rationals and exact signs of real constants.

How a sign is decided: ``expr.evalf(n, strict=True)`` either returns a value whose every
printed digit is guaranteed or raises; a returned 0 is treated as "undecided" and the
precision is raised (sympy returns 0 for, e.g., ``log(1 + 2**-202)`` at 30 digits).
"""

from __future__ import annotations

from fractions import Fraction

import sympy


def q(x: Fraction) -> sympy.Rational:
    """``x`` as a sympy Rational."""
    return sympy.Rational(x.numerator, x.denominator)


def sympy_sign(expr: sympy.Expr) -> int:
    """The exact sign of a real constant expression."""
    expr = sympy.sympify(expr)
    if expr.is_zero:
        return 0
    for digits in (30, 200, 1000):
        value = expr.evalf(digits, strict=True, maxn=5000)
        if value != 0:
            return 1 if value > 0 else -1
    raise AssertionError(f"sympy could not decide the sign of {expr}")
