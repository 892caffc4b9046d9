"""Issue 9 regressions for the Python API: a value of the wrong type is a typed error
(a subclass of :class:`~exactdp.params.ExactDPError` and of ``TypeError``/``ValueError``),
never a silently wrong answer (a float probability, a rounded draw, an irreproducible
"seeded" source) and never a bare Python exception from deep inside.

Found by a red-team run over the API (see the issue); each test names what used to happen.
"""

from __future__ import annotations

import random
import warnings
from fractions import Fraction
from typing import Any

import gmpy2
import pytest

from exactdp.audit import blackbox_audit, whitebox_audit
from exactdp.counting import GeometricMechanism, GeoSample, TabulatedMechanism, inverse_cdf_search
from exactdp.params import ExactDPError
from exactdp.randomness import CallableSource, SeededSource, SystemSource


def typed(exc: pytest.ExceptionInfo[BaseException]) -> None:
    assert isinstance(exc.value, ExactDPError)
    assert isinstance(exc.value, (TypeError, ValueError))
    assert "\n" not in str(exc.value)


# ---------------------------------------------------------------- counting mechanisms

@pytest.mark.parametrize("z", [1.5, 2.0, True, "2", None, Fraction(3, 2)])
def test_geometric_pmf_and_cdf_refuse_a_non_int_outcome(z: object) -> None:
    # pmf(3, 1.5) returned the float 0.1178... and cdf(3, 2.5) the float 0.4714...;
    # pmf(3, True) returned Pr[M = 1] for the outcome True.
    mech = GeometricMechanism(10, "1/2")
    for method in (mech.pmf, mech.cdf):
        with pytest.raises(TypeError, match="z = ") as exc:
            method(3, z)  # type: ignore[arg-type]
        typed(exc)


def test_geometric_pmf_is_exact_on_ints() -> None:
    # Algorithm 4.5 at alpha = 1/2: (1 - a)/(1 + a) a^|z - c| = (1/2)/(3/2) * 1/2.
    mech = GeometricMechanism(10, "1/2")
    assert mech.pmf(3, 2) == Fraction(1, 6)
    assert mech.pmf(3, -1) == 0 and mech.cdf(3, 11) == 1


@pytest.mark.parametrize("u", [2.5, 2.0, True, "2", None])
def test_inverse_cdf_search_refuses_a_non_int_draw(u: object) -> None:
    # inverse_cdf_search(F, 4, 2.5) returned 3: a draw of 2.5 is no draw from [d]_+.
    with pytest.raises(TypeError, match="u = ") as exc:
        inverse_cdf_search(lambda z: z, 4, u)  # type: ignore[arg-type]
    typed(exc)


def test_inverse_cdf_search_takes_gmpy2_integers() -> None:
    assert inverse_cdf_search(lambda z: z + 1, 4, gmpy2.mpz(3)) == 2


@pytest.mark.parametrize("table", [None, 5, "12", ["12", "12"], b"12"])
def test_tabulated_mechanism_refuses_a_table_that_is_not_rows(table: object) -> None:
    # TabulatedMechanism(None) raised "TypeError: 'NoneType' object is not iterable".
    with pytest.raises(TypeError, match="table = ") as exc:
        TabulatedMechanism(table)  # type: ignore[arg-type]
    typed(exc)


# ---------------------------------------------------------------- randomness

@pytest.mark.parametrize("seed", [None, 1.5, True, [1], object(), Fraction(1, 2)])
def test_seeded_source_refuses_seeds_that_are_not_reproducible_or_exact(seed: object) -> None:
    # SeededSource(None) was accepted and seeded from the OS: a "reproducible" source that
    # is not; SeededSource([1]) raised random's own multi-line TypeError.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="seed = ") as exc:
            SeededSource(seed)  # type: ignore[arg-type]
    typed(exc)


def test_seeded_source_is_reproducible_for_its_seed_types() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in (7, "seven", b"7"):
            a, b = SeededSource(seed), SeededSource(seed)
            assert [a.uniform(10**30) for _ in range(5)] == [b.uniform(10**30) for _ in range(5)]


@pytest.mark.parametrize("fn", [5, "f", None, int])
def test_callable_source_needs_a_function(fn: object) -> None:
    # CallableSource(5) was accepted; the first draw raised "'int' object is not callable".
    with pytest.raises(TypeError, match="CallableSource") as exc:
        CallableSource(fn)  # type: ignore[arg-type]
    typed(exc)


@pytest.mark.parametrize(("num", "den"), [(1.5, 2), (True, 2), (1, 2.0), ("1", 2)])
def test_bernoulli_takes_an_exact_probability(num: object, den: object) -> None:
    # bernoulli(1.5, 2) returned True or False: a coin of probability 3/4 drawn as uniform(2)
    # <= 1.5, i.e. always True -- silently wrong.
    with pytest.raises(TypeError, match="bernoulli") as exc:
        SystemSource().bernoulli(num, den)  # type: ignore[arg-type]
    typed(exc)


def test_a_raising_user_function_propagates_unchanged() -> None:
    # The user's own exception is theirs: not wrapped, not swallowed.
    with pytest.raises(ZeroDivisionError):
        GeoSample(10, "1/2").sample(3, CallableSource(lambda d: 1 // 0))


# ---------------------------------------------------------------- audit

@pytest.mark.parametrize("mechanism", [5, "f", None, random.Random(1)])
def test_audits_refuse_a_mechanism_that_is_not_callable(mechanism: Any) -> None:
    # whitebox_audit(5, ...) and blackbox_audit(5, ...) returned a report with verdict
    # "broken": a mechanism that was never audited, reported as audited.
    with pytest.raises(TypeError, match="not callable") as exc:
        whitebox_audit(mechanism, inputs=range(2), claimed_epsilon=1, d=2)
    typed(exc)
    with pytest.raises(TypeError, match="not callable") as exc:
        blackbox_audit(mechanism, inputs=range(4), claimed_epsilon=1, draws=10)
    typed(exc)


# ---------------------------------------------------------------- histogram data: labels

def _code_by_definition(data: bytes) -> int:
    # x(b) = 1 + sum_{i=1}^{L} (b_i + 1) * 256**(L - i), written out from the definition.
    length = len(data)
    return 1 + sum((b + 1) * 256 ** (length - i) for i, b in enumerate(data, start=1))


@pytest.mark.parametrize("size", [1, 2, 257, 258, 65793, 65794, 2**64, 2**64 + 5, 2**512 - 1,
                                  2**512, _code_by_definition(b"\x00" * 65) - 1,
                                  _code_by_definition(b"\x00" * 65), 2**520])
def test_encode_label_refuses_exactly_the_labels_beyond_m(size: int) -> None:
    # The length pre-check (no big integer built for a hopeless label, past 64 bytes) must
    # refuse exactly the labels with x(b) > M, at every boundary.
    from exactdp.histograms.data import LabelTooLongError, encode_label
    for length in (*range(10), 64, 65, 66):
        for data in (b"\x00" * length, b"\xff" * length, bytes(range(length))):
            code = _code_by_definition(data)
            if code <= size:
                assert encode_label(data, size) == code
            else:
                with pytest.raises(LabelTooLongError) as exc:
                    encode_label(data, size)
                typed(exc)


@pytest.mark.parametrize("length", [5000, 200_000, 10_000_000])
def test_a_long_label_is_refused_fast_with_a_short_message(length: int) -> None:
    # encode_label was quadratic: a 10 MB label took > 100 s, 200,000 bytes > 60 s, and at
    # 5000 bytes the message printed x and hit int->str's 4300-digit limit (an untyped
    # ValueError); from the CLI a 5,000-byte label gave a 30 KB error line.
    import time

    from exactdp.histograms.data import Dataset, LabelTooLongError
    start = time.monotonic()
    with pytest.raises(LabelTooLongError, match=f"label 2 = .* of {length} bytes") as exc:
        Dataset.from_labels(2**64, ["ok", "a" * length])
    assert time.monotonic() - start < 5
    typed(exc)
    assert len(str(exc.value)) < 400


def test_a_label_beyond_a_huge_universe_is_described_by_bits() -> None:
    # M and x beyond 4300 decimal digits: printing either raised ValueError.
    from exactdp.histograms.data import LabelTooLongError, encode_label, label_capacity
    size = 10**6000
    for length, shown in ((2492, "codes to an integer of 19937 bits"),
                          (2493, "code exceeds 2[*][*]19936")):
        with pytest.raises(LabelTooLongError, match=shown) as exc:
            encode_label(b"\xff" * length, size)
        typed(exc)
        assert len(str(exc.value)) < 400
    assert (256 ** (label_capacity(size) + 1) - 1) // 255 <= size
    assert (256 ** (label_capacity(size) + 2) - 1) // 255 > size


@pytest.mark.parametrize("label", ["\ud800", "ab\udc00x"])
def test_a_lone_surrogate_label_is_a_typed_error_naming_its_position(label: str) -> None:
    # Dataset.from_labels(2**64, ['\ud800']) raised UnicodeEncodeError.
    from exactdp.histograms.data import Dataset
    with pytest.raises(ValueError, match="label 3 = .*not valid Unicode") as exc:
        Dataset.from_labels(2**64, ["a", "b", label])
    typed(exc)


# ---------------------------------------------------------------- histogram data: containers

@pytest.mark.parametrize("rows", [{1: 2}, {1: 1, 2: 5}])
def test_a_mapping_is_not_a_dataset(rows: dict[int, int]) -> None:
    # Dataset.of(10, {1: 2}) silently returned the rows (1,): the counts were dropped.
    from exactdp.histograms.data import Dataset
    with pytest.raises(TypeError, match="mapping.*Histogram.from_counts") as exc:
        Dataset.of(10, rows)
    typed(exc)


@pytest.mark.parametrize("counts", [[(1, 1)], ((1, 1), (2, 1)), "1", 5, None])
def test_histogram_from_counts_wants_a_mapping(counts: object) -> None:
    # Histogram.from_counts(U, 3, [(1, 1)]) raised AttributeError.
    from exactdp.histograms.data import Histogram, Universe
    with pytest.raises(TypeError, match="counts = .* must be a mapping element -> count") as exc:
        Histogram.from_counts(Universe(10), 3, counts)  # type: ignore[arg-type]
    typed(exc)


def test_histogram_from_counts_refuses_unsortable_elements() -> None:
    # {1: 1, "a": 1} raised TypeError from sorted() ('<' between str and int).
    from exactdp.histograms.data import Histogram, Universe
    with pytest.raises(TypeError, match="element = 'a'") as exc:
        Histogram.from_counts(Universe(10), 3, {1: 1, "a": 1})  # type: ignore[dict-item]
    typed(exc)
    assert Histogram.from_counts(Universe(10), 3, {5: 1, 2: 2}).bins == ((2, 2), (5, 1))


# ---------------------------------------------------------------- sparse: uniform branch

@pytest.mark.parametrize(("universe", "n", "match"), [
    (None, 2.5, "n = 2.5 is a float"),      # raised TypeError from range()
    (None, True, "n = True"),
    (None, 0, "n = 0 must be a positive integer"),
    ("x", 3, "universe size M"),
    (2.0, 3, "universe size M = 2.0 is a float"),
])
def test_uniform_sparse_histogram_validates_its_arguments(universe: object, n: object,
                                                          match: str) -> None:
    from exactdp.histograms.data import Universe
    from exactdp.histograms.sparse import uniform_sparse_histogram
    u = Universe(100) if universe is None else universe
    with pytest.raises((TypeError, ValueError), match=match) as exc:
        uniform_sparse_histogram(u, n, SeededSource(1))  # type: ignore[arg-type]
    typed(exc)


def test_uniform_sparse_histogram_takes_a_universe_size() -> None:
    # uniform_sparse_histogram(100, 3) raised AttributeError ('int' has no attribute 'size').
    from exactdp.histograms.data import Universe
    from exactdp.histograms.sparse import uniform_sparse_histogram
    h = uniform_sparse_histogram(100, 3, SeededSource(7))
    assert h == uniform_sparse_histogram(Universe(100), 3, SeededSource(7))
    assert h.universe == Universe(100) and h.n == 3


# ---------------------------------------------------------------- compact release

@pytest.mark.parametrize(("coefficients", "error", "match"), [
    ((Fraction(3, 2),) * 7, TypeError, r"coefficients\[0\] = Fraction"),
    ((0,) * 6 + (1.5,), TypeError, r"coefficients\[6\] = 1.5"),  # was accepted
    ((0, True) + (0,) * 5, TypeError, r"coefficients\[1\] = True"),
    ((0, 0, -1) + (0,) * 4, ValueError, r"coefficients\[2\] = -1 is not an element"),
    ((0,) * 6 + (2**1458,), ValueError, r"coefficients\[6\] = .* not an element of GF"),
])
def test_compact_release_coefficients_are_field_elements(coefficients: tuple[Any, ...],
                                                         error: type[Exception],
                                                         match: str) -> None:
    # CompactRelease(10, 6, 6, (1.5,)*7, GeoSample(6, '1/2')) was accepted, and evaluate()
    # then computed with float "coefficients". Level 6 is GF(2^1458).
    from exactdp.histograms.compact import CompactRelease
    with pytest.raises(error, match=match) as exc:
        CompactRelease(10, 6, 6, coefficients, GeoSample(6, "1/2"))
    typed(exc)


def test_compact_release_accepts_the_largest_field_element() -> None:
    from exactdp.histograms.compact import CompactRelease
    top = 2**1458 - 1
    release = CompactRelease(10, 6, 6, (top,) + (0,) * 6, GeoSample(6, "1/2"))
    assert release.coefficients[0] == top


@pytest.mark.parametrize(("size", "n", "coefficients", "match"), [
    (10, 6.0, (0,) * 7, "n = 6.0 is a float"),
    (10, "x", (0,) * 7, "n = 'x' is not a number"),
    (True, 6, (0,) * 7, "universe size M = True"),
    (10, 6, 7, "coefficients must be a sequence"),
])
def test_compact_release_validates_its_sizes(size: Any, n: Any, coefficients: Any,
                                             match: str) -> None:
    # The sizes are validated like every other parameter (typed, one line).
    from exactdp.histograms.compact import CompactRelease
    with pytest.raises((TypeError, ValueError), match=match) as exc:
        CompactRelease(size, n, 6, coefficients, GeoSample(6, "1/2"))
    typed(exc)
