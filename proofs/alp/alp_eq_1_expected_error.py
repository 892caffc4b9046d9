"""ALP Equation 1 (ALP-full §4.3): the expected error of the unary estimator, exactly, from the
implementation; and the exact MAE of the Figure 3 setting on the implementation's hashing."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.alp._alp import estimate_law, spec_estimate_law
from exactdp.sparse_vectors import alp_error
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_params import ALPParams
from exactdp.sparse_vectors.estimator import unary_estimate

CLAIM = "ALP Equation 1 (expected error)"
STATEMENT = """ALP-full §4.3, Equation 1 (as recovered from the quoted (8 eps + 8)/eps^2): with
no hash collisions, the ALP1-estimator's expected error in y-units is E|y~ - y| <= 8pq/(q-p)^2
(q = 1 - p) for every y <= m.  Exact values: (y, m, p) = (2, 4, 1/3): 8/9; (0, 4, 1/3):
32/27 with bias +32/27, mirror (4, 4): -32/27; (1, 3, 1/5): 62/125; (3, 6, 1/5): 37208/46875,
bias 0."""
PROOF_IDEA = """The law of y~ - y is read off the implementation: ALP.project with one row, one key and
fixed seeds explored on every randomized-response coin, then the implementation's
estimate_units.  From it: E|y~ - y| and the bias, exactly, compared with the bound for every
y <= m <= 5 (quick) / 7 (full) and p in {1/3, 1/5, 2/5, 1/10}, with the T6 fractions, and with
the independent enumeration of exactdp.sparse_vectors.exact (which must agree exactly).  The
bound is non-trivial at (m, y) when it is below max(y, m - y) (y~ lies in [0, m]): never for
p = 1/3 (16) or 2/5 (48) on these grids, from m = 4 for p = 1/5 (32/9) and from m = 3 for
p = 1/10 (9/8); the number of non-trivial points is printed and must be > 0."""

CLAIM_E1 = "ALP E1-exact MAE"
STATEMENT_E1 = """ALP-short Figure 3 and §5, exactly at small scale: eps = 1, alpha = 3 (c = 1/3, p = 1/5),
k = 2 keys with x_1 and x_2 independent and uniform on the integers [0, beta], estimate of
key 1, the implementation's Carter-Wegman hashing (every seed of every column).  The paper
says hash collisions add a positive bias and raise the mean absolute error, and that with
s >= 100k the MAE drops towards the collision-free value: exactly, MAE(s = 5/2 k) >
MAE(s = 10k) > MAE(no collisions) and bias(s = 5/2 k) > bias(s = 10k) > 0 (--full adds
s = 100k between 10k and no collisions, and the exact collision-free MAE at beta = 30,
4885473556/1513671875)."""
PROOF_IDEA_E1 = """The law of (y_1, y~_1) from the implementation's rounding, embed_cells on every
seed and unary_estimate (exactdp.sparse_vectors.alp_error.estimate_law), averaged over the
(beta + 1)^2 inputs; it must equal the specification's law (proofs/alp/_alp.py
spec_estimate_law) on the inputs with x_1, x_2 multiples of 5.  No collisions: the exact law
with every zero-region bit flipped with probability p alone (exactdp.sparse_vectors.exact
.e1_mae at collision probability 0, with the implementation's unary_estimate)."""

PS = (Fraction(1, 3), Fraction(1, 5), Fraction(2, 5), Fraction(1, 10))
T6 = [((Fraction(1, 3), 4, 2), Fraction(8, 9), None),
      ((Fraction(1, 3), 4, 0), Fraction(32, 27), Fraction(32, 27)),
      ((Fraction(1, 3), 4, 4), Fraction(32, 27), Fraction(-32, 27)),
      ((Fraction(1, 5), 3, 1), Fraction(62, 125), None),
      ((Fraction(1, 5), 6, 3), Fraction(37208, 46875), Fraction(0))]


def _moments(p: Fraction, m: int, y: int) -> tuple[Fraction, Fraction]:
    law = estimate_law(p, m, y)
    return (sum((abs(e) * w for e, w in law.items()), Fraction(0)),
            sum((e * w for e, w in law.items()), Fraction(0)))


def check(full: bool) -> ClaimReport:
    certs = []
    top = 7 if full else 5
    counts = []
    for p in PS:
        bound = ex.eq1_bound(p)
        worst, arg, agree, bites, points = Fraction(0), (0, 0), True, 0, 0
        for m in range(1, top + 1):
            for y in range(m + 1):
                mae, bias = _moments(p, m, y)
                agree &= (mae, bias) == ex.expected_error(p, m, y)
                points += 1
                bites += bound < max(y, m - y)      # y~ in [0, m]: |y~ - y| <= max(y, m - y)
                if mae > worst:
                    worst, arg = mae, (m, y)
        counts.append((bites, points))
        certs.append(Certificate(CLAIM, "ALP estimator (implementation, explored)",
                                 {"p": p}, f"y <= m <= {top}", worst,
                                 f"<= 8pq/(q-p)^2 = {bound}; = independent enumeration; "
                                 f"{bites} of {points} bounds non-trivial",
                                 worst <= bound and agree,
                                 {"attained_at_m_y": arg, "non_trivial": bites}))
    bites = sum(b for b, _ in counts)
    certs.append(Certificate(CLAIM + ": non-trivial points", "the grid above", {},
                             f"y <= m <= {top}", bites, "> 0 bounds below max(y, m - y)",
                             bites > 0, {"per_p": counts}))
    for (p, m, y), mae_want, bias_want in T6:
        mae, bias = _moments(p, m, y)
        ok = mae == mae_want and (bias_want is None or bias == bias_want)
        certs.append(Certificate(CLAIM + ": estimator law", "ALP estimator (implementation)",
                                 {"p": p, "m": m, "y": y}, "exact law", mae,
                                 f"== {mae_want}" + ("" if bias_want is None else
                                                     f", bias == {bias_want}"), ok,
                                 {"bias": bias}))
    k = len(PS)
    return ClaimReport(CLAIM, f"p in {', '.join(str(p) for p in PS)}; y <= m <= {top}",
                       "max E|y~-y| " + ", ".join(brief(Fraction(c.worst)) for c in certs[:k])  # type: ignore[arg-type]
                       + f"; {bites} of {sum(n for _, n in counts)} bounds non-trivial",
                       "<= 8pq/(q-p)^2 = " + ", ".join(
                           str(ex.eq1_bound(Fraction(c.parameters["p"])))
                           for c in certs[:k]) + "; T6 exact", certs)


def hashed_e1(beta: int, rows: int) -> tuple[Fraction, Fraction, bool]:
    """``(MAE, bias, law == specification)`` of the Figure 3 setting with ``rows`` rows."""
    alp = ALP(ALPParams.from_paper(1, 3, beta, rows, 2, 4))
    mae = bias = Fraction(0)
    agree = True
    for x1 in range(beta + 1):
        for x2 in range(beta + 1):
            x = {key: v for key, v in ((1, x1), (2, x2)) if v}
            law = alp_error.estimate_law(alp, x, 1)
            for e, w in alp_error.x_error_law(law, alp, x1).items():
                mae += abs(e) * w
                bias += e * w
            if x1 % 5 == 0 and x2 % 5 == 0:
                agree &= law == spec_estimate_law(alp.params, alp.hashes.prime, x, 1)
    n = (beta + 1) ** 2
    return mae / n, bias / n, agree


def check_e1(full: bool) -> ClaimReport:
    beta = 15
    rows = [5, 20, 200] if full else [5, 20]
    results = {s: hashed_e1(beta, s) for s in rows}
    free = ex.e1_mae(Fraction(1, 5), Fraction(1, 3), beta, 5, Fraction(0), unary_estimate)
    maes = [results[s][0] for s in rows] + [free]
    biases = [results[s][1] for s in rows]
    ordered = all(a > b for a, b in pairwise(maes)) and all(
        a > b for a, b in pairwise(biases)) and biases[-1] > 0
    certs = [Certificate(CLAIM_E1, f"ALP.from_paper(eps=1, alpha=3, beta={beta}, s={s}, k=2, "
                                   f"d=4), Carter-Wegman every seed",
                         {"beta": beta, "m": 5, "s": s, "k": 2, "bias": results[s][1]},
                         f"x_1, x_2 uniform on [0, {beta}]", results[s][0],
                         "law == specification; MAE and bias fall as s grows, MAE above "
                         f"the collision-free {brief(free)}, bias > 0",
                         ordered and results[s][2],
                         {"law_matches_spec": results[s][2]}) for s in rows]
    if full:
        want = Fraction(4885473556, 1513671875)
        got = ex.e1_mae(Fraction(1, 5), Fraction(1, 3), 30, 10, Fraction(0), unary_estimate)
        certs.append(Certificate(CLAIM_E1 + ": no collisions", "ALP estimator "
                                 "(implementation's unary_estimate)", {"beta": 30, "m": 10},
                                 "x uniform on [0, 30]", got, f"== {want}", got == want))
    return ClaimReport(CLAIM_E1, f"beta = 15, k = 2, s in {rows} (Carter-Wegman)",
                       "MAE " + ", ".join(f"{brief(a, 4)}" for a in maes) + " (last: no "
                       "collisions)", "decreasing in s; law == specification", certs)


check.CLAIM = CLAIM  # type: ignore[attr-defined]
check_e1.CLAIM = CLAIM_E1  # type: ignore[attr-defined]
CHECKS = [check, check_e1]
