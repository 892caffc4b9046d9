"""GeoSample (Balcer & Vadhan, Algorithm 4.8): inverse-transform sampling of the clamped
geometric with ``eps~ = 2 ln(1 + 2**-k)``, an integer CDF over the common denominator ``d``;
exactly :class:`~exactdp.geometric.GeometricMechanism` in distribution (Theorem 4.7).

Beside the reference ``GeoSample.cdf`` (Algorithm 4.8 step 2) sit its two fast paths, which
compute the same values: a table of the ``2n`` values of ``F`` built once per mechanism
(``GeoSample._table``, up to :data:`GEO_TABLE_BITS`), and beyond that :class:`PowerWalk`, the
evaluations of one search on gmpy2 integers, each late round's power from the previous
one's.  ``proofs/balcer_vadhan/thm_4_07_fast_path.py`` proves both equal to ``cdf`` on every
path of the verify grids.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cached_property
from typing import Any

import gmpy2

from exactdp import inverse_cdf, lazy_draws
from exactdp.certified import ceil_log_ratio
from exactdp.geometric import GeometricMechanism, check_beta, geosample_k
from exactdp.inverse_cdf import InverseCDFSampler, guard_bits, inverse_cdf_search
from exactdp.params import inverse_integer, positive_int, to_fraction
from exactdp.randomness import (
    SPLIT_TOP_BITS,
    RandomSource,
    SystemSource,
    plain_byte_source,
    split_inverse_cdf,
)

__all__ = ["GEO_STEP_BITS", "GEO_TABLE_BITS", "GEO_TABLE_MAX_N", "GeoSample", "PowerWalk"]

#: GeoSample keeps the ``2n`` values of its ``F`` (``GeoSample._table``, about
#: ``2 n**2 (k + 1)`` bits) when that is at most this many bits (32 KiB: ``n`` up to about
#: 160 at ``eps = 1/8``); larger mechanisms search with a :class:`PowerWalk` per call.
GEO_TABLE_BITS = 1 << 18

#: ... and when ``n`` is at most this (each count also keeps a row of ``n + 1`` references into
#: the table, ``(n + 1)**2`` in all: at most 130 KiB).
GEO_TABLE_MAX_N = 127

#: GeoSample's search computes the power ``(2**k + 1)**e`` of a round from the previous
#: round's by one product or exact quotient once the search interval has at most about
#: ``2**GEO_STEP_BITS`` points (a product by a small power is cheaper than a new power).
GEO_STEP_BITS = 11


class GeoSample(InverseCDFSampler):
    """Algorithm 4.8, ``GeoSample_{n,eps}(c, u)`` for ``c`` in ``[n]``, ``u`` in ``[d]_+``.

    ``k = ceil(log2(2/eps))``, ``d = (2**(k+1) + 1)(2**k + 1)**(n-1)`` and

    ``F(z) = 2**(k(c-z)) (2**k+1)**(n-(c-z))``                 for ``z`` in ``[0, c)``,
    ``F(z) = d - 2**(k(z-c+1)) (2**k+1)**(n-1-(z-c))``          for ``z`` in ``[c, n)``,
    ``0`` below 0 and ``d`` from ``n`` on.

    Output distribution (Theorem 4.7 i, Lemma 4.9): exactly
    ``GeometricMechanism(n, 2**k/(2**k+1))``, i.e. the clamped geometric with
    ``eps~ = 2 ln(1 + 2**-k)`` in ``(4/9 eps, eps]``; ``(eps~/2, 0)``-DP, worst
    neighbouring ratio exactly ``1 + 2**-k``.
    Time: ``n.bit_length()`` evaluations of ``F`` on integers of ``O(n log(1/eps))`` bits
    (the big-integer arithmetic itself is not constant-time; the operation count is).  One
    draw with the OS source or the keystream (:meth:`sample`, :attr:`lazy_bits`) reads ``u``'s
    low bits and searches in full only with probability at most ``(5n + 1) 2^-191``, which
    may depend on ``c``.
    """

    def __init__(self, n: object, epsilon: object) -> None:
        self.n = positive_int(n, "n")
        self.epsilon = inverse_integer(epsilon, "epsilon")
        self.k = geosample_k(self.epsilon)
        guard_bits(self.n * (self.k + 1) + 1, "GeoSample's d")
        self._base = (1 << self.k) + 1

    @classmethod
    def for_budget(cls, n: object, total_epsilon: object, draws: object = 1) -> GeoSample:
        """The most accurate GeoSample whose ``draws`` values together spend at most
        ``total_epsilon`` (any positive rational up to ``draws/2``): the smallest ``k`` with
        ``draws * ln(1 + 2**-k) <= total_epsilon``, decided exactly, and the paper's
        ``eps = 2**(1-k)`` (every ``eps`` with that ``k`` gives the same mechanism).
        :meth:`spend` states what it spends."""
        from exactdp.spend import geosample_k_for_budget

        size = positive_int(n, "n")
        k = geosample_k_for_budget(total_epsilon, positive_int(draws, "draws"),
                                   cls.largest_k(size))
        return cls(size, Fraction(1, 1 << (k - 1)))

    @staticmethod
    def largest_k(n: int) -> int:
        """The largest ``k`` whose ``d`` (``n (k + 1) + 1`` bits) stays within
        :data:`~exactdp.inverse_cdf.MAX_INTEGER_BITS` (0 when even ``k = 1`` does not)."""
        return max(0, (inverse_cdf.MAX_INTEGER_BITS - 1) // n - 1)

    def spend(self, draws: object = 1, requested: object = None) -> Any:
        """The exact privacy ``draws`` values spend: ``draws * ln(1 + 2**-k)``
        (:class:`exactdp.spend.Spend`)."""
        from exactdp.spend import geosample_spend

        asked = None if requested is None else to_fraction(requested, "requested")
        return geosample_spend(self.k, positive_int(draws, "draws"), asked)

    def __repr__(self) -> str:
        return f"GeoSample(n={self.n}, epsilon={self.epsilon})"

    @cached_property
    def d(self) -> int:  # type: ignore[override]
        return ((1 << (self.k + 1)) + 1) * self._base ** (self.n - 1)

    @property
    def alpha(self) -> Fraction:
        """``e**(-eps~/2) = 2**k / (2**k + 1)``."""
        return Fraction(1 << self.k, self._base)

    @property
    def privacy_ratio(self) -> Fraction:
        """``e**(eps~/2) = 1 + 2**-k``: the exact pure-DP ratio of Theorem 4.7 i."""
        return 1 + Fraction(1, 1 << self.k)

    def ideal(self) -> GeometricMechanism:
        return GeometricMechanism(self.n, self.alpha)

    def ideal_distribution(self, c: int) -> dict[int, Fraction]:
        """Theorem 4.7 i: the clamped geometric's pmf at ``c`` (closed form, not from F)."""
        return dict(enumerate(self.ideal().distribution(c)))

    def cdf(self, c: int, z: int) -> int:
        """``F(z)`` of Algorithm 4.8 step 2 (for this ``c``)."""
        if not (type(c) is int and type(z) is int and 0 <= c <= self.n):
            self._check_cz(c, z)  # refuses, or converts nothing: ints in range pass above
        n, k = self.n, self.k
        if z < 0:
            return 0
        if z >= n:
            return self.d
        if z < c:
            return (1 << (k * (c - z))) * self._base ** (n - (c - z))
        return self.d - (1 << (k * (z - c + 1))) * self._base ** (n - 1 - (z - c))

    #: Lazy draws with the OS source or the keystream (``exactdp.lazy_draws``): ``u``'s
    #: leading bits first, the rest only when bounds on ``F`` leave the output open.  False:
    #: every draw reads all of ``u``.
    lazy_bits = True

    @cached_property
    def _geo_plan(self) -> lazy_draws.GeoPlan | None:
        """The certified search's plan when ``d`` has more than ``2 * SPLIT_TOP_BITS`` bits
        (below that the full draw is cheap)."""
        if self.d.bit_length() <= 2 * SPLIT_TOP_BITS:
            return None
        return lazy_draws.geo_plan(self.n, self.k, self.d)

    def sample(self, c: int, source: RandomSource | None = None) -> int:
        """Release ``M(c, U)``.  With the OS source (``None``, a
        :class:`~exactdp.randomness.SystemSource`) or the keystream, :attr:`lazy_bits` and
        ``d`` of more than 1024 bits: :func:`~exactdp.randomness.split_inverse_cdf` over
        :class:`~exactdp.lazy_draws.GeoSplitDraw` -- ``u``'s leading 512 bits first, its low
        bits only when the certified bounds of :func:`~exactdp.lazy_draws.geo_decide` leave
        the block open (the same law; see :mod:`exactdp.lazy_draws` for what the bits read
        depend on).  Otherwise the full draw of :meth:`InverseCDFSampler.sample`."""
        src = SystemSource() if source is None else plain_byte_source(source)
        plan = (self._geo_plan if self.lazy_bits and type(self).cdf is GeoSample.cdf
                and src is not None else None)
        if plan is not None and type(c) is int and 0 <= c <= self.n:
            return split_inverse_cdf(src, lazy_draws.GeoSplitDraw(self, plan, c))  # type: ignore[arg-type]
        return super().sample(c, source)

    @cached_property
    def _gmp(self) -> tuple[Any, Any]:
        """gmpy2 copies of ``(2**k + 1, d)`` for :class:`PowerWalk`."""
        return gmpy2.mpz(self._base), gmpy2.mpz(self.d)

    @cached_property
    def _table(self) -> list[int] | None:
        """``[F_c(z) for j = z - c in [-n, n)]``: on ``[0, n)``, ``F_c(z)`` depends on ``c``
        and ``z`` only through ``j`` (``2**(k a) (2**k + 1)**(n - a)`` with ``a = -j`` for
        ``j < 0``, ``d`` minus that with ``a = j + 1`` for ``j >= 0``: Algorithm 4.8 step 2),
        so ``2n`` values built once per mechanism (public parameters only) serve every
        search.  None when they would exceed :data:`GEO_TABLE_BITS` or ``n`` exceeds
        :data:`GEO_TABLE_MAX_N` (then each search runs a :class:`PowerWalk`)."""
        n, k = self.n, self.k
        if 2 * n * n * (k + 1) > GEO_TABLE_BITS or n > GEO_TABLE_MAX_N:
            return None
        low = [0] * (n + 1)  # low[a] = 2**(k a) (2**k + 1)**(n - a), a in [1, n]
        power = 1
        for a in range(n, 0, -1):
            low[a] = power << (k * a)
            power *= self._base
        d = self.d
        return [low[-j] for j in range(-n, 0)] + [d - low[j + 1] for j in range(n)]

    @cached_property
    def _walks(self) -> list[Callable[[int], int]] | None:
        """For every count ``c``, the function ``z -> F_c(z)`` on ``[0, n]`` reading the row
        ``F_c(0), ..., F_c(n)`` of :func:`_table_rows` (built once per mechanism: a search
        only reads them); None without the table or in a subclass with its own :meth:`cdf`."""
        table = self._table
        if table is None or type(self).cdf is not GeoSample.cdf:
            return None
        return [_row_walk(row) for row in _table_rows(table, self.n, self.d)]

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without :attr:`_walks` (closures, rebuilt on first use)."""
        state = self.__dict__.copy()
        state.pop("_walks", None)
        return state

    def _walk(self, c: int) -> Callable[[int], Any]:
        """The evaluations ``z -> F_c(z)``, ``z`` in ``[0, n]``, of one search at count ``c``:
        reads of :attr:`_table` when it exists, else a :class:`PowerWalk`."""
        walks = self._walks
        return PowerWalk(self, c).search_cdf if walks is None else walks[c]

    def search_cdf(self, c: int, z: int) -> int:
        """:meth:`cdf` at ``z`` in ``[0, n]`` as the search computes it (:meth:`_walk`: the
        table or gmpy2 integers; the same values -- the proofs check equality on every
        ``(c, z)`` of their grids).  A subclass with its own :meth:`cdf` is searched over
        that ``cdf`` (the sampler stays its inverse)."""
        if type(self).cdf is not GeoSample.cdf or not 0 <= z <= self.n:
            return self.cdf(c, z)
        return self._walk(c)(z)  # type: ignore[no-any-return]

    def _search(self, c: int, u: int) -> int:
        """``min{z : F_c(z) >= u}``: :func:`inverse_cdf_search` over :meth:`_walk` (a table
        read per round, or one :class:`PowerWalk` -- gmpy2, each round's power from the
        previous one late in the search -- with ``u`` converted to gmpy2 once); over
        :meth:`search_cdf` when a subclass has its own cdf."""
        walks = self._walks
        if walks is not None:
            return inverse_cdf_search(walks[c], self.n, u)
        if type(self).cdf is not GeoSample.cdf:
            return super()._search(c, u)
        return inverse_cdf_search(PowerWalk(self, c).search_cdf, self.n, gmpy2.mpz(u))

    def paper_accuracy(self, beta: object) -> int:
        """Theorem 4.7 i: ``a = ceil(2/eps~ * ln(1/beta))``, exactly.

        ``2/eps~ = 1/ln(1 + 2**-k)``, so ``a`` is the least integer with
        ``(1 + 2**-k)**a >= 1/beta``, decided with certified logarithms.
        """
        b = check_beta(beta)
        return ceil_log_ratio(1 / b, self.privacy_ratio)


class PowerWalk:
    """GeoSample's ``F_c(z)`` at the points one search visits, on gmpy2 integers.

    For ``z`` in ``[0, n)`` put ``a = c - z`` (``z < c``) or ``a = z - c + 1`` (``z >= c``):
    then ``F_c(z) = 2**(k a) (2**k + 1)**(n - a)`` or ``d`` minus that (Algorithm 4.8 step 2).
    Evaluation ``r`` (1-based) of a walk computes the power ``(2**k + 1)**(n - a)`` afresh for
    ``r <= fresh`` and otherwise from the previous evaluation's power by one product with
    (or one exact quotient by) ``(2**k + 1)**|delta|``, where ``delta`` is the change of
    exponent: the late rounds of a binary search move by little, so this replaces a power of
    ``n log2(2**k + 1)`` bits by a product with a small one.  ``fresh = max(1,
    n.bit_length() - GEO_STEP_BITS)`` depends only on ``n``: which rounds take which route is
    public.  The values are exactly :meth:`GeoSample.cdf`'s (checked on every path of the
    verify grids by ``proofs/balcer_vadhan/thm_4_07_fast_path.py``).  The mechanism's ``n``, ``k``,
    ``2**k + 1`` and ``d`` are read once per walk (one search), not once per evaluation.
    """

    __slots__ = ("base", "c", "calls", "d", "exponent", "fresh", "k", "mech", "n", "power")

    def __init__(self, mech: GeoSample, c: int) -> None:
        self.mech, self.c = mech, c
        self.base, self.d = mech._gmp
        self.n, self.k = mech.n, mech.k
        self.fresh = max(1, self.n.bit_length() - GEO_STEP_BITS)
        self.calls = 0
        self.exponent = -1
        self.power: Any = None

    def search_cdf(self, z: int) -> Any:
        """``F_c(z)`` for ``z`` in ``[0, n]`` (one evaluation of the search)."""
        self.calls += 1
        n = self.n
        if z >= n:
            return self.d
        c, base = self.c, self.base
        a = c - z if z < c else z - c + 1
        e = n - a
        if self.calls <= self.fresh:
            power = base**e
        elif e >= self.exponent:
            power = self.power * base ** (e - self.exponent)
        else:
            power = gmpy2.divexact(self.power, base ** (self.exponent - e))
        self.exponent, self.power = e, power
        low = power << (self.k * a)
        return low if z < c else self.d - low


def _table_rows(table: list[int], n: int, d: int) -> list[list[int]]:
    """``[[F_c(0), ..., F_c(n)] for c in [n]]`` from GeoSample's table of ``F_c(z)`` at
    ``j = z - c`` in ``[-n, n)`` (``GeoSample._table``, index ``j + n``) and ``F_c(n) = d``:
    slices of references to the table's ints (``(n + 1)**2`` references)."""
    return [table[n - c:2 * n - c] + [d] for c in range(n + 1)]


def _row_walk(row: list[int]) -> Callable[[int], int]:
    """GeoSample's ``F_c`` on ``[0, n]`` read off its row (:func:`_table_rows`): one function
    call and one list read per search round, whatever ``c`` and ``z`` are."""

    def search_cdf(z: int) -> int:  # the name the strict-time trace counts (TRACED_CALLS)
        return row[z]

    return search_cdf
