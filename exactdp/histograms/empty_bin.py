"""The empty-bin sampler of Balcer & Vadhan (Lemma 8.4, Algorithm 8.5): ``M0(u0) = M(0,
f(u0))`` on the randomness ``[d0]_+`` of a field element, for the counts of the bins that a
:class:`~exactdp.histograms.compact.CompactHistogram` leaves empty; with its draws scaled to a
common denominator (:class:`_ScaledDraw`) for the non-empty bins' noisy counts.
"""

from __future__ import annotations

import gmpy2

from exactdp.counting import CDFDraw, InverseCDFSampler
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    check_count,
    positive_int,
)
from exactdp.randomness import InverseCDFDraw, RandomSource, default_source

__all__ = ["EmptyBinSampler", "check_mechanism", "size_text"]

#: Up to this bit length of ``d0``, :meth:`EmptyBinSampler.f` divides plain ints (faster than
#: gmpy2's conversions there); beyond it, gmpy2 (CPython's long division is quadratic).
_INT_DIVISION_BITS = 256


#: Up to this ``d`` (of ``M``), :meth:`EmptyBinSampler.__call__` keeps ``M(0, u)`` per ``u``
#: (at most ``d`` pairs of small ints): ``M0`` evaluated at every ``u0`` of a large ``d0``
#: (``d0 / d`` values of ``u0`` per ``u``) runs ``M`` once per ``u``.
_M_AT_ZERO_MAX_D = 1 << 16


class EmptyBinSampler:
    """Algorithm 8.5: ``M0(u0) = M(0, f(u0))`` for ``u0`` in ``[d0]_+`` (Lemma 8.4).

    Write ``d0 = q d + r`` with ``0 <= r < d``; ``f: [d0]_+ -> [d]_+`` sends the first
    ``r (q + 1)`` values ``q + 1`` at a time and the rest ``q`` at a time:
    ``f(u0) = ceil(u0 / (q+1))`` if ``r != 0`` and ``u0 <= r (q+1)``, else
    ``ceil((u0 - r) / q)``.  Preconditions: ``M(0, u)`` non-decreasing in ``u``;
    ``d0 >= 4d/3`` (so ``q >= 1``).

    Lemma 8.4: (i) ``M0`` is non-decreasing; (ii) ``e^{-2d/d0} Pr[M(0,U) = c] <=
    Pr[M0(U0) = c] <= e^{d/d0} Pr[M(0,U) = c]``, with equality when ``d | d0``;
    (iii) ``Pr[M0(U0) <= a] >= Pr[M(0,U) <= a]``; (iv) time ``O~(log d0) + Time(M)``;
    (v) ``S_v = Unif{u0 : M0(u0) = v}`` is an interval whose end points come from two
    evaluations of ``F_M`` (:meth:`preimage`, :meth:`sample_preimage`).

    It also serves as an inverse-CDF draw over ``[d0]_+`` (attributes ``n``, ``d = d0``,
    :meth:`cdf`, :meth:`search`), so ``source.inverse_cdf(sampler)`` draws ``M0(U0)``.
    """

    def __init__(self, mechanism: InverseCDFSampler, d0: int) -> None:
        self.mechanism = check_mechanism(mechanism)
        self.d0 = positive_int(d0, "d0")
        d = self.mechanism.d
        if 3 * self.d0 < 4 * d:
            raise ParameterError(f"Lemma 8.4 needs d0 >= 4d/3; got d0 = {size_text(self.d0)} and "
                                 f"d = {size_text(d)}: use a larger field")
        if self.d0.bit_length() <= _INT_DIVISION_BITS:
            self.q, self.r = divmod(self.d0, d)
        else:  # the same quotient and remainder by GMP (CPython's division is quadratic)
            q, r = gmpy2.f_divmod(self.d0, d)
            self.q, self.r = int(q), int(r)
        self.n = self.mechanism.n
        # gmpy2 copies for the divisions of f (CPython's long division is quadratic: about
        # 1 ms per call at log2 d0 = 39366, against microseconds with GMP).  Up to
        # _INT_DIVISION_BITS bits, int division is faster than converting to and from mpz:
        # f divides plain ints there (the same exact ceilings; a choice made from d0 alone).
        self._q = gmpy2.mpz(self.q)
        self._q1 = gmpy2.mpz(self.q + 1)
        self._q_plus_1 = self.q + 1
        self._first = self.r * self._q_plus_1  # f's first piece is u0 <= r (q + 1)
        self._int_division = self.d0.bit_length() <= _INT_DIVISION_BITS
        # preimage(v) once per v (a pure function of the public M and d0) when d0 is small
        # (at most n + 1 pairs of small ints); large fields recompute it (no memory kept).
        self._preimages: dict[int, tuple[int, int]] | None = (
            {} if self._int_division else None)
        # M(0, u) once per u (a pure function of the public, deterministic M) when d is small
        self._at_zero: dict[int, int] | None = {} if d <= _M_AT_ZERO_MAX_D else None

    def __repr__(self) -> str:
        return f"EmptyBinSampler({self.mechanism!r}, d0={size_text(self.d0)})"

    @property
    def d(self) -> int:
        """The domain size ``d0`` of ``M0`` (the name ``d`` is the inverse-CDF protocol's)."""
        return self.d0

    def _check_u0(self, u0: int) -> None:
        if isinstance(u0, bool) or not isinstance(u0, int):
            raise ParameterTypeError(f"u0 = {u0!r} must be an int in [1, d0]")
        if not 1 <= u0 <= self.d0:
            raise DomainError(f"u0 = {u0} is outside [d0]_+ = [1, {size_text(self.d0)}]")

    def f(self, u0: int) -> int:
        """Algorithm 8.5 step 2: the non-decreasing map ``[d0]_+ -> [d]_+``."""
        if type(u0) is not int or not 0 < u0 <= self.d0:
            self._check_u0(u0)  # raises (a plain int in range skips the calls)
        r = self.r
        if self._int_division:
            if r != 0 and u0 <= self._first:
                return -(-u0 // self._q_plus_1)
            return -((r - u0) // self.q)
        if r != 0 and u0 <= self._first:
            return int(gmpy2.c_div(u0, self._q1))
        return int(gmpy2.c_div(u0 - r, self._q))

    def __call__(self, u0: int) -> int:
        """``M0(u0) = M(0, f(u0))`` (Algorithm 8.5 step 3); ``M(0, u)`` is kept per ``u`` when
        ``d`` is small (:data:`_M_AT_ZERO_MAX_D`: a choice made from ``d`` alone)."""
        u = self.f(u0)
        memo = self._at_zero
        if memo is None:
            return self.mechanism(0, u)
        z = memo.get(u)
        if z is None:
            z = memo[u] = self.mechanism(0, u)
        return z

    def search(self, u0: int) -> int:
        """``M0(u0)``: the inverse-CDF protocol's name for the deterministic map.  A draw
        runs ``M`` every time (never the values :meth:`__call__` keeps), so that its
        operations do not depend on which ``u`` earlier draws met."""
        return self.mechanism(0, self.f(u0))

    def max_preimage(self, u: int) -> int:
        """``max{u0 in [d0]_+ : f(u0) <= u}`` for ``u`` in ``[0, d]`` (0 when ``u = 0``):
        ``(q+1) u`` if ``r != 0`` and ``u <= r``, else ``q u + r`` (proof of Lemma 8.4 v)."""
        if self._int_division:
            return self._q_plus_1 * u if self.r != 0 and u <= self.r else self.q * u + self.r
        if self.r != 0 and u <= self.r:
            return int(self._q1 * u)
        return int(self._q * u + self.r)

    def cdf(self, z: int) -> int:
        """``F_{M0}(z) = |{u0 : M0(u0) <= z}| = max_preimage(F_M(z))``."""
        if z < 0:
            return 0
        if z >= self.n:
            return self.d0
        return self.max_preimage(self.mechanism.scaled_cdf_at_zero(z))

    def preimage(self, v: int) -> tuple[int, int]:
        """The interval ``[lo, hi]`` of ``u0`` with ``M0(u0) = v`` (Lemma 8.4 v)."""
        if type(v) is not int or not 0 <= v <= self.n:
            v = check_count(v, self.n, "v")  # raises (a plain int in range skips the call)
        memo = self._preimages
        if memo is not None and v in memo:
            return memo[v]
        lo, hi = self.cdf(v - 1) + 1, self.cdf(v)
        if lo > hi:
            raise DomainError(f"v = {v} has probability 0 under M0: S_v is empty")
        if memo is not None:
            memo[v] = (lo, hi)
        return lo, hi

    def sample_preimage(self, v: int, source: RandomSource | None = None) -> int:
        """A draw of ``S_v = Unif{u0 in [d0]_+ : M0(u0) = v}``: one ``uniform(|S_v|)``.

        Time: two evaluations of ``F_M`` and one draw whose domain size ``|S_v|`` depends
        on ``v`` (a released value).  When ``d0 <= 2**256`` the interval of each ``v`` is
        kept (:meth:`preimage`), so the two evaluations happen on this sampler's first draw
        of that ``v`` only -- again a dependence on the released ``v`` alone.
        """
        lo, hi = self.preimage(v)
        return lo - 1 + default_source(source).uniform(hi - lo + 1)


class _ScaledDraw:
    """An inverse-CDF draw over ``[inner.d * factor]_+`` with the same output distribution
    (``u`` and ``ceil(u / factor)``): gives the noisy-count draws of non-empty bins and the
    ``M0`` draws of padding points one common domain ``d * d0``.

    :attr:`explore_key` names every parameter :meth:`cdf` depends on (``inner``: the
    histogram's ``M0``, or ``M`` at one count -- for a :class:`CDFDraw`, its mechanism and
    count, which define it --; ``factor``), so the exploring source reads the options of
    equal draws once per exploration (:mod:`exactdp.explore`)."""

    __slots__ = ("d", "explore_key", "factor", "inner", "n")

    def __init__(self, inner: InverseCDFDraw, factor: int, d: int) -> None:
        self.inner = inner
        self.factor = factor
        self.d = d  # inner.d * factor, computed once by the caller
        self.n = inner.n
        self.explore_key: tuple[object, ...] = (
            (inner.mechanism, inner.c, factor) if type(inner) is CDFDraw else (inner, factor))

    def cdf(self, z: int) -> int:
        return int(gmpy2.mpz(self.inner.cdf(z)) * self.factor)

    def search(self, u: int) -> int:
        return self.inner.search(int(gmpy2.c_div(u, self.factor)))


def check_mechanism(mechanism: object) -> InverseCDFSampler:
    """``mechanism`` if it is a counting mechanism with an integer CDF, else a typed error."""
    if not isinstance(mechanism, InverseCDFSampler):
        raise ParameterTypeError(f"mechanism = {mechanism!r} must be a counting mechanism "
                                 f"M: [n] x [d]_+ -> [n] with an integer CDF (GeoSample, "
                                 f"FastSample, TabulatedMechanism)")
    return mechanism


def size_text(value: int) -> str:
    """A readable size for possibly huge integers: the value, or ``~2^bits``."""
    return str(value) if value < 10**12 else f"~2^{value.bit_length() - 1}"
