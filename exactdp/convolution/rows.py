"""Independent clamped geometric noise on the rows of an integer strategy.

Row ``j`` (of the kept rows ``I``) releases ``c~_j = clamp_[lo_j, hi_j](c_j + Z_j)`` with
``Pr[Z_j = z] = ((r_j - 1)/(r_j + 1)) r_j^-|z|``: :class:`exactdp.noise.ClampedGeometric` with
``ratio = alpha_j = 1/r_j`` and the public range ``[lo_j, hi_j]`` of ``t_j . x`` over the domain
as both centre range and output range.  One ``uniform(D_j)`` per row, rows in a fixed order
(strict time: the number, order and sizes of the draws depend only on ``(r_j, lo_j, hi_j)``).

Rows with the same ``(r_j, lo_j, hi_j)`` share one sampler (a public fact).  A release draws
the rows **class by class** (:attr:`RowNoise.draw_order`: the classes in the order of their
first row, the rows of a class in increasing order; public), so that a class with many rows
builds the integers of its CDF once, in one table of ``n`` integers made by exact
multiplications and divisions (:class:`TabulatedClampedGeometric`: the same integers, so the
same law and the same search), uses it for all its draws and drops it before the next class
(one table in memory at a time; a table of at most :data:`KEEP_TABLE_BITS` bits is built
once, with the :class:`RowNoise`, and kept); every row still makes its own draw ``uniform(D_j)``, a class's
draws taken together through the shared batch API (``sample_many`` /
``RandomSource.inverse_cdf_many``: one OS read per chunk with the default source).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import gmpy2

from exactdp.convolution.accounting import row_ratio
from exactdp.counting import inverse_cdf_search, search_rounds
from exactdp.noise import ClampedGeometric
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.randomness import RandomSource

__all__ = [
    "KEEP_TABLE_BITS",
    "POWER_COST",
    "TABLE_BITS",
    "RowNoise",
    "TabulatedClampedGeometric",
    "row_ratio",
    "unclamped_abs_mean",
    "unclamped_second_moment",
]

#: The most bits a CDF table may hold (64 MiB).
TABLE_BITS = 1 << 29
#: A tabulated class whose table holds at most this many bits (8 KiB) keeps the table it
#: builds at construction for every release instead of building it per release (public:
#: from ``(r, lo, hi)`` only).
KEEP_TABLE_BITS = 1 << 16
#: About how many table steps one untabulated CDF evaluation (two big powers) costs (measured:
#: ~3.5 us per step, ~24 us per evaluation at 25,000 bits)
POWER_COST = 8


def unclamped_second_moment(r: Fraction) -> Fraction:
    """``E[Z^2] = 2r/(r-1)^2`` for ``Pr[Z = z] = ((r-1)/(r+1)) r^-|z|``."""
    return 2 * r / (r - 1) ** 2


def unclamped_abs_mean(r: Fraction) -> Fraction:
    """``E|Z| = 2r/(r^2 - 1)`` for the same law."""
    return 2 * r / (r * r - 1)


class TabulatedClampedGeometric(ClampedGeometric):
    """:class:`~exactdp.noise.ClampedGeometric` (centre range ``[lo, hi]``) whose search reads
    ``F_c(z)`` from a table built at construction.

    With ``n = hi - lo >= 1`` and ``P_k = a^k b^(n-k)`` (``k = 1..n``), the class doc's CDF is,
    for ``z < n`` and ``j = lo + z - c`` in ``[-n, n - 1]``: ``F_c(z) = P_(-j)`` if ``j < 0``
    and ``D - P_(j+1)`` if ``j >= 0``.  The table holds ``P_0 = b^n`` (one power) and
    ``P_(k+1) = (P_k / b) a`` (an exact division and a multiplication by small integers, about
    ``n`` times cheaper than the ``2n`` products of powers it replaces).  :meth:`search_cdf`
    returns exactly the integers of :meth:`ClampedGeometric.search_cdf` (tested, and the
    Lemma 4.9-analogue row reads this class's law off its own search); the search keeps its
    fixed ``n.bit_length()`` rounds, and ``u`` is converted to gmpy2 once per draw.
    """

    def __init__(self, ratio: object, lo: object, hi: object) -> None:
        super().__init__(ratio, lo, hi)
        if self.n < 1:
            raise ParameterError(f"a CDF table needs hi > lo, got [{self.lo}, {self.hi}]")
        bits = self.table_bits(self.ratio, self.lo, self.hi)
        if bits > TABLE_BITS:
            raise ResourceLimitError(f"the CDF table of {self!r} would hold about {bits} bits "
                                     f"(> TABLE_BITS = {TABLE_BITS})")
        a, b = self._ma, self._mb
        table = [self._mb ** self.n]
        for _ in range(self.n):
            table.append(gmpy2.divexact(table[-1], b) * a)
        self._table: list[Any] = table

    @staticmethod
    def table_bits(ratio: Fraction, lo: int, hi: int) -> int:
        """About how many bits the table of ``(ratio, lo, hi)`` holds: ``n + 1`` integers of
        at most about ``n log2 b`` bits."""
        n = hi - lo
        return (n + 1) * max(n, 1) * ratio.denominator.bit_length()

    def search_cdf(self, c: int, z: int) -> int:
        if z >= self.n:
            return self._d_mpz  # type: ignore[return-value]
        j = self.lo + z - c
        if j < 0:
            return self._table[-j]  # type: ignore[no-any-return]
        return self._d_mpz - self._table[j + 1]  # type: ignore[no-any-return,operator]

    def _search(self, c: int, u: int) -> int:
        table, n, d, off = self._table, self.n, self._d_mpz, c - self.lo

        def cdf(z: int) -> Any:
            if z >= n:
                return d
            j = z - off
            return table[-j] if j < 0 else d - table[j + 1]  # type: ignore[operator]

        return inverse_cdf_search(cdf, n, gmpy2.mpz(u))


class RowNoise:
    """The noise of the kept rows: ``(r_j, lo_j, hi_j)`` per row, one sampler per distinct key.

    Preconditions: ``lo_j <= hi_j`` are the **public** range of the row's coefficient over the
    domain (never read from ``x``); every centre passed in lies in ``[lo_j, hi_j]`` (true for
    ``c_j = t_j . x`` with ``x`` in the domain; checked, a violation is a typed error).

    ``samplers[i]``: the sampler of row number ``i`` (rows with one key share one object);
    ``draw_order``: the row numbers in the order of the draws (class by class, see the module
    doc); ``tabulated[k]``: whether class ``k`` builds its CDF table for a release (public: a
    table pays when ``POWER_COST * draws * rounds >= n``).
    """

    def __init__(self, ratios: Sequence[Fraction], ranges: Sequence[tuple[int, int]]) -> None:
        if len(ratios) != len(ranges):
            raise ParameterError(f"{len(ratios)} ratios for {len(ranges)} rows")
        self.ratios = tuple(ratios)
        self.ranges = tuple(ranges)
        # keys as int tuples: hashing a Fraction costs a modular inverse
        members: dict[tuple[int, int, int, int], list[int]] = {}
        for i, (r, (lo, hi)) in enumerate(zip(self.ratios, self.ranges, strict=True)):
            members.setdefault((r.numerator, r.denominator, lo, hi), []).append(i)
        classes: list[ClampedGeometric] = []
        tabulated: list[bool] = []
        samplers: list[ClampedGeometric | None] = [None] * len(self.ratios)
        for (a, b, lo, hi), rows in members.items():
            sampler = ClampedGeometric(Fraction(b, a), lo, hi)
            n = hi - lo
            tabulated.append(n > 0 and POWER_COST * len(rows) * search_rounds(n) >= n
                             and TabulatedClampedGeometric.table_bits(sampler.ratio, lo, hi)
                             <= TABLE_BITS)
            classes.append(sampler)
            for i in rows:
                samplers[i] = sampler
        self.classes: tuple[ClampedGeometric, ...] = tuple(classes)
        self.class_rows: tuple[tuple[int, ...], ...] = tuple(tuple(v) for v in members.values())
        self.tabulated: tuple[bool, ...] = tuple(tabulated)
        self.samplers: tuple[ClampedGeometric, ...] = tuple(
            s for s in samplers if s is not None)
        self.draw_order: tuple[int, ...] = tuple(i for rows in self.class_rows for i in rows)
        self.distinct = len(classes)
        # small tables: built here, once, the same integers every release reads
        self._kept: tuple[ClampedGeometric | None, ...] = tuple(
            TabulatedClampedGeometric(s.ratio, s.lo, s.hi) if tab and
            TabulatedClampedGeometric.table_bits(s.ratio, s.lo, s.hi) <= KEEP_TABLE_BITS
            else None for s, tab in zip(classes, tabulated, strict=True))

    def __len__(self) -> int:
        return len(self.samplers)

    def _centres(self, centres: Sequence[int]) -> None:
        if len(centres) != len(self.samplers):
            raise ParameterError(f"{len(centres)} centres for {len(self.samplers)} rows")

    def fast_sampler(self, k: int) -> ClampedGeometric:
        """The sampler class ``k`` draws with: a fresh :class:`TabulatedClampedGeometric`
        (the same integers) when the class is tabulated -- the one built with the
        :class:`RowNoise` if its table is small (:data:`KEEP_TABLE_BITS`) --, else the plain
        one."""
        kept = self._kept[k]
        if kept is not None:
            return kept
        s = self.classes[k]
        return TabulatedClampedGeometric(s.ratio, s.lo, s.hi) if self.tabulated[k] else s

    def _by_class(self, centres: Sequence[int],
                  run: Callable[[ClampedGeometric, list[int], int], Sequence[int]]) -> list[int]:
        """``out[i] = lo_i + z_i`` with ``z = run(sampler, class_centres, t)`` per class, ``t``
        the position of the class's first draw in :attr:`draw_order`; class by class with each
        class's fast sampler; in row order.  One table at a time: a class's table goes before
        the next class's is built."""
        self._centres(centres)
        out = [0] * len(self.samplers)
        t = 0
        for k, rows in enumerate(self.class_rows):
            s = self.fast_sampler(k)
            zs = run(s, [centres[i] for i in rows], t)
            for i, z in zip(rows, zs, strict=True):
                out[i] = s.lo + z
            t += len(rows)
            del s
        return out

    def draw(self, centres: Sequence[int], source: RandomSource) -> list[int]:
        """``[clamp(c_j + Z_j)]`` for the rows (in row order), drawn in :attr:`draw_order`:
        one ``sample_many`` per class (:meth:`InverseCDFSampler.sample_many`: the class's
        draws through ``source.inverse_cdf_many``, one OS read per chunk with the default
        source, each draw's own full-round search; a source that overrides ``inverse_cdf``,
        such as the exploring one, sees one ``inverse_cdf`` per row)."""
        return self._by_class(centres, lambda s, cs, t: s.sample_many(cs, source))

    def apply(self, centres: Sequence[int], us: Sequence[int]) -> list[int]:
        """The deterministic map ``(c, u) -> [lo_j + M_j(c_j, u_j)]`` (in row order), the ``u``
        given in :attr:`draw_order` (``us[t]`` in ``[1, draw_sizes[t]]``, as a release draws
        them)."""
        if len(us) != len(self.samplers):
            raise ParameterError(f"{len(us)} draws u for {len(self.samplers)} rows; pass one "
                                 f"u in [1, D] per kept row, in draw order")
        for t, u in enumerate(us):
            if isinstance(u, bool) or not isinstance(u, int):
                raise ParameterTypeError(f"u[{t}] = {u!r:.40} must be an int")
        return self._by_class(centres, lambda s, cs, t: [s(c, us[t + e])
                                                          for e, c in enumerate(cs)])

    @property
    def draw_sizes(self) -> tuple[int, ...]:
        """``D`` of every draw, in :attr:`draw_order` (public)."""
        return tuple(self.samplers[i].d for i in self.draw_order)

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
