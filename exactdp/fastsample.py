"""FastSample (Balcer & Vadhan, Algorithm 4.11): the clamped geometric truncated at distance
``t`` and mixed with the uniform on ``[n]``; its CDF needs integers of
``O~(1/eps) log(n/gamma)`` bits instead of GeoSample's ``O(n log(1/eps))``
(Theorem 4.10, Lemma 4.12).

Beside the reference ``FastSample.cdf`` (Algorithm 4.11 step 3) sit its fast paths, which
compute the same values: a window of ``S F'`` built once per mechanism, gmpy2 evaluations,
and the native search of :mod:`exactdp.native_samplers` when the C kernels are built (one C
call per batch; ``proofs/balcer_vadhan/thm_4_10_fast_path.py`` proves it equal to the Python
search on the verify grids).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cached_property, partial
from typing import Any, cast

import gmpy2

from exactdp import inverse_cdf, lazy_draws, native_samplers
from exactdp.certified import ceil_log2, ceil_log_ratio
from exactdp.geometric import check_beta, geosample_k
from exactdp.inverse_cdf import (
    InverseCDFSampler,
    guard_bits,
    inverse_cdf_search,
    record_native_search,
    search_rounds,
)
from exactdp.params import (
    ParameterError,
    check_count,
    inverse_integer,
    positive_int,
    to_fraction,
)
from exactdp.randomness import RandomSource, SystemSource, UniformBatch, plain_byte_source
from exactdp.trace import record

__all__ = ["NATIVE_TABLE_BYTES", "POWER_TABLE_BITS", "FastSample", "TruncatedGeoSample"]

#: FastSample precomputes ``(2**k + 1)**j`` for ``j <= t + 1`` when that table needs at
#: most this many bits (about ``t**2 (k + 1) / 2``; 2**27 bits = 16 MiB).
POWER_TABLE_BITS = 1 << 27

#: FastSample's native search reads a table of ``2t`` values of about ``log2 d`` bits each; it
#: is built (once per mechanism) when it needs at most this many bytes (64 MiB; at n = 10**6,
#: eps = 1/10, gamma = 2**-40 it has 11.5 MB), else the Python search runs.
NATIVE_TABLE_BYTES = 1 << 26


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
    ``O(t log(1/eps) + log(n/gamma))`` bits, independent of ``c`` and ``u``.  With the OS
    source or the keystream the lazy draws (:attr:`lazy_bits`, :mod:`exactdp.lazy_draws`)
    read ``u``'s low bits and search again only with probability at most
    ``(3n + 1) 2^-126``, which may depend on ``c``.
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
        :data:`~exactdp.inverse_cdf.MAX_INTEGER_BITS` (0 when none does); its bit count grows with ``m``."""
        g = gamma.denominator

        def fits(m: int) -> bool:
            k = ceil_log2(2 * m)
            t = (9 * m * ceil_log2(8 * (n + 1) * (g - 1) * m) + 1) // 2 - 1
            return t * (k + 1) + k + 2 <= inverse_cdf.MAX_INTEGER_BITS

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
        guard_bits(self.t * (self.k + 1) + self.k + 2, "FastSample's d'")
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

    #: Lazy draws (:mod:`exactdp.lazy_draws`): with a byte source and the lazy kernel built,
    #: read ``u``'s leading 127 bits first and the rest only when they leave the output open.
    #: False: every draw reads all of ``u`` (a fixed number of bytes per draw).
    lazy_bits = True

    @cached_property
    def _lazy(self) -> tuple[lazy_draws.LazyPlan, native_samplers.LazyTable] | None:
        """The plan and kernel table of the lazy draws; None when the kernel is not built,
        the method does not apply (:func:`~exactdp.lazy_draws.plan`), the window would
        exceed :data:`NATIVE_TABLE_BYTES` or a subclass has its own :meth:`cdf`."""
        if (type(self).cdf is not FastSample.cdf or not native_samplers.lazy_available()
                or 32 * self.t > NATIVE_TABLE_BYTES):
            return None
        p = lazy_draws.plan(self.n, self.t, self.d, self.d_prime, self._scale,
                            [self._scale * self._truncated_at(j) for j in range(-self.t, self.t)])
        tab = None if p is None else lazy_draws.table(p)
        return None if p is None or tab is None else (p, tab)

    def lazy_draws(self) -> Callable[[list[int], RandomSource], list[int]] | None:
        """The lazy batch ``(counts, source) -> outputs`` for a byte source, or None (see
        :attr:`lazy_bits`)."""
        lazy = self._lazy if self.lazy_bits else None
        return None if lazy is None else partial(lazy_draws.sample_lazy, self, *lazy)

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
        :func:`~exactdp.inverse_cdf.record_native_search`), else :func:`inverse_cdf_search` over
        :meth:`search_cdf` with ``u`` converted to gmpy2 once."""
        table = self._native
        if table is None:
            return inverse_cdf_search(lambda z: self.search_cdf(c, z), self.n, gmpy2.mpz(u))
        record_native_search(1, search_rounds(self.n))
        return native_samplers.search(table, [c], u.to_bytes(
            table.width * native_samplers.LIMB_BYTES, "little"))[0]

    def sample(self, c: int, source: RandomSource | None = None) -> int:
        """Release ``M(c, U)``: the draw of ``sample_many([c], source)[0]``.  With a byte
        source (``None``, a :class:`~exactdp.randomness.SystemSource` or a keystream) and the native
        kernels built, one read of its bytes and ONE C call (:meth:`SearchTable.sample_one
        <exactdp.native_samplers.SearchTable.sample_one>`: reduction and search) -- the same
        bytes, mapping and trace event as the batch's one-pass path."""
        table = self._native
        src = SystemSource() if source is None else plain_byte_source(source)
        lazy = None if src is None else self.lazy_draws()
        if lazy is not None and type(c) is int and 0 <= c <= self.n:
            return lazy([c], src)[0]  # type: ignore[arg-type]
        if (table is not None and src is not None
                and type(c) is int and 0 <= c <= self.n):
            record("native_search", 1, table.rounds)
            z = table.sample_one(c, src.random_bytes(table.raw_bytes))
            return z if z >= 0 else self(c, src.uniform(self.d))
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
        :func:`~exactdp.inverse_cdf.record_native_search`), else one Python search per draw."""
        table = self._native
        if table is None:
            return super().search_many(counts, us)
        batch = type(us) is not list and isinstance(us, UniformBatch)  # ABC check: not lists
        data = (us.data if batch and us.words == table.width  # type: ignore[attr-defined]
                else native_samplers.to_limbs(us, table.width))
        record_native_search(len(counts), search_rounds(self.n))
        return native_samplers.search(table, counts, data)

    def paper_accuracy(self, beta: object) -> int:
        """Theorem 4.10 ii: ``a = ceil(2/eps~ * ln(1/(beta - gamma)))`` for ``beta > gamma``."""
        b = check_beta(beta)
        if b <= self.gamma:
            raise ParameterError(f"beta = {b} must exceed gamma = {self.gamma} "
                                 f"(Theorem 4.10 ii)")
        return ceil_log_ratio(1 / (b - self.gamma), 1 + Fraction(1, 1 << self.k))
