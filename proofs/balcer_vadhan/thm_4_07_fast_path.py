"""Theorem 4.7 on the fast path: GeoSample's gmpy2 search (PowerWalk) equals the reference one.

GeoSample searches with PowerWalk when its table of F values (``GeoSample._table``) would be
too large; on the grids here it reads that table, whose values Theorem 4.7 (iv) compares with
``GeoSample.cdf`` at every ``(c, z)`` (``search_cdf == cdf``), and this row's calls of M at both
ends of every interval run that table search."""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from typing import Any

import gmpy2

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import GeoSample, PowerWalk, inverse_cdf_search
from exactdp.proofs._strict_time import coins, compare
from exactdp.proofs.balcer_vadhan._counting import each_geo, geo_grid_text
from exactdp.randomness import RandomSource

CLAIM = "Theorem 4.7 (fast path)"
STATEMENT = """GeoSample's search (Algorithm 4.8 with Lemma 2.13) as implemented -- gmpy2
integers, u converted once, and from round fresh + 1 on each round's power (2^k + 1)^(n - a)
obtained from the previous round's by one product or exact quotient (PowerWalk) -- evaluates
exactly the paper's F_c (GeoSample.cdf, Python integers) at every point of every search path,
so M(c, u) equals the reference search's output for every c and every u in [d]_+; and
sample_many's operation trace depends only on the batch's length and the public parameters."""
PROOF_IDEA = """A walk's state after r rounds depends only on the points visited, i.e. on the
path, and the path of u depends on u only through the comparisons F_c(mid) >= u.  So if along
the path of one u of an interval (F_c(z-1), F_c(z)] every value equals F_c(mid), every u of that
interval takes the same path with the same values (induction on the rounds) and outputs z.
Checks: for every mechanism of the Theorem 4.7 grid (quick: those with n <= 32), every c and
one u per non-empty interval
(its right end), every value the walk returns is compared with GeoSample.cdf and the search's
output, and GeoSample's own M(c, u) at both ends, with z.  The grid has n <= 64, where only
the first round computes a fresh power; mechanisms with n = 4200 and 5000 (fresh = 2) add
paths with fresh rounds after the first (a spread of c; every interval within 48 of c and
every 97th beyond).  Traces of sample_many over count vectors in {0, n//2, n}^2 on fixed coins
must be equal."""


def _walk_ok(mech: GeoSample, c: int, zs: list[int]) -> tuple[bool, int, dict[str, object]]:
    """Run the walk's search for one u per interval of ``zs`` and compare every value."""
    evaluations = 0
    known: dict[int, int] = {}  # GeoSample.cdf(c, y), each computed once for this c

    def cdf(y: int) -> int:
        value = known.get(y)
        if value is None:
            value = known[y] = mech.cdf(c, y)
        return value

    prev_of = {z: cdf(z - 1) for z in zs}
    for z in zs:
        f = cdf(z)
        if f == prev_of[z]:
            continue
        walk = PowerWalk(mech, c)
        bad: list[dict[str, object]] = []

        def checked(y: int, walk: PowerWalk = walk, bad: list[dict[str, object]] = bad,
                    target: int = z) -> Any:
            value = walk.search_cdf(y)
            if value != cdf(y):
                bad.append({"c": c, "round": walk.calls, "z": y, "target": target})
            return value

        out = inverse_cdf_search(checked, mech.n, gmpy2.mpz(f))
        evaluations += walk.calls
        if bad or out != z or mech(c, f) != z or mech(c, prev_of[z] + 1) != z:
            return False, evaluations, bad[0] if bad else {"c": c, "z": z, "search": out}
    return True, evaluations, {}


def _large(full: bool) -> list[tuple[GeoSample, list[int]]]:
    out = []
    for n in (4200, 5000) if full else (4200,):
        mech = GeoSample(n, 1)
        for c in (0, n // 3, n):
            zs = sorted({z for z in range(n + 1) if abs(z - c) <= 48 or z % 97 == 0})
            out.append((mech, [c, *zs]))
    return out


def check_equal(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    mechs = [m for m in each_geo(full) if full or m.n <= 32]
    for mech in mechs:
        ok, evaluations, witness = True, 0, dict[str, object]()
        for c in range(mech.n + 1):
            ok, ev, witness = _walk_ok(mech, c, list(range(mech.n + 1)))
            evaluations += ev
            if not ok:
                break
        certs.append(Certificate(
            CLAIM, repr(mech), {"n": mech.n, "epsilon": mech.epsilon, "fresh": 1},
            f"every c, every interval; {evaluations} walk values", None,
            "walk values == GeoSample.cdf; M == reference", ok, witness))
    for mech, (c, *zs) in _large(full):
        ok, evaluations, witness = _walk_ok(mech, c, zs)
        certs.append(Certificate(
            CLAIM, repr(mech), {"n": mech.n, "c": c, "fresh": PowerWalk(mech, c).fresh},
            f"{len(zs)} intervals; {evaluations} walk values", None,
            "walk values == GeoSample.cdf; M == reference", ok, witness))
    grid_text = geo_grid_text(full) if full else f"the {len(mechs)} mechanisms with n <= 32 of " \
        + geo_grid_text(full)
    return ClaimReport(
        CLAIM, grid_text + "; GeoSample(4200, 1) at c in {0, 1400, 4200}"
        + (" and GeoSample(5000, 1)" if full else ""),
        f"{sum(c.verdict for c in certs)}/{len(certs)} with every walk value equal to F",
        "PowerWalk == GeoSample.cdf on every path", certs)


def _batch(mech: GeoSample, counts: list[int], source: RandomSource) -> list[int]:
    return mech.sample_many(counts, source)


def check_batch_time(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech in [GeoSample(n, e) for n in (1, 5, 16) for e in (1, Fraction(1, 3))]:
        ends = sorted({0, mech.n // 2, mech.n})
        inputs = [(f"counts={[a, b]}", partial(_batch, mech, [a, b])) for a in ends for b in ends]
        cmp = compare(inputs, coins(full), across_coins=True)
        certs.append(Certificate(
            CLAIM + ": sample_many", repr(mech), {"n": mech.n},
            f"{len(inputs)} count vectors of length 2", cmp.trace_length,
            "one operation trace for every batch of the same length", cmp.ok,
            {"first_difference": cmp.mismatch} if cmp.mismatch else {}))
    return ClaimReport(CLAIM + ": sample_many", f"{len(certs)} GeoSample mechanisms",
                       f"{sum(c.verdict for c in certs)}/{len(certs)} with one trace",
                       "the trace of sample_many depends only on len(counts)", certs)


CHECKS = [check_equal, check_batch_time]
