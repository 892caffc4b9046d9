"""Theorems 4.7 (ii) and 4.10 (ii): the counting samplers' operations depend on nothing private
-- and the strict-time checker itself sees a leak at every input, the last one included."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp import checker
from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.proofs._strict_time import compare
from exactdp.proofs.balcer_vadhan._counting import each_geo
from exactdp.randomness import RandomSource
from exactdp.trace import record

CLAIM = "Theorems 4.7 (ii), 4.10 (ii) (strict time)"
STATEMENT = """GeoSample_{n,eps} (Algorithm 4.8) and FastSample_{n,eps,gamma} (Algorithm 4.11) draw
one u from [d]_+ (d fixed by the public n, eps, gamma) and run a binary search of exactly
ceil(log2(n + 1)) rounds, one F evaluation each: the operation trace is the same for every
count c in [n] = {0..n} and every u -- for a source that answers uniform(d), as this row's
scripted sources do.  With the OS source or the keystream and the lazy draws on (the default;
exactdp/lazy_draws.py), u's leading bits are read first: FastSample reads 24 bytes and runs
its rounds in C for every draw, and with probability at most (3n + 1) 2^-126 (GeoSample's one
draw: at most (5n + 1) of at least 2^191 blocks) -- a probability that may depend on c -- it
reads u's low bits and searches again; the rows Theorem 4.10 (lazy draw) and Theorem 4.7
(lazy draw) check those bounds.  lazy_bits = False keeps the trace of this row for every
source."""
PROOF_IDEA = """The search never exits early, and F is evaluated once per round.  Checks:
(1) the operation trace of the sampling path (the draw's domain, the recorded rounds, every
profiler-seen call of cdf/search_cdf) is compared across EVERY c from 0 to n inclusive and
a set of u at both ends and at every threshold F_c(z), F_c(z) + 1 for c in {0, n/2, n}
(every u when d <= 256), on GeoSample and on FastSample both with n <= t and n > t (the two
branches of its CDF); (2) the checker's strict-time check (exactdp.checker.check_strict_time,
which the Theorem 4.7/4.10 rows use) and this row's own comparison are run on sentinel
mechanisms that are correct except for one extra operation at exactly one input -- c = 0,
c = n, u = 1, u = d -- and must FAIL each, and PASS the honest GeoSample."""


def _fast_grid(full: bool) -> list[FastSample]:
    out = [FastSample(3, 1, Fraction(1, 2)), FastSample(8, Fraction(1, 2), Fraction(1, 100)),
           FastSample(48, 1, Fraction(1, 2))]  # t = 40 < n = 48
    if full:
        out += [FastSample(n, e, g) for n in (1, 5, 13, 32, 64)
                for e in (Fraction(1), Fraction(1, 3)) for g in (Fraction(1, 2),
                                                                  Fraction(1, 10**6))]
    return out


def _geo_grid(full: bool) -> list[GeoSample]:
    """Quick: a spread of n <= 16 over eps in 1/1..1/8; full: n in 1..10, 16, 23, 32, 47, 64
    for eps in {1, 1/2, 1/8}."""
    if full:
        return [g for g in each_geo(False) if g.epsilon in (1, Fraction(1, 2), Fraction(1, 8))]
    return [g for g in each_geo(False) if g.n <= 16][::4]


def _us(mech: InverseCDFSampler) -> list[int]:
    d, n = mech.d, mech.n
    if d <= 256:
        return list(range(1, d + 1))
    pts = {1, 2, d // 2, d - 1, d}
    for c in sorted({0, n // 2, n}):
        for z in range(n + 1):
            f = mech.cdf(c, z)
            pts.update(v for v in (f, f + 1) if 1 <= v <= d)
    return sorted(pts)


def _sample(mech: InverseCDFSampler, c: int, source: RandomSource) -> int:
    return mech.sample(c, source)


def _own_check(mech: InverseCDFSampler) -> tuple[bool, int, dict[str, object] | None]:
    """This row's comparison: one trace for every (c, u), c = 0..n inclusive."""
    kinds = [f"u:{u}" for u in _us(mech)]
    inputs = [(f"c={c}", partial(_sample, mech, c)) for c in range(mech.n + 1)]
    if len(inputs) < 2:
        raise ValueError("a counting mechanism has n >= 1")
    cmp = compare(inputs, kinds, across_coins=True)
    return cmp.ok, cmp.trace_length, cmp.mismatch


class _LeakAt(GeoSample):
    """GeoSample with one extra CDF evaluation at exactly one input (a sentinel)."""

    def __init__(self, n: int, epsilon: Fraction, where: str) -> None:
        super().__init__(n, epsilon)
        self.where = where

    def __repr__(self) -> str:
        return f"sentinel GeoSample({self.n}, {self.epsilon}) leaking at {self.where}"

    def _search(self, c: int, u: int) -> int:
        hit = {"c = 0": c == 0, "c = n": c == self.n, "u = 1": u == 1,
               "u = d": u == self.d}[self.where]
        if hit:
            record("cdf")
            self.search_cdf(c, 0)
        return super()._search(c, u)


SENTINELS = ("c = 0", "c = n", "u = 1", "u = d")


def sentinel_certificates() -> list[Certificate]:
    """The checker and this row's comparison on the sentinels (must fail) and on an honest
    GeoSample (must pass)."""
    certs = []
    for n, eps in ((3, Fraction(1)), (6, Fraction(1, 2))):
        for where in SENTINELS:
            mech = _LeakAt(n, eps, where)
            by_checker = checker.check_strict_time(mech).verdict
            own_ok, _, _ = _own_check(mech)
            certs.append(Certificate(
                CLAIM + ": sentinel", repr(mech), {"n": n, "epsilon": eps, "leak": where},
                "c in [0, n], the checker's default u", None,
                "check_strict_time FAILS and this row's comparison FAILS",
                not by_checker and not own_ok,
                {"check_strict_time": by_checker, "own_comparison": own_ok}))
        honest = GeoSample(n, eps)
        by_checker = checker.check_strict_time(honest).verdict
        certs.append(Certificate(
            CLAIM + ": sentinel", repr(honest), {"n": n, "epsilon": eps, "leak": None},
            "c in [0, n]", None, "check_strict_time PASSES the honest sampler", by_checker))
    return certs


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    mechs: list[InverseCDFSampler] = [*_geo_grid(full), *_fast_grid(full)]
    for mech in mechs:
        ok, length, mismatch = _own_check(mech)
        certs.append(Certificate(
            CLAIM, repr(mech), {"n": mech.n}, f"c in [0, {mech.n}], {len(_us(mech))} values of u",
            length, "one operation trace for every (c, u)", ok,
            {"first_difference": mismatch} if mismatch else {}))
    sentinels = sentinel_certificates()
    certs += sentinels
    return ClaimReport(
        CLAIM, f"{len(mechs)} mechanisms (GeoSample n <= {64 if full else 16}, FastSample incl. "
        f"n = 48 > t = 40), every c in [0, n], u at both ends and every threshold; "
        f"{len(sentinels)} checker sentinels (leak at c = 0, c = n, u = 1, u = d; honest)",
        f"{sum(c.verdict for c in certs[:len(mechs)])}/{len(mechs)} samplers with one trace; "
        f"{sum(c.verdict for c in sentinels)}/{len(sentinels)} sentinels judged right",
        "identical traces; every sentinel leak caught", certs)
