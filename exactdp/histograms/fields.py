"""The finite fields ``GF(2**(2 * 3**l))`` of Section 8 (Lemma 8.1 iii; van Lint).

Balcer & Vadhan take ``d0 = 2**(2 * 3**l)`` because then ``F_{d0}`` has the explicit model

    ``F_{d0} = GF(2)[t] / (t**m + t**(m/2) + 1)``,   ``m = 2 * 3**l``

([Lin99]).  An element is a polynomial over ``GF(2)`` of degree ``< m``, stored as a Python
``int`` whose bit ``i`` is the coefficient of ``t**i`` (so ``0 <= a < d0``).  Addition is
``^``; multiplication is a carry-less product followed by reduction, which for this
trinomial is two shifts and two xors per fold (``t**m = t**(m/2) + 1``).  The bijection
``T: F_{d0} -> [d0]_+`` of the proof of Lemma 8.1 (iii) reads the bit string as a binary
number and adds one: ``T(a) = a + 1``.

Why the modulus is irreducible.  ``t**(2k) + t**k + 1`` with ``k = 3**l`` is the cyclotomic
polynomial ``Phi_{3k}``, and ``Phi_N`` is irreducible over ``GF(2)`` exactly when 2 has
multiplicative order ``phi(N)`` modulo ``N`` (Lidl & Niederreiter, Thm 2.47); 2 is a
primitive root modulo every power of 3.  :meth:`VanLintField.cyclotomic_certificate`
checks both facts exactly (instant for every level), and :meth:`VanLintField.rabin_test`
runs Rabin's irreducibility test (``m`` modular squarings and two gcds), independent of
that theory; ``proofs/balcer_vadhan/lemma_8_01_family.py`` runs both.

Products, squares and Rabin's test are the carry-less arithmetic of
:mod:`exactdp.histograms.gf2`; the field's hot loops (:meth:`VanLintField.mul`,
:meth:`VanLintField.evaluate`) write the same methods out, with the same thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from operator import xor

import gmpy2

from exactdp.histograms.gf2 import (
    _KRONECKER_MIN_POPCOUNT,
    _WINDOW_MAX_NIBBLES,
    _prime_factors,
    _window,
    clmul,
    clmul_bounded,
    clmul_kronecker,
    clmul_window,
    gf2_square,
    rabin_irreducible,
)
from exactdp.params import DomainError, ParameterError, ParameterTypeError

__all__ = ["MAX_LEVEL", "VanLintField", "level_for_bits"]

#: The largest level supported: ``d0 = 2**(2 * 3**10) = 2**118098``.  (Theorem 8.6 with
#: ``|X| = 2**64``, ``beta0 = 2**-20`` needs level 9 for ``eps = 1/10`` and level 10 for
#: ``eps = 1/20``.)  Rabin's test of level 10 takes minutes; it runs in ``verify --full``.
MAX_LEVEL = 10

# From this degree on, the long loops of products by short elements run on gmpy2.mpz
# (the same bit operations, 1.3x faster than int at m = 39366); results are plain ints.
_MPZ_MIN_DEGREE = 1000


def level_for_bits(bits: int) -> int:
    """The least ``l >= 0`` with ``2 * 3**l >= bits``: ``ceil(log3(bits / 2))`` clamped at 0."""
    if isinstance(bits, bool) or not isinstance(bits, int):
        raise ParameterTypeError(f"bits = {bits!r} must be an int")
    level = 0
    while 2 * 3**level < bits:
        level += 1
    return level


# --------------------------------------------------------------------------- the field

#: Up to this degree (GF(4), GF(64)), :meth:`VanLintField.evaluate` multiplies by ``x``
#: through the row of products :func:`_products_by` (at most 64 x 64 products per level).
_TABLE_MAX_DEGREE = 6


@cache
def _products_by(level: int, x: int) -> tuple[int, ...]:
    """``(a * x for every element a)`` of the field of ``level``, by :meth:`VanLintField.mul`
    (built once per ``(level, x)``; small fields only)."""
    field_ = VanLintField(level)
    return tuple(field_.mul(a, x) for a in range(field_.order))


@dataclass(frozen=True)
class VanLintField:
    """``F_{d0} = GF(2)[t] / (t**m + t**(m/2) + 1)`` with ``m = 2 * 3**level``, ``d0 = 2**m``.

    Elements are ints in ``[0, d0)`` (bit ``i`` = coefficient of ``t**i``).  Precondition
    ``0 <= level <= MAX_LEVEL``.  Every operation takes and returns reduced elements;
    :meth:`element` validates untrusted input.
    """

    level: int
    degree: int = field(init=False)
    half: int = field(init=False)
    order: int = field(init=False)
    modulus: int = field(init=False, repr=False)
    _mask: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        level = self.level
        if isinstance(level, bool) or not isinstance(level, int):
            raise ParameterTypeError(f"field level = {level!r} must be an int")
        if not 0 <= level <= MAX_LEVEL:
            raise ParameterError(f"field level = {level} must lie in [0, {MAX_LEVEL}] "
                                 f"(d0 = 2^(2*3^level))")
        half = 3**level
        m = 2 * half
        object.__setattr__(self, "half", half)
        object.__setattr__(self, "degree", m)
        object.__setattr__(self, "order", 1 << m)
        object.__setattr__(self, "modulus", (1 << m) | (1 << half) | 1)
        object.__setattr__(self, "_mask", (1 << m) - 1)

    def __str__(self) -> str:
        return f"GF(2^{self.degree}) = GF(2)[t]/({self.modulus_text()})"

    def modulus_text(self) -> str:
        """``"t^m + t^(m/2) + 1"`` written out."""
        return f"t^{self.degree} + t^{self.half} + 1" if self.half > 1 else "t^2 + t + 1"

    # ---- elements and the bijection T

    def element(self, value: object, name: str = "element") -> int:
        """Validate an element: an int in ``[0, d0)``."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParameterTypeError(f"{name} = {value!r} must be an int in [0, 2^{self.degree})")
        if not 0 <= value < self.order:
            raise DomainError(f"{name} = {value} is not an element of GF(2^{self.degree}): "
                              f"it must lie in [0, 2^{self.degree})")
        return int(value)

    def to_index(self, a: int) -> int:
        """``T(a) = a + 1`` in ``[d0]_+`` (proof of Lemma 8.1 iii)."""
        return a + 1

    def from_index(self, u: int) -> int:
        """``T^{-1}(u) = u - 1`` for ``u`` in ``[d0]_+``."""
        if isinstance(u, bool) or not isinstance(u, int):
            raise ParameterTypeError(f"u = {u!r} must be an int in [1, d0]")
        if not 1 <= u <= self.order:
            raise DomainError(f"u = {u} is outside [d0]_+ = [1, 2^{self.degree}]")
        return u - 1

    # ---- the subfields

    def sublevel_for(self, points: int) -> int:
        """The least ``k <= level`` whose subfield ``K_k = GF(2**(2 * 3**k))`` has at least
        ``points`` elements (:class:`ParameterError` if even ``k = level`` has too few)."""
        k = 0
        while (1 << (2 * 3**k)) < points:
            k += 1
        if k > self.level:
            raise ParameterError(f"{points} points do not fit in GF(2^{self.degree})")
        return k

    def embed(self, e: int, sublevel: int) -> int:
        """The inclusion of ``K = GF(2**(2 * 3**k))`` (``k = sublevel``, element ``e`` in
        ``K``'s own van Lint model, variable ``z``) into this field: ``z -> t**s``,
        ``s = 3**(level - k)``, i.e. bit ``q`` of ``e`` moves to bit ``q s``.

        It is a field homomorphism because ``(t**s)**(2 * 3**k) = t**m = t**(m/2) + 1 =
        (t**s)**(3**k) + 1``: ``t**s`` is a root of ``K``'s modulus.  For ``k = level`` it is
        the identity.  CompactHistogram puts its interpolation nodes in ``K``
        (:mod:`exactdp.histograms.native` explains why).
        """
        if not 0 <= sublevel <= self.level:
            raise ParameterError(f"sublevel = {sublevel} must lie in [0, {self.level}]")
        if e >> (2 * 3**sublevel):
            raise DomainError(f"{e} is not an element of GF(2^{2 * 3**sublevel})")
        stride = 3 ** (self.level - sublevel)
        if stride == 1:
            return e
        out, q = 0, 0
        while e:
            if e & 1:
                out |= 1 << (q * stride)
            e >>= 1
            q += 1
        return out

    # ---- arithmetic

    def reduce(self, c: int) -> int:
        """``c mod (t**m + t**(m/2) + 1)`` for any bit-vector ``c >= 0``."""
        m, half, mask = self.degree, self.half, self._mask
        while c >> m:
            h = c >> m
            c = (c & mask) ^ h ^ (h << half)
        return c

    def add(self, a: int, b: int) -> int:
        """``a + b`` (= ``a - b``: characteristic 2)."""
        return a ^ b

    def mul(self, a: int, b: int) -> int:
        """``a * b``: :func:`clmul` then :meth:`reduce`, written out (the same methods, chosen
        by the same popcount rule, and the same folds)."""
        if a.bit_count() < b.bit_count():
            a, b = b, a
        if b.bit_count() < _KRONECKER_MIN_POPCOUNT:
            c = 0
            while b:  # clmul_shift_xor
                low = b & -b
                c ^= a << (low.bit_length() - 1)
                b ^= low
        else:
            c = clmul_kronecker(a, b)
        m = self.degree
        if c >> m:  # reduce
            half, mask = self.half, self._mask
            while c >> m:
                h = c >> m
                c = (c & mask) ^ h ^ (h << half)
        return c

    def square(self, a: int) -> int:
        """``a**2`` (linear over ``GF(2)``)."""
        return self.reduce(gf2_square(a))

    def inverse(self, a: int) -> int:
        """``a**-1`` for ``a != 0`` (extended Euclid in ``GF(2)[t]``, ``O(m)`` shift-xor steps)."""
        if a == 0:
            raise DomainError("0 has no inverse in a field")
        u, v = a, self.modulus
        g1, g2 = 1, 0
        while u != 1:
            j = u.bit_length() - v.bit_length()
            if j < 0:
                u, v, g1, g2 = v, u, g2, g1
                j = -j
            u ^= v << j
            g1 ^= g2 << j
        return self.reduce(g1)

    def div(self, a: int, b: int) -> int:
        """``a / b`` for ``b != 0``."""
        return self.mul(a, self.inverse(b))

    def power(self, a: int, e: int) -> int:
        """``a**e`` for ``e >= 0`` (square and multiply)."""
        if e < 0:
            raise ParameterError(f"exponent {e} must be >= 0")
        result, base = 1, a
        while e:
            if e & 1:
                result = self.mul(result, base)
            base = self.square(base)
            e >>= 1
        return result

    def batch_inverse(self, values: Sequence[int]) -> list[int]:
        """The inverses of non-zero ``values``: one inversion and ``3(len - 1)`` products
        (Montgomery's trick)."""
        if not values:
            return []
        prefix = [values[0]]
        for v in values[1:]:
            prefix.append(self.mul(prefix[-1], v))
        inv = self.inverse(prefix[-1])
        out = [0] * len(values)
        for i in range(len(values) - 1, 0, -1):
            out[i] = self.mul(inv, prefix[i - 1])
            inv = self.mul(inv, values[i])
        out[0] = inv
        return out

    # ---- polynomials over the field (coefficient lists, lowest degree first)

    def mul_small(self, a: int, y: int, nibbles: int) -> int:
        """``a * y`` for ``y < 16**nibbles`` by 4-bit windows (:func:`clmul_window`): cheap
        when ``y`` is short, e.g. ``T^{-1}(x)`` for ``x`` in ``X`` with ``|X| <= 2**64``."""
        return self.reduce(clmul_window(a, y, nibbles))

    def evaluate(self, coefficients: Sequence[int], x: int) -> int:
        """``p(x) = sum_i coefficients[i] x**i`` by Horner's rule: ``deg p`` products by ``x``,
        each ``14 + 2 ceil(log16 x)`` shift/xor operations when ``x`` is short -- in the
        fields of at most 64 elements, one look-up in the row of :meth:`mul`'s products by
        ``x`` (:func:`_products_by`; the same products)."""
        if not coefficients:
            return 0
        acc = coefficients[-1]
        m, half, mask = self.degree, self.half, self._mask
        if (m <= _TABLE_MAX_DEGREE and 0 <= x <= mask and 0 <= min(coefficients)
                and max(coefficients) <= mask):
            row = _products_by(self.level, x)  # row[a] = a * x, read off mul
            for a in reversed(coefficients[:-1]):
                acc = row[acc] ^ a
            return acc
        nibbles = -(-x.bit_length() // 4)
        if nibbles == 0:
            return coefficients[0]
        if nibbles > _WINDOW_MAX_NIBBLES:
            for a in reversed(coefficients[:-1]):
                acc = self.mul(acc, x) ^ a
            return acc
        # clmul_window(acc, x, nibbles) and reduce, written out (the same operations)
        if m >= _MPZ_MIN_DEGREE:
            acc = gmpy2.mpz(acc)  # as self._fast
        top = 4 * (nibbles - 1)
        for a in reversed(coefficients[:-1]):
            table = _window(acc)
            s = top
            c = table[(x >> s) & 15]
            while s:
                s -= 4
                c = (c << 4) ^ table[(x >> s) & 15]
            while c >> m:
                h = c >> m
                c = (c & mask) ^ h ^ (h << half)
            acc = c ^ a
        return int(acc)

    def _fast(self, a: int) -> int:
        """``a`` as a ``gmpy2.mpz`` in large fields (same value and bit operations)."""
        return gmpy2.mpz(a) if self.degree >= _MPZ_MIN_DEGREE else a  # type: ignore[return-value]

    def _product(self, factors: Sequence[int], bits: int) -> int:
        """``prod factors`` for factors ``< 2**bits``, by a balanced product tree whose shape
        and methods (:func:`clmul_bounded`) depend only on ``len(factors)`` and ``bits``."""
        if len(factors) <= 1:  # the tree below with no product: reduce(factor), or 1
            return self.reduce(factors[0]) if factors else 1
        m = self.degree
        level = [(f, bits) for f in factors]
        while len(level) > 1:
            nxt = []
            for i in range(0, len(level) - 1, 2):
                (a, ba), (b, bb) = level[i], level[i + 1]
                c, bc = clmul_bounded(a, b, ba, bb), ba + bb - 1
                if bc > m:
                    c, bc = self.reduce(c), m
                nxt.append((c, bc))
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        return self.reduce(level[0][0])

    def newton_coefficients(self, nodes: Sequence[int], values: Sequence[int],
                            node_bits: int | None = None) -> list[int]:
        """Newton coefficients ``c_k`` with ``p(X) = sum_k c_k prod_{j<k} (X - nodes[j])``
        interpolating ``p(nodes[k]) = values[k]`` (distinct nodes).

        ``c_k = (values[k] - p_{<k}(nodes[k])) / w_k`` with
        ``w_k = prod_{j<k} (nodes[k] - nodes[j])`` (product trees), the ``w_k`` inverted
        together (:meth:`batch_inverse`).  Cost: ``N(N-1)/2`` products by node differences
        (each ``< 2**node_bits``; by default the nodes' own bit length), the product trees,
        ``4N`` full products and one inversion.  The sequence of operations depends on
        ``N`` and ``node_bits`` only, never on the values of the nodes or of ``values``.
        """
        count = len(nodes)
        if len(values) != count:
            raise ParameterError(f"{count} nodes but {len(values)} values")
        if len(set(nodes)) != count:
            raise ParameterError("interpolation nodes must be distinct")
        bits = max(nodes, default=0).bit_length() if node_bits is None else node_bits
        if nodes and (min(nodes) < 0 or max(nodes) >> bits):
            raise ParameterError(f"a node has more than node_bits = {bits} bits")
        nibbles = max(1, -(-bits // 4))
        small = nibbles <= _WINDOW_MAX_NIBBLES
        product = self._product
        weights = []
        for k in range(count):
            xk = nodes[k]
            weights.append(product([xk ^ x for x in nodes[:k]], bits))
        inverses = self.batch_inverse(weights)
        mul = self.mul
        m, half, mask = self.degree, self.half, self._mask
        big = m >= _MPZ_MIN_DEGREE
        top = 4 * (nibbles - 1)
        cs: list[int] = []
        for k in range(count):
            xk = nodes[k]
            acc = 0
            for j in range(k - 1, -1, -1):  # p_{<k}(x_k), nested Newton form
                y = xk ^ nodes[j]
                if small:  # reduce(clmul_window(acc, y, nibbles)), written out
                    table = _window(acc)
                    s = top
                    c = table[(y >> s) & 15]
                    while s:
                        s -= 4
                        c = (c << 4) ^ table[(y >> s) & 15]
                    while c >> m:
                        h = c >> m
                        c = (c & mask) ^ h ^ (h << half)
                    acc = c ^ cs[j]
                else:
                    acc = mul(acc, y) ^ cs[j]
            c = mul(values[k] ^ acc, inverses[k])
            cs.append(gmpy2.mpz(c) if big else c)  # as self._fast
        return list(map(int, cs))

    def newton_to_monomial(self, nodes: Sequence[int], newton: Sequence[int],
                           node_bits: int | None = None) -> list[int]:
        """Monomial coefficients of ``sum_k newton[k] prod_{j<k} (X - nodes[j])``.

        ``nodes`` needs at least ``len(newton) - 1`` entries (extra ones are unused) and may
        repeat (the Newton basis is a basis for any nodes).  Horner in ``X``:
        ``P <- P (X - nodes[k]) + newton[k]`` from the top, ``N(N-1)/2`` products by nodes
        (``< 2**node_bits``); a zero node is a shift.
        """
        if not newton:
            return []
        if len(nodes) < len(newton) - 1:
            raise ParameterError(f"{len(newton)} Newton coefficients need at least "
                                 f"{len(newton) - 1} nodes, got {len(nodes)}")
        used = nodes[:len(newton) - 1]
        bits = max(used, default=0).bit_length() if node_bits is None else node_bits
        if used and (min(used) < 0 or max(used) >> bits):
            raise ParameterError(f"a node has more than node_bits = {bits} bits")
        nibbles = max(1, -(-bits // 4))
        small = nibbles <= _WINDOW_MAX_NIBBLES
        reduce = self.reduce
        poly = [self._fast(newton[-1])]
        for k in range(len(newton) - 2, -1, -1):
            x = used[k]
            if x == 0:
                poly.insert(0, newton[k])
                continue
            if small:
                scaled = [reduce(clmul_window(c, x, nibbles)) for c in poly]
            else:
                scaled = [self.mul(c, x) for c in poly]
            new = [scaled[0] ^ newton[k]]
            new.extend(map(xor, islice(scaled, 1, None), poly))  # scaled[i] ^ poly[i - 1]
            new.append(poly[-1])
            poly = new
        return list(map(int, poly))

    def interpolate(self, nodes: Sequence[int], values: Sequence[int],
                    node_bits: int | None = None) -> list[int]:
        """The coefficients (length ``N``) of the unique ``p`` of degree ``< N`` with
        ``p(nodes[k]) = values[k]`` for ``N`` distinct nodes ([vzGG13] Sec. 5.2, Newton form)."""
        return self.newton_to_monomial(
            nodes, self.newton_coefficients(nodes, values, node_bits), node_bits)

    # ---- certificates of irreducibility

    def cyclotomic_certificate(self) -> dict[str, bool]:
        """Exact facts that make the modulus irreducible (Lidl & Niederreiter Thm 2.47):

        * ``modulus * (t**(3**l) + 1) = t**(3**(l+1)) + 1`` over ``GF(2)``, i.e. the modulus
          is the cyclotomic polynomial ``Phi_N``, ``N = 3**(l+1)``, of degree ``phi(N) = m``;
        * 2 has order ``m`` modulo ``N`` (``2**m = 1`` and ``2**(m/p) != 1`` for ``p | m``).
        """
        big = 3 * self.half
        cyclotomic = clmul(self.modulus, (1 << self.half) | 1) == (1 << big) | 1
        m = self.degree
        order_ok = pow(2, m, big) == 1 and all(pow(2, m // p, big) != 1
                                                for p in _prime_factors(m))
        return {"modulus_is_Phi_3^(l+1)": cyclotomic, "ord_N(2) == m": order_ok}

    def rabin_test(self) -> bool:
        """Rabin's irreducibility test of the modulus (uses the trinomial reduction)."""
        return rabin_irreducible(self.modulus, self.reduce)
