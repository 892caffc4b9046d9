"""Exact convolutions on the two groups of Fawaz, Muthukrishnan & Nikolov (paper 002).

* ``Z_N`` (circular convolution, the paper's eq. 1):
  ``y_k = sum_{n=0}^{N-1} x_n h_{(k - n) mod N}``, i.e. ``y = H x`` with ``H`` the circulant
  matrix whose first column is ``h`` (the paper's Definition 1).
* ``Z_2^d`` (XOR convolution, the paper's §5.4 "Generalized Marginal Queries"):
  ``y_a = sum_b x_b h_{a XOR b}`` for ``a, b`` in ``[0, N)``, ``N = 2^d``; the Walsh-Hadamard
  matrix ``W`` diagonalises it (the §5.4 analogue of Theorem 1 / Corollary 1):
  ``y = N^{-1} W diag(W h) W x``.

Everything is exact: entries are ``int`` or :class:`fractions.Fraction` (floats refused with
a typed error), and results are ints when every input is an int.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from exactdp.convolution.transforms import fwht
from exactdp.convolution.vectors import MAX_DIRECT_N, Exact, exact_vector
from exactdp.params import ParameterError, ResourceLimitError

__all__ = [
    "MAX_DIRECT_N",
    "Exact",
    "circulant",
    "circular_convolve",
    "exact_vector",
    "xor_circulant",
    "xor_convolve",
    "xor_convolve_direct",
]


def _check_direct(n: int, what: str) -> None:
    if n > MAX_DIRECT_N:
        raise ResourceLimitError(f"{what} of length N = {n} needs N^2 = {n * n} products "
                                 f"(> {MAX_DIRECT_N}^2); use xor_convolve (fast) or a shorter "
                                 f"vector")


def _same_length(h: Sequence[object], x: Sequence[object]) -> int:
    if len(h) != len(x):
        raise ParameterError(f"h has length {len(h)} and x has length {len(x)}; a convolution "
                             f"needs equal lengths")
    if len(h) == 0:
        raise ParameterError("h and x are empty; the length N must be at least 1")
    return len(h)


def circular_convolve(h: Sequence[object], x: Sequence[object]) -> list[Exact]:
    """``(h * x)_k = sum_n x_n h_{(k-n) mod N}`` (paper 002, eq. 1), by the direct exact sum.

    Time: ``N^2`` exact multiplications (refused above :data:`MAX_DIRECT_N`).
    """
    n = _same_length(h, x)
    _check_direct(n, "circular_convolve")
    hh, xx = exact_vector(h, "h"), exact_vector(x, "x")
    return [sum((xx[m] * hh[(k - m) % n] for m in range(n)), 0) for k in range(n)]


def _power_of_two(n: int, name: str) -> int:
    if n < 1 or n & (n - 1):
        raise ParameterError(f"{name} has length {n}; XOR convolution over Z_2^d needs a "
                             f"length N = 2^d (1, 2, 4, 8, ...)")
    return n.bit_length() - 1


def xor_convolve_direct(h: Sequence[object], x: Sequence[object]) -> list[Exact]:
    """``(h * x)_a = sum_b x_b h_{a XOR b}`` over ``Z_2^d`` (paper 002, §5.4) by the direct
    ``N^2`` sum: the definition, against which :func:`xor_convolve` is tested."""
    n = _same_length(h, x)
    _power_of_two(n, "h")
    _check_direct(n, "xor_convolve_direct")
    hh, xx = exact_vector(h, "h"), exact_vector(x, "x")
    return [sum((xx[b] * hh[a ^ b] for b in range(n)), 0) for a in range(n)]


def xor_convolve(h: Sequence[object], x: Sequence[object]) -> list[Exact]:
    """XOR convolution over ``Z_2^d`` by the Walsh-Hadamard diagonalisation (paper 002, §5.4
    with Theorem 1 / Corollary 1 for the group ``Z_2^d``): ``y = N^{-1} W (W h o W x)``.

    Exact: equal to :func:`xor_convolve_direct` (tested); ints in, ints out (the division by
    ``N`` is exact because ``W (W h o W x) = N (h * x)``).  Time: three fixed-schedule
    :func:`~exactdp.convolution.transforms.fwht` (``3 d N/2`` butterflies) and ``N`` products.
    """
    n = _same_length(h, x)
    _power_of_two(n, "h")
    hh, xx = exact_vector(h, "h"), exact_vector(x, "x")
    prod = [a * b for a, b in zip(fwht(hh), fwht(xx), strict=True)]
    out: list[Exact] = []
    for v in fwht(prod):
        q = Fraction(v) / n
        out.append(int(q.numerator) if q.denominator == 1 else q)
    return out


def circulant(h: Sequence[object]) -> list[list[Exact]]:
    """The circulant matrix ``H`` with first column ``h`` (paper 002, Definition 1):
    ``H[k][n] = h[(k - n) mod N]``, so that ``H x = h * x`` (circular)."""
    hh = exact_vector(h, "h")
    n = len(hh)
    if n == 0:
        raise ParameterError("h is empty; the length N must be at least 1")
    _check_direct(n, "circulant")
    return [[hh[(k - m) % n] for m in range(n)] for k in range(n)]


def xor_circulant(h: Sequence[object]) -> list[list[Exact]]:
    """The matrix of XOR convolution by ``h`` over ``Z_2^d``: ``H[a][b] = h[a XOR b]``."""
    hh = exact_vector(h, "h")
    _power_of_two(len(hh), "h")
    _check_direct(len(hh), "xor_circulant")
    return [[hh[a ^ b] for b in range(len(hh))] for a in range(len(hh))]
