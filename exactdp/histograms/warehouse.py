"""Counting a column of Parquet or CSV files with DuckDB (embedded), for a histogram release.

DuckDB computes ``SELECT column, count(*) ... GROUP BY column`` over the files (a glob such
as ``'data/*.parquet'`` reads them all) in bounded memory; exactdp then validates the
distinct values and their counts exactly and releases from a
:class:`~exactdp.histograms.data.CountedDataset` (see that module for why the
counts are all the release needs, and for the neighbouring relation).

Exactness: an integer column (``TINYINT`` ... ``HUGEINT``, signed or unsigned) is taken as
it is; a text column (``VARCHAR``; a CSV file is always read as text, never type-guessed)
follows the rules of :mod:`exactdp.histograms.datafile` on every distinct value; any other
type (``DOUBLE``, ``DECIMAL``, dates, ...) is refused: an element is never rounded.  A null
is an error.  An error names the file and the row (Parquet, counting from 1) or the line
(CSV) of the first offending value found.

DuckDB is optional (``pip install 'exactdp[scale]'``); without it the readers raise
:class:`MissingExtraError`, one line naming the extra.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from exactdp.files import InputFileError
from exactdp.histograms.counts_source import CountedDataset, elements_from_text
from exactdp.histograms.data import Universe
from exactdp.histograms.datafile import normalise_format
from exactdp.params import ParameterError, ParameterTypeError

__all__ = ["READERS", "Counted", "MissingExtraError", "count_column", "load_duckdb",
           "reader_for"]

#: File kinds DuckDB reads here.
READERS = ("parquet", "csv")

_INTEGER_TYPES = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                            "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"})
_EXTRA_COLUMNS = ("filename", "file_row_number")
_BATCH = 1 << 16


class MissingExtraError(ParameterError):
    """An optional dependency is not installed; the message names the extra to install."""


def load_duckdb() -> ModuleType:
    """The ``duckdb`` module, or :class:`MissingExtraError` naming the ``[scale]`` extra."""
    try:
        import duckdb
    except ImportError as exc:
        raise MissingExtraError(f"reading Parquet or CSV through DuckDB needs the duckdb "
                                f"package ({exc}); install it with: pip install "
                                f"'exactdp[scale]'") from None
    return duckdb


def reader_for(path: str) -> str:
    """``"parquet"`` or ``"csv"`` from the file name (or glob) ``path``."""
    low = path.lower()
    if low.endswith(".parquet"):
        return "parquet"
    if low.endswith((".csv", ".csv.gz")):
        return "csv"
    raise ParameterError(f"file {path!r}: DuckDB reads *.parquet and *.csv (or *.csv.gz) "
                         f"files here; name the files so")


@dataclass(frozen=True)
class Counted:
    """The counts of a column and how they were made (``seconds``: DuckDB's scan and
    ``GROUP BY``; ``validate_seconds``: exactdp's checks of the distinct values)."""

    data: CountedDataset
    format: str
    column: str
    column_type: str
    seconds: float
    validate_seconds: float


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Source:
    """One DuckDB connection over the files, with the queries this module needs."""

    def __init__(self, path: str, reader: str) -> None:
        duckdb = load_duckdb()
        self.path, self.reader, self.error = path, reader, duckdb.Error
        self.con = duckdb.connect()
        self.con.execute("SET enable_progress_bar = false")
        if reader == "parquet":
            self.sql = "read_parquet(?, filename = true, file_row_number = true)"
        else:
            self.sql = ("read_csv(?, header = true, all_varchar = true, delim = ',', "
                        "quote = '\"', escape = '\"', filename = true)")

    def query(self, text: str, *params: Any) -> Any:
        try:
            return self.con.execute(text.replace("SRC", self.sql), [self.path, *params])
        except self.error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputFileError(f"{self.reader} file {self.path!r}: {first}") from None

    def columns(self) -> list[tuple[str, str]]:
        rows = self.query("DESCRIBE SELECT * FROM SRC").fetchall()
        return [(r[0], r[1]) for r in rows if r[0] not in _EXTRA_COLUMNS]

    def locate(self, column: str, value: object, index: int) -> str:
        """Where the first row whose ``column`` is ``value`` (None: null) lies."""
        pred = f"{_ident(column)} IS NULL" if value is None else f"{_ident(column)} = ?"
        params = () if value is None else (value,)
        if self.reader == "parquet":
            row = self.query(f"SELECT filename, file_row_number FROM SRC WHERE {pred} "
                             f"ORDER BY 1, 2 LIMIT 1", *params).fetchone()
            return f"parquet file {row[0]!r} row {row[1] + 1}"
        files = [r[0] for r in self.query(f"SELECT DISTINCT filename FROM SRC WHERE {pred}",
                                          *params).fetchall()]
        name = min(files)
        # Streamed (the file may be large); only to find the line, so bad bytes are replaced.
        with open(name, encoding="utf-8-sig", errors="replace", newline="") as fh:
            records = csv.reader(fh)
            next(records, None)
            for rec in records:
                field = rec[index] if index < len(rec) else ""
                if (field == "" if value is None else field == value):
                    return f"csv file {name!r} line {records.line_num}"
        return f"csv file {name!r}"  # DuckDB and Python's csv disagree: name the file only


def count_column(path: str, universe: Universe, input_format: str = "auto", *,
                 column: str | None = None, reader: str | None = None) -> Counted:
    """Count ``column`` of the Parquet or CSV file(s) ``path`` (a DuckDB glob is allowed)
    with DuckDB and validate the result exactly (module docstring).  CSV files must have a
    header line and ``column`` must name it; for Parquet it may be left out when the files
    have a single column."""
    if not isinstance(universe, Universe):
        raise ParameterTypeError(f"universe = {universe!r} must be a Universe")
    fmt = normalise_format(input_format)
    kind = reader_for(path) if reader is None else reader
    if kind not in READERS:
        raise ParameterError(f"reader = {kind!r} must be parquet or csv")
    if kind == "csv" and column is None:
        # A headerless file would lose its first row as a header: the header is asserted.
        raise ParameterError(f"csv file {path!r}: pass --column NAME, the header name of the "
                             f"elements' column (CSV files are read with a header line; a "
                             f"file without one is read one element per line: --engine text)")
    src = _Source(path, kind)
    cols = src.columns()
    names = [c for c, _ in cols]
    if column is None:
        if len(cols) != 1:
            raise ParameterError(f"{kind} file {path!r} has columns {names}: pass --column "
                                 f"NAME to say which one holds the elements")
        column = names[0]
    if column not in names:
        raise ParameterError(f"--column {column!r} is not a column of {kind} file {path!r} "
                             f"(columns: {names})")
    index = names.index(column)
    ctype = cols[index][1]
    if ctype not in _INTEGER_TYPES and ctype != "VARCHAR":
        raise ParameterError(f"column {column!r} of {kind} file {path!r} has type {ctype}: "
                             f"elements must be integers or text (exactdp never rounds an "
                             f"element)")
    if ctype != "VARCHAR" and fmt == "labels":
        raise ParameterError(f"column {column!r} has type {ctype}: labels need a text "
                             f"(VARCHAR) column; drop --format labels to read integers")
    start = time.perf_counter()
    cursor = src.query(f"SELECT {_ident(column)}, count(*) FROM SRC GROUP BY ALL")
    keys: list[Any] = []
    counts: list[int] = []
    while batch := cursor.fetchmany(_BATCH):
        for k, c in batch:
            keys.append(k)
            counts.append(c)
    counted = time.perf_counter()
    if not keys:
        raise InputFileError(f"{kind} file {path!r} has no rows: the paper's datasets D in "
                             f"X^n have n >= 1 rows")

    def where(i: int) -> str:
        return src.locate(column, keys[i], index)

    if ctype == "VARCHAR":
        elements, fmt = elements_from_text(keys, universe, fmt, where)
    else:
        fmt = "integers"
        for i, k in enumerate(keys):
            if k is None:
                raise InputFileError(f"{where(i)}: the element is null (every row needs one)")
            if not 1 <= k <= universe.size:
                raise InputFileError(f"{where(i)}: element {k} is outside the universe "
                                     f"{universe}")
        elements = keys
    data = CountedDataset(universe, dict(zip(elements, counts)))
    return Counted(data, fmt, column, ctype, counted - start, time.perf_counter() - counted)
