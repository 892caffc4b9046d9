"""A certified upper bound on ``δ(R)`` for many rows: the dominating grid.

The exact law of :mod:`exactdp.convolution.accounting` has up to ``prod (Δ_j + 1)`` support
points, which is hopeless for hundreds of rows with distinct ratios.  For those the "exact"
accounting mode calibrates with this bound instead; it is an *upper* bound on the exact
``δ(R)``, so a calibration it accepts is private.

Why it is an upper bound.  Against a fixed neighbour, row ``j`` is a pair of laws that is
``ε_j = Δ_j ln r_j``-indistinguishable in both directions; every such pair is a
post-processing of randomized response ``RR(ε_j)`` (Kairouz–Oh–Viswanath; for ``Δ_j = 1`` it
*is* ``RR(ε_j)`` by the table of §3.0), and ``RR(ε)`` is a post-processing of ``RR(ε')`` for
``ε' >= ε``.  With a public grid ratio ``ρ = a/b > 1`` and ``k_j = ceil(ε_j / ln ρ)`` (the least
``k`` with ``ρ^k >= r_j^Δ_j``, decided exactly), the product of the rows is a post-processing
of the product of ``RR(k_j ln ρ)``, and the hockey-stick divergence cannot grow under
post-processing.  The dominating product has privacy loss ``(sum ±k_j) ln ρ``: an integer
exponent ``e`` with ``P(e)`` a product of binomials, and
``δ_dom(R) = sum_e P(e) (1 - R ρ^-e)_+``.

How it is computed.  All probabilities are fixed-point integers over ``2^P`` rounded *up* at
every step (so every computed coefficient is an upper bound of the true one), the groups of
equal ``k`` are binomials, and groups are multiplied as polynomials by Kronecker substitution
(one big-integer product per group, in GMP).  The weights ``(1 - R ρ^-e)`` are rounded up too
(``R ρ^-e`` rounded down over ``2^Q``).  The result is a rational ``>= δ_dom(R) >= δ(R)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from math import gcd

import gmpy2

from exactdp.certified import ceil_log_ratio
from exactdp.params import ParameterError, ResourceLimitError

__all__ = ["GridBound", "grid_delta_upper", "grid_exponents", "grid_exponents_counts"]

#: Largest number of exponent slots the dominating law may have.
MAX_SLOTS = 4_000_000


def grid_exponents(rows: Iterable[tuple[Fraction, int]], rho: Fraction) -> dict[int, int]:
    """``{k: count}``: each row ``(r, Δ)`` with ``Δ > 0`` rounded up to ``k`` grid steps, the
    least ``k`` with ``ρ^k >= r^Δ`` (:func:`exactdp.certified.ceil_log_ratio`, exact)."""
    groups: dict[tuple[Fraction, int], int] = {}
    for r, d in rows:
        key = (Fraction(r), d)
        groups[key] = groups.get(key, 0) + 1
    return grid_exponents_counts(groups, rho)


def grid_exponents_counts(groups: Mapping[tuple[Fraction, int], int], rho: Fraction
                          ) -> dict[int, int]:
    """:func:`grid_exponents` for rows given with multiplicity ``{(r, Δ): m}``."""
    cache: dict[Fraction, int] = {}
    out: dict[int, int] = {}
    for (r, d), m in groups.items():
        if not d:
            continue
        x = Fraction(r) ** d
        if x not in cache:
            cache[x] = ceil_log_ratio(x, rho)
        k = cache[x]
        out[k] = out.get(k, 0) + m
    return out


def _binomial_fixed(k: int, m: int, a: int, b: int, bits: int) -> list[int]:
    """``m`` copies of ``RR(k ln ρ)``, ``ρ = a/b``: upward fixed-point probabilities of the
    exponents ``k m, k(m-2), ..., -k m`` (index ``i`` = number of minus signs)."""
    ak, bk = gmpy2.mpz(a) ** k, gmpy2.mpz(b) ** k
    den = (ak + bk) ** m
    scale = gmpy2.mpz(1) << bits
    num = ak**m  # C(m,0) a^{km}
    out = []
    for i in range(m + 1):
        out.append(int(-((-num * scale) // den)))
        if i < m:
            # exact: C(m,i+1) a^{k(m-i-1)} b^{k(i+1)} = num (m-i) b^k / ((i+1) a^k)
            num = num * (m - i) * bk // ((i + 1) * ak)
    return out


def _pack(coeffs: Sequence[int], nbytes: int) -> object:
    return gmpy2.mpz(int.from_bytes(b"".join(c.to_bytes(nbytes, "little") for c in coeffs),
                                    "little"))


def _kronecker(x: Sequence[int], y: Sequence[int], bits: int) -> list[int]:
    """Upward fixed-point product of two polynomials with coefficients over ``2^bits``."""
    top = max(max(x, default=0), max(y, default=0), 1)
    slot = 2 * top.bit_length() + min(len(x), len(y)).bit_length() + 1
    nbytes = (slot + 7) // 8
    prod = int(_pack(x, nbytes) * _pack(y, nbytes))  # type: ignore[operator]
    n = len(x) + len(y) - 1
    raw = prod.to_bytes(n * nbytes, "little")
    half = 1 << bits
    out = []
    for i in range(n):
        c = int.from_bytes(raw[i * nbytes:(i + 1) * nbytes], "little")
        out.append((c + half - 1) >> bits)
    return out


class GridBound:
    """The dominating law for one column: ``lowest + step * i`` has upward weight
    ``coeffs[i] / 2^P``."""

    def __init__(self, ks: dict[int, int], rho: Fraction, bits: int = 128,
                 max_slots: int = MAX_SLOTS) -> None:
        rho = Fraction(rho)
        if rho <= 1:
            raise ParameterError(f"grid ratio rho = {rho} must be > 1")
        self.rho, self.bits, self.ks = rho, bits, dict(ks)
        a, b = rho.numerator, rho.denominator
        step = 0
        for k in ks:
            step = gcd(step, 2 * k)
        self.step = max(step, 1)
        slots = sum(2 * k * m for k, m in ks.items()) // self.step + 1
        if slots > max_slots:
            raise ResourceLimitError(f"the dominating grid law would have {slots} slots "
                                     f"(> {max_slots}); use a coarser grid ratio rho")
        lowest = 0
        coeffs = [1 << bits]
        for k, m in sorted(ks.items()):
            part = _binomial_fixed(k, m, a, b, bits)
            part.reverse()  # index i now = number of plus signs: exponent -k m + 2k i
            spread = 2 * k // self.step
            dense = [0] * ((len(part) - 1) * spread + 1)
            dense[::spread] = part
            coeffs = _kronecker(coeffs, dense, bits)
            lowest -= k * m
        self.lowest, self.coeffs = lowest, coeffs

    @property
    def max_ratio(self) -> Fraction:
        """``ρ^(sum k_j)``: the dominating law's pure ratio (>= the exact one)."""
        return self.rho ** (self.lowest + self.step * (len(self.coeffs) - 1))

    def delta_upper(self, ratio: Fraction, qbits: int = 128) -> Fraction:
        """A rational ``>= δ_dom(R) >= δ(R)``."""
        big_r = Fraction(ratio)
        if big_r <= 0:
            raise ParameterError(f"R = {big_r} must be > 0")
        rho, step = self.rho, self.step
        # first index whose exponent e has rho^e > R
        n = len(self.coeffs)
        lo, hi = 0, n  # binary search on the monotone predicate rho^e > R
        while lo < hi:
            mid = (lo + hi) // 2
            if rho ** (self.lowest + step * mid) > big_r:
                hi = mid
            else:
                lo = mid + 1
        i0 = lo
        if i0 >= n:
            return Fraction(0)
        one = 1 << qbits
        first = big_r / rho ** (self.lowest + step * i0)  # < 1
        v = (first.numerator << qbits) // first.denominator  # floor: lower bound of R rho^-e
        shrink = rho**-step
        sn, sd = shrink.numerator, shrink.denominator
        total = 0
        for i in range(i0, n):
            c = self.coeffs[i]
            if c:
                total += c * (one - v)
            v = (v * sn) // sd
        return Fraction(total, 1 << (self.bits + qbits))


def grid_delta_upper(rows: Iterable[tuple[Fraction, int]], rho: Fraction, ratio: Fraction,
                     bits: int = 128) -> Fraction:
    """Certified ``δ(R)`` upper bound for one column given as ``(r_j, Δ_j)`` rows."""
    return GridBound(grid_exponents(rows, Fraction(rho)), Fraction(rho), bits).delta_upper(
        Fraction(ratio))
