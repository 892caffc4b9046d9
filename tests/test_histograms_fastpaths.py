"""The plain-int fast paths of the histogram data model (exactdp.histograms.data): the
same checks as the general path, the same values, and the typed errors of the general
path when a check fails."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import exactdp.histograms.data as data_mod
from exactdp.histograms.data import Dataset, Histogram, Universe
from exactdp.histograms.distinct import distinct_sample
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import SeededSource

try:  # numpy comes with the [plot] extra; the cases with numpy integers skip without it
    import numpy as np
except ImportError:
    np = None

U = Universe(10)

GOOD = [((1, 0), (4, 3), (10, 5)), (), ((2, 5),), [[1, 2], (3, 0)],
        pytest.param(((np.int64(2), 1), (3, np.int32(2))) if np is not None else (),
                     marks=pytest.mark.skipif(np is None, reason="needs numpy"),
                     id="numpy-integers")]
BAD = [(((1, 1), (1, 2)), DomainError), (((3, 1), (2, 1)), DomainError),
       (((0, 1),), DomainError), (((11, 1),), DomainError), (((2, 6),), DomainError),
       (((2, -1),), DomainError), (((2, 1.0),), ParameterTypeError),
       (((2.0, 1),), ParameterTypeError), (((1, 2, 3),), ParameterTypeError),
       (((1, True),), ParameterTypeError), (((True, 1),), ParameterTypeError)]


def _slow(bins: object) -> tuple[tuple[int, int], ...]:
    """The general path's value: every pair converted to (int, int)."""
    return tuple((int(x), int(c)) for x, c in bins)  # type: ignore[attr-defined]


@pytest.mark.parametrize("bins", GOOD)
def test_histogram_values(bins: object) -> None:
    h = Histogram(U, 5, bins)  # type: ignore[arg-type]
    assert h.bins == _slow(bins)
    assert all(type(x) is int and type(c) is int for x, c in h.bins)
    assert h._index == tuple(x for x, _ in h.bins)
    assert [h.count(x) for x in range(1, 11)] == [dict(h.bins).get(x, 0) for x in range(1, 11)]


@pytest.mark.parametrize(("bins", "error"), BAD)
def test_histogram_errors(bins: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        Histogram(U, 5, bins)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [0, -1, True, 2.0, Fraction(2)])
def test_histogram_bad_n(n: object) -> None:
    with pytest.raises((ParameterError, ParameterTypeError)):
        Histogram(U, n, ())  # type: ignore[arg-type]


def test_from_counts_sorts_by_element() -> None:
    h = Histogram.from_counts(U, 5, {7: 1, 2: 5, 9: 0})
    assert h.bins == ((2, 5), (7, 1), (9, 0))
    text_count: dict[int, Any] = {2: "1"}
    with pytest.raises(ParameterTypeError):
        Histogram.from_counts(U, 5, text_count)


def test_from_counts_takes_numpy_integer_keys() -> None:
    numpy = pytest.importorskip("numpy")
    numpy_keys: dict[Any, int] = {numpy.int64(7): 1, 2: 5}
    assert Histogram.from_counts(U, 5, numpy_keys).bins == ((2, 5), (7, 1))


def test_planted_fast_path_bug_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # the fast path accepting a repeated element (<= for <) would let a histogram list an
    # element twice: the error tests above catch it
    from _plant import plant

    plant(monkeypatch, data_mod, "_plain_bins", "not prev < x", "not prev <= x")
    with pytest.raises(pytest.fail.Exception):
        test_histogram_errors(((1, 1), (1, 2)), DomainError)


def test_dataset_counts_fresh_dict_each_call() -> None:
    d = Dataset.of(U, (3, 1, 3, 2))
    c = d.counts()
    assert c == {3: 2, 1: 1, 2: 1} and list(c) == [3, 1, 2]
    c[3] = 99
    assert d.counts() == {3: 2, 1: 1, 2: 1}


def test_distinct_sample_universe_arg() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src = SeededSource(1)
    assert len(set(distinct_sample(10, (), 4, src))) == 4
    assert len(distinct_sample(Fraction(10), (), 4, src)) == 4  # type: ignore[arg-type]
    for bad in (0, -3, True, 2.5):
        with pytest.raises((ParameterError, ParameterTypeError)):
            distinct_sample(bad, (), 1, src)  # type: ignore[arg-type]


def test_relabel_identity_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    from test_histograms_proofs import test_canonical_form_and_relabelling as test_relabel

    import exactdp.proofs._histograms as hist

    dist = {((1, 1), (4, 2)): Fraction(1, 2), (): Fraction(1, 2)}
    same = hist.relabel(dist, {1: 1, 2: 2, 3: 3, 4: 4})
    assert same == dist and same is not dist and list(same) == list(dist)
    test_relabel()  # a non-identity permutation
    from _plant import plant

    plant(monkeypatch, hist, "relabel", "if all(x == y for", "if any(x == y for")
    with pytest.raises(AssertionError):
        test_relabel()


def test_keep_heaviest_sorts_and_refuses_repeated_candidates() -> None:
    from exactdp.histograms.sparse import keep_heaviest

    h = keep_heaviest(U, 2, [(7, 2), (2, 2), (9, 0), (4, 1)], "t")
    assert h.bins == ((2, 2), (7, 2)) and h.algorithm == "t"  # above the 3rd heaviest, 1
    with pytest.raises(DomainError):  # one element twice: never silently merged
        keep_heaviest(U, 2, [(1, 2), (1, 2), (2, 0), (3, 0)], "t")
