"""Shared grids, toy mechanisms and cached exact distributions for the Section 8 proofs.

Every distribution here is read off the implementation: ``M0``'s by calling the
:class:`~exactdp.histograms.compact.EmptyBinSampler` on every ``u0`` (or, for huge ``d0``,
by the block argument of :func:`m0_distribution`: thresholds derived from Algorithm 8.5 and
``M``, confirmed by calls at both ends of every block), ``M``'s through
:func:`exactdp.checker.counting_distribution`, and a release's by running
:meth:`CompactHistogram.release` under :func:`exactdp.explore.explore`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from itertools import islice
from operator import le
from typing import NamedTuple

from exactdp.checker import Distribution, counting_distribution, thresholds
from exactdp.counting import GeoSample, InverseCDFSampler, TabulatedMechanism
from exactdp.explore import explore
from exactdp.histograms.compact import CompactHistogram, EmptyBinSampler
from exactdp.histograms.data import Dataset
from exactdp.params import DomainError

#: ``d0`` up to which :func:`m0_distribution` evaluates ``M0`` on every ``u0`` by default.
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


def algorithm_8_5_threshold(d: int, d0: int, u: int) -> int:
    """``max{u0 in [d0]_+ : f(u0) <= u}`` (0 if none) for ``u`` in ``[0, d]``, with ``f`` of
    Algorithm 8.5 (``d0 = q d + r``, ``0 <= r < d``), derived here from ``f``'s definition.

    On ``u0 <= r(q+1)`` (``r != 0``), ``f(u0) = ceil(u0/(q+1)) <= u`` iff ``u0 <= (q+1)u``;
    on ``u0 > r(q+1)``, ``f(u0) = ceil((u0-r)/q) <= u`` iff ``u0 <= qu + r``.  If ``u <= r``
    the second piece contributes nothing (``qu + r <= r(q+1)``): ``(q+1)u``; else the first
    piece is all in and the second reaches ``qu + r``.  Written out independently of
    :meth:`EmptyBinSampler.max_preimage`, which it is used to check.
    """
    q, r = divmod(d0, d)
    return (q + 1) * u if r != 0 and u <= r else q * u + r


def m0_thresholds(sampler: EmptyBinSampler) -> tuple[int, ...]:
    """``(T_0, ..., T_n)``, ``T_z = |{u0 : M(0, f(u0)) <= z}|``: the thresholds Algorithm 8.5
    implies, from ``F_M(z)`` read off ``M`` (:func:`exactdp.checker.thresholds`) and
    :func:`algorithm_8_5_threshold` -- not from the sampler's own ``cdf``."""
    mech = sampler.mechanism
    return tuple(algorithm_8_5_threshold(mech.d, sampler.d0, t)
                 for t in thresholds(mech, 0))


class M0Reading(NamedTuple):
    """``dist(M0(U0))`` read off ``M0``; whether ``M0`` was seen non-decreasing; and how:
    ``enumerated`` (``M0`` called on every ``u0``) or by the block argument."""

    dist: Distribution
    monotone: bool
    enumerated: bool


def m0_distribution(sampler: EmptyBinSampler, enumerate_up_to: int = ENUMERATE_D0) -> M0Reading:
    """``dist(M0(U0))`` read off ``M0`` itself, and whether ``M0`` was seen non-decreasing.

    ``d0 <= enumerate_up_to``: ``M0`` is called on every ``u0``; monotone means exactly
    that.  Larger ``d0`` (block argument): Algorithm 8.5 makes ``M0 = M(0, f(.))`` constant
    ``= z`` on each block ``(T_{z-1}, T_z]`` of :func:`m0_thresholds` (``f`` non-decreasing
    maps the block onto ``(F_M(z-1), F_M(z)]``, where ``M(0, .) = z``); ``M0`` is called at
    both ends of every non-empty block and at the two ends of ``f``'s pieces
    (``r(q+1)``, ``r(q+1) + 1``), and each call must give the block's ``z``.  This cannot
    see a defect strictly inside a block of a huge field; the enumerated cases can.
    """
    d0, n = sampler.d0, sampler.n
    if d0 <= enumerate_up_to:
        values = list(map(sampler, range(1, d0 + 1)))  # M0(u0) for every u0, in order
        masses = Counter(values)
        if not masses.keys() <= set(range(n + 1)):
            raise DomainError(f"M0 returned {sorted(set(masses) - set(range(n + 1)))[:3]}, "
                              f"outside [n] = [0, {n}]")
        monotone = all(map(le, values, islice(values, 1, None)))
        return M0Reading({z: Fraction(masses[z], d0) for z in range(n + 1) if masses[z]},
                         monotone, True)
    ts = m0_thresholds(sampler)
    q, r = divmod(d0, sampler.mechanism.d)
    probes = {u0 for u0 in (r * (q + 1), r * (q + 1) + 1) if 1 <= u0 <= d0}
    dist: Distribution = {}
    prev = 0
    for z, t in enumerate(ts):
        if t > prev:
            dist[z] = Fraction(t - prev, d0)
            probes.update((prev + 1, t))
        prev = t
    ok = ts[-1] == d0 and all(sampler(u0) == bisect_left(ts, u0) for u0 in sorted(probes))
    return M0Reading(dist, ok, False)


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
              strict: bool = True, arithmetic: str = "auto") -> CompactHistogram:
    return CompactHistogram(universe_size, mechanism(key), level, strict_time=strict,
                            arithmetic=arithmetic)


@cache
def release_distribution(level: int, universe_size: int, key: str,
                         rows: tuple[int, ...], arithmetic: str = "auto") -> Distribution:
    """The exact distribution of the released coefficient tuple, by exploration (native
    arithmetic when available, unless ``arithmetic = "pure"``)."""
    ch = histogram(level, universe_size, key, arithmetic=arithmetic)
    if arithmetic == "pure" and ch.uses_native:
        raise AssertionError("arithmetic='pure' was asked for but the native path is in use: "
                             "the comparison of the two paths would compare one with itself")
    data = Dataset.of(universe_size, rows)
    return explore(lambda src: ch.release(data, src).coefficients)


def grid_text(grid: list[tuple[int, int, str]]) -> str:
    parts = [f"GF({4 if lv == 0 else 64}) |X|={m} {describe_mechanism(k)}" for lv, m, k in grid]
    return "; ".join(parts)
