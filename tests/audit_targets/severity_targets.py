"""Planted mechanisms for the severity tests (tests/test_audit_report_severity.py).

``tiny`` exceeds epsilon = 1 by about 1e-13 (a float-rounding-sized excess); ``infinite``
has an outcome possible on input 0 and impossible on input 1.  Both are f(c, u) on
u in [d]_+, non-decreasing in u.
"""

from __future__ import annotations

from fractions import Fraction

from exactdp.certified import exp_interval

D = 10**16
B = 10**15
_E = exp_interval(Fraction(1), 200).hi  # above e by < 2^-190
#: Pr[tiny(0) = 0] = A / D, Pr[tiny(1) = 0] = B / D: the ratio A / B is e + about 1e-13.
A = (_E * B).numerator // (_E * B).denominator + 101


def tiny(c: int, u: int) -> int:
    return 0 if u <= (A if c == 0 else B) else 1


tiny.d = D  # type: ignore[attr-defined]
tiny.monotone = True  # type: ignore[attr-defined]
tiny.outputs = range(2)  # type: ignore[attr-defined]


def infinite(c: int, u: int) -> int:
    """Outcome 1 with probability 1/4 on input 0, never on input 1."""
    return 1 if (c == 0 and u == 4) else 0


infinite.d = 4  # type: ignore[attr-defined]
infinite.outputs = range(2)  # type: ignore[attr-defined]
