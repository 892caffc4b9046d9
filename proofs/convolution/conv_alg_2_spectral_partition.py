"""Paper 002 Algorithm 2 (SpectralPartition) and Lemma 4 / Theorem 14, printed vs fixed:
x~_0 = x^_0 + Lap(eta) must be Lap(eta/sqrt N)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.convolution.calibration import shape_weights
from exactdp.convolution.transforms import fwht
from exactdp.proofs.convolution._conv import ln_bounds

CLAIM = "Conv Algorithm 2 printed vs fixed (P7)"
SLIP = ('Algorithm 2 puts Lap(eta) instead of Lap(eta/sqrt N) on the zero coefficient, so it '
        "misses Theorem 14's bound by a factor N (private, but over-noised).")
STATEMENT = """Algorithm 2 (Appendix A): eta = sqrt(2(1 + log N) ln(1/delta))/eps, x~_0 = x^_0 + Lap(eta), group k
(indices N/2^k .. N/2^(k-1) - 1 of the sorted spectrum) gets Lap(eta 2^(-k/2)).  The privacy
ledger of Lemma 4 counts 1/eta^2 for index 0, which is the cost of Lap(eta/sqrt N), not of
Lap(eta) (sensitivity 1/sqrt N).  Fixed: Lap(eta/sqrt N); then eps'^2 = 2L sum eps_i^2 = eps^2
exactly.  As printed, on h = 1 the MSE is exactly N times the fixed one (2 N eta^2 vs
2 eta^2), so Theorem 14's O(specLB log^4 N L/eps^2) = O(log^2 N L/eps^2) fails."""
PROOF_IDEA = """Everything in units of eta^2 (b_i^2 = beta_i eta^2, beta rational): MSE = 2 sum |h^_i|^2 beta_i
eta^2 and eps_i^2 = 1/(N beta_i eta^2).  On h = 1 (spectrum W h = (N, 0, ...) by the
implementation's fwht, h^_0^2 = N) the printed/fixed MSE ratio must be exactly N for
N = 2 .. 2^12; the fixed ledger sum 1/(N beta_i) must be exactly 1 + log2 N (so 2L sum eps_i^2
= eps^2), the printed one 1/N + log2 N.  The implementation's 'spectral-partition' shape
(calibrate.shape_weights, s_j^2 = relative eps_j^2) must be the FIXED ledger (s^2 = 1 at rank
0, 2^k/N in group k, rounded down by < 2^-30).  Witness (notes): N = 1024, eps = 1,
delta = 10^-6: printed 2 N eta^2 ~ 6.2e5, fixed ~ 608, Algorithm 1 4L ~ 55 (certified)."""


def betas(n: int, printed: bool) -> list[Fraction]:
    """beta_i = b_i^2/eta^2 for sorted ranks i = 0..N-1 (Algorithm 2)."""
    log_n = n.bit_length() - 1
    out = [Fraction(1) if printed else Fraction(1, n)]
    for i in range(1, n):
        k = log_n - (i.bit_length() - 1)                  # N/2^k <= i < N/2^(k-1)
        assert n // 2 ** k <= i < n // 2 ** (k - 1)
        out.append(Fraction(1, 2 ** k))
    return out


def _h_one_certificate(n: int) -> Certificate:
    lam = fwht([1] * n)                                   # (N, 0, ..., 0)
    h_sq = [Fraction(v * v, n) for v in lam]              # |h^_i|^2 = lambda_i^2 / N
    order = sorted(range(n), key=lambda j: -h_sq[j])
    sorted_sq = [h_sq[j] for j in order]
    mse = {p: 2 * sum((a * b for a, b in zip(sorted_sq, betas(n, p))), Fraction(0))
           for p in (True, False)}
    log_n = n.bit_length() - 1
    ledger = {p: sum((1 / (n * b) for b in betas(n, p)), Fraction(0)) for p in (True, False)}
    ratio = mse[True] / mse[False]
    # the implementation's shape = the fixed ledger (relative eps_j^2)
    shape_ok = True
    if n > 1:
        # use a full-support spectrum so every rank is present (decreasing magnitudes)
        full = [Fraction(n - j) for j in range(n)]
        sw = shape_weights(full, "spectral-partition")
        fixed = [1 / (n * b) for b in betas(n, False)]
        shape_ok = all(w is not None and w * w <= f < w * w + Fraction(1, 2 ** 30)
                       for w, f in zip(sw, fixed))
    ok = (ratio == n and ledger[False] == 1 + log_n and ledger[True] == Fraction(1, n) + log_n
          and shape_ok)
    return Certificate(CLAIM, "h = 1", {"N": n}, "exact, units of eta^2", ratio,
                       "printed/fixed MSE = N; fixed ledger = 1 + log N; shape = fixed ledger",
                       ok, {"mse_printed": mse[True], "mse_fixed": mse[False],
                            "ledger_fixed": ledger[False], "ledger_printed": ledger[True],
                            "implementation_shape_is_fixed": shape_ok})


def _witness_certificate() -> Certificate:
    n, log_n = 1024, 10
    l_lo, l_hi = ln_bounds(Fraction(10 ** 6))
    eta_sq = (2 * (1 + log_n) * l_lo, 2 * (1 + log_n) * l_hi)     # eps = 1
    printed = (2 * n * eta_sq[0], 2 * n * eta_sq[1])
    fixed = (2 * eta_sq[0], 2 * eta_sq[1])
    alg1 = (4 * l_lo, 4 * l_hi)                                  # 4 L ||h^||_1^2/(eps^2 N), = 4L
    ok = printed[0] > 6 * 10 ** 5 and 600 < fixed[0] <= fixed[1] < 610 and 55 < alg1[0] < alg1[1] < 56
    return Certificate(CLAIM + ": hand-derived witness", "h = 1, N = 1024, eps = 1, delta = 10^-6",
                       {"N": n}, "certified ln", printed[0],
                       f"printed in [{brief(printed[0], 1)}, {brief(printed[1], 1)}]; fixed in "
                       f"[{brief(fixed[0], 2)}, {brief(fixed[1], 2)}]; Algorithm 1 in "
                       f"[{brief(alg1[0], 2)}, {brief(alg1[1], 2)}]", ok)


def check(full: bool) -> ClaimReport:
    ns = [2 ** k for k in range(1, 13 if full else 9)]
    certs = [_h_one_certificate(n) for n in ns] + [_witness_certificate()]
    return ClaimReport(CLAIM, f"h = 1 at N = 2 .. {ns[-1]}; the hand-derived N = 1024 witness",
                       f"printed/fixed MSE = N exactly at every N; {certs[-1].bound}",
                       "ratio N; fixed ledger = eps^2 exactly; shape = fixed", certs)
