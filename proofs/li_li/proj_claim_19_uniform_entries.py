"""Uniform-entry projection matrices (Section 1.1's
uniform W, integer stand-in: entries uniform on {-m..m}): the implementation draws every
matrix with probability (2m+1)^(-pk), and the DP-RP inner-product estimator is unbiased
with Theorem 3.9's variance in which the -2 sum u_i^2 v_i^2 of ±1 entries becomes
(E w^4 / (E w^2)^2 - 3) sum u_i^2 v_i^2."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.noise_tables import discrete_gaussian_table
from exactdp.projections import matrices
from exactdp.projections.rp import DPRP
from exactdp.proofs.li_li._proj import cert
from exactdp.proofs.li_li.proj_claim_17_variances import _mixture, _sums, noise_variance

CLAIM = "Li & Li uniform-entry W: exact uniform law; Thm 3.9's variance with E w^4"
STATEMENT = """For W with iid entries of mean 0, E w^2 = s and E w^4 = kappa, and independent noise of
variance s'^2 on each unscaled projection, g = (1/(k s)) sum_j (x_j + a_j)(y_j + b_j) has
E g = <u, v> and Var g = S^2 sum (u_i^2 + v_i^2) + k S^4 + (1/k)(sum u_i^2 sum v_i^2 + <u,
v>^2 + (kappa/s^2 - 3) sum u_i^2 v_i^2) with S^2 = s'^2/(k s): Theorem 3.9 for ±1 entries
(kappa = s = 1), here for entries uniform on {-m..m} (s = m(m+1)/3, kappa =
m(m+1)(3m^2+3m-1)/15)."""
PROOF_IDEA = """The law of sample_uniform_entries(2, 2, m) explored from the implementation must give every
matrix of {-m..m}^(2 x 2) probability (2m+1)^-4.  Over that law and the explored laws of
DPRP(W, 1, table).sample(u) and .sample(v) (table q = 1/2, T = 1), E g and Var g are computed
exactly and must equal the formula with s and kappa from the closed forms above (not from the
law).  Quick: m = 1 (81 matrices), one pair; full: m = 1, 2, two pairs."""

PAIRS = (((1, -2), (2, 1)), ((2, 1), (-1, 2)))


def moments_of_entries(m: int) -> tuple[Fraction, Fraction]:
    return (Fraction(m * (m + 1), 3), Fraction(m * (m + 1) * (3 * m * m + 3 * m - 1), 15))


def law_certificate(m: int) -> Certificate:
    law = explore(lambda src: matrices.sample_uniform_entries(2, 2, m, src))
    want = Fraction(1, (2 * m + 1) ** 4)
    ok = len(law) == (2 * m + 1) ** 4 and all(pr == want for pr in law.values()) and all(
        abs(v) <= m for W in law for row in W for v in row)
    return cert(f"{CLAIM} (law, m = {m})", f"sample_uniform_entries(2, 2, {m})", {"m": m},
                "every 2 x 2 matrix", len(law), f"{(2 * m + 1) ** 4} matrices, each {want}", ok)


def variance_case(u: tuple[int, ...], v: tuple[int, ...], m: int) -> tuple[bool, Fraction,
                                                                              Fraction]:
    k = 2
    noise = discrete_gaussian_table(Fraction(1, 2), 1)
    s, kappa = moments_of_entries(m)
    big_s2 = noise_variance(noise) / (k * s)
    su2, sv2, suv, su2v2 = _sums(u, v)
    family = explore(lambda src: matrices.sample_uniform_entries(len(u), k, m, src))
    mean, var = _mixture(family, lambda W: DPRP(W, 1, noise), u, v, 1 / (k * s))
    claim = (big_s2 * (su2 + sv2) + k * big_s2 * big_s2
             + (su2 * sv2 + suv * suv + (kappa / (s * s) - 3) * su2v2) / k)
    return mean == suv and var == claim, var, claim


def variance_certificate(m: int, pairs: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
                         ) -> Certificate:
    results = [((u, v), *variance_case(u, v, m)) for u, v in pairs]
    ok = all(r[1] for r in results)
    return cert(f"{CLAIM} (variance, m = {m})", f"DPRP over sample_uniform_entries(2, 2, {m})",
                {"m": m, "k": 2}, f"{len(pairs)} pairs (u, v)", results[0][2],
                "E g = <u, v>; Var g = the formula", ok,
                {"variances": [(str(r[0]), str(r[2]), str(r[3])) for r in results]})


def check(full: bool) -> ClaimReport:
    ms = (1, 2) if full else (1,)
    pairs = PAIRS if full else PAIRS[:1]
    certs = [law_certificate(m) for m in ms] + [variance_certificate(m, pairs) for m in ms]
    return ClaimReport(CLAIM, f"p = k = 2, m in {ms}", f"Var {certs[len(ms)].worst} (m = 1)",
                       "= the fourth-moment form of Thm 3.9", certs)
