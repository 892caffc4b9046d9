"""Counting-query mechanisms ``M: [n] x [d]_+ -> [n]`` (Balcer & Vadhan, Section 4).

Notation: ``[n] = {0, ..., n}``, ``[d]_+ = {1, ..., d}``; ``eps``, ``gamma`` in
``N^{-1}``.  Logarithms in the paper are base 2; ``ceil(log2 x)`` for an integer ``x`` is
``(x - 1).bit_length()``.

* :class:`GeometricMechanism` -- the ideal clamped two-sided geometric (Algorithm 4.5),
  parameterised by its exact ratio ``alpha = e**(-1/s)``.
* :class:`GeoSample` -- Algorithm 4.8: inverse-transform sampling of the clamped geometric
  with ``eps~ = 2 ln(1 + 2**-k)``, integer CDF with common denominator ``d``.
* :class:`FastSample` -- Algorithm 4.11: truncated geometric mixed with uniform; its CDF
  needs integers of ``O~(1/eps) log(n/gamma)`` bits instead of ``O(n log(1/eps))``.
* :func:`inverse_cdf_search` -- the one binary search all of them share; it runs exactly
  ``n.bit_length()`` rounds whatever ``c`` and ``u`` are.
* ``sample_many(counts, source)`` on every mechanism -- independent draws at many counts,
  one ``uniform_many`` for the batch (one OS read with :class:`~exactdp.randomness.SystemSource`)
  and, for FastSample, one native search of the whole batch when the C kernels are built
  (:mod:`exactdp.native_samplers`; ``proofs/balcer_vadhan/thm_4_10_fast_path.py`` proves it equal to the
  Python search on the verify grids).

GeoSample's search reads ``F_c`` off a table of its ``2n`` values built once per mechanism
(``GeoSample._table``, up to :data:`GEO_TABLE_BITS`); beyond that,
:class:`~exactdp.powerwalk.PowerWalk` (gmpy2 search evaluations).  PowerWalk and the draws
handed to a random source (:mod:`exactdp.counting_draws`) live in their own modules and are
re-exported here.

Every sampler is a deterministic function ``M(c, u)``, non-decreasing in ``u``; its output
distribution for ``U ~ Unif([d]_+)`` is ``Pr[M(c, U) <= z] = F_c(z) / d``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, partial
from numbers import Integral
from typing import Any, cast

import gmpy2

from exactdp import native_samplers
from exactdp.certified import ceil_log2, ceil_log_ratio
from exactdp.counting_draws import CDFDraw, CountBatch
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    check_count,
    inverse_integer,
    positive_int,
    to_fraction,
)
from exactdp.powerwalk import GEO_STEP_BITS, PowerWalk
from exactdp.randomness import RandomSource, SystemSource, UniformBatch, default_source
from exactdp.trace import active, record

__all__ = [
    "GEO_STEP_BITS",
    "GEO_TABLE_BITS",
    "GEO_TABLE_MAX_N",
    "MAX_INTEGER_BITS",
    "CDFDraw",
    "CountBatch",
    "FastSample",
    "GeoSample",
    "GeometricMechanism",
    "InverseCDFSampler",
    "PowerWalk",
    "TabulatedMechanism",
    "TruncatedGeoSample",
    "geosample_k",
    "inverse_cdf_search",
    "search_rounds",
]

#: Refuse to build integers longer than this many bits (about 32 MiB each): the paper's
#: ``d`` can be astronomically large for extreme parameters (FastSample with
#: ``eps = 2**-200`` has ``t`` near ``2**203``); ``k`` and ``t`` stay exact regardless.
MAX_INTEGER_BITS = 1 << 28

#: FastSample precomputes ``(2**k + 1)**j`` for ``j <= t + 1`` when that table needs at
#: most this many bits (about ``t**2 (k + 1) / 2``; 2**27 bits = 16 MiB).
POWER_TABLE_BITS = 1 << 27

#: FastSample's native search reads a table of ``2t`` values of about ``log2 d`` bits each; it
#: is built (once per mechanism) when it needs at most this many bytes (64 MiB; at n = 10**6,
#: eps = 1/10, gamma = 2**-40 it has 11.5 MB), else the Python search runs.
NATIVE_TABLE_BYTES = 1 << 26

#: GeoSample keeps the ``2n`` values of its ``F`` (``GeoSample._table``, about
#: ``2 n**2 (k + 1)`` bits) when that is at most this many bits (32 KiB: ``n`` up to about
#: 160 at ``eps = 1/8``); larger mechanisms search with a :class:`PowerWalk` per call.
GEO_TABLE_BITS = 1 << 18

#: ... and when ``n`` is at most this (each count also keeps a row of ``n + 1`` references into
#: the table, ``(n + 1)**2`` in all: at most 130 KiB).
GEO_TABLE_MAX_N = 127

#: ``sample_many`` draws and searches its counts in chunks of this many (one
#: ``uniform_many`` each: memory stays near ``BATCH_CHUNK log2(d) / 8`` bytes).
BATCH_CHUNK = 1 << 13

_MPZ = type(gmpy2.mpz(0))

#: The trace event of one search round (one tuple, appended once per round).
_CDF_EVENT = ("cdf",)


def search_rounds(n: int) -> int:
    """Rounds of :func:`inverse_cdf_search` over ``[n]``: ``ceil(log2(n + 1))``."""
    return n.bit_length()


def inverse_cdf_search(cdf: Callable[[int], int], n: int, u: int) -> int:
    """The smallest ``z`` in ``[n]`` with ``cdf(z) >= u`` (Lemma 2.13 by binary search).

    Preconditions: ``cdf`` non-decreasing on ``[n]`` and ``cdf(n) >= u``.
    Time: exactly ``search_rounds(n)`` rounds and one ``cdf`` evaluation per round, for
    every ``u`` -- the loop never exits early (strict time).  Each round
    is recorded as the trace event ``("cdf",)``.
    """
    if type(u) is not int and type(u) is not _MPZ and (  # the common draws: no ABC check
            isinstance(u, bool) or not isinstance(u, Integral)):
        raise ParameterTypeError(f"u = {u!r:.60} must be an int (a draw from [d]_+)")
    lo, hi = 0, n  # invariant: the answer lies in [lo, hi]
    events = active()
    for _ in range(n.bit_length()):  # search_rounds(n), without the call
        mid = (lo + hi) >> 1
        if events is not None:
            events.append(_CDF_EVENT)
        if cdf(mid) >= u:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _check_z(z: object) -> None:
    """An output ``z`` must be an int (not a bool): ``alpha**1.5`` is a float, and ``True``
    is not the outcome 1."""
    if isinstance(z, bool) or not isinstance(z, int):
        raise ParameterTypeError(f"z = {z!r:.60} must be an int")


def geosample_k(epsilon: Fraction) -> int:
    """``k = ceil(log2(2/eps))`` for ``eps = 1/m``: ``(2m - 1).bit_length()``, exactly."""
    return ceil_log2(2 * epsilon.denominator)


def _guard_bits(bits: int, what: str) -> None:
    if bits > MAX_INTEGER_BITS:
        raise ResourceLimitError(
            f"{what} would have about {bits} bits (> MAX_INTEGER_BITS = {MAX_INTEGER_BITS}); "
            f"choose a larger epsilon/gamma or a smaller n")


def _count_list(counts: object) -> list[object]:
    if isinstance(counts, (str, bytes, dict)) or not hasattr(counts, "__iter__"):
        raise ParameterTypeError(f"counts = {counts!r:.60} must be a sequence of ints")
    return list(counts)  # type: ignore[call-overload]


class InverseCDFSampler:
    """A counting mechanism given by an integer CDF: ``M(c, u) = min{z : F_c(z) >= u}``.

    Subclasses define ``n``, ``d`` and ``cdf(c, z)`` (non-decreasing in ``z``, ``0`` for
    ``z < 0`` and ``d`` for ``z >= n``).  This class supplies the deterministic call, the
    sampling entry point and the scaled CDF at 0 (Definition 4.3).
    """

    n: int

    @property
    def d(self) -> int:
        raise NotImplementedError

    def cdf(self, c: int, z: int) -> int:
        raise NotImplementedError

    def _check_cz(self, c: object, z: object) -> None:
        """``c`` in ``[n]`` and ``z`` an int: outside them the closed forms would leave the
        integers (a negative exponent gives a float), so refuse instead."""
        if type(c) is int and type(z) is int and 0 <= c <= self.n:
            return  # the common case, decided without the checks' calls
        check_count(c, self.n)
        _check_z(z)

    def __call__(self, c: int, u: int) -> int:
        """``M(c, u)``: deterministic, non-decreasing in ``u``; ``u`` must lie in ``[d]_+``."""
        if not (type(c) is int and type(u) is int and 0 <= c <= self.n and 1 <= u <= self.d):
            c = self._check_call(c, u)  # anything but plain ints in range: refused or converted
        return self._search(c, u)

    def _check_call(self, c: object, u: object) -> int:
        """The checks of :meth:`__call__`: ``c`` in ``[n]`` (returned as an int) and ``u`` an
        int in ``[d]_+``, else the error naming the first that fails."""
        c = check_count(c, self.n)
        d = self.d
        if isinstance(u, bool) or not isinstance(u, int):
            raise ParameterTypeError(f"u = {u!r} must be an int in [1, d]")
        if not 1 <= u <= d:
            raise DomainError(f"u = {u} is outside [d]_+ = [1, {d}]")
        return c

    def search_cdf(self, c: int, z: int) -> int:
        """The ``F_c(z)``, ``z`` in ``[0, n]``, that the search evaluates: :meth:`cdf` here; a
        subclass may compute the same values faster (the proofs check equality on every
        ``(c, z)`` of their grids)."""
        return self.cdf(c, z)

    def _search(self, c: int, u: int) -> int:
        """``min{z : F_c(z) >= u}`` by :func:`inverse_cdf_search` over :meth:`search_cdf`."""
        return inverse_cdf_search(partial(self.search_cdf, c), self.n, u)

    def draw(self, c: int) -> CDFDraw:
        """The inverse-CDF draw at count ``c``, for ``RandomSource.inverse_cdf``."""
        if type(c) is int and 0 <= c <= self.n:  # what check_count accepts unchanged
            return CDFDraw(self, c)
        return CDFDraw(self, check_count(c, self.n))

    def sample(self, c: int, source: RandomSource | None = None) -> int:
        """Release ``M(c, U)`` with ``U = source.uniform(d)`` (default: the OS CSPRNG)."""
        return default_source(source).inverse_cdf(self.draw(c))

    def sample_many(self, counts: Sequence[int], source: RandomSource | None = None) -> list[int]:
        """``[M(c, U_c) for c in counts]`` with independent ``U_c`` uniform on ``[d]_+``: the
        distribution of ``[self.sample(c, source) for c in counts]``, drawn as one
        ``source.uniform_many(d, k)`` per chunk of ``k = BATCH_CHUNK`` counts (one OS read each
        with the default source) and the searches of :meth:`search_many`.  Strict time: the operations depend only on
        ``len(counts)`` and the public parameters (every search runs its full rounds)."""
        valid = self.check_counts(counts)
        src = default_source(source)
        out: list[int] = []
        for i in range(0, len(valid), BATCH_CHUNK):
            out += src.inverse_cdf_many(CountBatch(self, valid[i:i + BATCH_CHUNK]))
        return out

    def check_counts(self, counts: Sequence[int]) -> list[int]:
        """``counts`` as a list, each checked as :meth:`draw` checks one count (an int in
        ``[n]``; a subclass with its own :meth:`draw` applies its own rule)."""
        if type(counts) is list and type(self).draw is InverseCDFSampler.draw:
            n = self.n
            for c in counts:  # plain in-range ints: accepted as they are (a copy)
                if type(c) is not int or not 0 <= c <= n:
                    break
            else:
                return list(counts)
        cs = _count_list(counts)
        if type(self).draw is not InverseCDFSampler.draw:
            return [self.draw(c).c for c in cs]  # type: ignore[arg-type]
        if all(type(c) is int for c in cs):
            ints = cast(list[int], cs)
            if not ints or (0 <= min(ints) and max(ints) <= self.n):
                return ints
        return [check_count(c, self.n) for c in cs]

    def search_many(self, counts: Sequence[int], us: Sequence[int]) -> list[int]:
        """``[M(c, u) for c, u in zip(counts, us)]`` for validated counts and draws in
        ``[d]_+`` (the searches of :meth:`sample_many`)."""
        return [self._search(c, u) for c, u in zip(counts, us, strict=True)]

    def raw_search(self) -> Callable[[list[int], bytes], list[int]] | None:
        """None, or the one-pass native path ``(counts, raw) -> outputs`` of
        ``InverseCDFBatch.search_raw`` (see :mod:`exactdp.randomness`)."""
        return None

    def scaled_cdf_at_zero(self, z: int) -> int:
        """``F_M(z) = d * Pr[M(0, U) <= z]`` (Definition 4.3)."""
        return self.cdf(0, z)


class TabulatedMechanism(InverseCDFSampler):
    """A counting mechanism ``M: [n] x [d]_+ -> [n]`` given by its integer CDF table.

    ``table[c][z] = F_c(z) = |{u in [d]_+ : M(c, u) <= z}|`` for ``c, z`` in ``[n]``:
    non-decreasing in ``z``, with ``F_c(n) = d`` for every ``c``.  ``M(c, u)`` is the
    inverse-CDF search, so it is non-decreasing in ``u`` (the premise of Lemma 8.4).  Small
    toy mechanisms for exhaustive checks: e.g. Section 8 on tiny fields, where GeoSample's
    ``d`` is too big for ``d0 >= 4d/3``, and the checker's own tests.
    """

    def __init__(self, table: Sequence[Sequence[int]]) -> None:
        try:
            if isinstance(table, (str, bytes)):
                raise TypeError
            rows = [tuple(row) for row in table]
            if any(isinstance(row, (str, bytes)) for row in table):
                raise TypeError
        except TypeError:
            raise ParameterTypeError(f"table = {table!r:.60} must be a sequence of rows of "
                                     f"ints, F_c(0), ..., F_c(n) for c = 0..n") from None
        if len(rows) < 2:
            raise ParameterError("a tabulated mechanism needs rows for c = 0..n with n >= 1")
        n = len(rows) - 1
        d = rows[0][-1] if rows[0] else 0
        for c, row in enumerate(rows):
            if len(row) != n + 1:
                raise ParameterError(f"row c = {c} has {len(row)} entries; it needs n + 1 = "
                                     f"{n + 1} (F_c(0), ..., F_c(n))")
            prev = 0
            for z, f in enumerate(row):
                if isinstance(f, bool) or not isinstance(f, int) or f < prev:
                    raise ParameterError(f"F_{c}({z}) = {f!r} must be an int >= F_{c}({z - 1}) "
                                         f"= {prev}")
                prev = f
            if row[-1] != d or d < 1:
                raise ParameterError(f"F_{c}(n) = {row[-1]} must equal d = {d} >= 1 for every c")
        self.n = n
        self._d = d
        self.table = tuple(rows)

    def __repr__(self) -> str:
        return f"TabulatedMechanism({[list(r) for r in self.table]})"

    @property
    def d(self) -> int:
        return self._d

    def cdf(self, c: int, z: int) -> int:
        self._check_cz(c, z)
        if z < 0:
            return 0
        if z >= self.n:
            return self._d
        return self.table[c][z]


@dataclass(frozen=True)
class GeometricMechanism:
    """The ideal mechanism of Algorithm 4.5: ``c + Geo(s)`` clamped to ``[0, n]``.

    Parameterised exactly by ``alpha = e**(-1/s)`` in ``(0, 1)``; the two-sided geometric
    has ``Pr[Z = z] = (1 - alpha)/(1 + alpha) * alpha**|z - c|``.  Clamping gives
    ``Pr[0] = alpha**c / (1 + alpha)`` and ``Pr[n] = alpha**(n - c) / (1 + alpha)``.
    For GeoSample's ``eps~`` (Theorem 4.7), ``alpha = e**(-eps~/2) = 2**k / (2**k + 1)``;
    :meth:`for_geosample` builds that one.  It is ``(ln(1/alpha), 0)``-DP for counting
    queries (Theorem 4.6 i, with ``eps/2 = 1/s``).
    """

    n: int
    alpha: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", positive_int(self.n, "n"))
        alpha = to_fraction(self.alpha, "alpha")
        if not 0 < alpha < 1:
            raise ParameterError(f"alpha = {alpha} must lie in (0, 1)")
        object.__setattr__(self, "alpha", alpha)

    @classmethod
    def for_geosample(cls, n: int, epsilon: object) -> GeometricMechanism:
        """The mechanism GeoSample_{n,eps} equals in distribution (Theorem 4.7 i)."""
        k = geosample_k(inverse_integer(epsilon, "epsilon"))
        return cls(positive_int(n, "n"), Fraction(1 << k, (1 << k) + 1))

    def pmf(self, c: int, z: int) -> Fraction:
        """``Pr[M(c) = z]`` exactly (0 outside ``[n]``)."""
        c = check_count(c, self.n)
        _check_z(z)
        a = self.alpha
        if z < 0 or z > self.n:
            return Fraction(0)
        if z == 0:
            return a**c / (1 + a)
        if z == self.n:
            return a ** (self.n - c) / (1 + a)
        return (1 - a) / (1 + a) * a ** abs(z - c)

    def cdf(self, c: int, z: int) -> Fraction:
        """``Pr[M(c) <= z]`` exactly (the clamped form of the CDF in Section 4.1):
        ``alpha**j / (1 + alpha)`` with ``j = c - z`` below ``c``, one minus that with
        ``j = z - c + 1`` from ``c`` on; with ``alpha = p/q`` that is ``p**j q / (q**j (q + p))``,
        built as one exact Fraction from integer powers."""
        c = check_count(c, self.n)
        _check_z(z)
        if z < 0:
            return Fraction(0)
        if z >= self.n:
            return Fraction(1)
        p, q = self.alpha.numerator, self.alpha.denominator
        j = c - z if z < c else z - c + 1
        num, den = p**j * q, q**j * (q + p)
        return Fraction(num, den) if z < c else Fraction(den - num, den)

    def distribution(self, c: int) -> tuple[Fraction, ...]:
        """``(Pr[M(c) = 0], ..., Pr[M(c) = n])``: :meth:`pmf`'s values, from integer powers
        of ``alpha = p/q`` built by running products (one exact ``Fraction(num, den)`` per
        outcome instead of Fraction powers and quotients): ``(q - p) p**j / ((q + p) q**j)``
        at distance ``j = |z - c|`` inside, ``p**j q / ((q + p) q**j)`` at the clamped ends.
        Equal to ``pmf`` at every ``(c, z)`` (tests/test_counting.py)."""
        c = check_count(c, self.n)
        n, p, q = self.n, self.alpha.numerator, self.alpha.denominator
        top = max(c, n - c)
        pp, qq = [1] * (top + 1), [1] * (top + 1)  # p**j, q**j
        for j in range(1, top + 1):
            pp[j], qq[j] = pp[j - 1] * p, qq[j - 1] * q
        inner, ends = q - p, q + p
        out = [Fraction(inner * pp[abs(z - c)], ends * qq[abs(z - c)]) for z in range(n + 1)]
        out[0] = Fraction(pp[c] * q, ends * qq[c])
        out[n] = Fraction(pp[n - c] * q, ends * qq[n - c])
        return tuple(out)


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
    (the big-integer arithmetic itself is not constant-time; the operation count is).
    """

    def __init__(self, n: object, epsilon: object) -> None:
        self.n = positive_int(n, "n")
        self.epsilon = inverse_integer(epsilon, "epsilon")
        self.k = geosample_k(self.epsilon)
        _guard_bits(self.n * (self.k + 1) + 1, "GeoSample's d")
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
        :data:`MAX_INTEGER_BITS` (0 when even ``k = 1`` does not)."""
        return max(0, (MAX_INTEGER_BITS - 1) // n - 1)

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
        b = _beta(beta)
        return ceil_log_ratio(1 / b, self.privacy_ratio)


class TruncatedGeoSample(InverseCDFSampler):
    """``Z'`` clamped to ``[0, n]`` (Lemma 4.12 i): FastSample without its uniform part.

    ``Z'`` is ``c + Geo(2/eps~)`` with the mass of ``|Z - c| > t`` moved onto ``c``; its
    scaled CDF is ``F'`` of Algorithm 4.11 over the denominator ``d'``.  This is the
    ``M'`` to which Lemma 3.2 applies in the proof of Theorem 4.10 i.
    """

    def __init__(self, fast: FastSample) -> None:
        self.fast = fast
        self.n = fast.n

    def __repr__(self) -> str:
        return f"TruncatedGeoSample({self.fast!r})"

    @property
    def d(self) -> int:
        return self.fast.d_prime

    def cdf(self, c: int, z: int) -> int:
        return self.fast.truncated_cdf(c, z)

    def search_cdf(self, c: int, z: int) -> int:
        """:meth:`cdf` (``F'``), called directly: one call less per search round."""
        if type(self).cdf is not TruncatedGeoSample.cdf:
            return self.cdf(c, z)
        return self.fast.truncated_cdf(c, z)


class FastSample(InverseCDFSampler):
    """Algorithm 4.11, ``FastSample_{n,eps,gamma}(c, u)``.

    ``k = ceil(log2(2/eps))``, ``t = ceil(9/(2 eps) * ceil(log2(8(n+1)(1-gamma)/(eps gamma)))) - 1``,
    ``d' = (2**(k+1) + 1)(2**k + 1)**t``, ``d = (n+1) d' / gamma`` and, on ``[n]``,
    ``F(z) = (z+1) d' + (1/gamma - 1)(n+1) F'(z)`` with ``F'`` as in :meth:`truncated_cdf`.

    Output distribution (Lemma 4.12 ii): with probability ``1 - gamma`` the truncated
    geometric ``Z'`` clamped to ``[0, n]``, otherwise uniform on ``[n]``.
    Theorem 4.10: ``(eps/2, 0)``-DP; ``(a, beta)``-accurate for ``beta > gamma``.
    Time: ``n.bit_length()`` evaluations of ``F`` on integers of
    ``O(t log(1/eps) + log(n/gamma))`` bits, independent of ``c`` and ``u``.
    Requires ``gamma < 1`` (``gamma = 1`` makes ``log(0)`` appear in ``t``).
    """

    def __init__(self, n: object, epsilon: object, gamma: object) -> None:
        self.n = positive_int(n, "n")
        self.epsilon = inverse_integer(epsilon, "epsilon")
        self.gamma = inverse_integer(gamma, "gamma")
        if self.gamma == 1:
            raise ParameterError("gamma = 1 is not allowed for FastSample: t involves "
                                 "log(8(n+1)(1-gamma)/(eps gamma)) = log 0; use gamma <= 1/2")
        self.k = geosample_k(self.epsilon)
        m, g = self.epsilon.denominator, self.gamma.denominator
        # 8(n+1)(1-gamma)/(eps gamma) = 8 (n+1) (g-1) m, an integer >= 16.
        self.log_term = ceil_log2(8 * (self.n + 1) * (g - 1) * m)
        # t = ceil(9 m L / 2) - 1
        self.t = (9 * m * self.log_term + 1) // 2 - 1
        self._base = (1 << self.k) + 1
        self._scale = (g - 1) * (self.n + 1)  # (1/gamma - 1)(n + 1), the S of F = (z+1)d' + S F'

    @classmethod
    def for_budget(cls, n: object, total_epsilon: object, gamma: object,
                   draws: object = 1) -> FastSample:
        """The most accurate FastSample whose ``draws`` values together spend at most
        ``total_epsilon`` (any positive rational up to ``draws/2``): the paper's ``eps =
        1/m`` with the smallest ``m`` such that ``draws * eps/2 <= total_epsilon``
        (Theorem 4.10 i).  :meth:`spend` states what it spends."""
        from exactdp.spend import fastsample_m_for_budget

        size = positive_int(n, "n")
        g = inverse_integer(gamma, "gamma")
        m = fastsample_m_for_budget(total_epsilon, positive_int(draws, "draws"),
                                    cls.largest_m(size, g))
        return cls(size, Fraction(1, m), g)

    @staticmethod
    def largest_m(n: int, gamma: Fraction) -> int:
        """The largest ``m`` for which ``d'`` of ``FastSample(n, 1/m, gamma)`` stays within
        :data:`MAX_INTEGER_BITS` (0 when none does); its bit count grows with ``m``."""
        g = gamma.denominator

        def fits(m: int) -> bool:
            k = ceil_log2(2 * m)
            t = (9 * m * ceil_log2(8 * (n + 1) * (g - 1) * m) + 1) // 2 - 1
            return t * (k + 1) + k + 2 <= MAX_INTEGER_BITS

        if g < 2 or not fits(1):
            return 0
        lo, hi = 1, 2
        while fits(hi):
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        return lo

    def spend(self, draws: object = 1, requested: object = None) -> Any:
        """The privacy ``draws`` values spend by Theorem 4.10 i: ``draws * eps/2``
        (:class:`exactdp.spend.Spend`)."""
        from exactdp.spend import fastsample_spend

        asked = None if requested is None else to_fraction(requested, "requested")
        return fastsample_spend(self.epsilon.denominator, positive_int(draws, "draws"), asked)

    def __repr__(self) -> str:
        return f"FastSample(n={self.n}, epsilon={self.epsilon}, gamma={self.gamma})"

    @cached_property
    def d_prime(self) -> int:
        """``d' = (2**(k+1) + 1)(2**k + 1)**t``."""
        _guard_bits(self.t * (self.k + 1) + self.k + 2, "FastSample's d'")
        return ((1 << (self.k + 1)) + 1) * self._base**self.t

    @cached_property
    def d(self) -> int:  # type: ignore[override]
        return (self.n + 1) * self.d_prime * self.gamma.denominator

    @cached_property
    def _tail(self) -> int:
        return 1 << (self.k * (self.t + 1))

    @cached_property
    def _powers(self) -> tuple[int, ...] | None:
        """``(2**k + 1)**j`` for ``j`` in ``[0, t + 1]`` when that table is small (a speed-up
        of F' by about 5x; ``None`` for huge ``t``, where powers are computed on demand)."""
        if self.t * self.t * self._base.bit_length() > 2 * POWER_TABLE_BITS:
            return None
        table = [1]
        for _ in range(self.t + 1):
            table.append(table[-1] * self._base)
        return tuple(table)

    @property
    def alpha(self) -> Fraction:
        return Fraction(1 << self.k, self._base)

    def ideal_truncated(self, c: int) -> dict[int, Fraction]:
        """Lemma 4.12 i's ``Z'`` clamped to ``[0, n]``, from the lemma's definition of the pmf
        (not from ``F'``): mass ``g alpha^|y-c|`` at ``y`` in ``[c-t, c+t]`` minus ``{c}``
        with ``g = (1-alpha)/(1+alpha)``, and ``g + Pr[|Z-c| > t]`` at ``c``, where
        ``Pr[|Z-c| > t] = 2 alpha^(t+1)/(1+alpha)``; clamping sums ``y <= 0`` into 0 and
        ``y >= n`` into ``n`` (geometric series)."""
        c = check_count(c, self.n)
        a, t, n = self.alpha, self.t, self.n
        g = (1 - a) / (1 + a)
        tail = 2 * a ** (t + 1) / (1 + a)

        def offsets(lo: int) -> Fraction:
            """The unclamped mass at offsets ``j = |y - c|`` in ``[lo, t]`` on one side."""
            return g * (a**lo - a ** (t + 1)) / (1 - a) if lo <= t else Fraction(0)

        out: dict[int, Fraction] = {}
        for z in range(n + 1):
            if z == 0:
                mass = offsets(max(c, 1))
            elif z == n:
                mass = offsets(max(n - c, 1))
            else:
                mass = g * a ** abs(z - c) if 0 < abs(z - c) <= t else Fraction(0)
            out[z] = mass + g + tail if z == c else mass
        return out

    def ideal_distribution(self, c: int) -> dict[int, Fraction]:
        """Lemma 4.12 ii: ``(1 - gamma) Z'' + gamma Unif([n])`` from :meth:`ideal_truncated`."""
        g, n = self.gamma, self.n
        keep, share = 1 - g, g / (n + 1)
        return {z: keep * p + share for z, p in self.ideal_truncated(c).items()}

    def truncated(self) -> TruncatedGeoSample:
        """The ``M'`` of Lemma 3.2: ``Z'`` clamped to ``[0, n]`` over ``[d']_+``."""
        return TruncatedGeoSample(self)

    def truncated_cdf(self, c: int, z: int) -> int:
        """``F'(z)`` of Algorithm 4.11 step 3 (for this ``c``); ``F'(z)/d'`` is the CDF of
        ``Z'`` clamped to ``[0, n]`` (Lemma 4.12 i)."""
        if not (type(c) is int and type(z) is int and 0 <= c <= self.n):
            self._check_cz(c, z)  # refuses, or converts nothing: ints in range pass above
        if z < 0:
            return 0
        if z >= self.n:
            return self.d_prime
        return self._truncated_at(z - c)

    def _truncated_at(self, j: int) -> int:
        """``F'(z)`` for ``z`` in ``[0, n)`` as a function of ``j = z - c`` alone: 0 below the
        window (``j < -t``), the geometric's scaled CDF inside it, ``d'`` from ``j >= t`` on."""
        k, t = self.k, self.t
        if j < -t:
            return 0
        table = self._powers  # (2**k + 1)**i read off the table, or computed without it
        if j < 0:
            i = t + 1 + j
            return ((self._base**i if table is None else table[i]) << (-k * j)) - self._tail
        if j < t:
            i = t - j
            return (self.d_prime - ((self._base**i if table is None else table[i]) << (k * (j + 1)))
                    + self._tail)
        return self.d_prime

    def cdf(self, c: int, z: int) -> int:
        """``F(z) = (z+1) d' + (1/gamma - 1)(n+1) F'(z)`` on ``[n]``; 0 below, ``d`` above."""
        if not (type(c) is int and type(z) is int and 0 <= c <= self.n):
            self._check_cz(c, z)  # refuses, or converts nothing: ints in range pass above
        if z < 0:
            return 0
        if z >= self.n:
            return self.d
        return (z + 1) * self.d_prime + self._scale * self.truncated_cdf(c, z)

    @cached_property
    def _gmp(self) -> tuple[tuple[Any, ...], Any, Any, Any, Any]:
        """gmpy2 copies of ``(powers, d', tail, (1/gamma - 1)(n+1), d)`` for :meth:`_search`."""
        table = self._powers
        powers = () if table is None else tuple(gmpy2.mpz(x) for x in table)
        scale = (self.gamma.denominator - 1) * (self.n + 1)
        return (powers, gmpy2.mpz(self.d_prime), gmpy2.mpz(self._tail), gmpy2.mpz(scale),
                gmpy2.mpz(self.d))

    def _gmp_cdf(self, c: int, z: int) -> Any:
        """:meth:`cdf` at ``z`` in ``[0, n]``, computed on gmpy2 integers (the same value)."""
        powers, d_prime, tail, scale, d = self._gmp
        k, t = self.k, self.t
        if z >= self.n:
            return d
        base = (z + 1) * d_prime
        if z < c - t:
            return base
        if z < c:
            return base + scale * ((powers[t + 1 - (c - z)] << (k * (c - z))) - tail)
        if z < c + t:
            return base + scale * (d_prime - (powers[t - (z - c)] << (k * (z - c + 1))) + tail)
        return base + scale * d_prime

    @cached_property
    def _window(self) -> tuple[int, list[Any], Any, Any, Any] | None:
        """``(w, [S F'(j) for j in [-w, w)], d', S d', d)`` on gmpy2 integers, ``S = (1/gamma -
        1)(n + 1)``, ``w = min(t, n + 1)`` (``z - c`` lies in ``[-n, n)`` for the ``z < n``
        that :meth:`search_cdf` computes): the values the native table holds, for the Python
        search; None when they would exceed :data:`NATIVE_TABLE_BYTES`."""
        w = min(self.t, self.n + 1)
        if 2 * w * (self.d.bit_length() // 8 + 1) > NATIVE_TABLE_BYTES:
            return None
        scale = gmpy2.mpz((self.gamma.denominator - 1) * (self.n + 1))
        d_prime = gmpy2.mpz(self.d_prime)
        values = [scale * self._truncated_at(j) for j in range(-w, w)]
        return w, values, d_prime, scale * d_prime, gmpy2.mpz(self.d)

    def search_cdf(self, c: int, z: int) -> int:
        """:meth:`cdf` on ``[0, n]``, the same values: ``(z + 1) d' + S F'(z - c)`` with
        ``S F'`` read from :attr:`_window` (one small product and one sum per round, built once
        per mechanism), else by :meth:`_gmp_cdf` when the power table exists; :meth:`cdf`
        itself in a subclass that has its own."""
        if type(self).cdf is not FastSample.cdf:
            return self.cdf(c, z)
        window = self._window
        if window is not None:
            w, values, d_prime, top, d = window
            if z >= self.n:
                return d  # type: ignore[no-any-return]
            j = z - c
            rest = values[j + w] if -w <= j < w else (0 if j < 0 else top)
            return (z + 1) * d_prime + rest  # type: ignore[no-any-return]
        if self._powers is None:
            return self.cdf(c, z)
        return self._gmp_cdf(c, z)  # type: ignore[no-any-return]

    @cached_property
    def _native(self) -> native_samplers.SearchTable | None:
        """The table of :func:`exactdp.native_samplers.search`: ``(1/gamma - 1)(n + 1) F'`` at
        ``j = z - c`` in ``[-t, t)`` (:meth:`_truncated_at`); None when the kernels are not
        built, ``(n + 1)/gamma >= 2**62``, the table would exceed
        :data:`NATIVE_TABLE_BYTES` or a subclass has its own :meth:`cdf`."""
        scale = (self.gamma.denominator - 1) * (self.n + 1)
        size = 2 * self.t * (native_samplers.limbs(self.d) + 1) * native_samplers.LIMB_BYTES
        if (type(self).cdf is not FastSample.cdf  # a subclass's own F: searched in Python
                or not native_samplers.available()
                or (self.n + 1) * self.gamma.denominator >= 1 << 62
                or size > NATIVE_TABLE_BYTES):
            return None
        window = [scale * self._truncated_at(j) for j in range(-self.t, self.t)]
        return native_samplers.SearchTable(self.n, self.t, self.d, self.d_prime, scale, window)

    def _search(self, c: int, u: int) -> int:
        """``min{z : F_c(z) >= u}``: the native search when built (traced by
        :func:`_record_native`), else :func:`inverse_cdf_search` over
        :meth:`search_cdf` with ``u`` converted to gmpy2 once."""
        table = self._native
        if table is None:
            return inverse_cdf_search(lambda z: self.search_cdf(c, z), self.n, gmpy2.mpz(u))
        _record_native(1, search_rounds(self.n))
        return native_samplers.search(table, [c], u.to_bytes(
            table.width * native_samplers.LIMB_BYTES, "little"))[0]

    def sample(self, c: int, source: RandomSource | None = None) -> int:
        """Release ``M(c, U)``: the draw of ``sample_many([c], source)[0]``.  With the OS
        source (``None`` or a :class:`~exactdp.randomness.SystemSource`) and the native
        kernels built, one ``os.urandom`` read and ONE C call (:meth:`SearchTable.sample_one
        <exactdp.native_samplers.SearchTable.sample_one>`: reduction and search) -- the same
        bytes, mapping and trace event as the batch's one-pass path."""
        table = self._native
        if (table is not None and (source is None or type(source) is SystemSource)
                and type(c) is int and 0 <= c <= self.n):
            record("native_search", 1, table.rounds)
            z = table.sample_one(c, os.urandom(table.raw_bytes))
            return z if z >= 0 else self(c, SystemSource().uniform(self.d))
        return self.sample_many([c], source)[0]

    def raw_search(self) -> Callable[[list[int], bytes], list[int]] | None:
        return None if self._native is None else self._raw_search

    def _raw_search(self, counts: list[int], raw: bytes) -> list[int]:
        table = cast(native_samplers.SearchTable, self._native)  # built: see raw_search
        record("native_search", len(counts), table.rounds)  # one event, even for k = 1
        return native_samplers.sample(table, counts, raw)

    def search_many(self, counts: Sequence[int], us: Sequence[int]) -> list[int]:
        """The searches of a batch: one native call for all of them when built (the draws of a
        :class:`~exactdp.randomness.UniformBatch` read in place; traced by
        :func:`_record_native`), else one Python search per draw."""
        table = self._native
        if table is None:
            return super().search_many(counts, us)
        batch = type(us) is not list and isinstance(us, UniformBatch)  # ABC check: not lists
        data = (us.data if batch and us.words == table.width  # type: ignore[attr-defined]
                else native_samplers.to_limbs(us, table.width))
        _record_native(len(counts), search_rounds(self.n))
        return native_samplers.search(table, counts, data)

    def paper_accuracy(self, beta: object) -> int:
        """Theorem 4.10 ii: ``a = ceil(2/eps~ * ln(1/(beta - gamma)))`` for ``beta > gamma``."""
        b = _beta(beta)
        if b <= self.gamma:
            raise ParameterError(f"beta = {b} must exceed gamma = {self.gamma} "
                                 f"(Theorem 4.10 ii)")
        return ceil_log_ratio(1 / (b - self.gamma), 1 + Fraction(1, 1 << self.k))


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


def _record_native(k: int, rounds: int) -> None:
    """The trace of ``k`` native searches of ``rounds`` rounds: one search records its rounds
    as the Python search does (one ``("cdf",)`` each), a batch of ``k != 1`` the one event
    ``("native_search", k, rounds)``."""
    events = active()
    if events is None:
        return
    if k == 1:
        events.extend([_CDF_EVENT] * rounds)
    else:
        events.append(("native_search", k, rounds))


def _beta(beta: object) -> Fraction:
    b = to_fraction(beta, "beta")
    if not 0 < b <= 1:
        raise ParameterError(f"beta = {b} must lie in (0, 1]")
    return b
