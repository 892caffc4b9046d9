"""Lazy draws: FastSample's output from the leading bits of ``u`` when they decide it.

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

__all__ = ["LAZY_TOP_BITS", "LazyPlan", "decide", "plan", "sample_lazy"]

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
