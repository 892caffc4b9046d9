"""Theorem 5.3 iv: BasicHistogram with FastSample makes |X| draws and |X| searches of
bitlen(n) rounds, on integers of O~((1/eps) log(n|X|/beta0)) bits."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.counting import search_rounds
from exactdp.histograms.basic import BasicHistogram
from exactdp.histograms.data import Dataset, Universe
from exactdp.proofs._strict_time import traced

CLAIM = "Theorem 5.3 iv"
STATEMENT = """BasicHistogram_{M,X} with M = FastSample_{n,eps,gamma}, gamma = beta0/(2|X|), runs in
time O~((|X|/eps)(log^2 n + log n log(1/beta0))) + O(n log n log|X|)."""
PROOF_IDEA = """One draw and one FastSample search (bitlen(n) rounds, each an F evaluation on
O(log d)-bit integers, log d = O~((1/eps) log(n/gamma))) per element of X, after counting the
dataset.  Checks, on the operation trace of the implementation (the native batch search
records its searches and rounds; the Python search one event per round): exactly |X| draws
and |X| bitlen(n) F evaluations, for |X| in {2, 8, 64, 512} (full: 4096) and n in {6, 100},
on a dataset with one element and one spread over min(n, |X|) elements -- linear in |X|; and
bits(d) / ((1/eps)(log2(n|X|/beta0) + k + 1)(k + 1)) below 8 (the O~ factor log(1/eps) made
explicit, k = ceil(log2(2/eps)))."""


def _evaluations(trace: tuple[tuple[object, ...], ...]) -> int:
    total = 0
    for e in trace:
        if e[0] == "native_search":
            total += int(e[1]) * int(e[2])  # type: ignore[call-overload]
        elif e[0] == "cdf":
            total += 1
    return total


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst = Fraction(0)
    for eps in (Fraction(1), Fraction(1, 4)):
        for n in (6, 100):
            for size in [2, 8, 64, 512] + ([4096] if full else []):
                alg = BasicHistogram.theorem_5_3(Universe(size), n, eps, Fraction(1, 2))
                mech = alg.mechanism
                seen = set()
                for rows in ([1] * n, [1 + i % size for i in range(n)]):
                    data = Dataset.of(size, rows)
                    trace, _ = traced(lambda src, data=data, alg=alg: alg.release(data, src),
                                      "seed:4")
                    seen.add((Counter(e[0] for e in trace)["uniform"], _evaluations(trace)))
                k = mech.k  # type: ignore[attr-defined]
                scale = (1 / eps) * ((n * size * 2).bit_length() + k + 1) * (k + 1)
                ratio = Fraction(mech.d.bit_length()) / scale
                worst = max(worst, ratio)
                ok = seen == {(size, size * search_rounds(n))} and ratio < 8
                certs.append(Certificate(
                    CLAIM, repr(alg), {"n": n, "|X|": size, "epsilon": eps,
                                       "d_bits": mech.d.bit_length()},
                    "two datasets, seeded coins", ratio,
                    "|X| draws, |X| bitlen(n) F evaluations; bits(d)/growth < 8", ok,
                    {"(draws, F evaluations)": sorted(seen)}))
    return ClaimReport(
        CLAIM, f"Theorem 5.3's FastSample (beta0 = 1/2), eps in {{1, 1/4}}, n in {{6, 100}}, "
        f"|X| in {{2, 8, 64, 512{', 4096' if full else ''}}}",
        f"|X| draws and |X| bitlen(n) F evaluations on all; max bits(d)/growth {brief(worst)}",
        "O~((|X|/eps)(log^2 n + log n log(1/beta0)))", certs)
