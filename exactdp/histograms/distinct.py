"""Sampling distinct elements of a huge universe (Balcer & Vadhan, Appendix A).

Step 3 of KH' and SparseHistogram (Algorithms 6.4, 6.21) picks a uniformly random
sequence of ``n + 1`` distinct elements of ``X \\ A`` for ``X = [M]_+`` with ``M`` as large
as ``2**64`` or ``2**128``, ``A`` the (at most ``n``) elements present in the dataset.
:func:`distinct_sample` is Algorithm A.3 (Lemma A.1) on :class:`OrderStatisticSet`
(Proposition A.2).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable, Sequence

from exactdp.counting import search_rounds
from exactdp.params import DomainError, ParameterError, ParameterTypeError, positive_int
from exactdp.randomness import RandomSource, default_source
from exactdp.trace import active

__all__ = ["OrderStatisticSet", "distinct_sample"]


class OrderStatisticSet:
    """A set of elements of ``X = [M]_+`` with order queries (Proposition A.2).

    Stored as a sorted Python list of ints: :meth:`free` (the ``z``-th element outside the
    set, what Algorithm A.3 asks of its rank queries) is a binary search of
    ``bitlen(|T|)`` comparisons of ``O(log |X|)``-bit integers, the representation is
    ``O(|T| log |X|)`` bits (ii).
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
        if sorted_elements == ():
            return
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

    def free(self, z: int) -> int:
        """The ``z``-th smallest element of ``X`` outside ``T`` (``1 <= z <= M - |T|``).

        With ``T = {t_0 < t_1 < ..}`` there are ``t_j - j - 1`` elements outside ``T`` below
        ``t_j``, so the answer is ``z + j`` for the least ``j`` with ``t_j - j > z`` (``j =
        |T|`` if none): the same element as ``min{x : x - rank_T(x) >= z}``, found by
        :func:`inverse_cdf_search` over the ``|T| + 1`` ranks -- exactly
        ``bitlen(|T|)`` rounds of one list lookup each, instead of ``bitlen(M)`` rank
        queries over ``X`` (Proposition A.2 iii).
        """
        items = self._items
        size = len(items)
        bound = z + 1
        lo, hi = 0, size  # inverse_cdf_search of j -> t_j - j (bound at j = |T|), inlined:
        events = active()  # the same fixed rounds, one "cdf" event each
        for _ in range(search_rounds(size)):
            mid = (lo + hi) // 2
            if events is not None:
                events.append(("cdf",))
            if mid == size or items[mid] - mid >= bound:
                hi = mid
            else:
                lo = mid + 1
        return z + lo

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
    ``proofs/balcer_vadhan/lemma_a_01_distinctsample.py``): each has probability
    ``1 / (m'(m'-1)...(m'-r+1))``, ``m' = |X \\ A|``.  (Algorithm A.3 as printed returns the
    *set* ``S``; Lemma A.1 and KH' need the sequence in drawing order, returned here.)

    Step ``i`` draws ``z`` uniform on ``[M - |A| - i + 1]_+`` and returns the ``z``-th
    smallest element of ``X`` not yet in ``T = A + {s_1..s_{i-1}}``, the paper's
    ``min{x : x - rank_T(x) = z}`` (``x - rank_T(x)`` counts the elements ``<= x``
    outside ``T``).  The paper finds it by a binary search over ``X`` with a rank query
    per round; :meth:`OrderStatisticSet.free` finds the same element by a binary search
    over the ranks of ``T`` (``bitlen(|T|)`` rounds), 5x fewer rounds of a cheaper kind
    at the sizes of SparseHistogram (``|T| <= 2n + 1``, ``M = 2^64``).

    Time: validating ``A`` is ``O(|A| log |X|)``; each of the ``r`` steps makes one draw,
    ``bitlen(|A| + i - 1)`` comparisons of ``O(log |X|)``-bit integers and one insertion
    (see :class:`OrderStatisticSet`).  The number of draws is fixed by ``r``; the draw
    **domains** ``M - |A| - i + 1`` and the search rounds depend on ``|A|``, which for a
    histogram is the number of distinct elements in the dataset (the strict mode of the
    histograms passes ``A = {}``, see :mod:`exactdp.histograms.sparse`).
    """
    universe = (universe_size if type(universe_size) is int and universe_size >= 1
                else positive_int(universe_size, "universe_size"))
    if isinstance(count, bool) or not isinstance(count, int):
        raise ParameterTypeError(f"count = {count!r} must be an int")
    tree = OrderStatisticSet(universe, excluded)
    available = universe - len(tree)
    if not 0 <= count <= available:
        raise ParameterError(f"count = {count} must lie in [0, |X \\ A|] = [0, {available}]")
    src = default_source(source)
    out: list[int] = []
    items = tree._items  # |T| = len(items)
    events = active()  # record("distinct_search", ...) per step, the trace read once
    for _ in range(count):
        size = len(items)
        z = src.uniform(universe - size)
        if events is not None:
            events.append(("distinct_search", search_rounds(size)))
        x = tree.free(z)
        tree.insert(x)
        out.append(x)
    return tuple(out)
