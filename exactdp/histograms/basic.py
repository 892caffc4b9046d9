"""BasicHistogram (Algorithm 5.1) and StabilityHistogram (Algorithm 5.4), Section 5.

Both add independent noise from a counting-query mechanism ``M: [n] x [d]_+ -> [n]``
(:class:`~exactdp.counting.GeoSample` or :class:`~exactdp.counting.FastSample`, which are
``(eps/2, 0)``-DP for counting queries) to the counts of a set of bins.  Every noisy count
is one inverse-CDF draw ``M(c, U)``, ``U ~ Unif([d]_+)``, made through
``source.inverse_cdf`` so that the checker's exploring source branches once per output.

The mechanism's ``n`` must equal the number of rows of the dataset (the paper's ``D in
X^n``; ``n`` is public).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from itertools import repeat
from typing import Any

from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.data import Dataset, Histogram, Universe
from exactdp.params import (
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    inverse_integer,
    positive_int,
)
from exactdp.randomness import RandomSource, default_source

__all__ = [
    "DRAW_CHUNK",
    "MAX_BASIC_BINS",
    "BasicHistogram",
    "Progress",
    "StabilityHistogram",
    "check_mechanism",
    "check_universe",
    "noisy_counts",
    "padded_draws",
    "theorem_5_3_gamma",
    "theorem_5_6_gamma",
    "theorem_5_6_threshold",
]

#: BasicHistogram over a set of more bins than this is refused (it takes time ~|A|).
MAX_BASIC_BINS = 1 << 22

#: ``progress(done, total)``: called now and then during long loops of draws.
Progress = Callable[[int, int], None]

#: :func:`padded_noisy_counts` draws at most this many noisy counts at a time (a multiple of
#: :data:`exactdp.counting.BATCH_CHUNK`, so ``sample_many`` cuts its batches where it would
#: have cut one long call): the memory of a padded release is ``O(|A| + DRAW_CHUNK)``.
DRAW_CHUNK = 1 << 16


_NO_DATASET: Any = object()


def check_mechanism(mechanism: object, dataset: object = _NO_DATASET) -> InverseCDFSampler:
    """``mechanism`` must be an inverse-CDF counting mechanism whose ``n`` is the dataset's
    (when a dataset is given: ``None`` is not a dataset)."""
    if not isinstance(mechanism, InverseCDFSampler):
        raise ParameterTypeError(f"mechanism = {mechanism!r} must be a counting mechanism "
                                 f"such as GeoSample or FastSample")
    if dataset is _NO_DATASET:
        return mechanism
    if not isinstance(dataset, Dataset):
        raise ParameterTypeError(f"the dataset is a {type(dataset).__name__}; it must be a "
                                 f"Dataset: build it with Dataset.of(universe, rows) or "
                                 f"Dataset.from_labels(universe, labels)")
    if dataset.n != mechanism.n:
        raise ParameterError(f"the dataset has n = {dataset.n} rows but the counting "
                             f"mechanism was built for n = {mechanism.n}; build it with the "
                             f"dataset's number of rows")
    return mechanism


def noisy_counts(mechanism: InverseCDFSampler, counts: Mapping[int, int],
                 elements: Sequence[int], source: RandomSource,
                 progress: Progress | None = None) -> list[int]:
    """``[M(c_x, U_x) for x in elements]`` with independent ``U_x`` (Algorithm 5.1 step 2).

    ``counts`` maps an element to its true count (absent means 0).  The draws go through
    the mechanism's vector API, :meth:`~exactdp.counting.InverseCDFSampler.sample_many`
    (one ``source.inverse_cdf_many`` per batch: one OS read per batch with the default
    source; the exploring source still branches once per output of each draw), in the
    given order; when ``progress`` is given, in chunks of 1% of the elements, calling it
    after each chunk.  Nothing else is drawn, and the sequence of operations depends only
    on ``len(elements)``.
    """
    values = list(map(counts.get, elements, repeat(0, len(elements))))
    total = len(values)
    if progress is None:
        return mechanism.sample_many(values, source)
    step = max(1, total // 100)
    out: list[int] = []
    for start in range(0, total, step):
        out += mechanism.sample_many(values[start:start + step], source)
        progress(len(out), total)
    return out


def padded_draws(mechanism: InverseCDFSampler, counts: Mapping[int, int],
                 support: Sequence[int], total: int, source: RandomSource,
                 progress: Progress | None = None) -> Iterator[list[int]]:
    """The noisy counts of ``total >= len(support)`` bins, one list per chunk of
    :data:`DRAW_CHUNK` consecutive bins: bin ``i < len(support)`` is ``support[i]`` (true
    count ``counts[support[i]]``), every later bin has true count 0.

    The same draws as ``noisy_counts(mechanism, counts, [*support, 0, 0, ...], source)``
    (``total`` elements, in that order) -- chunk by chunk through ``sample_many``, so that no
    ``total``-long list is ever built.  The chunks are cut at multiples of one step,
    :data:`DRAW_CHUNK` -- or, when ``progress`` is given, ``min(DRAW_CHUNK, max(1,
    total // 100))``, calling ``progress(done, total)`` after each chunk -- whatever
    ``support`` is: the sequence of operations depends only on ``total``.
    """
    k = len(support)
    if total < k:
        raise ParameterError(f"{total} draws for {k} bins: need at least one draw per bin")
    step = DRAW_CHUNK if progress is None else min(DRAW_CHUNK, max(1, total // 100))
    for start in range(0, total, step):
        end = min(start + step, total)
        real = support[start:end] if start < k else ()
        values = list(map(counts.get, real, repeat(0, len(real))))
        values += [0] * (end - start - len(values))
        yield mechanism.sample_many(values, source)
        if progress is not None:
            progress(end, total)


def as_universe(universe: object) -> Universe:
    """``universe`` itself if it is a :class:`Universe`; a typed error otherwise (before any
    attribute of it is used)."""
    if isinstance(universe, Universe):
        return universe
    raise ParameterTypeError(f"universe = {universe!r} must be a Universe, e.g. Universe(M) "
                             f"for [1, M]")


def theorem_5_3_gamma(beta0: object, universe: Universe) -> Fraction:
    """Theorem 5.3: ``gamma = beta0 / (2|X|)`` (in ``N^{-1}`` whenever ``beta0`` is)."""
    return inverse_integer(beta0, "beta0") / (2 * as_universe(universe).size)


def theorem_5_6_gamma(beta0: object, delta: object, n: int) -> Fraction:
    """Theorem 5.6: ``gamma = min(beta0/(2n), delta/4)``; both are ``1/m``, so is the min."""
    b = inverse_integer(beta0, "beta0")
    dl = inverse_integer(delta, "delta", below_one=True)
    return min(b / (2 * positive_int(n, "n")), dl / 4)


def theorem_5_6_threshold(epsilon: object, delta: object) -> int:
    """Theorem 5.6 (FastSample): ``b = 1 + ceil(9/(2 eps) * ln(4/delta))``, certified."""
    from exactdp.histograms.accuracy import ceil_scaled_ln

    eps = inverse_integer(epsilon, "epsilon")
    dl = inverse_integer(delta, "delta", below_one=True)
    return 1 + ceil_scaled_ln(Fraction(9, 2) / eps, 4 / dl)


class BasicHistogram:
    """Algorithm 5.1, ``BasicHistogram_{M,A}(D)``: release ``(x, M(c_x(D), u_x))`` for
    every ``x`` in the fixed set ``A`` (sorted by ``x``).

    Preconditions: ``A`` is a fixed subset of ``X`` that does not depend on the data
    (Theorem 5.2's privacy needs this); ``M`` is ``(eps/2, 0)``-DP for counting queries.
    Default ``A = X`` (refused when ``|X| > MAX_BASIC_BINS``: the time is linear in ``|A|``).

    Output distribution: independent bins, ``c~_x ~ M(c_x(D), U)`` (exactly; Theorem 5.2
    ii-iii follow).  Privacy: ``(eps, 0)``-DP (Theorem 5.2 i: a neighbouring pair changes at
    most two counts by one each).
    Time: one pass to count, then exactly ``|A|`` inverse-CDF draws, each a uniform draw
    from ``[d]_+`` and ``ceil(log2(n+1))`` evaluations of ``M``'s CDF -- the same sequence
    of operations for every dataset (strict time, Theorem 5.2 iv).
    """

    def __init__(self, mechanism: InverseCDFSampler, universe: Universe,
                 elements: Iterable[int] | None = None) -> None:
        self.mechanism = check_mechanism(mechanism)
        universe = as_universe(universe)
        self.universe = universe
        if elements is None:
            if universe.size > MAX_BASIC_BINS:
                raise ResourceLimitError(
                    f"BasicHistogram over all of X needs |X| = {universe.size} noisy counts "
                    f"(limit {MAX_BASIC_BINS}); use StabilityHistogram or PureSparseHistogram "
                    f"for large universes")
            self.elements: tuple[int, ...] = tuple(universe.elements())
        else:
            chosen = sorted({universe.check(x, "element of A") for x in elements})
            if len(chosen) > MAX_BASIC_BINS:
                raise ResourceLimitError(f"|A| = {len(chosen)} exceeds {MAX_BASIC_BINS}")
            self.elements = tuple(chosen)

    @classmethod
    def with_geosample(cls, universe: Universe, n: int, epsilon: object,
                       elements: Iterable[int] | None = None) -> BasicHistogram:
        """``M = GeoSample_{n,eps}`` (Figure 3, second row)."""
        return cls(GeoSample(n, epsilon), universe, elements)

    @classmethod
    def theorem_5_3(cls, universe: Universe, n: int, epsilon: object,
                    beta0: object) -> BasicHistogram:
        """Theorem 5.3: ``M = FastSample_{n,eps,gamma}``, ``gamma = beta0/(2|X|)``, ``A = X``."""
        return cls(FastSample(n, epsilon, theorem_5_3_gamma(beta0, universe)), universe)

    @classmethod
    def for_budget(cls, universe: Universe, n: int, total_epsilon: object, beta0: object,
                   counting: str = "fastsample") -> BasicHistogram:
        """The whole histogram spends at most ``total_epsilon`` (any rational in ``(0, 1]``):
        the paper's ``eps = 1/m``, the largest ``1/m <= total_epsilon``, with Theorem 5.3's
        FastSample (or Figure 3's GeoSample); ``(eps, 0)``-DP by Theorem 5.2."""
        from exactdp.spend import histogram_epsilon_for_budget

        eps = histogram_epsilon_for_budget(total_epsilon)
        if counting == "geosample":
            return cls.with_geosample(universe, n, eps)
        if counting != "fastsample":
            raise ParameterError(f"counting = {counting!r} must be 'fastsample' or 'geosample'")
        return cls.theorem_5_3(universe, n, eps, beta0)

    @property
    def n(self) -> int:
        return self.mechanism.n

    def __repr__(self) -> str:
        return (f"BasicHistogram({self.mechanism!r}, |X| = {self.universe.size}, "
                f"|A| = {len(self.elements)})")

    def release(self, dataset: Dataset, source: RandomSource | None = None,
                progress: Progress | None = None) -> Histogram:
        """Run Algorithm 5.1 on ``dataset``; the histogram lists every ``x`` in ``A``."""
        check_mechanism(self.mechanism, dataset)
        check_universe(self.universe, dataset)
        src = default_source(source)
        noisy = noisy_counts(self.mechanism, dataset.counts(), self.elements, src, progress)
        return Histogram(self.universe, dataset.n, tuple(zip(self.elements, noisy)),
                         "BasicHistogram")


class StabilityHistogram:
    """Algorithm 5.4, ``StabilityHistogram_{M,b}(D)``: noisy counts for ``A = {x : c_x > 0}``
    (BasicHistogram over ``A``), releasing only the bins with noisy count ``> b``.

    Privacy (Theorem 5.5 i): ``(eps, delta)``-DP whenever ``delta >= 2 Pr[M(1, U) > b]``;
    :meth:`certified_delta` computes that probability exactly from ``M``'s integer CDF.
    Accuracy (Theorem 5.5 ii-iii): ``(a, beta)`` per query on counts ``> a + b``;
    ``(a + b, 1 - (1 - beta)**n)`` simultaneously.
    Output: a histogram in ``H_{n,n}(X)``, bins sorted by ``x``, every count in ``(b, n]``.
    If ``b >= n`` every release is empty (counts never exceed ``n``).

    Time (``padded=True``, the default): exactly ``n`` inverse-CDF draws whatever the data --
    the ``|A| <= n`` real ones, then ``n - |A|`` draws whose results are discarded -- so the
    sequence of operations does not depend on the number of distinct elements.  The draws
    are made in chunks of :data:`DRAW_CHUNK` (:func:`padded_draws`: cut at the same places
    for every dataset with ``n`` rows), so the memory is ``O(|A| + DRAW_CHUNK)``, not ``O(n)``.  With
    ``padded=False`` the loop runs ``|A|`` times, as printed in the paper (its time bound,
    Theorem 5.5 iv, is the worst case ``|A| = n``).  The output distribution is the same.
    """

    def __init__(self, mechanism: InverseCDFSampler, universe: Universe, threshold: int,
                 padded: bool = True) -> None:
        self.mechanism = check_mechanism(mechanism)
        universe = as_universe(universe)
        self.universe = universe
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
            raise ParameterError(f"threshold b = {threshold!r} must be an integer >= 0")
        self.threshold = threshold
        self.padded = bool(padded)

    @classmethod
    def theorem_5_6(cls, universe: Universe, n: int, epsilon: object, delta: object,
                    beta0: object, padded: bool = True) -> StabilityHistogram:
        """Theorem 5.6: ``M = FastSample_{n,eps,gamma}`` with ``gamma = min(beta0/(2n),
        delta/4)`` and ``b = 1 + ceil(9/(2 eps) ln(4/delta))``; ``(eps, delta)``-DP."""
        gamma = theorem_5_6_gamma(beta0, delta, n)
        mech = FastSample(n, epsilon, gamma)
        return cls(mech, universe, theorem_5_6_threshold(epsilon, delta), padded)

    @classmethod
    def with_geosample(cls, universe: Universe, n: int, epsilon: object, delta: object,
                       padded: bool = True) -> StabilityHistogram:
        """Figure 4, GeoSample row: ``b = 1 + ceil(9/(2 eps) ln(2/delta))``; ``(eps, delta)``-DP
        since ``Pr[GeoSample(1, U) > b] <= e^{-eps~ (b-1)/2} / 2 <= delta/4``."""
        from exactdp.histograms.accuracy import ceil_scaled_ln

        eps = inverse_integer(epsilon, "epsilon")
        dl = inverse_integer(delta, "delta", below_one=True)
        b = 1 + ceil_scaled_ln(Fraction(9, 2) / eps, 2 / dl)
        return cls(GeoSample(n, eps), universe, b, padded)

    @classmethod
    def for_budget(cls, universe: Universe, n: int, total_epsilon: object, delta: object,
                   beta0: object, counting: str = "fastsample",
                   padded: bool = True) -> StabilityHistogram:
        """The whole release spends at most ``(total_epsilon, delta)`` (``total_epsilon``
        any rational in ``(0, 1]``): the paper's ``eps = 1/m``, the largest ``1/m <=
        total_epsilon``, with Theorem 5.6's parameters (or Figure 4's GeoSample row)."""
        from exactdp.spend import histogram_epsilon_for_budget

        eps = histogram_epsilon_for_budget(total_epsilon)
        if counting == "geosample":
            return cls.with_geosample(universe, n, eps, delta, padded)
        if counting != "fastsample":
            raise ParameterError(f"counting = {counting!r} must be 'fastsample' or 'geosample'")
        return cls.theorem_5_6(universe, n, eps, delta, beta0, padded)

    @property
    def n(self) -> int:
        return self.mechanism.n

    def __repr__(self) -> str:
        return (f"StabilityHistogram({self.mechanism!r}, b = {self.threshold}, "
                f"|X| = {self.universe.size}, padded = {self.padded})")

    def certified_delta(self) -> Fraction:
        """``2 Pr[M(1, U) > b] = 2 (d - F_1(b)) / d`` exactly: the smallest ``delta`` for
        which Theorem 5.5 i proves ``(eps, delta)``-DP with this ``M`` and ``b``.

        The factor 2 is slack on every grid of ``proofs/balcer_vadhan/thm_5_05_stability.py``: the exact
        worst hockey-stick divergence there is exactly half of this, ``Pr[M(1, U) > b]``
        (of the two bins a neighbouring pair changes, only the one going from count 0 to 1,
        or 1 to 0, can be released on one side only)."""
        num, den = self._tail
        return Fraction(2 * num, den)

    @cached_property
    def _tail(self) -> tuple[int, int]:
        """``(d - F_1(b), d)``: ``Pr[M(1, U) > b]`` as an unreduced pair of integers."""
        mech = self.mechanism
        if self.threshold >= mech.n:
            return 0, 1
        return mech.d - mech.cdf(1, self.threshold), mech.d

    def delta_at_most(self, delta: Fraction) -> bool:
        """Whether ``2 Pr[M(1, U) > b] <= delta`` (Theorem 5.5 i's hypothesis), decided by
        one integer comparison: no reduction of fractions whose terms have millions of bits
        (``d`` of FastSample at ``n = 10^9``)."""
        num, den = self._tail
        return 2 * num * delta.denominator <= delta.numerator * den

    def certified_delta_upper(self, bits: int = 64) -> Fraction:
        """A dyadic upper bound on :meth:`certified_delta` within a relative ``2^-bits`` of
        it (rounded up, never down): cheap to print when ``d`` has millions of bits."""
        num, den = self._tail
        if num == 0:
            return Fraction(0)
        shift = max(0, den.bit_length() - num.bit_length() + bits)
        return Fraction(-(-(2 * num << shift) // den), 1 << shift)

    def release(self, dataset: Dataset, source: RandomSource | None = None,
                progress: Progress | None = None) -> Histogram:
        """Run Algorithm 5.4 on ``dataset``."""
        check_mechanism(self.mechanism, dataset)
        check_universe(self.universe, dataset)
        src = default_source(source)
        counts = dataset.counts()
        # A in the order of first appearance: the bins get independent noise, so the order
        # of the draws changes nothing in the output's distribution, and only the released
        # bins (count > b, few) need sorting -- not all |A| <= n of them.
        support = list(counts)
        # Padded: n - |A| extra bins of true count 0 after A, drawn in chunks of DRAW_CHUNK
        # and discarded chunk by chunk (memory O(|A| + DRAW_CHUNK), not O(n)).  Of the real
        # bins, only those above b are kept.
        total = dataset.n if self.padded else len(support)
        b = self.threshold
        kept: list[tuple[int, int]] = []
        done = 0
        for chunk in padded_draws(self.mechanism, counts, support, total, src, progress):
            if done < len(support):
                kept += [(x, c) for x, c in zip(support[done:done + len(chunk)], chunk)
                         if c > b]
            done += len(chunk)
        return Histogram(self.universe, dataset.n, tuple(sorted(kept)), "StabilityHistogram")


def check_universe(universe: Universe, dataset: Dataset) -> None:
    """The dataset must be over the algorithm's universe."""
    if dataset.universe is not universe and dataset.universe != universe:
        raise ParameterError(f"the dataset's universe [1, {dataset.universe.size}] differs "
                             f"from the algorithm's [1, {universe.size}]")
