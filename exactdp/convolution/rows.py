"""Independent clamped geometric noise on the rows of an integer strategy (notes §3.0, §3.7).

Row ``j`` (of the kept rows ``I``) releases ``c~_j = clamp_[lo_j, hi_j](c_j + Z_j)`` with
``Pr[Z_j = z] = ((r_j - 1)/(r_j + 1)) r_j^-|z|``: :class:`exactdp.noise.ClampedGeometric` with
``ratio = alpha_j = 1/r_j`` and the public range ``[lo_j, hi_j]`` of ``t_j . x`` over the domain
as both centre range and output range.  One ``uniform(D_j)`` per row, rows in a fixed order
(strict time: the number, order and sizes of the draws depend only on ``(r_j, lo_j, hi_j)``).

Rows with the same ``(r_j, lo_j, hi_j)`` share one sampler object (a public fact), and a sampler
shared by many rows tabulates the integers ``F_c(z)`` of its CDF once
(:class:`TabulatedClampedGeometric`, the same integers, so the same law and the same search);
every row still makes its own draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import gmpy2

from exactdp.convolution.accounting import row_ratio
from exactdp.counting import inverse_cdf_search, search_rounds
from exactdp.noise import ClampedGeometric
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import RandomSource

__all__ = [
    "TABLE_BITS",
    "RowNoise",
    "TabulatedClampedGeometric",
    "row_ratio",
    "unclamped_abs_mean",
    "unclamped_second_moment",
]

#: The most bits a CDF table may hold (64 MiB).
TABLE_BITS = 1 << 29


def unclamped_second_moment(r: Fraction) -> Fraction:
    """``E[Z^2] = 2r/(r-1)^2`` for ``Pr[Z = z] = ((r-1)/(r+1)) r^-|z|`` (notes §3.0)."""
    return 2 * r / (r - 1) ** 2


def unclamped_abs_mean(r: Fraction) -> Fraction:
    """``E|Z| = 2r/(r^2 - 1)`` for the same law."""
    return 2 * r / (r * r - 1)


class TabulatedClampedGeometric(ClampedGeometric):
    """:class:`~exactdp.noise.ClampedGeometric` whose search reads ``F_c(z)`` from a table.

    ``F_c(z)`` depends on ``c`` and ``z`` only through ``j = lo + z - c`` (for ``z < n``): it is
    ``a^(-j) b^(N+1+j)`` for ``j < 0`` and ``D - a^(j+1) b^(N-j)`` for ``j >= 0``.  With the
    centre range equal to ``[lo, hi]``, ``j`` runs over ``[-n, n - 1]``, so ``2n`` integers
    hold every value the search can read.  :meth:`search_cdf` returns exactly the integers of
    :meth:`ClampedGeometric.search_cdf` (tested); the search keeps its fixed
    ``n.bit_length()`` rounds, and ``u`` is converted to gmpy2 once per draw.
    """

    @staticmethod
    def table_bits(ratio: Fraction, lo: int, hi: int) -> int:
        """About how many bits the table of ``(ratio, lo, hi)`` holds: ``2n`` integers of
        about ``(n + 1) log2 b + log2 (a + b)`` bits."""
        n = hi - lo
        top = max(n, 1)
        per = top * ratio.denominator.bit_length() + (ratio.numerator
                                                      + ratio.denominator).bit_length()
        return 2 * n * per

    @cached_property
    def _table(self) -> list[Any]:
        a, b, n, top = self._ma, self._mb, self.n, self._top
        apow = [gmpy2.mpz(1)]
        bpow = [gmpy2.mpz(1)]
        for _ in range(top + 1):
            apow.append(apow[-1] * a)
            bpow.append(bpow[-1] * b)
        d = self._d_mpz
        table = [apow[-j] * bpow[top + j] for j in range(-n, 0)]
        table.extend(d - apow[j + 1] * bpow[top - 1 - j] for j in range(n))  # type: ignore[operator]
        return table

    def search_cdf(self, c: int, z: int) -> int:
        if z >= self.n:
            return self._d_mpz  # type: ignore[return-value]
        return self._table[z - c + self.hi]  # type: ignore[no-any-return]  # j + n = lo+z-c+n

    def _search(self, c: int, u: int) -> int:
        table, n, off = self._table, self.n, self.hi - c
        d = self._d_mpz

        def cdf(z: int) -> Any:
            return d if z >= n else table[z + off]

        return inverse_cdf_search(cdf, n, gmpy2.mpz(u))


class RowNoise:
    """The noise of the kept rows: ``(r_j, lo_j, hi_j)`` per row, one sampler per distinct key.

    Preconditions: ``lo_j <= hi_j`` are the **public** range of the row's coefficient over the
    domain (never read from ``x``); every centre passed in lies in ``[lo_j, hi_j]`` (true for
    ``c_j = t_j . x`` with ``x`` in the domain; checked, a violation is a typed error).
    """

    def __init__(self, ratios: Sequence[Fraction], ranges: Sequence[tuple[int, int]]) -> None:
        if len(ratios) != len(ranges):
            raise ParameterError(f"{len(ratios)} ratios for {len(ranges)} rows")
        self.ratios = tuple(ratios)
        self.ranges = tuple(ranges)
        # keys as int tuples: hashing a Fraction costs a modular inverse
        keys = [(r.numerator, r.denominator, lo, hi)
                for r, (lo, hi) in zip(self.ratios, self.ranges, strict=True)]
        counts: dict[tuple[int, int, int, int], int] = {}
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
        samplers: dict[tuple[int, int, int, int], ClampedGeometric] = {}
        for key, count in counts.items():
            a, b, lo, hi = key
            alpha = Fraction(b, a)
            n = hi - lo
            tab = (count * search_rounds(n) >= 2 * n and n > 0
                   and TabulatedClampedGeometric.table_bits(alpha, lo, hi) <= TABLE_BITS)
            samplers[key] = (TabulatedClampedGeometric(alpha, lo, hi) if tab
                             else ClampedGeometric(alpha, lo, hi))
        self.samplers: tuple[ClampedGeometric, ...] = tuple(samplers[k] for k in keys)
        self.distinct = len(samplers)

    def __len__(self) -> int:
        return len(self.samplers)

    def _centres(self, centres: Sequence[int]) -> None:
        if len(centres) != len(self.samplers):
            raise ParameterError(f"{len(centres)} centres for {len(self.samplers)} rows")

    def draw(self, centres: Sequence[int], source: RandomSource) -> list[int]:
        """``[clamp(c_j + Z_j)]`` for the rows in order: one ``source.inverse_cdf`` per row."""
        self._centres(centres)
        inverse_cdf = source.inverse_cdf
        return [s.lo + inverse_cdf(s.draw(c))
                for s, c in zip(self.samplers, centres, strict=True)]

    def apply(self, centres: Sequence[int], us: Sequence[int]) -> list[int]:
        """The deterministic map ``(c, u) -> [lo_j + M_j(c_j, u_j)]`` (``u_j`` in ``[D_j]_+``)."""
        self._centres(centres)
        if len(us) != len(self.samplers):
            raise ParameterError(f"{len(us)} draws u for {len(self.samplers)} rows; pass one "
                                 f"u_j in [1, D_j] per kept row")
        for i, u in enumerate(us):
            if isinstance(u, bool) or not isinstance(u, int):
                raise ParameterTypeError(f"u[{i}] = {u!r:.40} must be an int")
        return [s.lo + s(c, u) for s, c, u in zip(self.samplers, centres, us, strict=True)]

    @property
    def draw_sizes(self) -> tuple[int, ...]:
        """``D_j`` of every row, in draw order (public)."""
        return tuple(s.d for s in self.samplers)

    def error_moments(self, j: int, c: int) -> tuple[Fraction, Fraction]:
        """``(E[e_j], E[e_j^2])`` for ``e_j = c~_j - c_j`` at centre ``c``, from the sampler's
        exact law (:meth:`ClampedGeometric.law`, equal to the implementation's law: tested in
        tests/test_noise.py); ``O(hi_j - lo_j)`` exact operations."""
        s = self.samplers[j]
        if not s.lo <= c <= s.hi:
            raise DomainError(f"centre {c} of row {j} is outside its public range "
                              f"[{s.lo}, {s.hi}]")
        m1 = m2 = Fraction(0)
        for v, p in s.law(c).items():
            m1 += p * (v - c)
            m2 += p * (v - c) ** 2
        return m1, m2
