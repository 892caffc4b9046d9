"""The discrete Gaussian noise TABLE is the
mechanism; its exact delta(R) at shift Delta equals the CKS Theorem 7 tail formula evaluated
on the table's own pmf, and the implementation's explored release agrees."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import hockey_stick
from exactdp.explore import explore
from exactdp.noise_tables import delta_1d, discrete_gaussian_table
from exactdp.proofs.li_li._proj import cert

CLAIM = "Li & Li: discrete Gaussian table delta(R) = CKS Thm 7 tail sum on the table's pmf"
STATEMENT = """For the table Pr[Z = z] proportional to q^(z^2) on [-T, T] (q in (0,1) rational) and a
shift Delta > 0, the privacy loss ln P(y)/P(y - Delta) decreases in y, so the hockey stick
sum_y max(0, P(y) - R P(y - Delta)) is P[Z <= y*] - R P[Z <= y* - Delta] with y* the largest
y where P(y) > R P(y - Delta) (the tail form of Canonne-Kamath-Steinke Thm 7, here with the
truncation: y < Delta - T has P(y - Delta) = 0)."""
PROOF_IDEA = """The release x + Z of the implementation's NoiseTable explored at x = 0 and x = Delta; the
checker's hockey stick of the two laws, the implementation's delta_1d and the tail formula
(y* found by exact integer comparisons on the closed-form weights q^(z^2), computed here)
must all agree, for q in {1/2, 2/3, 9/10}, T in {2, 4}, Delta in {1, 2}, R in {1, 3/2, 3}."""

QS = (Fraction(1, 2), Fraction(2, 3), Fraction(9, 10))
RATIOS = (Fraction(1), Fraction(3, 2), Fraction(3))


def tail_formula(q: Fraction, t: int, shift: int, ratio: Fraction) -> Fraction:
    w = {z: q ** (z * z) for z in range(-t, t + 1)}
    total = sum(w.values(), Fraction(0))

    def pmf(z: int) -> Fraction:
        return w.get(z, Fraction(0)) / total

    ys = [y for y in range(-t, t + shift + 1) if pmf(y) > ratio * pmf(y - shift)]
    y_star = max(ys) if ys else -t - 1
    cdf = sum((pmf(z) for z in range(-t, y_star + 1)), Fraction(0))
    cdf_shift = sum((pmf(z) for z in range(-t, y_star - shift + 1)), Fraction(0))
    return cdf - ratio * cdf_shift


def case_certificate(q: Fraction, t: int, shift: int) -> Certificate:
    table = discrete_gaussian_table(q, t)
    p = explore(lambda src: table.add(0, src))
    p2 = explore(lambda src: table.add(shift, src))
    vals = {}
    ok = True
    for r in RATIOS:
        explored, impl, tail = hockey_stick(p, p2, r), delta_1d(table, shift, r), \
            tail_formula(q, t, shift, r)
        vals[r] = explored
        ok = ok and explored == impl == tail
    return cert(f"{CLAIM} (q = {q}, T = {t}, Delta = {shift})",
                f"discrete_gaussian_table({q}, {t}).add", {"q": q, "T": t, "Delta": shift},
                f"R in {[str(r) for r in RATIOS]}", vals[Fraction(3, 2)],
                "explored = delta_1d = CKS tail form", ok, {"delta_by_R": vals})


def check(full: bool) -> ClaimReport:
    ts = (2, 4) if full else (2,)
    certs = [case_certificate(q, t, d) for q in QS for t in ts for d in (1, 2)]
    return ClaimReport(CLAIM, f"q in {{1/2, 2/3, 9/10}}, T in {ts}, Delta in {{1, 2}}",
                       f"delta(3/2) at q = 1/2, T = 2, Delta = 1: {certs[0].worst}",
                       "three computations equal", certs)
