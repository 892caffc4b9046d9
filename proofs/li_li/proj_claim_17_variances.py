"""Theorems 3.8, 3.9 and 3.10: the inner-product
estimators of the raw-data baseline, DP-RP with ±1 W and DP-OPORP are unbiased with the
stated variances, checked on the exact joint law of the implementation's projection and
noise draws."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.explore import explore
from exactdp.noise_tables import NoiseTable, discrete_gaussian_table
from exactdp.projections.matrices import OPORPPlan, sample_rademacher
from exactdp.projections.rp import DPOPORP, DPRP, RawData
from exactdp.proofs.li_li._proj import cert

CLAIM = "Li & Li Thms 3.8-3.10: inner-product estimators unbiased with the stated variances"
STATEMENT = """With independent noise of variance s^2 on every released coordinate: Theorem 3.8 (raw data)
g = sum_i (u_i + a_i)(v_i + b_i) has E g = <u, v> and Var g = s^2 sum_i (u_i^2 + v_i^2) +
p s^4.  Theorem 3.9 (DP-RP, ±1 W scaled by 1/sqrt(k), noise of variance s^2 on the scaled
projections) g = sum_j (x_j + a_j)(y_j + b_j): E g = <u, v>, Var g = s^2 sum (u_i^2 + v_i^2)
+ k s^4 + (1/k)(sum u_i^2 sum v_i^2 + <u, v>^2 - 2 sum u_i^2 v_i^2).  Theorem 3.10 (DP-OPORP,
unscaled): the same with the last term multiplied by (p - k)/(p - 1).  (Eq. 23's ratio of
the first two variances follows from these; its normalised-data approximation is not a
bound.)"""
PROOF_IDEA = """The implementation releases integer projections x' = W^T u (no 1/sqrt(k)) plus integer noise
of variance s'^2; g = (1/k) sum_j x'_j y'_j is Theorem 3.9's estimator with s^2 = s'^2 / k.
The law of W (sample_rademacher) and of the OPORP plan (OPORPPlan.sample: Fisher-Yates and
±1 signs) is explored from the implementation, and for each W or plan the laws of
DPRP/DPOPORP.sample(u) and .sample(v) (independent noise draws); RawData.sample likewise.
E g and Var g are computed exactly from these laws and must equal the theorems' formulas
evaluated with s'^2 of the noise table (q = 1/2, T = 1; full also q = 2/3, T = 2), for the
pairs (u, v) of the grid (p = 3, k = 2 for raw data and DP-RP; p = 4, k = 2 for OPORP).  The
row prints the exact variances."""

NOT_EXERCISABLE = {
    "Theorems 3.8-3.9 with Gaussian W and continuous Gaussian noise": "the exact "
    "implementation draws integer W and integer noise; the theorems' algebra only uses "
    "the first four moments, which are checked here for ±1 W and exact noise tables",
}

Law = dict[Any, Fraction]
PAIRS3 = (((1, -2, 1), (2, 1, 0)), ((2, 2, -1), (-1, 1, 2)))
PAIRS4 = (((1, -2, 1, 2), (2, 1, 0, -1)), ((2, 0, -1, 1), (1, 2, 2, 0)))


def _sums(u: tuple[int, ...], v: tuple[int, ...]) -> tuple[int, int, int, int]:
    return (sum(a * a for a in u), sum(b * b for b in v), sum(a * b for a, b in zip(u, v)),
            sum(a * a * b * b for a, b in zip(u, v)))


def noise_variance(noise: NoiseTable) -> Fraction:
    law = noise.law()
    mean = sum((z * p for z, p in law.items()), Fraction(0))
    return sum((z * z * p for z, p in law.items()), Fraction(0)) - mean * mean


def _moments(terms: Iterable[tuple[Fraction, Fraction]]) -> tuple[Fraction, Fraction]:
    m1 = m2 = Fraction(0)
    for pr, val in terms:
        m1 += pr * val
        m2 += pr * val * val
    return m1, m2 - m1 * m1


def _estimates(law_u: Law, law_v: Law, scale: Fraction) -> list[tuple[Fraction, Fraction]]:
    return [(pu * pv, scale * sum(a * b for a, b in zip(xu, xv)))
            for xu, pu in law_u.items() for xv, pv in law_v.items()]


def _mixture(family: Law, mech_of: Callable[[Any], Any], u: tuple[int, ...],
             v: tuple[int, ...], scale: Fraction) -> tuple[Fraction, Fraction]:
    # every member is run; members whose two laws coincide are summed before the estimates
    weight: dict[tuple[frozenset[Any], frozenset[Any]], Fraction] = {}
    for member, pm in family.items():
        mech = mech_of(member)
        lu = explore(lambda src, m=mech: m.sample(u, src))
        lv = explore(lambda src, m=mech: m.sample(v, src))
        key = (frozenset(lu.items()), frozenset(lv.items()))
        weight[key] = weight.get(key, Fraction(0)) + pm
    terms: list[tuple[Fraction, Fraction]] = []
    for (lu_items, lv_items), pm in weight.items():
        terms.extend((pm * pr, val) for pr, val in _estimates(dict(lu_items), dict(lv_items),
                                                                scale))
    return _moments(terms)


def raw_case(u: tuple[int, ...], v: tuple[int, ...], noise: NoiseTable
             ) -> tuple[bool, Fraction, Fraction]:
    s2 = noise_variance(noise)
    su2, sv2, suv, _ = _sums(u, v)
    mean, var = _mixture({None: Fraction(1)}, lambda _: RawData(len(u), 1, noise), u, v,
                         Fraction(1))
    claim = s2 * (su2 + sv2) + len(u) * s2 * s2
    return mean == suv and var == claim, var, claim


def rp_case(u: tuple[int, ...], v: tuple[int, ...], k: int, noise: NoiseTable
            ) -> tuple[bool, Fraction, Fraction]:
    s2 = noise_variance(noise) / k  # the noise on the scaled projections x'/sqrt(k)
    su2, sv2, suv, su2v2 = _sums(u, v)
    family = explore(lambda src: sample_rademacher(len(u), k, src))
    mean, var = _mixture(family, lambda W: DPRP(W, 1, noise), u, v, Fraction(1, k))
    claim = s2 * (su2 + sv2) + k * s2 * s2 + Fraction(su2 * sv2 + suv * suv - 2 * su2v2, k)
    return mean == suv and var == claim, var, claim


def oporp_case(u: tuple[int, ...], v: tuple[int, ...], k: int, noise: NoiseTable
               ) -> tuple[bool, Fraction, Fraction]:
    p = len(u)
    s2 = noise_variance(noise)
    su2, sv2, suv, su2v2 = _sums(u, v)
    family = explore(lambda src: OPORPPlan.sample(p, k, src))
    mean, var = _mixture(family, lambda plan: DPOPORP(plan, 1, noise), u, v, Fraction(1))
    claim = (s2 * (su2 + sv2) + k * s2 * s2
             + Fraction(p - k, p - 1) * Fraction(su2 * sv2 + suv * suv - 2 * su2v2, k))
    return mean == suv and var == claim, var, claim


def theorem_certificate(name: str, run: Callable[..., tuple[bool, Fraction, Fraction]],
                        cases: list[tuple[Any, ...]]) -> Certificate:
    results = [(case, *run(*case)) for case in cases]
    ok = all(r[1] for r in results)
    first = results[0]
    return cert(f"{CLAIM} ({name})", f"{run.__name__} on the explored implementation",
                {"cases": len(cases)}, "pairs (u, v) x noise tables", first[2],
                "Var = the theorem's formula, E = <u, v>", ok,
                {"variances": [(str(r[0][0]), str(r[0][1]), str(r[2]), str(r[3]))
                               for r in results],
                 "failing": [str(r[0][:2]) for r in results if not r[1]][:3]})


def check(full: bool) -> ClaimReport:
    tables = [discrete_gaussian_table(Fraction(1, 2), 1)]
    if full:
        tables.append(discrete_gaussian_table(Fraction(2, 3), 2))
    pairs3 = PAIRS3 if full else PAIRS3[:1]
    pairs4 = PAIRS4 if full else PAIRS4[:1]
    certs = [
        theorem_certificate("Thm 3.8 raw data", raw_case,
                            [(u, v, t) for u, v in PAIRS3 for t in tables]),
        theorem_certificate("Thm 3.9 DP-RP, ±1 W", rp_case,
                            [(u, v, 2, t) for u, v in pairs3 for t in tables]),
        theorem_certificate("Thm 3.10 DP-OPORP", oporp_case,
                            [(u, v, 2, t) for u, v in pairs4 for t in tables]),
    ]
    return ClaimReport(CLAIM, "p = 3 (raw, DP-RP), p = 4 (OPORP), k = 2, tables q = 1/2, T = 1"
                       + (" and q = 2/3, T = 2" if full else ""),
                       "Var " + ", ".join(brief(c.worst) for c in certs)
                       + " (raw, DP-RP, OPORP; first case)",
                       "= Thms 3.8, 3.9, 3.10 exactly", certs)
