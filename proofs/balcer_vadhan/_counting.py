"""Shared grids and cached distributions for the counting-query proofs (Sections 3-4).

Distributions are read off the implementation by :mod:`exactdp.checker` (threshold search
confirmed against the implementation's own calls) and cached, so that several claims
about the same mechanism do not recompute them.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import cache

from exactdp.checker import Distribution, counting_distributions, operation_trace
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler, search_rounds

EPSILONS = [Fraction(1, m) for m in range(1, 9)]


def geo_grid(full: bool) -> list[tuple[int, Fraction]]:
    """GeoSample: every n <= 64 (full) or a spread of n <= 64 (quick); eps in {1..1/8}."""
    ns = range(1, 65) if full else [*range(1, 11), 16, 23, 32, 47, 64]
    return [(n, eps) for eps in EPSILONS for n in ns]


#: FastSample points with ``n > t`` (``t`` its truncation, at least 17 for every eps, gamma):
#: only there does ``F'`` reach its branches ``z < c - t`` (mass below the window) and
#: ``c + t <= z < n`` (above it), and the ideal law's offsets beyond ``t``.  With eps = 1 and
#: gamma = 1/2, t = 40 at n = 41 and 44 at n = 64.
FAST_BEYOND_T_QUICK = [(41, Fraction(1), Fraction(1, 2)), (64, Fraction(1), Fraction(1, 2))]
FAST_BEYOND_T_FULL = FAST_BEYOND_T_QUICK + [(128, Fraction(1, 2), Fraction(1, 2)),
                                            (128, Fraction(1), Fraction(1, 100))]


def _fast_cross(full: bool) -> list[tuple[int, Fraction, Fraction]]:
    if full:
        ns: list[int] = list(range(1, 33))
        epss = [Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(1, 8)]
        gammas = [Fraction(1, 2), Fraction(1, 10), Fraction(1, 100), Fraction(1, 10**6)]
    else:
        ns = [1, 2, 3, 5, 8, 13, 32]
        epss = [Fraction(1), Fraction(1, 2), Fraction(1, 4)]
        gammas = [Fraction(1, 2), Fraction(1, 100)]
    return [(n, e, g) for e in epss for g in gammas for n in ns]


def fast_grid(full: bool) -> list[tuple[int, Fraction, Fraction]]:
    """FastSample: n <= 32 and several eps and gamma (there n <= t), plus the points of
    :data:`FAST_BEYOND_T_QUICK` (full: ``FAST_BEYOND_T_FULL``) with n > t."""
    return _fast_cross(full) + (FAST_BEYOND_T_FULL if full else FAST_BEYOND_T_QUICK)


@cache
def geosample(n: int, eps: Fraction) -> GeoSample:
    return GeoSample(n, eps)


@cache
def fastsample(n: int, eps: Fraction, gamma: Fraction) -> FastSample:
    return FastSample(n, eps, gamma)


_DISTS: dict[tuple[str, tuple[object, ...]], list[Distribution]] = {}


def distributions(mech: InverseCDFSampler) -> list[Distribution]:
    """``[dist(M(c, U)) for c in [n]]``, derived from the implementation, cached."""
    key = (type(mech).__name__, _params(mech))
    if key not in _DISTS:
        _DISTS[key] = counting_distributions(mech)
    return _DISTS[key]


def _params(mech: InverseCDFSampler) -> tuple[object, ...]:
    if isinstance(mech, GeoSample):
        return (mech.n, mech.epsilon)
    if isinstance(mech, FastSample):
        return (mech.n, mech.epsilon, mech.gamma)
    fast = getattr(mech, "fast", None)
    if isinstance(fast, FastSample):
        return (fast.n, fast.epsilon, fast.gamma)
    raise TypeError(f"no cache key for {mech!r}")


def describe(values: list[int]) -> str:
    """``"1..64"`` for a contiguous range, else the values."""
    vs = sorted(set(values))
    if vs == list(range(vs[0], vs[-1] + 1)) and len(vs) > 2:
        return f"{vs[0]}..{vs[-1]}"
    return ",".join(map(str, vs))


def geo_grid_text(full: bool) -> str:
    grid = geo_grid(full)
    return (f"GeoSample n in {describe([n for n, _ in grid])}, eps in 1/1..1/8, every c "
            f"({len(grid)} mechanisms)")


def fast_grid_text(full: bool) -> str:
    grid = _fast_cross(full)
    epss = sorted({e for _, e, _ in grid}, reverse=True)
    gammas = sorted({g for _, _, g in grid}, reverse=True)
    beyond = FAST_BEYOND_T_FULL if full else FAST_BEYOND_T_QUICK
    extra = ", ".join(f"(n={n}, eps={e}, gamma={g}: t={fastsample(n, e, g).t})"
                      for n, e, g in beyond)
    return (f"FastSample n in {describe([n for n, _, _ in grid])}, eps in "
            f"{{{', '.join(map(str, epss))}}}, gamma in {{{', '.join(map(str, gammas))}}}; "
            f"n > t: {extra}; every c ({len(grid) + len(beyond)} mechanisms)")


def each_geo(full: bool) -> Iterator[GeoSample]:
    for n, eps in geo_grid(full):
        yield geosample(n, eps)


def each_fast(full: bool) -> Iterator[FastSample]:
    for n, eps, gamma in fast_grid(full):
        yield fastsample(n, eps, gamma)


def trace_shape(mech: InverseCDFSampler) -> tuple[bool, str]:
    """Whether one call makes exactly one draw of size ``d`` and ``ceil(log2(n+1))`` search
    rounds, each evaluating ``F`` once (``search_cdf`` calls seen by the profiler), and the
    counts found."""
    events = operation_trace(mech, 0, 1)
    draws = [e for e in events if e[0] == "uniform"]
    rounds = sum(1 for e in events if e == ("cdf",))
    rounds += sum(int(e[1]) * int(e[2]) for e in events  # type: ignore[call-overload]
                  if e[0] == "native_search")
    evals = sum(1 for e in events if e == ("call", "search_cdf"))
    want = search_rounds(mech.n)
    # FastSample's native search evaluates F in C (no Python call to see): its rounds are the
    # C loop's, fixed by n; proofs/balcer_vadhan/thm_4_10_fast_path.py proves its outputs equal the Python's.
    native = getattr(mech, "_native", None) is not None
    ok = draws == [("uniform", mech.d)] and rounds == want and evals == (0 if native else want)
    where = " in C" if native else ""
    return ok, (f"{len(draws)} draw, {rounds} rounds, {evals} F evaluations{where} (want 1, "
                f"{want}, {0 if native else want})")
