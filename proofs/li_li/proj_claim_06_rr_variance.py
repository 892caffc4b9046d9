"""Theorem 4.6: the de-biased collision estimator of DP-SignRP-RR (eq. 29) is
unbiased with variance V_RR/k, V_RR = theta(pi - theta) + 2 pi^2 rho/(rho - 1)^2 + 4 pi^2
rho^2/(rho - 1)^4 (rho = e^(eps/N+)), checked on the exact law of the implementation's
release (random W and randomized response together)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.projections import estimators
from exactdp.projections.matrices import sample_rademacher
from exactdp.projections.project import project, sign_with_tie
from exactdp.projections.rr import Base
from exactdp.projections.signs import DPSignRPRR
from exactdp.proofs.li_li._proj import cert

CLAIM = "Li & Li Thm 4.6: E P^_RR = P and k Var = P(1-P) + 2rho/(rho-1)^2 + 4rho^2/(rho-1)^4"
STATEMENT = """Theorem 4.6 (divided by pi^2, with theta = pi (1 - P)): for two vectors released by
DP-SignRP-RR (Algorithm 6, keep probability rho/(rho + 1) per bit, the same random W), the
de-biased collision estimator P^_RR of eq. 29 has E P^_RR = P, the collision probability of
the true signs, and k Var P^_RR = P(1 - P) + 2 rho/(rho - 1)^2 + 4 rho^2/(rho - 1)^4.  The
optimal k that follows is an asymptotic expansion (see the k* slip row), not exercised here."""
PROOF_IDEA = """The joint law of (P^_RR, true-sign collision) is explored from the implementation: W =
sample_rademacher(3, k, source), then DPSignRPRR(W, base).sample(u) and .sample(v) with the
same source, then estimators.debias_rr_collision(estimators.collision_fraction(...)).  For
u = (1, 1, 1) and every v in {-1, 1}^3 (odd sums: no sign ties), rho in {3/2, 2} at k = 1,
and rho = 2 at k = 2 for v = (1, 1, 1), (1, 1, -1), (-1, -1, -1) (full: every v): the exact mean must equal P and k times
the exact variance the theorem's value.  The row prints how many pairs had 0 < P < 1 (the W
term of V_RR non-zero); it must be > 0."""

U = (1, 1, 1)
BASES = (Base(3, 2), Base(2, 1))


def v_rr(p: Fraction, rho: Fraction) -> Fraction:
    """Theorem 4.6's ``V_RR / pi^2`` at ``theta = pi (1 - P)``."""
    return p * (1 - p) + 2 * rho / (rho - 1) ** 2 + 4 * rho**2 / (rho - 1) ** 4


def joint_law(v: tuple[int, ...], base: Base, k: int) -> dict[tuple[Fraction, int], Fraction]:
    def run(src):  # type: ignore[no-untyped-def]
        w = sample_rademacher(len(U), k, src)
        mech = DPSignRPRR(w, base)
        s1, s2 = mech.sample(U, src), mech.sample(v, src)
        est = estimators.debias_rr_collision(estimators.collision_fraction(s1, s2), base)
        same = sum(sign_with_tie(a) == sign_with_tie(b)
                   for a, b in zip(project(U, w), project(v, w), strict=True))
        return est, same
    return explore(run)


def pair_certificate(v: tuple[int, ...], base: Base, k: int) -> Certificate:
    law = joint_law(v, base, k)
    rho = base.ratio
    p = sum((pr * same for (_, same), pr in law.items()), Fraction(0)) / k
    mean = sum((pr * est for (est, _), pr in law.items()), Fraction(0))
    var = sum((pr * est * est for (est, _), pr in law.items()), Fraction(0)) - mean * mean
    want = v_rr(p, rho)
    ok = mean == p and k * var == want
    return cert(f"{CLAIM} (v = {v}, rho = {rho}, k = {k})",
                f"DPSignRPRR(sample_rademacher(3, {k}), Base{(base.a, base.b)})",
                {"rho": rho, "k": k, "u": U, "v": v}, "every path of W and the bits",
                k * var, f"= V_RR/pi^2 = {want}; mean = P = {p}", ok,
                {"mean": mean, "P": p, "k_var": k * var, "theorem": want})


def check(full: bool) -> ClaimReport:
    certs = [pair_certificate(v, b, 1) for b in BASES for v in product((-1, 1), repeat=3)]
    two = ((1, 1, 1), (1, 1, -1), (-1, -1, -1)) if not full else tuple(product((-1, 1), repeat=3))
    certs += [pair_certificate(v, Base(2, 1), 2) for v in two]
    nontrivial = sum(0 < c.witness["P"] < 1 for c in certs)
    ok = nontrivial > 0
    certs.append(cert(f"{CLAIM} (non-trivial pairs)", "count", {}, "the pairs above",
                      nontrivial, "> 0 pairs with 0 < P < 1", ok, {},
                      note=f"{nontrivial} pairs had 0 < P < 1 (the W term non-zero)"))
    return ClaimReport(CLAIM, f"u = (1,1,1), v in {{-1,1}}^3, rho in (3/2, 2), k = 1; k = 2 on "
                       f"{len(two)} pairs", f"{nontrivial} pairs with 0 < P < 1",
                       "E = P and k Var = V_RR/pi^2 exactly at every pair", certs)
