"""Paper 002 §5.4 (generalized marginals, Theorems 12 and 13): the exact spectrum of k-way
conjunctions and Algorithm 1's MSE on them, on the implementation; Theorems 12 and 13
themselves are asymptotic with unspecified constants."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.convolution.domain import Domain
from exactdp.convolution.mechanism import WalshFourierMechanism
from exactdp.proofs.convolution._conv import ln_bounds
from exactdp.proofs.convolution.conv_thm_09_fourier import trivial_mse

CLAIM = "Conv Section 5.4 conjunction marginals (Theorems 12 and 13)"
NOT_EXERCISABLE = {
    "Theorem 12 (w-DNF MSE O(L/eps^2 2^(d(1 - 1/O(w log w)))))":
        "its exponent has an unspecified constant inside O(w log w), so every finite grid "
        "satisfies it for a large enough constant.",
    "Theorem 13 (Mansour: spectral tail <= 2^(d + (k - d)/O(w log w)))":
        "the same unspecified constant in the exponent; no finite computation can refute it.",
}
STATEMENT = """Section 5.4: marginal queries are XOR convolutions on {0,1}^d (N = 2^d) by a w-DNF h;
Theorem 12 bounds Algorithm 1's MSE through Theorem 13's spectral concentration.  For the
k-way conjunction h(c) = [c_S = 0] (|S| = k, a 1-term k-DNF) the spectrum is exact:
lambda_T = (W h)_T = 2^(d-k) for T a subset of S and 0 otherwise, so ||h^||_1 = 2^(d/2) and
eq. 5 gives MSE 4 L/eps^2 for every d and k (input perturbation: 2^(d-k) times more), and the
exact Walsh mechanism calibrated to (eps, delta) must have sup MSE at most that."""
PROOF_IDEA = """For d = 1 .. 6 (quick 1 .. 5) and every k <= d, S = the first k coordinates: the
implementation's WalshFourierMechanism(h) eigenvalues must be 2^(d-k) exactly on the 2^k
subsets T of S and 0 elsewhere (so 2^k noisy rows); calibrated at eps = 1, delta = 10^-6
(exact accounting, histograms(N, 10)), its mse_bound() must be <= 4 L_lo/eps^2 (eq. 5 with a
certified lower bound of L = ln(1/delta)), the ratio printed.  The bound 4 L/eps^2 is
non-trivial where it is below the largest MSE a clamped release can have (N^-2 sum lambda_j^2
(hi_j - lo_j)^2); the count is printed and must be > 0."""

EPS = Fraction(1)
DELTA = Fraction(1, 10 ** 6)


def conjunction_certificate(d: int, k: int) -> Certificate:
    n = 2 ** d
    s_mask = (1 << k) - 1
    h = [int(c & s_mask == 0) for c in range(n)]
    mech = WalshFourierMechanism(h, Domain.histograms(n, 10), epsilon=EPS, delta=DELTA)
    lam = list(mech.eigenvalues)
    spectrum_ok = all(lam[t] == (2 ** (d - k) if t & ~s_mask == 0 else 0) for t in range(n))
    l_lo = ln_bounds(1 / DELTA)[0]
    eq5 = 4 * l_lo / EPS ** 2
    ratio = mech.mse_bound() / eq5
    ok = spectrum_ok and len(mech.rows) == 2 ** k and ratio <= 1
    return Certificate(CLAIM + f": d = {d}, k = {k}", repr(mech), {"d": d, "k": k},
                       "sup over x", ratio, f"spectrum 2^(d-k) on subsets of S; MSE/eq. 5 = "
                       f"{brief(ratio, 4)} <= 1", ok,
                       {"rows": len(mech.rows), "non_trivial": eq5 < trivial_mse(mech)})


def check(full: bool) -> ClaimReport:
    certs = [conjunction_certificate(d, k) for d in range(1, 7 if full else 6)
             for k in range(d + 1)]
    worst = max(certs, key=lambda c: Fraction(c.worst))  # type: ignore[arg-type]
    bites = sum(1 for c in certs if c.witness["non_trivial"])
    total = len(certs)
    certs.append(Certificate(CLAIM + ": non-trivial points", "the conjunctions above", {},
                             "4L/eps^2 below the clamped maximum", bites, "> 0", bites > 0))
    return ClaimReport(CLAIM, f"k-way conjunctions, d = 1 .. {5 + full}, k = 0 .. d",
                       f"largest MSE/eq. 5 = {brief(Fraction(worst.worst), 4)} at "  # type: ignore[arg-type]
                       f"{worst.parameters}; {bites} of {total} bounds non-trivial",
                       "exact spectrum; MSE <= 4L/eps^2 for every d, k", certs)
