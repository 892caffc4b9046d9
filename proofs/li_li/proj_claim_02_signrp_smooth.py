"""Li & Li Theorem 4.7: DP-SignRP-RR-smooth (Algorithm 7, unscaled levels) is pure rho^k for
a fixed integer W, and each pair's exact ratio is the product of per-bit factors."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import worst_ratio
from exactdp.neighbours import vectors
from exactdp.projections import exact as ex
from exactdp.projections.matrices import column_max_abs
from exactdp.projections.signs import DPSignRPSmooth
from exactdp.proofs.li_li._proj import (
    BASE,
    NOTES_W7,
    RHO,
    cert,
    laws_of,
    mismatches,
    report,
    worst_text,
)

CLAIM = "Li & Li Thm 4.7: SignRP-smooth (Alg 7) pure rho^k, product of bit factors"
STATEMENT = """Algorithm 7 with L_j = ceil(|x_j| / (beta max_i |W_ij|)) on the unscaled projection x = W^T u, a rational base rho and L capped at L_max, has worst ratio <= rho^k under
one-coordinate beta-neighbours for every fixed integer W; for every pair the exact worst
ratio is the product over bits of the closed-form factor.  Reference instance
W = [[1,-1],[1,1],[-1,1]], C = 2, rho = 3/2: beta = 1 worst (97/70)^2 = 9409/4900, beta = 2
worst 9/4 = rho^2 (attained)."""
PROOF_IDEA = """|x_j - x'_j| <= beta max_i |W_ij| gives |L - L'| <= 1; each bit's ratio is then <= rho, and
the bits are independent.  Check: the implementation's DPSignRPSmooth explored at every
point of {-2..2}^3, law = closed form; for EVERY ordered pair the checker's worst ratio of
that pair equals exactdp.projections.exact.smooth_pair_ratio (a case analysis,
computed from levels and signs, not from the laws); the overall worst equals the hand-derived
value and is <= rho^k.  The same checks (without the hand-derived value) on two more W, one
±1 and one very sparse with zero entries, at beta = 1, 2.  Full: also beta = 3 on the
reference W (worst must be <= 9/4)."""

NOTES_WORST = {1: Fraction(9409, 4900), 2: Fraction(9, 4)}


#: Further matrices of the quick grid: another ±1 W and a very sparse one (a zero entry).
MORE_W = (((1, 1), (1, -1), (-1, -1)), ((1, 0), (0, 1), (-1, 1)))


def beta_certificate(beta: int, W: tuple[tuple[int, ...], ...] = NOTES_W7) -> Certificate:
    l_max = 6
    mech = DPSignRPSmooth(W, beta, BASE, l_max)
    rel = vectors(3, -2, 2, beta)
    laws = laws_of(mech, rel.points)
    units = [beta * m for m in column_max_abs(W)]
    xs = {u: ex.projections(u, W) for u in rel.points}
    bad = mismatches(laws, lambda u: ex.sign_smooth_law(xs[u], units, RHO, l_max))
    # pure caches within this certificate: equal laws (by content) have equal ratios, equal
    # projection pairs equal closed-form ratios
    law_id: dict[frozenset[tuple[object, Fraction]], int] = {}
    ids = {u: law_id.setdefault(frozenset(law.items()), len(law_id)) for u, law in laws.items()}
    got_of: dict[tuple[int, int], Fraction | None] = {}
    want_of: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = {}
    wrong_pairs = []
    for a, b in rel.ordered_pairs():
        key = (ids[a], ids[b])
        if key not in got_of:
            got_of[key] = worst_ratio([(a, laws[a], b, laws[b])]).ratio
        got = got_of[key]
        xkey = (xs[a], xs[b])
        if xkey not in want_of:
            want_of[xkey] = ex.smooth_pair_ratio(xkey[0], xkey[1], units, RHO, l_max)
        want = want_of[xkey]
        if got != want:
            wrong_pairs.append((a, b, got, want))
    rep = report(laws, rel)
    notes = NOTES_WORST.get(beta) if W == NOTES_W7 else None
    ok = (not bad and not wrong_pairs and rep.pure(RHO ** 2)
          and (notes is None or rep.worst.ratio == notes))
    return cert(f"{CLAIM} (beta = {beta}, W = {W})",
                f"DPSignRPSmooth(W={W}, beta={beta}, rho=3/2, L_max={l_max})",
                {"rho": RHO, "beta": beta, "k": 2, "notes_worst": notes},
                f"{rep.pairs} ordered pairs of {rel.name}", worst_text(rep),
                "<= rho^2 = 9/4; every pair = product of bit factors"
                + ("" if notes is None else f"; = hand-derived {notes}"), ok,
                {"ratio_witness": rep.worst.to_json(), "law_mismatches": bad[:3],
                 "pair_mismatches": [list(p) for p in wrong_pairs[:3]]})


def check(full: bool) -> ClaimReport:
    betas = (1, 2, 3) if full else (1, 2)
    certs = [beta_certificate(b) for b in betas]
    certs += [beta_certificate(b, W) for W in MORE_W for b in (1, 2)]
    return ClaimReport(CLAIM, f"reference W (3x2), C = 2, beta in {betas}; two more W "
                       f"(one very sparse), beta in (1, 2)",
                       "worst ratios " + ", ".join(str(c.worst) for c in certs[:len(betas)])
                       + "; more W: " + ", ".join(str(c.worst) for c in certs[len(betas):]),
                       "9409/4900 (beta 1), 9/4 (beta 2); all <= rho^2 = 9/4", certs)
