"""For Rademacher w the probability P+_b(u) = Pr(|w.u| <=
beta) of eq. (31) is an exact rational, and the paper's normal approximation 2 Phi(beta/||u||)
- 1 is far below it on small integer data (u = (1,1,1): 3/4 vs 0.436)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.projections import exact as ex
from exactdp.projections.matrices import sample_rademacher
from exactdp.projections.project import project
from exactdp.proofs.li_li._proj import cert

CLAIM = "P2/eq. 31: exact P+ for Rademacher w (u = (1,1,1): 3/4) vs CLT 0.436"
SLIP = ("Equation 31's central-limit value of P+ is not a bound: the exact value at u = (1, 1, 1) "
        'is 3/4, the approximation 0.436.')
STATEMENT = """P+_b(u) = Pr_w(|sum_i w_i u_i| <= beta), w uniform in {-1,1}^p, is the rational mass of
prod_i (z^{u_i} + z^{-u_i})/2 on exponents in [-beta, beta].  Hand-derived values (beta = 1): u = 1^2
1/2, 1^3 3/4, 1^4 3/8, 1^5 5/8, 1^9 63/128.  Eq. (31)'s 2 Phi(beta/||u||) - 1 (0.436 at
1^3) is not a bound: it is below the exact value."""
PROOF_IDEA = """The law of |x| for x = project(u, W), W = sample_rademacher(p, 1, source) explored from the
implementation; Pr(|x| <= beta) must equal exactdp.projections.exact.p_plus_rademacher and
the hand-derived value.  The CLT value is bounded without floats: Phi(t) - 1/2 <= t phi(0) =
t/sqrt(2 pi) < 2t/5 (pi > 3.125), so 2 Phi(t) - 1 < 4t/5 and, squaring, (4t/5)^2 =
16 beta^2/(25 ||u||^2) < P+^2 certifies CLT < exact wherever it holds (u = 1^3, 1^5, 1^9)."""

NOTES = {2: Fraction(1, 2), 3: Fraction(3, 4), 4: Fraction(3, 8), 5: Fraction(5, 8),
         9: Fraction(63, 128)}


def p_certificate(p: int) -> Certificate:
    u = (1,) * p
    law = explore(lambda src: abs(project(u, sample_rademacher(p, 1, src))[0]))
    explored = sum((pr for v, pr in law.items() if v <= 1), Fraction(0))
    closed = ex.p_plus_rademacher(u, 1)
    clt_upper_sq = Fraction(16, 25) * Fraction(1, p)        # (4t/5)^2 with t^2 = 1/||u||^2
    below = clt_upper_sq < explored * explored
    ok = explored == closed == NOTES[p]
    return cert(f"{CLAIM} (u = 1^{p})", f"project(u, sample_rademacher({p}, 1))",
                {"p": p, "beta": 1}, f"all 2^{p} sign vectors", explored,
                f"= hand-derived {NOTES[p]} = closed form", ok,
                {"clt_certified_below_exact": below, "clt_upper_squared": clt_upper_sq})


def check(full: bool) -> ClaimReport:
    ps = (2, 3, 4, 5, 9) if full else (2, 3, 4, 5)
    certs = [p_certificate(p) for p in ps]
    below = [c.parameters["p"] for c in certs if c.witness["clt_certified_below_exact"]]
    ok = 3 in below
    certs.append(cert(CLAIM + " (CLT below exact at 1^3)", "certified bound 2 Phi(t) - 1 < 4t/5",
                      {"t^2": Fraction(1, 3)}, "u = (1,1,1)", Fraction(16, 75),
                      "(4t/5)^2 = 16/75 < (3/4)^2 = 9/16", ok, {"p_certified": below}))
    return ClaimReport(CLAIM, f"u = 1^p, p in {ps}, beta = 1",
                       "P+ = " + ", ".join(str(c.worst) for c in certs[:-1]),
                       "= hand-derived 1/2, 3/4, 3/8, 5/8 (63/128); CLT certified below at 1^3",
                       certs)
