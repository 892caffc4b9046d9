"""Sampling distinct elements of a huge universe (Balcer & Vadhan, Appendix A).

Step 3 of KH' and SparseHistogram (Algorithms 6.4, 6.21) picks a uniformly random
sequence of ``n + 1`` distinct elements of ``X \\ A`` for ``X = [M]_+`` with ``M`` as large
as ``2**64`` or ``2**128``, ``A`` the (at most ``n``) elements present in the dataset.
:func:`distinct_sample` is Algorithm A.3 (Lemma A.1) on :class:`OrderStatisticSet`
(Proposition A.2).
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Iterable, Sequence

from exactdp.counting import inverse_cdf_search, search_rounds
from exactdp.params import DomainError, ParameterError, ParameterTypeError, positive_int
from exactdp.randomness import RandomSource, default_source
from exactdp.trace import record

__all__ = ["OrderStatisticSet", "distinct_sample"]


class OrderStatisticSet:
    """A set of elements of ``X = [M]_+`` with rank queries (Proposition A.2).

    Stored as a sorted Python list of ints: :meth:`rank` is a binary search
    (``O(log |T|)`` comparisons of ``O(log |X|)``-bit integers -- Prop. A.2 iii's
    ``O(log |T| log |X|)``), the representation is ``O(|T| log |X|)`` bits (ii).
    :meth:`insert` finds the position in ``O(log |T|)`` comparisons but then shifts the
    tail of the list: ``O(|T|)`` pointer moves (one ``memmove``) instead of Prop. A.2 i's
    ``O(log |T| log |X|)`` for a balanced tree.  For the sizes the histograms reach
    (``|T| <= 2n + 1``) that is at most ``(2n + 1)^2`` word moves over a whole run of
    DistinctSample, far below its ``O(n log^2 |X| log n)`` search cost in practice, and a
    tree in pure Python would be slower at every realistic size.
    """

    def __init__(self, universe_size: int, sorted_elements: Iterable[int] = ()) -> None:
        self.universe_size = universe_size
        self._items: list[int] = []
        prev = 0
        for k, x in enumerate(sorted_elements):
            if isinstance(x, bool) or not isinstance(x, int):
                raise ParameterTypeError(f"excluded[{k}] = {x!r} must be an int in "
                                         f"[1, {universe_size}]")
            if not 1 <= x <= universe_size:
                raise DomainError(f"excluded[{k}] = {x} is outside X = [1, {universe_size}]")
            if x <= prev:
                raise ParameterError(f"excluded must be sorted and distinct: excluded[{k}] "
                                     f"= {x} follows {prev}")
            self._items.append(int(x))
            prev = x

    def __len__(self) -> int:
        return len(self._items)

    def rank(self, x: int) -> int:
        """``|{x' in T : x' <= x}|`` (Proposition A.2 iii)."""
        return bisect_right(self._items, x)

    def insert(self, x: int) -> None:
        """Add ``x`` (not already present) to the set (Proposition A.2 i)."""
        insort(self._items, x)

    def elements(self) -> tuple[int, ...]:
        return tuple(self._items)


def distinct_sample(universe_size: int, excluded: Sequence[int], count: int,
                    source: RandomSource | None = None) -> tuple[int, ...]:
    """``DistinctSample(A, r)``, Algorithm A.3: ``count`` distinct elements of ``X \\ A``.

    ``X = [universe_size]_+ = {1..M}`` (any positive int ``M``: ``2**64``, ``2**128``, ...),
    ``A = excluded`` sorted and distinct inside ``X``, ``r = count`` with
    ``0 <= r <= |X \\ A|``.

    Output: ``(s_1, ..., s_r)`` uniformly distributed over the sequences of ``r``
    distinct elements of ``X \\ A`` (Lemma A.1, checked exactly in
    ``proofs/lemma_a_01_distinctsample.py``): each has probability
    ``1 / (m'(m'-1)...(m'-r+1))``, ``m' = |X \\ A|``.  (Algorithm A.3 as printed returns the
    *set* ``S``; Lemma A.1 and KH' need the sequence in drawing order, returned here.)

    Step ``i`` draws ``z`` uniform on ``[M - |A| - i + 1]_+`` and returns the ``z``-th
    smallest element of ``X`` not yet in ``T = A + {s_1..s_{i-1}}``:
    ``min{x : x - rank_T(x) >= z}`` by a binary search of exactly ``bitlen(M)`` rounds
    (``x - rank_T(x)`` counts the elements ``<= x`` outside ``T``; it is
    non-decreasing, so this equals the paper's ``min{x : x - rank_T(x) = z}``).

    Time: validating ``A`` is ``O(|A| log |X|)``; each of the ``r`` steps makes one draw
    and ``bitlen(M)`` rank queries, ``O(log^2 |X| log(|A| + r))``, plus one insertion
    (see :class:`OrderStatisticSet`).  The number of draws and of search rounds is
    fixed by ``(M, r)``; the draw **domains** ``M - |A| - i + 1`` depend on ``|A|``,
    which for a histogram is the number of distinct elements in the dataset.
    """
    universe = positive_int(universe_size, "universe_size")
    if isinstance(count, bool) or not isinstance(count, int):
        raise ParameterTypeError(f"count = {count!r} must be an int")
    tree = OrderStatisticSet(universe, excluded)
    available = universe - len(tree)
    if not 0 <= count <= available:
        raise ParameterError(f"count = {count} must lie in [0, |X \\ A|] = [0, {available}]")
    src = default_source(source)
    rounds = search_rounds(universe)
    out: list[int] = []
    for _ in range(count):
        z = src.uniform(universe - len(tree))
        record("distinct_search", rounds)
        x = inverse_cdf_search(lambda y: y - tree.rank(y), universe, z)
        tree.insert(x)
        out.append(x)
    return tuple(out)
