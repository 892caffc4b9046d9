"""DP-RP itself (the exact stand-in for Algorithms
2 and 3): for every ±1 W, the implementation's release W^T u + Z has exactly the privacy of
its noise at the sensitivity: the k-fold table's delta at shift beta (±1,...,±1) with a
discrete Gaussian table, ratio <= r^(-Delta_1) with Delta_1 = beta k with a folded discrete
Laplace."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import hockey_stick
from exactdp.neighbours import vectors
from exactdp.noise_tables import discrete_gaussian_table, discrete_laplace_folded
from exactdp.projections.rp import DPRP
from exactdp.proofs.li_li._proj import cert, laws_of, report

CLAIM = "Li & Li Algs 2/3 (DP-RP, ±1 W): delta = k-fold table delta; Laplace ratio <= r^-(beta k)"
STATEMENT = """Algorithm 3 (±1 W, Gaussian noise calibrated to Delta_2 = beta sqrt(k) unscaled) and
Algorithm 2 (Laplace noise at Delta_1 = beta max_i ||W_i||_1 = beta k): a one-coordinate
neighbour moves every projection by exactly ±d, |d| <= beta, so the release is exactly as
private as the noise at that shift: with a discrete Gaussian table on each coordinate, the
worst delta(R) over pairs equals the k-fold product table's delta at the shift beta (1,...,1)
(every sign pattern gives the same value by symmetry); with a folded discrete Laplace of
ratio r, the worst ratio is at most r^(-Delta_1)."""
PROOF_IDEA = """For every W in {-1,1}^(2 x 2) (16 matrices; full: also p = 2, k = 3, 64 matrices), DPRP(W,
1, noise).sample explored at every point of {-1..1}^2.  Gaussian part (table q = 1/2, T = 2):
the checker's worst delta(R) over ordered pairs, R in {3/2, 2}, must equal the hockey stick of
the k-fold product of the table's closed-form pmf (weights q^(z^2)) against its shift by
(1,...,1), computed here.  Laplace part (folded, r = 1/2, M = 9): the worst ratio must be <=
r^(-DPRP.l1_sensitivity) and that sensitivity must be beta k.  Uniform entries: for all 81 W in
{-1..1}^(2 x 2) the worst delta(3/2) must equal the product table's delta over
DPRP.l2_sensitivity_sq coordinates (0 for W = 0)."""

RATIOS = (Fraction(3, 2), Fraction(2))
TABLE_Q, TABLE_T = Fraction(1, 2), 2
LAPLACE_R, LAPLACE_M = Fraction(1, 2), 9


def product_delta(k: int, ratio: Fraction) -> Fraction:
    weights = {z: TABLE_Q ** (z * z) for z in range(-TABLE_T, TABLE_T + 1)}
    total = sum(weights.values(), Fraction(0))
    pmf = {z: w / total for z, w in weights.items()}
    p: dict[tuple[int, ...], Fraction] = {}
    for zs in product(pmf, repeat=k):
        pr = Fraction(1)
        for z in zs:
            pr *= pmf[z]
        p[zs] = pr
    q = {tuple(z + 1 for z in zs): pr for zs, pr in p.items()}
    return hockey_stick(p, q, ratio)


def matrices(p: int, k: int) -> list[tuple[tuple[int, ...], ...]]:
    return [tuple(rows) for rows in product(product((-1, 1), repeat=k), repeat=p)]


def gaussian_certificate(p: int, k: int) -> Certificate:
    table = discrete_gaussian_table(TABLE_Q, TABLE_T)
    rel = vectors(p, -1, 1, 1)
    want = {r: product_delta(k, r) for r in RATIOS}
    bad = []
    for W in matrices(p, k):
        laws = laws_of(DPRP(W, 1, table), rel.points)
        for r in RATIOS:
            rep = report(laws, rel, r)
            if rep.delta is None or rep.delta.delta != want[r]:
                bad.append((W, str(r), None if rep.delta is None else rep.delta.delta))
    return cert(f"{CLAIM} (Gaussian table, p = {p}, k = {k})",
                "DPRP(W, 1, discrete_gaussian_table(1/2, 2))", {"R": list(RATIOS), "k": k},
                f"every W in {{-1,1}}^({p} x {k}) x ordered pairs of {rel.name}",
                want[Fraction(3, 2)], "= the k-fold product table's delta at shift (1,...,1)",
                not bad, {"delta_by_R": want, "mismatches": bad[:3]})


def uniform_certificate() -> Certificate:
    """Every W in {-1..1}^(2 x 2) (the uniform-entry matrices at m = 1, zero rows included):
    the worst delta equals the product table's delta over l2_sensitivity_sq(W) coordinates
    (a neighbour shifts the release by a row of W; entries in {-1, 0, 1})."""
    table = discrete_gaussian_table(TABLE_Q, TABLE_T)
    rel = vectors(2, -1, 1, 1)
    ratio = Fraction(3, 2)
    bad, seen = [], set()
    for W in product(product((-1, 0, 1), repeat=2), repeat=2):
        mech = DPRP(W, 1, table)
        n = mech.l2_sensitivity_sq
        rep = report(laws_of(mech, rel.points), rel, ratio)
        got = Fraction(0) if rep.delta is None else rep.delta.delta
        seen.add(n)
        if got != (product_delta(n, ratio) if n else Fraction(0)):
            bad.append((W, n, got))
    return cert(f"{CLAIM} (uniform entries in {{-1..1}}, p = k = 2)",
                "DPRP(W, 1, discrete_gaussian_table(1/2, 2))", {"R": ratio},
                f"all 81 W x ordered pairs of {rel.name}", product_delta(2, ratio),
                "= the product table's delta over Delta_2^2 = l2_sensitivity_sq(W) coordinates",
                not bad and seen == {0, 1, 2}, {"mismatches": bad[:3],
                                                "sensitivities_seen": sorted(seen)})


def laplace_certificate(p: int, k: int) -> Certificate:
    noise = discrete_laplace_folded(LAPLACE_R, LAPLACE_M)
    rel = vectors(p, -1, 1, 1)
    bad, worst = [], Fraction(0)
    for W in matrices(p, k):
        mech = DPRP(W, 1, noise)
        delta_1 = mech.l1_sensitivity
        rep = report(laws_of(mech, rel.points), rel)
        bound = (1 / LAPLACE_R) ** delta_1
        if delta_1 != k or not rep.pure(bound):
            bad.append((W, delta_1, rep.worst.ratio))
        elif rep.worst.ratio is not None:
            worst = max(worst, rep.worst.ratio)
    return cert(f"{CLAIM} (folded Laplace, p = {p}, k = {k})",
                f"DPRP(W, 1, discrete_laplace_folded(1/2, {LAPLACE_M}))", {"r": LAPLACE_R, "k": k},
                f"every W in {{-1,1}}^({p} x {k}) x ordered pairs of {rel.name}", worst,
                f"<= r^(-beta k) = {(1 / LAPLACE_R) ** k}", not bad, {"failing": bad[:3]})


def check(full: bool) -> ClaimReport:
    shapes = [(2, 2), (2, 3)] if full else [(2, 2)]
    certs = [gaussian_certificate(p, k) for p, k in shapes]
    certs += [laplace_certificate(p, k) for p, k in shapes]
    certs.append(uniform_certificate())
    return ClaimReport(CLAIM, "every ±1 W of " + ", ".join(f"{p} x {k}" for p, k in shapes)
                       + ", {-1..1}^p", f"delta(3/2) = {brief(certs[0].worst)}; Laplace worst "
                       f"ratio {brief(certs[len(shapes)].worst)}",
                       "= k-fold table delta; <= r^(-beta k)", certs)
