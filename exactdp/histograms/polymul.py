"""Truncated products of polynomials with non-negative integer coefficients.

ApproxConvExp (Algorithm 6.16) squares vectors of ``t`` integers of ``log2 s`` bits each
``log2 m`` times, where for PureSparseHistogram ``s`` has about ``n log2(3|X|)`` bits and
``t`` goes up to about ``n`` (Theorem 6.10 iv: the whole algorithm is
``O~(n^2 log^2 |X|)``).  The paper assumes multiplication in ``O~(t log s)``
([vzGG13] Cor. 8.27), so the product must be computed by a fast method, never
term-by-term.  Three back ends compute exactly the same coefficients:

``"flint"``
    python-flint's ``fmpz_poly.mul_low`` (FLINT chooses classical, Kronecker
    substitution or a Schoenhage-Strassen FFT over the coefficients by size).
``"gmpy2"``
    Kronecker substitution by hand: pack each coefficient into a slot of ``w`` bits
    (``w`` = the bits a product coefficient can need), multiply the two packed
    integers once with GMP, unpack the first ``length`` slots.  Slots of at most 8
    bytes are machine words packed by :class:`array.array`, and packed integers below
    1024 bits are multiplied as Python ints (converting to GMP costs more there):
    the same coefficients, fewer Python-level steps (the strict-time rows trace every one).
``"python"``
    the same Kronecker substitution on Python ints (Karatsuba): the dependency-free
    path, exact but slow for big inputs.

Measured (``PYTHONPATH=. python tests/benchmarks/bench_polymul.py``; 2-core VM shared
with other jobs, load ~1.5, Python 3.11.7, python-flint 0.9.0, gmpy2 2.3.2): truncated
squaring of ``t`` random coefficients of ``b`` bits, i.e. one step of ApproxConvExp at
PureSparseHistogram sizes ``b ~ 65.6 n`` for ``|X| = 2^64`` and ``t`` up to the largest
power of two below ``2(n + 1)``; seconds, best of 3::

      t      b   flint   gmpy2  python
     16   6600  0.0009  0.0012  0.0076
    128   6600  0.0071  0.0117  0.2053
    128  19700  0.0192  0.0345  0.6745
    512  19700  0.0541  0.1137       -
   1024  65700  0.4627  0.9553       -

FLINT is 1.3-2x faster than Kronecker substitution on GMP at every size (the by-hand
packing pads each slot to a product coefficient's width, so GMP multiplies integers twice
the size of the data), and the Python-int path is 8-35x slower than FLINT.  So
:data:`DEFAULT_BACKEND` is ``"flint"`` when python-flint imports, else ``"gmpy2"``;
``"python"`` stays for cross-checking and for platforms without either.  (With the
certified decisions of :class:`exactdp.histograms.orderstats.ApproxBinDraw` the products
run only for rare ``u`` and in padded mode; they dominate there.)

:func:`floor_divide` floors every coefficient by one divisor (the ``/s`` and ``/s^2``
of Algorithm 6.16 step 3): a shift when the divisor is a power of two, GMP's
sub-quadratic division otherwise (Python's ``//`` is quadratic: 15x slower than GMP for
131,000 by 65,700 bits, measured).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from itertools import compress, repeat
from operator import floordiv, rshift

import gmpy2

from exactdp.params import ParameterError
from exactdp.trace import active

try:  # optional: the fastest back end when present
    import flint
    HAVE_FLINT = True
except ImportError:  # pragma: no cover - exercised only where python-flint is missing
    HAVE_FLINT = False

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "floor_divide",
    "truncated_product",
    "truncated_square",
]

BACKENDS: tuple[str, ...] = ("flint", "gmpy2", "python") if HAVE_FLINT else (
    "gmpy2", "python")
#: The back end used when none is named (see the measurements above).
DEFAULT_BACKEND: str = BACKENDS[0]


#: Slots of at most 8 bytes are packed and unpacked through :class:`array.array` of the
#: next machine width (``{bytes needed: (slot bytes, type code)}``; little-endian
#: machines only, and only codes whose item size is what the table says).
def _slot_table() -> dict[int, tuple[int, str]]:
    if sys.byteorder != "little":
        return {}
    codes = [(size, code) for size, code in ((1, "B"), (2, "H"), (4, "I"), (8, "Q"))
             if array(code).itemsize == size]
    return {need: min(c for c in codes if c[0] >= need) for need in range(1, 9)
            if any(size >= need for size, _ in codes)}


_SLOTS: dict[int, tuple[int, str]] = _slot_table()
#: Below this many bytes Python's own multiplication is as fast as converting to GMP.
_GMP_BYTES = 128


def _check_backend(backend: str | None) -> str:
    name = DEFAULT_BACKEND if backend is None else backend
    if name not in BACKENDS:
        raise ParameterError(f"backend = {backend!r} is not available; choose one of "
                             f"{', '.join(BACKENDS)}")
    return name


def _product(a: Sequence[int], b: Sequence[int] | None, length: int,
             backend: str | None) -> list[int]:
    # Written for few Python-level steps and calls (the strict-time rows run it under a
    # sys.setprofile hook that traces every step and every call): trimming and
    # Kronecker substitution inline, the trace read once (exactdp.trace.active).
    name = DEFAULT_BACKEND if backend is None else backend
    if name not in BACKENDS:
        _check_backend(backend)  # raises the typed error
    if (type(length) is not int and (isinstance(length, bool) or not isinstance(length, int))
            or length < 0):
        raise ParameterError(f"length = {length!r} must be an int >= 0")
    # x, y = a[:length], b[:length] as ints without trailing zeros: only these coefficients
    # reach degree < length (when there are any, the last non-zero index is found by
    # compress, C-level)
    x = list(map(int, a[:length]))
    if x and not x[-1]:
        del x[next(compress(range(len(x) - 1, -1, -1), reversed(x)), -1) + 1:]
    if b is None:
        y = x
        if x and min(x) < 0:
            raise ParameterError("truncated_product: coefficients must be non-negative")
    else:
        y = list(map(int, b[:length]))
        if y and not y[-1]:
            del y[next(compress(range(len(y) - 1, -1, -1), reversed(y)), -1) + 1:]
        if (x and min(x) < 0) or (y and min(y) < 0):
            raise ParameterError("truncated_product: coefficients must be non-negative")
    events = active()
    if events is not None:
        events.append(("polymul", length))
    if not x or not y:
        return [0] * length
    lx = len(x)
    ly = lx if b is None else len(y)
    if lx == 1 or ly == 1:  # a scalar times a vector: no packing needed
        c, v = (x[0], y) if lx == 1 else (y[0], x)
        if name != "python" and c.bit_length() > 8 * _GMP_BYTES:
            out = list(map(int, map(gmpy2.mpz(c).__mul__, v)))
        else:
            out = list(map(c.__mul__, v))
        return out + [0] * (length - len(out))
    if name == "flint":
        px = flint.fmpz_poly(x)
        py = px if b is None else flint.fmpz_poly(y)
        coeffs = list(map(int, px.mul_low(py, length).coeffs()))
        return coeffs + [0] * (length - len(coeffs))
    # Kronecker substitution: a product coefficient is a sum of min(len x, len y) products
    # x_i y_j, so it fits in bits(max x) + bits(max y) + bits(min(len x, len y)) bits; slots
    # are whole bytes so that packing and unpacking are single bytes conversions.
    if b is None:
        bits = 2 * max(x).bit_length() + lx.bit_length()
    else:
        bits = max(x).bit_length() + max(y).bit_length() + min(lx, ly).bit_length()
    width = (bits + 7) // 8
    slot = _SLOTS.get(width)
    if slot is not None:  # machine-width slots: array packs and unpacks them
        width, code = slot
        packed_x = int.from_bytes(array(code, x).tobytes(), "little")
        packed_y = packed_x if b is None else int.from_bytes(array(code, y).tobytes(),
                                                             "little")
    else:
        packed_x = int.from_bytes(
            b"".join(map(int.to_bytes, x, repeat(width), repeat("little"))),  # type: ignore[arg-type]
            "little")
        packed_y = packed_x if b is None else int.from_bytes(
            b"".join(map(int.to_bytes, y, repeat(width), repeat("little"))),  # type: ignore[arg-type]
            "little")
    size = length * width
    if name == "gmpy2" and size > _GMP_BYTES:
        gx = gmpy2.mpz(packed_x)
        prod = int(gx * gx if b is None else gx * gmpy2.mpz(packed_y))
    else:
        prod = packed_x * packed_y
    raw = (prod & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    if slot is not None:
        return array(code, raw).tolist()
    slots = map(slice, range(0, size, width), range(width, size + width, width))
    return list(map(int.from_bytes, map(raw.__getitem__, slots),  # type: ignore[arg-type]
                    repeat("little")))


def truncated_product(a: Sequence[int], b: Sequence[int], length: int, *,
                      backend: str | None = None) -> list[int]:
    """The first ``length`` coefficients of the product of ``a`` and ``b``.

    ``a``, ``b``: coefficient lists (``a[k]`` multiplies ``x**k``), non-negative ints.
    Returns ``[(a*b)_0, ..., (a*b)_{length-1}]`` with ``(a*b)_k = sum_{i<=k} a_i b_{k-i}``
    (the truncated convolution of Definition 6.12 when ``length = t``), exactly.
    Time: one multiplication of ``O(length * w)``-bit integers (or FLINT's equivalent)
    for ``w`` the bit length of a product coefficient, plus linear packing.
    """
    return _product(a, b, length, backend)


def truncated_square(a: Sequence[int], length: int, *,
                     backend: str | None = None) -> list[int]:
    """``truncated_product(a, a, length)``, using squaring (cheaper than a product)."""
    return _product(a, None, length, backend)


def floor_divide(values: Sequence[int], divisor: int) -> list[int]:
    """``[v // divisor for v in values]`` for non-negative ``v`` and ``divisor >= 1``.

    A power-of-two divisor is a shift; otherwise GMP divides (sub-quadratic for big
    operands, where Python's ``//`` is schoolbook), or Python for divisors of at most
    1024 bits (where converting to GMP costs more than it saves).
    """
    if (type(divisor) is not int and (isinstance(divisor, bool) or not isinstance(divisor, int))
            or divisor < 1):
        raise ParameterError(f"divisor = {divisor!r} must be an int >= 1")
    events = active()
    if events is not None:
        events.append(("floor_divide", len(values)))
    if divisor & (divisor - 1) == 0:
        return list(map(rshift, map(int, values), repeat(divisor.bit_length() - 1)))
    if divisor.bit_length() <= 8 * _GMP_BYTES:
        return list(map(floordiv, map(int, values), repeat(divisor)))
    return list(map(int, map(floordiv, map(gmpy2.mpz, values), repeat(gmpy2.mpz(divisor)))))
