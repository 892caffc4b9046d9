"""Eq. (23) and the normalised-data variances before it (Section 3.6): the ratio
R = Var(g_org) / Var(g_rp) of the inner-product estimates on noisy raw data (Theorem 3.8) and
on noisy random projections (Theorem 3.9; Theorem 3.10 for DP-OPORP), checked on the exact
variances of the implementation's releases.  Eq. (23) is exact when rho^2 = 2 sum u_i^2 v_i^2
and otherwise off by the relative amount (c - 1)/(1 + k sigma^2)^2, c = 1 + rho^2 -
2 sum u_i^2 v_i^2, which is at most 1/(1 + k sigma^2)^2 in size."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from exactdp.certificate import ClaimReport
from exactdp.explore import explore
from exactdp.noise_tables import NoiseTable, discrete_gaussian_table
from exactdp.projections.matrices import OPORPPlan, sample_rademacher
from exactdp.projections.rp import DPOPORP, DPRP, RawData
from exactdp.proofs.li_li._proj import cert
from exactdp.proofs.li_li.proj_claim_17_variances import _mixture, noise_variance

CLAIM = "Li & Li eq. 23: R = Var_org/Var_rp = (2s^2 + p s^4)/(2s^2 + k s^4 + 1/k) on normalised data"
STATEMENT = """Section 3.6, normalised data (||u|| = ||v|| = 1, rho = <u, v>), the same noise standard
deviation sigma on every released coordinate of the raw data and of the scaled projections
W^T u/sqrt(k):  Var(g_org) = 2 sigma^2 + p sigma^4,  Var(g_rp) = 2 sigma^2 + k sigma^4 +
(1/k)(1 + rho^2 - 2 sum u_i^2 v_i^2),  Var(g_oporp) = the same with the last term times
(p - k)/(p - 1), and eq. (23) R = (2 sigma^2 + p sigma^4)/(2 sigma^2 + k sigma^4 + 1/k) ~ p/k
for large p or sigma.  Checked: the first three are exact; eq. (23) is exact when rho^2 =
2 sum u_i^2 v_i^2 and otherwise R(23)/R - 1 = (c - 1)/(1 + k sigma^2)^2 with c = 1 + rho^2 -
2 sum u_i^2 v_i^2 in [0, 2], so |R(23)/R - 1| <= 1/(1 + k sigma^2)^2; and R < p/k (the limit
is approached from below)."""
PROOF_IDEA = """Integer data u, v with sum u_i^2 = sum v_i^2 = C^2 stand for the normalised u/C, v/C.  The
raw baseline (RawData) adds a noise table of variance s^2 to each coordinate: sigma^2 =
s^2/C^2.  DP-RP (DPRP, ±1 W from sample_rademacher, explored) releases the unscaled W^T u
plus the k-fold convolution of that table (variance k s^2), i.e. noise of variance s^2 on the
scaled projections: the same sigma.  DP-OPORP (DPOPORP, plan from OPORPPlan.sample, explored)
bins without scaling and adds the table itself.  The estimators are g_org = sum (u_i + a_i)
(v_i + b_i), g_rp = (1/k) sum x_j y_j and g_oporp = sum x_j y_j (integer units, C^2 times the
normalised estimate); their exact variances come from the explored joint law of the
projection and the noise draws, divided by C^4.  Grid: p = 4, C = 2, k = 2, two-point tables
±m (sigma^2 = 1/4 and 4), a pair with c = 1 (eq. 23 exact) and one with c = 1/2 (eq. 23 an
approximation); full: also k = 1, sigma^2 = 1, a pair with c = 3/2 and a discrete Gaussian
table.  The row prints how many grid points are non-trivial: where eq. (23) is only an
approximation, and where R < 1 (raw data better)."""

NOT_EXERCISABLE = {
    "eq. (23) at the paper's p = 1000, 10000 (Figure 3)": "the exact variances need the law "
    "of W, 2^(p k) matrices; the identity checked here is Figure 3's formula itself",
}

P, C = 4, 2
PAIRS = (((2, 0, 0, 0), (0, 2, 0, 0)),   # rho = 0, sum u^2 v^2 = 0: c = 1
         ((1, 1, 1, 1), (1, 1, -1, -1)),  # rho = 0, sum u^2 v^2 = 1/4: c = 1/2
         ((1, 1, 1, 1), (1, 1, 1, 1)))    # rho = 1, sum u^2 v^2 = 1/4: c = 3/2


def two_point(m: int) -> NoiseTable:
    """Noise ±m, each with probability 1/2 (variance m^2)."""
    return NoiseTable((1,) + (0,) * (2 * m - 1) + (1,), -m)


def convolved(table: NoiseTable, k: int) -> NoiseTable:
    """The law of the sum of ``k`` independent draws of ``table`` (integer weights)."""
    weights: tuple[int, ...] = (1,)
    offset = 0
    for _ in range(k):
        out = [0] * (len(weights) + len(table.weights) - 1)
        for i, a in enumerate(weights):
            if a:
                for j, b in enumerate(table.weights):
                    out[i + j] += a * b
        weights, offset = tuple(out), offset + table.offset
    return NoiseTable(weights, offset)


def c_term(u: tuple[int, ...], v: tuple[int, ...]) -> Fraction:
    """``c = ||u||^2 ||v||^2 + rho^2 - 2 sum u_i^2 v_i^2`` on the normalised ``u/C, v/C``."""
    su2 = Fraction(sum(a * a for a in u), C * C)
    sv2 = Fraction(sum(b * b for b in v), C * C)
    rho = Fraction(sum(a * b for a, b in zip(u, v)), C * C)
    return su2 * sv2 + rho * rho - 2 * sum((Fraction(a * a * b * b, C**4)
                                           for a, b in zip(u, v)), Fraction(0))


def eq23_ratio(p: int, k: int, s2: Fraction) -> Fraction:
    """Eq. (23): ``(2 sigma^2 + p sigma^4) / (2 sigma^2 + k sigma^4 + 1/k)``."""
    return (2 * s2 + p * s2 * s2) / (2 * s2 + k * s2 * s2 + Fraction(1, k))


def implemented_variances(u: tuple[int, ...], v: tuple[int, ...], k: int, table: NoiseTable,
                          oporp: bool) -> tuple[Fraction, Fraction, Fraction | None]:
    """Exact ``Var(g_org)``, ``Var(g_rp)`` and (if ``oporp``) ``Var(g_oporp)`` of the
    implementation's releases, normalised (divided by ``C^4``)."""
    scale = Fraction(1, C**4)
    _, var_org = _mixture({None: Fraction(1)}, lambda _: RawData(P, 1, table), u, v,
                          Fraction(1))
    rp_noise = convolved(table, k)
    family = explore(lambda src: sample_rademacher(P, k, src))
    _, var_rp = _mixture(family, lambda W: DPRP(W, 1, rp_noise), u, v, Fraction(1, k))
    var_op = None
    if oporp:
        plans = explore(lambda src: OPORPPlan.sample(P, k, src))
        _, var_op = _mixture(plans, lambda plan: DPOPORP(plan, 1, table), u, v, Fraction(1))
        var_op *= scale
    return var_org * scale, var_rp * scale, var_op


def point(u: tuple[int, ...], v: tuple[int, ...], k: int, table: NoiseTable, oporp: bool
          ) -> dict[str, Any]:
    """One grid point: the implementation's variances and ratio against the paper's forms."""
    s2 = noise_variance(table) / (C * C)
    c = c_term(u, v)
    var_org, var_rp, var_op = implemented_variances(u, v, k, table, oporp)
    ratio = var_org / var_rp
    paper = eq23_ratio(P, k, s2)
    err = paper / ratio - 1
    bound = 1 / (1 + k * s2) ** 2
    checks = {
        "Var_org = 2s^2 + p s^4": var_org == 2 * s2 + P * s2 * s2,
        "Var_rp = 2s^2 + k s^4 + c/k": var_rp == 2 * s2 + k * s2 * s2 + c / k,
        "error = (c - 1)/(1 + k s^2)^2": err == (c - 1) * bound,
        "|error| <= 1/(1 + k s^2)^2": abs(err) <= bound,
        "eq. 23 exact when c = 1": (err == 0) == (c == 1),
        "R < p/k": ratio < Fraction(P, k),
    }
    if var_op is not None:
        checks["Var_oporp = ... (p-k)/(p-1) c/k"] = var_op == (
            2 * s2 + k * s2 * s2 + Fraction(P - k, P - 1) * c / k)
    return {"u": u, "v": v, "k": k, "sigma2": s2, "c": c, "R": ratio, "R23": paper,
            "error": err, "bound": bound, "failed": [n for n, ok in checks.items() if not ok]}


def grid(full: bool) -> list[tuple[Any, ...]]:
    tables = [two_point(1), two_point(4)]
    pairs: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = PAIRS[:2]
    ks: tuple[int, ...] = (2,)
    if full:
        tables += [two_point(2), discrete_gaussian_table(Fraction(1, 2), 1)]
        pairs, ks = PAIRS, (1, 2)
    return [(u, v, k, t, full or t is tables[0]) for u, v in pairs for k in ks for t in tables]


def check(full: bool) -> ClaimReport:
    points = [point(*g) for g in grid(full)]
    bad = [pt for pt in points if pt["failed"]]
    approx = [pt for pt in points if pt["c"] != 1]
    below_one = [pt for pt in points if pt["R"] < 1]
    worst = max(points, key=lambda pt: abs(pt["error"]))
    nontrivial = f"{len(approx)} of {len(points)} points eq. 23 approximate, " \
                 f"{len(below_one)} with R < 1"
    witness = {"points": [(str(pt["u"]), str(pt["v"]), pt["k"], str(pt["sigma2"]),
                           str(pt["R"]), str(pt["R23"]), str(pt["error"])) for pt in points],
               "failing": [(str(pt["u"]), str(pt["v"]), pt["k"], str(pt["sigma2"]),
                            pt["failed"]) for pt in bad][:3]}
    certs = [cert(CLAIM, "RawData / DPRP / DPOPORP explored, estimators' exact variances",
                  {"p": P, "C": C}, f"{len(points)} (u, v, k, sigma) points", worst["error"],
                  "Var forms exact; eq. 23 exact iff c = 1, else error (c-1)/(1+k s^2)^2; "
                  "R < p/k", not bad and bool(approx) and bool(below_one), witness,
                  nontrivial)]
    return ClaimReport(CLAIM, f"p = {P}, k in {{{', '.join(str(k) for k in sorted({pt['k'] for pt in points}))}}}, "
                       f"sigma^2 in {{{', '.join(sorted({str(pt['sigma2']) for pt in points}))}}}; "
                       + nontrivial,
                       f"largest |R(23)/R - 1| = {abs(worst['error'])} (c = {worst['c']}, "
                       f"sigma^2 = {worst['sigma2']}, k = {worst['k']})",
                       "exact when c = 1; else (c-1)/(1+k sigma^2)^2; R < p/k", certs)
