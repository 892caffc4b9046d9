"""Theorem 4.7, lazy draw: GeoSample's certified search on u's leading bits names the search's
output or nothing, and the split draw built on it has the law of the search at a uniform u."""

from __future__ import annotations

from fractions import Fraction

from exactdp import lazy_draws
from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import GeoSample
from exactdp.randomness import RandomSource, split_inverse_cdf

CLAIM = "Theorem 4.7 (lazy draw)"
STATEMENT = """GeoSample's lazy draw (exactdp/lazy_draws.py: geo_plan, geo_power, geo_bounds,
geo_decide, GeoSplitDraw; GeoSample.sample with the OS source or the keystream) bounds F_c(z)
with powers (2^k + 1)^e kept to a few hundred bits, rounded down and up.  (i) Every bound
holds: lo 2^sh <= (2^k + 1)^e <= hi 2^sh for every e in [0, n]; (ii) for every count c and
every block of u's leading bits, geo_decide names the search's output at both ends of the
block, or nothing; (iii) at most 5n + 1 blocks are left open for each c -- the only draws
that read u's low bits (probability at most (5n + 1)/(H + 1), which may depend on c); (iv)
split_inverse_cdf over GeoSplitDraw, for every pair (a, b) of leading block and low bits,
rejects iff a B + b >= d and otherwise outputs the search at u = a B + b + 1, so its law is
the search's at a uniform u."""
PROOF_IDEA = """Small GeoSample mechanisms (d of 6 to 40 bits) with the block and power sizes
forced small (so that the rounding of the powers matters and every block can be listed):
(i) each bound against the exact power; (ii, iii) each block's decision against the
reference search FastSample-style at both of its ends, the open blocks counted; (iv) the
split draw under a scripted source answering a + 1, then b + 1, for every (a, b), against
the search at u (a rejection is seen as a third draw)."""


class _Rejected(Exception):
    """The scripted pair was rejected: split_inverse_cdf asked for a third draw."""


class _Scripted(RandomSource):
    def __init__(self, values: list[int]) -> None:
        self.values, self.asked = values, 0

    def uniform(self, d: int) -> int:
        if self.asked == len(self.values):
            raise _Rejected
        self.asked += 1
        return self.values[self.asked - 1]


def _grid(full: bool) -> list[tuple[int, Fraction, int, int]]:
    """(n, eps, block bits, power bits)."""
    out = [(3, Fraction(1), 3, 6), (4, Fraction(1, 2), 4, 8), (9, Fraction(1), 6, 10)]
    if full:
        out += [(5, Fraction(1, 2), 5, 7), (12, Fraction(1, 4), 8, 12), (20, Fraction(1), 9, 14)]
    return out


def _check(n: int, eps: Fraction, block_bits: int, power_bits: int,
           pairs: bool) -> tuple[list[str], int, int, int]:
    """(wrong, blocks, decided, worst open blocks of one c)."""
    g = GeoSample(n, eps)
    p = lazy_draws.geo_plan(n, g.k, g.d, block_bits, power_bits)
    if p is None:
        return [f"no plan for d of {g.d.bit_length()} bits"], 0, 0, 0
    bad: list[str] = []
    base = (1 << g.k) + 1
    for e in range(n + 1):
        lo, hi, sh = lazy_draws.geo_power(p, e)
        if not lo << sh <= base**e <= hi << sh:
            bad.append(f"e={e}: {base}^e outside [{lo}, {hi}] 2^{sh}")
    big_b = 1 << p.shift
    blocks = decided = worst = 0
    for c in range(n + 1):
        opened = 0
        for block in range(p.top + 1):
            blocks += 1
            z = lazy_draws.geo_decide(p, c, block)
            if z is None:
                opened += 1
                continue
            decided += 1
            ends = (g(c, block * big_b + 1), g(c, min((block + 1) * big_b, g.d)))
            if ends != (z, z):
                bad.append(f"c={c}, block={block}: decided {z}, search {ends}")
        worst = max(worst, opened)
        if opened > 5 * n + 1:
            bad.append(f"c={c}: {opened} open blocks > 5n + 1 = {5 * n + 1}")
        if pairs:
            bad += _pairs(g, p, c)
    return bad, blocks, decided, worst


def _pairs(g: GeoSample, p: lazy_draws.GeoPlan, c: int) -> list[str]:
    """Every (a, b) of split_inverse_cdf with 2 leading bits over GeoSplitDraw."""
    top = 2
    k = max(0, g.d.bit_length() - top)
    bad = []
    for a in range((g.d >> k) + 1):
        for b in range(1 << k):
            src = _Scripted([a + 1, b + 1])
            try:
                z: int | None = split_inverse_cdf(src, lazy_draws.GeoSplitDraw(g, p, c), top)
            except _Rejected:
                z = None
            u = (a << k) + b + 1
            want = g(c, u) if u <= g.d else None
            if z != want:
                bad.append(f"c={c}, a={a}, b={b}: split {z}, search {want}")
    return bad


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    blocks_total = decided_total = 0
    for n, eps, block_bits, power_bits in _grid(full):
        pairs = GeoSample(n, eps).d.bit_length() <= 12
        bad, blocks, decided, worst = _check(n, eps, block_bits, power_bits, pairs)
        blocks_total += blocks
        decided_total += decided
        certs.append(Certificate(
            CLAIM, "GeoSample lazy draw", {"n": n, "epsilon": eps, "block_bits": block_bits,
                                           "power_bits": power_bits},
            f"every e, c and block: {blocks} blocks, {decided} decided"
            + ("; every (a, b) of the split draw" if pairs else ""), worst,
            "bounds hold, decided == search at both ends, open <= 5n + 1 per c, split == "
            "search at u", not bad, {"wrong": bad[:3]}))
    failures = sum(not c.verdict for c in certs)
    return ClaimReport(
        CLAIM, f"{len(certs)} GeoSample settings: {blocks_total} blocks, {decided_total} "
        f"decided by the leading bits",
        f"{failures} settings with a wrong bound, decision, open count or split output",
        "0 (exact; the reference search as oracle)", certs)
