"""Histograms from per-element counts: what a warehouse's ``GROUP BY`` hands over.

The release algorithms of Sections 5 and 6 read a dataset ``D in X^n`` only through its
length ``n`` and its point functions ``c_x(D) = |{i : D_i = x}|`` for the ``x`` with
``c_x(D) > 0`` (Algorithm 5.1 step 2, Algorithm 5.4's set ``A``, Algorithm 6.9 through 6.4 /
6.21).  So the counting can be done by any engine (DuckDB, Spark, Dask) and only the exact
release by exactdp: :class:`~exactdp.histograms.data.CountedDataset` (defined beside
:class:`~exactdp.histograms.data.Dataset`, re-exported here) is a dataset
given by its counts, which the release code takes unchanged.

Neighbouring relation.  The paper's datasets have a public number of rows ``n`` and two are
neighbours when they differ in one row (Section 2.1).  On counts that is: the same total
``n``, one element's count down by one and another's up by one (an element may appear or
disappear).  ``n`` is released exactly, so a release is *not* private against one row being
added or removed.

Counts files (:func:`read_counts_csv`): CSV, a header ``ELEMENT,count`` then one line per
element with ``count`` a positive integer (ASCII digits, no sign, spaces or leading zeros);
each element at most once (a duplicate is refused naming both lines, never summed); the
elements follow the rules of :mod:`exactdp.histograms.datafile` (integers in ``[1, M]``
without leading zeros, or labels coded by :func:`~exactdp.histograms.data.encode_label`);
a directory stands for all its ``*.csv`` files (Spark's and Dask's ``part-*`` outputs).
Everything is validated before a release is planned, so before any noise is drawn.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import gmpy2

from exactdp.files import DEFAULT_MAX_BYTES, InputFileError, read_text
from exactdp.histograms.data import CountedDataset, LabelTooLongError, Universe, encode_label
from exactdp.histograms.datafile import (
    _INTEGER_RULE,
    _PLAIN,
    _kind,
    _show,
    normalise_format,
)
from exactdp.params import ParameterTypeError, positive_int

__all__ = [
    "MAX_COUNT_DIGITS",
    "CountedDataset",
    "counts_files",
    "elements_from_text",
    "read_counts_csv",
]

#: A count has at most this many decimal digits (10^18 rows is beyond any engine's table).
MAX_COUNT_DIGITS = 18

_COUNT = re.compile(r"[1-9][0-9]*", re.ASCII)


def elements_from_text(texts: Sequence[str | None], universe: Universe, input_format: str,
                       where: Callable[[int], str]) -> tuple[list[int], str]:
    """The elements written as ``texts`` (the distinct values of a column or the first
    fields of a counts file) under the rules of :mod:`exactdp.histograms.datafile`, and the
    format used.  ``where(i)`` names the place of ``texts[i]`` in error messages (called
    only when there is an error: it may query the data again)."""
    fmt = normalise_format(input_format)
    for i, t in enumerate(texts):
        if t is None or t == "" or t.isspace():
            raise InputFileError(f"{where(i)}: the element is empty (every row needs one)")
    if fmt == "auto":
        fmt = _detect(texts, where)  # type: ignore[arg-type]  # None refused above
    if fmt == "labels":
        out = []
        for i, t in enumerate(texts):
            try:
                out.append(encode_label(t, universe.size))  # type: ignore[arg-type]
            except LabelTooLongError as exc:
                raise LabelTooLongError(f"{where(i)}: {exc}") from None
        return out, fmt
    size = universe.size
    width = len(gmpy2.mpz(size).digits(10))
    ints = []
    for i, t in enumerate(texts):
        assert t is not None
        if not _PLAIN.fullmatch(t):
            raise InputFileError(f"{where(i)}: element {_show(t)} is not a plain decimal "
                                 f"integer ({_INTEGER_RULE}); pass --format labels if the elements "
                                 f"are labels")
        if t[0] == "0" and len(t) > 1:
            raise InputFileError(f"{where(i)}: element {_show(t)} has a leading zero (refused "
                                 f"so no element is read as anything but what it shows)")
        x = int(gmpy2.mpz(t)) if len(t) <= width else size + 1
        if not 1 <= x <= size:
            raise InputFileError(f"{where(i)}: element {_show(t)} is outside the universe "
                                 f"[1, M] with M = {_show(str(size))}")
        ints.append(x)
    return ints, fmt


def _detect(texts: Sequence[str], where: Callable[[int], str]) -> str:
    """``auto``: integers if every element is one, labels if none looks like a number."""
    kinds = [_kind(t) for t in texts]
    if "number-like" in kinds:
        i = kinds.index("number-like")
        raise InputFileError(f"{where(i)}: element {_show(texts[i])} looks like a number but "
                             f"is not a plain decimal integer ({_INTEGER_RULE}); fix it, or pass "
                             f"--format labels to read every element as a text label")
    other = next((i for i, k in enumerate(kinds) if k != kinds[0]), None)
    if other is None:
        return "integers" if kinds[0] == "integer" else "labels"
    raise InputFileError(f"{where(other)}: element {_show(texts[other])} is "
                         f"{'an integer' if kinds[0] == 'label' else 'not an integer'} but "
                         f"{where(0)} has {_show(texts[0])}: the format is detected only "
                         f"when every element agrees; pass --format labels (or integers)")


def counts_files(path: str) -> list[Path]:
    """``path`` itself, or the ``*.csv`` files of a directory (sorted; names starting with
    ``.`` or ``_`` skipped, as Spark's ``_SUCCESS`` and ``.crc`` files)."""
    p = Path(path)
    if not p.is_dir():
        return [p]
    files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() == ".csv"
                   and not f.name.startswith((".", "_")))
    if not files:
        raise InputFileError(f"counts directory {path!r} has no *.csv files")
    return files


def read_counts_csv(path: str, universe: Universe, input_format: str = "auto", *,
                    rows: int | None = None,
                    max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[CountedDataset, str]:
    """Read an ``ELEMENT,count`` CSV file (or a directory of them; see the module
    docstring) into a :class:`CountedDataset` and the element format used.  ``rows``, when
    given, is the number of rows the counts must sum to exactly.  Every error is one line
    naming the file and line."""
    if not isinstance(universe, Universe):
        raise ParameterTypeError(f"universe = {universe!r} must be a Universe")
    texts: list[str] = []
    places: list[tuple[str, int]] = []
    counts: list[int] = []
    seen: dict[str, int] = {}
    for f in counts_files(path):
        name = f"counts file {str(f)!r}"
        records = csv.reader(io.StringIO(read_text(str(f), "counts file", max_bytes),
                                         newline=""), strict=True)
        try:
            header = next(records, None)
            if header is None or len(header) != 2 or header[1] != "count":
                raise InputFileError(f"{name} line 1 = {_show(','.join(header or []))}: the "
                                     f"first line must be the header ELEMENT,count")
            for rec in records:
                line = records.line_num
                if len(rec) != 2:
                    raise InputFileError(f"{name} line {line} has {len(rec)} fields; every "
                                         f"line is element,count")
                text, c = rec
                if "\n" in text or "\r" in text:
                    raise InputFileError(f"{name} line {line}: the element contains a line "
                                         f"break")
                if not _COUNT.fullmatch(c) or len(c) > MAX_COUNT_DIGITS:
                    raise InputFileError(
                        f"{name} line {line}: count {_show(c)} is not a positive integer of "
                        f"at most {MAX_COUNT_DIGITS} digits (ASCII digits, no sign, spaces, "
                        f"decimal point or leading zeros; leave out elements with count 0)")
                if text in seen:
                    first = places[seen[text]]
                    raise InputFileError(f"{name} line {line}: element {_show(text)} again "
                                         f"(first in {first[0]} line {first[1]}); each "
                                         f"element appears once: counts are never summed")
                seen[text] = len(texts)
                texts.append(text)
                places.append((name, line))
                counts.append(int(c))
        except csv.Error as exc:
            raise InputFileError(f"{name} line {records.line_num}: not CSV ({exc})") from None
    if not texts:
        raise InputFileError(f"counts {path!r} has no element lines: the paper's datasets "
                             f"D in X^n have n >= 1 rows")
    elements, fmt = elements_from_text(texts, universe, input_format,
                                       lambda i: f"{places[i][0]} line {places[i][1]}")
    total = sum(counts)
    if rows is not None and positive_int(rows, "--rows") != total:
        raise InputFileError(f"counts {path!r} sum to {total} rows but --rows is {rows}: "
                             f"a part of the counts is missing or extra")
    return CountedDataset(universe, dict(zip(elements, counts))), fmt
