"""Reading a histogram's dataset from text: one element per line, never misread.

The rules.  A file is read as **integers**
or as **labels**, never a mixture:

* ``integers``: every line is a plain decimal integer in ``[1, M]``, written in ASCII digits
  without sign, exponent, decimal point, spaces or leading zeros (``5``, not ``+5``,
  ``5.0``, ``5e0``, `` 5`` or ``05``).  Anything else is an error naming the line: a line is
  never read as some other element than the one it shows (``05`` is refused rather than
  silently taken as ``5``; ``1.9`` is refused rather than truncated).
* ``labels``: every line, without its line terminator, is a label coded injectively by
  :func:`~exactdp.histograms.data.encode_label` (UTF-8 bytes; spaces are part of the label).
* ``auto`` (the default): integers when **every** line is a decimal integer, labels when
  **no** line looks like a number; anything in between (``1``, ``2``, ``-5``; or ``alice``,
  ``5``) is an error naming the first line that disagrees and suggesting ``--format labels``.

Line terminators are ``\\n`` and ``\\r\\n`` (a lone ``\\r`` is an error); a final newline
ends the last line and is not a blank line; a UTF-8 byte-order mark is dropped when the file
is read (:func:`exactdp.files.read_text`).  A blank (empty or whitespace-only) line is an
error naming its line number unless ``skip_blank_lines`` is set; skipped lines keep their
numbers in later messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import gmpy2

from exactdp.files import InputFileError
from exactdp.histograms.data import Dataset, LabelTooLongError, Universe, encode_label
from exactdp.params import ParameterError, positive_int

__all__ = [
    "FORMATS",
    "MAX_UNIVERSE_BITS",
    "normalise_format",
    "parse_universe_size",
    "read_dataset",
]

#: The formats a data file (and a release's recorded format) can have.
FORMATS = ("integers", "labels")

#: ``--universe-size`` is at most ``2**MAX_UNIVERSE_BITS`` (labels of up to 511 bytes fit):
#: the exact lower bounds and the distinct-element search of a release grow about
#: quadratically in ``log2 M`` (pure-sparse on 6 rows: 4 s at 2^4096, 41 s at 2^16384).
MAX_UNIVERSE_BITS = 1 << 12

_PLAIN = re.compile(r"[0-9]+", re.ASCII)
# Things a reader would take for a number although they are not plain decimals (any Unicode
# digits, signs, decimal points, exponents, digit separators, surrounding spaces).
_NUMBERISH = re.compile(r"\s*[+-]?\s*(?:\d[\d_,]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*")
_POWER = re.compile(r"\s*([0-9]+)\s*(?:\^|\*\*)\s*([0-9]+)\s*", re.ASCII)
_UNIVERSE_FORMS = ("a positive integer ('1000', '1e6'; exponents up to 10000) or a power "
                   f"'B^K' or 'B**K' (e.g. '2^64'), at most 2^{MAX_UNIVERSE_BITS}, in ASCII "
                   f"digits")
_INTEGER_RULE = ("integers are written 1, 2, 3, ... in ASCII digits, without sign, exponent, "
                 "decimal point, spaces or leading zeros")


def normalise_format(name: str) -> str:
    """``"auto"``, ``"integers"`` or ``"labels"`` (``"strings"`` is the old name of labels)."""
    if name == "strings":
        return "labels"
    if name not in ("auto", *FORMATS):
        raise ParameterError(f"format = {name!r} must be auto, integers or labels")
    return name


def parse_universe_size(text: str) -> int:
    """``"18446744073709551616"``, ``"1e6"``, ``"2^64"`` or ``"2**64"`` -> ``M`` in
    ``[1, 2**MAX_UNIVERSE_BITS]``; the exponent is checked before any power is computed."""
    if not isinstance(text, str):
        return _cap(positive_int(text, "universe size M"), str(text))
    match = _POWER.fullmatch(text)
    if match:
        base, exp = int(gmpy2.mpz(match.group(1))), int(gmpy2.mpz(match.group(2)))
        if base >= 2 and exp * (base.bit_length() - 1) > MAX_UNIVERSE_BITS:
            raise ParameterError(f"universe size M = {_show(text)} is beyond 2^"
                                 f"{MAX_UNIVERSE_BITS}; write {_UNIVERSE_FORMS}")
        return _cap(positive_int(base**exp, "universe size M"), text)
    try:
        value = positive_int(text, "universe size M")
    except ParameterError:
        raise ParameterError(f"universe size M = {_show(text)} is not accepted: write "
                             f"{_UNIVERSE_FORMS}") from None
    return _cap(value, text)


def _cap(value: int, text: str) -> int:
    if value > 1 << MAX_UNIVERSE_BITS:
        raise ParameterError(f"universe size M = {_show(text)} is beyond 2^{MAX_UNIVERSE_BITS}"
                             f"; write {_UNIVERSE_FORMS}")
    return value


def _show(line: str) -> str:
    return repr(line) if len(line) <= 60 else repr(line[:40]) + f"... ({len(line)} chars)"


def _lines(text: str | Iterable[str], where: str) -> list[str]:
    """Split on ``\\n`` (a final newline ends the last line) and drop one ``\\r`` before it."""
    raw = text.split("\n") if isinstance(text, str) else [s.rstrip("\n") for s in text]
    if isinstance(text, str) and raw and raw[-1] == "":
        raw.pop()
    out = []
    for i, line in enumerate(raw, 1):
        line = line.removesuffix("\r")
        if "\r" in line:
            raise InputFileError(f"{where} line {i} contains a carriage return that does not "
                                 f"end the line; lines end with \\n or \\r\\n")
        out.append(line)
    return out


def _kind(line: str) -> str:
    if _PLAIN.fullmatch(line):
        return "integer"
    if _NUMBERISH.fullmatch(line):
        return "number-like"
    return "label"


def _detect(rows: list[tuple[int, str]], where: str) -> str:
    """``auto``: the one format every line agrees on, or an error naming the first line
    that disagrees."""
    kinds = [(i, line, _kind(line)) for i, line in rows]
    odd = next(((i, line) for i, line, k in kinds if k == "number-like"), None)
    if odd is not None:
        i, line = odd
        raise InputFileError(
            f"{where} line {i} = {_show(line)} looks like a number but is not a plain "
            f"decimal integer ({_INTEGER_RULE}); fix the line, or pass --format labels to "
            f"read every line as a text label")
    first_i, first_line, first_kind = kinds[0]
    other = next(((i, line) for i, line, k in kinds if k != first_kind), None)
    if other is None:
        return "integers" if first_kind == "integer" else "labels"
    i, line = other
    what, but = ("an integer", "is not") if first_kind == "label" else ("not an integer", "is")
    raise InputFileError(
        f"{where} line {i} = {_show(line)} is {what} but line {first_i} = "
        f"{_show(first_line)} {but}: the format is detected only when every line agrees; "
        f"pass --format labels to read every line as a text label (or --format integers)")


def read_dataset(text: str | Iterable[str], universe: Universe,
                 input_format: str = "auto", *, skip_blank_lines: bool = False,
                 where: str = "input") -> tuple[Dataset, str]:
    """Parse one element per line (see the module docstring); returns the dataset and the
    format used, ``"integers"`` or ``"labels"``.

    ``text`` is the whole text (preferred) or an iterable of lines; ``where`` names the
    input in error messages (e.g. ``"input 'rows.txt'"``).  Errors are
    :class:`~exactdp.files.InputFileError` (or :class:`~exactdp.params.DomainError` and
    friends from the dataset) naming the line.
    """
    if not isinstance(universe, Universe):
        raise ParameterError(f"universe = {universe!r} must be a Universe")
    fmt = normalise_format(input_format)
    rows: list[tuple[int, str]] = []
    for i, line in enumerate(_lines(text, where), 1):
        if line == "" or line.isspace():
            if skip_blank_lines:
                continue
            raise InputFileError(f"{where} line {i} is blank; remove it or pass "
                                 f"--skip-blank-lines to ignore blank lines")
        rows.append((i, line))
    if not rows:
        raise InputFileError(f"{where} has no rows: the paper's datasets D in X^n have "
                             f"n >= 1 rows")
    if fmt == "auto":
        fmt = _detect(rows, where)
    if fmt == "integers":
        return Dataset.of(universe, _integers(rows, universe, where)), fmt
    values = []
    for i, line in rows:
        try:
            values.append(encode_label(line, universe.size))
        except LabelTooLongError as exc:
            raise LabelTooLongError(f"{where} line {i}: {exc}{csv_hint(line)}") from None
    return Dataset.of(universe, values), fmt


def csv_hint(line: str) -> str:
    """A hint for a line that looks like a CSV record (one element a line is read whole)."""
    if "," not in line:
        return ""
    return ("; the line holds commas, so the file looks like CSV: one column of a CSV file "
            "with a header line is read with --engine duckdb --column NAME")


def _integers(rows: list[tuple[int, str]], universe: Universe, where: str) -> list[int]:
    size = universe.size
    width = len(gmpy2.mpz(size).digits(10))
    values = []
    for i, line in rows:
        if not _PLAIN.fullmatch(line):
            raise InputFileError(f"{where} line {i} = {_show(line)} is not a plain decimal "
                                 f"integer ({_INTEGER_RULE}); pass --format labels if the "
                                 f"lines are labels{csv_hint(line)}")
        if line[0] == "0" and len(line) > 1:
            raise InputFileError(f"{where} line {i} = {_show(line)} has a leading zero; write "
                                 f"{line.lstrip('0') or '0'} (leading zeros are refused so no "
                                 f"line is read as anything but what it shows)")
        x = int(gmpy2.mpz(line)) if len(line) <= width else size + 1
        if not 1 <= x <= size:
            raise InputFileError(f"{where} line {i} = {_show(line)} is outside the universe "
                                 f"[1, M] with M = {_show(str(size))}")
        values.append(x)
    return values
