"""Bisection on the integers for a certified predicate that need not be monotone.

The calibrations search a grid ``m = 1, 2, ...`` for a point whose certified privacy figure
meets a target.  Such a figure need not be monotone in the noise (the discrete Gaussian's
``delta`` is not, see :func:`exactdp.discrete_gaussian.calibrate_sigma2`), so a bisection
promises only what its invariants give: a passing point whose predecessor fails.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["boundary"]


def boundary(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """An ``m`` in ``(lo, hi]`` with ``ok(m)`` true and ``ok(m - 1)`` false, given ``ok(hi)``
    true and ``ok(lo)`` false (``lo < hi``; ``ok(lo)`` is never called, so ``lo`` may stand
    for a point that fails by definition, such as no noise at all).

    ``ceil(log2(hi - lo))`` calls of ``ok``.  When ``ok`` is monotone (false, then true) the
    result is the least passing point of ``(lo, hi]``; otherwise it is a boundary, and a smaller
    passing point may exist.

    >>> boundary(lambda m: m * m >= 50, 0, 16)
    8
    """
    if not lo < hi:
        raise ValueError(f"boundary needs lo < hi, got lo = {lo}, hi = {hi}")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
