"""Theorem 3.5's optimal sigma* (the continuous Gaussian's exact delta, eq. 14) is not valid
verbatim for DISCRETE Gaussian noise: a sigma that eq. 14 certifies can leave the discrete
Gaussian's delta above the target.  Calibrating with the discrete law's own delta fixes it."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import ClaimReport
from exactdp.certified import Interval
from exactdp.checker import hockey_stick_eps
from exactdp.discrete_gaussian import DiscreteGaussian, calibrate_sigma2, ideal_delta
from exactdp.normal_cdf import gaussian_delta, sqrt_interval
from exactdp.proofs.li_li._proj import cert

CLAIM = "Li & Li Thm 3.5 sigma* certifies continuous noise only; discrete delta 1.7x target"
SLIP = ('Theorem 3.5\'s sigma* (eq. 14, the continuous Gaussian) is not valid for discrete '
        'Gaussian noise: at eps = 5, delta = 10^-3, Delta = 1 a sigma it certifies gives the '
        'discrete Gaussian 1.7 times the target delta.')
STATEMENT = """Theorem 3.5: sigma >= sigma*, the root of Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)
= delta, gives (eps, delta)-DP with continuous Gaussian noise.  Read for the discrete
Gaussian N_Z(0, sigma^2) (integer noise, as an exact implementation must use) at eps = 5,
delta = 1/1000, Delta = 1: sigma^2 = 12/25 satisfies eq. 14 (continuous delta <= 1/1000, so
sigma >= sigma* ~ 0.6898) while the ideal discrete Gaussian's delta and that of exactdp's
DiscreteGaussian(12/25) both exceed 1/1000 (about 1.7e-3).  The discrete calibration
(calibrate_sigma2, CKS Theorem 7) meets the target.  Nor does "sigma >= sigma*" carry over
by monotonicity: the discrete delta is not monotone in sigma^2 (eps = 10: about 1.3e-2 at
9/64, 2.5e-6 at 5/32, 2.0e-5 at 3/16)."""
PROOF_IDEA = """Continuous delta bracketed in rationals (exactdp/normal_cdf.py: Phi by its alternating
Taylor series, pi and sqrt by integer bounds, e^eps by exactdp.certified.exp_interval); the
ideal discrete delta by exactdp.discrete_gaussian.ideal_delta (certified interval); the
implementation's noise law DiscreteGaussian(s2).law() shifted by Delta and compared by the
checker's hockey stick at e^eps (interval, both directions).  Refuted: the continuous upper
end <= 1/1000 and both discrete lower ends > 1/1000.  Fix: at calibrate_sigma2(5, 1/1000)
the ideal and implemented discrete upper ends are <= 1/1000.  Non-monotone: the certified
ideal_delta intervals at 5/32 and 3/16 are disjoint in the wrong order."""

EPS, DELTA, SHIFT = Fraction(5), Fraction(1, 1000), 1
SIGMA2_PAPER = Fraction(12, 25)
BITS = 160
#: eps = 10: the ideal discrete delta at sigma^2 = 9/64, 5/32, 3/16 (falls, then rises).
NON_MONOTONE_EPS = Fraction(10)
NON_MONOTONE_S2 = (Fraction(9, 64), Fraction(5, 32), Fraction(3, 16))


def implemented_delta(s2: Fraction) -> Interval:
    """delta(eps) of c + Z against c + 1 + Z for exactdp's DiscreteGaussian(s2), worst
    direction, bracketed."""
    law = DiscreteGaussian(s2).law()
    moved = {z + SHIFT: p for z, p in law.items()}
    one, two = hockey_stick_eps(law, moved, EPS), hockey_stick_eps(moved, law, EPS)
    return Interval(max(one.lo, two.lo), max(one.hi, two.hi))


def check(full: bool) -> ClaimReport:
    cont = gaussian_delta(sqrt_interval(SIGMA2_PAPER, BITS), EPS, Fraction(SHIFT), BITS)
    ideal = ideal_delta(SIGMA2_PAPER, EPS, SHIFT)
    impl = implemented_delta(SIGMA2_PAPER)
    fix = calibrate_sigma2(EPS, DELTA, SHIFT)
    ideal_fix, impl_fix = ideal_delta(fix, EPS, SHIFT), implemented_delta(fix)
    params = {"epsilon": EPS, "delta": DELTA, "Delta": SHIFT}
    certs = [
        cert(CLAIM + " (eq. 14 certifies sigma^2 = 12/25)", "continuous N(0, 12/25)", params,
             "exact delta bracketed", cont.hi, "<= 1/1000 (sigma >= sigma*)",
             cont.hi <= DELTA, {"continuous_delta": [cont.lo, cont.hi]}),
        cert(CLAIM + " (discrete noise at that sigma)", "DiscreteGaussian(12/25) and N_Z ideal",
             params, "exact delta bracketed", impl.lo,
             "> 1/1000: eq. 14 read for discrete noise FAILS",
             ideal.lo > DELTA and impl.lo > DELTA,
             {"ideal_discrete_delta": [ideal.lo, ideal.hi],
              "implemented_delta": [impl.lo, impl.hi]}),
        cert(CLAIM + " (discrete calibration)", f"DiscreteGaussian({fix})", params,
             "exact delta bracketed", impl_fix.hi, "<= 1/1000 (CKS Theorem 7 calibration)",
             ideal_fix.hi <= DELTA and impl_fix.hi <= DELTA,
             {"sigma2": fix, "ideal_discrete_delta": [ideal_fix.lo, ideal_fix.hi],
              "implemented_delta": [impl_fix.lo, impl_fix.hi]}),
    ]
    dips = [ideal_delta(s2, NON_MONOTONE_EPS, SHIFT) for s2 in NON_MONOTONE_S2]
    certs.append(cert(CLAIM + " (discrete delta not monotone in sigma^2)",
                      "ideal N_Z(0, sigma^2)", {"epsilon": NON_MONOTONE_EPS, "Delta": SHIFT},
                      f"sigma^2 in {[str(x) for x in NON_MONOTONE_S2]}", dips[2].lo,
                      "delta(5/32) < delta(3/16): more noise, larger delta",
                      dips[1].hi < dips[2].lo and dips[0].lo > dips[2].hi,
                      {"delta_by_sigma2": [[str(x), d.lo, d.hi]
                                           for x, d in zip(NON_MONOTONE_S2, dips)]}))
    ratio = impl.lo / DELTA
    return ClaimReport(CLAIM, "eps = 5, delta = 1/1000, Delta = 1, sigma^2 = 12/25",
                       f"continuous <= {float_free(cont.hi)}; discrete >= {float_free(impl.lo)}"
                       f" ({float_free(ratio)} x target); calibrated sigma^2 = {fix}",
                       "continuous <= 1/1000, discrete > 1/1000 (refuted); fix <= 1/1000",
                       certs)


def float_free(q: Fraction) -> str:
    """``q`` to 4 significant digits, by integer arithmetic."""
    if q == 0:
        return "0"
    exp = 0
    while q >= 10:
        q, exp = q / 10, exp + 1
    while q < 1:
        q, exp = q * 10, exp - 1
    digits = round(q * 1000)
    text = f"{digits // 1000}.{digits % 1000:03d}"
    return text if exp == 0 else f"{text}e{exp}"
