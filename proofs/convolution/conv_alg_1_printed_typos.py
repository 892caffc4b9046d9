"""Paper 002 slip P4: Algorithms 1 and 2 as printed compute the filter's spectrum from x
("h^ = F_N x"), never set y_0 (Algorithm 2) and never undo the sorting; each, run through the
implementation, is shown wrong exactly, beside the fixed algorithm."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import worst_ratio
from exactdp.convolution.domain import Domain
from exactdp.convolution.mechanism import WalshFourierMechanism
from exactdp.explore import explore
from exactdp.proofs.convolution._conv import direct_xor_convolve, walsh_matrix

CLAIM = "Conv Algorithms 1 and 2 printed typos"
SLIP = ("Algorithms 1 and 2 print h^ = F_N x (the spectrum of the data, not of the filter), "
        "Algorithm 2 never sets y_0 and never undoes its sorting: each makes the output wrong "
        "(and the first makes Algorithm 1 not private).")
STATEMENT = """Algorithm 1 as printed: x^ = F_N x; h^ = F_N x; noise scales from |h^|; y = F_N^H (sqrt N
h^ o x~).  With h^ = F_N h (fixed) the noise-free output is h * x.  Algorithm 2 as printed
assigns y_i only for i >= 1 (y_0 is never set) and relabels indices so that |h^| decreases but
never maps them back before F_N^H.  Checked on Z_2^d (the paper's §5.4, DFT = Walsh basis)."""
PROOF_IDEA = """Everything through WalshFourierMechanism (fwht, coefficients, reconstruct): (a) the
printed Algorithm 1 is the mechanism built with x in the filter's place; its noise-free output
(reconstruct of the exact coefficients) is x * x, not h * x (direct XOR sums here), and its
kept rows {j : (W x)_j != 0} depend on the data: exploring the printed release on the
neighbours x = e_0, x' = e_0 + e_1 (ratio 2 per row) gives disjoint supports (infinite ratio),
while the fixed release has finite worst ratio prod r_j.  (b) Algorithm 2 without y_0:
reconstruct with the coefficient of row 0 set to 0 differs from h * x by lambda_0 c_0/N on
every coordinate.  (c) Without un-sorting: the noise-free products lambda_(sigma i) c_(sigma i)
left at rank positions i, reconstructed, differ from h * x; mapped back to sigma(i) they
equal h * x and the implementation's output."""

H = [3, 1, 0, 2]
X = [1, 0, 2, 0]


def _noise_free(mech: WalshFourierMechanism, x: list[int]) -> list[Fraction]:
    c = mech.coefficients(x)
    return list(mech.reconstruct([c[j] for j in mech.rows]))


def printed_spectrum_certificate() -> Certificate:
    dom = Domain.histograms(4, 4)
    fixed = WalshFourierMechanism(H, dom, Fraction(2))
    printed = WalshFourierMechanism(X, dom, Fraction(2))      # h^ = F_N x
    want = direct_xor_convolve(H, X)
    wrong = _noise_free(printed, X)
    value_ok = _noise_free(fixed, X) == want and wrong == direct_xor_convolve(X, X) != want
    # privacy: the printed scales and kept rows come from x itself
    x0, x1 = [1, 0, 0, 0], [1, 1, 0, 0]
    dom1 = Domain.histograms(4, 2)

    def printed_release(x: list[int], source: object) -> tuple[Fraction, ...]:
        return WalshFourierMechanism(x, dom1, Fraction(2)).sample_with(x, source)  # type: ignore[arg-type]

    laws = {tuple(x): explore(partial(printed_release, x)) for x in (x0, x1)}
    w_printed = worst_ratio([(tuple(x0), laws[tuple(x0)], tuple(x1), laws[tuple(x1)]),
                             (tuple(x1), laws[tuple(x1)], tuple(x0), laws[tuple(x0)])])
    fixed1 = WalshFourierMechanism(H, dom1, Fraction(2))
    flaws = {tuple(x): explore(partial(fixed1.sample_with, x)) for x in (x0, x1)}
    w_fixed = worst_ratio([(tuple(x0), flaws[tuple(x0)], tuple(x1), flaws[tuple(x1)]),
                           (tuple(x1), flaws[tuple(x1)], tuple(x0), flaws[tuple(x0)])])
    pure = Fraction(2) ** len(fixed1.rows)
    ok = (value_ok and w_printed.ratio is None and w_fixed.ratio is not None
          and w_fixed.ratio <= pure)
    return Certificate(CLAIM + ": h^ = F_N x", "Algorithm 1 printed vs fixed", {"h": H, "x": X},
                       "noise-free output; neighbours e_0, e_0 + e_1", w_printed.ratio,
                       "printed: x * x != h * x and an infinite ratio; fixed: h * x, ratio <= "
                       f"{pure}", ok, {"printed_output": wrong, "h_star_x": want,
                                       "fixed_worst_ratio": w_fixed.ratio})


def missing_y0_certificate() -> Certificate:
    mech = WalshFourierMechanism(H, Domain.histograms(4, 4), Fraction(2))
    c = mech.coefficients(X)
    noisy = [0 if j == 0 else c[j] for j in mech.rows]
    out = list(mech.reconstruct(noisy))
    want = direct_xor_convolve(H, X)
    lam0 = sum(H)                                     # (W h)_0 = sum h
    gap = [Fraction(a - b) for a, b in zip(want, out)]
    ok = 0 in mech.rows and all(g == Fraction(lam0 * sum(X), 4) for g in gap) and gap[0] != 0
    return Certificate(CLAIM + ": y_0 never set", "Algorithm 2 printed", {"h": H, "x": X},
                       "noise-free output", gap[0],
                       "h * x - output = lambda_0 c_0/N != 0 on every coordinate", ok,
                       {"output": out, "h_star_x": want})


def unsorted_certificate() -> Certificate:
    n = len(H)
    w = walsh_matrix(n)
    lam = [sum(a * b for a, b in zip(row, H)) for row in w]
    order = sorted(range(n), key=lambda j: (-abs(lam[j]), j))   # rank -> index
    mech = WalshFourierMechanism(H, Domain.histograms(n, 4), Fraction(2))
    c = mech.coefficients(X)
    # printed: in rank order, ybar_i = lambda_(sigma i) c_(sigma i), never mapped back
    v = [lam[order[i]] * c[order[i]] for i in range(n)]
    printed = [Fraction(sum(a * b for a, b in zip(row, v)), n) for row in w]
    back = [0] * n
    for i, j in enumerate(order):
        back[j] = v[i]                                # mapped back: position sigma(i)
    fixed = [Fraction(sum(a * b for a, b in zip(row, back)), n) for row in w]
    want = direct_xor_convolve(H, X)
    ok = order != list(range(n)) and printed != want and fixed == want == _noise_free(mech, X)
    return Certificate(CLAIM + ": sorting not undone", "Algorithm 2 printed", {"h": H, "x": X,
                       "order": order}, "noise-free output", sum(abs(a - b) for a, b in
                                                                 zip(printed, want)),
                       "printed != h * x; un-sorted = h * x = the implementation's", ok,
                       {"printed": printed, "h_star_x": want})


def check(full: bool) -> ClaimReport:
    certs = [printed_spectrum_certificate(), missing_y0_certificate(), unsorted_certificate()]
    return ClaimReport(CLAIM, f"h = {H}, x = {X} on Z_2^2; neighbours e_0, e_0 + e_1",
                       "printed Algorithm 1: x * x and an infinite ratio; Algorithm 2 without "
                       "y_0 or un-sorting: wrong by an exact gap", "each printed form fails; "
                       "the fixed form gives h * x", certs)
