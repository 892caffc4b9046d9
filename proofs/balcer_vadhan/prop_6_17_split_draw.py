"""Proposition 6.17, split draw: ApproxBinSample's ``u`` drawn leading bits first gives the
loop's output for a uniform ``u``, whichever of its low bits are never drawn."""

from __future__ import annotations

from exactdp.certificate import Certificate, ClaimReport
from exactdp.histograms.orderstats import ApproxBinDraw
from exactdp.randomness import RandomSource, split_inverse_cdf

CLAIM = "Proposition 6.17 (split draw)"
STATEMENT = """split_inverse_cdf (exactdp.randomness), which RandomSource.inverse_cdf uses for
ApproxBinSample's draw when s has more than 1024 bits, draws a uniform on [0, H] (the
leading bits of u - 1 = a 2^k + b, d = H 2^k + r) and b uniform on [0, 2^k - 1] only when
certified_search cannot name one output for the whole block of a; a = H with b >= r is
rejected.  For every (a, b): the pair is rejected iff a 2^k + b >= s, and otherwise the
output is Algorithm 6.18's loop at u = a 2^k + b + 1 -- so u is uniform on [s]_+ (each
accepted pair has probability 1/((H + 1) 2^k)) and the output law is the loop's."""
PROOF_IDEA = """Run split_inverse_cdf with k forced small (top_bits 1..4, so that blocks have
2^k > 1 values of u) under a scripted source that answers a + 1, then b + 1, and raises on a
third draw (a rejection restarts the draw), for every a in [0, H] and b in [0, 2^k - 1]; the
reference is ApproxBinDraw with the shortcuts off (the paper's loop verbatim).  The grid
covers m <= 5, p/q in {0, 1/3, 1/2, 1, 2/7}, s from m to 97 m plus 64 and 256, t in
{1, m, m + 1}: blocks decided by certified_search (b never drawn: checked as well) and
undecided ones."""


class _Rejected(Exception):
    """The scripted pair was rejected: split_inverse_cdf asked for a third draw."""


class _Scripted(RandomSource):
    def __init__(self, values: list[int]) -> None:
        self.values = values
        self.asked: list[int] = []

    def uniform(self, d: int) -> int:
        if len(self.asked) == len(self.values):
            raise _Rejected
        self.asked.append(d)
        return self.values[len(self.asked) - 1]


def _grid(full: bool) -> list[tuple[int, int, int, int, int]]:
    """(m, p, q, s, top_bits)."""
    out = []
    pqs = [(0, 1), (1, 3), (1, 2), (1, 1), (2, 7)]
    for m in ([1, 2, 3, 5] if full else [1, 2, 4]):
        sizes = {m, m + 1, 2 * m + 1, 10 * m, 97 * m, 64, 256} if full else {m + 1, 10 * m, 64}
        for s in sorted(sizes):
            for p, q in (pqs if full else pqs[:4]):
                for top in ((1, 2, 3, 4) if full else (2,)):
                    out.append((m, p, q, s, top))
    return out


def _run(draw: ApproxBinDraw, top: int, a: int, b: int) -> tuple[int | None, list[int]]:
    """The output (None when rejected) and the domains drawn from."""
    src = _Scripted([a + 1, b + 1])
    try:
        z: int | None = split_inverse_cdf(src, draw, top)
    except _Rejected:
        z = None
    return z, src.asked


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    pairs_total = decided_total = 0
    for m, p, q, s, top in _grid(full):
        bad: list[str] = []
        pairs = decided = 0
        k = max(0, s.bit_length() - top)
        block = 1 << k
        full_blocks = s >> k
        for t in sorted({1, m, m + 1}):
            loop = ApproxBinDraw(m, p, q, s, t, shortcuts=False)
            for a in range(full_blocks + 1):
                for b in range(block):
                    pairs += 1
                    z, asked = _run(ApproxBinDraw(m, p, q, s, t), top, a, b)
                    u = a * block + b + 1
                    if asked[0] != full_blocks + 1 or asked[1:] not in ([], [block]):
                        bad.append(f"t={t}, a={a}, b={b}: drew from {asked}")
                    if u > s:
                        if z is not None:
                            bad.append(f"t={t}, u={u} > s accepted with output {z}")
                        continue
                    decided += len(asked) == 1
                    want = loop.search(u)
                    if z != want:
                        bad.append(f"t={t}, a={a}, b={b} (u={u}): split {z}, loop {want}")
        pairs_total += pairs
        decided_total += decided
        certs.append(Certificate(
            CLAIM, "split_inverse_cdf on ApproxBinDraw",
            {"m": m, "p/q": f"{p}/{q}", "s": s, "top_bits": top},
            f"every (a, b): {pairs} pairs, {decided} with b never drawn", len(bad),
            "rejected iff u > s; else output == loop(u)", not bad, {"wrong": bad[:3]}))
    failures = sum(not c.verdict for c in certs)
    return ClaimReport(
        CLAIM, f"{len(certs)} settings (m, p/q, s, top_bits), t in {{1, m, m + 1}}: "
        f"{pairs_total} (a, b) pairs, {decided_total} decided without drawing b",
        f"{failures} settings with a wrong output, a wrong rejection or a wrong draw domain",
        "0 (exact; the paper's loop as reference)", certs)
