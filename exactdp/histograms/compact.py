"""CompactHistogram: pure-DP histograms with per-query error ``O(log(1/beta)/eps)``
(Balcer & Vadhan, Section 8: Lemma 8.1, Algorithm 8.2, Theorem 8.3, Lemma 8.4,
Algorithm 8.5, Theorem 8.6).

Theorem 7.2 shows that a *sparse* release must pay ``log|X|`` in per-query error.  Section 8
releases a dense histogram over all of ``X`` instead, succinctly: a polynomial ``p`` of
degree ``<= n`` over the field ``F_{d0}``, ``d0 = 2**(2 * 3**l) >= |X|``
(:mod:`exactdp.histograms.fields`), whose value at ``x`` is the randomness of an
*empty-bin sampler* ``M0: [d0]_+ -> [n]``:

    ``h_x = M0(T(p(x)))``  for every ``x`` in ``X = [M]_+`` (``x`` read as the node
    ``embed(x - 1)`` of a small subfield, :func:`node_sublevel`; any injection of ``X``
    into ``F_{d0}`` serves Lemma 8.1).

Uniform polynomials of degree ``<= n`` are ``(n+1)``-wise independent (Lemma 8.1), so every
``h_x`` is distributed as ``M0(U0)`` and any ``n + 1`` of them are independent.
Algorithm 8.2 draws the noisy counts ``M(c_x(D), U)`` of the non-empty bins ``A`` and then a
uniform polynomial among those that reproduce them: Theorem 8.3 makes this
``(eps1 + eps2 + eps3, 0)``-DP when ``M`` is ``(eps1/2, 0)``-DP for counting queries and
``e^{-eps2} Pr[M0 = c] <= Pr[M(0) = c] <= e^{eps3} Pr[M0 = c]``; Lemma 8.4 builds such an
``M0`` from any ``M`` non-decreasing in ``u`` (:class:`EmptyBinSampler`, Algorithm 8.5) with
``eps2 = 2d/d0``, ``eps3 = d/d0``; Theorem 8.6 fixes the parameters
(:meth:`CompactHistogram.theorem_8_6`).

The release is a :class:`CompactRelease`: the coefficients and the public parameters;
:meth:`CompactRelease.evaluate` gives the noisy count of any ``x``, and the JSON form
(:meth:`CompactRelease.dumps` / :meth:`CompactRelease.loads`) is exact and validated.

Cost.  The interpolation nodes lie in a small subfield ``K`` (:func:`node_sublevel`;
``GF(2**162)`` for ``|X| = 2**64``).  With the native library (:mod:`exactdp.histograms.native`,
built at install time) interpolating through ``n + 1`` points is ``[L:K]`` interpolations
over ``K`` sharing one subproduct tree (``O(n**1.59 log n)`` products in ``K`` each), and
``evaluate`` is ``n [L:K]`` products in ``K`` from a coordinate table built on first use.
Measured times: ``tests/benchmarks/bench_compact.py`` (the documentation's benchmarks
page).  The pure-Python path
(``arithmetic="pure"``, or no compiler) runs Newton's form over the whole field, about
``1.5 n**2`` products by a node: about an hour at ``n = 10**4``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from itertools import filterfalse
from typing import Any

import gmpy2

from exactdp.certified import ceil_log2
from exactdp.counting import CDFDraw, FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms import native
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.fields import MAX_LEVEL, VanLintField, level_for_bits
from exactdp.histograms.release_file import InvalidReleaseError
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    check_count,
    inverse_integer,
    positive_int,
)
from exactdp.randomness import InverseCDFDraw, RandomSource, default_source

__all__ = [
    "FORMAT",
    "CompactHistogram",
    "CompactRelease",
    "EmptyBinSampler",
    "InvalidReleaseError",
    "SamplerSpec",
    "node_sublevel",
    "release_report",
    "theorem_8_6_epsilon_prime",
    "theorem_8_6_level",
]

#: The ``"format"`` tag of the JSON form of a :class:`CompactRelease`.
FORMAT = "exactdp/compact-histogram"
#: 2: nodes embedded through the subfield K (version 1 used T^{-1}(x) in L);
#: 3: the integrity digest and the recomputed guarantees.
VERSION = "3"
_ARITHMETIC = ("auto", "native", "pure")
#: Up to this bit length of ``d0``, :meth:`EmptyBinSampler.f` divides plain ints (faster than
#: gmpy2's conversions there); beyond it, gmpy2 (CPython's long division is quadratic).
_INT_DIVISION_BITS = 256
#: Up to this ``d`` (of ``M``), :meth:`EmptyBinSampler.__call__` keeps ``M(0, u)`` per ``u``
#: (at most ``d`` pairs of small ints): ``M0`` evaluated at every ``u0`` of a large ``d0``
#: (``d0 / d`` values of ``u0`` per ``u``) runs ``M`` once per ``u``.
_M_AT_ZERO_MAX_D = 1 << 16


# --------------------------------------------------------------------------- mechanisms

@dataclass(frozen=True)
class SamplerSpec:
    """The public description of the counting mechanism of a release: ``GeoSample_{n,eps}``
    (Algorithm 4.8) or ``FastSample_{n,eps,gamma}`` (Algorithm 4.11)."""

    name: str
    epsilon: Fraction
    gamma: Fraction | None = None

    def __post_init__(self) -> None:
        if self.name not in ("FastSample", "GeoSample"):
            raise ParameterError(f"sampler name = {self.name!r} must be 'FastSample' or "
                                 f"'GeoSample'")
        object.__setattr__(self, "epsilon", inverse_integer(self.epsilon, "sampler epsilon"))
        if self.name == "FastSample":
            if self.gamma is None:
                raise ParameterError("FastSample needs gamma")
            object.__setattr__(self, "gamma", inverse_integer(self.gamma, "sampler gamma"))
        elif self.gamma is not None:
            raise ParameterError("GeoSample takes no gamma")

    def __str__(self) -> str:
        gamma = "" if self.gamma is None else f", gamma={self.gamma}"
        return f"{self.name}(eps={self.epsilon}{gamma})"

    @classmethod
    def of(cls, mechanism: InverseCDFSampler) -> SamplerSpec:
        """The spec of a GeoSample or FastSample instance."""
        if isinstance(mechanism, FastSample):
            return cls("FastSample", mechanism.epsilon, mechanism.gamma)
        if isinstance(mechanism, GeoSample):
            return cls("GeoSample", mechanism.epsilon)
        raise ParameterTypeError(f"only GeoSample and FastSample releases can be described "
                                 f"publicly, not {mechanism!r}")

    def build(self, n: int) -> InverseCDFSampler:
        if self.name == "FastSample":
            return FastSample(n, self.epsilon, self.gamma)
        return GeoSample(n, self.epsilon)


def _check_mechanism(mechanism: object) -> InverseCDFSampler:
    if not isinstance(mechanism, InverseCDFSampler):
        raise ParameterTypeError(f"mechanism = {mechanism!r} must be a counting mechanism "
                                 f"M: [n] x [d]_+ -> [n] with an integer CDF (GeoSample, "
                                 f"FastSample, TabulatedMechanism)")
    return mechanism


# --------------------------------------------------------------------------- Lemma 8.4

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
        self.mechanism = _check_mechanism(mechanism)
        self.d0 = positive_int(d0, "d0")
        d = self.mechanism.d
        if 3 * self.d0 < 4 * d:
            raise ParameterError(f"Lemma 8.4 needs d0 >= 4d/3; got d0 = {_size(self.d0)} and "
                                 f"d = {_size(d)}: use a larger field")
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
        return f"EmptyBinSampler({self.mechanism!r}, d0={_size(self.d0)})"

    @property
    def d(self) -> int:
        """The domain size ``d0`` of ``M0`` (the name ``d`` is the inverse-CDF protocol's)."""
        return self.d0

    def _check_u0(self, u0: int) -> None:
        if isinstance(u0, bool) or not isinstance(u0, int):
            raise ParameterTypeError(f"u0 = {u0!r} must be an int in [1, d0]")
        if not 1 <= u0 <= self.d0:
            raise DomainError(f"u0 = {u0} is outside [d0]_+ = [1, {_size(self.d0)}]")

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


# --------------------------------------------------------------------------- Theorem 8.6

def theorem_8_6_epsilon_prime(epsilon: object) -> Fraction:
    """``eps' = 1 / ceil(10 / (9 eps))`` (Theorem 8.6); for ``eps = 1/m``: ``1/ceil(10m/9)``."""
    m = inverse_integer(epsilon, "epsilon").denominator
    return Fraction(1, (10 * m + 8) // 9)


def theorem_8_6_level(universe_size: int, d: int, epsilon: object) -> int:
    """``l = ceil(log3(ceil(log2 max{|X|, 30 d / eps}) / 2))`` (proof of Theorem 8.6), so that
    ``d0 = 2**(2 * 3**l) >= max{|X|, 30 d / eps}``; integer arithmetic only."""
    m = inverse_integer(epsilon, "epsilon").denominator
    return level_for_bits(ceil_log2(max(positive_int(universe_size, "universe size M"),
                                        30 * d * m)))


def _size(value: int) -> str:
    """A readable size for possibly huge integers: the value, or ``~2^bits``."""
    return str(value) if value < 10**12 else f"~2^{value.bit_length() - 1}"


# --------------------------------------------------------------------------- Algorithm 8.2

def node_sublevel(field_: VanLintField, universe_size: int, n: int) -> int:
    """The level ``k`` of the subfield ``K`` holding the interpolation nodes: the least with
    ``|K| >= max(|X|, n + 1)`` (capped at ``d0``), so that ``K`` holds ``T^{-1}(x) = x - 1``
    for every ``x`` in ``X`` and the padding points ``0..n``.  Any injection of ``X`` into
    the field serves Lemma 8.1; this one keeps the nodes in a small subfield, where the
    native arithmetic works (:mod:`exactdp.histograms.native`)."""
    return field_.sublevel_for(max(universe_size, min(n + 1, field_.order)))


def _use_native(arithmetic: str, sub_degree: int) -> bool:
    if arithmetic not in _ARITHMETIC:
        raise ParameterError(f"arithmetic = {arithmetic!r} must be one of {_ARITHMETIC}")
    if arithmetic == "pure":
        return False
    if native.supports(sub_degree):
        return True
    if arithmetic == "native":
        raise ParameterError(f"arithmetic = 'native' but the native path cannot serve "
                             f"GF(2^{sub_degree}): {native.status()}")
    return False


class CompactHistogram:
    """Algorithm 8.2, ``CompactHistogram_{M,M0}(D)`` for ``D in X^n``, ``X = [M]_+``.

    1. ``A = {x : c_x(D) > 0}``.
    2. ``c~_x = M(c_x(D), U_x)`` for ``x`` in ``A`` (BasicHistogram_{M,A}).
    3. Release ``h`` uniform among ``{g in G_{M0}(X) : g_x = c~_x for x in A}``: by Lemma
       8.1 (iv), ``u_x ~ S_{c~_x}`` for ``x`` in ``A``, ``u_x`` uniform on ``[d0]_+`` for
       the other points of a set ``B`` of ``n + 1`` points, and ``p`` the interpolating
       polynomial through ``(embed(x - 1), T^{-1}(u_x))``.

    ``B`` is ``A`` plus the smallest field points (in ``T`` order, i.e. the smallest
    elements of ``X`` first) outside ``A``; any ``n + 1`` distinct points give the same
    output distribution.  The element ``x`` of ``X`` is the node ``embed(x - 1)``: ``x - 1``
    read in the subfield ``K`` of :func:`node_sublevel` and included into ``F_{d0}``
    (:meth:`VanLintField.embed`; the identity when ``K`` is the whole field).

    With ``strict_time=True`` (default) every point of ``B`` makes the same two draws: an
    inverse-CDF draw over the common domain ``[d d0]_+`` (of ``M(c_x, .)`` for ``x`` in
    ``A``, of ``M0`` for padding points -- then ``u_x = S_v`` is exactly uniform), and
    ``uniform(|S_v|)``; the interpolation through ``n + 1`` points is the same computation
    for every ``D`` (natively: a sequence of operations fixed by ``n`` and the fields).
    What still depends on the data: the domain sizes ``|S_v|`` (``v`` is the released count
    ``h_x`` of a point of ``B``; for ``d0 <= 2**256`` also whether ``S_v``'s end points
    were computed before, :meth:`EmptyBinSampler.sample_preimage`) and, on the pure path,
    the cost of big-integer operations
    on the node values. This is a real timing channel, not only a dependence on public
    values: ``h`` is public at every ``x``, so the sequence of ``|S_{h_x}|`` over ``x`` in
    ``B`` tells which points form ``B``, hence ``A`` (witness: ``|X| = 8``, ``M =
    GeoSample(1, 1)``, GF(2^6), ``|S_0| = 39``, ``|S_1| = 25``; ``D = (5,)`` against
    ``(7,)`` and a release with ``h_5 = 1``, ``h_7 = 0``, possible under both: the second
    conditional draw is ``uniform(25)`` under one and ``uniform(39)`` under the other). An
    exact fixed-domain draw from ``S_v`` would need a common multiple of every ``|S_v|``,
    far too large; until then, strict mode hides ``|A|`` and the node order, but an observer
    of the draw sizes together with the release learns ``A``. With ``strict_time=False``
    only ``A`` is interpolated (pure path) and the rest of the polynomial is drawn directly
    (``p = q + Z_A r``, ``r`` uniform of degree ``n - |A|``): identical output distribution,
    time ``~|A| n`` instead of ``~n**2``, but the time reveals ``|A|``.

    Preconditions: ``d0 = 2**(2 * 3**level) >= |X|``, ``d0 >= 4d/3`` and (strict mode)
    ``d0 >= n + 1``; ``M`` non-decreasing in ``u``.  Privacy (Theorem 8.3 i with Lemma 8.4):
    ``(eps1 + 3d/d0, 0)``-DP when ``M`` is ``(eps1/2, 0)``-DP for counting queries.
    """

    def __init__(self, universe: Universe | int, mechanism: InverseCDFSampler, level: int,
                 *, strict_time: bool = True, epsilon: object = None,
                 beta0: object = None, construction: str = "custom",
                 arithmetic: str = "auto") -> None:
        self.universe = universe if isinstance(universe, Universe) else Universe(universe)
        self.mechanism = _check_mechanism(mechanism)
        self.field = VanLintField(level)
        self.n = self.mechanism.n
        self.strict_time = bool(strict_time)
        d0 = self.field.order
        if d0 < self.universe.size:
            raise ParameterError(f"d0 = 2^{self.field.degree} is smaller than |X| = "
                                 f"{self.universe.size}; Algorithm 8.2 needs d0 >= |X|")
        if self.strict_time and d0 < self.n + 1:
            raise ParameterError(f"strict mode interpolates through n + 1 = {self.n + 1} "
                                 f"distinct points, but the field has only d0 = {d0}")
        self.empty = EmptyBinSampler(self.mechanism, d0)
        self._common = self.mechanism.d * d0  # the common draw domain [d d0]_+
        self._m0_draw = _ScaledDraw(self.empty, self.mechanism.d, self._common)  # padding
        #: ``M(c, .)``'s draw over the common domain, per count ``c`` (:meth:`_point_value`)
        self._count_draws: dict[int, _ScaledDraw] = {}
        self.sublevel = node_sublevel(self.field, self.universe.size, self.n)
        self.arithmetic = arithmetic
        self.uses_native = _use_native(arithmetic, 2 * 3**self.sublevel)
        # A public bound on the embedded nodes' bits (elements of X are < |X|, padding <= n).
        bits = max(self.universe.size - 1, self.n).bit_length()
        self._node_bits = (bits - 1) * 3 ** (self.field.level - self.sublevel) + 1
        self.epsilon = None if epsilon is None else inverse_integer(epsilon, "epsilon")
        self.beta0 = None if beta0 is None else inverse_integer(beta0, "beta0")
        self.construction = construction

    def __repr__(self) -> str:
        return (f"CompactHistogram(X=[1,{self.universe.size}], {self.mechanism!r}, "
                f"field={self.field}, nodes in GF(2^{2 * 3**self.sublevel}), "
                f"strict_time={self.strict_time})")

    @classmethod
    def theorem_8_6(cls, universe: Universe | int, n: object, epsilon: object, beta0: object,
                    *, strict_time: bool = True, arithmetic: str = "auto") -> CompactHistogram:
        """Theorem 8.6: ``M = FastSample_{n,eps',gamma}`` with ``eps' = 1/ceil(10/(9 eps))``,
        ``gamma = beta0 / (2|X|)``, ``M0`` from Lemma 8.4 and ``l`` as in the proof.

        Then the release is ``(eps, 0)``-DP: ``eps' <= 9 eps / 10`` and
        ``3 d / d0 <= eps / 10`` (checked exactly by ``proofs/balcer_vadhan/thm_8_06_parameters.py``).
        """
        u = universe if isinstance(universe, Universe) else Universe(universe)
        eps = inverse_integer(epsilon, "epsilon")
        b0 = inverse_integer(beta0, "beta0")
        mech = FastSample(positive_int(n, "n"), theorem_8_6_epsilon_prime(eps),
                          Fraction(1, 2 * b0.denominator * u.size))
        return cls._with_level(u, mech, eps, b0, "theorem_8_6", strict_time, arithmetic)

    @classmethod
    def with_geosample(cls, universe: Universe | int, n: object, epsilon: object,
                       *, strict_time: bool = True, arithmetic: str = "auto") -> CompactHistogram:
        """Figure 6's GeoSample variant: ``M = GeoSample_{n,eps'}``, ``eps'`` and ``l`` as in
        Theorem 8.6 (``d`` is GeoSample's, ``log2 d ~ n log2(2/eps)``); ``(eps, 0)``-DP."""
        u = universe if isinstance(universe, Universe) else Universe(universe)
        eps = inverse_integer(epsilon, "epsilon")
        mech = GeoSample(positive_int(n, "n"), theorem_8_6_epsilon_prime(eps))
        return cls._with_level(u, mech, eps, None, "geosample", strict_time, arithmetic)

    @classmethod
    def for_budget(cls, universe: Universe | int, n: object, total_epsilon: object,
                   beta0: object = None, counting: str = "fastsample", *,
                   strict_time: bool = True, arithmetic: str = "auto") -> CompactHistogram:
        """The whole release spends at most ``total_epsilon`` (any rational in ``(0, 1]``):
        the paper's ``eps = 1/m``, the largest ``1/m <= total_epsilon``, with Theorem 8.6
        (``beta0`` needed) or the GeoSample variant; ``(eps, 0)``-DP."""
        from exactdp.spend import histogram_epsilon_for_budget

        eps = histogram_epsilon_for_budget(total_epsilon)
        if counting == "geosample":
            return cls.with_geosample(universe, n, eps, strict_time=strict_time,
                                      arithmetic=arithmetic)
        if counting != "fastsample":
            raise ParameterError(f"counting = {counting!r} must be 'fastsample' or 'geosample'")
        return cls.theorem_8_6(universe, n, eps, beta0, strict_time=strict_time,
                               arithmetic=arithmetic)

    @classmethod
    def _with_level(cls, universe: Universe, mech: InverseCDFSampler, eps: Fraction,
                    beta0: Fraction | None, construction: str,
                    strict_time: bool, arithmetic: str) -> CompactHistogram:
        level = theorem_8_6_level(universe.size, mech.d, eps)
        if level > MAX_LEVEL:
            raise ResourceLimitError(
                f"these parameters need the field of level {level} (d0 = 2^{2 * 3**level}), "
                f"beyond the supported level {MAX_LEVEL}; use a larger epsilon")
        return cls(universe, mech, level, strict_time=strict_time, epsilon=eps, beta0=beta0,
                   construction=construction, arithmetic=arithmetic)

    # ---- the algorithm

    def _padding(self, occupied: Sequence[int]) -> list[int]:
        """The ``n + 1 - |occupied|`` smallest points of ``K`` (as ints ``x - 1``)
        outside ``occupied``; they lie in ``[0, n]``, which is scanned whole (a loop count
        independent of the data)."""
        taken = set(occupied)
        free = list(filterfalse(taken.__contains__, range(self.n + 1)))
        return free[:self.n + 1 - len(occupied)]

    def _point_value(self, count: int | None, fixed: int | None, source: RandomSource) -> int:
        """``T^{-1}(u_x)`` for one point of ``B``: ``u_x ~ S_v`` where ``v`` is ``fixed``,
        or ``M(count, U)``, or (``count`` None) ``M0(U0)`` -- then ``u_x`` is uniform."""
        if fixed is not None:
            v = fixed
        elif count is None:
            v = source.inverse_cdf(self._m0_draw)
        else:
            draw = self._count_draws.get(count)
            if draw is None:  # built once per count (a pure value of the public parameters)
                draw = _ScaledDraw(self.mechanism.draw(count), self.empty.d0, self._common)
                self._count_draws[count] = draw
            v = source.inverse_cdf(draw)
        return self.field.from_index(self.empty.sample_preimage(v, source))

    def _polynomial(self, counts: Mapping[int, int], fixed: Mapping[int, int],
                    source: RandomSource) -> tuple[int, ...]:
        """The coefficients of ``p``: ``counts`` maps ``x`` in ``A`` to ``c_x(D)`` (noisy count
        drawn here) or ``fixed`` maps it to a given value ``v_x`` (Lemma 8.1 iv)."""
        points = sorted(x - 1 for x in (*counts, *fixed))
        field_ = self.field
        point_value, count_of, fixed_of = self._point_value, counts.get, fixed.get

        def embed(e: int) -> int:  # (its calls are part of the strict-time operation trace)
            return field_.embed(e, self.sublevel)

        if self.strict_time:
            nodes = sorted(points + self._padding(points))
            values = [point_value(count_of(e + 1), fixed_of(e + 1), source) for e in nodes]
            if self.uses_native:
                return tuple(native.interpolate(field_.degree, 2 * 3**self.sublevel, nodes,
                                                values))
            return tuple(field_.interpolate([embed(e) for e in nodes], values,
                                            self._node_bits))
        values = [point_value(count_of(e + 1), fixed_of(e + 1), source) for e in points]
        embedded = [embed(e) for e in points]
        newton = field_.newton_coefficients(embedded, values, self._node_bits)
        tail = [source.uniform(field_.order) - 1 for _ in range(self.n + 1 - len(points))]
        # Newton basis with zero nodes after A: p = q + Z_A(X) * r(X), r uniform.
        newton_nodes = embedded + [0] * len(tail)
        return tuple(field_.newton_to_monomial(newton_nodes, newton + tail, self._node_bits))

    def release(self, dataset: Dataset, source: RandomSource | None = None) -> CompactRelease:
        """Run Algorithm 8.2 on ``dataset`` (its ``n`` must be the mechanism's)."""
        if not isinstance(dataset, Dataset):
            raise ParameterTypeError(f"the dataset is a {type(dataset).__name__}; it must be a "
                                     f"Dataset: build it with Dataset.of(universe, rows)")
        if dataset.n != self.n:
            raise ParameterError(f"the dataset has n = {dataset.n} rows but the mechanism was "
                                 f"built for n = {self.n}")
        if dataset.universe.size != self.universe.size:
            raise ParameterError(f"the dataset's universe [1, {dataset.universe.size}] is not "
                                 f"this histogram's [1, {self.universe.size}]")
        coefficients = self._polynomial(dataset.counts(), {}, default_source(source))
        return self._wrap(coefficients)

    def sample_conditioned(self, values: Mapping[int, int],
                           source: RandomSource | None = None) -> CompactRelease:
        """Lemma 8.1 (iv): ``h`` uniform on ``{g in G_{M0}(X) : g_x = values[x]}`` for at
        most ``n`` elements ``x`` (each value must have positive probability under ``M0``)."""
        if len(values) > self.n:
            raise ParameterError(f"at most n = {self.n} values can be prescribed")
        fixed = {self.universe.check(x, "x"): check_count(v, self.n, "value")
                 for x, v in values.items()}
        return self._wrap(self._polynomial({}, fixed, default_source(source)))

    @cached_property
    def _release_template(self) -> CompactRelease:
        """A release of the zero polynomial: its public fields are validated once, here, and
        its ``M0`` (built from them by :attr:`CompactRelease.empty_bin_sampler`) is built
        once too, for :meth:`_wrap` to share."""
        template = CompactRelease(self.universe.size, self.n, self.field.level,
                                  (0,) * (self.n + 1), self.mechanism, self.epsilon,
                                  self.beta0, self.construction, arithmetic=self.arithmetic)
        _ = template.empty_bin_sampler
        return template

    def _wrap(self, coefficients: tuple[int, ...]) -> CompactRelease:
        return self._release_template.with_coefficients(coefficients)


# --------------------------------------------------------------------------- the release

@dataclass(frozen=True)
class CompactRelease:
    """A released CompactHistogram: the histogram ``h_x = M0(T(p(x)))`` for every ``x`` in
    ``X = [M]_+``, held as the coefficients of ``p`` (lowest degree first) over the field of
    the given level, with the public parameters that define ``M`` and ``M0``.

    ``construction`` is ``"theorem_8_6"`` (FastSample, Theorem 8.6 from ``epsilon`` and
    ``beta0``), ``"geosample"`` (GeoSample variant from ``epsilon``) or ``"custom"``.
    ``x`` in ``X`` is read as the node ``embed(x - 1)`` of the subfield
    ``K = GF(2**(2 * 3**sublevel))`` (:func:`node_sublevel`).  Time of :meth:`evaluate`:
    ``n`` products of an element of the field by one of ``K`` plus one run of ``M0``; on the
    native path (``arithmetic``, as for :class:`CompactHistogram`) the first call also builds
    the coefficients' coordinate table over ``K``, once.
    """

    universe_size: int
    n: int
    level: int
    coefficients: tuple[int, ...]
    mechanism: InverseCDFSampler = field(compare=False)
    epsilon: Fraction | None = None
    beta0: Fraction | None = None
    construction: str = "custom"
    arithmetic: str = field(default="auto", compare=False)
    mechanism_description: str = field(init=False)
    sublevel: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mechanism_description", repr(self.mechanism))
        object.__setattr__(self, "universe_size",
                           positive_int(self.universe_size, "universe size M"))
        object.__setattr__(self, "n", positive_int(self.n, "n"))
        if not isinstance(self.coefficients, Sequence) or isinstance(self.coefficients,
                                                                    (str, bytes)):
            raise ParameterTypeError(f"coefficients must be a sequence of ints in "
                                     f"[0, 2^degree), got {type(self.coefficients).__name__}")
        if len(self.coefficients) != self.n + 1:
            raise InvalidReleaseError(f"a polynomial of degree <= n = {self.n} has n + 1 = "
                                      f"{self.n + 1} coefficients, got {len(self.coefficients)}")
        # Each coefficient an element of the field: an int (not bool) in [0, 2^degree).
        object.__setattr__(self, "coefficients",
                           tuple(self.field.element(c, f"coefficients[{i}]")
                                 for i, c in enumerate(self.coefficients)))
        object.__setattr__(self, "sublevel",
                           node_sublevel(self.field, self.universe_size, self.n))
        _use_native(self.arithmetic, 2 * 3**self.sublevel)  # validates the choice

    @cached_property
    def field(self) -> VanLintField:
        return VanLintField(self.level)

    def with_coefficients(self, coefficients: Sequence[int]) -> CompactRelease:
        """The release with these coefficients and this one's public parameters (validated
        when this one was built, and shared with it: field and ``M0``), checked: ``n + 1``
        ints in ``[0, 2^degree)``; anything else goes through the full validation of the
        constructor, whose error it raises."""
        coeffs = tuple(coefficients)
        if (len(coeffs) != self.n + 1 or set(map(type, coeffs)) != {int}
                or min(coeffs) < 0 or max(coeffs) >= self.field.order):
            return dataclasses.replace(self, coefficients=coeffs)
        new = object.__new__(CompactRelease)
        state = self.__dict__.copy()
        state.pop("_table", None)
        state["coefficients"] = coeffs
        object.__setattr__(new, "__dict__", state)
        return new

    @cached_property
    def empty_bin_sampler(self) -> EmptyBinSampler:
        return EmptyBinSampler(self.mechanism, self.field.order)

    @property
    def sampler(self) -> SamplerSpec:
        return SamplerSpec.of(self.mechanism)

    @cached_property
    def _table(self) -> native.CoordinateTable | None:
        if not _use_native(self.arithmetic, 2 * 3**self.sublevel):
            return None
        return native.CoordinateTable(self.field.degree, 2 * 3**self.sublevel, self.coefficients)

    def evaluate(self, x: int) -> int:
        """The released noisy count ``h_x = M0(T(p(embed(x - 1))))`` of ``x`` in ``[1, M]``."""
        if isinstance(x, bool) or not isinstance(x, int):
            raise ParameterTypeError(f"x = {x!r} must be an int element of [1, "
                                     f"{self.universe_size}]")
        if not 1 <= x <= self.universe_size:
            raise DomainError(f"x = {x} is outside the universe [1, {self.universe_size}]")
        table = self._table
        if table is not None:
            value = table.evaluate(x - 1)
        else:
            value = self.field.evaluate(self.coefficients, self.field.embed(x - 1, self.sublevel))
        return self.empty_bin_sampler(self.field.to_index(value))

    # ---- JSON (exactdp.histograms.compact_release)

    def to_json(self) -> dict[str, Any]:
        """The exact JSON form (every number a decimal string or ``"p/q"``), sealed with its
        SHA-256 digest (:mod:`exactdp.histograms.release_file`)."""
        from exactdp.histograms.compact_release import release_json

        return release_json(self)

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def loads(cls, text: str, path: str = "<text>") -> CompactRelease:
        """Parse, check the digest and validate; :class:`InvalidReleaseError` says what is
        wrong (``path`` names the file in messages)."""
        from exactdp.histograms.compact_release import loads

        return loads(text, path)

    @classmethod
    def from_json(cls, obj: object) -> CompactRelease:
        """Check the digest, then validate everything: structure, numbers, parameters, their
        consistency and the derived fields (recomputed)."""
        from exactdp.histograms.compact_release import from_json

        return from_json(obj)


def release_report(universe: Universe, epsilon: object, beta0: object, counting: str,
                   dataset: Dataset, source: RandomSource | None = None) -> dict[str, Any]:
    """See :func:`exactdp.histograms.compact_release.release_report`."""
    from exactdp.histograms.compact_release import release_report as report

    return report(universe, epsilon, beta0, counting, dataset, source)
