"""ALP ALP-full Lemma 4.15 (error tail), as reconstructed."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.alp._alp import estimate_law
from exactdp.sparse_vectors import exact as ex

CLAIM = "ALP Lemma 4.15 (tail, reconstructed)"
STATEMENT = """ALP-full Lemma 4.15 lost its right-hand side in extraction; the surviving piece
(4pq)^{(tau eps/2 alpha) - 1/2} is consistent with the reconstruction tested here: with no
collisions, for every y <= m and t > 0 (y-units), Pr[|y~ - y| >= t] <= (2/(q-p)) (4pq)^ceil(t/2)."""
PROOF_IDEA = """The walk's returns to its maximum happen at even distances, hence ceil(t/2).
Check: the exact law of y~ - y from the implementation (explored, as in the Equation 1 row),
every y <= m <= 5 (quick) / 7 (full), t in {1/2, 1, 3/2, ..., m + 1/2}, p in {1/3, 1/5, 2/5, 1/10, 1/20}:
the worst ratio Pr / bound must be <= 1.  Note: 2/(q-p) (4pq)^ceil(t/2) >= 1 (vacuous) for
p = 1/3 until t > 30 and for p = 1/5 until t > 4; p = 1/10 and 1/20 (alpha = 8, 18) make
it bite at every t.  A point (m, y, t) is non-trivial when the bound is below 1 and
t <= max(y, m - y) (else Pr is 0); their number is printed and must be > 0."""


def check(full: bool) -> ClaimReport:
    certs = []
    top = 7 if full else 5
    bites_all = points_all = 0
    for p in (Fraction(1, 3), Fraction(1, 5), Fraction(2, 5), Fraction(1, 10),
              Fraction(1, 20)):
        worst, arg, bites, points = Fraction(0), None, 0, 0
        for m in range(1, top + 1):
            for y in range(m + 1):
                law = estimate_law(p, m, y)
                for t2 in range(1, 2 * m + 2):
                    t = Fraction(t2, 2)
                    pr = sum((w for e, w in law.items() if abs(e) >= t), Fraction(0))
                    bound = ex.tail_bound(p, t)
                    points += 1
                    bites += bound < 1 and t <= max(y, m - y)   # else the bound is trivial
                    r = pr / bound
                    if r > worst:
                        worst, arg = r, {"m": m, "y": y, "t": t, "probability": pr}
        bites_all += bites
        points_all += points
        certs.append(Certificate(CLAIM, "ALP estimator (implementation, explored)", {"p": p},
                                 f"y <= m <= {top}, t = 1/2 .. m + 1/2", worst,
                                 "Pr[|y~-y| >= t] / ((2/(q-p)) (4pq)^ceil(t/2)) <= 1; "
                                 f"{bites} of {points} bounds non-trivial",
                                 worst <= 1, {"attained_at": arg, "non_trivial": bites}))
    certs.append(Certificate(CLAIM + ": non-trivial points", "the grid above", {},
                             f"y <= m <= {top}", bites_all,
                             "> 0 bounds below 1 at t <= max(y, m - y)", bites_all > 0))
    return ClaimReport(CLAIM, f"p in 1/3, 1/5, 2/5, 1/10, 1/20; y <= m <= {top}; half-integer t",
                       "max Pr/bound " + ", ".join(brief(Fraction(c.worst)) for c in certs[:-1])  # type: ignore[arg-type]
                       + f"; {bites_all} of {points_all} bounds non-trivial",
                       "<= 1", certs)
