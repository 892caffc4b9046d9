"""Lemma A.1's time bound: DistinctSample's draws and order-tree searches against r, |A|, |X|."""

from __future__ import annotations

from collections import Counter
from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import search_rounds
from exactdp.histograms.distinct import distinct_sample
from exactdp.proofs._strict_time import traced

CLAIM = "Lemma A.1 (time)"
STATEMENT = """DistinctSample (Algorithm A.3) samples r distinct elements of X minus A in time
O(|A| log|A| log|X|) + O(r log^2|X| log(|A| + r))."""
PROOF_IDEA = """Each of the r steps makes one draw and one order-statistic query: the
implementation's query is a binary search over the ranks of T = A + (earlier draws), exactly
bitlen(|T|) comparisons of O(log|X|)-bit integers (the paper's binary search over X with
O(log|T| log|X|)-time rank queries costs more: O(log^2|X| log|T|)), then one insertion.
Check, on the operation trace: r draws, r searches with sum_{j < r} bitlen(|A| + j)
comparisons in all (<= r bitlen(|A| + r): the log(|A| + r) factor), r insertions -- the same
counts for |X| = 2^8, 2^64 and 2^200 (|X| enters only through the integers' size), over
|A| in {0, 7, 100} and r in {1, 10, 50}, on low, high and seeded coins."""


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    sizes = [1 << 8, 1 << 64, 1 << 200]
    for excluded_count in (0, 7, 100):
        for r in (1, 10, 50) if full else (1, 50):
            seen = set()
            for size in sizes:
                if size - excluded_count < r:
                    continue
                excluded = list(range(3, 3 + 2 * excluded_count, 2))
                for coin in ("low", "high", "seed:3"):
                    trace, out = traced(partial(distinct_sample, size, excluded, r), coin)
                    c = Counter(e if e[0] == "call" else e[0] for e in trace)
                    seen.add((c["uniform"], c["distinct_search"], c["cdf"],
                              c[("call", "insert")], len(set(out))))
            comparisons = sum(search_rounds(excluded_count + j) for j in range(r))
            want = (r, r, comparisons, r, r)
            certs.append(Certificate(
                CLAIM, "distinct_sample", {"|A|": excluded_count, "r": r},
                "|X| in {2^8, 2^64, 2^200}, coins low/high/seeded", comparisons,
                "(draws, searches, comparisons, insertions, distinct) == (r, r, "
                "sum bitlen(|A| + j), r, r) for every |X|; comparisons <= r bitlen(|A| + r)",
                seen == {want} and comparisons <= r * (excluded_count + r).bit_length(),
                {"seen": sorted(seen)}))
    return ClaimReport(
        CLAIM, "|A| in {0, 7, 100}, r in " + ("{1, 10, 50}" if full else "{1, 50}")
        + ", |X| in {2^8, 2^64, 2^200}",
        "operation counts fixed by (|A|, r), within r bitlen(|A| + r) comparisons, "
        "independent of |X|", "O(|A| log|A| log|X|) + O(r log^2|X| log(|A| + r))", certs)
