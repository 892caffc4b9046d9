"""Paper 002 Theorem 10's key inequality: ||h^||_1 <= H_|I| max_K K |h^_(K-1)|,
exact on Walsh spectra computed by the implementation; the printed log^2 |I| factor is 0 at
|I| = 1 although the MSE is not."""

from __future__ import annotations

import random
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.convolution.transforms import fwht
from exactdp.proofs.convolution._conv import harmonic

CLAIM = "Conv Theorem 10 harmonic inequality (P10)"
SLIP = ("Theorem 10's log^2 |I| factor is 0 at |I| = 1; the harmonic form H_|I| is what holds.")
STATEMENT = """Proof of Theorem 10 (eq. 6): with |h^_(0)| >= |h^_(1)| >= ... sorted and I = {i : h^_i != 0},
||h^||_1 = sum_{i=1}^{|I|} (1/i) i |h^_(i-1)| <= H_|I| sqrt(N) log N sqrt(specLB(h)), i.e.
sum |lambda_(i)| <= H_|I| max_K K |lambda_(K)| (the log N cancels).  Equality holds for
|lambda_(K)| = c/K.  Notes P10: the theorem's O(specLB log^2 N log^2 |I| L/eps^2) is 0 at
|I| = 1 while Algorithm 1's MSE 4L ||h^||_1^2/(eps^2 N) is positive; H_|I|^2 (or (1+ln|I|)^2)
is meant."""
PROOF_IDEA = """Exact rationals: lambda = W h by the implementation's fwht for seeded random integer and
Fraction filters h (N = 2 .. 64) and for the k-way conjunctions of §5.4; sort |lambda|, and
compare sum |lambda| with H_|I| max_K K |lambda_(K)| (both rational).  The ratio must be <= 1
everywhere and exactly 1 on the extremal spectrum lambda_(K) = 1/K (built as W of W lambda/N).
P10: for h = 1 (|I| = 1) the printed bound's log^2|I| factor is exactly 0 while
||h^||_1^2/N = N > 0."""


def ratio_of(lam: list[Fraction]) -> tuple[Fraction, int]:
    mags = sorted((abs(Fraction(v)) for v in lam if v), reverse=True)
    if not mags:
        return Fraction(0), 0
    total = sum(mags, Fraction(0))
    best = max(k * m for k, m in enumerate(mags, start=1))
    return total / (harmonic(len(mags)) * best), len(mags)


def _filters(full: bool) -> list[tuple[str, list[Fraction | int]]]:
    rng = random.Random(10)
    out: list[tuple[str, list[Fraction | int]]] = []
    for n in (2, 4, 8, 16, 32) + ((64,) if full else ()):
        for _ in range(12 if full else 4):
            out.append((f"random int N={n}", [rng.randint(-3, 5) for _ in range(n)]))
            out.append((f"random Fraction N={n}",
                        [Fraction(rng.randint(-9, 9), rng.randint(1, 7)) for _ in range(n)]))
    for d in (3, 4, 5):
        n = 1 << d
        for k in range(d + 1):
            mask = (1 << k) - 1           # conjunction h(c) = [c_S = 0], S = lowest k bits
            out.append((f"{k}-way conjunction N={n}", [1 if c & mask == 0 else 0 for c in range(n)]))
    return out


def check(full: bool) -> ClaimReport:
    certs = []
    worst = Fraction(0)
    for name, h in _filters(full):
        lam = fwht(h)
        r, size = ratio_of([Fraction(v) for v in lam])
        worst = max(worst, r)
        certs.append(Certificate(CLAIM, name, {"N": len(h), "|I|": size}, "exact spectrum",
                                 r, "sum|lambda| / (H_|I| max_K K|lambda_(K)|) <= 1", r <= 1))
    # extremal spectrum: lambda_(K) = 1/K (any order), h = W lambda / N -- equality
    n = 16
    target = [Fraction(1, k + 1) for k in range(n)]
    h_ext = [v / n for v in fwht(target)]
    r_ext, _ = ratio_of([Fraction(v) for v in fwht(h_ext)])
    certs.append(Certificate(CLAIM + ": tight", "lambda_(K) = 1/K", {"N": n}, "exact", r_ext,
                             "= 1 (the inequality is tight)", r_ext == 1))
    # P10: |I| = 1
    ones = [1] * 8
    lam1 = fwht(ones)
    size1 = sum(1 for v in lam1 if v)
    printed_factor = 0 if size1 == 1 else None      # log^2 |I| = log^2 1 = 0 exactly
    norm_sq_over_n = Fraction(sum(abs(v) for v in lam1) ** 2, 8) / 8   # ||h^||_1^2/N
    certs.append(Certificate(CLAIM + ": P10 (|I| = 1)", "h = 1, N = 8", {"|I|": size1},
                             "exact", norm_sq_over_n,
                             "printed bound has log^2|I| = 0 but ||h^||_1^2/N > 0; H_1^2 = 1",
                             printed_factor == 0 and norm_sq_over_n > 0 and harmonic(1) == 1))
    return ClaimReport(CLAIM, f"{len(certs) - 2} spectra (W h by fwht), N = 2..{64 if full else 32};"
                       " extremal 1/K; |I| = 1", f"max ratio {brief(worst)}; extremal "
                       f"{brief(r_ext)}", "<= 1, = 1 at lambda_(K) = 1/K; printed log^2|I| = 0 "
                       "at |I| = 1", certs)
