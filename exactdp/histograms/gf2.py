"""Carry-less arithmetic in ``GF(2)[t]``: polynomials over ``GF(2)`` as Python ints.

A polynomial is an ``int`` whose bit ``i`` is the coefficient of ``t**i``; addition is ``^``.
These are the operations :class:`exactdp.histograms.fields.VanLintField` is built from.

Carry-less multiplication has two exact methods, chosen by size (:func:`clmul`):

``shift-xor``
    ``a * b = XOR of (a << i)`` over the set bits ``i`` of the sparser factor: pure Python,
    cost ``popcount * size``.  Always used for the tiny fields of the exhaustive checks, and
    for the products by a small element that dominate Horner evaluation at ``x in X``.
``Kronecker``
    spread every bit into its own ``4 * digits``-bit slot (no slot can overflow: a slot
    sums at most ``min(popcount)`` ones), multiply the two integers once with GMP, keep
    the parity of every slot.  Used for dense-by-dense products in large fields, where
    it is 10x faster than shift-xor (measured at ``m = 39366``).

and a third for a factor of known short length, whose operation sequence depends on the
length only (:func:`clmul_window`, 4-bit windows; :func:`clmul_bounded` chooses by the
bounds).  The thresholds between the methods (``_KRONECKER_MIN_POPCOUNT``,
``_WINDOW_MAX_NIBBLES``) are also used by the field's written-out loops.

python-flint's ``fq_default`` (FQ_NMOD, one machine word per bit) was measured slower at
``m = 39366`` (7 ms per dense product, 0.3 ms per product by a 64-bit element, against
4 ms and 0.05-0.1 ms here), so it is not used.

Besides products: squaring (:func:`gf2_square`, a bit spread), long division
(:func:`gf2_mod`), the gcd (:func:`gf2_gcd`) and Rabin's irreducibility test
(:func:`rabin_irreducible`).
"""

from __future__ import annotations

from collections.abc import Callable

import gmpy2

from exactdp.params import ParameterError

__all__ = [
    "clmul",
    "clmul_bounded",
    "clmul_kronecker",
    "clmul_shift_xor",
    "clmul_window",
    "gf2_gcd",
    "gf2_mod",
    "gf2_square",
    "rabin_irreducible",
]

# Below this popcount of the sparser factor, shift-xor beats the Kronecker product.
_KRONECKER_MIN_POPCOUNT = 256
# Up to this many nibbles in the shorter factor, 4-bit windows beat the Kronecker product.
_WINDOW_MAX_NIBBLES = 64
_PARITY = str.maketrans("0123456789abcdef", "0101010101010101")


def clmul_shift_xor(a: int, b: int) -> int:
    """The carry-less product of bit-vectors ``a, b >= 0``: ``XOR of a << i`` over the set
    bits ``i`` of the sparser factor."""
    if a.bit_count() < b.bit_count():
        a, b = b, a
    r = 0
    while b:
        low = b & -b
        r ^= a << (low.bit_length() - 1)
        b ^= low
    return r


def _window(a: int) -> tuple[int, ...]:
    """``(a * v for v in 0..15)`` carry-less: 3 shifts and 11 xors."""
    a2 = a << 1
    a3 = a2 ^ a
    a4 = a << 2
    a8 = a << 3
    a12 = a8 ^ a4
    return (0, a, a2, a3, a4, a4 ^ a, a4 ^ a2, a4 ^ a3,
            a8, a8 ^ a, a8 ^ a2, a8 ^ a3, a12, a12 ^ a, a12 ^ a2, a12 ^ a3)


def clmul_window(a: int, b: int, nibbles: int) -> int:
    """The carry-less product for ``0 <= b < 16**nibbles`` by 4-bit windows: a table of the 16
    multiples of ``a``, then Horner over the nibbles of ``b``.  The operation count,
    ``14 + 2 (nibbles - 1)``, depends on ``nibbles`` only, never on the values."""
    if nibbles < 1 or b >> (4 * nibbles):
        raise ParameterError(f"clmul_window: b needs more than {nibbles} nibbles")
    table = _window(a)
    s = 4 * (nibbles - 1)
    r = table[(b >> s) & 15]
    while s:
        s -= 4
        r = (r << 4) ^ table[(b >> s) & 15]
    return r


def _spread(a: int, digits: int) -> int:
    """Bit ``i`` of ``a`` moved to bit ``4 * digits * i`` (a hex string with padding)."""
    s = format(a, "b").encode()
    buf = bytearray(b"0" * (digits * len(s)))
    buf[digits - 1::digits] = s
    return int(buf, 16)


def clmul_kronecker(a: int, b: int, digits: int | None = None) -> int:
    """The carry-less product by Kronecker substitution through one GMP multiplication.

    Each bit gets a slot of ``4 * digits`` bits with ``16**digits > min(popcount(a),
    popcount(b))`` (by default the least such ``digits``), so the integer product's slot
    ``k`` holds the number of pairs ``i + j = k`` exactly and its parity is bit ``k`` of the
    carry-less product.
    """
    if a == 0 or b == 0:
        return 0
    bound = min(a.bit_count(), b.bit_count())
    least = max(1, -(-(bound.bit_length()) // 4))  # 16**least > bound
    if digits is None:
        digits = least
    elif digits < least:
        raise ParameterError(f"clmul_kronecker: {digits} hex digits per slot cannot hold "
                             f"sums up to {bound}")
    prod = gmpy2.mpz(_spread(a, digits)) * gmpy2.mpz(_spread(b, digits))
    s = prod.digits(16)
    s = "0" * (-len(s) % digits) + s
    return int(s[digits - 1::digits].translate(_PARITY), 2)


def clmul(a: int, b: int) -> int:
    """The carry-less product of ``a`` and ``b``: shift-xor, or Kronecker when both are dense."""
    if min(a.bit_count(), b.bit_count()) < _KRONECKER_MIN_POPCOUNT:
        return clmul_shift_xor(a, b)
    return clmul_kronecker(a, b)


def clmul_bounded(a: int, b: int, bits_a: int, bits_b: int) -> int:
    """The carry-less product of ``a < 2**bits_a`` and ``b < 2**bits_b``, by a method and an
    operation sequence chosen from the bounds alone: 4-bit windows over the shorter factor
    when it has at most ``4 * _WINDOW_MAX_NIBBLES`` bits, else Kronecker with slots sized
    for the shorter bound."""
    if bits_a < bits_b:
        a, b, bits_a, bits_b = b, a, bits_b, bits_a
    if bits_b <= 4 * _WINDOW_MAX_NIBBLES:
        return clmul_window(a, b, max(1, -(-bits_b // 4)))
    return clmul_kronecker(a, b, max(1, -(-(bits_b.bit_length()) // 4)))


#: From this bit length on, :func:`gf2_square` spreads bytes (two translations) instead of
#: reading the binary digits in base 4 (3x faster at 13122 bits; slower on short inputs).
_SQUARE_BYTES_MIN_BITS = 512
# The low / high nibble of a byte with its bits spread to the even positions of one byte.
_SPREAD_LOW = bytes(int(format(i & 15, "b"), 4) for i in range(256))
_SPREAD_HIGH = bytes(int(format(i >> 4, "b"), 4) for i in range(256))


def gf2_square(a: int) -> int:
    """``a**2`` in ``GF(2)[t]``: bit ``i`` moves to bit ``2i`` (read the bits in base 4; for
    long ``a``, byte ``k`` of ``a`` becomes bytes ``2k`` and ``2k + 1`` of the square, its
    low and high nibbles spread -- the same bits)."""
    if a.bit_length() < _SQUARE_BYTES_MIN_BITS:
        return int(format(a, "b"), 4)
    raw = int(a).to_bytes((a.bit_length() + 7) // 8, "little")
    out = bytearray(2 * len(raw))
    out[0::2] = raw.translate(_SPREAD_LOW)
    out[1::2] = raw.translate(_SPREAD_HIGH)
    return int.from_bytes(out, "little")


def gf2_mod(a: int, f: int) -> int:
    """``a mod f`` in ``GF(2)[t]`` by long division (``f != 0``)."""
    if f <= 0:
        raise ParameterError(f"gf2_mod: the modulus {f} must be a non-zero polynomial")
    df = f.bit_length()
    while a.bit_length() >= df:
        a ^= f << (a.bit_length() - df)
    return a


def gf2_gcd(a: int, b: int) -> int:
    """The monic gcd of ``a`` and ``b`` in ``GF(2)[t]`` (Euclid with shift-xor steps)."""
    while b:
        while a.bit_length() >= b.bit_length():
            a ^= b << (a.bit_length() - b.bit_length())
        a, b = b, a
    return a


def _prime_factors(m: int) -> list[int]:
    out, p = [], 2
    while p * p <= m:
        if m % p == 0:
            out.append(p)
            while m % p == 0:
                m //= p
        p += 1
    if m > 1:
        out.append(m)
    return out


def rabin_irreducible(f: int, reduce: Callable[[int], int] | None = None) -> bool:
    """Rabin's test: ``f`` of degree ``m >= 1`` is irreducible over ``GF(2)`` iff
    ``t**(2**m) = t (mod f)`` and ``gcd(t**(2**(m/p)) - t, f) = 1`` for every prime ``p | m``.

    ``reduce`` (optional) is a fast ``c -> c mod f`` for ``c`` of degree ``< 2m``; it
    defaults to long division.  Time: ``m`` squarings and reductions, ``|primes|`` gcds.
    """
    m = f.bit_length() - 1
    if m < 1:
        raise ParameterError(f"rabin_irreducible: {f} has degree {m} < 1")
    red = (lambda c: gf2_mod(c, f)) if reduce is None else reduce
    stops = {m // p: p for p in _prime_factors(m)}
    power = 2  # t**(2**0) = t, as a bit-vector
    for j in range(1, m + 1):
        power = red(gf2_square(power))
        if j in stops and gf2_gcd(f, power ^ 2) != 1:
            return False
    return bool(power == gf2_mod(2, f))
