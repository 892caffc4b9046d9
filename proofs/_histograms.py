"""Shared machinery for the histogram proofs (Sections 5-6): tiny universes, datasets up to
symmetry, and exact output distributions explored from the implementation.

Every distribution here is ``explore(lambda s: alg.release(D, s).bins)``: the algorithm's
own sampling code run under the exploring source.  Two symmetries keep the work small:

* **row order**: the algorithms see a dataset only through its counts, so a dataset is a
  multiset (a sorted tuple of rows);
* **relabelling**: for a permutation ``pi`` of ``X``, ``Pr[A(pi D) = pi h] = Pr[A(D) = h]``
  (every step treats the elements of ``X`` alike; releases are sorted by element after
  relabelling).  So only *canonical* datasets -- element ``1`` the most frequent, then ``2``,
  ... -- are explored, and the distribution of any other dataset is the relabelled one.

Neither symmetry is assumed silently: :meth:`Distributions.symmetry_failures` explores
non-canonical (and row-permuted) datasets directly and compares them with the relabelled
distributions; the proofs run it (on every dataset used in the full grids, on a sample in
the quick ones) and fail if they differ.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from itertools import combinations_with_replacement

from exactdp.explore import explore
from exactdp.histograms.data import Dataset, Histogram, Universe
from exactdp.randomness import RandomSource

Rows = tuple[int, ...]
Bins = tuple[tuple[int, int], ...]
Dist = dict[Bins, Fraction]
Release = Callable[[Dataset, RandomSource], Histogram]


def partitions(n: int, max_parts: int) -> list[tuple[int, ...]]:
    """Integer partitions of ``n`` (non-increasing parts) with at most ``max_parts`` parts."""
    out: list[tuple[int, ...]] = []

    def rec(rest: int, largest: int, prefix: tuple[int, ...]) -> None:
        if rest == 0:
            out.append(prefix)
            return
        if len(prefix) == max_parts:
            return
        for part in range(min(rest, largest), 0, -1):
            rec(rest - part, part, prefix + (part,))

    rec(n, n, ())
    return out


def canonical_datasets(n: int, size: int) -> list[Rows]:
    """One dataset per count profile: element ``i+1`` repeated ``profile[i]`` times."""
    return [tuple(i + 1 for i, c in enumerate(p) for _ in range(c))
            for p in partitions(n, size)]


def all_datasets(n: int, size: int) -> list[Rows]:
    """Every multiset of ``n`` rows from ``[1, size]``."""
    return list(combinations_with_replacement(range(1, size + 1), n))


def neighbours(rows: Rows, size: int) -> list[Rows]:
    """Every multiset obtained by changing one row to a different element."""
    out: set[Rows] = set()
    for i, v in enumerate(rows):
        if i and rows[i - 1] == v:
            continue
        rest = rows[:i] + rows[i + 1:]
        for w in range(1, size + 1):
            if w != v:
                out.add(tuple(sorted(rest + (w,))))
    return sorted(out)


def canonical(rows: Rows, size: int) -> tuple[Rows, dict[int, int]]:
    """``(C, pi)`` with ``C`` canonical and ``pi(C) = rows`` (``pi``: canonical label -> element)."""
    counts: dict[int, int] = {}
    for x in rows:
        counts[x] = counts.get(x, 0) + 1
    order = sorted(counts, key=lambda x: (-counts[x], x))
    order += [x for x in range(1, size + 1) if x not in counts]
    perm = {label: x for label, x in enumerate(order, 1)}
    inverse = {x: label for label, x in perm.items()}
    return tuple(sorted(inverse[x] for x in rows)), perm


def relabel(dist: Dist, perm: dict[int, int]) -> Dist:
    """``dist`` with every released element ``x`` renamed ``perm[x]`` (bins re-sorted by
    element).  The identity permutation gives a copy of ``dist`` (its bins are sorted by
    element already: :class:`~exactdp.histograms.data.Histogram` checks it)."""
    if all(x == y for x, y in perm.items()):
        return dict(dist)
    return {tuple(sorted([(perm[x], c) for x, c in h])): p for h, p in dist.items()}


class Distributions:
    """Exact output distributions of one algorithm on one universe, explored once per
    canonical dataset and relabelled for the others."""

    def __init__(self, release: Release, universe: Universe) -> None:
        self.release = release
        self.universe = universe
        self._canonical: dict[Rows, Dist] = {}
        self.explored = 0

    def direct(self, rows: Rows | list[int]) -> Dist:
        """Explore the implementation on exactly these rows (in this order)."""
        data = Dataset.of(self.universe, rows)
        self.explored += 1
        return explore(lambda src: self.release(data, src).bins)

    def __call__(self, rows: Rows) -> Dist:
        canon, perm = canonical(rows, self.universe.size)
        if canon not in self._canonical:
            self._canonical[canon] = self.direct(canon)
        return relabel(self._canonical[canon], perm)

    def symmetry_failures(self, datasets: Iterable[Rows]) -> list[str]:
        """Datasets whose directly explored distribution differs from the relabelled one
        (each is also explored with its rows reversed, for row-order invariance)."""
        bad: list[str] = []
        for rows in datasets:
            expected = self(rows)
            if self.direct(rows) != expected:
                bad.append(f"relabelling fails at {rows}")
            if len(set(rows)) > 1 and self.direct(tuple(reversed(rows))) != expected:
                bad.append(f"row order matters at {rows}")
        return bad


def neighbour_pairs(n: int, size: int) -> list[tuple[Rows, Rows]]:
    """``(D, D')`` for every canonical ``D`` and every neighbour ``D'``: up to relabelling,
    every neighbouring pair of datasets of ``n`` rows over ``[1, size]``."""
    return [(d, e) for d in canonical_datasets(n, size) for e in neighbours(d, size)]


def sample_noncanonical(n: int, size: int, how_many: int) -> list[Rows]:
    """A few non-canonical datasets, spread over the list, for the symmetry check."""
    pool = [d for d in all_datasets(n, size) if canonical(d, size)[0] != d]
    if how_many >= len(pool):
        return pool
    return [pool[i * len(pool) // how_many] for i in range(how_many)]
