"""Paper 002 Lemma 3 / Theorem 11 (compressible filters): the bound must read sqrt(c),
not c (and Theorem 11 c, not c^2)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.convolution.transforms import fwht
from exactdp.proofs.convolution._conv import harmonic, ln_bounds

CLAIM = "Conv Lemma 3 compressible bound"
SLIP = ("Lemma 3's compressible-filter bound must read sqrt(c), and for 1 < p < 2 (claimed, "
        "no case given) no bound independent of N holds.")
STATEMENT = """Definition 6: h is (c, p)-compressible if |h^_i|^2 <= c/(i+1)^p (sorted).  Lemma 3 (p > 1):
||h^||_1 <= c (1 + ln N) for p = 2 and <= c p/(p - 2) for p > 2; Theorem 11: MSE
O(c^2 ...).  In fact, since |h^_i| <= sqrt(c) (i+1)^(-p/2), the bounds are sqrt(c)(...) and
the MSE O(c ...).  Witness: h = sqrt(c/N) 1 with c = 1/100, p = 3 is (c, p)-compressible with
||h^||_1 = sqrt(c) = 1/10 > c p/(p-2) = 3/100.  Lemma 3 claims p > 1 but states no case
for 1 < p < 2, where ||h^||_1 = Theta(sqrt(c) N^(1 - p/2)) is unbounded in N (the p > 2 formula
is negative there)."""
PROOF_IDEA = """h = (1/20) 1 at N = 4 (so sqrt(c/N) = 1/20 is rational): the implementation's fwht gives
W h = (1/5, 0, 0, 0), h^ = W h/sqrt(N) = (1/10, 0, 0, 0) (the DFT of a constant vector is the
same); compressibility |h^_i|^2 <= c/(i+1)^3 is checked exactly, and ||h^||_1 = 1/10 is
compared with the printed 3/100 (fails) and the fixed sqrt(c) p/(p-2) = 3/10 (holds).
Theorem 11's c^2: on h_k = sqrt(c_k/N) 1 with c_k = 100^-k, Algorithm 1's MSE 4L||h^||_1^2/
(eps^2 N) = 4 L c_k/(eps^2 N) divided by the printed (c_k p/(p-2))^2 L/(N eps^2) is
4/(9 c_k): unbounded, so no constant makes the printed O(c^2 ...) true.  The fixed Lemma 3
holds on the extremal spectra |h^_i| = sqrt(c)(i+1)^(-p/2) for p = 4, 6 (rational) and p = 2
(against 1 + ln N, certified) up to N = 2^12.  Gap 1 < p < 2: at p = 3/2, c = 1, on N = 4^k
the filter h = W lambda/N with lambda_i = sqrt N q_i, q_i = floor(2^40 (i+1)^(-3/4))/2^40 (an
integer fourth root, so q_i <= (i+1)^(-3/4)); the implementation's fwht(h)/sqrt N must give
back q (so h is (1, 3/2)-compressible), and ||h^||_1 = sum q_i must exceed the p = 2 bound
1 + ln N (certified) from N = 1024 on and grow with N, while the p > 2 formula
p/(p - 2) = -3 is negative."""


def _witness_certificate() -> Certificate:
    n, c, p = 4, Fraction(1, 100), 3
    h = [Fraction(1, 20)] * n
    lam = fwht(h)
    hhat = [Fraction(v) / 2 for v in lam]                 # / sqrt(4)
    compressible = all(v * v <= c / Fraction(i + 1) ** p for i, v in
                       enumerate(sorted((abs(v) for v in hhat), reverse=True)))
    norm1 = sum((abs(v) for v in hhat), Fraction(0))
    printed = c * p / (p - 2)
    fixed = Fraction(3, 10)                               # sqrt(c) p/(p-2), sqrt(1/100) = 1/10
    ok = compressible and norm1 == Fraction(1, 10) and norm1 > printed and norm1 <= fixed
    return Certificate(CLAIM + ": P5 witness", "h = (1/20) 1, N = 4", {"c": c, "p": p},
                       "exact", norm1,
                       f"||h^||_1 = {norm1} > printed c p/(p-2) = {printed}; <= sqrt(c) p/(p-2) "
                       f"= {fixed}", ok, {"W h": lam, "compressible": compressible})


def _theorem_11_certificate() -> Certificate:
    ratios = []
    for k in range(1, 5):
        c = Fraction(1, 100 ** k)
        # ||h^||_1^2 = c (constant filter); MSE / printed (up to the common 4L/(eps^2 N)
        # vs L/(N eps^2)): 4 c / (c p/(p-2))^2 with p = 3
        ratios.append(4 * c / (c * 3) ** 2)
    ok = all(b > a for a, b in itertools.pairwise(ratios)) and ratios[-1] == Fraction(4, 9) * 100 ** 4
    return Certificate(CLAIM + ": Theorem 11 c^2", "h = sqrt(c/N) 1, c = 100^-k", {"p": 3},
                       "k = 1..4", ratios[-1], "MSE / printed O(c^2) term = 4/(9c): unbounded",
                       ok, {"ratios": ratios})


def _fixed_lemma_certificate(full: bool) -> Certificate:
    worst = Fraction(0)
    ok = True
    ns = [2 ** k for k in range(1, 13 if full else 9)]
    for n in ns:
        for p in (4, 6):
            s = sum((Fraction(1, (i + 1) ** (p // 2)) for i in range(n)), Fraction(0))
            bound = Fraction(p, p - 2)
            ok = ok and s <= bound
            worst = max(worst, s / bound)
        s2 = harmonic(n)                                  # p = 2: sum 1/(i+1)
        ok = ok and s2 <= 1 + ln_bounds(Fraction(n))[0]
    return Certificate(CLAIM + ": fixed Lemma 3", "|h^_i| = sqrt(c)(i+1)^(-p/2)",
                       {"N": f"2..{ns[-1]}", "p": [2, 4, 6]}, "exact / certified ln",
                       worst, "sum (i+1)^(-p/2) <= p/(p-2) (p = 4, 6); H_N <= 1 + ln N", ok)


def _fourth_root_floor(n: int) -> int:
    return math.isqrt(math.isqrt(n))                      # floor(n^(1/4)), exact


def _gap_certificate(full: bool) -> Certificate:
    """1 < p < 2: compressible filters with ||h^||_1 unbounded in N."""
    norms = []
    ok = True
    for k in range(1, 7 if full else 6):
        n = 4 ** k
        root = 2 ** k
        q = [Fraction(_fourth_root_floor(2 ** 160 // (i + 1) ** 3), 2 ** 40) for i in range(n)]
        lam = [root * v for v in q]
        h = [Fraction(v) / n for v in fwht(lam)]            # W lambda / N
        back = [Fraction(v) / root for v in fwht(h)]          # h^ = W h/sqrt N
        mags = sorted((abs(v) for v in back), reverse=True)
        compressible = all(m ** 4 * (i + 1) ** 3 <= 1 for i, m in enumerate(mags))
        norm1 = sum(mags, Fraction(0))
        norms.append((n, norm1, 1 + ln_bounds(Fraction(n))[1]))
        ok = ok and back == q and compressible
    ok = ok and all(b[1] > a[1] for a, b in itertools.pairwise(norms))
    ok = ok and all(norm > p2 for n, norm, p2 in norms if n >= 1024)
    last = norms[-1]
    return Certificate(CLAIM + ": gap 1 < p < 2", "|h^_i| <= (i+1)^(-3/4), c = 1",
                       {"p": "3/2", "N": [n for n, _, _ in norms]}, "exact (fwht), certified ln",
                       last[1], f"||h^||_1 grows with N and exceeds 1 + ln N from N = 1024 "
                       f"(at N = {last[0]}: {brief(last[1], 3)} > {brief(last[2], 3)}); "
                       "printed p/(p-2) = -3", ok,
                       {"norms": {n: norm for n, norm, _ in norms}})


def check(full: bool) -> ClaimReport:
    certs = [_witness_certificate(), _theorem_11_certificate(), _fixed_lemma_certificate(full),
             _gap_certificate(full)]
    return ClaimReport(CLAIM, "witness c = 1/100, p = 3, N = 4; c = 100^-k; extremal spectra",
                       f"||h^||_1 = 1/10 > 3/100 (printed); Thm 11 ratio {brief(certs[1].worst)}"
                       " at c = 10^-8", "printed Lemma 3 / Thm 11 fail; sqrt(c) version holds; unbounded for 1 < p < 2",
                       certs)
