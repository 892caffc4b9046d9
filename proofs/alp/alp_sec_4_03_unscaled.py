"""ALP-full §4.3's unscaled variant (no scaling by eps/alpha, p = 1/(eps + 2)): eps-DP, with
expected error (8 eps + 8)/eps^2 = O(1/eps^2), on the implementation."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import RatioWitness, certify_ratio
from exactdp.proofs.alp._alp import Config, estimate_law, family_worst, nonvacuous
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP unscaled variant (eps-DP, O(1/eps^2) error)"
STATEMENT = """ALP-full §4.3: skipping the scaling (y_i = RandRound(x_i), c = 1) and flipping with
p = 1/(eps + 2) is eps-DP, but Equation 1 then gives the expected error 8pq/(q-p)^2 =
(8 eps + 8)/eps^2, which is O(1/eps^2) instead of the scaled algorithm's O(1/eps).  Checked:
the worst ratio over every Carter-Wegman seed and neighbouring pair is <= e^eps (1 + eps
exactly on integer inputs), and with no collisions E|x~_i - x_i| <= (8 eps + 8)/eps^2 for
every integer x_i <= m."""
PROOF_IDEA = """ALPParams.unscaled builds the parameters; privacy as in the Lemma 4.12 row (cell
laws from the implementation's coins and embedding, worst over every seed of CW P = 5,
certified <= e^eps); the error from the implementation's explored estimator law (one row, one
key), eps in {4, 3, 2, 1, 1/2} and every y <= m <= 5 (7 in --full).  The bound is
non-trivial (below the largest possible error max(y, m - y)) for eps >= 2 on this grid."""

EPSILONS = (Fraction(4), Fraction(3), Fraction(2), Fraction(1), Fraction(1, 2))


def _privacy(eps: Fraction) -> Certificate:
    cfg = Config(f"unscaled eps={eps}", lambda: ALPParams.unscaled(eps, 3, 3, 1, 4), 5, 3,
                 1 + eps, eps)
    prm, w = family_worst(cfg)
    ok, bound = certify_ratio(RatioWitness(w.ratio, w.numerator_input, w.denominator_input,
                                           w.output, w.p, w.q), eps)
    exact = w.ratio == 1 + eps
    return Certificate(CLAIM + ": eps-DP", f"ALP({prm.variant})", cfg.describe(prm),
                       f"{w.pairs} ordered neighbouring pairs x {w.family_size}^{prm.columns} "
                       f"seed tuples", w.ratio, f"{bound}; == 1 + eps", ok and exact,
                       {"witness": w.to_json()})


def check(full: bool) -> ClaimReport:
    certs = [_privacy(Fraction(1, 2)), _privacy(Fraction(2))]
    top = 7 if full else 5
    bites = total = 0
    worst_all = Fraction(0)
    for eps in EPSILONS:
        p = ALPParams.unscaled(eps, top, 1, 1, 1).flip
        bound = (8 * eps + 8) / eps ** 2
        worst, arg = Fraction(0), None
        for m in range(1, top + 1):
            for y in range(m + 1):
                mae = sum((abs(e) * w for e, w in estimate_law(p, m, y).items()), Fraction(0))
                total += 1
                bites += bound < max(y, m - y)
                if mae > worst:
                    worst, arg = mae, {"m": m, "y": y}
        worst_all = max(worst_all, worst / bound)
        certs.append(Certificate(CLAIM + ": error", "ALP(unscaled) estimator (explored)",
                                 {"eps": eps, "p": p}, f"y <= m <= {top}", worst,
                                 f"<= (8 eps + 8)/eps^2 = {bound}", worst <= bound,
                                 {"attained_at": arg}))
    certs.append(nonvacuous(CLAIM + ": error", bites, total, "below max(y, m - y)"))
    return ClaimReport(CLAIM, f"privacy at eps = 1/2, 2 (CW P = 5); error at eps in 4, 3, 2, "
                       f"1, 1/2, y <= m <= {top}",
                       f"ratios {', '.join(brief(Fraction(c.worst)) for c in certs[:2])}; "  # type: ignore[arg-type]
                       f"max error/bound {brief(worst_all)}; {bites} of {total} bounds "
                       f"non-trivial", "<= e^eps and = 1 + eps; <= (8 eps + 8)/eps^2", certs)
