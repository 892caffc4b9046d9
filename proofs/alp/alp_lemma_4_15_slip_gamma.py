"""ALP-full Lemma 4.15's gamma: with gamma read as alpha (p the randomized-response
probability, collisions ignored) the tail bound fails on the implementation's hashing; with
gamma = alpha (s - 2k)/(s + alpha k) it holds."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.alp._alp import gamma, spec_estimate_law
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_error import estimate_law, y_error_law
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP Lemma 4.15 gamma: collisions must enter p"
SLIP = ("Lemma 4.15 assumes p = 1/(gamma + 2) with gamma left undefined; read as the "
        "randomized-response p = 1/(alpha + 2) (collisions ignored), its tail bound is "
        "false under Carter-Wegman hashing.")
STATEMENT = """ALP-full Lemma 4.15 (tail of the ALP estimate, x_i <= beta): Pr[|y~ - y| >= t] <=
(2/(q-p)) (4pq)^ceil(t/2) in y-units, 'p = 1/(gamma + 2)'.  With p = 1/(alpha + 2) (gamma =
alpha) the bound fails at eps = 1, alpha = 18, beta = 180 (m = 10), s = 11, k = 5, d = 10:
key 1 at 0, keys 2..5 at beta, the implementation's Carter-Wegman seeds (P = 11).  With
p' = 1/(gamma' + 2), gamma' = alpha (s - 2k)/(s + alpha k) (p' = p + (1 - 2p) k/s, the flip
probability inflated by the collision probability) it holds."""
PROOF_IDEA = """The exact law of y~_1 - y_1 from the implementation with every seed of every
column (exactdp.sparse_vectors.alp_error.estimate_law), every half-integer t in
[1/2, m + 1/2], key 1 at 0, 1, alpha and 2 alpha; that law (key 1 at 0 and alpha) must equal the specification's
(proofs/alp/_alp.py spec_estimate_law: rounding, hashing and estimator re-derived).  The row passes when the paper's reading
FAILS (max Pr/bound > 1) and the fix holds (max <= 1); at this many collisions the fixed
bound is above 1 for every t (it bites on the grids of the Lemma 4.15 real-hashing row)."""

EPS, ALPHA, BETA, ROWS, K, D = 1, 18, 180, 11, 5, 10


def _inputs() -> list[dict[int, int]]:
    out = []
    for xi in (0, 1, ALPHA, 2 * ALPHA):
        x = {key: BETA for key in range(2, K + 1)}
        if xi:
            x[1] = xi
        out.append(x)
    return out


def _worst(alp: ALP, flip: Fraction) -> tuple[Fraction, dict[str, object]]:
    worst, arg = Fraction(0), {}
    for x in _inputs():
        xi = x.get(1, 0)
        errs = y_error_law(estimate_law(alp, x, 1))
        for t2 in range(1, 2 * alp.params.columns + 2):
            t = Fraction(t2, 2)
            pr = sum((w for e, w in errs.items() if abs(e) >= t), Fraction(0))
            r = pr / ex.tail_bound(flip, t)
            if r > worst:
                worst, arg = r, {"x_1": xi, "t": t, "probability": pr}
    return worst, arg


def check(full: bool) -> ClaimReport:
    alp = ALP(ALPParams.from_paper(EPS, ALPHA, BETA, ROWS, K, D))
    paper_p = alp.params.flip
    fixed_p = 1 / (gamma(Fraction(ALPHA), ROWS, K) + 2)
    w_paper, a_paper = _worst(alp, paper_p)
    w_fixed, a_fixed = _worst(alp, fixed_p)
    agree = all(estimate_law(alp, x, 1) == spec_estimate_law(alp.params, alp.hashes.prime, x, 1)
                for x in _inputs()[::2])
    params = {"eps": EPS, "alpha": ALPHA, "beta": BETA, "s": ROWS, "k": K, "d": D,
              "m": alp.params.columns}
    domain = f"x_1 in 0, 1, alpha, 2 alpha; others at beta; every CW seed (P = {alp.hashes.prime})"
    certs = [
        Certificate(CLAIM + " (paper: gamma = alpha)", repr(alp), {**params, "p": paper_p},
                    domain, w_paper, "> 1: the paper's reading FAILS; law == specification",
                    w_paper > 1 and agree, {"attained_at": a_paper, "law_matches_spec": agree}),
        Certificate(CLAIM + " (fix: p' = p + (1 - 2p) k/s)", repr(alp),
                    {**params, "p_eff": fixed_p}, domain, w_fixed, "<= 1", w_fixed <= 1,
                    {"attained_at": a_fixed})]
    return ClaimReport(CLAIM, "eps = 1, alpha = 18, m = 10, s = 11, k = 5, d = 10",
                       f"max Pr/bound {brief(w_paper)} (gamma = alpha), {brief(w_fixed)} (fix)",
                       "> 1 with gamma = alpha; <= 1 with the fix", certs)
