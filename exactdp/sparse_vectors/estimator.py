"""ALP-estimator (ALP-short Algorithm 2 = ALP-full Algorithm 5; ALP-full Algorithm 3 is the case
``eps = 1``)
and the released sketch.

To estimate entry ``i``, read the ``m`` noisy bits ``z~_{h_b(i), b}`` (``b = 1..m``; ALP-short §3.2
prints the subscripts swapped), walk ``f(n) = sum_{b <= n} (2 z~_b - 1)`` for ``n = 0..m``,
and average all argmax positions ``P``: ``y~_i = avg(P)`` in y-units, ``x~_i = y~_i / c``
in the input's units.  Pure post-processing: integer prefix sums and one Fraction, ``O(m)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from exactdp.hashing import CarterWegman, HashFamily, Seed, check_family
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.sparse_vectors.alp_params import ALPParams
from exactdp.sparse_vectors.rr import unpack_cells

__all__ = ["ALPSketch", "argmax_positions", "unary_estimate"]


def argmax_positions(bits: Sequence[int]) -> tuple[int, ...]:
    """``P = {n in 0..m : f(n) = max f}`` for ``f(n) = sum_{b <= n} (2 bits[b-1] - 1)``,
    ``f(0) = 0`` (ALP-full Algorithm 3, steps 1-2).  ``bits`` is a sequence of 0/1 ints."""
    for n, bit in enumerate(bits, start=1):
        if type(bit) is not int or not 0 <= bit <= 1:  # bools and floats too
            raise DomainError(f"bit {n} = {bit!r:.40} must be the int 0 or 1")
    return tuple(_argmax(bits))


def _argmax(bits: Sequence[int]) -> list[int]:
    """The argmax positions of the walk, for bits already known to be 0/1 ints."""
    best = f = 0
    positions = [0]
    for n, bit in enumerate(bits, start=1):
        f += 2 * bit - 1
        if f > best:
            best = f
            positions = [n]
        elif f == best:
            positions.append(n)
    return positions


def unary_estimate(bits: Sequence[int]) -> Fraction:
    """``y~ = avg(P)`` (ALP-full Algorithm 3 / ALP-short Algorithm 2 in y-units): the average of
    every
    argmax position of the walk ``f`` over the ``m`` bits, an exact Fraction in ``[0, m]``.

    >>> unary_estimate([1, 1, 1, 0, 1, 0, 0, 1])  # ALP-short Figure 2: P = {3, 5}
    Fraction(4, 1)
    """
    positions = argmax_positions(bits)
    return Fraction(sum(positions), len(positions))


@dataclass(frozen=True)
class ALPSketch:
    """The released ``(h, z~)`` of ALP-projection: ``params``, the hash family ``hashes``,
    the ``m`` seeds and the ``s*m`` noisy bits packed into ``bits`` (cell ``(a, b)``, row
    ``a`` in ``1..s``, column ``b`` in ``1..m``, is bit ``j & 7`` of byte ``j >> 3`` with
    ``j = (b-1)*s + (a-1)``; padding bits of the last byte are 0).

    Space: ``ceil(s*m/8)`` bytes plus ``m`` seeds (2 ints below ``P`` each for
    Carter–Wegman).  A query reads exactly ``m`` cells.
    """

    params: ALPParams
    hashes: HashFamily
    seeds: tuple[Seed, ...]
    bits: bytes
    _fast: tuple[int, int, tuple[tuple[int, int], ...]] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        prm = self.params
        if not isinstance(prm, ALPParams):
            raise ParameterTypeError(f"params = {prm!r:.60} must be ALPParams")
        check_family(self.hashes)
        if self.hashes.rows != prm.rows or self.hashes.universe < prm.universe:
            raise ParameterError(f"hash family {self.hashes.describe()} does not map keys "
                                 f"1..{prm.universe} to rows 1..{prm.rows}")
        if not isinstance(self.seeds, tuple) or len(self.seeds) != prm.columns:
            raise ParameterError(f"need a tuple of m = {prm.columns} hash seeds")
        for seed in self.seeds:
            self.hashes.check_seed(seed)
        if not isinstance(self.bits, bytes):
            raise ParameterTypeError(f"bits must be bytes, got {type(self.bits).__name__}")
        need = (prm.cells + 7) // 8
        if len(self.bits) != need:
            raise ParameterError(f"bits has {len(self.bits)} bytes; s*m = {prm.cells} cells "
                                 f"need {need}")
        if prm.cells % 8 and self.bits[-1] >> (prm.cells % 8):
            raise ParameterError("bits: the padding bits after cell s*m must be 0")
        if isinstance(self.hashes, CarterWegman):
            cw = tuple((s.a, s.b) for s in self.seeds)  # type: ignore[union-attr]
            object.__setattr__(self, "_fast", (self.hashes.prime, prm.rows, cw))

    @classmethod
    def _built(cls, params: ALPParams, hashes: HashFamily, seeds: tuple[Seed, ...],
               bits: bytes) -> ALPSketch:
        """The sketch :meth:`ALP.project` releases, without :meth:`__post_init__`'s checks:
        ``project`` validated ``params``, ``hashes`` and every seed itself, and packed
        ``bits`` from exactly ``s*m`` cells (tests/test_alp_check_fast.py re-checks its
        sketches with the validating constructor)."""
        sketch = object.__new__(cls)
        object.__setattr__(sketch, "params", params)
        object.__setattr__(sketch, "hashes", hashes)
        object.__setattr__(sketch, "seeds", seeds)
        object.__setattr__(sketch, "bits", bits)
        fast = None
        if isinstance(hashes, CarterWegman):
            fast = (hashes.prime, params.rows,
                    tuple((s.a, s.b) for s in seeds))  # type: ignore[union-attr]
        object.__setattr__(sketch, "_fast", fast)
        return sketch

    def cell(self, a: int, b: int) -> int:
        """``z~_{a,b}`` for row ``a`` in ``1..s`` and column ``b`` in ``1..m``."""
        for name, v, hi in (("row a", a, self.params.rows), ("column b", b, self.params.columns)):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
                raise DomainError(f"{name} = {v!r:.40} must be an int in [1, {hi}]")
        j = (b - 1) * self.params.rows + (a - 1)
        return self.bits[j >> 3] >> (j & 7) & 1

    def column_bits(self, key: int) -> tuple[int, ...]:
        """The ``m`` bits ``z~_{h_b(key), b}``, ``b = 1..m``, read for ``key`` in ``1..d``."""
        d = self.params.universe
        if isinstance(key, bool) or not isinstance(key, int):
            raise ParameterTypeError(f"key = {key!r:.60} must be an int in [1, {d}]")
        if not 1 <= key <= d:
            raise DomainError(f"key = {key} is outside [1, d] with d = {d}")
        bits = self.bits
        if self._fast is not None:
            prime, s, cw = self._fast
            out = []
            base = 0
            for a, b in cw:
                j = base + (a * key + b) % prime % s
                out.append(bits[j >> 3] >> (j & 7) & 1)
                base += s
            return tuple(out)
        s = self.params.rows
        js = [col * s + self.hashes.row(seed, key) - 1 for col, seed in enumerate(self.seeds)]
        return tuple(bits[j >> 3] >> (j & 7) & 1 for j in js)

    def estimate_units(self, key: int) -> Fraction:
        """``y~_key`` in y-units (ALP-full Algorithm 3): :func:`unary_estimate` of
        :meth:`column_bits`."""
        positions = _argmax(self.column_bits(key))
        return Fraction(sum(positions), len(positions))

    def estimate(self, key: int) -> Fraction:
        """``x~_key = y~_key / c`` in the input's units ``x = X/g`` (ALP-full Algorithm 5: the
        ALP1 estimate ``y~ * alpha`` divided by ``eps``)."""
        positions = _argmax(self.column_bits(key))
        c = self.params.scale
        return Fraction(sum(positions) * c.denominator, len(positions) * c.numerator)

    def cell_values(self) -> tuple[int, ...]:
        """All ``s*m`` cells in cell order ``j = (b-1)*s + (a-1)`` (for small checks)."""
        return unpack_cells(self.bits, self.params.cells)
