"""The optional native path of the counting samplers' batches (``_samplers_native.c``).

Python's per-call overhead is the floor of FastSample's search on numbers of a few thousand
bits (about 1 microsecond per round).  The C file, compiled when the package is installed
(optional, like CompactHistogram's ``_gf2native.c``; a failed build leaves the Python path),
runs the whole inverse-CDF search of many draws in one call, and turns one OS read into many
draws uniform on ``[d]_+``:

* :func:`search` -- ``min{z in [n] : F_c(z) >= u}`` by exactly ``ceil(log2(n + 1))`` rounds
  per draw, ``F_c(z) = (z + 1) d' + T[clamp(z - c)]`` from a table the caller computes with
  the paper's formula (``exactdp.counting.FastSample``); comparisons over all limbs, no early
  exit (see the C file for what is and is not constant-time);
* :func:`reduce` -- ``u = (r mod d) + 1`` from ``K + 63`` random bits ``r``, accepted iff
  ``r < floor(2**(K+63) / d) d`` (exactly uniform; the caller redraws a rejected one).

``proofs/thm_4_10_fast_path.py`` proves the native search equal to the Python one on every
``u`` of the verify grids; ``tests/test_native_samplers.py`` checks both kernels against
Python's integers.  ``EXACTDP_NATIVE=0`` disables the native path (as for CompactHistogram).
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import os
import sys
from array import array
from collections.abc import Sequence
from functools import cache
from pathlib import Path

__all__ = ["LIMB_BYTES", "available", "limbs", "reduce", "search", "status", "to_limbs"]

_NAME = "_samplers_native"
_VERSION = 1
#: Bytes per limb of the C code's little-endian numbers.
LIMB_BYTES = 8
_p = ctypes.c_void_p


def _candidates() -> list[Path]:
    """The library next to this file, then in any other copy of the package on sys.path."""
    dirs = [Path(__file__).resolve().parent] + [Path(p) / "exactdp" for p in sys.path if p]
    return [d / f"{_NAME}{suffix}" for d in dirs
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if (d / f"{_NAME}{suffix}").is_file()]


@cache
def _library() -> tuple[ctypes.CDLL | None, str]:
    if os.environ.get("EXACTDP_NATIVE", "1") == "0":
        return None, "disabled (EXACTDP_NATIVE=0)"
    paths = _candidates()
    if not paths:
        return None, "not built (the optional C extension failed to compile or was not installed)"
    try:
        lib = ctypes.CDLL(str(paths[0]))
    except OSError as exc:
        return None, f"could not be loaded: {exc}"
    if lib.es_version() != _VERSION:
        return None, f"{paths[0].name} is a different version: reinstall the package"
    lib.es_search.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_int64, ctypes.c_int,
                              ctypes.c_int64, _p, _p, _p, _p, _p, _p]
    lib.es_reduce.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_int, _p, ctypes.c_uint64,
                              ctypes.c_uint64, _p, _p, _p]
    return lib, f"native ({paths[0].name})"


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
    return b"".join(int(v).to_bytes(size, "little") for v in values)


def _address(buffer: bytes | bytearray | array) -> int:  # type: ignore[type-arg]
    """The address of a buffer's first byte (kept alive by the caller during the call)."""
    if isinstance(buffer, bytes):
        return ctypes.cast(ctypes.c_char_p(buffer), ctypes.c_void_p).value or 0
    return ctypes.addressof(ctypes.c_char.from_buffer(buffer))


def search(width: int, n: int, t: int, counts: Sequence[int], us: bytes, d_prime: bytes,
           d: bytes, table: bytes) -> list[int]:
    """``[min{z : F_{counts[e]}(z) >= u_e}]`` for the draws ``us`` (``len(counts)`` numbers of
    ``width`` limbs), ``ceil(log2(n + 1))`` rounds each; ``table`` holds ``2t + 2`` rows."""
    k = len(counts)
    if len(us) != k * width * LIMB_BYTES or len(table) != (2 * t + 2) * width * LIMB_BYTES:
        raise ValueError("native search: buffer sizes do not match k, W and t")
    if k == 0:
        return []
    cs = array("q", counts)
    out = array("q", bytes(8 * k))
    code = _lib().es_search(k, width, n, n.bit_length(), t, _address(cs), _address(us),
                            _address(d_prime), _address(d), _address(table), _address(out))
    if code != 0:
        raise RuntimeError(f"native search rejected its sizes (code {code})")
    return out.tolist()


def reduce(d: int, raw: bytes, k: int) -> tuple[bytes, bytes]:
    """``(us, ok)`` from ``k`` random numbers of ``limbs(d) + 1`` limbs each in ``raw``
    (their bits from ``K + 63`` on are ignored): ``us`` the ``u = (r mod d) + 1`` as numbers of
    ``limbs(d)`` limbs, ``ok[e]`` 1 iff draw ``e`` is accepted."""
    width = limbs(d)
    if len(raw) != k * (width + 1) * LIMB_BYTES:
        raise ValueError("native reduce: raw holds the wrong number of bytes")
    bits = d.bit_length()
    shift = 64 * width - bits
    topmask = (1 << (bits + 63 - 64 * width)) - 1  # 0 < bits + 63 - 64 W <= 63
    m1 = (1 << (bits + 63)) // d - 1
    us = bytearray(k * width * LIMB_BYTES)
    ok = bytearray(k)
    dn = (d << shift).to_bytes(width * LIMB_BYTES, "little")
    if k:
        code = _lib().es_reduce(k, width, shift, _address(dn), m1, topmask, _address(raw),
                                _address(us), _address(ok))
        if code != 0:
            raise RuntimeError(f"native reduce failed (code {code})")
    return bytes(us), bytes(ok)

