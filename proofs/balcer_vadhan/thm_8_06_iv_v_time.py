"""Theorems 8.3 (iv)-(v) and 8.6 (iv)-(v): CompactHistogram's work per release and per
evaluated count, counted, against n, d and d0."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import search_rounds
from exactdp.histograms.compact import CompactHistogram
from exactdp.histograms.data import Dataset
from exactdp.proofs._strict_time import traced

CLAIM = "Theorems 8.3, 8.6 (iv)-(v) (time)"
STATEMENT = """Theorem 8.3 iv: CompactHistogram runs in O~(n log d0) + O(n)(log d + Time(M) +
Time(S)) + O(n log n log|X|); v: each count h_x is evaluated in O(n) O~(log d0) + Time(M0).
Theorem 8.6 iv-v: with FastSample and Lemma 8.4's M0 both are O~((n/eps) log(|X|/beta0)), with
log d0 = O(log(1/eps) + log d + log|X|) (Figure 6)."""
PROOF_IDEA = """A release draws, for each of the n + 1 points of B, one value (M's inverse-CDF draw
or M0's) and one preimage u_x ~ S_v (a uniform draw over an interval found with two F_M
evaluations), then interpolates once through the n + 1 points; evaluating h_x is Horner's rule
on the n + 1 coefficients (n field products) and one call of M0 (one search of M).  Checks, on
the operation trace of the implementation at Theorem 8.6's parameters (|X| = 2^64, eps = 1,
beta0 = 1/2) for n in {1, 2, 4, 8} (full: 16, 32), on a dataset with one distinct element and
one with n: exactly 2(n + 1) draws, one interpolation and n + 1 field conversions per release;
n + 1 coefficients and exactly one search of M (search_rounds(n) F evaluations) per evaluated
count, for several x; and bits(d0) <= 3 max(bitlen(|X|), bitlen(30 d / eps)) + 3 (the level
choice at most triples the bits it needs), i.e. log d0 = O(log d + log|X| + log(1/eps))."""


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    size = 1 << 64
    for n in [1, 2, 4, 8] + ([16, 32] if full else []):
        ch = CompactHistogram.theorem_8_6(size, n, 1, Fraction(1, 2))
        ok, witness = True, dict[str, object]()
        for rows in ([1] * n, list(range(1, n + 1))):
            data = Dataset.of(size, rows)
            trace, release = traced(lambda src, data=data, ch=ch: ch.release(data, src), "seed:2")
            c = Counter(e[0] if e[0] != "call" else e[1] for e in trace)
            got = (c["uniform"], c["interpolate"], c["from_index"])
            if got != (2 * (n + 1), 1, n + 1):
                ok, witness = False, {"D": rows[:4], "(draws, interpolations, conversions)": got}
            for x in (1, 2, size // 3, size):
                trace, _ = traced(lambda src, x=x, r=release: r.evaluate(x), "low")
                evals = Counter(e[0] for e in trace)["cdf"]
                if evals != search_rounds(n) or len(release.coefficients) != n + 1:
                    ok, witness = False, {"x": x, "F evaluations": evals,
                                          "coefficients": len(release.coefficients)}
        need = max(size.bit_length(), (30 * ch.mechanism.d).bit_length())
        d0_bits = ch.field.degree
        ok = ok and d0_bits <= 3 * need + 3
        certs.append(Certificate(
            CLAIM, repr(ch), {"n": n, "d_bits": ch.mechanism.d.bit_length(), "d0_bits": d0_bits},
            "two datasets, x in {1, 2, |X|/3, |X|}", d0_bits,
            "2(n+1) draws, 1 interpolation, n+1 conversions; evaluation = n+1 coefficients and "
            "one search of M; bits(d0) <= 3 max(bits |X|, bits 30d/eps) + 3", ok, witness))
    return ClaimReport(
        CLAIM, f"Theorem 8.6's parameters, |X| = 2^64, eps = 1, beta0 = 1/2, n in "
        f"{{1, 2, 4, 8{', 16, 32' if full else ''}}}",
        f"{sum(c.verdict for c in certs)}/{len(certs)} with the counted work linear in n",
        "O(n) draws and one interpolation per release; O(n) field products and one M0 per count",
        certs)
