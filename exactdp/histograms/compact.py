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

from exactdp.counting import InverseCDFSampler
from exactdp.histograms import native
from exactdp.histograms.compact_release import (
    FORMAT,
    SamplerSpec,
    construction_sampler,
    guarantees,
    node_sublevel,
    release_body,
    release_fields,
    release_json,
    theorem_8_6_epsilon_prime,
    theorem_8_6_level,
)
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.empty_bin import EmptyBinSampler, _ScaledDraw, check_mechanism
from exactdp.histograms.fields import MAX_LEVEL, VanLintField
from exactdp.histograms.release_file import InvalidReleaseError, parse_release, seal
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    check_count,
    inverse_integer,
    positive_int,
)
from exactdp.randomness import RandomSource, default_source

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

_ARITHMETIC = ("auto", "native", "pure")


# --------------------------------------------------------------------------- mechanisms


# --------------------------------------------------------------------------- Lemma 8.4


# --------------------------------------------------------------------------- Theorem 8.6


# --------------------------------------------------------------------------- Algorithm 8.2


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
        self.mechanism = check_mechanism(mechanism)
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
        mech = construction_sampler("theorem_8_6", u.size, positive_int(n, "n"), eps, b0)
        return cls._with_level(u, mech, eps, b0, "theorem_8_6", strict_time, arithmetic)

    @classmethod
    def with_geosample(cls, universe: Universe | int, n: object, epsilon: object,
                       *, strict_time: bool = True, arithmetic: str = "auto") -> CompactHistogram:
        """Figure 6's GeoSample variant: ``M = GeoSample_{n,eps'}``, ``eps'`` and ``l`` as in
        Theorem 8.6 (``d`` is GeoSample's, ``log2 d ~ n log2(2/eps)``); ``(eps, 0)``-DP."""
        u = universe if isinstance(universe, Universe) else Universe(universe)
        eps = inverse_integer(epsilon, "epsilon")
        mech = construction_sampler("geosample", u.size, positive_int(n, "n"), eps, None)
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
        return release_json(self)

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def loads(cls, text: str, path: str = "<text>") -> CompactRelease:
        """Parse, check the digest and validate; :class:`InvalidReleaseError` says what is
        wrong (``path`` names the file in messages)."""
        if not isinstance(text, str):
            raise ParameterTypeError(f"the release text is a {type(text).__name__}; pass a "
                                     f"str (decode the file as UTF-8, e.g. "
                                     f"exactdp.files.read_text)")
        return cls.from_json(parse_release(text, path))

    @classmethod
    def from_json(cls, obj: object) -> CompactRelease:
        """Check the digest, then validate everything: structure, numbers, parameters, their
        consistency and the derived fields (recomputed:
        :func:`~exactdp.histograms.compact_release.release_fields`)."""
        return cls(*release_fields(obj))


def release_report(universe: Universe, epsilon: object, beta0: object, counting: str,
                   dataset: Dataset, source: RandomSource | None = None) -> dict[str, Any]:
    """``exactdp histogram --algorithm compact``: Theorem 8.6 (``counting="fastsample"``) or
    the GeoSample variant, released on ``dataset``; the JSON form of the release plus
    ``beta`` and the accuracy guarantees at it (recomputed and compared by
    :meth:`CompactRelease.from_json`), sealed.  Callers that add fields (``input``, ``seeded``) seal again
    (:func:`exactdp.histograms.release_file.seal`)."""
    beta = inverse_integer(beta0, "beta", below_one=True)
    if counting == "fastsample":
        ch = CompactHistogram.theorem_8_6(universe, dataset.n, epsilon, beta)
    elif counting == "geosample":
        ch = CompactHistogram.with_geosample(universe, dataset.n, epsilon)
    else:
        raise ParameterError(f"counting = {counting!r} must be 'fastsample' or 'geosample'")
    out = release_body(ch.release(dataset, source))
    out["beta"] = str(beta)
    out["guarantees"] = guarantees(ch.epsilon, ch.universe.size, ch.mechanism, beta)
    return seal(out)
