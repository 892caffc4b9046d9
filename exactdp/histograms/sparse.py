"""Sparse histograms with pure DP in time polynomial in ``log |X|`` (Section 6).

* :class:`KeepHeavy` -- Algorithm 6.1: BasicHistogram over all of ``X``, then keep the bins
  whose noisy count is strictly above the ``(n+1)``-th largest.  Time linear in ``|X|``: the
  exponential-time reference (tiny universes only, ``|X| <= KEEP_HEAVY_LIMIT``).
* :class:`KHPrime` -- Algorithm 6.4 (``KH'``): the same output distribution (Proposition 6.5)
  from the ``|A| <= n`` non-empty bins plus ``n + 1`` empty candidates carrying the top
  ``n + 1`` order statistics of the empty bins' noise (exact :func:`ord_sample`, Algorithm
  6.7: ``Omega(|X|)`` time, small universes only).
* :class:`SparseHistogram` -- Algorithm 6.21: ``KH'`` with :func:`approx_ord_sample`
  (Algorithm 6.20) and ``s = (n^2 + 2n)|X|/delta``; within statistical distance ``delta`` of
  ``KH'`` (Theorem 6.8 i), hence ``(eps, (e^eps + 1) delta)``-DP (ii).
* :class:`PureSparseHistogram` -- Algorithm 6.9: with probability ``1 - beta_1`` a
  SparseHistogram with ``delta = eps/3 * beta_1 * (1/(3|X|))^n``, otherwise a random sparse
  histogram (:func:`uniform_sparse_histogram`); ``(eps, 0)``-DP (Theorem 6.10 i).

All need ``|X| >= 2n + 1`` (footnote 6: then ``|X \\ A| >= n + 1``).  For ``|X| < 2n + 1``
they run **BasicHistogram over all of X** instead, as footnote 6 suggests (``(eps, 0)``-DP
by Theorem 5.2, at most ``2n`` bins), and say so in :attr:`Histogram.fallback`.

Strict time.  As printed, Algorithms 6.4 and 6.21 make ``|A|`` noisy-count draws, sample
distinct elements from ``[|X| - |A| - i]_+`` (Algorithm A.3) and order statistics of
``m = |X| - |A|`` draws: the operations depend on ``|A|``, the number of distinct elements
of the data.  With ``strict=True`` (the default) the same output distribution is produced
by operations that depend only on ``|X|``, ``n`` and the coins:

1. exactly ``n`` noisy-count draws: the ``|A|`` non-empty bins, then ``n - |A|`` draws
   ``M(0, U)``, the noisy counts of ``n - |A|`` of the empty bins;
2. a uniformly random sequence of ``2n + 1`` distinct elements of ``X`` (Algorithm A.3 with
   nothing excluded), of which the first ``n + 1`` outside ``A`` are kept as
   ``(q_0, ..., q_n)`` -- there are at least ``n + 1`` since ``|A| <= n``, and they form a
   uniformly random sequence of distinct elements of ``X \\ A`` because the whole procedure
   commutes with every permutation of ``X`` fixing ``A``;
3. the top ``n + 1`` order statistics of the other ``m_0 = |X| - n`` empty bins
   (:func:`ord_sample` / :func:`approx_ord_sample` with the public ``m_0``), merged with the
   ``n - |A|`` draws of step 1: the top ``n + 1`` of ``m = m_0 + (n - |A|)`` i.i.d. values
   are the top ``n + 1`` of the union of the top ``n + 1`` of the first ``m_0`` and the
   rest.  For SparseHistogram the distance is ``m_0 (n^2+2n)/s <= delta`` still.

``strict=False`` runs the algorithms exactly as printed.  For KH' both modes have exactly
KeepHeavy's distribution (checked in ``proofs/balcer_vadhan/prop_6_05_khprime.py``); for SparseHistogram
the two modes approximate slightly differently (ApproxOrdSample over ``m_0`` instead of
``m`` empty bins) and both are checked within ``delta`` of KH' (``proofs/balcer_vadhan/thm_6_08_sparse.py``).
In either mode ApproxBinSample's running time depends on
its own outputs (Proposition 6.17); with ``strict=True`` its inputs are public, so its time
depends on the coins only.  ``padded_order_statistics=True`` also removes that dependence
(Algorithm 6.18 run to its worst case; ``n`` times slower).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.basic import (
    BasicHistogram,
    check_mechanism,
    check_universe,
    noisy_counts,
)
from exactdp.histograms.data import Dataset, Histogram, Universe
from exactdp.histograms.distinct import distinct_sample
from exactdp.histograms.orderstats import approx_ord_sample, ord_sample
from exactdp.params import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    inverse_integer,
    positive_int,
)
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "KEEP_HEAVY_LIMIT",
    "KH_PRIME_MAX_BITS",
    "SPARSE_MAX_S_BITS",
    "KHPrime",
    "KeepHeavy",
    "PureSparseHistogram",
    "SparseHistogram",
    "fallback_reason",
    "keep_heaviest",
    "pure_sparse_delta",
    "pure_sparse_s_bits_at_least",
    "uniform_sparse_histogram",
]

#: KeepHeavy adds noise to every bin of X: refused above this many bins.
KEEP_HEAVY_LIMIT = 1 << 16

#: SparseHistogram is refused when ``s`` would exceed this many bits (``n`` about 30,000 rows
#: over ``|X| = 2^64`` in PureSparseHistogram, whose ``delta`` has about ``n log2(3|X|)`` bits).
SPARSE_MAX_S_BITS = 1 << 21

#: KH' is refused when its exact binomials would need integers longer than this (bits).
KH_PRIME_MAX_BITS = 1 << 24


def fallback_reason(universe: Universe, n: int) -> str | None:
    """Why the sparse algorithms fall back to BasicHistogram over X (None if they do not)."""
    if universe.size >= 2 * n + 1:
        return None
    return (f"|X| = {universe.size} < 2n + 1 = {2 * n + 1}: the sparse algorithms need "
            f"|X \\ A| >= n + 1, so BasicHistogram over all of X was released instead "
            f"(Algorithm 6.4, footnote 6; (eps, 0)-DP by Theorem 5.2)")


def keep_heaviest(universe: Universe, n: int, candidates: Sequence[tuple[int, int]],
                  algorithm: str) -> Histogram:
    """Steps 5-6 of Algorithms 6.4/6.21 (step 2-3 of 6.1): release the candidates whose
    noisy count is strictly larger than the ``(n+1)``-th largest, sorted by element.

    Needs at least ``n + 1`` candidates; at most ``n`` bins survive, all with count ``> 0``.
    """
    if len(candidates) < n + 1:
        raise ParameterError(f"{len(candidates)} candidates, fewer than n + 1 = {n + 1}")
    values = sorted([c for _, c in candidates], reverse=True)
    threshold = values[n]
    # sorted by element; the candidates' elements are distinct (a repeated one is refused
    # by Histogram: bins strictly increasing)
    kept = sorted([(x, c) for x, c in candidates if c > threshold])
    return Histogram(universe, n, tuple(kept), algorithm)


def _universe_arg(universe: object) -> Universe:
    if not isinstance(universe, Universe):
        raise ParameterTypeError(f"universe = {universe!r} must be a Universe")
    return universe


def _fallback_release(mechanism: InverseCDFSampler, universe: Universe, dataset: Dataset,
                      source: RandomSource, algorithm: str, reason: str) -> Histogram:
    basic = BasicHistogram(mechanism, universe).release(dataset, source)
    return Histogram(universe, dataset.n, basic.bins, algorithm, reason)


class KeepHeavy:
    """Algorithm 6.1, ``KeepHeavy_M(D)``: ``c~ = BasicHistogram_{M,X}(D)``; release
    ``{(x, c~_x) : c~_x > c~_{x_{n+1}}}`` where ``c~_{x_{n+1}}`` is the ``(n+1)``-th largest
    noisy count.

    Preconditions: ``n + 1 <= |X| <= KEEP_HEAVY_LIMIT``; ``M`` ``(eps/2, 0)``-DP.
    Privacy ``(eps, 0)``-DP (Theorem 6.2 i: post-processing of BasicHistogram).
    Time: ``|X|`` inverse-CDF draws and a sort -- exponential in the bit length of ``|X|``;
    this is the reference KH' and SparseHistogram are checked against.
    """

    def __init__(self, mechanism: InverseCDFSampler, universe: Universe) -> None:
        self.mechanism = check_mechanism(mechanism)
        self.universe = _universe_arg(universe)
        if universe.size > KEEP_HEAVY_LIMIT:
            raise ResourceLimitError(f"KeepHeavy adds noise to all |X| = {universe.size} bins "
                                     f"(limit {KEEP_HEAVY_LIMIT}); use PureSparseHistogram")
        if universe.size < mechanism.n + 1:
            raise ParameterError(f"KeepHeavy needs |X| >= n + 1 = {mechanism.n + 1} (it "
                                 f"compares with the (n+1)-th heaviest bin); |X| = "
                                 f"{universe.size}: use BasicHistogram")

    def __repr__(self) -> str:
        return f"KeepHeavy({self.mechanism!r}, |X| = {self.universe.size})"

    def release(self, dataset: Dataset, source: RandomSource | None = None) -> Histogram:
        check_mechanism(self.mechanism, dataset)
        check_universe(self.universe, dataset)
        elements = tuple(self.universe.elements())
        noisy = noisy_counts(self.mechanism, dataset.counts(), elements, default_source(source))
        return keep_heaviest(self.universe, dataset.n, list(zip(elements, noisy)), "KeepHeavy")


class _CandidateHistogram:
    """Algorithms 6.4 and 6.21: everything but the order-statistics sampler (step 4)."""

    algorithm = ""

    def __init__(self, mechanism: InverseCDFSampler, universe: Universe, strict: bool) -> None:
        self.mechanism = check_mechanism(mechanism)
        self.universe = _universe_arg(universe)
        self.strict = bool(strict)

    @property
    def n(self) -> int:
        return self.mechanism.n

    def _order_statistics(self, m: int, source: RandomSource) -> tuple[int, ...]:
        raise NotImplementedError

    def release(self, dataset: Dataset, source: RandomSource | None = None) -> Histogram:
        check_mechanism(self.mechanism, dataset)
        check_universe(self.universe, dataset)
        src = default_source(source)
        n, size = dataset.n, self.universe.size
        reason = fallback_reason(self.universe, n)
        if reason is not None:
            return _fallback_release(self.mechanism, self.universe, dataset, src,
                                     self.algorithm, reason)
        counts = dataset.counts()
        support = sorted(counts)  # A
        k = len(support)
        if self.strict:
            # Step 1 of the strict mode: n draws, the last n - |A| for empty bins.
            noisy = noisy_counts(self.mechanism, counts, support + [0] * (n - k), src)
            noisy_support, extra = noisy[:k], noisy[k:]
            pool = distinct_sample(size, (), 2 * n + 1, src)
            qs = [q for q in pool if q not in counts][:n + 1]
            top = self._order_statistics(size - n, src)
            zs = sorted([*top, *extra], reverse=True)[:n + 1]
        else:
            noisy_support = noisy_counts(self.mechanism, counts, support, src)
            qs = list(distinct_sample(size, support, n + 1, src))
            zs = list(self._order_statistics(size - k, src))
        candidates = [*zip(support, noisy_support), *zip(qs, zs)]
        return keep_heaviest(self.universe, n, candidates, self.algorithm)


class KHPrime(_CandidateHistogram):
    """Algorithm 6.4, ``KH'_M(D)`` with exact order statistics (Algorithm 6.7).

    1. ``A = {x : c_x(D) > 0}``, ``m = |X \\ A|``; 2. BasicHistogram over ``A``;
    3. a uniformly random sequence ``(q_0..q_n)`` of distinct elements of ``X \\ A``
    (Algorithm A.3); 4. ``(c~_{q_0}..c~_{q_n})`` = the top ``n + 1`` order statistics of
    ``m`` i.i.d. ``M(0, U)`` (:func:`ord_sample`); 5-6. release the bins heavier than the
    ``(n+1)``-th heaviest candidate.

    Output distribution: identical to :class:`KeepHeavy` (Proposition 6.5, checked exactly
    in ``proofs/balcer_vadhan/prop_6_05_khprime.py``).  Time: ``Omega(|X|)`` through the exact binomials
    (Proposition 6.6's remark), so small universes only.  ``strict``: see the module
    docstring.  Falls back to BasicHistogram over ``X`` when ``|X| < 2n + 1``.
    """

    algorithm = "KH'"

    def __init__(self, mechanism: InverseCDFSampler, universe: Universe,
                 strict: bool = True) -> None:
        super().__init__(mechanism, universe, strict)
        bits = universe.size * self.mechanism.d.bit_length()
        if bits > KH_PRIME_MAX_BITS:
            raise ResourceLimitError(
                f"KH' samples exact binomials Bin(m, p) with m about |X| = {universe.size}: "
                f"integers of about |X| log2 d = {bits} bits (limit {KH_PRIME_MAX_BITS}); "
                f"use SparseHistogram or PureSparseHistogram for large universes")

    def __repr__(self) -> str:
        return f"KHPrime({self.mechanism!r}, |X| = {self.universe.size}, strict={self.strict})"

    def _order_statistics(self, m: int, source: RandomSource) -> tuple[int, ...]:
        mech = self.mechanism
        return ord_sample(mech.scaled_cdf_at_zero, mech.n, mech.d, m, source)


class SparseHistogram(_CandidateHistogram):
    """Algorithm 6.21, ``SparseHistogram_{M,delta}(D)``: :class:`KHPrime` with step 4 done by
    ``ApproxOrdSample_{F_M}(m, s)``, ``s = (n^2 + 2n)|X| / delta`` (an integer: ``delta`` is
    ``1/k``).

    Preconditions: ``delta`` in ``N^{-1}``, ``M`` deterministic and ``(eps/2, 0)``-DP.
    Theorem 6.8: (i) ``Delta(KH'(D), SparseHistogram(D)) <= delta`` for every ``D``
    (checked exactly on small universes in ``proofs/balcer_vadhan/thm_6_08_sparse.py``); (ii)
    ``(eps, (e^eps + 1) delta)``-DP; (iii) time
    ``O~(n log|X| (log|X| + log 1/delta)) + O(n)(O~(log d) + Time(M) + Time(F_M))``.
    ``strict`` (default True) and ``padded_order_statistics`` (default False: Algorithm 6.18
    unpadded, as printed; True is n times slower): see the module docstring.
    """

    algorithm = "SparseHistogram"

    def __init__(self, mechanism: InverseCDFSampler, universe: Universe, delta: object,
                 strict: bool = True, padded_order_statistics: bool = False) -> None:
        super().__init__(mechanism, universe, strict)
        self.delta = inverse_integer(delta, "delta", below_one=True)
        n = self.mechanism.n
        self.s = (n * n + 2 * n) * self.universe.size * self.delta.denominator
        if self.s.bit_length() > SPARSE_MAX_S_BITS:
            raise ResourceLimitError(
                f"SparseHistogram's s = (n^2+2n)|X|/delta has {self.s.bit_length()} bits "
                f"(limit {SPARSE_MAX_S_BITS}): its order statistics would take hours "
                f"(time ~ n log|X| log s); use StabilityHistogram for this many rows")
        self.padded_order_statistics = bool(padded_order_statistics)

    def __repr__(self) -> str:
        return (f"SparseHistogram({self.mechanism!r}, |X| = {self.universe.size}, "
                f"delta = {self.delta}, strict={self.strict})")

    def _order_statistics(self, m: int, source: RandomSource) -> tuple[int, ...]:
        mech = self.mechanism
        return approx_ord_sample(mech.scaled_cdf_at_zero, mech.n, mech.d, m, self.s, source,
                                 self.padded_order_statistics, max_m=self.universe.size)


def pure_sparse_s_bits_at_least(epsilon: object, beta1: object, universe_size: int,
                                n: int) -> int:
    """A lower bound, exact and cheap, on the bit length of the ``s = (n^2 + 2n)|X|/delta``
    that PureSparseHistogram's SparseHistogram would use, ``delta`` as in
    :func:`pure_sparse_delta` -- found without forming ``(3|X|)^n``.

    With ``eps = 1/e`` and ``beta_1 = 1/g``, ``1/delta = 3 e g (3|X|)^n`` exactly, so ``s``
    is the product of ``n^2 + 2n``, ``|X|``, ``3 e g`` and ``(3|X|)^n``.  For positive
    integers ``bits(a b) >= bits(a) + bits(b) - 1`` and ``bits(B^n) >= n (bits(B) - 1) + 1``
    (``B >= 2^(bits(B) - 1)``); hence the bound.  It is below the true bit length by at
    most ``n + 3`` (each factor's ``log2`` is under-counted by less than 1, ``B``'s ``n``
    times), so it refuses only releases SparseHistogram would refuse anyway.
    """
    eps = inverse_integer(epsilon, "epsilon")
    b1 = inverse_integer(beta1, "beta_1")
    size = positive_int(universe_size, "universe size")
    rows = positive_int(n, "n")
    factors = (rows * rows + 2 * rows, size, 3 * eps.denominator * b1.denominator)
    return (sum(f.bit_length() for f in factors) + rows * ((3 * size).bit_length() - 1) + 1
            - len(factors))


def pure_sparse_delta(epsilon: object, beta1: object, universe_size: int, n: int) -> Fraction:
    """Algorithm 6.9 step 1: ``delta = eps/3 * beta_1 * (1/(3|X|))^n`` (in ``N^{-1}``).

    Refused (:class:`ResourceLimitError`) before ``(3|X|)^n`` is formed when
    :func:`pure_sparse_s_bits_at_least` already exceeds SparseHistogram's limit on ``s``
    (``SPARSE_MAX_S_BITS``): at ``n = 10^7`` over ``2^64`` powering alone took minutes."""
    eps = inverse_integer(epsilon, "epsilon")
    b1 = inverse_integer(beta1, "beta_1")
    size = positive_int(universe_size, "universe size")
    rows = positive_int(n, "n")
    low = pure_sparse_s_bits_at_least(eps, b1, size, rows)
    if low > SPARSE_MAX_S_BITS:
        raise ResourceLimitError(
            f"SparseHistogram's s = (n^2+2n)|X|/delta, with PureSparseHistogram's delta = "
            f"eps/3 beta_1 (1/(3|X|))^n, would have at least {low} bits (limit "
            f"{SPARSE_MAX_S_BITS}) at n = {rows}: its order statistics would take hours "
            f"(time ~ n log|X| log s); use StabilityHistogram for this many rows")
    return eps / 3 * b1 * Fraction(1, 3 * size) ** rows


def uniform_sparse_histogram(universe: Universe | int, n: int,
                             source: RandomSource | None = None) -> Histogram:
    """Algorithm 6.9 step 2: draw ``(x_1..x_n)`` uniformly from ``X^n``, give each distinct
    ``q`` a count uniform on ``[n]``, release the bins with count ``> 0``, sorted.

    Drawn as ``n`` uniform elements then ``n`` uniform counts, ``q`` taking the count drawn
    at its first occurrence: each distinct ``q`` gets an independent uniform count, as in
    the paper, and the draws are always the same ``2n`` (strict time).  Every histogram of
    ``H_{n,n}(X)`` has probability at least ``n!/((n+1)^n |X|^n) >= (1/(3|X|))^n``
    (Theorem 6.10's proof; the exact minimum is checked in ``proofs/balcer_vadhan/thm_6_10_pure_sparse.py``).
    """
    universe = universe if isinstance(universe, Universe) else Universe(universe)
    n = positive_int(n, "n")
    src = default_source(source)
    size = universe.size
    xs = [src.uniform(size) for _ in range(n)]
    cs = [src.uniform(n + 1) - 1 for _ in range(n)]
    chosen: dict[int, int] = {}
    for x, c in zip(xs, cs):
        chosen.setdefault(x, c)
    return Histogram.from_counts(universe, n, {x: c for x, c in chosen.items() if c > 0},
                                 "PureSparseHistogram (uniform branch)")


class PureSparseHistogram:
    """Algorithm 6.9, ``PureSparseHistogram_{M,eps,beta_1}(D)``.

    1. With probability ``1 - beta_1``: :class:`SparseHistogram` with
       ``delta = eps/3 * beta_1 * (1/(3|X|))^n``;
    2. otherwise :func:`uniform_sparse_histogram`.

    Preconditions: ``eps, beta_1`` in ``N^{-1}``, ``beta_1 < 1``, ``|X| >= 2n + 1`` (else
    BasicHistogram over ``X`` is released, :attr:`Histogram.fallback` says so), ``M``
    deterministic and ``(eps/2, 0)``-DP (GeoSample/FastSample built with this ``eps`` or a
    smaller one).
    Theorem 6.10: (i) ``(eps, 0)``-DP (Lemma 3.2 with Theorem 6.8 i; checked exactly on
    small universes in ``proofs/balcer_vadhan/thm_6_10_pure_sparse.py``); (ii)-(iii) accuracy as in
    :func:`exactdp.histograms.accuracy.figure_5`; (iv) time
    ``O~(n^2 log^2|X| + n log|X| log(1/(beta_1 eps))) + O(n)(O~(log d) + Time(M) + Time(F_M))``.
    The branch taken depends on one coin only, never on the data.
    """

    def __init__(self, mechanism: InverseCDFSampler, universe: Universe, epsilon: object,
                 beta1: object, strict: bool = True,
                 padded_order_statistics: bool = False) -> None:
        self.mechanism = check_mechanism(mechanism)
        self.universe = _universe_arg(universe)
        self.epsilon = inverse_integer(epsilon, "epsilon")
        self.beta1 = inverse_integer(beta1, "beta_1")
        if self.beta1 == 1:
            raise ParameterError("beta_1 = 1 is not allowed: Algorithm 6.9 needs beta_1 < 1")
        mech_eps = getattr(self.mechanism, "epsilon", None)
        if mech_eps is not None and mech_eps > self.epsilon:
            raise ParameterError(f"the counting mechanism is only ({mech_eps}/2, 0)-DP; "
                                 f"PureSparseHistogram with epsilon = {self.epsilon} needs it "
                                 f"(epsilon/2, 0)-DP: build it with epsilon <= {self.epsilon}")
        n = self.mechanism.n
        self.delta = pure_sparse_delta(self.epsilon, self.beta1, self.universe.size, n)
        self.sparse = SparseHistogram(self.mechanism, self.universe, self.delta, strict,
                                      padded_order_statistics)

    @classmethod
    def theorem_6_11(cls, universe: Universe, n: int, epsilon: object, beta0: object,
                     counting: str = "geosample", strict: bool = True,
                     padded_order_statistics: bool = False) -> PureSparseHistogram:
        """Theorem 6.11 / Figure 5: ``PureSparseHistogram_{M,eps,beta0/4}`` with
        ``M = GeoSample_{n,eps}`` (``counting="geosample"``) or ``FastSample_{n,eps,gamma}``
        with ``gamma = beta0/(8|X|)`` (``counting="fastsample"``)."""
        eps = inverse_integer(epsilon, "epsilon")
        b0 = inverse_integer(beta0, "beta0")
        if b0 == 1:
            raise ParameterError("beta0 must be < 1")
        mech: InverseCDFSampler
        if counting == "geosample":
            mech = GeoSample(n, eps)
        elif counting == "fastsample":
            mech = FastSample(n, eps, b0 / (8 * universe.size))
        else:
            raise ParameterError(f"counting = {counting!r} must be 'geosample' or 'fastsample'")
        return cls(mech, universe, eps, b0 / 4, strict, padded_order_statistics)

    @classmethod
    def for_budget(cls, universe: Universe, n: int, total_epsilon: object, beta0: object,
                   counting: str = "geosample", strict: bool = True,
                   padded_order_statistics: bool = False) -> PureSparseHistogram:
        """The whole histogram spends at most ``total_epsilon`` (any rational in ``(0, 1]``):
        :meth:`theorem_6_11` at the paper's ``eps = 1/m``, the largest ``1/m <=
        total_epsilon``; ``(eps, 0)``-DP."""
        from exactdp.spend import histogram_epsilon_for_budget

        return cls.theorem_6_11(universe, n, histogram_epsilon_for_budget(total_epsilon),
                                beta0, counting, strict, padded_order_statistics)

    @property
    def n(self) -> int:
        return self.mechanism.n

    def __repr__(self) -> str:
        return (f"PureSparseHistogram({self.mechanism!r}, |X| = {self.universe.size}, "
                f"epsilon = {self.epsilon}, beta_1 = {self.beta1})")

    def release(self, dataset: Dataset, source: RandomSource | None = None) -> Histogram:
        check_mechanism(self.mechanism, dataset)
        check_universe(self.universe, dataset)
        src = default_source(source)
        reason = fallback_reason(self.universe, dataset.n)
        if reason is not None:
            return _fallback_release(self.mechanism, self.universe, dataset, src,
                                     "PureSparseHistogram", reason)
        g = self.beta1.denominator
        if src.bernoulli(g - 1, g):
            h = self.sparse.release(dataset, src)
            return Histogram(self.universe, dataset.n, h.bins, "PureSparseHistogram")
        h = uniform_sparse_histogram(self.universe, dataset.n, src)
        return Histogram(self.universe, dataset.n, h.bins, "PureSparseHistogram")

