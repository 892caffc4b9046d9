"""Shared grids, toy mechanisms and cached exact distributions for the Section 8 proofs.

Every distribution here is read off the implementation: ``M0``'s by calling the
:class:`~exactdp.histograms.compact.EmptyBinSampler` on every ``u0`` (or, for huge ``d0``,
by binary search over ``u0`` for its thresholds, each confirmed by calls), ``M``'s through
:func:`exactdp.checker.counting_distribution`, and a release's by running
:meth:`CompactHistogram.release` under :func:`exactdp.explore.explore`.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import cache

from exactdp.checker import Distribution, counting_distribution
from exactdp.counting import GeoSample, InverseCDFSampler
from exactdp.explore import explore
from exactdp.histograms.compact import CompactHistogram, EmptyBinSampler, TabulatedMechanism
from exactdp.histograms.data import Dataset

#: ``d0`` up to which ``M0`` is evaluated on every ``u0``.
ENUMERATE_D0 = 1 << 16

#: Toy counting mechanisms (integer CDF tables ``F_c(z)``, rows c = 0..n) whose ``d`` is
#: small enough for ``GF(4)`` (``d <= 3``) or ``GF(64)`` (``d <= 48``).
TOY_TABLES: dict[str, tuple[tuple[int, ...], ...]] = {
    # n = 1, d = 3: randomized response with ratio 2.
    "RR3": ((2, 3), (1, 3)),
    # n = 2, d = 3: uniform on {0, 1, 2} whatever c is (ratio 1).
    "U3": ((1, 2, 3), (1, 2, 3), (1, 2, 3)),
    # n = 3, d = 3: uniform on {0, 1, 2}; outcome 3 never occurs.
    "U3n3": ((1, 2, 3, 3),) * 4,
    # n = 1, d = 32 (divides 64: Lemma 8.4's equality case): ratio 3.
    "RR32": ((24, 32), (8, 32)),
    # n = 2, d = 7: a clamped-geometric-like table with ratio 2.
    "G7": ((4, 6, 7), (2, 5, 7), (1, 3, 7)),
}


@cache
def toy(name: str) -> TabulatedMechanism:
    return TabulatedMechanism(TOY_TABLES[name])


@cache
def geosample(n: int, eps: Fraction) -> GeoSample:
    return GeoSample(n, eps)


def mechanism(key: str) -> InverseCDFSampler:
    """``"toy:NAME"`` (a table of :data:`TOY_TABLES`) or ``"geo:N:EPS"`` (GeoSample)."""
    kind, *rest = key.split(":")
    if kind == "toy":
        return toy(rest[0])
    return geosample(int(rest[0]), Fraction(rest[1]))


def describe_mechanism(key: str) -> str:
    kind, *rest = key.split(":")
    return f"toy {rest[0]}" if kind == "toy" else f"GeoSample(n={rest[0]}, eps={rest[1]})"


@cache
def m_distribution(key: str, c: int) -> Distribution:
    """``dist(M(c, U))`` read off the implementation."""
    return counting_distribution(mechanism(key), c)


def m0_distribution(sampler: EmptyBinSampler) -> tuple[Distribution, bool]:
    """``dist(M0(U0))`` read off ``M0`` itself, and whether ``M0`` was seen non-decreasing.

    ``d0 <= ENUMERATE_D0``: every ``u0``.  Larger ``d0``: for each ``z`` the largest ``u0``
    with ``M0(u0) <= z`` by binary search, confirmed by ``M0(T_z) <= z < M0(T_z + 1)``.
    """
    d0, n = sampler.d0, sampler.n
    if d0 <= ENUMERATE_D0:
        masses = [0] * (n + 1)
        monotone, prev = True, -1
        for u0 in range(1, d0 + 1):
            v = sampler(u0)
            masses[v] += 1
            monotone = monotone and v >= prev
            prev = v
        return {z: Fraction(m, d0) for z, m in enumerate(masses) if m}, monotone
    thresholds: list[int] = []
    monotone = True
    for z in range(n + 1):
        lo, hi = 0, d0  # largest u0 in [0, d0] with M0(u0) <= z (M0(0) := -infinity)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if sampler(mid) <= z:
                lo = mid
            else:
                hi = mid - 1
        if lo >= 1 and sampler(lo) > z or lo < d0 and sampler(lo + 1) <= z:
            monotone = False
        if thresholds and lo < thresholds[-1]:
            monotone = False
        thresholds.append(lo)
    prev, dist = 0, {}
    for z, t in enumerate(thresholds):
        if t > prev:
            dist[z] = Fraction(t - prev, d0)
        prev = t
    return dist, monotone and thresholds[-1] == d0


def datasets(universe_size: int, n: int) -> list[Dataset]:
    """Every dataset of ``X^n`` up to order (one per count vector), rows sorted."""
    out: list[Dataset] = []

    def rec(x: int, left: int, rows: list[int]) -> None:
        if x == universe_size:
            out.append(Dataset.of(universe_size, rows + [x] * left))
            return
        for k in range(left + 1):
            rec(x + 1, left - k, rows + [x] * k)

    rec(1, n, [])
    return out


def neighbours(data: list[Dataset]) -> Iterator[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i != j``, of datasets at distance one (one row replaced)."""
    counts = [d.counts() for d in data]
    for i, ci in enumerate(counts):
        for j, cj in enumerate(counts):
            if i == j:
                continue
            keys = set(ci) | set(cj)
            diff = sum(abs(ci.get(x, 0) - cj.get(x, 0)) for x in keys)
            if diff == 2:
                yield i, j


#: The Theorem 8.3 grids: (field level, universe size, mechanism key).
DP_GRID_QUICK: list[tuple[int, int, str]] = [
    (0, 4, "toy:RR3"),
    (0, 3, "toy:U3"),
    (0, 4, "toy:U3n3"),
    (1, 3, "geo:1:1"),
    (1, 3, "toy:RR32"),
]
DP_GRID_FULL = DP_GRID_QUICK + [
    (1, 4, "geo:1:1/2"),
    (1, 2, "geo:2:1"),  # 64^3 = 262144 explored paths per dataset: minutes
]


def dp_grid(full: bool) -> list[tuple[int, int, str]]:
    return DP_GRID_FULL if full else DP_GRID_QUICK


@cache
def histogram(level: int, universe_size: int, key: str,
              strict: bool = True) -> CompactHistogram:
    return CompactHistogram(universe_size, mechanism(key), level, strict_time=strict)


@cache
def release_distribution(level: int, universe_size: int, key: str,
                         rows: tuple[int, ...]) -> Distribution:
    """The exact distribution of the released coefficient tuple, by exploration."""
    ch = histogram(level, universe_size, key)
    data = Dataset.of(universe_size, rows)
    return explore(lambda src: ch.release(data, src).coefficients)


def grid_text(grid: list[tuple[int, int, str]]) -> str:
    parts = [f"GF({4 if lv == 0 else 64}) |X|={m} {describe_mechanism(k)}" for lv, m, k in grid]
    return "; ".join(parts)
