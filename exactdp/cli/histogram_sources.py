"""``exactdp histogram``'s inputs besides one element per line: Parquet and CSV files counted
by DuckDB (:mod:`exactdp.histograms.warehouse`) and pre-aggregated ``element,count`` files
from any engine (:mod:`exactdp.histograms.counts_source`)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from exactdp.histograms.data import Dataset, Universe

NEIGHBOURS = ("the counts stand for n rows; neighbouring inputs have the same n with one row's "
              "element changed (one count down by 1, another up by 1); n is released exactly, "
              "so the release is not private against one row being added or removed")


def add_source_arguments(p: argparse.ArgumentParser) -> None:
    """``--engine``, ``--column``, ``--counts`` and ``--rows``."""
    p.add_argument("--engine", choices=("auto", "text", "duckdb"), default="auto",
                   help="text (one element per line), or duckdb (a column of Parquet or "
                        "CSV files, FILE a glob; the [scale] extra)")
    p.add_argument("--column", metavar="NAME",
                   help="duckdb: the column holding the elements")
    p.add_argument("--counts", action="store_true",
                   help="FILE holds counts: CSV ELEMENT,count, or a folder")
    p.add_argument("--rows", metavar="N",
                   help="check that the input has exactly N rows")


def read_source(args: argparse.Namespace, universe: Universe, limit: int,
                say: Callable[[str], None]) -> tuple[Dataset, str] | None:
    """The dataset and its format for ``--counts`` or the duckdb engine; None for one
    element per line (the caller's own reader)."""
    from exactdp.params import ParameterError, positive_int

    rows = None if args.rows is None else positive_int(args.rows, "--rows")
    duck = args.engine == "duckdb" or (args.engine == "auto" and not args.counts and (
        args.column is not None or args.file.lower().endswith(".parquet")))
    if args.counts and args.engine == "duckdb":
        raise ParameterError("--counts files are read without DuckDB: drop --engine duckdb")
    if args.column is not None and not duck:
        raise ParameterError("--column applies to the duckdb engine (Parquet or CSV files)")
    if args.file == "-" and (duck or args.counts):
        raise ParameterError("standard input is read one element per line only: pass a file")
    start = time.perf_counter()
    if args.counts:
        from exactdp.histograms.counts_source import read_counts_csv

        data, fmt = read_counts_csv(args.file, universe, args.format, rows=rows,
                                    max_bytes=limit)
        say(f"read counts of {len(data.counts())} elements, {data.n} rows, as {fmt} in "
            f"{time.perf_counter() - start:.1f} s")
    elif duck:
        from exactdp.histograms.warehouse import count_column

        counted = count_column(args.file, universe, args.format, column=args.column)
        data, fmt = counted.data, counted.format
        if rows is not None and data.n != rows:
            raise ParameterError(f"{args.file!r} has {data.n} rows but --rows is {rows}")
        say(f"counted {data.n} rows of column {counted.column!r} ({counted.column_type}) with "
            f"DuckDB in {counted.seconds:.1f} s: {len(data.counts())} distinct elements, "
            f"validated as {fmt} in {counted.validate_seconds:.1f} s")
    else:
        if rows is not None:
            raise ParameterError("--rows applies to --counts and the duckdb engine")
        return None
    from exactdp.cli._common import progress

    progress("note: " + NEIGHBOURS)  # printed even with --quiet: it says what is protected
    return data, fmt
