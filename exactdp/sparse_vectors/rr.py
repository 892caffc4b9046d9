"""Randomized response on every cell of ALP's bit matrix, two exact ways.

Step 3 of ALP-projection (ALP-short Algorithm 1, ALP-full Algorithms 2 and 4) replaces every one of
the
``N = s*m`` cells ``z_j`` by ``RandResponse(z_j, p)``: ``1 - z_j`` with probability exactly
``p = a/D``, independently.  Cells are numbered ``j = (b-1)*s + (a-1)`` (cell ``(a, b)``, row
``a``, column ``b``), and a matrix is held as ``N`` ASCII characters ``'0'``/``'1'`` while it
is built, then packed into ``ceil(N/8)`` bytes (cell ``j`` is bit ``j & 7`` of byte ``j >> 3``).

* :func:`respond_cells` -- the per-cell path: one coin :func:`exactdp.noise.randomized_response`
  (``source.bernoulli(a, D)``, i.e. ``uniform(D) <= a``) per cell, ``N`` draws.  This is what
  the exploring source of :mod:`exactdp.explore` sees.
* :func:`respond_blocks` -- the fast path for ``D <= 62``: the cells are cut into consecutive
  blocks of ``BLOCK_CELLS`` (the last one shorter; the cut depends on ``N`` only), and block
  ``t`` of ``n_t`` cells costs ONE draw ``u = uniform(D^{n_t})``.  Writing
  ``u - 1 = sum_{i<n_t} e_i D^{n_t - 1 - i}`` (base-``D`` digits, most significant first,
  :func:`gmpy2.mpz.digits`), cell ``i`` of the block flips iff ``e_i < a``.  Since ``u - 1`` is
  uniform on ``[0, D^{n_t})``, its digits are independent and uniform on ``{0..D-1}``, so
  each cell flips with probability exactly ``a/D``, independently: the same product law as
  the per-cell path (checked by enumerating every ``u`` in the tests).  With ``n_t = 1`` the
  rule is literally the per-cell coin (``e_0 = u - 1 < a`` iff ``u <= a``).
  ``ceil(N / BLOCK_CELLS)`` draws.

Both paths make a number of draws that depends on ``(N, p)`` only (strict time).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import gmpy2

from exactdp.noise import randomized_response
from exactdp.params import ParameterError
from exactdp.randomness import RandomSource

__all__ = [
    "BLOCK_CELLS",
    "MAX_BLOCK_BASE",
    "block_draws",
    "block_flips",
    "pack_cells",
    "respond_blocks",
    "respond_cells",
    "unpack_cells",
]

#: Cells per draw of the fast path (a public constant: the cut depends on ``s*m`` only).
#: 8192 cells of base 6 are a 21,000-bit draw; measured fastest among 2^10..2^15 here.
BLOCK_CELLS = 8192
#: :func:`gmpy2.mpz.digits` writes bases up to 62.
MAX_BLOCK_BASE = 62

_ZERO, _ONE = 0x30, 0x31


@lru_cache(maxsize=64)
def _flip_table(a: int, base: int) -> bytes:
    """``bytes.translate`` table: the digit character of ``e`` -> ``'1'`` iff ``e < a``."""
    src = "".join(gmpy2.mpz(e).digits(base) for e in range(base)).encode("ascii")
    dst = bytes(_ONE if e < a else _ZERO for e in range(base))
    return bytes.maketrans(src, dst)


def block_flips(u: int, n: int, flip: Fraction) -> bytes:
    """The ``n`` flip characters (``b'1'`` = flip) of one block decoded from its draw ``u`` in
    ``[1, D^n]``: character ``i`` is ``'1'`` iff the ``i``-th most significant of the ``n``
    base-``D`` digits of ``u - 1`` is below ``a`` (``flip = a/D``, ``D <= 62``)."""
    a, base = flip.numerator, flip.denominator
    if base > MAX_BLOCK_BASE:
        raise ParameterError(f"flip = {flip}: the block path needs a denominator <= "
                             f"{MAX_BLOCK_BASE}")
    if isinstance(u, bool) or not isinstance(u, int) or u < 1:
        raise ParameterError(f"block draw u = {u!r:.40} must be an int in [1, {base}^{n}]")
    digits = gmpy2.mpz(u - 1).digits(base).encode("ascii")
    if len(digits) > n:
        raise ParameterError(f"block draw u (of {u.bit_length()} bits) exceeds {base}^{n}")
    return digits.rjust(n, b"0").translate(_flip_table(a, base))


def block_draws(cells: int) -> int:
    """Draws of :func:`respond_blocks` for ``cells`` cells: ``ceil(cells / BLOCK_CELLS)``."""
    return -(-cells // BLOCK_CELLS)


def respond_blocks(z: bytes | bytearray, flip: Fraction, source: RandomSource) -> bytes:
    """``RandResponse`` on every cell of ``z`` (characters ``'0'``/``'1'``) by blocks:
    ``block_draws(len(z))`` draws ``uniform(D^{n_t})``; returns the packed noisy matrix."""
    n = len(z)
    base = flip.denominator
    if base > MAX_BLOCK_BASE:
        raise ParameterError(f"flip = {flip}: the block path needs a denominator <= "
                             f"{MAX_BLOCK_BASE}")
    full = base ** BLOCK_CELLS
    parts = []
    for start in range(0, n, BLOCK_CELLS):
        size = min(BLOCK_CELLS, n - start)
        u = source.uniform(full if size == BLOCK_CELLS else base ** size)
        parts.append(block_flips(u, size, flip))
    flips = b"".join(parts)
    return _pack_int(_as_int(z) ^ _as_int(flips), n)


def respond_cells(z: bytes | bytearray, flip: Fraction, source: RandomSource) -> bytes:
    """``RandResponse`` on every cell of ``z`` (characters ``'0'``/``'1'``), one coin
    :func:`exactdp.noise.randomized_response` per cell in cell order (``len(z)`` draws of
    ``uniform(D)``); returns the packed noisy matrix."""
    out = bytes(_ZERO + randomized_response(c - _ZERO, flip, source) for c in z)
    return _pack_int(_as_int(out), len(z))


def _as_int(chars: bytes | bytearray) -> int:
    """The int whose bit ``j`` is character ``j`` (``'0'``/``'1'``)."""
    return int(chars[::-1], 2)


def _pack_int(value: int, n: int) -> bytes:
    return value.to_bytes((n + 7) // 8, "little")


def pack_cells(z: bytes | bytearray) -> bytes:
    """Characters ``'0'``/``'1'`` -> packed bytes (cell ``j`` is bit ``j & 7`` of byte
    ``j >> 3``)."""
    return _pack_int(_as_int(z), len(z))


def unpack_cells(bits: bytes, n: int) -> tuple[int, ...]:
    """Packed bytes -> the ``n`` cell values in cell order."""
    value = int.from_bytes(bits, "little")
    return tuple(int(ch) for ch in format(value, "b").zfill(n)[::-1][:n]) if n else ()
