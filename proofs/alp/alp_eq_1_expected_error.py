"""ALP Equation 1 (ALP-full §4.3): the expected error of the unary estimator, exactly, from the
implementation; and the exact MAE fractions of the Figure 3 setting."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.alp._alp import estimate_law
from exactdp.sparse_vectors import exact as ex
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
y <= m <= 5 (quick) / 7 (full) and p in {1/3, 1/5, 2/5}, with the T6 fractions, and with the
independent enumeration of exactdp.sparse_vectors.exact (which must agree exactly)."""

CLAIM_E1 = "ALP E1-exact MAE"
STATEMENT_E1 = """The Figure 3 setting, exactly (eps = 1, alpha = 3: c = 1/3, p = 1/5; x uniform on
the integers
[0, beta]; x~ = y~/c): beta = 15, m = 5, collision probability 1/10: MAE 3412933017/1250000000;
beta = 30, m = 10: 727237725275516121/189208984375000000 (collisions 1/10) and
4885473556/1513671875 (none).  ASSUMPTION (the collision model, not the
implementation's hashing): a collision ORs every zero-region bit with an independent
Bernoulli(p_c) before randomized response."""
PROOF_IDEA_E1 = """Enumerate the 2^m column patterns with their exact weights under the model, estimate
each with the IMPLEMENTATION's unary_estimate, average |x~ - x| over x and the RandRound
coin.  Quick: beta = 15; full: also both beta = 30 rows."""

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
    for p in (Fraction(1, 3), Fraction(1, 5), Fraction(2, 5)):
        bound = ex.eq1_bound(p)
        worst, arg, agree = Fraction(0), (0, 0), True
        for m in range(1, top + 1):
            for y in range(m + 1):
                mae, bias = _moments(p, m, y)
                agree &= (mae, bias) == ex.expected_error(p, m, y)
                if mae > worst:
                    worst, arg = mae, (m, y)
        certs.append(Certificate(CLAIM, "ALP estimator (implementation, explored)",
                                 {"p": p}, f"y <= m <= {top}", worst,
                                 f"<= 8pq/(q-p)^2 = {bound}; = independent enumeration",
                                 worst <= bound and agree, {"attained_at_m_y": arg}))
    for (p, m, y), mae_want, bias_want in T6:
        mae, bias = _moments(p, m, y)
        ok = mae == mae_want and (bias_want is None or bias == bias_want)
        certs.append(Certificate(CLAIM + ": estimator law", "ALP estimator (implementation)",
                                 {"p": p, "m": m, "y": y}, "exact law", mae,
                                 f"== {mae_want}" + ("" if bias_want is None else
                                                     f", bias == {bias_want}"), ok,
                                 {"bias": bias}))
    return ClaimReport(CLAIM, f"p in 1/3, 1/5, 2/5; y <= m <= {top}",
                       "max E|y~-y| " + ", ".join(brief(Fraction(c.worst)) for c in certs[:3]),  # type: ignore[arg-type]
                       "<= 8pq/(q-p)^2 = " + ", ".join(
                           str(ex.eq1_bound(Fraction(c.parameters["p"])))
                           for c in certs[:3]) + "; T6 exact", certs)


def check_e1(full: bool) -> ClaimReport:
    rows = [(15, 5, Fraction(1, 10), Fraction(3412933017, 1250000000))]
    if full:
        rows += [(30, 10, Fraction(1, 10), Fraction(727237725275516121, 189208984375000000)),
                 (30, 10, Fraction(0), Fraction(4885473556, 1513671875))]
    certs = []
    for beta, m, pc, want in rows:
        got = ex.e1_mae(Fraction(1, 5), Fraction(1, 3), beta, m, pc, unary_estimate)
        certs.append(Certificate(CLAIM_E1, "ALP estimator (implementation's unary_estimate)",
                                 {"beta": beta, "m": m, "p_c": pc, "p": Fraction(1, 5)},
                                 "x uniform on [0, beta], all 2^m patterns", got,
                                 f"== {want}", got == want))
    return ClaimReport(CLAIM_E1, f"beta = 15{', 30 (p_c = 1/10, 0)' if full else ''}",
                       ", ".join(brief(Fraction(c.worst)) for c in certs),  # type: ignore[arg-type]
                       "== hand-derived fractions", certs)


check.CLAIM = CLAIM  # type: ignore[attr-defined]
check_e1.CLAIM = CLAIM_E1  # type: ignore[attr-defined]
CHECKS = [check, check_e1]
