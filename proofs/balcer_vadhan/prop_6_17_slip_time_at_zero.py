"""Proposition 6.17's time bound at output 0: the bound omits the first round of step 4."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from exactdp.certificate import Certificate, ClaimReport
from exactdp.histograms.orderstats import ApproxBinDraw
from exactdp.proofs._strict_time import traced

CLAIM = "Prop 6.17 time at output 0"
SLIP = ("Proposition 6.17 bounds every execution of ApproxBinSample with output l by "
        "O~(log q) + O(log m) O~(l log s), which at l = 0 drops the first round of step 4 "
        "(one ApproxConvExp of bitlen(m) - 1 rounds) that every output, 0 included, runs; "
        "(l + 1) in place of l is right.")
STATEMENT = """Proposition 6.17 (as printed): for every l in [t], every execution of
ApproxBinSample_{s,t}(m, p, q) that outputs l runs in time O~(log q) + O(log m) O~(l log s).
At l = 0 that is O~(log q): independent of m and s for fixed q."""
PROOF_IDEA = """Algorithm 6.18 tests l = 0 only after computing d^(1) = ApproxConvExp_{s,1}(a, m) in
the first round of step 4 (t' = 1), which takes bitlen(m) - 1 squaring rounds: an output-0
execution costs Theta(log m) products of O(log s)-bit numbers, with q fixed.  The proof's sum
over rounds i = 1 .. 1 + ceil(log2(l + 1)) counts that round (it is the term i = 1), so its
total is O(log m) O~((l + 1) log s).  Check, on the implementation's loop (ApproxBinDraw.search
with the certified shortcuts off: the path an undecided u takes, and Algorithm 6.18 verbatim):
p/q = 1/2, t = 4, m = 2^k and s = 2^m (so that F^(1)_0 = 1 and u = 1 returns 0) for k = 2 ..
K: every run returns 0, and its operation trace holds exactly bitlen(m) - 1 ApproxConvExp
rounds and as many polynomial products -- growing with m while q = 2 stays fixed, so no
constant times O~(log q) bounds them."""


def _ks(full: bool) -> range:
    return range(2, 10 if full else 8)


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    rounds: list[int] = []
    for k in _ks(full):
        m = 1 << k
        s = 1 << m
        draw = ApproxBinDraw(m, 1, 2, s, 4, shortcuts=False)
        trace, out = traced(lambda src, draw=draw: draw.search(1), "low")
        counts = Counter(e[0] for e in trace)
        rounds.append(counts["ace_round"])
        ok = out == 0 and counts["ace_round"] == m.bit_length() - 1 == counts["polymul"]
        certs.append(Certificate(
            CLAIM, "ApproxBinDraw(m, 1, 2, s, 4, shortcuts=False).search(1)",
            {"m": m, "s_bits": s.bit_length(), "p/q": "1/2", "t": 4},
            "one execution at u = 1", counts["ace_round"],
            "output 0 after bitlen(m) - 1 ApproxConvExp rounds", ok,
            {"output": out, "ace_rounds": counts["ace_round"], "products": counts["polymul"]}))
    growing = all(b > a for a, b in pairwise(rounds))
    certs.append(Certificate(
        CLAIM, "the printed bound at l = 0", {"q": 2}, f"m = 2^k, k in {list(_ks(full))}",
        rounds[-1], "rounds at output 0 grow with m (q fixed): not O~(log q)", growing,
        {"rounds_by_k": rounds}))
    return ClaimReport(
        CLAIM, f"ApproxBinSample's loop (shortcuts off), p/q = 1/2, t = 4, m = 2^k for k in "
        f"{list(_ks(full))}, s = 2^m, u = 1",
        f"output 0 after {rounds[0]}..{rounds[-1]} ApproxConvExp rounds (bitlen(m) - 1)",
        "the slip exhibited: time at output 0 grows with log m at fixed q", certs)
