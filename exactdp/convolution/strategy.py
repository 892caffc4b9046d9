"""Integer strategies ``T`` and the exact reconstruction ``G = H T^-1``.

The integral factorization lemma: a mechanism that releases ``clamp(T x + Z)`` with an
**integer** matrix ``T`` and independent discrete noise ``Z`` per row has an exact,
data-independent privacy-loss distribution, whose per-row shifts for the neighbour
``x +- e_n`` are ``Delta_jn = |T_jn|``; ``G (T x + Z)`` with ``G T = H`` then estimates
``H x`` (post-processing).  Paper 002's Algorithm 1 is the case ``T = F`` (irrational, so not
implementable with discrete noise); ``T = W`` on ``Z_2^d`` is Algorithm 1 exactly (§5.4).

:class:`IntegerStrategy` validates ``T`` (square, integer, invertible: checked exactly), computes
``det T`` and ``adj T = det(T) T^-1`` by fraction-free (Bareiss) Gauss-Jordan elimination, and
``G = H adj(T) / det(T)`` exactly, verified by ``G T = H`` before it is used.  Row ``j`` is
*kept* iff column ``j`` of ``G`` is not zero (a dropped row's noisy value would be multiplied by
zero, so it is neither drawn nor released).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from math import isqrt, lcm

from exactdp.convolution.groups import MAX_DIRECT_N, Exact, exact_vector
from exactdp.params import ExactDPError, ParameterError, ParameterTypeError, ResourceLimitError

__all__ = ["IntegerStrategy", "bareiss_inverse"]


def _int_matrix(t: object, name: str) -> list[list[int]]:
    if isinstance(t, (str, bytes)) or not isinstance(t, Sequence) or not t:
        raise ParameterTypeError(f"{name} must be a non-empty sequence of rows of ints")
    n = len(t)
    if n > MAX_DIRECT_N:
        raise ResourceLimitError(f"{name} has {n} rows (> {MAX_DIRECT_N}); a dense strategy of "
                                 f"that size is refused")
    rows: list[list[int]] = []
    for j, row in enumerate(t):
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or len(row) != n:
            raise ParameterError(f"{name}[{j}] must be a row of {n} ints ({name} must be square)")
        for m, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, int):
                raise ParameterTypeError(f"{name}[{j}][{m}] = {v!r:.40} must be an int (an "
                                         f"integer strategy: discrete noise needs T Z^N in Z^N)")
        rows.append([int(v) for v in row])
    return rows


def bareiss_inverse(t: Sequence[Sequence[int]]) -> tuple[int, list[list[int]]]:
    """``(det T, adj T)`` with ``adj T = det(T) T^-1``, by fraction-free Gauss-Jordan elimination
    on ``[T | I]`` (Bareiss's one-step rule: every division is exact, so all intermediate
    values are integers -- minors of ``[T | I]`` -- and none grows beyond Hadamard's bound).

    Raises :class:`~exactdp.params.ParameterError` if ``T`` is singular.  Time ``O(N^3)``
    integer operations; the result is verified (``T adj = det I``) by the caller.
    """
    n = len(t)
    m = [list(row) + [1 if i == j else 0 for j in range(n)] for i, row in enumerate(t)]
    prev, sign = 1, 1
    for k in range(n):
        piv = next((i for i in range(k, n) if m[i][k] != 0), None)
        if piv is None:
            raise ParameterError("the strategy T is singular (det T = 0); it has no inverse, "
                                 "so G = H T^-1 does not exist")
        if piv != k:
            m[k], m[piv] = m[piv], m[k]
            sign = -sign
        pk = m[k][k]
        rowk = m[k]
        for i in range(n):
            if i == k:
                continue
            rowi = m[i]
            f = rowi[k]
            m[i] = [(pk * a - f * b) // prev for a, b in zip(rowi, rowk, strict=True)]
        prev = pk
    det = sign * prev
    # now m = [d I | d' T^-1] with every diagonal entry equal to prev (= +-det)
    adj = [[sign * v for v in row[n:]] for row in m]
    return det, adj


class IntegerStrategy:
    """An integer strategy ``T`` (``N x N``, invertible) for the linear map ``H`` (``N x N``).

    Attributes: ``T`` (tuple of int rows), ``H`` (exact rows), ``det``, ``G_num`` and
    ``G_den`` with ``G = G_num / G_den`` exactly (``G_den > 0``), ``kept`` (the rows ``j`` whose
    column of ``G`` is non-zero, increasing), ``name``.
    """

    def __init__(self, t: object, h_matrix: object, name: str = "custom") -> None:
        self.T: tuple[tuple[int, ...], ...] = tuple(tuple(r) for r in _int_matrix(t, "T"))
        n = len(self.T)
        if isinstance(h_matrix, (str, bytes)) or not isinstance(h_matrix, Sequence) \
                or len(h_matrix) != n:
            raise ParameterError(f"H must be a sequence of {n} rows (the size of T)")
        self.H: tuple[tuple[Exact, ...], ...] = tuple(
            tuple(exact_vector(row, f"H[{k}]", n)) for k, row in enumerate(h_matrix))
        self.N = n
        self.name = name
        self.det, adj = bareiss_inverse(self.T)
        scale = lcm(*(Fraction(v).denominator for row in self.H for v in row))
        h_int = [[int(Fraction(v) * scale) for v in row] for row in self.H]
        g = [[sum(h_int[k][i] * adj[i][j] for i in range(n)) for j in range(n)]
             for k in range(n)]
        den = scale * self.det
        if den < 0:
            g, den = [[-v for v in row] for row in g], -den
        self.G_num: tuple[tuple[int, ...], ...] = tuple(tuple(row) for row in g)
        self.G_den: int = den
        self._verify()
        self.kept: tuple[int, ...] = tuple(
            j for j in range(n) if any(self.G_num[k][j] for k in range(n)))

    def _verify(self) -> None:
        """``G T = H`` exactly (a failure is a bug in the elimination, never a user error)."""
        n, t, g, den = self.N, self.T, self.G_num, self.G_den
        for k in range(n):
            for m in range(n):
                if sum(g[k][j] * t[j][m] for j in range(n)) != self.H[k][m] * den:
                    raise ExactDPError(f"internal: G T != H at ({k}, {m}); elimination failed")

    def __repr__(self) -> str:
        return f"IntegerStrategy({self.name!r}, N={self.N}, kept={len(self.kept)})"

    def G(self, k: int, j: int) -> Fraction:
        """The entry ``G[k][j]`` as a Fraction."""
        return Fraction(self.G_num[k][j], self.G_den)

    def shifts(self) -> list[list[int]]:
        """``Delta_jn = |T_jn|`` for the kept rows ``j`` (rows) and every column ``n``."""
        return [[abs(v) for v in self.T[j]] for j in self.kept]

    @cached_property
    def gram(self) -> tuple[tuple[Fraction, ...], ...]:
        """``(G^T G)_{jk}`` for kept ``j, k`` (exact; the MSE's quadratic form)."""
        g, kept, n = self.G_num, self.kept, self.N
        d2 = self.G_den * self.G_den
        cols = [[g[k][j] for k in range(n)] for j in kept]
        return tuple(tuple(Fraction(sum(a * b for a, b in zip(cj, ck, strict=True)), d2)
                           for ck in cols) for cj in cols)

    def column_weights(self, bits: int = 20) -> list[Fraction]:
        """``||g_j||_2`` (column ``j`` of ``G``) rounded down to ``bits`` fractional bits, at
        least ``2^-bits``, for kept rows; ``0`` for dropped rows (aligned with ``T``'s rows).
        Public weights for the calibration's noise shape."""
        n, g, den = self.N, self.G_num, self.G_den
        one = 1 << bits
        kept = set(self.kept)
        out = []
        for j in range(n):
            if j not in kept:
                out.append(Fraction(0))
                continue
            sq = sum(g[k][j] ** 2 for k in range(n))
            root = isqrt(sq * one * one // (den * den))
            out.append(Fraction(max(root, 1), one))
        return out

    def apply(self, x: Sequence[int]) -> list[int]:
        """``T x`` (all ``N`` rows; ``N^2`` integer operations, a fixed schedule)."""
        return [sum(a * b for a, b in zip(row, x, strict=True)) for row in self.T]

    def reconstruct(self, noisy: Sequence[int]) -> tuple[Fraction, ...]:
        """``G c~`` for the noisy values ``c~_j`` of the kept rows (in ``kept`` order)."""
        if len(noisy) != len(self.kept):
            raise ParameterError(f"{len(noisy)} noisy values for {len(self.kept)} kept rows")
        g, den = self.G_num, self.G_den
        return tuple(Fraction(sum(g[k][j] * v for j, v in zip(self.kept, noisy, strict=True)),
                              den) for k in range(self.N))
