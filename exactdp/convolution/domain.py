"""Public input domains for the convolution mechanisms (paper 002 §2.3.1
and §5.4).

The paper's neighbours are ``x, x'`` with ``||x - x'||_1 <= 1`` (event level: one unit of one
count added or removed).  On a finite computer the domain must be finite and **public**,
because the clamping range of every noisy row is read from it, never from ``x``:

* :meth:`Domain.histograms` -- ``{x in Z^N : x >= 0, ||x||_1 <= n}``: a histogram of at most
  ``n`` records (the database ``x: {0,1}^d -> [n]`` of §5.4);
* :meth:`Domain.box` -- ``{0, ..., m}^N``.

Neighbours: ``x`` and ``x +- e_k`` when both lie in the domain.  For a row ``t`` of an integer
strategy, :meth:`Domain.row_range` is the exact ``[min, max]`` of ``t . x`` over the domain.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product

from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    positive_int,
)

__all__ = ["MAX_ENUMERATION", "Domain"]

#: The most elements :meth:`Domain.elements` enumerates.
MAX_ENUMERATION = 1 << 20


def _nonneg_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} = {value!r:.60} must be an int >= 0")
    if value < 0:
        raise ParameterError(f"{name} = {value} must be >= 0")
    return int(value)


@dataclass(frozen=True)
class Domain:
    """A finite public domain of integer vectors of length ``N``.

    ``kind`` is ``"histograms"`` (``x >= 0``, ``||x||_1 <= bound``) or ``"box"``
    (``0 <= x_k <= bound``).  Build with :meth:`histograms` or :meth:`box`.
    """

    kind: str
    N: int
    bound: int

    def __post_init__(self) -> None:
        if self.kind not in ("histograms", "box"):
            raise ParameterError(f"domain kind = {self.kind!r} must be 'histograms' or 'box'")
        positive_int(self.N, "N")
        _nonneg_int(self.bound, "n" if self.kind == "histograms" else "m")

    @classmethod
    def histograms(cls, N: object, n: object) -> Domain:
        """``{x in Z^N : x >= 0, ||x||_1 <= n}`` (histograms of at most ``n`` records)."""
        return cls("histograms", positive_int(N, "N"), _nonneg_int(n, "n"))

    @classmethod
    def box(cls, N: object, m: object) -> Domain:
        """``{0, ..., m}^N``."""
        return cls("box", positive_int(N, "N"), _nonneg_int(m, "m"))

    def __str__(self) -> str:
        name = "n" if self.kind == "histograms" else "m"
        return f"{self.kind}(N={self.N}, {name}={self.bound})"

    # ------------------------------------------------------------------ membership

    def validate(self, x: object, name: str = "x") -> list[int]:
        """``x`` as a list of ints if it lies in the domain, else a typed error naming the
        first offending index and the rule."""
        if type(x) is not tuple and type(x) is not list and (  # the common types: no ABC check
                isinstance(x, (str, bytes)) or not isinstance(x, Sequence)):
            raise ParameterTypeError(f"{name} must be a sequence of {self.N} ints, got "
                                     f"{type(x).__name__}")
        if len(x) != self.N:
            raise DomainError(f"{name} has length {len(x)}; the domain {self} needs length "
                              f"{self.N}")
        out = list(x)
        if not all(type(v) is int for v in out):
            for i, v in enumerate(out):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise ParameterTypeError(f"{name}[{i}] = {v!r:.40} must be an int (the "
                                             f"data are counts)")
            out = [int(v) for v in out]
        if out and min(out) < 0:
            i = min(range(len(out)), key=out.__getitem__)
            raise DomainError(f"{name}[{i}] = {out[i]} is negative; the domain {self} holds "
                              f"non-negative counts")
        if self.kind == "histograms":
            total = sum(out)
            if total > self.bound:
                raise DomainError(f"{name} has ||x||_1 = {total} > n = {self.bound}: outside "
                                  f"the public domain {self}")
        elif out and max(out) > self.bound:
            i = max(range(len(out)), key=out.__getitem__)
            raise DomainError(f"{name}[{i}] = {out[i]} > m = {self.bound}: outside the public "
                              f"domain {self}")
        return out

    def __contains__(self, x: object) -> bool:
        try:
            self.validate(x)
        except (DomainError, ParameterTypeError):
            return False
        return True

    # ------------------------------------------------------------------ row ranges

    def range_from_stats(self, max_entry: int, min_entry: int, pos_sum: int,
                         neg_sum: int) -> tuple[int, int]:
        """``[min, max]`` of ``t . x`` over the domain for a row ``t`` with these statistics
        (``max_entry = max_k t_k``, ``min_entry = min_k t_k``, ``pos_sum`` the sum of its
        positive entries, ``neg_sum`` of its negative ones).

        Histograms: ``t . x`` is linear on the simplex ``{x >= 0, sum x <= n}``, so its extremes
        are at vertices ``0`` and ``n e_k``: ``[n min(0, min_k t_k), n max(0, max_k t_k)]``.
        Box: coordinate-wise, ``[m neg_sum, m pos_sum]``.  Both are attained (exact).
        """
        b = self.bound
        if self.kind == "histograms":
            return (b * min(0, min_entry), b * max(0, max_entry))
        return (b * neg_sum, b * pos_sum)

    def row_range(self, row: Sequence[int]) -> tuple[int, int]:
        """``(lo, hi) = (min, max)`` of ``t . x`` over the domain (public; never from data)."""
        if len(row) != self.N:
            raise ParameterError(f"row has length {len(row)}, the domain needs {self.N}")
        return self.range_from_stats(max(row), min(row), sum(v for v in row if v > 0),
                                     sum(v for v in row if v < 0))

    # ------------------------------------------------------------------ small domains

    def size(self) -> int:
        """``|D|``: ``C(n + N, N)`` for histograms, ``(m + 1)^N`` for the box."""
        if self.kind == "box":
            return (self.bound + 1) ** self.N
        from math import comb

        return comb(self.bound + self.N, self.N)

    def elements(self) -> Iterator[tuple[int, ...]]:
        """Every element, in lexicographic order (refused above :data:`MAX_ENUMERATION`)."""
        if self.size() > MAX_ENUMERATION:
            raise ResourceLimitError(f"the domain {self} has {self.size()} elements (> "
                                     f"{MAX_ENUMERATION}); enumerate a smaller domain")
        for x in product(range(self.bound + 1), repeat=self.N):
            if self.kind == "box" or sum(x) <= self.bound:
                yield x

    def neighbours(self, x: Sequence[int]) -> Iterator[tuple[int, tuple[int, ...]]]:
        """``(k, x + e_k)`` for every ``k`` with ``x + e_k`` in the domain (the up-neighbours;
        every neighbouring pair ``{x, x'}`` is ``{x, x + e_k}`` for one of its members)."""
        xs = tuple(self.validate(x))
        for k in range(self.N):
            y = xs[:k] + (xs[k] + 1,) + xs[k + 1:]
            if (self.kind == "histograms" and sum(y) <= self.bound) or (
                    self.kind == "box" and y[k] <= self.bound):
                yield k, y
