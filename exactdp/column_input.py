"""Columnar data counted without a Python object per row.

:func:`count_column` takes one column of integer elements -- a numpy integer array, a
pandas or polars Series, a pyarrow Array or ChunkedArray, a DuckDB relation of one column
(``duckdb.sql("SELECT x FROM 'file.parquet'")``) -- validates it with vectorised operations
and counts it with ``numpy.unique``: ``Dataset.of`` sends such columns here and makes a
:class:`~exactdp.histograms.data.CountedDataset` of the counts, which every histogram
release reads exactly as it reads a :class:`~exactdp.histograms.data.Dataset` of the same
rows.  None of these libraries is required: each is
recognised by its type's module without importing it, and numpy is imported only for a column.

Validation is the rows' validation, with the same typed errors naming the first bad row
(1-based): a null or missing value (:class:`~exactdp.params.ParameterTypeError`), a column
that is not of an integer type -- floats, booleans, decimals, strings
(:class:`~exactdp.params.ParameterTypeError`; a text column goes through
``Dataset.from_labels``), an element outside ``[1, M]``
(:class:`~exactdp.params.DomainError`); an empty column gives no counts (``Dataset.of``
refuses it with ``EmptyDatasetError``).  An array of numpy's ``object`` type holds Python
objects: it is not a column here, and ``Dataset`` reads it row by row.
"""

from __future__ import annotations

from typing import Any

from exactdp.params import DomainError, ParameterTypeError

__all__ = ["count_column", "is_column"]

_LIBRARIES = ("numpy", "pandas", "polars", "pyarrow", "duckdb")

#: What the readers return for an empty column of a type that has no first row to name.
_EMPTY: Any = ()


def _library(column: object) -> str | None:
    """Which columnar library's object ``column`` is (by its type's module), or None."""
    root = type(column).__module__.split(".", 1)[0]
    return root if root in _LIBRARIES else None


def is_column(rows: object) -> bool:
    """Whether :func:`column_dataset` reads ``rows`` (a columnar object of a known library,
    and for numpy an array of a type other than ``object``)."""
    lib = _library(rows)
    if lib is None:
        return False
    if lib == "numpy":
        return getattr(rows, "ndim", None) == 1 and getattr(rows, "dtype", None) is not None \
            and rows.dtype.kind != "O"  # type: ignore[attr-defined]
    if lib == "pandas":  # a Series or DataFrame; a Series of Python objects goes row by row
        return hasattr(rows, "isna") and getattr(getattr(rows, "dtype", None), "kind", "") != "O"
    return True


def _show_int(v: int) -> str:
    """``v`` in decimal (the elements of a numpy column have at most 64 bits), or the universe
    size as a power of two or a bit length when long (as the rows' errors show it)."""
    if v.bit_length() <= 128:
        return str(v)
    if v & (v - 1) == 0:
        return f"2**{v.bit_length() - 1}"
    return f"an integer of {v.bit_length()} bits"


def _null_error(i: int) -> ParameterTypeError:
    return ParameterTypeError(f"row {i + 1} is null (a missing value): every row must be an "
                              f"integer element of the universe [1, M]; drop or fill the "
                              f"missing rows first")


def _type_error(i: int, value: object, kind: str) -> ParameterTypeError:
    hint = ("use Dataset.from_labels or encode_label for text labels" if kind == "text" else
            "convert it exactly yourself; exactdp never rounds an element")
    return ParameterTypeError(f"row {i + 1} = {value!r:.60} ({kind}) is not an integer element "
                              f"of the universe [1, M]; {hint}")


def _from_arrow(column: Any) -> Any:
    """A pyarrow (Chunked)Array of integers as one numpy array, after the null check."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if column.null_count:
        raise _null_error(int(pc.index(pc.is_null(column), True).as_py()))
    if not pa.types.is_integer(column.type):
        kind = "text" if (pa.types.is_string(column.type)
                          or pa.types.is_large_string(column.type)) else str(column.type)
        if len(column) == 0:
            return _EMPTY
        raise _type_error(0, column[0].as_py(), kind)
    if isinstance(column, pa.ChunkedArray):
        import numpy as np

        parts = [chunk.to_numpy(zero_copy_only=False) for chunk in column.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=column.type.to_pandas_dtype())
    return column.to_numpy(zero_copy_only=False)


def _to_numpy(column: Any, lib: str) -> Any:
    """The column as a one-dimensional numpy array of an integer type, nulls refused."""
    import numpy as np

    if lib == "duckdb":
        table = column.arrow()
        if hasattr(table, "read_all"):  # a RecordBatchReader in newer DuckDB versions
            table = table.read_all()
        if table.num_columns != 1:
            raise ParameterTypeError(f"the DuckDB relation has {table.num_columns} columns "
                                     f"{table.column_names}: select the one column of "
                                     f"elements")
        return _from_arrow(table.column(0))
    if lib == "pyarrow":
        if hasattr(column, "num_columns"):
            raise ParameterTypeError("a pyarrow Table: pass one column, table.column(NAME)")
        return _from_arrow(column)
    if lib == "polars":
        if hasattr(column, "width"):  # a DataFrame
            raise ParameterTypeError("a polars DataFrame: pass one column, df[NAME]")
        if column.null_count():
            raise _null_error(int(column.is_null().arg_max()))
        if not column.dtype.is_integer():
            kind = "text" if column.dtype.is_(__import__("polars").String) else str(column.dtype)
            if len(column) == 0:
                return _EMPTY
            raise _type_error(0, column[0], kind)
        return column.to_numpy()
    if lib == "pandas":
        if hasattr(column, "columns"):
            raise ParameterTypeError("a pandas DataFrame: pass one column, df[NAME]")
        missing = column.isna().to_numpy()
        if missing.any():
            raise _null_error(int(np.argmax(missing)))
        dtype = column.dtype
        kind = getattr(dtype, "kind", "O")
        if kind not in "iu":
            array = column.to_numpy()
            return _EMPTY if len(array) == 0 else array  # checked below, as numpy
        return column.to_numpy(dtype=np.uint64 if kind == "u" else np.int64)
    array = column
    if array.ndim != 1:
        raise ParameterTypeError(f"a numpy array of shape {array.shape}: pass one column "
                                 f"(one dimension)")
    return array


def count_column(column: object, size: int) -> tuple[list[int], list[int]]:
    """``(elements, counts)`` of the integer column ``column`` over ``[1, size]``: the
    distinct elements in increasing order (Python ints) and their counts, validated and
    counted vectorised (module docstring); ``([], [])`` for an empty column."""
    import numpy as np

    lib = _library(column)
    if lib is None or (lib == "numpy" and not is_column(column)
                       and getattr(column, "ndim", 1) == 1):
        raise ParameterTypeError(f"rows of type {type(column).__name__} are not a column of "
                                 f"integers of numpy, pandas, polars, pyarrow or DuckDB")
    array = _to_numpy(column, lib)
    if array is _EMPTY or len(array) == 0:
        return [], []
    kind = array.dtype.kind
    if kind not in "iu":
        what = {"b": "bool", "f": "float", "c": "complex", "U": "text", "S": "text",
                "O": "object", "M": "datetime", "m": "timedelta"}.get(kind, str(array.dtype))
        raise _type_error(0, array[0].item() if kind != "O" else array[0], what)
    bad = array < 1
    if size < int(np.iinfo(array.dtype).max):
        bad |= array > np.array(size, dtype=array.dtype)
    if bad.any():
        i = int(np.argmax(bad))
        raise DomainError(f"row {i + 1} = {_show_int(int(array[i]))} is outside the universe "
                          f"X = [1, M] with M = {_show_int(size)}")
    elements, counts = np.unique(array, return_counts=True)
    return elements.tolist(), counts.tolist()
