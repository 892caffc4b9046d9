"""Li & Li eq. (12)-(13), Algorithms 3 and 5, Theorem 3.8 baseline:
with ±1 W the squared l2 sensitivity is exactly beta^2 k; DP-OPORP and the raw-data baseline
move one coordinate by at most beta, so their delta over pairs is the 1-D table delta at
shift beta."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import hockey_stick
from exactdp.neighbours import vectors
from exactdp.noise_tables import delta_1d, discrete_gaussian_table
from exactdp.projections import exact as ex
from exactdp.projections.matrices import l2_sensitivity_sq
from exactdp.projections.rp import DPOPORP, RawData
from exactdp.proofs.li_li._proj import NOTES_PLAN, cert, laws_of, report

CLAIM = "Li & Li eq. 13 / Alg 5: Delta_2^2 = beta^2 k (±1 W); OPORP/raw delta = 1-D delta"
STATEMENT = """For every W in {-1,1}^{p x k}: max over one-coordinate beta-neighbours of ||W^T(u - u')||_2^2
is beta^2 k (Rademacher Delta_2 = beta, eq. 13 without 1/sqrt(k)).  DP-OPORP (Alg 5) and
the raw-data baseline (Thm 3.8) with an integer noise table: a neighbour moves one output
coordinate by d, |d| <= beta, so the pair's delta(R) is the table's 1-D delta at shift d,
largest at |d| = beta."""
PROOF_IDEA = """Sensitivity: for every W of p = 2, k = 3 (64 matrices; full: p = 3, k = 2 too) the max of
||W^T(u - u')||^2 over all one-coordinate pairs of {-1..1}^p, computed here by brute force,
must equal beta^2 k and the implementation's l2_sensitivity_sq.  Delta: the implementation's
DPOPORP (reference plan) and RawData (p = 2) with a discrete Gaussian table (q = 1/2, T = 2)
explored at every point of {-1..1}^p; the worst hockey stick over ordered pairs at
R in {1, 3/2, 2} must equal delta_1d(table, beta, R) and the hockey stick of the table's
closed-form pmf (weights q^(z^2)) against its shift by beta."""

TABLE_Q, TABLE_T = Fraction(1, 2), 2
RATIOS = (Fraction(1), Fraction(3, 2), Fraction(2))


def sensitivity_certificate(p: int, k: int, beta: int) -> Certificate:
    rel = vectors(p, -1, 1, beta)
    bad = []
    for rows in product(product((-1, 1), repeat=k), repeat=p):
        brute = max(sum((a - b) ** 2 for a, b in zip(ex.projections(u, rows),
                                                      ex.projections(v, rows)))
                    for u, v in rel.ordered_pairs())
        if not brute == beta * beta * k == l2_sensitivity_sq(rows, beta):
            bad.append((rows, brute))
    return cert(f"{CLAIM} (Delta_2^2, p = {p}, k = {k}, beta = {beta})",
                "l2_sensitivity_sq(W, beta) and brute force", {"p": p, "k": k, "beta": beta},
                f"all {2 ** (p * k)} W x {rel.name}", beta * beta * k,
                f"= beta^2 k = {beta * beta * k} for every W", not bad, {"mismatches": bad[:2]})


def closed_delta(beta: int, ratio: Fraction) -> Fraction:
    weights = {z: TABLE_Q ** (z * z) for z in range(-TABLE_T, TABLE_T + 1)}
    total = sum(weights.values(), Fraction(0))
    p = {z: w / total for z, w in weights.items()}
    q = {z + beta: w for z, w in p.items()}
    return hockey_stick(p, q, ratio)


def delta_certificate(kind: str, beta: int) -> Certificate:
    table = discrete_gaussian_table(TABLE_Q, TABLE_T)
    if kind == "DPOPORP":
        mech: DPOPORP | RawData = DPOPORP(NOTES_PLAN, beta, table)
        p = NOTES_PLAN.p
    else:
        mech, p = RawData(2, beta, table), 2
    rel = vectors(p, -1, 1, beta)
    laws = laws_of(mech, rel.points)
    got, want = {}, {}
    for r in RATIOS:
        rep = report(laws, rel, r)
        assert rep.delta is not None
        got[r] = rep.delta.delta
        want[r] = delta_1d(table, beta, r)
    ok = all(got[r] == want[r] == closed_delta(beta, r) for r in RATIOS)
    return cert(f"{CLAIM} ({kind}, beta = {beta})",
                f"{kind}(beta={beta}, discrete_gaussian_table(1/2, 2))",
                {"beta": beta, "R": list(RATIOS)}, f"ordered pairs of {rel.name}",
                got[Fraction(3, 2)], "= delta_1d(table, beta, R) = closed-form 1-D delta",
                ok, {"delta_by_R": got})


def check(full: bool) -> ClaimReport:
    certs = [sensitivity_certificate(2, 3, 1)]
    if full:
        certs += [sensitivity_certificate(3, 2, 1), sensitivity_certificate(2, 2, 2)]
    certs += [delta_certificate(kind, 1) for kind in ("DPOPORP", "RawData")]
    if full:
        certs += [delta_certificate(kind, 2) for kind in ("DPOPORP", "RawData")]
    return ClaimReport(CLAIM, "±1 W p = 2, k = 3 (full: more); DPOPORP/RawData, table q = 1/2, "
                       "T = 2, {-1..1}^p", f"delta(3/2) = {certs[-1].worst}",
                       "Delta_2^2 = beta^2 k; delta = 1-D delta at shift beta", certs)
