"""The optional native path of the counting samplers' batches (``_samplers_native.c``).

Python's per-call overhead is the floor of FastSample's search on numbers of a few thousand
bits (about 1 microsecond per round).  The C file, compiled when the package is installed
(optional, like CompactHistogram's ``_gf2native.c``; a failed build leaves the Python path),
runs the whole inverse-CDF search of many draws in one call, and turns one OS read into many
draws uniform on ``[d]_+``:

* :func:`search` -- ``min{z in [n] : F_c(z) >= u}`` by exactly ``ceil(log2(n + 1))`` rounds
  per draw for FastSample's ``F_c(z) = (z + 1) d' + S F'(z - c)``, from the values of
  ``S F'`` on the window that the caller computes with the paper's formula
  (``exactdp.counting.FastSample``, :class:`SearchTable`); one division per draw, then per
  round a comparison of one-word heads (a table that stays in the caches) and, after the
  rounds, one comparison over all limbs of one remainder row -- every step computed with
  masks, no early exit (see the C file for why this is exact, and for what is and is not
  constant-time);
* :func:`reduce` -- ``u = (r mod d) + 1`` from ``K + 63`` random bits ``r``, accepted iff
  ``r < floor(2**(K+63) / d) d`` (exactly uniform; the caller redraws a rejected one);
* :func:`sample` -- both in one pass (the draws never leave C); :meth:`SearchTable.sample_one`
  the same for one draw in one C call (``FastSample.sample``).

``proofs/balcer_vadhan/thm_4_10_fast_path.py`` proves the native search equal to the Python one on every
``u`` of the verify grids; ``tests/test_counting_fast_path.py`` checks the kernels against
Python's integers.  ``EXACTDP_NATIVE=0`` disables the native path (as for CompactHistogram).
"""

from __future__ import annotations

import ctypes
from array import array
from collections.abc import Sequence
from functools import cache, lru_cache

from exactdp.native_library import load

__all__ = ["LIMB_BYTES", "LazyTable", "SearchTable", "available", "lazy", "lazy_available",
           "lazy_decide", "limbs", "reduce", "sample", "search", "status", "to_limbs"]

_NAME = "_samplers_native"
_VERSION = 2
#: The lazy kernel's own version (a library built before it has none: no lazy path).
_LAZY_VERSION = 1
#: Bytes per limb of the C code's little-endian numbers.
LIMB_BYTES = 8
_p = ctypes.c_void_p
#: Read-only buffers are passed as bytes (no copy).
_c = ctypes.c_char_p


@cache
def _library() -> tuple[ctypes.CDLL | None, str]:
    lib, why = load(__file__, _NAME, "es_version", _VERSION)
    if lib is None:
        return None, why
    lib.es_search.argtypes = [ctypes.c_void_p, ctypes.c_long, _p, _c, _p]
    lib.es_sample.argtypes = [ctypes.c_void_p, ctypes.c_long, _p, _c, _p]
    lib.es_sample1.argtypes = [ctypes.c_void_p, ctypes.c_int64, _c]
    lib.es_sample1.restype = ctypes.c_int64
    lib.es_reduce.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_int, _c, ctypes.c_uint64,
                              ctypes.c_uint64, _c, _p, _p]
    if hasattr(lib, "es_lazy_version") and lib.es_lazy_version() == _LAZY_VERSION:
        lib.es_lazy.argtypes = [ctypes.c_void_p, ctypes.c_long, _p, _c, _p]
        lib.es_lazy_decide.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint64,
                                       ctypes.c_uint64]
        lib.es_lazy_decide.restype = ctypes.c_int64
    return lib, why


def available() -> bool:
    """Whether the compiled sampler kernels are present and loadable."""
    return _library()[0] is not None


def status() -> str:
    """One line saying which path the samplers' batches take, and why."""
    return _library()[1]


def _lib() -> ctypes.CDLL:
    lib, why = _library()
    if lib is None:
        raise RuntimeError(f"the native sampler path is unavailable: {why}")
    return lib


def limbs(x: int) -> int:
    """The number ``W >= 1`` of 64-bit limbs that hold ``x >= 0``."""
    return max(1, -(-x.bit_length() // 64))


def to_limbs(values: Sequence[int], width: int) -> bytes:
    """``values`` as consecutive little-endian numbers of ``width`` limbs each."""
    size = width * LIMB_BYTES
    if len(values) == 1:  # one draw (a single search): no generator
        return int(values[0]).to_bytes(size, "little")
    return b"".join(int(v).to_bytes(size, "little") for v in values)


def _address(buffer: bytearray | array) -> int:  # type: ignore[type-arg]
    """The address of a writable buffer's first byte (kept alive by the caller)."""
    if isinstance(buffer, array):
        return buffer.buffer_info()[0]
    return ctypes.addressof(ctypes.c_char.from_buffer(buffer))


class _Table(ctypes.Structure):
    """``struct es_table`` of the C file."""

    _fields_ = [("W", ctypes.c_long), ("Wd", ctypes.c_long), ("sd", ctypes.c_int64),
                ("n", ctypes.c_int64), ("rounds", ctypes.c_int64), ("t", ctypes.c_int64),
                ("S", ctypes.c_uint64), ("dn", ctypes.c_char_p), ("heads", ctypes.c_char_p),
                ("rems", ctypes.c_char_p), ("s", ctypes.c_int64), ("m1", ctypes.c_uint64),
                ("topmask", ctypes.c_uint64), ("dd", ctypes.c_char_p)]


class SearchTable:
    """What :func:`search` needs for one FastSample-shaped mechanism (see the C file): the
    outputs ``[n]``, the window ``t``, ``d'``, ``d`` and ``S = (1/gamma - 1)(n + 1)``, and the
    values ``S F'(j)`` for ``j`` in ``[-t, t)`` (the paper's formula, computed by the caller);
    stored as the kernel's ``T[j] = S F'(j) + (j + t + n + 1) d' = A(j) d' + B(j)``: the heads
    ``A(j)`` (one word each, a table that stays in the caches) and the remainders ``B(j)``
    (``limbs(d')`` limbs each, one row read per draw)."""

    def __init__(self, n: int, t: int, d: int, d_prime: int, scale: int,
                 window: Sequence[int]) -> None:
        if (len(window) != 2 * t or t < 1 or n < 1 or scale >= 1 << 62
                or n + 2 * t + 1 >= 1 << 62):
            raise ValueError("native search table: need 2t values, t >= 1, S < 2^62 and "
                             "n + 2t + 1 < 2^62")
        self.n, self.t, self.scale = n, t, scale
        self.width = limbs(d)
        self.d_words = limbs(d_prime)
        self.shift = 64 * self.d_words - d_prime.bit_length()
        self.dn = (d_prime << self.shift).to_bytes(self.d_words * LIMB_BYTES, "little")
        heads, rems = [], []
        for j, v in zip(range(-t, t), window, strict=True):
            a, b = divmod(v + (j + t + n + 1) * d_prime, d_prime)
            heads.append(a)
            rems.append(b << self.shift)
        self.heads = array("Q", heads).tobytes()
        size = self.d_words * LIMB_BYTES
        self.rems = b"".join(b.to_bytes(size, "little") for b in rems)
        self.d = d
        self.rounds = n.bit_length()
        # the structure points into the bytes here, which live as long as this object
        self._reduction = _reducer(d)
        _, shift, dd, m1, topmask = self._reduction
        self._struct = _Table(self.width, self.d_words, self.shift, n, n.bit_length(), t,
                              scale, self.dn, self.heads, self.rems, shift, m1, topmask, dd)
        self.pointer = ctypes.addressof(self._struct)
        #: bytes of OS randomness per draw (``limbs(d) + 1`` limbs, as :func:`reduce` reads)
        self.raw_bytes = (self.width + 1) * LIMB_BYTES
        self._one = _lib().es_sample1

    @property
    def nbytes(self) -> int:
        return len(self.heads) + len(self.rems)

    def sample_one(self, c: int, raw: bytes) -> int:
        """:func:`sample` of one count in one C call (no arrays): the output, or ``-1`` for a
        rejected draw.  ``raw`` must hold :attr:`raw_bytes` bytes; ``c`` an int in ``[0, n]``
        (checked again in C)."""
        if len(raw) != self.raw_bytes:
            raise ValueError("native sample_one: raw does not hold W + 1 limbs")
        z: int = self._one(self.pointer, c, raw)
        if z < -1:
            raise RuntimeError(f"native sample_one rejected its input (code {z})")
        return z


def search(table: SearchTable, counts: Sequence[int], us: bytes) -> list[int]:
    """``[min{z : F_{counts[e]}(z) >= u_e}]`` for the draws ``us`` (``len(counts)`` numbers of
    ``table.width`` limbs), ``ceil(log2(n + 1))`` rounds each."""
    if len(us) != len(counts) * table.width * LIMB_BYTES:
        raise ValueError("native search: the draws are not k numbers of W limbs")
    return _per_count("es_search", table.pointer, counts, us, "its sizes")


def _per_count(kernel: str, pointer: int, counts: Sequence[int], data: bytes,
               what: str) -> list[int]:
    """One output per count from the C function ``kernel(pointer, k, counts, data, out)``
    (``data`` already checked to hold ``k`` numbers), or :class:`RuntimeError` naming ``what``
    the kernel rejected."""
    k = len(counts)
    if k == 0:
        return []
    cs = array("q", counts)
    out = array("q", bytes(8 * k))
    code = getattr(_lib(), kernel)(pointer, k, cs.buffer_info()[0], data, out.buffer_info()[0])
    if code != 0:
        raise RuntimeError(f"native {kernel[3:]} rejected {what} (code {code})")
    return out.tolist()


@lru_cache(maxsize=64)
def _reducer(d: int) -> tuple[int, int, bytes, int, int]:
    """``(W, s, d << s, m1, topmask)`` of :func:`reduce` for ``d`` (see the C file)."""
    width = limbs(d)
    bits = d.bit_length()
    shift = 64 * width - bits
    topmask = (1 << (bits + 63 - 64 * width)) - 1  # 0 < bits + 63 - 64 W <= 63
    m1 = (1 << (bits + 63)) // d - 1
    return width, shift, (d << shift).to_bytes(width * LIMB_BYTES, "little"), m1, topmask


def reduce(d: int, raw: bytes, k: int) -> tuple[bytes, bytes]:
    """``(us, ok)`` from ``k`` random numbers of ``limbs(d) + 1`` limbs each in ``raw`` (their
    bits from ``K + 63`` on are ignored): ``us`` the ``u = (r mod d) + 1`` as numbers of
    ``limbs(d)`` limbs, ``ok[e]`` 1 iff draw ``e`` is accepted."""
    width, shift, dn, m1, topmask = _reducer(d)
    if len(raw) != k * (width + 1) * LIMB_BYTES:
        raise ValueError("native reduce: raw holds the wrong number of bytes")
    us = bytearray(k * width * LIMB_BYTES)
    ok = bytearray(k)
    if k:
        code = _lib().es_reduce(k, width, shift, dn, m1, topmask, raw, _address(us),
                                _address(ok))
        if code != 0:
            raise RuntimeError(f"native reduce failed (code {code})")
    return bytes(us), bytes(ok)


def sample(table: SearchTable, counts: Sequence[int], raw: bytes) -> list[int]:
    """:func:`reduce` then :func:`search` in one pass, no draw stored: for each count the
    search's output at ``u = (r mod d) + 1`` (``r`` from ``raw`` as for :func:`reduce`, ``d``
    the table's), or ``-1`` where that draw is rejected (the caller redraws it)."""
    if len(raw) != len(counts) * (table.width + 1) * LIMB_BYTES:
        raise ValueError("native sample: raw does not hold k numbers of W + 1 limbs")
    return _per_count("es_sample", table.pointer, counts, raw, "its sizes")


def lazy_available() -> bool:
    """Whether the built kernels include the lazy draws (:func:`lazy`)."""
    lib = _library()[0]
    return lib is not None and hasattr(lib, "es_lazy_version") and (
        lib.es_lazy_version() == _LAZY_VERSION)


class _Lazy(ctypes.Structure):
    """``struct es_lazy`` of the C file."""

    _fields_ = [("n", ctypes.c_int64), ("rounds", ctypes.c_int64), ("t", ctypes.c_int64),
                ("H_lo", ctypes.c_uint64), ("H_hi", ctypes.c_uint64),
                ("D_lo", ctypes.c_uint64), ("D_hi", ctypes.c_uint64),
                ("Qtop_lo", ctypes.c_uint64), ("Qtop_hi", ctypes.c_uint64),
                ("E", ctypes.c_uint64), ("Q", ctypes.c_char_p), ("W", ctypes.c_long),
                ("s", ctypes.c_int64), ("m1", ctypes.c_uint64), ("topmask", ctypes.c_uint64),
                ("dd", ctypes.c_char_p)]


_LOW = (1 << 64) - 1


class LazyTable:
    """What :func:`lazy` needs (see the C file and :mod:`exactdp.lazy_draws`): the outputs
    ``[n]``, the window ``t``, ``H``, ``D``, ``E``, ``Q(j)`` for ``j`` in ``[-t, t)`` and
    ``Qtop`` (numbers below ``2**127``, computed by the caller), and the reduction modulo
    ``H + 1`` of :func:`reduce`."""

    def __init__(self, n: int, t: int, top: int, big_d: int, e: int, q: Sequence[int],
                 qtop: int) -> None:
        if (len(q) != 2 * t or t < 1 or n < 1 or n >= 1 << 62 or big_d < 3
                or not 0 < top < 1 << 127 or not 0 <= e < 1 << 64):
            raise ValueError("native lazy table: need 2t values, t, n >= 1, n < 2^62, "
                             "D >= 3, 0 < H < 2^127 and E < 2^64")
        self.n, self.t, self.top = n, t, top
        self.rounds = n.bit_length()
        self.q = b"".join(v.to_bytes(16, "little") for v in q)
        self._reduction = _reducer(top + 1)
        width, shift, dd, m1, topmask = self._reduction
        self.width = width
        #: bytes of randomness per draw (``limbs(H + 1) + 1`` limbs, as :func:`reduce` reads)
        self.raw_bytes = (width + 1) * LIMB_BYTES
        self._struct = _Lazy(n, self.rounds, t, top & _LOW, top >> 64, big_d & _LOW,
                             big_d >> 64, qtop & _LOW, qtop >> 64, e, self.q, width, shift,
                             m1, topmask, dd)
        self.pointer = ctypes.addressof(self._struct)


def lazy(table: LazyTable, counts: Sequence[int], raw: bytes) -> list[int]:
    """For each count: the output decided by the leading block ``a`` of its draw (``a`` from
    :attr:`LazyTable.raw_bytes` bytes of ``raw``, reduced modulo ``H + 1`` as :func:`reduce`
    does), ``-1`` where that reduction rejects, ``-2`` where the block is undecided."""
    if len(raw) != len(counts) * table.raw_bytes:
        raise ValueError("native lazy: raw does not hold k numbers of W + 1 limbs")
    return _per_count("es_lazy", table.pointer, counts, raw, "its sizes or counts")


def lazy_decide(table: LazyTable, c: int, a: int) -> int:
    """The kernel's decision for the block ``a`` in ``[0, H]`` at count ``c``: the output, or
    ``-2`` (undecided)."""
    z: int = _lib().es_lazy_decide(table.pointer, c, a & _LOW, a >> 64)
    if z < -2:
        raise RuntimeError(f"native lazy_decide rejected its input (code {z})")
    return z
