"""ALP histogram-tight variant against the paper's choice: the exact mean absolute error on
integer inputs."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.sparse_vectors import exact
from exactdp.sparse_vectors.alp_params import ALPParams, tight_bound
from exactdp.sparse_vectors.estimator import unary_estimate

CLAIM = "ALP histogram-tight variant: error"
STATEMENT = """Not in the paper: on integer inputs with c = eps/alpha = 1/n, the paper's p = 1/(alpha+2)
gives a worst ratio of only 1 + eps < e^eps, so it over-noises; the histogram-tight
p_T = c/(L - 1 + 2c) with L = tight_bound(eps) <= e^eps spends the whole budget (ratio exactly
L, row "ALP histogram-tight variant") and so flips fewer bits.  Claim: at the same
eps, c, beta and m, its exact mean absolute error E|x~ - x| over x uniform on {0..beta}
(no hash collisions) is strictly lower than the paper's."""
PROOF_IDEA = """Both parameter sets come from the public constructors (ALPParams.from_paper and
.histogram_tight), and must share scale and m.  The error law of one key is exact: its y =
RandRound(x c) clamped to m has a two-point law, its m column bits are 1 for b <= y and 0
above, each flipped independently with probability p (no collisions), and the estimate is
the implementation's unary_estimate applied to each of the 2^m patterns
(exactdp.sparse_vectors.exact.e1_mae).  The MAEs are exact Fractions; the row prints both
and their ratio.  A p_T not below the paper's p (e.g. L taken as 1 + eps) would fail it."""


def grid(full: bool) -> list[tuple[int, int]]:
    """(alpha = n at eps = 1, beta): m = beta / alpha columns, 2^m patterns each."""
    return [(1, 8), (3, 24), (2, 20), (1, 12), (3, 36)] if full else [(1, 8), (3, 24)]


def check(full: bool) -> ClaimReport:
    eps = Fraction(1)
    big_l = tight_bound(eps)
    certs = []
    for alpha, beta in grid(full):
        paper = ALPParams.from_paper(eps, alpha, beta, 10, 1, 10)
        tight = ALPParams.histogram_tight(big_l, alpha, beta, 10, 1, 10)
        same = paper.scale == tight.scale and paper.columns == tight.columns
        mae_p = exact.e1_mae(paper.flip, paper.scale, beta, paper.columns,
                             estimator=unary_estimate)
        mae_t = exact.e1_mae(tight.flip, tight.scale, beta, tight.columns,
                             estimator=unary_estimate)
        certs.append(Certificate(
            CLAIM, f"eps = 1, alpha = {alpha}, beta = {beta}",
            {"m": paper.columns, "scale": paper.scale, "p": paper.flip, "p_T": tight.flip},
            "x uniform on {0..beta}, every 2^m pattern, no collisions", mae_t / mae_p,
            f"MAE tight {brief(mae_t)} < paper {brief(mae_p)}",
            same and mae_t < mae_p,
            {"mae_paper": mae_p, "mae_tight": mae_t}))
    return ClaimReport(CLAIM, f"eps = 1, (alpha, beta) in {grid(full)}",
                       ", ".join(brief(Fraction(c.worst)) for c in certs),  # type: ignore[arg-type]
                       "MAE(tight) / MAE(paper) < 1", certs)
