"""The histogram data model: universes, datasets, released histograms, label encoding."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.histograms.data import (
    Dataset,
    EmptyDatasetError,
    Histogram,
    LabelTooLongError,
    Universe,
    decode_label,
    encode_label,
    label_capacity,
)
from exactdp.params import DomainError, ParameterError, ParameterTypeError

# ----------------------------------------------------------------------------- Universe


@pytest.mark.parametrize("size", [1, 2, 7, 2**64, 2**128])
def test_universe_sizes(size: int) -> None:
    u = Universe(size)
    assert u.size == size
    assert 1 in u and size in u and 0 not in u and size + 1 not in u
    assert u.check(size) == size
    assert u.elements() == range(1, size + 1)


@pytest.mark.parametrize("bad", [0, -5, Fraction(1, 2), "x"])
def test_universe_rejects_non_positive_or_non_integer_sizes(bad: object) -> None:
    with pytest.raises(ParameterError):
        Universe(bad)  # type: ignore[arg-type]


def test_universe_rejects_float_size() -> None:
    with pytest.raises(ParameterTypeError):
        Universe(5.0)  # type: ignore[arg-type]


def test_universe_check_names_value_and_rule() -> None:
    with pytest.raises(DomainError, match=r"element = 6 is outside the universe X = \[1, M\]"):
        Universe(5).check(6)
    with pytest.raises(ParameterTypeError):
        Universe(5).check(True)
    assert True not in Universe(5)


# ----------------------------------------------------------------------------- labels


@given(st.binary(max_size=12))
def test_label_round_trip(data: bytes) -> None:
    x = encode_label(data, 2**200)
    assert x >= 1
    assert decode_label(x) == data


@given(st.binary(max_size=6), st.binary(max_size=6))
def test_label_code_is_shortlex_order(a: bytes, b: bytes) -> None:
    # Injective, and ordered by (length, bytes): the bijective base-256 numeration.
    ka, kb = encode_label(a, 2**64), encode_label(b, 2**64)
    assert (ka < kb) == ((len(a), a) < (len(b), b))
    assert (ka == kb) == (a == b)


@given(st.integers(min_value=1, max_value=2**80))
def test_decode_then_encode_is_identity(x: int) -> None:
    assert encode_label(decode_label(x), 2**80) == x


def test_label_codes_of_short_strings() -> None:
    # The empty string is 1; the 256 one-byte strings are 2..257; then two bytes.
    assert encode_label(b"", 1) == 1
    assert encode_label(b"\x00", 2) == 2
    assert encode_label(b"\xff", 257) == 257
    assert encode_label(b"\x00\x00", 258) == 258


@pytest.mark.parametrize("length", [0, 1, 2, 5, 7])
def test_last_string_of_each_length(length: int) -> None:
    # There are sum_{j<=L} 256^j = (256^(L+1) - 1)/255 strings of length <= L.
    assert encode_label(b"\xff" * length, 2**80) == (256 ** (length + 1) - 1) // 255


def test_label_capacity() -> None:
    assert label_capacity(1) == 0
    assert label_capacity(257) == 1
    assert label_capacity(256) == 0
    assert label_capacity(2**64) == 7  # 8-byte strings need up to 2^64 + 2^56 + ...


def test_text_is_utf8() -> None:
    assert encode_label("é", 2**32) == encode_label("é".encode(), 2**32)
    assert encode_label("a", 2**32) != encode_label("b", 2**32)


def test_label_too_long_says_what_to_do() -> None:
    with pytest.raises(LabelTooLongError, match="pass a universe size of at least"):
        encode_label("alice", 100)
    with pytest.raises(ParameterTypeError):
        encode_label(5, 100)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- Dataset


@given(st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40))
def test_counts_match_counter(rows: list[int]) -> None:
    data = Dataset.of(9, rows)
    assert data.n == len(rows)
    assert data.counts() == dict(Counter(rows))
    for x in range(1, 10):
        assert data.count(x) == rows.count(x)


def test_empty_dataset_is_refused() -> None:
    with pytest.raises(EmptyDatasetError, match="empty"):
        Dataset.of(5, [])


@pytest.mark.parametrize("row", [0, 6, -1, 2**64])
def test_row_outside_universe(row: int) -> None:
    with pytest.raises(DomainError, match=rf"row 2 = {row} is outside"):
        Dataset.of(5, [1, row])


@pytest.mark.parametrize("row", [1.0, True, "3", None])
def test_row_of_wrong_type(row: object) -> None:
    with pytest.raises(ParameterTypeError):
        Dataset.of(5, [row])


def test_dataset_from_labels() -> None:
    data = Dataset.from_labels(2**64, ["alice", "bob", "alice"])
    counts = data.counts()
    assert counts[encode_label("alice", 2**64)] == 2
    assert counts[encode_label("bob", 2**64)] == 1


def test_dataset_accepts_huge_universe_elements() -> None:
    data = Dataset.of(2**128, [2**128, 1, 2**127])
    assert sorted(data.counts()) == [1, 2**127, 2**128]


# ----------------------------------------------------------------------------- Histogram


def test_histogram_sorted_and_lookup() -> None:
    h = Histogram.from_counts(Universe(10), 4, {7: 2, 3: 1, 9: 0})
    assert h.bins == ((3, 1), (7, 2), (9, 0))
    assert h.count(7) == 2 and h.count(3) == 1 and h.count(5) == 0 and h.count(9) == 0
    assert h.nonzero() == ((3, 1), (7, 2))
    assert h.as_dict() == {3: 1, 7: 2, 9: 0}


@pytest.mark.parametrize("bins", [
    ((3, 1), (2, 1)),         # not sorted
    ((3, 1), (3, 2)),         # repeated element
    ((3, 5),),                # count above n = 4
    ((3, -1),),               # negative count
    ((11, 1),),               # outside the universe
    ((0, 1),),                # outside the universe
])
def test_histogram_invariants(bins: tuple[tuple[int, int], ...]) -> None:
    with pytest.raises(DomainError):
        Histogram(Universe(10), 4, bins)


def test_histogram_json_is_exact_strings() -> None:
    u = Universe(2**64)
    x = encode_label("bob", u.size)
    h = Histogram(u, 3, ((x, 2), (2**64, 1)), "X")
    out = h.to_json(labels=True)
    assert out["universe_size"] == str(2**64)
    assert out["bins"][0] == {"element": str(x), "count": "2", "label": "bob"}
    assert out["bins"][1]["element"] == str(2**64)
    assert "label_hex" in out["bins"][1] or "label" in out["bins"][1]
