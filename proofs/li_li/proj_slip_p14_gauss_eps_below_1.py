"""Theorem 2.2 (the classical Gaussian mechanism, sigma = Delta sqrt(2 ln(1.25/delta))/eps)
needs eps < 1, as the paper remarks: below 1 its delta holds, while at the experiments'
eps = 10 and 20 the exact delta of that sigma exceeds the target many times over, for the
continuous noise and for exactdp's discrete Gaussian alike."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.certified import Interval, ln_interval
from exactdp.discrete_gaussian import ideal_delta
from exactdp.normal_cdf import gaussian_delta, sqrt_interval
from exactdp.proofs.li_li._proj import cert
from exactdp.proofs.li_li.proj_slip_p10_sigma_star_discrete import float_free

CLAIM = "Li & Li Thm 2.2 (classic Gaussian) needs eps < 1: at eps = 10, 20 delta fails"
SLIP = ('Theorem 2.2\'s classical calibration sigma = Delta sqrt(2 ln(1.25/delta))/eps holds only '
        'for eps < 1: at eps = 10 and 20 its exact delta exceeds the target.')
STATEMENT = """Theorem 2.2: for 0 < eps < 1, sigma = Delta sqrt(2 ln(1.25/delta))/eps gives (eps, delta)-DP.
With delta = 10^-5, Delta = 1: at eps in {1/10, 1/2, 9/10} the exact delta of that sigma is
<= 10^-5 (quick grid: 9/10 only); at eps = 10 and eps = 20 (the range of the paper's experiments) it is > 10^-5,
for continuous noise (Balle-Wang exact delta), so the condition eps < 1 (or Theorem 3.1/3.5
instead) is needed.  The ideal discrete Gaussian with sigma^2 rounded up to a multiple of
1/64 also fails at eps = 20 (about 3.3e-4) but not at eps = 10 (about 1.2e-8)."""
PROOF_IDEA = """sigma bracketed in rationals from exactdp.certified.ln_interval and an integer square root;
the continuous exact delta bracketed over that interval (exactdp/normal_cdf.py); the
discrete one by exactdp.discrete_gaussian.ideal_delta at the rounded-up sigma^2.  Below 1:
continuous upper end <= delta (the theorem holds); at 10 and 20: the continuous lower end
> delta, and at 20 the discrete lower end too."""

DELTA = Fraction(1, 100000)
BITS = 96
HOLDS = (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10))
FAILS = (Fraction(10), Fraction(20))


def classic_sigma(eps: Fraction) -> Interval:
    """sigma = sqrt(2 ln(1.25/delta))/eps, bracketed."""
    ln = ln_interval(Fraction(5, 4) / DELTA, BITS)
    lo, hi = sqrt_interval(2 * ln.lo, BITS), sqrt_interval(2 * ln.hi, BITS)
    return Interval(lo.lo / eps, hi.hi / eps)


def case(eps: Fraction) -> Certificate:
    sigma = classic_sigma(eps)
    cont = gaussian_delta(sigma, eps, Fraction(1), BITS)
    params = {"epsilon": eps, "delta": DELTA, "Delta": 1}
    if eps < 1:
        return cert(f"{CLAIM} (eps = {eps})", "continuous Gaussian, classic sigma", params,
                    "exact delta bracketed", cont.hi, "<= delta (eps < 1: the theorem holds)",
                    cont.hi <= DELTA, {"continuous_delta": [cont.lo, cont.hi]})
    s2 = Fraction(-((-(sigma.hi ** 2) * 64).__floor__()), 64)  # sigma^2 rounded up to 1/64
    disc = ideal_delta(s2, eps, 1)
    return cert(f"{CLAIM} (eps = {eps})", "continuous and discrete Gaussian, classic sigma",
                params, "exact delta bracketed", cont.lo,
                f"> delta: Theorem 2.2 beyond eps < 1 FAILS ({float_free(cont.lo / DELTA)} x)",
                cont.lo > DELTA and (eps < 20 or disc.lo > DELTA),
                {"continuous_delta": [cont.lo, cont.hi], "discrete_sigma2": s2,
                 "discrete_delta": [disc.lo, disc.hi]})


def check(full: bool) -> ClaimReport:
    holds = HOLDS if full else HOLDS[-1:]  # the quick grid: eps = 9/10 only below 1
    certs = [case(e) for e in (*holds, *FAILS)]
    deltas = [Fraction(c.witness["continuous_delta"][0 if e >= 1 else 1])
              for c, e in zip(certs, (*holds, *FAILS))]
    worst = max(deltas[len(holds):])
    grid = ", ".join(str(e) for e in (*holds, *FAILS))
    return ClaimReport(CLAIM, f"delta = 10^-5, Delta = 1, eps in {{{grid}}}",
                       f"eps < 1: delta <= {float_free(max(deltas[:len(holds)]))}; "
                       f"eps >= 10: delta >= {float_free(min(deltas[len(holds):]))}"
                       f" (up to {float_free(worst)})",
                       "<= 10^-5 below eps = 1; > 10^-5 at 10 and 20 (condition needed)", certs)
