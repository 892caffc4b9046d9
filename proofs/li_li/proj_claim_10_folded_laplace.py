"""The discrete Laplace folded modulo M is pure DP with
ratio max_z q(z)/q(z + Delta mod M) < r^-Delta; the unfolded law attains r^-Delta."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import worst_ratio
from exactdp.explore import explore
from exactdp.noise_tables import discrete_laplace_folded, max_ratio_1d
from exactdp.proofs.li_li._proj import cert

CLAIM = "Folded discrete Laplace mod M: ratio max q(z)/q(z+D) < r^-D (1025/514, 205/52)"
STATEMENT = """Pr[Z = z] proportional to r^z + r^(M-z) on Z_M (the two-sided geometric folded mod M).
For a shift Delta the worst ratio Pr[x + Z = y]/Pr[x + Delta + Z = y] is
max_z q(z)/q(z - Delta mod M), strictly below r^-Delta (folding is post-processing of the
unfolded law, whose ratio is exactly r^-Delta).  Notes: r = 1/2, M = 10: Delta = 1 -> 1025/514
< 2, Delta = 2 -> 205/52 < 4."""
PROOF_IDEA = """The implementation's folded NoiseTable.add explored at x = 0 and x = Delta; the checker's
worst ratio (both directions) must equal max_ratio_1d, the maximum computed here from the
closed-form weights r^z + r^(M-z), and the hand-derived values; it must be < r^-Delta, while the
unfolded closed form q(z)/q(z + Delta) = r^(|z| - |z + Delta|) is r^-Delta for every z >= 0."""

NOTES = {(Fraction(1, 2), 10, 1): Fraction(1025, 514), (Fraction(1, 2), 10, 2): Fraction(205, 52)}


def closed_ratio(r: Fraction, m: int, shift: int) -> Fraction:
    q = [r ** z + r ** (m - z) for z in range(m)]
    return max(max(q[y] / q[(y - shift) % m], q[(y - shift) % m] / q[y]) for y in range(m))


def case_certificate(r: Fraction, m: int, shift: int) -> Certificate:
    table = discrete_laplace_folded(r, m)
    p = explore(lambda src: table.add(0, src))
    p2 = explore(lambda src: table.add(shift, src))
    w = worst_ratio([(0, p, shift, p2), (shift, p2, 0, p)])
    closed = closed_ratio(r, m, shift)
    impl = max_ratio_1d(table, shift)
    unfolded = max(r ** (abs(z) - abs(z + shift)) for z in range(-m, m))
    notes = NOTES.get((r, m, shift))
    ok = (w.ratio == closed == impl and closed < r ** -shift == unfolded
          and (notes is None or closed == notes))
    return cert(f"{CLAIM} (r = {r}, M = {m}, Delta = {shift})",
                f"discrete_laplace_folded({r}, {m}).add", {"r": r, "M": m, "Delta": shift},
                f"x = 0 vs x = {shift}, both directions, all {m} outputs", w.ratio,
                f"= max_ratio_1d = closed form < r^-Delta = {r ** -shift}"
                + ("" if notes is None else f"; = hand-derived {notes}"), ok,
                {"ratio_witness": w.to_json(), "unfolded": unfolded})


def check(full: bool) -> ClaimReport:
    cases = [(Fraction(1, 2), 10, 1), (Fraction(1, 2), 10, 2), (Fraction(2, 3), 7, 1)]
    if full:
        cases += [(r, m, d) for r in (Fraction(1, 3), Fraction(3, 4)) for m in (5, 12)
                  for d in (1, 2, 3)]
    certs = [case_certificate(*c) for c in cases]
    return ClaimReport(CLAIM, f"{len(cases)} (r, M, Delta) cases",
                       "ratios " + ", ".join(str(c.worst) for c in certs[:3]),
                       "1025/514 < 2, 205/52 < 4 (notes); all < r^-Delta", certs)
