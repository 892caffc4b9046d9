"""Independent references for the convolution rows (paper 002).

Nothing here imports :mod:`exactdp.convolution`: the quantities the rows compare the
implementation with are computed from their definitions with plain ints and ``Fraction``:

* the ±1 Walsh matrix by its entry formula ``W[a][b] = (-1)^popcount(a & b)`` (no butterflies),
  XOR and circular convolution by their defining double sums;
* the clamped two-sided geometric law (ratio ``r > 1`` in the convention,
  ``Pr[Z = z] = (r-1)/(r+1) r^-|z|``), tails lumped at the public ends, and the joint law of an
  integer-strategy mechanism ``clamp(t_j . x + Z_j, lo_j, hi_j)`` as a product over rows;
* the privacy-loss law of the integral factorization lemma (the per-row table with
  ``Delta_j = |T_jn|``), as a law of likelihood ratios (rationals), and ``delta(R)`` from it;
* domains ``histograms(N, n)`` / ``box(N, m)`` and their neighbouring pairs ``x, x + e_n``;
* certified rational bounds on ``ln``, ``sqrt`` and ``pi`` (through :mod:`exactdp.certified`
  for ``e^x`` and ``ln x``; ``pi`` by classical convergents).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

from exactdp.certified import exp_interval, ln_interval

Vector = tuple[int, ...]
Matrix = tuple[tuple[int, ...], ...]

# ------------------------------------------------------------------ transforms and convolutions


def walsh_matrix(n: int) -> Matrix:
    """The ±1 Walsh-Hadamard matrix of size ``n = 2^d`` from the entry formula."""
    if n < 1 or n & (n - 1):
        raise ValueError(f"n = {n} must be a power of 2")
    return tuple(tuple(-1 if (a & b).bit_count() % 2 else 1 for b in range(n))
                 for a in range(n))


def _scaled(v: Sequence[Fraction | int]) -> tuple[list[int], int]:
    """``(L v, L)`` with ``L`` the lcm of the entries' denominators (integers)."""
    fs = [Fraction(a) for a in v]
    den = math.lcm(1, *(f.denominator for f in fs))
    return [f.numerator * (den // f.denominator) for f in fs], den


def mat_vec(m: Sequence[Sequence[Fraction | int]], v: Sequence[Fraction | int]) -> list[Fraction]:
    """``M v`` exactly: each row and ``v`` over their own common denominators, one integer
    dot product and one Fraction per entry."""
    vi, vd = _scaled(v)
    out = []
    for row in m:
        ri, rd = _scaled(row)
        out.append(Fraction(sum(a * b for a, b in zip(ri, vi)), rd * vd))
    return out


def mat_mul(a: Sequence[Sequence[Fraction | int]],
            b: Sequence[Sequence[Fraction | int]]) -> list[list[Fraction]]:
    cols = [_scaled(col) for col in zip(*b)]
    out = []
    for row in a:
        ri, rd = _scaled(row)
        out.append([Fraction(sum(x * y for x, y in zip(ri, ci)), rd * cd) for ci, cd in cols])
    return out


def direct_xor_convolve(h: Sequence[Fraction | int], x: Sequence[Fraction | int]
                        ) -> list[Fraction]:
    """``y(a) = sum_b x(b) h(a XOR b)`` (paper §5.4)."""
    n = len(h)
    return [sum((Fraction(x[b]) * h[a ^ b] for b in range(n)), Fraction(0)) for a in range(n)]


def direct_circular_convolve(h: Sequence[Fraction | int], x: Sequence[Fraction | int]
                             ) -> list[Fraction]:
    """``y_k = sum_n x_n h_{(k - n) mod N}`` (paper eq. 1)."""
    n = len(h)
    return [sum((Fraction(x[m]) * h[(k - m) % n] for m in range(n)), Fraction(0))
            for k in range(n)]


def det(m: Sequence[Sequence[Fraction | int]]) -> Fraction:
    """Exact determinant by Gaussian elimination over Q."""
    a = [[Fraction(v) for v in row] for row in m]
    k = len(a)
    out = Fraction(1)
    for col in range(k):
        piv = next((r for r in range(col, k) if a[r][col] != 0), None)
        if piv is None:
            return Fraction(0)
        if piv != col:
            a[col], a[piv] = a[piv], a[col]
            out = -out
        out *= a[col][col]
        for r in range(col + 1, k):
            f = a[r][col] / a[col][col]
            if f:
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return out


# ------------------------------------------------------------------ the clamped geometric


def geometric_upper_tail(r: Fraction, m: int) -> Fraction:
    """``Pr[Z >= m]``: ``sum_{z >= m} (r-1)/(r+1) r^-z = r^(1-m)/(r+1)`` for ``m >= 0``; for
    ``m < 0`` the complement of the (mirrored) tail ``Pr[Z <= m - 1] = Pr[Z >= 1 - m]``."""
    r = Fraction(r)
    if m >= 0:
        return r ** (1 - m) / (r + 1)
    return 1 - r ** m / (r + 1)


def clamped_geometric_law(r: Fraction, lo: int, hi: int, c: int) -> dict[int, Fraction]:
    """Law of ``clamp(c + Z, lo, hi)`` (any integer centre ``c``), ``Z`` two-sided geometric
    with ``Pr[Z = z] = (r-1)/(r+1) r^-|z|`` (``r > 1``).  Both tails in closed form; the total
    is checked to be exactly 1 (an internal consistency check of the two formulas)."""
    r = Fraction(r)
    if lo > hi or r <= 1:
        raise ValueError(f"need lo <= hi and r > 1, got {lo}, {hi}, {r}")
    if lo == hi:
        return {lo: Fraction(1)}
    law = {v: (r - 1) / (r + 1) * r ** -abs(v - c) for v in range(lo + 1, hi)}
    law[lo] = geometric_upper_tail(r, c - lo)   # Pr[Z <= lo - c] = Pr[Z >= c - lo]
    law[hi] = geometric_upper_tail(r, hi - c)
    if sum(law.values()) != 1:
        raise AssertionError(f"clamped geometric law does not sum to 1 (r={r}, {lo}..{hi}, c={c})")
    return dict(sorted(law.items()))


def unclamped_variance(r: Fraction) -> Fraction:
    """``E Z^2 = 2 r/(r-1)^2`` of the two-sided geometric (``sum_z z^2 ...`` in closed form)."""
    r = Fraction(r)
    return 2 * r / (r - 1) ** 2


def joint_law(t: Sequence[Sequence[int]], ratios: Sequence[Fraction], lo: Sequence[int],
              hi: Sequence[int], x: Sequence[int]) -> dict[Vector, Fraction]:
    """Law of ``(clamp(t_j . x + Z_j, lo_j, hi_j))_j`` with independent rows."""
    rows = [clamped_geometric_law(Fraction(r), a, b, sum(tj * xj for tj, xj in zip(row, x)))
            for row, r, a, b in zip(t, ratios, lo, hi)]
    out: dict[Vector, Fraction] = {}
    for combo in itertools.product(*(list(law.items()) for law in rows)):
        key = tuple(v for v, _ in combo)
        p = Fraction(1)
        for _, q in combo:
            p *= q
        out[key] = p
    return out


# ------------------------------------------------------------------ the factorization lemma


def row_loss_law(r: Fraction, delta: int) -> dict[Fraction, Fraction]:
    """The per-row table: the law (under the lower centre) of the likelihood ratio
    ``P(o)/Q(o) = r^(Delta - 2i)`` of one row shifted by ``Delta``; ``{1: 1}`` if ``Delta = 0``."""
    r = Fraction(r)
    if delta == 0:
        return {Fraction(1): Fraction(1)}
    out: dict[Fraction, Fraction] = {}
    for i in range(delta + 1):
        if i == 0:
            p = r / (r + 1)
        elif i < delta:
            p = (r - 1) / (r + 1) * r ** -i
        else:
            p = r ** (1 - delta) / (r + 1)
        key = r ** (delta - 2 * i)
        out[key] = out.get(key, Fraction(0)) + p
    return out


def loss_law(ratios: Sequence[Fraction], deltas: Sequence[int]) -> dict[Fraction, Fraction]:
    """The law of ``prod_j`` (row likelihood ratio): independent rows multiplied out (a
    fresh dict; the computation, :func:`_loss_law`, is memoized)."""
    return dict(_loss_law(tuple(Fraction(r) for r in ratios), tuple(abs(d) for d in deltas)))


@functools.lru_cache(maxsize=256)
def _loss_law(ratios: tuple[Fraction, ...], deltas: tuple[int, ...]
              ) -> dict[Fraction, Fraction]:
    """:func:`row_loss_law`'s table in integers, multiplied out row by row.

    Row ``r = a/b`` (lowest terms, ``a > b``) with shift ``D > 0``: outcome ``i`` has ratio
    ``r^(D - 2i)`` and probability ``num_i / ((a + b) a^(D-1))`` with ``num_0 = a^D``,
    ``num_i = (a - b) b^i a^(D-1-i)`` (``0 < i < D``) and ``num_D = b^D`` (the table's
    ``r/(r+1)``, ``(r-1)/(r+1) r^-i``, ``r^(1-D)/(r+1)``).  The joint law is kept as
    ``{exponent of each distinct ratio: integer numerator}`` over the product of the rows'
    denominators, and read as ``{ratio: probability}`` (equal ratios merged) at the end."""
    distinct: dict[Fraction, int] = {}
    for r, dl in zip(ratios, deltas, strict=True):
        if dl:
            distinct.setdefault(r, len(distinct))
    law: dict[tuple[int, ...], int] = {(0,) * len(distinct): 1}
    den = 1
    for r, dl in zip(ratios, deltas, strict=True):
        if not dl:
            continue
        a, b, k = r.numerator, r.denominator, distinct[r]
        row = [(dl, a**dl)] + [(dl - 2 * i, (a - b) * b**i * a ** (dl - 1 - i))
                               for i in range(1, dl)] + [(-dl, b**dl)]
        den *= (a + b) * a ** (dl - 1)
        nxt: dict[tuple[int, ...], int] = {}
        for key, p in law.items():
            for e, q in row:
                kk = key[:k] + (key[k] + e,) + key[k + 1:]
                nxt[kk] = nxt.get(kk, 0) + p * q
        law = nxt
    out: dict[Fraction, Fraction] = {}
    for key, p in law.items():
        v = Fraction(1)
        for r, e in zip(distinct, key, strict=True):
            v *= r**e
        out[v] = out.get(v, Fraction(0)) + Fraction(p, den)
    return out


def delta_from_law(law: dict[Fraction, Fraction], big_r: Fraction) -> Fraction:
    """``E[(1 - R / L)_+]`` = the hockey-stick divergence at ratio ``R``."""
    return sum((p * (1 - Fraction(big_r) / ell) for ell, p in law.items() if ell > big_r),
               Fraction(0))


def lemma_pure_ratio(t: Sequence[Sequence[int]], ratios: Sequence[Fraction]) -> Fraction:
    """``max_n prod_j r_j^|T_jn|``."""
    cols = range(len(t[0]))
    best = Fraction(0)
    for n in cols:
        p = Fraction(1)
        for row, r in zip(t, ratios):
            p *= Fraction(r) ** abs(row[n])
        best = max(best, p)
    return best


def lemma_delta(t: Sequence[Sequence[int]], ratios: Sequence[Fraction], big_r: Fraction,
                columns: Iterable[int] | None = None) -> Fraction:
    """``delta(R) = max_n E[(1 - R e^-L)_+]`` over the columns ``n``."""
    cols = range(len(t[0])) if columns is None else columns
    return max(delta_from_law(loss_law(ratios, [row[n] for row in t]), big_r) for n in cols)


# ------------------------------------------------------------------ domains


def histograms(n_coords: int, total: int) -> list[Vector]:
    """``{x in Z^N : x >= 0, ||x||_1 <= total}``."""
    return [x for x in itertools.product(range(total + 1), repeat=n_coords) if sum(x) <= total]


def box(n_coords: int, m: int) -> list[Vector]:
    """``{0..m}^N``."""
    return list(itertools.product(range(m + 1), repeat=n_coords))


def neighbour_pairs(domain: Sequence[Vector]) -> list[tuple[Vector, Vector, int]]:
    """Every ``(x, x + e_n, n)`` with both in the domain."""
    members = set(domain)
    out = []
    for x in domain:
        for n in range(len(x)):
            y = x[:n] + (x[n] + 1,) + x[n + 1:]
            if y in members:
                out.append((x, y, n))
    return out


def public_range(t: Sequence[Sequence[int]], domain: Sequence[Vector]) -> tuple[list[int],
                                                                               list[int]]:
    """``lo_j = min_{x in D} t_j . x``, ``hi_j = max``: public, from the domain only."""
    vals = [[sum(a * b for a, b in zip(row, x)) for x in domain] for row in t]
    return [min(v) for v in vals], [max(v) for v in vals]


# ------------------------------------------------------------------ certified real numbers

#: Classical convergents: 103993/33102 < pi < 104348/33215.
PI_LO = Fraction(103993, 33102)
PI_HI = Fraction(104348, 33215)


@functools.lru_cache(maxsize=4096)
def ln_bounds(x: Fraction, bits: int = 96) -> tuple[Fraction, Fraction]:
    box_ = ln_interval(Fraction(x), bits)
    return box_.lo, box_.hi


def exp_bounds(x: Fraction, bits: int = 96) -> tuple[Fraction, Fraction]:
    box_ = exp_interval(Fraction(x), bits)
    return box_.lo, box_.hi


def sqrt_bounds(q: Fraction, bits: int = 96) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= sqrt(q) <= hi`` with denominator ``2^bits`` (``q >= 0``)."""
    q = Fraction(q)
    scale = 1 << (2 * bits)
    floor_sq = q.numerator * scale // q.denominator
    s = math.isqrt(floor_sq)
    lo = Fraction(s, 1 << bits)
    hi = Fraction(s + 1, 1 << bits)
    assert lo * lo <= q <= hi * hi
    return lo, hi


def harmonic(m: int) -> Fraction:
    return sum((Fraction(1, i) for i in range(1, m + 1)), Fraction(0))


def sin_bounds(x_lo: Fraction, x_hi: Fraction) -> tuple[Fraction, Fraction]:
    """Bounds on ``sin x`` for ``x in [x_lo, x_hi] subset [0, pi/2]`` (sin increasing there):
    alternating Taylor series, truncated after an even / odd number of terms."""
    def lower(x: Fraction) -> Fraction:   # x - x^3/3! + x^5/5! - x^7/7! + x^9/9! - x^11/11!
        return sum(((-1) ** k * x ** (2 * k + 1) / math.factorial(2 * k + 1)
                    for k in range(6)), Fraction(0))

    def upper(x: Fraction) -> Fraction:   # ... + x^13/13!
        return lower(x) + x ** 13 / math.factorial(13)

    return lower(x_lo), upper(x_hi)


def round_out(lo: Fraction, hi: Fraction, bits: int = 80) -> tuple[Fraction, Fraction]:
    s = 1 << bits
    return (Fraction(lo.numerator * s // lo.denominator, s),
            Fraction(-((-hi.numerator * s) // hi.denominator), s))
