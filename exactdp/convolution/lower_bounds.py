"""Exact versions of paper 002's lower-bound side.

* :func:`spec_lb_core` / :func:`spec_lb`: Theorem 5's ``specLB(h) = max_K K² |h^_(K-1)|² / (N log²N)``
  (with the index slip P9 fixed: ``h^_(K-1)``, the K-th largest), from the squared magnitudes
  ``|λ|² = N |h^|²`` so that it stays rational where they are (Walsh: always).
* :func:`harmonic_inequality`: Theorem 10's proof, read as the exact inequality
  ``sum_i |λ_(i)| <= H_|I| max_K K |λ_(K)|`` (P10: ``H_|I|``, not ``log |I|``).
* :func:`herdisc2_sq`: ``herdisc(A)² = max_W min_{v in {±1}^W} ||A_W v||²`` by brute force (N <= 8).
* :func:`cauchy_binet` and :func:`lemma2_walsh`: Lemma 2 (determinant of a projection) with
  ``P`` the top-K normalized Walsh rows, exactly (rational up to powers of ``N``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from exactdp.certified import Interval, compare_exp
from exactdp.convolution.accounting import sqrt_interval
from exactdp.params import ParameterError, ResourceLimitError, to_fraction

__all__ = [
    "HarmonicCheck",
    "Lemma2Row",
    "cauchy_binet",
    "det",
    "harmonic_inequality",
    "harmonic_number",
    "herdisc2_sq",
    "lemma2_walsh",
    "spec_lb",
    "spec_lb_core",
    "walsh_matrix",
    "xor_circulant_matrix",
]


def _fractions(values: Sequence[object], name: str) -> list[Fraction]:
    return [to_fraction(v, f"{name}[{i}]") for i, v in enumerate(values)]


def _matrix(rows: Sequence[Sequence[object]], name: str) -> list[list[Fraction]]:
    return [[to_fraction(v, f"{name}[{i}][{j}]") for j, v in enumerate(row)]
            for i, row in enumerate(rows)]


def spec_lb_core(magnitudes_sq: Sequence[object]) -> tuple[Fraction, int]:
    """``(max_K K² |λ_(K)|², K*)`` over the squared magnitudes sorted decreasingly (K from 1).

    ``specLB(h) = core / (N² log2² N)`` since ``|h^|² = |λ|²/N``."""
    mags = sorted(_fractions(magnitudes_sq, "magnitudes_sq"), reverse=True)
    if any(m < 0 for m in mags):
        raise ParameterError("magnitudes_sq must be >= 0 (squared magnitudes |lambda|^2)")
    best, arg = Fraction(0), 1
    for k, m in enumerate(mags, start=1):
        if k * k * m > best:
            best, arg = k * k * m, k
    return best, arg


def spec_lb(magnitudes_sq: Sequence[object]) -> Fraction:
    """Theorem 5's ``specLB(h)`` exactly, for ``N = len(magnitudes_sq)`` a power of 2 >= 2
    (``log2 N`` is then an integer)."""
    n = len(magnitudes_sq)
    if n < 2 or n & (n - 1):
        raise ParameterError(f"spec_lb needs N a power of 2 >= 2 (log2 N integer), got N = {n}; "
                             f"use spec_lb_core and divide by N^2 log2^2 N yourself")
    core, _ = spec_lb_core(magnitudes_sq)
    return core / (n * n * (n.bit_length() - 1) ** 2)


def harmonic_number(n: int) -> Fraction:
    return sum((Fraction(1, i) for i in range(1, n + 1)), Fraction(0))


@dataclass(frozen=True)
class HarmonicCheck:
    """``lhs = sum |λ|``, ``rhs = H_|I| max_K K |λ_(K)|`` (both exact or certified intervals)."""

    lhs: Interval
    harmonic: Fraction
    max_k_lambda: Interval
    rhs: Interval
    support: int

    @property
    def holds(self) -> bool:
        """Certified ``lhs <= rhs``."""
        return self.lhs.hi <= self.rhs.lo


def harmonic_inequality(magnitudes: Sequence[object] | None = None, *,
                        magnitudes_sq: Sequence[object] | None = None,
                        bits: int = 64) -> HarmonicCheck:
    """Theorem 10's inequality ``sum_i |λ_(i)| <= H_|I| max_K K |λ_(K)|``.

    Pass rational ``magnitudes`` (exact) or ``magnitudes_sq`` (certified square roots)."""
    if (magnitudes is None) == (magnitudes_sq is None):
        raise ParameterError("pass exactly one of magnitudes, magnitudes_sq")
    if magnitudes is not None:
        ivs = [Interval(abs(m), abs(m)) for m in _fractions(magnitudes, "magnitudes")]
    else:
        assert magnitudes_sq is not None
        ivs = [sqrt_interval(m, bits) for m in _fractions(magnitudes_sq, "magnitudes_sq")]
    ivs = [iv for iv in ivs if iv.hi > 0]
    ivs.sort(key=lambda iv: (iv.lo, iv.hi), reverse=True)
    support = len(ivs)
    lhs = Interval(sum((iv.lo for iv in ivs), Fraction(0)), sum((iv.hi for iv in ivs), Fraction(0)))
    # max_K K |λ_(K)|: the K-th largest value lies in [K-th largest lo, K-th largest hi]
    los = sorted((iv.lo for iv in ivs), reverse=True)
    his = sorted((iv.hi for iv in ivs), reverse=True)
    mk = Interval(max((k * v for k, v in enumerate(los, 1)), default=Fraction(0)),
                  max((k * v for k, v in enumerate(his, 1)), default=Fraction(0)))
    h = harmonic_number(support)
    return HarmonicCheck(lhs, h, mk, Interval(h * mk.lo, h * mk.hi), support)


# ---------------------------------------------------------------------------------------------
# matrices


def walsh_matrix(n: int) -> list[list[int]]:
    """The ±1 Walsh–Hadamard matrix ``W[a][b] = (-1)^popcount(a & b)``, ``N = 2^d``."""
    if n < 1 or n & (n - 1):
        raise ParameterError(f"N = {n} must be a power of 2")
    return [[-1 if (a & b).bit_count() % 2 else 1 for b in range(n)] for a in range(n)]


def xor_circulant_matrix(h: Sequence[object]) -> list[list[Fraction]]:
    """``H[a][b] = h[a xor b]`` (XOR convolution ``y = H x``, paper §5.4)."""
    hs = _fractions(h, "h")
    n = len(hs)
    if n < 1 or n & (n - 1):
        raise ParameterError(f"len(h) = {n} must be a power of 2")
    return [[hs[a ^ b] for b in range(n)] for a in range(n)]


def det(matrix: Sequence[Sequence[object]]) -> Fraction:
    """Exact determinant (Gaussian elimination over the rationals)."""
    a = _matrix(matrix, "matrix")
    n = len(a)
    if any(len(row) != n for row in a):
        raise ParameterError("det needs a square matrix")
    sign, result = 1, Fraction(1)
    for c in range(n):
        p = next((r for r in range(c, n) if a[r][c]), None)
        if p is None:
            return Fraction(0)
        if p != c:
            a[c], a[p] = a[p], a[c]
            sign = -sign
        result *= a[c][c]
        for r in range(c + 1, n):
            f = a[r][c] / a[c][c]
            if f:
                for k in range(c, n):
                    a[r][k] -= f * a[c][k]
    return sign * result


def herdisc2_sq(matrix: Sequence[Sequence[object]], max_columns: int = 8
                ) -> tuple[Fraction, tuple[int, ...]]:
    """``(herdisc(A)², W*)``: ``max_W min_{v in {±1}^W} ||A_W v||²``, by brute force over all
    ``3^N`` (subset, signs) pairs; ``N <= max_columns``."""
    a = _matrix(matrix, "matrix")
    n = len(a[0]) if a else 0
    if n > max_columns:
        raise ResourceLimitError(f"herdisc2_sq is brute force over 3^N; N = {n} > {max_columns}")
    cols = [[row[j] for row in a] for j in range(n)]
    best: Fraction = Fraction(0)
    arg: tuple[int, ...] = ()
    for size in range(1, n + 1):
        for subset in itertools.combinations(range(n), size):
            low = None
            # v and -v give the same norm: fix the first sign
            for signs in itertools.product((1, -1), repeat=size - 1):
                vec = list(cols[subset[0]])
                for s, j in zip(signs, subset[1:]):
                    cj = cols[j]
                    vec = [x + s * y for x, y in zip(vec, cj)]
                norm = sum((x * x for x in vec), Fraction(0))
                if low is None or norm < low:
                    low = norm
            if low is not None and low > best:
                best, arg = low, subset
    return best, arg


def cauchy_binet(c: Sequence[Sequence[object]]) -> tuple[Fraction, Fraction, Fraction]:
    """``(det(C Cᵀ), sum_S det(C_S)², max_S det(C_S)²)`` for a real K×N matrix ``C``
    (``S`` over the K-subsets of columns); Cauchy–Binet says the first two are equal."""
    rows = _matrix(c, "C")
    k = len(rows)
    n = len(rows[0]) if rows else 0
    gram = [[sum((x * y for x, y in zip(rows[i], rows[j])), Fraction(0)) for j in range(k)]
            for i in range(k)]
    total, top = Fraction(0), Fraction(0)
    for subset in itertools.combinations(range(n), k):
        d2 = det([[rows[i][j] for j in subset] for i in range(k)]) ** 2
        total += d2
        top = max(top, d2)
    return det(gram), total, top


@dataclass(frozen=True)
class Lemma2Row:
    """Lemma 2 for one K: ``C = P H`` with ``P`` the top-K normalized Walsh rows."""

    k: int
    n: int
    gram_det: Fraction  # det(C Cᵀ) = prod_{i<=K} λ_i²
    product: Fraction  # prod_{i<=K} λ_i²
    cauchy_binet_sum: Fraction
    max_det_sq: Fraction  # max_S |det C_S|²
    bound_holds: bool  # certified: max |det B|² >= e^{-K} (K/N)^K prod λ_i²  (C = e^{-1/2})

    @property
    def ratio(self) -> Fraction:
        """``max_S |det C_S|² / (prod λ_i² (K/N)^K)``: the constant the lemma needs, squared
        and raised to ``K`` (>= e^{-K} is the lemma with ``C = e^{-1/2}``)."""
        if not self.product:
            return Fraction(0)
        return self.max_det_sq / (self.product * Fraction(self.k, self.n) ** self.k)


def lemma2_walsh(h: Sequence[object]) -> list[Lemma2Row]:
    """Lemma 2 for the XOR circulant of ``h`` (``N <= 8``): for each ``K`` up to the number of
    non-zero eigenvalues, with ``P`` = top-K Walsh rows over ``sqrt N`` (orthonormal, K×N)."""
    hs = _fractions(h, "h")
    n = len(hs)
    w = walsh_matrix(n)
    if n > 8:
        raise ResourceLimitError(f"lemma2_walsh enumerates column subsets; N = {n} > 8")
    lam = [sum((w[j][b] * hs[b] for b in range(n)), Fraction(0)) for j in range(n)]
    order = sorted(range(n), key=lambda j: (-abs(lam[j]), j))
    big_h = xor_circulant_matrix(hs)
    out = []
    for k in range(1, sum(1 for v in lam if v) + 1):
        top = order[:k]
        # unnormalized C' = W_K H; C = C'/sqrt N: dets scale by N^{-K} (squared)
        cp = [[sum((w[j][a] * big_h[a][b] for a in range(n)), Fraction(0)) for b in range(n)]
              for j in top]
        g, s, m = cauchy_binet(cp)
        scale = Fraction(1, n**k)
        prod = Fraction(1)
        for j in top:
            prod *= lam[j] ** 2
        g, s, m = g * scale, s * scale, m * scale
        target = Fraction(k, n) ** k * prod  # bound: m >= e^{-k} target  <=>  e^k m >= target
        holds = target == 0 or (m > 0 and compare_exp(Fraction(k), target / m) >= 0)
        out.append(Lemma2Row(k, n, g, prod, s, m, holds))
    return out
