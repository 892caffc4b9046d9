"""Proposition 6.15 iv: ApproxConvExp makes O(log i) rounds of truncated products."""

from __future__ import annotations

from collections import Counter

from exactdp.certificate import Certificate, ClaimReport
from exactdp.histograms.orderstats import approx_conv_exp
from exactdp.proofs._strict_time import traced

CLAIM = "Proposition 6.15 iv"
STATEMENT = """ApproxConvExp_{s,t}(a, i) has running time O(log i) O~(t log s) + O(log^2 i)."""
PROOF_IDEA = """Algorithm 6.16 recurses on floor(i/2): bitlen(i) - 1 levels, each one truncated
square of t numbers (plus one product with a when the level's bit of i is 1) and t floor
divisions by s or s^2, on numbers of O(log s) bits.  Check, on the operation trace of the
implementation (library events and profiled calls): exactly bitlen(i) - 1 rounds, as many
truncated squares and floor divisions, popcount(i) - 1 products with a -- for i from 1 to 64
and at 2^20 + 1 and 2^40 - 1 -- and the same counts for every s and t of the grid (s and t
enter only through the size of the operands: O~(t log s) per product)."""


def _is(full: bool) -> list[int]:
    return [*range(1, 65 if full else 33), (1 << 20) + 1, (1 << 40) - 1]


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    shapes = [(5, 1), (5, 3), ((1 << 64) + 1, 3)] + ([(7, 8)] if full else [])
    worst = 0
    for i in _is(full):
        seen: set[tuple[int, int, int, int]] = set()
        for s, t in shapes:
            a = [s - 1, 1] + [0] * (t - 2) if t >= 2 else [s]
            trace, _ = traced(lambda src, a=a, s=s, i=i: approx_conv_exp(a, i, s), "low")
            c = Counter(e if e[0] == "call" else e[0] for e in trace)
            seen.add((c["ace_round"], c[("call", "truncated_square")],
                      c[("call", "truncated_product")], c[("call", "floor_divide")]))
        rounds = i.bit_length() - 1
        want = (rounds, rounds, i.bit_count() - 1, rounds)
        worst = max(worst, rounds)
        certs.append(Certificate(
            CLAIM, f"approx_conv_exp(a, {i}, s)", {"i": i, "bitlen(i) - 1": rounds},
            f"(s, t) in {[(s.bit_length(), t) for s, t in shapes]} (bits of s, t)", rounds,
            "(rounds, squares, products with a, divisions) == (bitlen(i)-1, bitlen(i)-1, "
            "popcount(i)-1, bitlen(i)-1) for every s, t", seen == {want},
            {"seen": sorted(seen)}))
    return ClaimReport(
        CLAIM, f"i in 1..{64 if full else 32}, 2^20 + 1, 2^40 - 1; (s, t) with s of 3 and 65 "
        "bits, t in {1, 3}" + (", 8" if full else ""),
        f"rounds == bitlen(i) - 1 (up to {worst}), products == popcount(i) - 1, on all",
        "O(log i) rounds of O~(t log s) each", certs)
