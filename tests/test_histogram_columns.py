"""Columnar datasets: numpy, pandas, polars, pyarrow and DuckDB columns counted vectorised,
validated like rows (one error naming the first bad row), released like rows."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.column_input import count_column, is_column
from exactdp.histograms import Dataset, StabilityHistogram, Universe
from exactdp.histograms.data import CountedDataset, EmptyDatasetError
from exactdp.params import DomainError, ParameterTypeError
from exactdp.randomness import SeededSource

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")

U = Universe(1000)
ROWS = [5, 7, 5, 1000, 1, 7, 5]


def _columns(rows: list[int]) -> dict[str, object]:
    return {
        "numpy int64": np.array(rows, dtype=np.int64),
        "numpy uint16": np.array(rows, dtype=np.uint16),
        "pandas": pd.Series(rows),
        "pandas Int64": pd.Series(rows, dtype="Int64"),
        "polars": pl.Series(rows),
        "pyarrow": pa.array(rows),
        "pyarrow chunked": pa.chunked_array([rows[:2], rows[2:]]),
        "duckdb": duckdb.sql("SELECT unnest($r) AS x", params={"r": rows}),
    }


@pytest.mark.parametrize("name", list(_columns(ROWS)))
def test_every_kind_of_column_counts_like_the_rows(name: str) -> None:
    column = _columns(ROWS)[name]
    assert is_column(column)
    data = Dataset.of(U, column)
    assert isinstance(data, CountedDataset)
    assert data.n == len(ROWS)
    assert data.counts() == {1: 1, 5: 3, 7: 2, 1000: 1}  # counted by hand from ROWS


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 2**63 - 1), min_size=1, max_size=50))
def test_numpy_counts_equal_the_row_counts(rows: list[int]) -> None:
    universe = Universe(2**64)
    columnar = Dataset.of(universe, np.array(rows, dtype=np.int64))
    assert columnar.counts() == dict(sorted(Dataset.of(universe, rows).counts().items()))
    assert columnar.n == len(rows)


@pytest.mark.parametrize(("column", "error", "words"), [
    (pd.Series([1, None, 3], dtype="Int64"), ParameterTypeError, "row 2 is null"),
    (pd.Series([1.0, float("nan")]), ParameterTypeError, "row 2 is null"),
    (pl.Series([1, 2, None]), ParameterTypeError, "row 3 is null"),
    (pa.array([1, None]), ParameterTypeError, "row 2 is null"),
    (pa.chunked_array([[1], [2, None]]), ParameterTypeError, "row 3 is null"),
    (np.array([1.0, 2.0]), ParameterTypeError, "row 1 = 1.0 (float)"),
    (pd.Series([1.5, 2.0]), ParameterTypeError, "(float)"),
    (np.array([True, False]), ParameterTypeError, "(bool)"),
    (pl.Series(["a", "b"]), ParameterTypeError, "Dataset.from_labels"),
    (pa.array(["x"]), ParameterTypeError, "Dataset.from_labels"),
    (np.array([3, 0, 5]), DomainError, "row 2 = 0 is outside"),
    (np.array([3, 5, 1001, 2000]), DomainError, "row 3 = 1001 is outside"),
    (pl.Series([-4, 1]), DomainError, "row 1 = -4 is outside"),
    (np.array([], dtype=np.int64), EmptyDatasetError, "empty"),
    (np.zeros((2, 2), dtype=np.int64), ParameterTypeError, "row 1 = array"),
    (pd.DataFrame({"x": [1]}), ParameterTypeError, "pass one column"),
    (pl.DataFrame({"x": [1]}), ParameterTypeError, "pass one column"),
    (pa.table({"x": [1]}), ParameterTypeError, "pass one column"),
])
def test_the_first_bad_row_is_named(column: object, error: type, words: str) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        Dataset.of(U, column)


def test_rows_and_columns_give_the_same_error() -> None:
    """The same first bad row and rule, whether the rows come as a list or as a column."""
    for rows in ([3, 1001, 0], [3, 4, 0]):
        with pytest.raises(DomainError) as by_rows:
            Dataset.of(U, rows)
        with pytest.raises(DomainError) as by_column:
            Dataset.of(U, np.array(rows))
        assert str(by_rows.value) == str(by_column.value)


def test_object_arrays_go_row_by_row() -> None:
    for rows in (np.array([5, 2**70, 5], dtype=object), pd.Series([5, 2**70, 5])):
        assert not is_column(rows)
        data = Dataset.of(Universe(2**80), rows)
        assert data.counts() == {5: 2, 2**70: 1}
    with pytest.raises(ParameterTypeError, match="not a column of integers"):
        count_column(np.array([1], dtype=object), 10)


def test_count_column_of_an_empty_column() -> None:
    assert count_column(pa.array([], type=pa.string()), 10) == ([], [])
    assert count_column(np.array([], dtype=np.int64), 10) == ([], [])


def test_universe_beyond_the_dtype() -> None:
    big = np.array([1, 2**64 - 1], dtype=np.uint64)
    assert Dataset.of(Universe(2**64), big).counts() == {1: 1, 2**64 - 1: 1}
    with pytest.raises(DomainError, match="row 2"):
        Dataset.of(Universe(2**63), big)


def test_a_release_from_a_column_equals_the_release_from_sorted_rows() -> None:
    """Seeded (not for releases): the column's dataset lists its elements in increasing
    order, as a dataset of the sorted rows does, so the same draws give the same release."""
    rows = [3, 9, 3, 3, 9, 1, 2, 3]
    alg = StabilityHistogram.theorem_5_6(Universe(10), len(rows), "1/2", "1/100", "1/20")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = alg.release(Dataset.of(Universe(10), np.array(rows)), SeededSource(3))
        b = alg.release(Dataset.of(Universe(10), sorted(rows)), SeededSource(3))
    assert a == b


def test_from_sorted_refuses_what_the_constructor_refuses() -> None:
    with pytest.raises(DomainError):
        CountedDataset.from_sorted(U, [0, 3], [1, 1])
    with pytest.raises(Exception, match="positive integer"):
        CountedDataset.from_sorted(U, [1, 3], [1, 0])
    unsorted = CountedDataset.from_sorted(U, [3, 1], [1, 2])  # accepted, sorted
    assert unsorted.counts() == {1: 2, 3: 1}
