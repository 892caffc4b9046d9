"""Integer vectors from a CSV or NPY file, for ``exactdp project`` (paper 001).

The projections are exact only on an integer grid, so both readers accept integers only and
refuse anything else with the file, the place and how to quantise:

* **CSV** (UTF-8; a byte-order mark is dropped; ``\\n`` or ``\\r\\n``): one vector a line,
  comma-separated plain decimal integers (an optional ``-``, ASCII digits, spaces around a
  field ignored); blank lines and lines starting with ``#`` are skipped.  A header line is
  skipped when declared (``header=True``, ``--header``) or when it is the first line and no
  field of it reads as a number (``nan``, ``inf``, ``1.5``, ``1e3`` all read as numbers, so
  a first row of ``nan`` is an error, never a header).  Every vector has the same length.
* **NPY** (NumPy's ``.npy`` format, versions 1.0, 2.0 and 3.0, read WITHOUT numpy): the
  header is a Python dict literal (``descr``, ``fortran_order``, ``shape``) of at most
  :data:`MAX_NPY_HEADER` bytes and no number longer than :data:`MAX_NPY_DIGITS` digits
  (checked before parsing: a huge literal would take minutes), read with
  :func:`ast.literal_eval`; ``descr`` must be an integer dtype (``i1 i2 i4 i8 u1 u2 u4 u8``
  in any byte order; ``b1`` booleans are refused); ``shape`` is ``(p,)`` (one vector) or
  ``(n, p)``; C or Fortran order; the data must be exactly ``n * p`` items.

A file with a ``.npy`` name, or starting with NumPy's magic bytes, is read as NPY; anything
else as CSV.
"""

from __future__ import annotations

import ast
import re
import struct

from exactdp.files import InputFileError, decode_utf8, read_bytes

__all__ = ["QUANTISE", "read_vectors"]

NPY_MAGIC = b"\x93NUMPY"
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)", re.ASCII)
# What a spreadsheet or a float parser would read as a number (a header has none of these).
_NUMBERISH = re.compile(r"[-+]?(?:[0-9]|\.[0-9]|nan\b|inf)", re.ASCII | re.IGNORECASE)
_NOT_FINITE = re.compile(r"[-+]?(?:nan|inf|infinity)", re.ASCII | re.IGNORECASE)
#: NumPy's own cap on an NPY header (numpy.lib.format reads at most this much by default).
MAX_NPY_HEADER = 10_000
#: The longest number an NPY header may hold (a shape entry needs at most 20 digits).
MAX_NPY_DIGITS = 30
_MAX_FIELD = 100  # characters in one CSV field
_STRUCT = {("i", 1): "b", ("i", 2): "h", ("i", 4): "i", ("i", 8): "q",
           ("u", 1): "B", ("u", 2): "H", ("u", 4): "I", ("u", 8): "Q"}

#: How to turn real data into the integer grid the exact mechanisms need.
QUANTISE = ("quantise real data first: choose a public scale C (e.g. 16 for pixels in [0, 1] "
            "at 1/16 steps), store round(C * value) as integers, and give --beta in the same "
            "grid steps (beta_real * C)")


def read_vectors(path: str, max_bytes: int, header: bool = False) -> list[tuple[int, ...]]:
    """The integer vectors of ``path`` (``"-"``: standard input), CSV or NPY; ``header``:
    the CSV's first line is a header (skipped whatever it holds)."""
    data = read_bytes(path, "input", max_bytes)
    if data.startswith(NPY_MAGIC) or path.lower().endswith(".npy"):
        return _npy(data, path)
    return _csv(decode_utf8(data, path), path, header)


def _csv(text: str, path: str, header: bool = False) -> list[tuple[int, ...]]:
    rows: list[tuple[int, ...]] = []
    first = True
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if first and (header or not any(_NUMBERISH.match(f) for f in fields)):
            first = False
            continue  # a header line
        first = False
        row = []
        for col, field in enumerate(fields, 1):
            if _NOT_FINITE.fullmatch(field):
                raise InputFileError(
                    f"input {path!r} line {number}, field {col}: {field!r} is not a finite "
                    f"number (a missing value?); the exact projections need an integer in "
                    f"every field: fill or drop missing values, then {QUANTISE}")
            if len(field) > _MAX_FIELD or not _INT.fullmatch(field):
                shown = field[:40] + ("..." if len(field) > 40 else "")
                hint = " (if the first line is a header, pass --header)" if not rows else ""
                raise InputFileError(
                    f"input {path!r} line {number}, field {col}: {shown!r} is not an integer"
                    f"{hint}; the exact projections need integer data: {QUANTISE}")
            row.append(int(field))
        if rows and len(row) != len(rows[0]):
            raise InputFileError(f"input {path!r} line {number} has {len(row)} values; the "
                                 f"first vector has {len(rows[0])} (every vector needs the "
                                 f"same length p)")
        rows.append(tuple(row))
    if not rows:
        raise InputFileError(f"input {path!r} holds no vectors (one comma-separated line of "
                             f"integers per vector)")
    return rows


def _npy_header(data: bytes, path: str) -> tuple[dict[str, object], int]:
    """The header dict and the offset of the data."""
    if not data.startswith(NPY_MAGIC) or len(data) < 10:
        raise InputFileError(f"input {path!r} is not an NPY file (it must start with "
                             f"b'\\x93NUMPY' and a version)")
    major = data[6]
    if major == 1:
        size, start = struct.unpack("<H", data[8:10])[0], 10
    elif major in (2, 3) and len(data) >= 12:
        size, start = struct.unpack("<I", data[8:12])[0], 12
    else:
        raise InputFileError(f"input {path!r}: NPY format version {major}.{data[7]} is not "
                             f"supported (1.0, 2.0 and 3.0 are)")
    if start + size > len(data):
        raise InputFileError(f"input {path!r}: the NPY header claims {size} bytes but the "
                             f"file ends first")
    if size > MAX_NPY_HEADER:
        raise InputFileError(f"input {path!r}: the NPY header claims {size} bytes; at most "
                             f"{MAX_NPY_HEADER} are read (NumPy's own limit)")
    digits = max((len(m) for m in re.findall(rb"[0-9]+", data[start:start + size])),
                 default=0)
    if digits > MAX_NPY_DIGITS:
        raise InputFileError(f"input {path!r}: the NPY header holds a number of {digits} "
                             f"digits; a shape needs at most {MAX_NPY_DIGITS}")
    try:
        header = data[start:start + size].decode("utf-8" if major == 3 else "latin-1")
        parsed = ast.literal_eval(header.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise InputFileError(f"input {path!r}: the NPY header is not a Python dict literal "
                             f"({data[start:start + 60]!r})") from None
    if not isinstance(parsed, dict) or set(parsed) != {"descr", "fortran_order", "shape"}:
        raise InputFileError(f"input {path!r}: the NPY header must be a dict with exactly "
                             f"the keys 'descr', 'fortran_order' and 'shape'")
    return parsed, start + size


def _npy(data: bytes, path: str) -> list[tuple[int, ...]]:
    header, offset = _npy_header(data, path)
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    if not isinstance(descr, str) or not re.fullmatch(r"[<>|=]?[a-zA-Z][0-9]*", descr):
        raise InputFileError(f"input {path!r}: NPY dtype {descr!r} is not a plain dtype "
                             f"(structured arrays are not read); save an integer array")
    order, kind, size_text = descr[:1], descr.lstrip("<>|=")[:1], descr.lstrip("<>|=")[1:]
    key = (kind, int(size_text) if size_text else 0)
    if key not in _STRUCT:
        what = {"f": "floating-point", "c": "complex", "b": "boolean", "O": "object",
                "U": "string", "S": "bytes", "M": "datetime", "m": "timedelta"}.get(kind,
                                                                                   "non-integer")
        raise InputFileError(f"input {path!r}: NPY dtype {descr!r} is {what}; only integer "
                             f"dtypes (int8..int64, uint8..uint64) are read: {QUANTISE} "
                             f"(numpy: np.save(f, np.rint(C * x).astype(np.int64)))")
    if not isinstance(fortran, bool):
        raise InputFileError(f"input {path!r}: NPY 'fortran_order' must be True or False")
    if (not isinstance(shape, tuple) or len(shape) not in (1, 2)
            or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                       for s in shape)):
        raise InputFileError(f"input {path!r}: NPY shape {shape!r} must be (p,) for one "
                             f"vector or (n, p) for n vectors, all sizes positive")
    n, p = (1, shape[0]) if len(shape) == 1 else shape
    width = key[1]
    body = data[offset:]
    if len(body) != n * p * width:
        raise InputFileError(f"input {path!r}: NPY shape {shape!r} of {descr!r} needs "
                             f"{n * p * width} data bytes, the file has {len(body)}")
    endian = ">" if order == ">" else "<"  # '|' (one byte) and '=' (native here: little)
    if order == "=":
        import sys

        endian = "<" if sys.byteorder == "little" else ">"
    flat = struct.unpack(f"{endian}{n * p}{_STRUCT[key]}", body)
    if fortran:  # column-major: item (r, c) is at c * n + r
        return [tuple(flat[c * n + r] for c in range(p)) for r in range(n)]
    return [tuple(flat[r * p:(r + 1) * p]) for r in range(n)]
