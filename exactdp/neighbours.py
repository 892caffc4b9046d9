"""Neighbour relations on small public domains, written once.

A :class:`Relation` is a finite public domain and a symmetric adjacency on it; the checker,
the proofs, :mod:`exactdp.testing` and the audit enumerate its ordered pairs.  The relations:

* :func:`counts` -- ``[n] = {0..n}``, ``c ~ c+1`` (paper 004, Definition 4.1);
* :func:`datasets` -- multisets of at most ``n`` elements of a small universe, under
  ``"add-remove"`` (one element added or removed) or ``"replace-one"`` (same size, one
  element replaced);
* :func:`vectors` -- the integer box ``{lo..hi}^p`` with a sensitivity ``beta`` (integer grid
  steps), under ``"one-coordinate"`` (Li & Li Definition 2.3, beta-adjacency: one coordinate
  moves by at most ``beta``) or ``"l1"`` (``0 < ||u - u'||_1 <= beta``: several coordinates
  may move; the two differ for SignOPORP) or ``"linf"`` (``0 < ||u - u'||_inf <= beta``:
  every coordinate may move by up to ``beta`` -- the relation of query vectors in
  report-noisy-max and sparse vector, whose proofs let every query change by the
  sensitivity at once);
* :func:`booleans` -- ``{0,1}^p``, one bit flipped.

>>> [pair for pair in counts(2).ordered_pairs()]
[(0, 1), (1, 0), (1, 2), (2, 1)]
>>> vectors(2, -1, 1, 1).neighbours((0, 0))
((-1, 0), (0, -1), (0, 1), (1, 0))
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations_with_replacement, product
from typing import Generic, TypeVar

from exactdp.params import DomainError, ParameterError, ResourceLimitError, positive_int

__all__ = ["MAX_POINTS", "Relation", "booleans", "counts", "datasets", "l1_distance",
           "vector_neighbours", "vectors"]

#: The most points a relation's domain may hold (it is enumerated).
MAX_POINTS = 1 << 16

P = TypeVar("P", bound=Hashable)
Vector = tuple[int, ...]

VECTOR_KINDS = ("one-coordinate", "l1", "linf")
#: What each vector relation allows, in words (shown in reports).
VECTOR_WORDS = {"one-coordinate": "one coordinate moves by at most {b}",
                "l1": "the coordinates move by at most {b} in total (l1)",
                "linf": "every coordinate may move by at most {b} (linf)"}
DATASET_KINDS = ("add-remove", "replace-one")


def l1_distance(u: Sequence[int], v: Sequence[int]) -> int:
    """``||u - v||_1`` of two integer vectors of the same length."""
    if len(u) != len(v):
        raise DomainError(f"vectors of lengths {len(u)} and {len(v)} cannot be compared")
    return sum(abs(a - b) for a, b in zip(u, v))


@dataclass(frozen=True)
class Relation(Generic[P]):
    """A finite public domain ``points`` with a symmetric adjacency ``adjacent(x, y)``.

    ``name`` says which relation it is (shown in certificates).  ``near(x)``, when given,
    lists candidates that include every neighbour of ``x`` (a shortcut that avoids testing
    all pairs; the adjacency still decides)."""

    name: str
    points: tuple[P, ...]
    adjacent: Callable[[P, P], bool]
    near: Callable[[P], Iterable[P]] | None = None

    def __contains__(self, x: object) -> bool:
        return x in self._index

    @cached_property
    def _index(self) -> dict[P, int]:
        return {x: i for i, x in enumerate(self.points)}

    def neighbours(self, x: P) -> tuple[P, ...]:
        """Every ``y`` in the domain adjacent to ``x`` (in domain order)."""
        if x not in self._index:
            raise DomainError(f"{x!r} is not in the domain of {self.name}")
        if self.near is None:
            return tuple(y for y in self.points if y != x and self.adjacent(x, y))
        found = {y for y in self.near(x) if y != x and y in self._index and self.adjacent(x, y)}
        return tuple(sorted(found, key=self._index.__getitem__))

    def ordered_pairs(self) -> Iterator[tuple[P, P]]:
        """Every ordered adjacent pair ``(x, y)`` (both orders of each edge): for each
        point in domain order, its neighbours in domain order (enumerated once, then kept)."""
        return iter(self._pairs)

    @cached_property
    def _pairs(self) -> tuple[tuple[P, P], ...]:
        return tuple((x, y) for x in self.points for y in self.neighbours(x))


def _capped(points: Sequence[P], what: str) -> tuple[P, ...]:
    if len(points) > MAX_POINTS:
        raise ResourceLimitError(f"{what} has {len(points)} points (> {MAX_POINTS}); "
                                 f"enumerate a smaller domain")
    return tuple(points)


def _nonneg(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(f"{name} = {value!r:.40} must be an int >= 0")
    if value < 0:
        raise ParameterError(f"{name} = {value} must be >= 0")
    return int(value)


def counts(n: object) -> Relation[int]:
    """Counts ``[n] = {0..n}`` with ``c ~ c+1`` (paper 004, Definition 4.1)."""
    top = positive_int(n, "n")
    return Relation(f"counts [0, {top}], c ~ c+1 (a count changes by one)", tuple(range(top + 1)),
                    lambda a, b: abs(a - b) == 1, lambda c: (c - 1, c + 1))


def datasets(universe: Sequence[Hashable], n: object,
             kind: str = "add-remove") -> Relation[tuple[Hashable, ...]]:
    """Multisets (sorted tuples) of at most ``n`` elements of ``universe``.

    ``"add-remove"``: ``D ~ D'`` iff one is the other with one element added.
    ``"replace-one"``: same size and exactly one element replaced by a different one."""
    if kind not in DATASET_KINDS:
        raise ParameterError(f"kind = {kind!r} must be one of {DATASET_KINDS}")
    items = sorted(set(universe))  # type: ignore[type-var]
    if not items:
        raise ParameterError("universe must not be empty")
    size = _nonneg(n, "n")
    pts = [tuple(c) for m in range(size + 1) for c in combinations_with_replacement(items, m)]

    def diff(a: tuple[Hashable, ...], b: tuple[Hashable, ...]) -> tuple[int, int]:
        rest = list(b)
        extra = 0
        for v in a:
            if v in rest:
                rest.remove(v)
            else:
                extra += 1
        return extra, len(rest)

    if kind == "add-remove":
        def adjacent(a: tuple[Hashable, ...], b: tuple[Hashable, ...]) -> bool:
            return sorted(diff(a, b)) == [0, 1]
    else:
        def adjacent(a: tuple[Hashable, ...], b: tuple[Hashable, ...]) -> bool:
            return diff(a, b) == (1, 1)
    return Relation(f"datasets of <= {size} elements of {items}, {kind}",
                    _capped(pts, "the dataset domain"), adjacent)


def _check_box(p: object, lo: object, hi: object, beta: object, kind: str) -> tuple[int, ...]:
    if kind not in VECTOR_KINDS:
        raise ParameterError(f"kind = {kind!r} must be one of {VECTOR_KINDS}")
    dims = positive_int(p, "p")
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ParameterError(f"{name} = {v!r:.40} must be an int (integer data grid)")
    if lo > hi:  # type: ignore[operator]
        raise ParameterError(f"lo = {lo} > hi = {hi}: the box is empty")
    return dims, int(lo), int(hi), positive_int(beta, "beta")  # type: ignore[call-overload]


def vector_neighbours(u: Sequence[int], lo: int, hi: int, beta: int,
                      kind: str = "one-coordinate") -> tuple[tuple[int, ...], ...]:
    """The neighbours of ``u`` in the box ``{lo..hi}^p``, in lexicographic order.

    ``"one-coordinate"``: ``u' = u + d e_i`` with ``0 < |d| <= beta`` (Definition 2.3).
    ``"l1"``: every ``u' != u`` in the box with ``||u - u'||_1 <= beta``.
    ``"linf"``: every ``u' != u`` in the box with ``|u_i - u'_i| <= beta`` for all ``i``."""
    p, lo, hi, beta = _check_box(len(u), lo, hi, beta, kind)
    if any(not lo <= v <= hi for v in u):
        raise DomainError(f"u = {tuple(u)} is outside the box {{{lo}..{hi}}}^{p}")
    if kind == "one-coordinate":
        out = [tuple(u[:i]) + (v,) + tuple(u[i + 1:]) for i in range(p)
               for v in range(max(lo, u[i] - beta), min(hi, u[i] + beta) + 1) if v != u[i]]
    else:
        offsets = _l1_offsets(p, beta) if kind == "l1" else _linf_offsets(p, beta)
        moved = (tuple(a + b for a, b in zip(u, d)) for d in offsets)
        out = [w for w in moved if all(lo <= c <= hi for c in w)]
    return tuple(sorted(out))


@lru_cache(maxsize=64)
def _l1_offsets(p: int, beta: int) -> tuple[tuple[int, ...], ...]:
    """Every ``d in Z^p`` with ``0 < ||d||_1 <= beta``."""
    def rec(n: int, budget: int) -> list[tuple[int, ...]]:
        if n == 0:
            return [()]
        return [(v,) + rest for v in range(-budget, budget + 1)
                for rest in rec(n - 1, budget - abs(v))]
    return tuple(d for d in rec(p, beta) if any(d))


@lru_cache(maxsize=64)
def _linf_offsets(p: int, beta: int) -> tuple[tuple[int, ...], ...]:
    """Every ``d in Z^p`` with ``0 < ||d||_inf <= beta``."""
    if (2 * beta + 1) ** p > MAX_POINTS:
        raise ResourceLimitError(f"a point has up to {(2 * beta + 1) ** p} linf neighbours "
                                 f"(> {MAX_POINTS}); use a smaller p or beta")
    return tuple(d for d in product(range(-beta, beta + 1), repeat=p) if any(d))


def vectors(p: object, lo: object, hi: object, beta: object, kind: str = "one-coordinate",
            keep: Callable[[tuple[int, ...]], bool] | None = None) -> Relation[Vector]:
    """The integer box ``{lo..hi}^p`` under ``kind`` adjacency with sensitivity ``beta``
    (see :func:`vector_neighbours`); ``keep`` restricts the domain (e.g. Li & Li's
    ``||u|| > 0``: ``keep=any``).  Relations are immutable, so equal requests share one
    (cached) object and its enumerated pairs."""
    dims, low, high, b = _check_box(p, lo, hi, beta, kind)
    return _vectors(dims, low, high, b, kind, keep)


@lru_cache(maxsize=32)
def _vectors(dims: int, low: int, high: int, b: int, kind: str,
             keep: Callable[[tuple[int, ...]], bool] | None) -> Relation[Vector]:
    size = (high - low + 1) ** dims
    if size > MAX_POINTS:
        raise ResourceLimitError(f"the box {{{low}..{high}}}^{dims} has {size} points "
                                 f"(> {MAX_POINTS}); enumerate a smaller domain")
    pts = [u for u in product(range(low, high + 1), repeat=dims) if keep is None or keep(u)]
    if kind == "one-coordinate":
        def adjacent(a: Vector, b2: Vector) -> bool:
            moved = [(x, y) for x, y in zip(a, b2) if x != y]
            return len(moved) == 1 and abs(moved[0][0] - moved[0][1]) <= b
    elif kind == "l1":
        def adjacent(a: Vector, b2: Vector) -> bool:
            return 0 < l1_distance(a, b2) <= b
    else:
        def adjacent(a: Vector, b2: Vector) -> bool:
            return a != b2 and all(abs(x - y) <= b for x, y in zip(a, b2))
    extra = "" if keep is None else f", restricted by {getattr(keep, '__name__', 'a filter')}"
    return Relation(f"vectors {{{low}..{high}}}^{dims}, "
                    f"{VECTOR_WORDS[kind].format(b=b)}{extra}",
                    tuple(pts), adjacent,
                    lambda u: vector_neighbours(u, low, high, b, kind))


def booleans(p: object) -> Relation[Vector]:
    """``{0,1}^p`` with one bit flipped."""
    dims = positive_int(p, "p")
    if 2 ** dims > MAX_POINTS:
        raise ResourceLimitError(f"{{0,1}}^{dims} has 2^{dims} points (> {MAX_POINTS})")
    return Relation(f"booleans {{0,1}}^{dims}, one bit flipped",
                    tuple(product((0, 1), repeat=dims)),
                    lambda a, b: l1_distance(a, b) == 1, lambda u: vector_neighbours(u, 0, 1, 1))
