"""Lazy draws: FastSample's and GeoSample's output from the leading bits of ``u`` when they
decide it.  (GeoSample's part is at the end of this module: a certified search for
:func:`~exactdp.randomness.split_inverse_cdf`, see :func:`geo_decide`.)

FastSample (Algorithm 4.11) outputs ``min{z : F_c(z) >= u}`` for ``u`` uniform on ``[d]_+``,
and at ``gamma = 2^-40`` its ``d`` has about 12,000 bits, so a draw that reads all of ``u``
reads 1.5 KB, while ``u``'s leading bits nearly always decide the output.  With ``K`` the bit
length of ``d``, ``T`` leading bits (:data:`LAZY_TOP_BITS` = 127), ``k = K - T``, ``B = 2^k``
and ``H = floor(d / B)``, write ``u - 1 = a B + b``:

1. draw ``a`` uniform on ``[0, H]`` (``T + 63`` random bits reduced modulo ``H + 1`` and
   accepted iff below the largest multiple of ``H + 1``, as ``ByteSource.uniform_many`` does;
   a rejected ``a`` -- probability below ``2^-62`` -- is replaced by a fresh full draw
   ``u = uniform(d)``);
2. if ``a < H`` and no threshold ``F_c(z)``, ``z < n``, lies strictly inside the block
   ``[a B + 1, (a + 1) B]`` by the certified test of :func:`decide`, output the block's
   output (every ``u`` of the block has it);
3. otherwise draw ``b = uniform(B) - 1``; if ``u = a B + b + 1 <= d`` output the search at
   ``u``, else (``a = H``, ``b`` past ``d``) output the search at a fresh ``uniform(d)``.

**Exactness.**  Given acceptance ``a`` is uniform on ``[0, H]`` and ``b`` on ``[0, B - 1]``:
the pairs with ``a B + b < d`` are in one-to-one correspondence with ``u in [d]_+``, each of
probability ``1/((H + 1) B)``, and the output is the search at that ``u`` whether or not ``b``
was drawn (step 2 only answers for blocks on which the search is constant).  The events
that replace the draw by a fresh ``uniform(d)`` (a rejected ``a``; ``a = H`` with ``b`` past
``d``) depend on the coins alone, and the fresh draw has the exact law, so the mixture has
it too.  ``proofs/balcer_vadhan/thm_4_10_lazy_draw.py`` checks steps 2-3 for every block
``a`` on small grids (small ``T``), in C and in the Python twin :func:`decide`, and sums
the law.

**What the bits read depend on.**  Each draw reads ``8 (limbs(H + 1) + 1)`` bytes (24) and
runs ``ceil(log2(n + 1))`` rounds in one C call, whatever ``c`` and ``u`` are, except that

* with probability below ``2^-62`` (a rejected ``a``, independent of ``c``) it reads a full
  ``uniform(d)``;
* with probability at most ``(3n + 1) / (H + 1) <= (3n + 1) 2^-126`` it is undecided and
  reads ``uniform(B)`` (about ``K - 127`` bits) and runs one more search -- and this
  probability **depends on ``c``** (through where ``F_c``'s thresholds fall).

So the number of bits read is a function of the coins and, with probability at most
``(3n + 1) 2^-126`` per draw, of ``c``.  Where that is not acceptable, set
``FastSample.lazy_bits = False``: every draw then reads all of ``u``'s bits (a fixed number
of bytes per draw, the strict-time mode of Theorem 4.10 iii).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from exactdp import native_samplers
from exactdp.randomness import ByteSource
from exactdp.trace import record

__all__ = ["GEO_BLOCK_BITS", "GEO_POWER_BITS", "LAZY_TOP_BITS", "GeoPlan", "GeoSplitDraw",
           "LazyPlan", "decide", "finish", "geo_bounds", "geo_decide", "geo_plan", "geo_power",
           "plan", "sample_lazy", "table"]

#: Leading bits ``T`` of ``u`` read first (``H < 2^127``: the kernel's 128-bit arithmetic).
LAZY_TOP_BITS = 127


@dataclass(frozen=True)
class LazyPlan:
    """The numbers of the lazy draw of one FastSample (see the module): ``L(z) = (z + 1) D +
    floor((z + 1) E / 2^64) + Q(z - c)`` bounds ``floor(F_c(z) / B)`` from below within 2."""

    n: int
    t: int
    d: int
    shift: int  # k: B = 2^k
    top: int  # H = floor(d / B)
    big_d: int  # D = floor(d' / B)
    e: int  # E = floor((d' mod B) 2^64 / B)
    q: tuple[int, ...]  # Q(j) = floor(S F'(j) / B), j in [-t, t)
    qtop: int  # floor(S d' / B)

    def lower(self, c: int, z: int) -> int:
        """``L(z)`` at count ``c`` (``floor(F_c(z) / B)`` is ``L(z)``, ``L(z) + 1`` or
        ``L(z) + 2`` for ``z < n``)."""
        j = z - c
        q = 0 if j < -self.t else (self.qtop if j >= self.t else self.q[j + self.t])
        return (z + 1) * self.big_d + (((z + 1) * self.e) >> 64) + q

    def block(self, raw: bytes) -> int:
        """``a`` from one draw's bytes as the kernel reduces them (for an accepted draw)."""
        bits = (self.top + 1).bit_length() + 63
        return (int.from_bytes(raw, "little") & ((1 << bits) - 1)) % (self.top + 1)


def plan(n: int, t: int, d: int, d_prime: int, scale: int, window: Sequence[int],
         top_bits: int = LAZY_TOP_BITS) -> LazyPlan | None:
    """The lazy plan of FastSample's ``F_c(z) = (z + 1) d' + S F'(z - c)`` (``window`` the
    values ``S F'(j)`` for ``j`` in ``[-t, t)``), or None where the method does not apply
    (``d`` of at most ``top_bits`` bits, ``D < 3`` or ``n >= 2^62``)."""
    k = d.bit_length() - top_bits
    if k < 1 or n >= 1 << 62 or not 1 <= top_bits <= LAZY_TOP_BITS:
        return None
    big_d = d_prime >> k
    if big_d < 3:
        return None
    e = ((d_prime & ((1 << k) - 1)) << 64) >> k
    return LazyPlan(n, t, d, k, d >> k, big_d, e, tuple(v >> k for v in window),
                    (scale * d_prime) >> k)


def decide(p: LazyPlan, c: int, a: int) -> int | None:
    """The output of the block ``a`` at count ``c`` when the certified test decides it, else
    None: the Python twin of the kernel's ``lazy_decide`` (the same rounds and tests)."""
    lo, hi = 0, p.n
    for _ in range(p.n.bit_length()):
        mid = (lo + hi) >> 1
        if mid >= p.n or p.lower(c, mid) + 2 >= a:
            hi = mid
        else:
            lo = mid + 1
    if a < p.top and (lo >= p.n or p.lower(c, lo) >= a + 1):
        return lo
    return None


def table(p: LazyPlan) -> native_samplers.LazyTable | None:
    """The kernel's table of ``p``, or None without the lazy kernel."""
    if not native_samplers.lazy_available():
        return None
    return native_samplers.LazyTable(p.n, p.t, p.top, p.big_d, p.e, p.q, p.qtop)


def sample_lazy(mech: Any, p: LazyPlan, tab: native_samplers.LazyTable, counts: list[int],
                source: ByteSource) -> list[int]:
    """``[M(c, U_c) for c in counts]`` by lazy draws: one read of ``len(counts) *
    tab.raw_bytes`` bytes and one C call (traced as ``("native_lazy", k, rounds)``); an
    undecided or rejected draw is finished by :func:`finish`.  ``counts`` validated."""
    size = tab.raw_bytes
    raw = source.random_bytes(len(counts) * size)
    record("native_lazy", len(counts), tab.rounds)
    out = native_samplers.lazy(tab, counts, raw)
    if min(out, default=0) < 0:
        for e in [e for e, z in enumerate(out) if z < 0]:
            block = p.block(raw[e * size:(e + 1) * size]) if out[e] == -2 else None
            out[e] = finish(mech, p, counts[e], block, source)
    return out


def finish(mech: Any, p: LazyPlan, c: int, block: int | None, source: ByteSource) -> int:
    """Step 3 of the module for an undecided block ``a`` (``block``), or a fresh full draw
    for a rejected ``a`` (``block`` None)."""
    if block is not None:
        u = (block << p.shift) + source.uniform(1 << p.shift)  # a B + b + 1
        if u <= p.d:
            return int(mech(c, u))
    return int(mech(c, source.uniform(p.d)))


# ----------------------------------------------------------------------------- GeoSample

#: GeoSample's certified search reads ``u``'s leading :data:`GEO_BLOCK_BITS` bits; its powers
#: ``(2**k + 1)**e`` are bounded with :data:`GEO_POWER_BITS`-bit integers.
GEO_BLOCK_BITS = 192
GEO_POWER_BITS = 256


@dataclass(frozen=True)
class GeoPlan:
    """GeoSample's ``F_c(z)`` bounded on ``u``'s leading bits (see :func:`geo_decide`):
    ``d = H B + r`` with ``B = 2^shift``; ``powers[i]`` bounds ``(2**k + 1)**(2**i)``."""

    n: int
    k: int
    d: int
    shift: int
    top: int  # H = floor(d / B)
    powers: tuple[tuple[int, int, int], ...]  # (lo, hi, sh): lo 2^sh <= base^(2^i) <= hi 2^sh
    bits: int


def _trim(lo: int, hi: int, sh: int, bits: int) -> tuple[int, int, int]:
    """``lo`` rounded down and ``hi`` rounded up to ``bits`` bits (``sh`` adjusted)."""
    drop = hi.bit_length() - bits
    if drop <= 0:
        return lo, hi, sh
    return lo >> drop, ((hi - 1) >> drop) + 1, sh + drop


def geo_plan(n: int, k: int, d: int, block_bits: int = GEO_BLOCK_BITS,
             power_bits: int = GEO_POWER_BITS) -> GeoPlan | None:
    """The plan of GeoSample(n, k)'s certified search, or None when ``d`` has at most
    ``block_bits`` bits."""
    shift = d.bit_length() - block_bits
    if shift < 1:
        return None
    base = (1 << k) + 1
    powers = [(base, base, 0)]
    for _ in range(max(1, n.bit_length()) - 1):
        lo, hi, sh = powers[-1]
        powers.append(_trim(lo * lo, hi * hi, 2 * sh, power_bits))
    return GeoPlan(n, k, d, shift, d >> shift, tuple(powers), power_bits)


def geo_power(p: GeoPlan, e: int) -> tuple[int, int, int]:
    """``(lo, hi, sh)`` with ``lo 2^sh <= (2**k + 1)**e <= hi 2^sh``, ``0 <= e <= n``: one
    product per bit of ``n`` (by the bound of ``base^(2^i)`` or by 1), trimmed."""
    lo, hi, sh = 1, 1, 0
    for i, (plo, phi, psh) in enumerate(p.powers):
        if e >> i & 1:
            lo, hi, sh = _trim(lo * plo, hi * phi, sh + psh, p.bits)
    return lo, hi, sh


def geo_bounds(p: GeoPlan, c: int, z: int) -> tuple[int, int]:
    """``(lo, hi)`` with ``lo <= floor(F_c(z) / B) <= hi`` for ``z`` in ``[0, n)``:
    ``F_c(z) = X`` (``z < c``) or ``d - X`` (``z >= c``) with ``X = 2^(k a) (2^k + 1)^(n - a)``,
    ``a = |z - c|`` or ``z - c + 1`` (Algorithm 4.8 step 2)."""
    a = c - z if z < c else z - c + 1
    lo, hi, sh = geo_power(p, p.n - a)
    t = sh + p.k * a - p.shift
    xlo, xhi = (lo << t, hi << t) if t >= 0 else (lo >> -t, hi >> -t)
    if z < c:
        return xlo, xhi
    return p.top - xhi - 1, p.top - xlo  # floor((H B + r - X) / B), 0 <= r < B


def geo_decide(p: GeoPlan, c: int, block: int) -> int | None:
    """The search's output for every ``u`` with ``u - 1`` in ``[block B, block B + B - 1]``
    when the bounds decide every round of the search (exactly its rounds: ``mid``, then
    ``F_c(mid) >= u`` surely for the whole block -- left -- or surely for none -- right),
    else None.  Every round is run either way.  The last block (``block = H``) is partial:
    the answer holds for its ``u <= d``; rejecting the others is the caller's
    (:func:`~exactdp.randomness.split_inverse_cdf` asks only for blocks below its own top)."""
    lo, hi, open_ = 0, p.n, False
    for _ in range(p.n.bit_length()):
        mid = (lo + hi) >> 1
        if mid >= p.n:
            hi = mid
            continue
        flo, fhi = geo_bounds(p, c, mid)
        if flo >= block + 1:  # F >= (block + 1) B: F >= u on the whole block
            hi = mid
        elif fhi <= block - 1:  # F <= block B - 1: F < u on the whole block
            lo = mid + 1
        else:
            open_ = True
            hi = mid
    return None if open_ else lo


@dataclass(frozen=True)
class GeoSplitDraw:
    """GeoSample's draw at count ``c`` for :func:`~exactdp.randomness.split_inverse_cdf`:
    ``certified_search(u)`` is :func:`geo_decide` on ``u``'s block (``search(u)`` or None)."""

    mech: Any
    plan: GeoPlan
    c: int

    lazy_low_bits = True

    @property
    def n(self) -> int:
        return int(self.mech.n)

    @property
    def d(self) -> int:
        return int(self.mech.d)

    def cdf(self, z: int) -> int:
        return int(self.mech.cdf(self.c, z))

    def search(self, u: int) -> int:
        return int(self.mech(self.c, u))

    def certified_search(self, u: int) -> int | None:
        return geo_decide(self.plan, self.c, int((u - 1) >> self.plan.shift))
