"""Lemma A.1: DistinctSample draws a uniformly random sequence of distinct elements."""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from itertools import combinations, permutations

from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.histograms.distinct import distinct_sample

CLAIM = "Lemma A.1"
STATEMENT = """For X = [M]_+, A a subset of X and r <= |X \\ A|, DistinctSample(A, r)
(Algorithm A.3) outputs a uniformly random sequence of r distinct elements of X \\ A."""
PROOF_IDEA = """z uniform on [|X| - |T|]_+ picks the z-th smallest element of X outside T
(x - |{x' in T : x' <= x}| counts them), a bijection onto X \\ T; induct on r.  Check:
the exact distribution of the implementation (explored: every z of every step, weight
1/|X \\ T| each) EQUALS the uniform distribution on all r-sequences of distinct elements
of X \\ A, for every universe, every excluded set A and every r of the grid."""


def check(full: bool) -> ClaimReport:
    sizes = range(1, 8 if full else 7)
    certs: list[Certificate] = []
    failures = 0
    cases = 0
    for size in sizes:
        bad: list[str] = []
        for k in range(size + 1):
            for excluded in combinations(range(1, size + 1), k):
                free = [x for x in range(1, size + 1) if x not in excluded]
                for r in range(len(free) + 1):
                    cases += 1
                    dist = explore(partial(distinct_sample, size, excluded, r))
                    seqs = list(permutations(free, r))
                    ideal = {seq: Fraction(1, len(seqs)) for seq in seqs}
                    if dist != ideal:
                        bad.append(f"A={excluded} r={r}")
        failures += len(bad)
        certs.append(Certificate(
            CLAIM, "distinct_sample (Algorithm A.3)", {"|X|": size},
            "every A subset of X, every r <= |X \\ A|", len(bad),
            "== uniform on r-sequences of distinct elements of X \\ A", not bad,
            {"mismatches": bad[:5]}))
    return ClaimReport(
        CLAIM, f"|X| <= {sizes[-1]}, every excluded set A, every r <= |X \\ A| ({cases} cases)",
        "identical on every case" if failures == 0 else f"{failures} mismatches",
        "exactly uniform", certs)
