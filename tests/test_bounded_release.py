"""Bounded memory of the padded StabilityHistogram release, and the early refusal of
pure-sparse plans whose ``s`` is too large (issue 15: a 10^8-row release in bounded memory).

* The padded release draws its ``n`` noisy counts in chunks of ``DRAW_CHUNK``
  (:func:`exactdp.histograms.basic.padded_draws`) instead of building ``n``-long lists: with
  a seeded source its output is identical to the old unchunked computation (reconstructed
  here from public pieces: ``sample_many`` over ``support + [0] * (n - |A|)``), and its calls
  of ``sample_many`` have sizes that depend on ``n`` only, each at most ``DRAW_CHUNK``.
* :func:`exactdp.histograms.sparse.pure_sparse_delta` refuses from a lower bound on the bit
  length of ``s`` (:func:`pure_sparse_s_bits_at_least`), before ``(3|X|)^n`` is formed.

Each check is also run against a planted bug and must catch it.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest

from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms import basic
from exactdp.histograms.basic import DRAW_CHUNK, StabilityHistogram, padded_draws
from exactdp.histograms.counts_source import CountedDataset
from exactdp.histograms.data import Dataset, Histogram, Universe
from exactdp.histograms.sparse import (
    SPARSE_MAX_S_BITS,
    SparseHistogram,
    pure_sparse_delta,
    pure_sparse_s_bits_at_least,
)
from exactdp.params import ResourceLimitError
from exactdp.randomness import RandomSource, SeededSource


def _seeded(seed: int) -> SeededSource:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SeededSource(seed)


def old_release(alg: StabilityHistogram, data: Dataset, source: RandomSource) -> Histogram:
    """The release as it was before the chunking: one ``sample_many`` over the ``|A|`` real
    counts followed by ``n - |A|`` zeros (padded), keeping the real bins above ``b``."""
    counts = data.counts()
    support = list(counts)
    values = [counts[x] for x in support]
    if alg.padded:
        values += [0] * (data.n - len(support))
    noisy = alg.mechanism.sample_many(values, source)
    bins = tuple(sorted((x, c) for x, c in zip(support, noisy) if c > alg.threshold))
    return Histogram(alg.universe, data.n, bins, "StabilityHistogram")


def matches_old(alg: StabilityHistogram, data: Dataset, seeds: Sequence[int]) -> bool:
    """Whether the release equals :func:`old_release` for every seed (same bins, same
    counts, same JSON bytes)."""
    for seed in seeds:
        new = alg.release(data, _seeded(seed))
        old = old_release(alg, data, _seeded(seed))
        if new.bins != old.bins or repr(new.to_json()) != repr(old.to_json()):
            return False
    return True


def _datasets(universe: Universe) -> list[Dataset]:
    return [
        Dataset.of(universe, [1] * 9 + [2]),                       # |A| = 2, n = 10
        Dataset.of(universe, [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]),   # |A| = 7, n = 11
        Dataset.of(universe, list(range(1, 13))),                  # |A| = n = 12
        CountedDataset(universe, {7: 5, 2: 1, 11: 3}),             # counted, n = 9
    ]


@pytest.mark.parametrize("chunk", [1, 3, 4, 5, DRAW_CHUNK])
@pytest.mark.parametrize("padded", [True, False])
def test_chunked_release_equals_the_old_unchunked_one(monkeypatch: pytest.MonkeyPatch,
                                                       chunk: int, padded: bool) -> None:
    """Chunks smaller than |A|, straddling the end of A, larger than n: the seeded output
    is the same as the old code's, for GeoSample and FastSample and low thresholds (so that
    bins are released)."""
    monkeypatch.setattr(basic, "DRAW_CHUNK", chunk)
    universe = Universe(20)
    for data in _datasets(universe):
        mechs: list[InverseCDFSampler] = [GeoSample(data.n, 1),
                                          FastSample(data.n, Fraction(1, 2), Fraction(1, 100))]
        for mech in mechs:
            for b in (0, 2, 5):
                alg = StabilityHistogram(mech, universe, b, padded=padded)
                assert matches_old(alg, data, seeds=range(4)), (chunk, data, mech, b)
                with_progress = alg.release(data, _seeded(9), lambda done, total: None)
                assert with_progress == old_release(alg, data, _seeded(9))


def test_chunked_release_equals_the_old_one_across_a_real_chunk_boundary() -> None:
    """The real DRAW_CHUNK: n = DRAW_CHUNK + 37 rows, |A| = DRAW_CHUNK + 5 (A ends inside
    the second chunk), FastSample, b = 1 (many bins released)."""
    n, k = DRAW_CHUNK + 37, DRAW_CHUNK + 5
    counts = {x: 1 for x in range(2, k + 1)}
    counts[1] = n - (k - 1)
    universe = Universe(2**64)
    data = CountedDataset(universe, counts, n)
    alg = StabilityHistogram(FastSample(n, Fraction(1, 2), Fraction(1, 100)), universe, 1)
    assert matches_old(alg, data, seeds=[5])
    assert len(alg.release(data, _seeded(5))) > 1000


def test_equality_check_catches_a_planted_reordering(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted bug: the padding drawn before the real bins (same distribution, other bytes
    with a seeded source) -- :func:`matches_old` must say no."""
    real = basic.padded_draws

    def padding_first(mechanism, counts, support, total, source, progress=None):  # type: ignore[no-untyped-def]
        k = len(support)
        pad = mechanism.sample_many([0] * (total - k), source)
        out = mechanism.sample_many([counts[x] for x in support], source)
        yield out + pad

    monkeypatch.setattr(basic, "padded_draws", padding_first)
    universe = Universe(20)
    data = Dataset.of(universe, [1] * 9 + [2])
    alg = StabilityHistogram(GeoSample(data.n, 1), universe, 0)
    assert not matches_old(alg, data, seeds=range(4))
    monkeypatch.setattr(basic, "padded_draws", real)
    assert matches_old(alg, data, seeds=range(4))


# ------------------------------------------------------------- bounded, data-independent draws


def draw_sizes(release: Callable[[Dataset, RandomSource], Histogram],
               mech: InverseCDFSampler, data: Dataset) -> list[int]:
    """The sizes of the ``sample_many`` calls ``release`` makes (spied on ``mech``)."""
    sizes: list[int] = []
    real = mech.sample_many

    def spy(values: Sequence[int], source: RandomSource | None = None) -> list[int]:
        sizes.append(len(values))
        return real(values, source)

    mech.sample_many = spy  # type: ignore[method-assign, assignment]
    try:
        release(data, _seeded(0))
    finally:
        del mech.sample_many
    return sizes


def bounded_and_oblivious(release_of: Callable[[StabilityHistogram],
                                               Callable[[Dataset, RandomSource], Histogram]],
                          chunk: int) -> bool:
    """Whether, for datasets of n = 11 rows with |A| = 1, 5 and 11, the padded release makes
    ``sample_many`` calls of the same sizes, each at most ``chunk``, n draws in all."""
    universe = Universe(50)
    n = 11
    datasets = [Dataset.of(universe, [4] * n),
                Dataset.of(universe, [1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5]),
                Dataset.of(universe, list(range(30, 30 + n)))]
    seen = []
    for data in datasets:
        mech = GeoSample(n, 1)
        alg = StabilityHistogram(mech, universe, 2)
        sizes = draw_sizes(release_of(alg), mech, data)
        if sum(sizes) != n or max(sizes) > chunk:
            return False
        seen.append(sizes)
    return all(s == seen[0] for s in seen)


def test_padded_draws_are_chunked_and_depend_on_n_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(basic, "DRAW_CHUNK", 4)
    assert bounded_and_oblivious(lambda alg: alg.release, 4)


def test_the_chunk_check_catches_the_old_unchunked_release(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted bugs: the old release (one call of n draws) and a chunking cut relative to
    the end of A (sizes depend on |A|) must both fail the check."""
    monkeypatch.setattr(basic, "DRAW_CHUNK", 4)
    assert not bounded_and_oblivious(lambda alg: lambda d, s: old_release(alg, d, s), 4)

    def cut_at_a(alg: StabilityHistogram) -> Callable[[Dataset, RandomSource], Histogram]:
        def run(data: Dataset, source: RandomSource) -> Histogram:
            counts = data.counts()
            support = list(counts)
            for i in range(0, len(support), 4):
                alg.mechanism.sample_many([counts[x] for x in support[i:i + 4]], source)
            for i in range(len(support), data.n, 4):
                alg.mechanism.sample_many([0] * min(4, data.n - i), source)
            return Histogram(alg.universe, data.n, (), "StabilityHistogram")
        return run

    assert not bounded_and_oblivious(cut_at_a, 4)


def test_padded_draws_progress_and_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``progress``: chunks of min(DRAW_CHUNK, max(1, n // 100)), ``progress(done,
    total)`` after each, ending at ``total``; fewer draws than bins is refused."""
    calls: list[tuple[int, int]] = []
    mech = GeoSample(3, 1)
    chunks = list(padded_draws(mech, {1: 3}, [1], 3, _seeded(1),
                               lambda d, t: calls.append((d, t))))
    assert [len(c) for c in chunks] == [1, 1, 1] and calls == [(1, 3), (2, 3), (3, 3)]
    monkeypatch.setattr(basic, "DRAW_CHUNK", 128)
    mech = GeoSample(1000, 1)
    calls.clear()
    chunks = list(padded_draws(mech, {1: 1000}, [1], 1000, _seeded(1),
                               lambda d, t: calls.append((d, t))))
    assert [len(c) for c in chunks] == [10] * 100 and calls[-1] == (1000, 1000)
    chunks = list(padded_draws(mech, {1: 1000}, [1], 1000, _seeded(1)))
    assert [len(c) for c in chunks] == [128] * 7 + [104]
    with pytest.raises(basic.ParameterError, match="at least one draw per bin"):
        list(padded_draws(mech, {1: 1, 2: 2}, [1, 2], 1, _seeded(1)))


def test_release_holds_no_n_long_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """With DRAW_CHUNK = 8, the largest list handed to ``sample_many`` while releasing
    n = 3000 rows of 2 distinct elements has 8 entries (the old code: 3000)."""
    monkeypatch.setattr(basic, "DRAW_CHUNK", 8)
    universe = Universe(2**64)
    data = CountedDataset(universe, {10: 2000, 2**63: 1000})
    mech = FastSample(3000, Fraction(1, 2), Fraction(1, 100))
    alg = StabilityHistogram(mech, universe, 3)
    assert max(draw_sizes(alg.release, mech, data)) == 8
    assert max(draw_sizes(lambda d, s: old_release(alg, d, s), mech, data)) == 3000


# ------------------------------------------------------------------ pure-sparse: early refusal


@pytest.mark.parametrize("size", [5, 6, 7, 8, 2**10 - 1, 2**10, 2**64])
@pytest.mark.parametrize("eps, beta1", [(Fraction(1), Fraction(1, 2)),
                                        (Fraction(1, 10), Fraction(1, 80)),
                                        (Fraction(1, 3), Fraction(1, 7))])
def test_s_bits_lower_bound_is_exact_and_tight(size: int, eps: Fraction,
                                               beta1: Fraction) -> None:
    """The bound is at most SparseHistogram's real ``s.bit_length()`` and within ``n + 3``
    of it, for n from 1 to 40 (s computed in full)."""
    universe = Universe(size)
    for n in range(1, 41):
        low = pure_sparse_s_bits_at_least(eps, beta1, size, n)
        delta = pure_sparse_delta(eps, beta1, size, n)
        assert delta.numerator == 1
        s = SparseHistogram(GeoSample(n, eps), universe, delta).s
        assert s == (n * n + 2 * n) * size * delta.denominator
        assert low <= s.bit_length() < low + n + 3, (size, eps, beta1, n)


def test_s_bits_check_catches_an_overestimate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted bug: the bound without its ``- len(factors)`` correction exceeds the true
    bit length for some n (so it would refuse releases SparseHistogram accepts)."""
    size, eps, beta1 = 7, Fraction(1), Fraction(1, 2)

    def over(n: int) -> int:
        return pure_sparse_s_bits_at_least(eps, beta1, size, n) + 3

    bad = [n for n in range(1, 41)
           if over(n) > SparseHistogram(GeoSample(n, eps), Universe(size),
                                        pure_sparse_delta(eps, beta1, size, n)).s.bit_length()]
    assert bad


def largest_int_bits(fn: Callable[[], object]) -> int:
    """Run ``fn`` (expected to raise ResourceLimitError) under a tracer that records the bit
    length of every int, and of every Fraction's denominator, held in a local variable or
    returned by a function while it runs."""
    biggest = [0]

    def see(v: object) -> None:
        if isinstance(v, int):
            biggest[0] = max(biggest[0], v.bit_length())
        elif isinstance(v, Fraction):
            den = getattr(v, "_denominator", 0)  # absent while Fraction.__new__ runs
            biggest[0] = max(biggest[0], den.bit_length())

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "return":
            see(arg)
        elif event == "line":
            for v in frame.f_locals.values():
                see(v)
        return tracer

    sys.settrace(tracer)
    try:
        with pytest.raises(ResourceLimitError):
            fn()
    finally:
        sys.settrace(None)
    return biggest[0]


def test_pure_sparse_refusal_at_ten_million_rows_builds_no_big_integer() -> None:
    """n = 10^7 over 2^64 (README: refused only after 7 min before): refused with a
    ResourceLimitError naming s's bit count, and no integer of 128 bits or more is formed
    on the way (so the refusal is immediate whatever n is)."""
    n, size = 10**7, 2**64
    eps, beta1 = Fraction(1, 10), Fraction(1, 20)
    low = pure_sparse_s_bits_at_least(eps, beta1, size, n)
    # n^2 + 2n, |X|, 3 e g = 600 and n (bits(3|X|) - 1) + 1, less one bit per factor
    assert low == (n * n + 2 * n).bit_length() + 65 + 10 + n * 65 + 1 - 3
    with pytest.raises(ResourceLimitError) as info:
        pure_sparse_delta(eps, beta1, size, n)
    assert f"at least {low} bits (limit {SPARSE_MAX_S_BITS})" in str(info.value)
    assert "StabilityHistogram" in str(info.value)
    assert largest_int_bits(lambda: pure_sparse_delta(eps, beta1, size, n)) < 128
    assert largest_int_bits(lambda: pure_sparse_delta(eps, beta1, size, 40_000)) < 128


def test_the_big_integer_trace_catches_powering_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted bug: the bound computed from ``(3|X|)^n`` itself (the old order: power, then
    check) -- the same trace sees an integer past the limit at n = 40,000."""
    from exactdp.histograms import sparse

    def powering(epsilon: Fraction, beta1: Fraction, size: int, n: int) -> int:
        den = (epsilon / 3 * beta1 * Fraction(1, 3 * size) ** n).denominator
        return ((n * n + 2 * n) * size * den).bit_length()

    monkeypatch.setattr(sparse, "pure_sparse_s_bits_at_least", powering)
    eps, beta1, size = Fraction(1, 10), Fraction(1, 20), 2**64
    assert largest_int_bits(lambda: sparse.pure_sparse_delta(eps, beta1, size, 40_000)) \
        > SPARSE_MAX_S_BITS


def test_boundary_of_the_early_refusal() -> None:
    """The largest n the bound accepts over 2^64 is computed exactly; one more row is
    refused, and SparseHistogram's full s there is indeed past the limit."""
    eps, beta1, size = Fraction(1, 10), Fraction(1, 20), 2**64
    n = SPARSE_MAX_S_BITS // 65
    while pure_sparse_s_bits_at_least(eps, beta1, size, n) > SPARSE_MAX_S_BITS:
        n -= 1
    delta = pure_sparse_delta(eps, beta1, size, n)
    assert delta == eps / 3 * beta1 / (3 * size) ** n
    with pytest.raises(ResourceLimitError, match="StabilityHistogram"):
        pure_sparse_delta(eps, beta1, size, n + 1)
    s = (n + 1) * (n + 3) * size * (eps / 3 * beta1 / (3 * size) ** (n + 1)).denominator
    assert s.bit_length() > SPARSE_MAX_S_BITS
