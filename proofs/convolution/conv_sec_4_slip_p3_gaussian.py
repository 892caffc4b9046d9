"""Paper 002 slip P3: Section 4's preamble says the class adds independent Gaussian noise, but
Algorithm 1's ledger charges every Fourier coordinate as a pure eps_j-DP (Laplace) release."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import worst_ratio
from exactdp.convolution.gaussian_rows import GaussianRowNoise
from exactdp.convolution.rows import RowNoise
from exactdp.explore import explore
from exactdp.proofs.convolution._conv import unclamped_variance
from exactdp.randomness import RandomSource

CLAIM = "Conv Section 4 slip P3: Gaussian noise in the Laplace ledger"
SLIP = ("Section 4's preamble says the algorithms add independent Gaussian noise to the Fourier "
        "coefficients, but Algorithm 1's privacy ledger counts each coordinate as a pure "
        "eps_j-DP release, which only Laplace noise is: Gaussian noise of the same variance "
        "exceeds the ratio e^eps_j once the coefficient's range is a few sigma wide.")
STATEMENT = """Section 4 (preamble): 'the class of algorithms we consider is those which add independent
Gaussian noise to the Fourier coefficients'; the next paragraph, Algorithm 1 and every proof
use z_i = Lap(b_i), and the privacy proof composes the coordinates as pure eps_i-DP
releases (eps_i = 1/b_i for a unit shift).  Read as printed, Gaussian noise of the variance
the ledger pays for would have to keep every coordinate's worst pmf ratio at most e^eps_i."""
PROOF_IDEA = """On the implementation's row noise, per coordinate, centres c and c + 1 (a unit shift, the
Walsh coefficient's sensitivity on histograms) over the public range [-M, M]: the law of the
kept row's release (clamped to the range), explored exactly from the row's sampler.  The fix (Algorithm 1 as printed,
what exactdp.convolution runs): RowNoise with ratio r (e^eps = r exactly) has worst
two-sided ratio exactly r.  The preamble's reading: GaussianRowNoise at sigma^2 = the same
variance 2r/(r-1)^2 has worst ratio > r for r = 1/2, 2/3, 4/5 at M = 12 (the loss
(2z - 1)/(2 sigma^2) grows with the output z; the discrete Gaussian's table is exact
rationals), so the pure ledger does not hold for it.  Gaussian noise is offered with its own
accounting (exactdp.convolution.gaussian, zCDP-style exact losses), never in this ledger."""

RANGE = 12


def _worst(laws: dict[int, dict[int, Fraction]]) -> Fraction | None:
    pairs = [(c, laws[c], c + 1, laws[c + 1]) for c in range(-RANGE, RANGE)]
    pairs += [(c + 1, laws[c + 1], c, laws[c]) for c in range(-RANGE, RANGE)]
    return worst_ratio(pairs).ratio


def geometric_laws(r: Fraction) -> dict[int, dict[int, Fraction]]:
    noise = RowNoise([1 / r], [(-RANGE, RANGE)])   # RowNoise takes the ratio a/b >= 1
    sampler = noise.samplers[0]
    return {c: explore(partial(sampler.sample_value, c)) for c in range(-RANGE, RANGE + 1)}


def gaussian_laws(sigma2: Fraction) -> dict[int, dict[int, Fraction]]:
    noise = GaussianRowNoise([sigma2], [(-RANGE, RANGE)])

    def release(c: int, source: RandomSource) -> int:
        return noise.draw([c], source)[0]

    return {c: explore(partial(release, c)) for c in range(-RANGE, RANGE + 1)}


def slip_certificate(r: Fraction) -> Certificate:
    sigma2 = unclamped_variance(r)
    target = 1 / r                          # e^eps_j of the row: pmf ratio bound of Lap
    fixed = _worst(geometric_laws(r))
    printed = _worst(gaussian_laws(sigma2))
    ok = fixed == target and (printed is None or printed > target)
    shown = "infinite" if printed is None else brief(printed, 4)
    return Certificate(CLAIM, f"row noise, r = {r}", {"r": r, "sigma2": sigma2},
                       f"centres c, c+1 in [-{RANGE}, {RANGE}]", printed if printed else "inf",
                       f"Laplace (fix) worst ratio {brief(fixed, 4) if fixed else 'inf'} = "
                       f"e^eps_j = {brief(target, 4)}; Gaussian of the same variance {shown} "
                       f"> e^eps_j", ok, {"laplace_worst": fixed, "gaussian_worst": printed})


def check(full: bool) -> ClaimReport:
    ratios = [Fraction(1, 2), Fraction(2, 3), Fraction(4, 5)]
    if full:
        ratios.append(Fraction(9, 10))
    certs = [slip_certificate(r) for r in ratios]
    return ClaimReport(CLAIM, f"r in {{{', '.join(str(r) for r in ratios)}}}, one row, "
                       f"range [-{RANGE}, {RANGE}]",
                       f"Gaussian worst ratio / e^eps_j up to "
                       f"{brief(max(Fraction(c.worst) * c.parameters['r'] for c in certs), 4)}",  # type: ignore[arg-type]
                       "Laplace meets e^eps_j exactly; Gaussian of the same variance exceeds it",
                       certs)
