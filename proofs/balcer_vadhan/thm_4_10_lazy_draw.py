"""Theorem 4.10, lazy draw: FastSample's output from u's leading bits when they decide it has
exactly the law of the search at a uniform u, and reads more bits only on the stated blocks."""

from __future__ import annotations

import random
from fractions import Fraction

from exactdp import lazy_draws, native_samplers
from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import FastSample
from exactdp.randomness import ByteSource

CLAIM = "Theorem 4.10 (lazy draw)"
STATEMENT = """FastSample's lazy draw (exactdp/lazy_draws.py; the C kernel es_lazy and its
Python twin decide) writes u - 1 = a B + b (B = 2^k, k = K - T for T leading bits, H =
floor(d / B)) and draws a uniform on [0, H] first.  (i) For every count c and every block a
the kernel and the twin agree, and a decided block's output is the search's output at both
ends a B + 1 and (a + 1) B of the block (so, the search being non-decreasing in u, at every
u of it); (ii) at most 3n + 1 of the H + 1 blocks are undecided for each c -- the only
blocks on which more bits are read (probability at most (3n + 1)/(H + 1), which may depend
on c); (iii) finish, the step that draws b for an undecided block, outputs the search at
a B + b + 1 when that is at most d and otherwise the search at a fresh uniform(d); (iv) the
law so assembled (B u's for a decided block, the search's own split of an undecided one)
is exactly F_c(z) - F_c(z - 1) for every z.  At T = 127 (the releases' plan) (i) is
checked on the blocks next to every threshold F_c(z) and on random blocks."""
PROOF_IDEA = """Small FastSample mechanisms (d of 30-60 bits, and n = 41 > t = 40) with T forced small (so that H
has 6-12 bits and every block can be enumerated): each block a is decided by the kernel
(es_lazy_decide) and by the twin, the decided ones compared with the reference search
FastSample(c, u) (Python integers) at both ends of the block, the undecided ones counted,
and the law summed from the blocks with the thresholds F_c(z) (the reference CDF).  finish
runs under a scripted byte source answering b + 1 (and a marker for a fresh draw) for b in
{0, 1, B - 1} on every undecided block.  At T = 127, on FastSample(100, 1/10, 2^-40) and
FastSample(1000, 1/4, 2^-20): the blocks floor(F_c(z)/B) + {-3..2} for every z and 64 random
blocks, at c in {0, n/2, n}."""


class _Scripted(ByteSource):
    """Answers uniform(d) with the scripted values in turn (no bytes)."""

    def __init__(self, values: list[int]) -> None:
        self.values, self.asked = values, []  # type: list[int], list[int]

    def random_bytes(self, k: int) -> bytes:
        raise AssertionError("finish reads no raw bytes")

    def uniform(self, d: int) -> int:
        self.asked.append(d)
        return min(self.values[len(self.asked) - 1], d)


def _window(mech: FastSample) -> list[int]:
    return [mech._scale * mech._truncated_at(j) for j in range(-mech.t, mech.t)]


def _small_grid(full: bool) -> list[tuple[int, Fraction, Fraction, int]]:
    """(n, eps, gamma, extra): T = bitlen((n + 1)/gamma) + extra."""
    ns = [1, 2, 4, 7] if full else [1, 4]
    out = []
    for n in ns:
        for eps, gamma in ((Fraction(1), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 4))):
            for extra in ((3, 5, 8) if full else (4,)):
                out.append((n, eps, gamma, extra))
    # n > t = 40: the thresholds above the window (F' = d', j >= t) and below it (j < -t)
    out.append((41, Fraction(1), Fraction(1, 2), 2))
    return out


def _check_small(mech: FastSample, top_bits: int) -> tuple[list[str], int, int, int]:
    """(wrong, blocks, decided, worst undecided count of one c)."""
    p = lazy_draws.plan(mech.n, mech.t, mech.d, mech.d_prime, mech._scale, _window(mech),
                        top_bits)
    if p is None:
        return [f"no plan at T = {top_bits}"], 0, 0, 0
    tab = lazy_draws.table(p)
    big_b = 1 << p.shift
    bad: list[str] = []
    blocks = decided = worst = 0
    for c in range(mech.n + 1):
        cdf = [mech.cdf(c, z) for z in range(mech.n + 1)]
        law = [0] * (mech.n + 1)
        undecided = 0
        for a in range(p.top + 1):
            blocks += 1
            z = lazy_draws.decide(p, c, a)
            if tab is not None:
                zc = native_samplers.lazy_decide(tab, c, a)
                if (zc if zc >= 0 else None) != z:
                    bad.append(f"c={c}, a={a}: kernel {zc}, twin {z}")
            lo, hi = a * big_b + 1, min((a + 1) * big_b, mech.d)
            if z is not None and (a + 1) * big_b > mech.d:
                # the last block reaches past d: its u > d must be redrawn, never decided
                bad.append(f"c={c}, a={a}: the block past d = {mech.d} decided as {z}")
            if z is not None:
                decided += 1
                ends = (mech(c, lo), mech(c, hi))
                if ends != (z, z):
                    bad.append(f"c={c}, a={a}: decided {z}, search {ends} at the block's ends")
                law[z] += hi - lo + 1
                continue
            undecided += 1
            prev = 0
            for zz, f in enumerate(cdf):  # the search's own split of the block
                law[zz] += max(0, min(f, hi) - max(prev + 1, lo) + 1)
                prev = f
            bad += _check_finish(mech, p, c, a)
        worst = max(worst, undecided)
        if undecided > 3 * mech.n + 1:
            bad.append(f"c={c}: {undecided} undecided blocks > 3n + 1 = {3 * mech.n + 1}")
        want = [f - (cdf[z - 1] if z else 0) for z, f in enumerate(cdf)]
        if law != want:
            bad.append(f"c={c}: law {law} != F differences {want}")
    return bad, blocks, decided, worst


def _check_finish(mech: FastSample, p: lazy_draws.LazyPlan, c: int, a: int) -> list[str]:
    big_b = 1 << p.shift
    fresh = (a * big_b) % mech.d + 1  # the fresh draw's scripted value
    bad = []
    for b in sorted({0, 1, big_b - 1}):
        src = _Scripted([b + 1, fresh])
        z = lazy_draws.finish(mech, p, c, a, src)
        u = a * big_b + b + 1
        want = mech(c, u) if u <= mech.d else mech(c, fresh)
        asked = [big_b] if u <= mech.d else [big_b, mech.d]
        if z != want or src.asked != asked:
            bad.append(f"finish c={c}, a={a}, b={b}: {z} drawing {src.asked}, want {want} "
                       f"drawing {asked}")
    return bad


def _check_wide(mech: FastSample, rng: random.Random) -> tuple[list[str], int]:
    """T = 127: blocks next to every threshold and random ones, kernel vs twin vs search."""
    p = lazy_draws.plan(mech.n, mech.t, mech.d, mech.d_prime, mech._scale, _window(mech))
    if p is None:
        return ["no plan at T = 127"], 0
    tab = lazy_draws.table(p)
    big_b = 1 << p.shift
    bad: list[str] = []
    tried = 0
    for c in sorted({0, mech.n // 2, mech.n}):
        blocks = {(mech.cdf(c, z) >> p.shift) + i for z in range(mech.n) for i in range(-3, 3)}
        blocks |= {rng.randrange(p.top + 1) for _ in range(64)}
        for a in sorted(x for x in blocks if 0 <= x <= p.top):
            tried += 1
            z = lazy_draws.decide(p, c, a)
            if tab is not None:
                zc = native_samplers.lazy_decide(tab, c, a)
                if (zc if zc >= 0 else None) != z:
                    bad.append(f"c={c}, a={a}: kernel {zc}, twin {z}")
            if z is not None:
                ends = (mech(c, a * big_b + 1), mech(c, min((a + 1) * big_b, mech.d)))
                if ends != (z, z):
                    bad.append(f"c={c}, a={a}: decided {z}, search {ends}")
    return bad, tried


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    decided_total = blocks_total = 0
    for n, eps, gamma, extra in _small_grid(full):
        mech = FastSample(n, eps, gamma)
        top_bits = ((n + 1) * gamma.denominator).bit_length() + extra
        bad, blocks, decided, worst = _check_small(mech, top_bits)
        blocks_total += blocks
        decided_total += decided
        certs.append(Certificate(
            CLAIM, "FastSample lazy draw (every block)",
            {"n": n, "epsilon": eps, "gamma": gamma, "T": top_bits},
            f"every c and block a: {blocks} blocks, {decided} decided", worst,
            "kernel == twin, decided == search at both ends, undecided <= 3n + 1 per c, "
            "finish exact, law == F differences", not bad, {"wrong": bad[:3]}))
    rng = random.Random(4100)
    wide = [(100, Fraction(1, 10), Fraction(1, 2**40))]
    if full:
        wide.append((1000, Fraction(1, 4), Fraction(1, 2**20)))
    for n, eps, gamma in wide:
        bad, tried = _check_wide(FastSample(n, eps, gamma), rng)
        certs.append(Certificate(
            CLAIM, "FastSample lazy draw (T = 127)", {"n": n, "epsilon": eps, "gamma": gamma},
            f"{tried} blocks next to the thresholds and random", len(bad),
            "kernel == twin, decided == search at both ends", not bad, {"wrong": bad[:3]}))
    failures = sum(not c.verdict for c in certs)
    kernel = "kernel and twin" if native_samplers.lazy_available() else "twin only (no kernel)"
    return ClaimReport(
        CLAIM, f"{len(certs)} settings ({kernel}): {blocks_total} blocks enumerated, "
        f"{decided_total} decided by the leading bits",
        f"{failures} settings with a wrong decision, too many undecided blocks, a wrong "
        f"finish or a wrong law", "0 (exact; the reference search as oracle)", certs)
