"""Lemma 4.9: GeoSample's integer function F is the scaled CDF of the clamped geometric."""

from __future__ import annotations

from exactdp.certificate import Certificate, ClaimReport
from exactdp.proofs.balcer_vadhan._counting import each_geo, geo_grid_text

CLAIM = "Lemma 4.9"
STATEMENT = """For eps~, c, k, d and F as in Theorem 4.7 / Algorithm 4.8: F(z) is in [d] = {0..d}
and F(z)/d equals the CDF of c + Geo(2/eps~) clamped to [0, n], for every integer z."""
PROOF_IDEA = """With e^{-eps~/2} = 2^k/(2^k+1), the clamped geometric's CDF for z in [0, c) is
((2^k+1)/(2^{k+1}+1)) (2^k/(2^k+1))^{c-z}; multiplying numerator and denominator by
(2^k+1)^{n-(c-z)} clears all denominators to d = (2^{k+1}+1)(2^k+1)^{n-1}.  The case
z in [c, n) is symmetric (one minus the upper tail); outside [0, n) the CDF is 0 or 1.
Check: for every (n, eps) of the grid, every c in [n] and every z in [-1, n+1], compare the
implementation's F_c(z) (GeoSample.cdf) with d times the paper's closed-form clamped CDF
(GeometricMechanism.cdf with alpha = 2^k/(2^k+1)), exactly."""


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    evaluations = 0
    for mech in each_geo(full):
        ideal = mech.ideal()
        bad: dict[str, object] = {}
        d = mech.d
        for c in range(mech.n + 1):
            for z in range(-1, mech.n + 2):
                f = mech.cdf(c, z)
                evaluations += 1
                want = ideal.cdf(c, z)  # f / d == want, decided by exact cross products
                if not (0 <= f <= d and f * want.denominator == want.numerator * d):
                    bad = {"c": c, "z": z, "F": f, "ideal_cdf": ideal.cdf(c, z)}
                    break
            if bad:
                break
        certs.append(Certificate(
            CLAIM, repr(mech), {"n": mech.n, "epsilon": mech.epsilon, "k": mech.k},
            f"c in [0,{mech.n}], z in [-1,{mech.n + 1}]", None,
            "F(z) in [0,d] and F(z)/d == clamped geometric CDF", not bad, bad))
    failures = sum(not c.verdict for c in certs)
    return ClaimReport(
        CLAIM, geo_grid_text(full),
        f"{evaluations} F values, {failures} mismatches", "F/d == ideal CDF exactly", certs)
